"""Pictures of a partitioned run: each device's partition graph side by side, every `_Send` linked to its `_Recv`.

`partitions_to_dot(meta.partition_graphs)` draws what `RunOptions(output_partition_graphs=True)` returned: one
cluster per device, placed side by side (the bold red Send->Recv edges do not rank the devices, so neither sits
below the other), the primitives in the shapes of style.py, the `_cloop` nodes of the control loops
partitioning added drawn dashed and labelled `control loop`, so the whitepaper's figure (a device running a loop
body on behalf of the device holding the predicate) can be seen. The partitions are drawn with the levels of
fold.py: constants written into their reader, `_Retval` left out, `_Arg` drawn as the fed value; at `lanes` a
loop variable's column folds into a lane, but a control loop never does (it is what the lesson is about).
Nodes copied from the graph carry the student's names of their source ops. The source is deterministic.
"""
from ..framework.device_spec import parse_device
from .dot import GraphView, dot_available, emit, render_svg
from .fit import MIN_FONT, PAGE_WIDTH, measure
from .fold import DETAILS, _Builder
from .frames import frames_of
from .labels import node_label
from .names import Names
from .plan import Cluster, Plan

TRANSFER_STYLE = {"shape": "box", "style": "filled", "fillcolor": "#ffe599", "color": "#bf9000"}
DEVICE_COLORS = ["#3d85c6", "#e69138", "#6aa84f", "#a64d79", "#bf9000", "#674ea7"]
TRANSFERS = ("_Send", "_Recv", "_HostRecv", "_HostSend")


def short_name(device):
    """`/job:localhost/replica:0/task:0/device:CPU:1` -> `CPU:1`."""
    fields = parse_device(device) if device else {}
    return f"{fields['device_type']}:{fields.get('device_index', '*')}" if "device_type" in fields else device


class _Tensor:
    __slots__ = ("op", "value_index")

    def __init__(self, op, value_index):
        self.op, self.value_index = op, value_index


class _NodeOp:
    """A partition NodeDef seen as an Operation (name, type, inputs, control_inputs, attr), so the levels of
    detail and the names apply to partition graphs as to graphs."""

    def __init__(self, node):
        self.node, self.name, self.type, self.attr = node, node.name, node.op, node.attr
        self.source = node.source
        self.inputs, self.control_inputs, self._outputs = [], [], {}

    def get_attr(self, key):
        return self.attr.get(key, False if key == "is_constant" else None)

    def output(self, k):
        """Output `k`, the same object every time (edges compare tensors by identity)."""
        return self._outputs.setdefault(k, _Tensor(self, k))

    @property
    def outputs(self):
        return [self.output(k) for k in range(max(self._outputs, default=0) + 1)]


class _PartitionGraph:
    def __init__(self, pg):
        self.device = pg.device
        self.ops = [_NodeOp(n) for n in pg.node]
        by_name = {op.name: op for op in self.ops}
        for op in self.ops:
            for ref in op.node.input:
                name, _, port = ref.lstrip("^").partition(":")
                src = by_name.get(name)
                if src is None:
                    continue
                if ref.startswith("^"):
                    op.control_inputs.append(src)
                else:
                    op.inputs.append(src.output(int(port or 0)))

    def get_operations(self):
        return self.ops


class _PartitionNames(Names):
    """Names of partition nodes: those copied from the graph take their source op's names (`source`)."""

    def __init__(self, ops, source_names, sent):
        self.source_names, self.sent = source_names, sent
        super().__init__(ops)

    def _from_source(self, op):
        return getattr(op, "source", None) is not None and self.source_names is not None

    def var_name(self, op):
        return self.source_names.var_name(op.source) if self._from_source(op) else super().var_name(op)

    def label(self, op):
        return self.source_names.label(op.source) if self._from_source(op) else None

    def tensor_name(self, t, depth=0):
        if self._from_source(t.op) and t.value_index < len(t.op.source.outputs):
            return self.source_names.tensor_name(t.op.source.outputs[t.value_index])
        if t.op.type in ("_Recv", "_HostRecv"):
            return self.sent.get(t.op.attr.get("tensor_name"))
        if t.op.type == "_Arg":
            return t.op.name[len("_arg_"):].rsplit("_", 3)[0]
        return super().tensor_name(t, depth) if depth < 10 else None


def _partition_label(op, names, detail, folded):
    """Labels of the nodes partitioning added: transfers say what they carry, a control loop says so."""
    if op.type in TRANSFERS and detail != "all":
        what = names.sent.get(op.attr.get("tensor_name")) or op.attr.get("_src", "")
        return f"{'send' if 'Send' in op.type else 'recv'} {what.rsplit('/', 1)[-1]}\n{op.type}"
    if op.name.startswith("_cloop"):
        return op.type if detail != "all" else f"{op.name}\n{op.type}"
    if op.type == "_Arg" and detail != "all":
        return f"{names.tensor_name(op.outputs[0])} (fed)"
    return node_label(op, names, detail, folded)


