"""How big a picture is where a learner sees it: `measure(svg)` gives its width and height in CSS px at 100%
and the smallest text in CSS px, at its natural size or scaled down to a display width.

JupyterLab shows an `image/svg+xml` output as an `<img>` at its natural size (a wider one is cut off at the
output area's edge, about 960 px), so a course figure must be at most that wide with text of at least 9 px.
graphviz writes sizes in points (1 pt = 4/3 CSS px) and may scale the whole drawing (`transform="scale(s)"`);
both are taken into account. The browser test and the book measure with this same function. A drawing a
little too wide is scaled down by graphviz itself (`size`, drawing.py) when its text stays readable.
"""
import re
from collections import namedtuple

PAGE_WIDTH = 960   # CSS px: a notebook's output area
MIN_FONT = 9.0     # CSS px: the smallest readable text
Measure = namedtuple("Measure", "width height font_px")
_UNITS = {"pt": 4 / 3, "px": 1.0, "": 1.0, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4}


def _length(head, attr):
    m = re.search(rf'\s{attr}="([\d.]+)\s*(pt|px|in|cm|mm)?"', head)
    return float(m.group(1)) * _UNITS[m.group(2) or ""] if m else None


def measure(svg, display_width=None):
    """(width, height, font_px) of an SVG: its size in CSS px at 100% and its smallest text in CSS px, when
    shown at `display_width` (scaled down to it if wider, as a "fit width" view does; None: natural size)."""
    head = re.search(r"<svg\b[^>]*>", svg)
    if head is None:
        raise ValueError("measure: not an SVG document")
    head = head.group(0)
    width, height = _length(head, "width"), _length(head, "height")
    box = re.search(r'viewBox="\s*([-\d.]+)[ ,]+([-\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)"', head)
    if width is None and box:
        width, height = float(box.group(3)), float(box.group(4))
    unit = width / float(box.group(3)) if box and float(box.group(3)) else 1.0
    scale = re.search(r'<g id="graph0"[^>]*transform="scale\(([\d.]+)', svg)
    unit *= float(scale.group(1)) if scale else 1.0
    fonts = [float(f) for f in re.findall(r'font-size="([\d.]+)(?:px|pt)?"', svg)]
    fonts += [float(f) for f in re.findall(r"font-size:\s*([\d.]+)px", svg)]
    shown = min(1.0, display_width / width) if display_width and width else 1.0
    smallest = min(fonts) * unit * shown if fonts else None
    return Measure(round(width, 1), round(height, 1), round(smallest, 2) if smallest else None)


def fits(svg, width=PAGE_WIDTH, min_font=MIN_FONT):
    """Whether the SVG fits `width` CSS px at its natural size with all text at least `min_font` px."""
    m = measure(svg)
    return m.width <= width + 0.5 and (m.font_px is None or m.font_px >= min_font - 0.01)
