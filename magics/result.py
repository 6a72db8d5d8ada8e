"""What a `%%whileloop` cell leaves behind (bound to `_loop`, or the name given with `--as`)."""
from cfnb import viz


class WhileLoopResult:
    """The cell's graphs, values, gradients and (on demand) its execution trace.

    form        which control flow ran: "lowered" (v1, rebuilt from the functional graph) or "functional"
    graph       the graph that ran (`--form lowered`: control flow v1; `functional`: v2)
    functional  the cell's functional graph (If/While ops), built by running the cell's Python once
    lowered     the graph of primitives that actually ran (for `--form functional`, the lowering
                of the functional graph; for `lowered`, the v1 graph)
    values      {name: final value} for every name the cell assigned (as plain Python leaves them)
    grads       {"dOUT/dIN": value} for each `--grad OUT:IN`
    trace       the first firings of a traced re-run of the graph (node, frame, iteration, live/dead,
                value); recorded when first asked for, at most magics.cell.TRACE_LIMIT firings
                (`trace.truncated` says whether the run was longer); its prints are silenced
    memory      the history stacks' memory over that traced run
    memory_timeline   with `--swap-memory`: device and host memory of a re-run on a (simulated) GPU;
                `memory_plot()` draws it
    """

    memory_runner = None  # set by `--swap-memory`
    deleted = ()          # names the cell deleted (`del x`): the magic removes them from the notebook

    def __init__(self, form, graph, functional, lowered, values, grads, tracer):
        self.form = form
        self.graph = graph
        self.functional = functional
        self.lowered = lowered
        self.values = values
        self.grads = grads
        self._tracer = tracer
        self._trace = None
        self._explorer = None

    def _record(self):
        if self._trace is None:
            self._trace = self._tracer()
        return self._trace

    @property
    def trace(self):
        return self._record()[0]

    @property
    def memory(self):
        return self._record()[1]

    @property
    def memory_timeline(self):
        if self.memory_runner is None:
            raise AttributeError("memory_timeline: run the cell with %%whileloop --swap-memory")
        if getattr(self, "_memory_timeline", None) is None:
            self._memory_timeline = self.memory_runner()
        return self._memory_timeline

    def memory_plot(self):
        """Device and host memory against time, forward and backprop marked (cfnb.viz.plot_memory)."""
        return viz.plot_memory(self.memory_timeline, title="%%whileloop --swap-memory")

    def explorer(self):
        """The explorer widget (made once, then reused; each further display shows a copy)."""
        if self._explorer is None:
            from .explorer import Explorer
            self._explorer = Explorer(self)
        return self._explorer

    def show(self, view="lowered", detail="lesson"):
        """A static drawing of one view (no widget): `functional`, `lowered` (both without the
        gradient ops) or `gradient` (the lowered graph with them), at a level of detail (viz.DETAILS:
        `"lesson"` folds constants and plumbing, `"all"` is TensorFlow's exact graph)."""
        graph = self.functional if view == "functional" else self.lowered
        ops = graph.get_operations()
        if view != "gradient":
            ops = [op for op in ops if not op.name.startswith("gradients")]
        return viz.GraphView(viz.to_dot(graph, title=f"{view} form", ops=ops, detail=detail),
                             f"<cfnb graph: {view} form: {len(ops)} ops>")

    def __repr__(self):
        names = ", ".join(f"{k}={_short(v)}" for k, v in self.values.items())
        grads = "".join(f", {k}={_short(v)}" for k, v in self.grads.items())
        return f"<whileloop ({self.form}): {names}{grads}>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The explorer (its widget, and the HTML that shows where no widget renders), with this text."""
        bundle = dict(self.explorer()._repr_mimebundle_(include=include, exclude=exclude) or {})
        bundle["text/plain"] = repr(self)
        return bundle


def _short(v):
    from cfnb.runtime.trace import summarize
    return summarize(v, width=30)