def partition_plan(partition_graphs, detail="primitives"):
    """A Plan with one cluster per device."""
    if detail not in DETAILS:
        raise ValueError(f"detail must be one of {', '.join(DETAILS)} (or 'lesson'), not {detail!r}")
    p = Plan(detail)
    graphs = [_PartitionGraph(pg) for pg in partition_graphs]
    source = next((op.source.graph for g in graphs for op in g.ops if op.source is not None), None)
    source_names = Names(source.get_operations()) if source is not None else None
    sent = {}
    for g in graphs:
        for op in g.ops:
            if op.type in ("_Send", "_HostSend") and op.inputs:
                t = op.inputs[0]
                sent[op.attr["tensor_name"]] = _sent_name(t, source_names)
    elements = {}
    for k, g in enumerate(graphs):
        color = DEVICE_COLORS[k % len(DEVICE_COLORS)]
        cid = f"device_{k}"
        p.ids.add(cid)
        p.clusters[cid] = Cluster(cid, short_name(g.device), "", {"style": "rounded", "color": color,
                                                                  "fontcolor": color, "penwidth": "2"})
        names = _PartitionNames(g.ops, source_names, sent)
        frame_of, parent_of = frames_of(g)
        b = _Builder(p, g.ops, names, detail, set(), 2 if detail == "loops" else None, frame_of, parent_of,
                     cluster=cid, prefix=f"{short_name(g.device)}/")
        b.labeler = _partition_label
        b.lane_filter = lambda enter: not enter.name.startswith("_cloop")
        b.build()
        for op in g.ops:
            if op in b.element:
                elements[(k, op.name)] = (b.element[op], op)
                if op.name.startswith("_cloop"):
                    p.elements[b.element[op]].attrs.update(style="filled,dashed", penwidth="2")
                if op.type in TRANSFERS:
                    p.elements[b.element[op]].attrs.update(TRANSFER_STYLE)
        _group_control_loops(p, [b.element[op] for op in g.ops if op in b.element and op.name.startswith("_cloop")])
    _link_transfers(p, elements)
    return p


def _group_control_loops(p, ids):
    """The nodes of each control loop in a dashed box of their own, labelled `control loop`."""
    groups = {}
    for eid in ids:
        groups.setdefault(p.elements[eid].cluster, []).append(eid)
    for parent, members in groups.items():
        cid = f"cloop_{parent}"
        p.ids.add(cid)
        p.clusters[cid] = Cluster(cid, "control loop", parent, {"style": "dashed,rounded", "color": "#999999",
                                                                "fontcolor": "#666666", "fontsize": "10"})
        for eid in members:
            p.elements[eid] = p.elements[eid]._replace(cluster=cid)


def _sent_name(t, source_names):
    op = t.op
    if op.source is not None and source_names is not None:
        return source_names.tensor_name(op.source.outputs[t.value_index]) or op.source.name
    return op.name


def _link_transfers(p, elements):
    sends = {op.attr["tensor_name"]: eid for (eid, op) in elements.values() if op.type in ("_Send", "_HostSend")}
    for eid, op in elements.values():
        if op.type in ("_Recv", "_HostRecv") and op.attr.get("tensor_name") in sends:
            p.edge(sends[op.attr["tensor_name"]], eid, color="#cc0000", penwidth="2", style="bold",
                   constraint="false", tooltip=op.attr["tensor_name"])


def partitions_to_dot(partition_graphs, title=None, detail="lesson"):
    """A deterministic `graphviz.Digraph`: one cluster per device, side by side, Send->Recv edges across;
    `detail="lesson"` takes the first of `primitives`, `lanes` that fits the page."""
    levels = ("primitives", "lanes") if detail == "lesson" and dot_available() else (
        ("primitives",) if detail == "lesson" else (detail,))
    for level in levels:
        dot = emit(partition_plan(partition_graphs, level), title, legend=False)
        if len(levels) == 1:
            return dot
        m = measure(render_svg(dot))
        if m.width <= PAGE_WIDTH or (m.font_px and m.font_px * PAGE_WIDTH / m.width >= MIN_FONT):
            dot.attr(size=f"{(PAGE_WIDTH - 10) / 96:.3f},1000")  # dot scales it down to the page if wider
            return dot
    return dot


def show_partitions(partition_graphs, title=None, detail="lesson"):
    """A displayable view of the partitions (SVG, with a short deterministic text/plain)."""
    sizes = ", ".join(f"{short_name(pg.device)}: {len(pg.node)} nodes" for pg in partition_graphs)
    return GraphView(partitions_to_dot(partition_graphs, title, detail), f"<cfnb partitions: {sizes}>")
