"""Figures at a readable size: as wide as the page allows, never with text under 9 px, never cut off.

A notebook's drawing is an SVG at its natural size (graphviz writes points: 1 pt = 4/3 CSS px). A theme's
`max-width: 100%` would shrink a wide graph until its labels are specks; here each figure of a chapter's
output is shown at `clamp(readable, 100%, natural)` width: its natural size when it fits the column, scaled
down to the column when its smallest text stays at least 9 CSS px, and otherwise at the smallest readable
size in a box that scrolls sideways (a drawing whose text is under 9 px even at its natural size is enlarged).
The same rule as the explorer's "fit (readable)" zoom, with the same measurement (`cfnb.viz.measure`: an SVG's
width and smallest text in CSS px); no script needed.
"""
from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

from cfnb.viz import fit

MIN_FONT_PX = fit.MIN_FONT   # 9 CSS px, as the notebooks' own drawings are checked


def readable_width(natural_width, smallest_font):
    """The width (CSS px) at which a figure's smallest text is `MIN_FONT_PX`: the narrowest it may be shown
    (wider than its natural size when its text is smaller than that)."""
    return natural_width * MIN_FONT_PX / smallest_font if smallest_font else natural_width


class readable_figure(nodes.General, nodes.Element):
    """An output figure with its natural and smallest readable width (see the module docstring)."""


def visit_readable_figure(translator, node):
    translator.body.append(
        f'<div class="cfnb-figure" style="--widest: {max(node["natural"], node["readable"]):.0f}px; '
        f'--narrowest: {node["readable"]:.0f}px">')


def depart_readable_figure(translator, node):
    translator.body.append("</div>")


class ReadableFigures(SphinxPostTransform):
    """Wrap each SVG image of a notebook's output in a `readable_figure`."""

    default_priority = 200
    formats = ("html",)

    def run(self, **kwargs):
        for image in list(self.document.findall(nodes.image)):
            uri = image.get("candidates", {}).get("*", image["uri"])
            if not uri.endswith(".svg") or not _in_cell_output(image):
                continue
            _, path = self.env.relfn2path("/" + uri)
            measured = fit.measure(open(path, encoding="utf-8").read())
            width, font = measured.width, measured.font_px
            figure = readable_figure(natural=width, readable=readable_width(width, font))
            image.replace_self(figure)
            figure += image


def _in_cell_output(node):
    while node is not None:
        if "cell_output" in node.get("classes", ()):
            return True
        node = node.parent
    return False


def setup(app):
    app.add_node(readable_figure, html=(visit_readable_figure, depart_readable_figure))
    app.add_post_transform(ReadableFigures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
