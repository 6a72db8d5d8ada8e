"""The explorer: toggle between the functional and lowered graphs, and step through the execution.

A `ToggleButtons` picks the view (`functional`, `lowered`, and `gradient` when gradients were
asked for); a `Play` linked to an `IntSlider` steps through the trace. Everything updates in the
kernel (`widgets.link`, `Output.outputs`), so the widget works in JupyterLab and can be driven and
checked from Python (tests, nbval). The trace is a bounded re-run (WhileLoopResult.trace): for a long
loop the caption says it holds only the first firings. Each SVG is rendered once and cached, so opening a long trace is
instant and stepping back and forth costs one render per new step.
"""
import ipywidgets as widgets

from cfnb import viz


class Explorer(widgets.VBox):
    def __init__(self, result):
        self.result = result
        views = ["functional", "lowered"] + (["gradient"] if result.grads else [])
        self.view = widgets.ToggleButtons(options=views, value="lowered", description="view")
        steps = max(1, len(result.trace))
        self.play = widgets.Play(min=0, max=steps - 1, step=1, interval=400, description="play")
        self.slider = widgets.IntSlider(min=0, max=steps - 1, value=0, description="step", continuous_update=False)
        widgets.link((self.play, "value"), (self.slider, "value"))
        self.caption = widgets.Label()
        self.output = widgets.Output()
        self._svgs = {}
        super().__init__([self.view, widgets.HBox([self.play, self.slider]), self.caption, self.output])
        self.view.observe(self._refresh, "value")
        self.slider.observe(self._refresh, "value")
        self._refresh()

    # what each view draws
    def _ops(self, view):
        graph = self.result.functional if view == "functional" else self.result.lowered
        ops = graph.get_operations()
        if view != "gradient":
            ops = [op for op in ops if not op.name.startswith("gradients")]
        return graph, ops

    def svg(self, view, step):
        """The SVG of `view` at trace step `step` (cached)."""
        key = (view, step if view != "functional" else None)
        if key not in self._svgs:
            graph, ops = self._ops(view)
            trace = self.result.trace
            if view == "functional" or not len(trace):
                dot = viz.to_dot(graph, ops=ops)
            else:
                current, dead, fired, values = viz.trace_state(trace, step)
                names = {op.name for op in ops}
                dot = viz.to_dot(graph, ops=ops, step=current.node if current.node in names else None,
                                 dead=dead & names, fired=fired & names, values=values)
            self._svgs[key] = viz.render_svg(dot) if viz.dot.dot_available() else dot.source
        return self._svgs[key]

    def _refresh(self, change=None):
        view, step = self.view.value, self.slider.value
        trace = self.result.trace
        self.caption.value = (viz.step_caption(trace[step]) if len(trace) and view != "functional" else
                              f"{view} graph" + ("" if len(trace) else " (no trace)"))
        if getattr(trace, "truncated", False) and view != "functional":
            self.caption.value += f" — the trace holds the first {len(trace):,} firings of a longer run"
        svg = self.svg(view, step)
        mime = "image/svg+xml" if svg.startswith("<svg") else "text/plain"
        self.output.outputs = ({"output_type": "display_data", "data": {mime: svg}, "metadata": {}},)
