"""How an optimization pass changes a graph: on a private copy, with a few edits (Grappler's `MutableGraphView`).

Grappler optimizes a copy of the graph (the `GrapplerItem`'s GraphDef), never the one the user built; so does
cfnb. `copy_graph` copies the ops the fetches need (pruned first, as Grappler's item is), keeping every name, and
the passes then edit the copy in place: `Rewrite.reroute` makes the consumers (and fetches) of one tensor read
another, `Builder.op` adds a node in a given frame. A node made outside the root frame needs something of its frame to
fire on, or it would run once in the root frame: a constant gets a control input from the frame's pivot (an
Identity of a loop variable's `Switch:1`, as TensorFlow's `ConstantFolding::AddControlDependency` adds for the
constants the loop optimizer moves). `add_accumulator` adds a loop variable that collects a value of every
iteration in a TensorList (the accumulator `while_v2` builds for gradients), stacked after the loop.

A copy is made only when some pass has something to do: each pass first looks at the original through a read-only
`Look`, which sees it as its copy would be, and a graph no pass changes is not copied at all.
"""
import numpy as np

from ..framework import dtypes
from ..framework.ops import appended
from ..framework.tensor_shape import TensorShape
from ..framework.topological_order import op_order
from .loop_frames import ROOT, FrameView
from .lowering import _Lowering
from .pruning import needed_ops


class _Ops:
    """What `_Lowering.copy` reads of a graph: its operations (here: the needed ones, in graph order)."""

    def __init__(self, ops):
        self._ops = ops

    def get_operations(self):
        return self._ops


def copy_graph(graph, fetches, targets=(), keep=None):
    """(copy, {tensor: copied tensor}, {op: copied op}) of the ops `fetches` and `targets` need, names kept.
    `keep`: those ops, when the caller has already found them (`needed_ops(fetches, targets, set())`)."""
    keep = needed_ops(list(fetches), list(targets), set()) if keep is None else keep
    lowering = _Lowering()
    tmap, opmap = lowering.copy(_Ops([op for op in graph.get_operations() if op in keep]), {})
    lowering.graph.dtype_rules = graph.dtype_rules
    return lowering.graph, tmap, opmap


def prune_copy(copy, fetches, targets=()):
    """Keep in `copy` (a graph `copy_graph` made) only the ops `fetches` and `targets` need, in the order and with
    the edges a fresh `copy_graph(copy, fetches, targets)` would give them (op ids, consumer and control-output
    lists, devices), in place: the optimizer drops what its passes left unread without copying every node a second
    time (Grappler prunes its item the same way, `ModelPruner`, before the graph goes to the executor). Returns
    False, changing nothing, when the needed ops hold a cycle: `copy_graph` keeps those nodes where the compiler
    reports them."""
    keep = needed_ops(list(fetches), list(targets), set())
    order, unordered = op_order([op for op in copy._ops if op in keep])
    if unordered:
        return False
    copy._ops, copy._counter = order, len(order)
    copy._ops_by_name = {op._name: op for op in order}
    copy._names_in_use = {op._name.lower(): 1 for op in order}
    for op in order:
        op._control_outputs = ()
        for t in op._outputs:
            t._consumers = []
    placed, back_edges = set(), []
    for k, op in enumerate(order, start=1):  # as `_Lowering.copy` creates the copies: inputs, control inputs
        op._id, op._device = k, copy._scoped_device(op._device)
        for t in op._inputs:
            if t._op in placed:
                t._consumers.append(op)
            else:  # a loop's back edge: the copy connects it after every node is made
                back_edges.append((op, t))
        for c in op._control_inputs:
            c._control_outputs = appended(c._control_outputs, op)
        placed.add(op)
    for op, t in back_edges:
        t._consumers.append(op)
    copy._version += 1
    return True


class Look:
    """What a pass's read-only `has_work` reads of a graph before anything is copied: the same `view()`, `outputs`,
    `targets`, `fed` and `memory_limit` as a `Rewrite` of its copy would give, read from the original. The view lists
    the needed ops in the order `copy_graph` would create them (inputs first), so a pass finds on the original
    exactly what it would find on a fresh copy. Grappler's optimizers likewise return early ("Nothing to do")
    before they touch the item's graph."""

    def __init__(self, graph, outputs, targets, fed, memory_limit=None, needed=None):
        self.graph, self.outputs, self.targets, self.fed = graph, list(outputs), list(targets), set(fed)
        self.memory_limit = memory_limit
        self._needed = needed  # needed_ops(outputs, targets, set()), when the optimizer has it already
        self._view = None

    def view(self):
        """The FrameView of the needed ops, in the copy's order (made once: a Look never changes the graph)."""
        if self._view is None:
            needed = self._needed if self._needed is not None else needed_ops(self.outputs, self.targets, set())
            order, unordered = op_order([op for op in self.graph.get_operations() if op in needed])
            self._view = FrameView(order + unordered)
        return self._view


