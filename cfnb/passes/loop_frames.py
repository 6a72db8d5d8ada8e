"""The while loops of a lowered graph, as the optimization passes read them (Grappler's `FrameView`).

After lowering, a loop is nothing but nodes: Enters name its frame (`frame_name`), and each loop variable is an
Enter -> Merge -> Switch -> (body) -> NextIteration -> Merge chain with an Exit on the Switch's false side, all
Switches on one LoopCond. `FrameView` assigns every op to its frame by TensorFlow's rule (an Enter's consumers are
in its child frame, an Exit's in the parent; `grappler/utils/frame.cc`, `InferFromGraph`) and collects, per frame,
a `Loop`: its loop variables, its constant Enters, and the facts the passes ask about:

- `invariant(t)`: is `t` the same in every iteration? A constant Enter is; so is a loop variable the body hands
  back unchanged (a functional `While` carries the tensors its body captures that way, so after lowering they are
  loop variables, not constant Enters); so is a Const, and a pure op (`PURE_OPS`) of invariants.
  `outer(t)` is the tensor of the parent frame it equals.
- `conditional(op)`: may `op` be dead in an iteration that runs (it is downstream of a cond's Switch inside
  the loop)? Such an op does not run every iteration, so it may not be hoisted.
- `counter(loop)`: the loop variable `t` that starts at 0 and steps by 1, and the number of iterations when
  the predicate is `t < N` for a constant `N`.

Identities (the inliner's `Func/.../input` and `output`, `while/Identity`) are read through: `source(t)`.
Next: `graph_edit.py` (how passes change a graph), then the passes themselves (`meta_optimizer.py` lists them).
"""
from collections import deque
from typing import NamedTuple

import numpy as np

from ..framework import dtypes

ROOT = ""
FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
# Ops a pass may compute where the graph did not (outside a loop, or for rows the loop reads): pure, and on
# float tensors of fully known shapes they cannot fail (no integer overflow or division, shapes checked when
# built). Element-wise ones are listed apart: they work row by row.
ELEMENTWISE_UNARY = frozenset({"Tanh", "Sigmoid", "Relu", "Exp", "Neg", "Square", "Abs", "Sin", "Cos"})
ELEMENTWISE_BINARY = frozenset({"AddV2", "Add", "Sub", "Mul", "Maximum", "Minimum"})
PURE_OPS = ELEMENTWISE_UNARY | ELEMENTWISE_BINARY | {"MatMul", "Transpose", "Reshape", "Cast"}
_IDENTITIES = ("Identity",)


class LoopVar(NamedTuple):
    enter: object           # the Enter op
    merge: object           # Merge(Enter, NextIteration)
    switch: object          # Switch(Merge, LoopCond); output 1 is the value in the body
    next_iteration: object  # NextIteration: the value for the next iteration
    exit: object            # Exit(Switch:0), or None

    @property
    def body_value(self):
        """The loop variable's value inside the body: the Switch's true output."""
        return self.switch.outputs[1]

    @property
    def next_value(self):
        """The value the body computes for the next iteration: the NextIteration's input."""
        return self.next_iteration.inputs[0]


class Loop:
    """One while frame: `name`, `parent` (a frame name), `ops` in it, `loop_cond`, `vars`, constant Enters."""

    def __init__(self, name, parent):
        self.name, self.parent = name, parent
        self.ops, self.enters, self.vars = [], [], []
        self.loop_cond = None
        self.body = None  # the ops on the body side (FrameView.in_body)

    @property
    def parallel_iterations(self):
        """How many iterations may run at once (the Enters' `parallel_iterations` attr)."""
        return self.enters[0].get_attr("parallel_iterations")

    def __repr__(self):
        return f"<Loop {self.name!r}: {len(self.vars)} loop variables>"


def source(t):
    """`t` with Identities read through (they forward their input's value)."""
    while t.op.type in _IDENTITIES:
        t = t.op.inputs[0]
    return t


