"""What a `%%whileloop` cell leaves behind (bound to `_loop`, or the name given with `--as`)."""
from cfnb import viz


class WhileLoopResult:
    """The cell's graphs, values, gradients and execution trace.

    graph       the graph that was built to run (`--form lowered`: control flow v1; `functional`: v2)
    functional  the same cell built with functional If/While ops
    lowered     the graph of primitives that actually ran (for `--form functional`, the lowering
                of the functional graph; for `lowered`, the v1 graph)
    values      {name: final value} for every name the cell assigned (numpy values)
    grads       {"dOUT/dIN": value} for each `--grad OUT:IN`
    trace       every node firing of the run (node, frame, iteration, live/dead, value)
    """

    def __init__(self, form, graph, functional, lowered, values, grads, trace, memory=None):
        self.form = form
        self.graph = graph
        self.functional = functional
        self.lowered = lowered
        self.values = values
        self.grads = grads
        self.trace = trace
        self.memory = memory
        self._explorer = None

    def explorer(self):
        """The ipywidgets explorer (made once, then reused)."""
        if self._explorer is None:
            from .explorer import Explorer
            self._explorer = Explorer(self)
        return self._explorer

    def show(self, view="lowered"):
        """A static drawing of one view (no widget): `functional`, `lowered` (both without the
        gradient ops) or `gradient` (the lowered graph with them)."""
        graph = self.functional if view == "functional" else self.lowered
        ops = graph.get_operations()
        if view != "gradient":
            ops = [op for op in ops if not op.name.startswith("gradients")]
        return viz.GraphView(viz.to_dot(graph, title=f"{view} form", ops=ops),
                             f"<cfnb graph: {view} form: {len(ops)} ops>")

    def __repr__(self):
        names = ", ".join(f"{k}={_short(v)}" for k, v in self.values.items())
        grads = "".join(f", {k}={_short(v)}" for k, v in self.grads.items())
        return f"<whileloop ({self.form}): {names}{grads}; {len(self.trace)} firings>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = dict(self.explorer()._repr_mimebundle_(include=include, exclude=exclude) or {})
        svg = self.explorer().svg("lowered", 0)
        if svg.startswith("<svg"):
            bundle["image/svg+xml"] = svg
        bundle["text/plain"] = repr(self)
        return bundle


def _short(v):
    from cfnb.runtime.trace import summarize
    return summarize(v, width=30)