class Rewrite:
    """What the passes of one optimization share: the copy they edit (`graph`), the tensors the run fetches and
    feeds (`outputs`, which `reroute` keeps up to date; `fed`, which no pass may replace), its target ops, and the
    pivot each frame's new constants wait for (`anchors`), and the memory limit of the device the run is on
    (`memory_limit`, bytes; None for a device without one: the host, an unlimited GPU)."""

    def __init__(self, graph, outputs, targets, fed, memory_limit=None):
        self.graph, self.outputs, self.targets, self.fed = graph, list(outputs), list(targets), set(fed)
        self.anchors = {}
        self.memory_limit = memory_limit
        self._view = (None, None)  # (the graph's version and outputs it was made for, the FrameView)

    def view(self):
        """A FrameView of the ops the outputs and targets need now. The passes ask for one before each frame they
        look at; while nothing changed the graph (its `_version` counts every edit) or the outputs, the last one is
        still right, and is reused: a pass that finds nothing costs no new view."""
        state = (self.graph._version, [id(t) for t in self.outputs], [id(op) for op in self.targets])
        if self._view[0] != state:
            needed = needed_ops(self.outputs, self.targets, set())
            self._view = (state, FrameView(op for op in self.graph.get_operations() if op in needed))
        return self._view[1]

    def reroute(self, old, new, keep=()):
        """Every consumer of tensor `old` but those in `keep` reads `new` instead, and so does a fetch of `old`."""
        for consumer in list(old._consumers):
            if consumer in keep:
                continue
            for k, x in enumerate(consumer._inputs):
                if x is old:
                    consumer._update_input(k, new)
        self.outputs = [new if t is old and t not in self.fed else t for t in self.outputs]


class Builder:
    """Makes ops in one frame of a FrameView's graph: `frame` is a frame name ("" for the root)."""

    def __init__(self, rewrite, view, frame):
        self.graph, self.view, self.frame = rewrite.graph, view, frame
        self._anchors = rewrite.anchors  # {frame name: pivot op}, shared by every Builder of one optimization

    def anchor(self):
        """The op a constant of this frame waits for (None in the root frame)."""
        if self.frame == ROOT:
            return None
        if self.frame not in self._anchors:
            loop = self.view.loops[self.frame]
            value = loop.vars[0].body_value
            pivot = next((c for c in value.consumers() if c.type == "Identity" and not c.control_inputs), None)
            if pivot is None:
                pivot = self.op("Identity", [value], name=f"{self.frame}/LoopOptimizer/pivot").op
            self._anchors[self.frame] = pivot
        return self._anchors[self.frame]

    def op(self, op_type, inputs, attrs=None, name=None, device=""):
        """A new op; its first output (or the op, when it has none)."""
        with self.graph.as_default(), self.graph.device(device):
            op = self.graph.create_op(op_type, list(inputs), attrs or {}, name=name)
        return op.outputs[0] if op.outputs else op

    def const(self, value, dtype, name):
        """A Const of `value` in `dtype`, added by a pass; inside a loop frame it takes a control edge from the
        frame's anchor so that it runs in the right frame (as Grappler's constant folding adds its constants)."""
        value = np.asarray(value, dtype=dtype.as_numpy_dtype)
        t = self.op("Const", [], {"value": value, "dtype": dtype}, name=name)
        if self.anchor() is not None:
            t.op._add_control_input(self.anchor())
        return t

    def shape(self, dims, name):
        """A Const int32 shape vector (a folded Shape op's result)."""
        return self.const(np.asarray(dims, np.int32), dtypes.int32, name)


def add_accumulator(rewrite, view, loop, value, name):
    """A new loop variable of `loop` pushing `value` every iteration onto a TensorList, and the tensor after the
    loop that stacks it: `[iterations, *value.shape]` in iteration order (TensorFlow's `TensorListStack` of a
    `while_v2` accumulator). `value` must be live in every iteration that runs and of fully known shape."""
    outside = Builder(rewrite, view, loop.parent)
    element_shape = outside.shape(value.shape.as_list(), f"{name}/element_shape")
    attrs = {"element_dtype": value.dtype, "element_shape_static": value.shape}
    empty = outside.op("EmptyTensorList", [element_shape, outside.const(-1, dtypes.int32, f"{name}/max_num_elements")],
                       attrs, name=f"{name}/accumulator")
    inside = Builder(rewrite, view, loop.name)
    enter = inside.op("Enter", [empty], {"frame_name": loop.name, "is_constant": False,
                                         "parallel_iterations": loop.parallel_iterations}, name=f"{name}/Enter")
    merge = inside.op("Merge", [enter, enter], {"N": 2}, name=f"{name}/Merge")
    switch = inside.op("Switch", [merge, loop.loop_cond.outputs[0]], name=f"{name}/Switch").op
    push = inside.op("TensorListPushBack", [switch.outputs[1], value], attrs, name=f"{name}/TensorListPushBack")
    merge.op._update_input(1, inside.op("NextIteration", [push], name=f"{name}/NextIteration"))
    done = outside.op("Exit", [switch.outputs[0]], name=f"{name}/Exit")
    stacked = outside.op("TensorListStack", [done, element_shape],
                         {**attrs, "num_elements": -1}, name=f"{name}/TensorListStack")
    stacked._shape = TensorShape([None] + value.shape.as_list())
    return stacked
