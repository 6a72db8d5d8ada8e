"""Pictures of a partitioned run: the partition graphs, one cluster per device, and a device timeline.

`partitions_to_dot(meta.partition_graphs)` draws what `RunOptions(output_partition_graphs=True)` returned:
each device's nodes in a cluster of their own, the primitives in the shapes of dot.py, every `_Send` linked
to its `_Recv` by a bold red edge (they share a `tensor_name`), and the `_cloop` nodes of the control loops
partitioning added drawn dashed, so the whitepaper's figure (a device running a loop body on behalf of the
device holding the predicate) can be seen. The source is deterministic.

`Timeline(trace)` lays the firings of a traced run out as bars, one row per device, time running right:
where two rows have bars at the same moment, the devices were working at once. `overlap()` is the
fraction of the run during which at least two devices were inside a firing.
"""
import html

from ..framework.device_spec import parse_device
from .dot import GraphView, new_digraph, style_for
from .figure import figure_bundle

TRANSFER_STYLE = {
    "_Send": {"shape": "rarrow", "style": "filled", "fillcolor": "#ffe599", "color": "#bf9000"},
    "_Recv": {"shape": "larrow", "style": "filled", "fillcolor": "#ffe599", "color": "#bf9000"},
    "_HostRecv": {"shape": "larrow", "style": "filled", "fillcolor": "#ffe599", "color": "#bf9000"},
    "_Arg": {"shape": "cds", "style": "filled", "fillcolor": "#eeeeee", "color": "#999999"},
    "_Retval": {"shape": "cds", "style": "filled", "fillcolor": "#eeeeee", "color": "#999999"},
}
DEVICE_COLORS = ["#3d85c6", "#e69138", "#6aa84f", "#a64d79", "#bf9000", "#674ea7"]


def short_name(device):
    """`/job:localhost/replica:0/task:0/device:CPU:1` -> `CPU:1`."""
    fields = parse_device(device) if device else {}
    return f"{fields['device_type']}:{fields.get('device_index', '*')}" if "device_type" in fields else device


def _attrs(node):
    attrs = dict(TRANSFER_STYLE[node.op]) if node.op in TRANSFER_STYLE else style_for(node.op)
    if node.name.startswith("_cloop"):
        attrs["style"] = "filled,dashed"
        attrs["penwidth"] = "2"
    label = node.name.split("/")[-1] if node.op in ("_Send", "_Recv", "_HostRecv") else node.name
    if node.op in ("_Send", "_Recv", "_HostRecv"):
        label = f"{node.op}\n{node.attr.get('_src', '')}"
    elif node.name.startswith("_cloop"):
        label = f"control loop\n{node.op}"
    elif not label.split("/")[-1].startswith(node.op):
        label = f"{label}\n{node.op}"
    attrs["label"] = label
    attrs["tooltip"] = f"{node.name} ({node.op}) on {node.device}"
    return attrs


def partitions_to_dot(partition_graphs, title=None):
    """A deterministic `graphviz.Digraph`: one cluster per device, Send->Recv edges across them."""
    dot = new_digraph("partitions", title, "partition graphs")
    ids = {}
    for k, pg in enumerate(partition_graphs):
        for node in pg.node:
            ids[(k, node.name)] = f"d{k}n{len(ids)}"
    sends = {}
    for k, pg in enumerate(partition_graphs):
        color = DEVICE_COLORS[k % len(DEVICE_COLORS)]
        with dot.subgraph(name=f"cluster_device_{k}") as sub:
            sub.attr(label=short_name(pg.device), style="rounded", color=color, fontcolor=color, penwidth="2")
            for node in pg.node:
                sub.node(ids[(k, node.name)], **_attrs(node))
                if node.op == "_Send":
                    sends[node.attr["tensor_name"]] = ids[(k, node.name)]
        for node in pg.node:
            for ref in node.input:
                control = ref.startswith("^")
                name, _, port = ref.lstrip("^").partition(":")
                src = ids.get((k, name))
                if src is None:
                    continue
                attrs = {"style": "dashed", "color": "#999999"} if control else {}
                if port:
                    attrs["taillabel"] = port
                dot.edge(src, ids[(k, node.name)], **attrs)
    for k, pg in enumerate(partition_graphs):
        for node in pg.node:
            if node.op in ("_Recv", "_HostRecv") and node.attr["tensor_name"] in sends:
                dot.edge(sends[node.attr["tensor_name"]], ids[(k, node.name)], color="#cc0000", penwidth="2",
                         style="bold", tooltip=node.attr["tensor_name"])
    return dot


def show_partitions(partition_graphs, title=None):
    """A displayable view of the partitions (SVG, with a short deterministic text/plain)."""
    sizes = ", ".join(f"{short_name(pg.device)}: {len(pg.node)} nodes" for pg in partition_graphs)
    return GraphView(partitions_to_dot(partition_graphs, title), f"<cfnb partitions: {sizes}>")


class Timeline:
    """The firings of a traced run as bars on one row per device (`.svg`, or shown in Jupyter)."""

    def __init__(self, trace, width=760, row_height=26):
        self.firings = [f for f in trace if f.device]
        self.devices = sorted({f.device for f in self.firings}, key=lambda d: (len(d), d))
        self.width = width
        self.row_height = row_height

    @property
    def duration(self):
        return max((f.end for f in self.firings), default=0.0)

    def busy(self, device):
        """Merged [start, end] intervals during which `device` was inside a firing."""
        spans = sorted((f.start, f.end) for f in self.firings if f.device == device)
        out = []
        for s, e in spans:
            if out and s <= out[-1][1]:
                out[-1][1] = max(out[-1][1], e)
            else:
                out.append([s, e])
        return out

    def overlap(self):
        """Fraction of the run's time during which at least two devices were inside a firing."""
        events = []
        for d in self.devices:
            for s, e in self.busy(d):
                events += [(s, 1), (e, -1)]
        events.sort()
        active, last, both = 0, 0.0, 0.0
        for t, delta in events:
            if active >= 2:
                both += t - last
            active += delta
            last = t
        return both / self.duration if self.duration else 0.0

    @property
    def svg(self):
        left, top, rh = 70, 20, self.row_height
        scale = (self.width - left - 10) / (self.duration or 1.0)
        height = top + rh * len(self.devices) + 24
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{height}" '
                 f'font-family="Helvetica" font-size="11">']
        for row, device in enumerate(self.devices):
            y = top + row * rh
            color = DEVICE_COLORS[row % len(DEVICE_COLORS)]
            parts.append(f'<text x="4" y="{y + rh * 0.65:.1f}">{html.escape(short_name(device))}</text>')
            for f in self.firings:
                if f.device != device:
                    continue
                x, w = left + f.start * scale, max((f.end - f.start) * scale, 0.5)
                fill = color if f.live else "#cccccc"
                tip = html.escape(f"{f.node} iteration {f.iteration} {'live' if f.live else 'dead'}")
                parts.append(f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{rh - 6}" fill="{fill}" '
                             f'fill-opacity="0.8"><title>{tip}</title></rect>')
        axis_y = top + rh * len(self.devices) + 14
        parts.append(f'<text x="{left}" y="{axis_y}">0</text>')
        parts.append(f'<text x="{self.width - 10}" y="{axis_y}" text-anchor="end">'
                     f'{self.duration * 1e3:.1f} ms</text></svg>')
        return "".join(parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return figure_bundle(self.svg, repr(self))

    def __repr__(self):
        return f"<cfnb Timeline: {len(self.devices)} devices, {len(self.firings)} firings>"
