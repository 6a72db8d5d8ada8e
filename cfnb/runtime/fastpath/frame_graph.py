"""The graph as the code generator sees it: who reads each node, and a frame's work in an order its edges allow.

The executor follows edges forward as nodes fire (graph_compiler.py's `out_edges`). The code generator instead
asks questions of the whole graph before anything runs: who reads this output, which Enters open this frame and
which Exits leave it, which parts of one iteration must come before which. A `FrameGraph` answers them for the
code generator (codegen.py), the loop-form check (loop_form.py) and the cond finder (cond_to_if.py).

A frame's *units* are what its generated function computes in one piece: a node, a whole child frame (called as
one function: its Enters are the call, its Exits the results) or, once cond_to_if.py has found one, a whole cond.
`toposort` orders the units of one iteration by their data and control edges, graph order breaking ties.
"""
from ...framework.topological_order import topological_order
from ..graph_compiler import ENTER, EXIT, ROOT
from .loop_form import NotStatic


class FrameGraph:
    """`consumers[i]`: (dst, slot, port) per data edge out of node i; `control_consumers[i]`: dst ids;
    `enters_of[frame]`: its Enter items; `children_of[frame]`: the names of the frames its Enters open."""

    def __init__(self, exe):
        self.exe = exe
        self.items = exe.items
        self.consumers = [[] for _ in exe.items]
        self.control_consumers = [[] for _ in exe.items]
        for item in exe.items:
            for slot, (src, port) in enumerate(item.in_edges):
                self.consumers[src].append((item.id, slot, port))
            for src in item.control_in:
                self.control_consumers[src].append(item.id)
        self.enters_of = {}
        for item in exe.items:
            if not item.reachable:
                raise NotStatic("unreachable node")
            if item.kind == ENTER:
                self.enters_of.setdefault(item.frame_name, []).append(item)
        self.children_of = {}
        for name, info in exe.frames.items():
            if name != ROOT:
                self.children_of.setdefault(info.parent_name, []).append(name)

    def exits_of(self, name):
        """The Exit nodes of loop frame `name`: what its function returns."""
        return [it for it in self.exe.frames[name].nodes if it.kind == EXIT]

    def units_of(self, name):
        """The frame's units, one per node and one per child frame, and the unit owning each node id (a child
        frame's unit owns its Exits, the values it hands out)."""
        return self.group(self.exe.frames[name].nodes, self.children_of.get(name, []))

    def group(self, nodes, child_frames):
        """Units of `nodes` (of one frame): one per node, one per child frame (its Enters and its Exits)."""
        units, owner = {}, {}
        for it in nodes:
            key = ("frame", it.frame_name) if it.kind == ENTER else ("node", it.id)
            units.setdefault(key, []).append(it)
            owner[it.id] = key
        for child in child_frames:
            for ex in self.exits_of(child):
                owner[ex.id] = ("frame", child)
        return units, owner

    def unit_deps(self, key, members, owner):
        """Units (of the same frame) that `key` depends on, through data and control edges."""
        deps = set()
        for it in members:
            for s in [s for s, _ in it.in_edges] + list(it.control_in):
                if s in owner and owner[s] != key:
                    deps.add(owner[s])
        return deps

    @staticmethod
    def toposort(keys, deps):
        """`keys` in an order where each comes after its `deps`, earlier keys first; NotStatic on a cycle. The
        framework's topological order (framework/topological_order.py): a quadratic sort here made 10,000 ops take
        8.9 s to compile."""
        order, unordered = topological_order(keys, lambda k: deps.get(k, ()))  # O(E + N log N)
        if unordered:
            raise NotStatic("cycle within one iteration")
        return order