class FrameView:
    """Frames of `ops` (a graph's operations): `frame_of[op]`, `loops[name]`, and the questions above."""

    def __init__(self, ops):
        self.ops = list(ops)
        consumers = self.consumers = {op: [] for op in self.ops}
        for op in self.ops:  # a view is made per pass and per change: read the op's own fields, not its properties
            for src in (*[t._op for t in op._inputs], *op._control_inputs):
                if src in consumers:
                    consumers[src].append(op)
                else:
                    consumers[src] = [op]
        self.frame_of, self.parent_of = self._frames()
        self.loops = {}
        for op in self.ops:
            name = self.frame_of[op]
            if name != ROOT:
                self.loops.setdefault(name, Loop(name, self.parent_of[name])).ops.append(op)
        for loop in self.loops.values():
            self._collect(loop)
        self._invariant = {}
        self._conditional = {}

    def _frames(self):
        frame_of, parent_of = {}, {ROOT: None}
        queue = deque(op for op in self.ops if not op._inputs and not op._control_inputs)
        for op in queue:
            frame_of[op] = ROOT
        while queue:
            op = queue.popleft()
            frame = frame_of[op]
            out = op.get_attr("frame_name") if op._type == "Enter" else \
                (parent_of.get(frame) or ROOT) if op._type == "Exit" else frame
            for c in self.consumers.get(op, ()):
                if c in frame_of:
                    continue
                if c._type == "Enter":
                    frame_of[c] = c.get_attr("frame_name")
                    parent_of.setdefault(frame_of[c], out)
                else:
                    frame_of[c] = out
                queue.append(c)
        for op in self.ops:
            frame_of.setdefault(op, ROOT)
        return frame_of, parent_of

    def _collect(self, loop):
        for op in loop.ops:
            if op.type == "Enter":
                loop.enters.append(op)
            elif op.type == "LoopCond":
                loop.loop_cond = op
        for op in loop.ops:
            if op.type != "Merge" or len(op.inputs) != 2 or op.inputs[1].op.type != "NextIteration":
                continue
            switch = next((c for c in self.consumers[op] if c.type == "Switch" and c.inputs[0].op is op
                           and loop.loop_cond is not None and c.inputs[1].op is loop.loop_cond), None)
            if switch is None or op.inputs[0].op.type != "Enter":
                continue
            exit_op = next((c for c in self.consumers[switch] if c.type == "Exit"), None)
            loop.vars.append(LoopVar(op.inputs[0].op, op, switch, op.inputs[1].op, exit_op))

    # --- questions about one loop --------------------------------------------------------------
    def loop_of(self, op):
        """The Loop whose frame `op` runs in, or None at the root frame."""
        return self.loops.get(self.frame_of.get(op, ROOT))

    def var_of_body_value(self, loop, t):
        """The loop variable whose in-body value `t` is (through Identities), or None."""
        t = source(t)
        return next((v for v in loop.vars if t is v.body_value), None)

    def pass_through(self, var):
        """True when the body hands the variable back unchanged: it is a loop invariant."""
        return source(var.next_value) is var.body_value

    def invariant(self, t, loop):
        """True when tensor `t` (of `loop`'s frame) has the same value in every iteration."""
        key = (t, loop.name)
        if key not in self._invariant:
            self._invariant[key] = False  # a cycle (through a Merge) is not invariant
            self._invariant[key] = self._is_invariant(t, loop)
        return self._invariant[key]

    def _is_invariant(self, t, loop):
        s = source(t)
        op = s.op
        if self.frame_of.get(op) != loop.name:
            return False
        if op.type == "Enter":
            return op.get_attr("is_constant")
        if op.type == "Const":
            return all(plumbing(c) for c in op.control_inputs)
        if op.type == "Switch":
            var = self.var_of_body_value(loop, s)
            return var is not None and self.pass_through(var)
        return pure(op) and not self.conditional(op) and all(self.invariant(x, loop) for x in op.inputs)

    def outer(self, t, loop):
        """The parent-frame tensor an invariant `t` equals (None for a Const or a computed invariant)."""
        s = source(t)
        if s.op.type == "Enter":
            return s.op.inputs[0]
        if s.op.type == "Switch":
            return self.var_of_body_value(loop, s).enter.inputs[0]
        return None

    def conditional(self, op):
        """True when `op` may be dead in an iteration that runs: it is downstream (by data or control edges, in its
        frame, before any Merge) of a Switch that is not one of its loop's own."""
        if op not in self._conditional:
            self._mark_conditional(self.frame_of.get(op, ROOT))
        return self._conditional.get(op, False)

    def _mark_conditional(self, frame):
        loop = self.loops.get(frame)
        own = {v.switch for v in loop.vars} if loop is not None else set()
        ops = [op for op in self.ops if self.frame_of[op] == frame]
        seen = set()
        work = [op for op in ops if op.type in ("Switch", "_SwitchN") and op not in own]
        while work:
            for c in self.consumers.get(work.pop(), ()):
                if c not in seen and self.frame_of.get(c) == frame and c.type != "Merge":
                    seen.add(c)
                    work.append(c)
        for op in ops:
            self._conditional[op] = op in seen

    def in_body(self, loop, op):
        """True when `op` is on the body side of the loop (downstream of a loop Switch's true output); the rest of
        the frame computes the predicate, once more than the body runs."""
        if loop.body is None:
            loop.body, work = set(), [v.switch for v in loop.vars]
            while work:
                for c in self.consumers.get(work.pop(), ()):
                    if c not in loop.body and self.frame_of.get(c) == loop.name and c.type != "Merge":
                        loop.body.add(c)
                        work.append(c)
        return op in loop.body or op.type == "NextIteration"

    def merge_or_pivot(self, loop, op, pivot):
        """The control input a node of `loop` that reads only invariants needs: the body's `pivot` (an Identity of
        a loop Switch's true output) on the body side, the first loop Merge on the predicate's side (TensorFlow's
        `WhileContext.GetControlPivot`: `_pivot_for_body`, `_pivot_for_pred`)."""
        return pivot if self.in_body(loop, op) else loop.vars[0].merge

    def counter(self, loop):
        """(the loop variable counting 0, 1, 2, ..., the trip count) when the predicate is `t < N` with N a
        constant: then the body runs exactly N times (0 when N <= 0), with t = 0 .. N-1. Else (None, None)."""
        if loop.loop_cond is None:
            return None, None
        pred = source(loop.loop_cond.inputs[0]).op
        if pred.type != "Less":
            return None, None
        t, limit = (source(x) for x in pred.inputs)
        var = next((v for v in loop.vars if t is v.merge.outputs[0]), None)
        n = const_value(limit, self, loop)
        if var is None or n is None or const_value(var.enter.inputs[0]) != 0:
            return None, None
        step = source(var.next_value).op
        if step.type not in ("AddV2", "Add") or len(step.inputs) != 2:
            return None, None
        a, b = (source(x) for x in step.inputs)
        one = b if a is var.body_value else a if b is var.body_value else None
        if one is None or const_value(one) != 1:
            return None, None
        return var, max(int(n), 0)


