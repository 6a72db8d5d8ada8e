"""Draw a graph with graphviz: one cluster per while frame, the five primitives in their own shapes.

`to_dot(graph)` returns a `graphviz.Digraph` whose source is the same on every run (node ids are
counters in op order, never `id()`), so the SVG is too. The trace view (`to_dot(graph,
step=firing, seen=...)`) keeps the same layout and only restyles nodes: the firing node is
highlighted, dead tokens are grey, and the value is an `xlabel`, which graphviz places after
layout, so nodes do not move between steps.

`show(graph)` wraps the drawing for Jupyter: SVG when Graphviz's `dot` is installed, otherwise one
clear message with how to install it, and the DOT text.
"""
import functools
import html
import shutil
from collections import deque

import graphviz

from ..framework.func_graph import functions_of
from ..framework.graph_text import value_text
from .figure import figure_bundle

# The primitives, as TensorFlow's lowering diagrams draw them.
_FUNCTIONAL = {"shape": "box3d", "fillcolor": "#ead1dc", "color": "#a64d79"}
_HISTORY = {"shape": "cylinder", "fillcolor": "#fff2cc", "color": "#7f6000"}  # stacks and TensorList accumulators
STYLE = {
    "Enter": {"shape": "invhouse", "fillcolor": "#cfe2f3", "color": "#3d85c6"},
    "Exit": {"shape": "house", "fillcolor": "#fce5cd", "color": "#e69138"},
    "Merge": {"shape": "invtrapezium", "fillcolor": "#d9ead3", "color": "#6aa84f"},
    "Switch": {"shape": "trapezium", "fillcolor": "#f4cccc", "color": "#cc0000"},
    "NextIteration": {"shape": "cds", "fillcolor": "#d9d2e9", "color": "#674ea7"},
    "LoopCond": {"shape": "diamond", "fillcolor": "#fff2cc", "color": "#bf9000"},
    "If": _FUNCTIONAL, "While": _FUNCTIONAL,
    "StackPushV2": _HISTORY, "StackPopV2": _HISTORY, "TensorListPushBack": _HISTORY, "TensorListPopBack": _HISTORY,
}
CONST_STYLE = {"shape": "plaintext", "fillcolor": "white", "color": "#999999", "fontcolor": "#666666"}
OP_STYLE = {"shape": "box", "style": "rounded,filled", "fillcolor": "#f3f3f3", "color": "#666666"}
LEGEND = ["Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond"]
STYLE["StatelessWhile"] = STYLE["While"]
STYLE["StatelessIf"] = STYLE["If"]
FONT = "Helvetica"


def frames_of(graph):
    """Frame name of every op, by TensorFlow's BFS; Enter and Exit drawn inside their loop.

    Returns (frame_of: {op: frame name}, parent_of: {frame: parent frame, "" for the root}).
    """
    ops = graph.get_operations()
    consumers = {op: [] for op in ops}
    for op in ops:
        for t in op.inputs:
            consumers[t.op].append(op)
        for c in op.control_inputs:
            consumers[c].append(op)
    frame_of, parent_of = {}, {"": None}
    queue = deque()
    for op in ops:
        if not op.inputs and not op.control_inputs:
            frame_of[op] = ""
            queue.append(op)
    while queue:
        op = queue.popleft()
        frame = frame_of[op]
        if op.type == "Enter":
            inner = op.get_attr("frame_name")
            out_frame = inner
        elif op.type == "Exit":
            out_frame = parent_of.get(frame, "")
        else:
            out_frame = frame
        for c in consumers[op]:
            if c in frame_of:
                continue
            if c.type == "Enter":
                child = c.get_attr("frame_name")
                parent_of.setdefault(child, out_frame)
                frame_of[c] = child
            else:
                frame_of[c] = out_frame
            queue.append(c)
    for op in ops:
        frame_of.setdefault(op, "")
    return frame_of, parent_of


