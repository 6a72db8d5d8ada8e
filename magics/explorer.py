"""The explorer: toggle between the functional and lowered graphs, and step through the execution.

A `ToggleButtons` picks the view (`functional`, `lowered`, and `gradient` when gradients were
asked for); a `Play` linked to an `IntSlider` steps through the trace; a zoom control fits wide
drawings to the output's width (the functional view of a small loop is already wider than a page)
or shows them at a fixed scale in a bounded box that scrolls. The trace is a bounded re-run
(WhileLoopResult.trace): for a long loop the caption says it holds only the first firings.

Everything updates in the kernel (`widgets.link`, `HTML.value`), so the widget works wherever
ipywidgets work (JupyterLab, Notebook 7, VS Code) and can be driven and checked from Python
(tests, nbval).

Each display gets its own widgets. A widget model shown twice has two front-end views, and two
views of one `Play` model run two timers that fight over its value (the well-known ipywidgets
problem with repeated views of Play/jslink): Play advances one step and stops. So the second and
later displays of an explorer show a fresh copy (`Explorer.copy`), which shares the rendered
drawings but has widgets of its own.

Highlighting: the firing node is highlighted in whichever view is shown. A node the view does not
draw is mapped to the op that stands for it there: in the functional view, the `While`/`If` op
whose name is the longest prefix of the node's name; in the lowered view, a gradient node
(`gradients/while/mul_grad/Mul`) to the forward op it differentiates (`while/mul`).
"""
import re

import ipywidgets as widgets

from cfnb import viz

ZOOMS = [("fit width", "fit"), ("50%", 0.5), ("75%", 0.75), ("100%", 1.0), ("150%", 1.5), ("200%", 2.0)]
BOX_HEIGHT = 640  # px: taller drawings scroll inside the box


def stand_in(node, names, view):
    """The drawn op that stands for firing `node` in `view` (whose drawn op names are `names`), or None."""
    if node in names:
        return node
    parts = node.split("/")
    if parts[0] == "gradients" and view != "gradient":
        # gradients/<forward op name>_grad/...: the forward op this gradient op belongs to
        for k in range(len(parts) - 1, 0, -1):
            if parts[k].endswith("_grad"):
                forward = "/".join(parts[1:k] + [parts[k][: -len("_grad")]])
                if forward in names or view == "functional":
                    return stand_in(forward, names, view) if forward != node else None
        return None
    if view == "functional":
        if parts[0] == "Func":  # the inliner's Func/<call>/input, .../input_control_node: the call's functional op
            parts = parts[1:]
        for k in range(len(parts) - 1, 0, -1):
            if "/".join(parts[:k]) in names:
                return "/".join(parts[:k])
    return None


def scaled_svg(svg, zoom):
    """`svg` sized for the output: `fit` scales it to the output's width (never wider than its
    natural size), a number scales its natural size; graphviz's viewBox keeps the proportions."""
    if not svg.startswith("<svg"):
        return f"<pre>{svg}</pre>"
    head, rest = svg.split(">", 1)
    width = re.search(r'width="([\d.]+)pt"', head)
    height = re.search(r'height="([\d.]+)pt"', head)
    if not (width and height):
        return svg
    w, h = float(width.group(1)), float(height.group(1))
    head = head.replace(width.group(0), "").replace(height.group(0), "")
    if zoom == "fit":
        size = f'width="100%" style="max-width:{w:.0f}pt;height:auto"'
    else:
        size = f'width="{w * zoom:.0f}pt" height="{h * zoom:.0f}pt"'
    return f"{head} {size}>{rest}"