def plumbing(op):
    """True for a node that only says *when* in a frame (a loop's or a cond's pivot, an Identity of a Switch
    output; a Merge; the inliner's `input_control_node` NoOp of such nodes): a control edge from it orders
    nothing a hoisted node needs. A control edge from anything else (a stateful op, a `tf.group` of them) does."""
    if op.type == "Merge":
        return True
    if op.type == "Identity":
        return op.inputs[0].op.type in ("Switch", "Merge") and all(plumbing(c) for c in op.control_inputs)
    return op.type == "NoOp" and all(plumbing(c) for c in op.control_inputs)


def pure(op):
    """A PURE_OPS op on float tensors of fully known shapes (int32 shapes and permutations besides), with no
    control input but the frame's plumbing."""
    if op.type not in PURE_OPS or not all(plumbing(c) for c in op.control_inputs):
        return False
    floats = [x for x in list(op.inputs) + list(op.outputs) if x.dtype in FLOATS]
    return bool(op.inputs) and op.inputs[0].dtype in FLOATS and all(x.shape.is_fully_defined() for x in floats) \
        and all(x.dtype in FLOATS for x in op.outputs) \
        and all(x.dtype in FLOATS or op.type in ("Reshape", "Transpose") for x in op.inputs)


def const_value(t, view=None, loop=None):
    """The value of a Const (through Identities, and through constant Enters when `view` is given), or None."""
    t = source(t)
    while view is not None and t.op.type == "Enter" and t.op.get_attr("is_constant"):
        t = source(t.op.inputs[0])
    if t.op.type != "Const":
        return None
    value = np.asarray(t.op.get_attr("value"))
    return value.item() if value.ndim == 0 else value