def _label(op):
    parts = op.name.split("/")
    short = parts[-1]
    if len(parts) >= 3 and op.type in STYLE:
        short = "/".join(parts[-2:])  # `mul/Enter`, `Add/Switch_1`: which value the primitive carries
    if op.type == "Const":
        return f"{short}\n= {value_text(op.get_attr('value'))[:24]}"
    if short.split("/")[-1].split("_")[0] == op.type:
        return short
    return f"{short}\n{op.type}"


def style_for(op_type):
    """The drawing attributes of an op type: the primitives' colours, Consts' and everything else's."""
    if op_type == "Const":
        return dict(CONST_STYLE)
    if op_type in STYLE:
        return {"style": "filled", **STYLE[op_type]}
    return dict(OP_STYLE)


def _node_attrs(op):
    attrs = style_for(op.type)
    attrs["label"] = _label(op)
    attrs["tooltip"] = f"{op.name} ({op.type})"
    return attrs


def new_digraph(name, title, comment):
    """A `graphviz.Digraph` with the house style every cfnb drawing shares (fonts, spacing, edge colour)."""
    dot = graphviz.Digraph(name=name, comment=title or comment)
    dot.attr(rankdir="TB", fontname=FONT, fontsize="11", newrank="true", nodesep="0.25", ranksep="0.35",
             compound="true")
    dot.attr("node", fontname=FONT, fontsize="10", height="0.3", margin="0.08,0.03")
    dot.attr("edge", fontname=FONT, fontsize="9", arrowsize="0.6", color="#555555")
    if title:
        dot.attr(label=title, labelloc="t", fontsize="13")
    return dot


def to_dot(graph, title=None, legend=True, step=None, dead=(), fired=(), values=None, ops=None):
    """A deterministic `graphviz.Digraph` of `graph` (or of the listed `ops`).

    Trace styling: `step` names the node firing now (highlighted), `dead` nodes whose last token was
    dead (grey), `fired` nodes that have fired at least once (solid border), `values` maps node
    names to a short value shown beside the node.
    """
    ops = graph.get_operations() if ops is None else list(ops)
    keep = set(ops)
    ids = {op: f"n{k}" for k, op in enumerate(ops)}
    frame_of, parent_of = frames_of(graph)
    dot = new_digraph("cfnb", title, "cfnb graph")
    dead, fired, values = set(dead), set(fired), dict(values or {})

    def node(g, op):
        attrs = _node_attrs(op)
        if step is not None or fired or dead:
            if op.name in dead:
                attrs.update(fillcolor="#eeeeee", color="#bbbbbb", fontcolor="#aaaaaa", style="filled,dashed")
            elif fired and op.name not in fired and op.name != step:
                attrs.update(style=attrs.get("style", "filled") + ",dotted")
            if op.name == step:
                attrs.update(penwidth="3", color="#000000",
                             fillcolor="#ffe599" if op.name not in dead else "#dddddd")
                if attrs["shape"] == "plaintext":  # a constant: give it an outline to highlight
                    attrs.update(shape="box", style="filled")
            if op.name in values:
                attrs["xlabel"] = html.escape(values[op.name], quote=False)
                attrs["forcelabels"] = "true"
        g.node(ids[op], **attrs)

    # Clusters, nested as the frames nest; frame names are ordered by first appearance.
    frame_order = []
    for op in ops:
        if frame_of[op] not in frame_order:
            frame_order.append(frame_of[op])
    children = {}
    for f in frame_order:
        p = parent_of.get(f) or ""
        while p and p not in frame_order:
            frame_order.append(p)
            p = parent_of.get(p) or ""
    for f in frame_order:
        if f:
            children.setdefault(parent_of.get(f) or "", []).append(f)
    parallel = {}
    for op in ops:
        if op.type == "Enter":
            parallel.setdefault(op.get_attr("frame_name"), op.get_attr("parallel_iterations"))

    def emit(g, frame):
        for op in ops:
            if frame_of[op] == frame:
                node(g, op)
        for child in children.get(frame, []):
            with g.subgraph(name=f"cluster_{frame_order.index(child)}") as sub:
                label = f"frame {child}"
                if child in parallel:
                    label += f"\nparallel_iterations={parallel[child]}"
                sub.attr(label=label, style="rounded,dashed", color="#3d85c6", fontcolor="#3d85c6",
                         fontsize="10", labeljust="l")
                emit(sub, child)

    emit(dot, "")

    for op in ops:
        for t in op.inputs:
            if t.op not in keep:
                continue
            attrs = {}
            if t.op.type == "Switch":
                attrs.update(label="T" if t.value_index == 1 else "F",
                             color="#cc0000" if t.value_index == 1 else "#990000")
            elif t.value_index:
                attrs["label"] = f":{t.value_index}"
            if t.op.type == "NextIteration":
                attrs.update(style="dashed", color="#674ea7", constraint="false")
            dot.edge(ids[t.op], ids[op], **attrs)
        for c in op.control_inputs:
            if c in keep:
                dot.edge(ids[c], ids[op], style="dotted", color="#999999", arrowhead="odot")
    _link_accumulators(dot, ops, ids)
    _draw_functions(dot, ops, ids)
    if legend and any(op.type in LEGEND for op in ops):
        with dot.subgraph(name="cluster_legend") as lg:
            lg.attr(label="primitives", style="rounded", color="#cccccc", fontsize="9", fontcolor="#999999")
            for k, kind in enumerate(LEGEND):
                lg.node(f"legend{k}", label=kind, style="filled", fontsize="9", **STYLE[kind])
            for a, b in zip(range(len(LEGEND) - 1), range(1, len(LEGEND))):
                lg.edge(f"legend{a}", f"legend{b}", style="invis")
    return dot