class Explorer(widgets.VBox):
    def __init__(self, result, svgs=None):
        self.result = result
        views = ["functional", "lowered"] + (["gradient"] if result.grads else [])
        self.view = widgets.ToggleButtons(options=views, value="lowered", description="view")
        steps = max(1, len(result.trace))
        self.play = widgets.Play(min=0, max=steps - 1, step=1, interval=400, description="play")
        self.slider = widgets.IntSlider(min=0, max=steps - 1, value=0, description="step", continuous_update=False)
        widgets.link((self.play, "value"), (self.slider, "value"))
        self.zoom = widgets.Dropdown(options=ZOOMS, value="fit", description="zoom",
                                     layout=widgets.Layout(width="180px"))
        self.caption = widgets.Label()
        self.caption.add_class("cfnb-explorer-caption")
        self.drawing = widgets.HTML(layout=widgets.Layout(max_height=f"{BOX_HEIGHT}px", overflow="auto",
                                                          width="100%", border="1px solid #e0e0e0"))
        self.drawing.add_class("cfnb-explorer-drawing")
        self._svgs = {} if svgs is None else svgs
        self._displayed = False
        self.highlighted = None
        super().__init__([self.view, widgets.HBox([self.play, self.slider, self.zoom]), self.caption, self.drawing])
        self.add_class("cfnb-explorer")
        self.view.observe(self._refresh, "value")
        self.slider.observe(self._refresh, "value")
        self.zoom.observe(self._refresh, "value")
        self._refresh()

    def __repr__(self):
        return f"<cfnb explorer: {self.view.value} view, step {self.slider.value} of {self.slider.max}>"

    def copy(self):
        """A new explorer on the same result, in the same state, with its own widgets; the rendered
        drawings are shared."""
        twin = Explorer(self.result, self._svgs)
        twin.zoom.value, twin.view.value, twin.slider.value = self.zoom.value, self.view.value, self.slider.value
        return twin

    def _repr_mimebundle_(self, include=None, exclude=None):
        if self._displayed:  # a second view of these models would break Play: show a copy
            return self.copy()._repr_mimebundle_(include=include, exclude=exclude)
        self._displayed = True
        return super()._repr_mimebundle_(include=include, exclude=exclude)

    # what each view draws
    def _ops(self, view):
        graph = self.result.functional if view == "functional" else self.result.lowered
        ops = graph.get_operations()
        if view != "gradient":
            ops = [op for op in ops if not op.name.startswith("gradients")]
        return graph, ops

    def _firing_node(self, view, step):
        """The drawn op to highlight at `step` in `view` (None when nothing stands for the firing)."""
        trace = self.result.trace
        if not len(trace):
            return None
        _, ops = self._ops(view)
        return stand_in(trace[step].node, {op.name for op in ops}, view)

    def svg(self, view, step):
        """The SVG of `view` at trace step `step` (cached)."""
        trace = self.result.trace
        node = self._firing_node(view, step)
        key = (view, node) if view == "functional" else (view, step)
        if key not in self._svgs:
            graph, ops = self._ops(view)
            if view == "functional" or not len(trace):
                dot = viz.to_dot(graph, ops=ops, step=node)
            else:
                _, dead, fired, values = viz.trace_state(trace, step)
                names = {op.name for op in ops}
                dot = viz.to_dot(graph, ops=ops, step=node, dead=dead & names, fired=fired & names, values=values)
            self._svgs[key] = viz.render_svg(dot) if viz.dot.dot_available() else dot.source
        return self._svgs[key]

    @property
    def shown_svg(self):
        """The SVG the drawing shows now (unscaled)."""
        return self.svg(self.view.value, self.slider.value)

    def _refresh(self, change=None):
        view, step = self.view.value, self.slider.value
        trace = self.result.trace
        self.highlighted = self._firing_node(view, step)
        if len(trace):
            caption = viz.step_caption(trace[step])
            node = trace[step].node
            if self.highlighted is None:
                caption += " — not drawn in this view" + (" (see the gradient view)"
                                                           if node.startswith("gradients") and view != "gradient"
                                                           else "")
            elif self.highlighted != node:
                caption += f" — shown as {self.highlighted}"
        else:
            caption = f"{view} graph (no trace)"
        if getattr(trace, "truncated", False):
            caption += f" — the trace holds the first {len(trace):,} firings of a longer run"
        self.caption.value = caption
        self.drawing.value = scaled_svg(self.svg(view, step), self.zoom.value)