def _link_accumulators(dot, ops, ids):
    """Join each history-stack push to its pop (they share a StackV2): the value crosses from the
    forward loop to the gradient loop there."""
    pushes, pops = {}, {}
    for op in ops:
        if op.type in ("StackPushV2", "StackPopV2"):
            handle = op.inputs[0]
            while handle.op.type in ("Enter", "Switch", "Identity"):
                handle = handle.op.inputs[0]
            (pushes if op.type == "StackPushV2" else pops).setdefault(handle.op, []).append(op)
    for stack, push_ops in pushes.items():
        for push in push_ops:
            for pop in pops.get(stack, []):
                dot.edge(ids[push], ids[pop], style="dashed", color="#7f6000", constraint="false", arrowhead="vee",
                         label="history", fontcolor="#7f6000")


def _draw_functions(dot, ops, ids, depth=0):
    """Beside each functional If/While, its functions as clusters (nested functions inside)."""
    for op in ops:
        for key in sorted(k for k, v in op.attr.items() if k in ("cond", "body", "then_branch", "else_branch")):
            fn = op.attr[key]
            fn_ops = fn.get_operations()
            prefix = f"{ids[op]}_{key}_"
            fn_ids = {o: f"{prefix}{k}" for k, o in enumerate(fn_ops)}
            with dot.subgraph(name=f"cluster_fn_{prefix}") as sub:
                sub.attr(label=f"{key} = {fn.name}", style="rounded,filled", fillcolor="#fbf7fb", color="#a64d79",
                         fontcolor="#a64d79", fontsize="10", labeljust="l")
                for o in fn_ops:
                    attrs = _node_attrs(o)
                    if o.type == "Placeholder" and o.outputs[0] in fn.inputs:
                        attrs.update(shape="plaintext", label=f"arg {fn.inputs.index(o.outputs[0])}: "
                                                              f"{o.name.rsplit('/', 1)[-1]}")
                    sub.node(fn_ids[o], **attrs)
                for o in fn_ops:
                    for t in o.inputs:
                        if t.op in fn_ids:
                            sub.edge(fn_ids[t.op], fn_ids[o], **({"label": f":{t.value_index}"} if t.value_index
                                                                  else {}))
                    for c in o.control_inputs:
                        if c in fn_ids:
                            sub.edge(fn_ids[c], fn_ids[o], style="dotted", color="#999999", arrowhead="odot")
                for k, t in enumerate(fn.outputs):
                    if t.op in fn_ids:
                        sub.node(f"{prefix}out{k}", label=f"return {k}", shape="plaintext", fontcolor="#a64d79")
                        sub.edge(fn_ids[t.op], f"{prefix}out{k}", color="#a64d79")
            if fn_ops:
                dot.edge(ids[op], fn_ids[fn_ops[0]], style="dotted", color="#a64d79", arrowhead="none",
                         lhead=f"cluster_fn_{prefix}", constraint="false")
            if depth < 3:
                _draw_functions(dot, [o for o in fn_ops if functions_of(o)], fn_ids, depth + 1)


# --- rendering ---------------------------------------------------------------------------------
MISSING_DOT = ("Graphviz's `dot` program is not installed, so graphs are shown as DOT text. Install it with "
               "`sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) or "
               "`conda install -c conda-forge graphviz`, then restart the kernel.")


def dot_available():
    return shutil.which("dot") is not None


@functools.lru_cache(maxsize=512)
def _render_cached(source):
    return graphviz.Source(source).pipe(format="svg").decode("utf-8")


def render_svg(dot):
    """SVG text for a Digraph (cached by DOT source, so each view is rendered once)."""
    svg = _render_cached(dot.source)
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


_warned = []


class GraphView:
    """What a notebook shows for a graph: SVG (or DOT text when `dot` is missing), and a short,
    deterministic text/plain."""

    def __init__(self, dot, text):
        self.dot = dot
        self.text = text

    def _repr_mimebundle_(self, include=None, exclude=None):
        if not dot_available():
            if not _warned:
                _warned.append(True)
                return {"text/plain": MISSING_DOT + "\n\n" + self.dot.source}
            return {"text/plain": self.dot.source}
        return figure_bundle(render_svg(self.dot), self.text)

    def __repr__(self):
        return self.text


def show(graph, title=None, **kwargs):
    """A displayable view of `graph` (see `to_dot` for the trace-styling arguments)."""
    ops = graph.get_operations()
    kinds = sorted({op.type for op in ops} & set(LEGEND))
    text = f"<cfnb graph{': ' + title if title else ''}: {len(ops)} ops" + (
        f"; primitives {', '.join(kinds)}>" if kinds else ">")
    return GraphView(to_dot(graph, title=title, **kwargs), text)


def trace_state(trace, step):
    """What the graph looks like after firing `step` of a trace: the firing itself, the nodes whose
    latest token was dead, the nodes that have fired, and each live node's latest value."""
    last = {}
    for firing in trace.firings[: step + 1]:
        last[firing.node] = firing
    current = trace.firings[step]
    dead = {n for n, f in last.items() if not f.live}
    values = {n: f.value for n, f in last.items() if f.live}
    return current, dead, set(last), values


def step_caption(firing):
    frame = firing.frame or "root"
    return (f"step {firing.step}: {firing.node} ({firing.op_type}) in frame {frame}, iteration {firing.iteration}, "
            f"{'live' if firing.live else 'dead'}" + (f", value {firing.value}" if firing.live else ""))


def show_step(graph, trace, step, title=None):
    """The graph as it stands at `step` of `trace`: the same layout as `show(graph)`, the firing node
    highlighted, dead tokens greyed, latest values beside the nodes."""
    current, dead, fired, values = trace_state(trace, step)
    caption = step_caption(current)
    dot = to_dot(graph, title=title or caption, step=current.node, dead=dead, fired=fired, values=values)
    return GraphView(dot, caption)
