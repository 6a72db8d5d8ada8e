"""Pass 4, batching gradient accumulations: a sum of per-iteration products becomes one product after the loop.

The gradient of a weight used in every iteration (`x_t @ W`) is accumulated in the gradient loop:
`dW += x_t^T dz_t`, one small product and one add of a whole weight-sized matrix per iteration (the
constant-Enter accumulator of a v1 gradient, `gradients/while/MatMul/Enter_grad/b_acc`; a loop variable of the
functional gradient's `While`). The sum of products is one product of the stacked operands:
`sum_t x_t^T dz_t = X^T DZ`, with X the x_t stacked along their rows (`[T * B, I]`) and DZ likewise. cuDNN's RNN
computes its weight gradients so, as one GEMM after the recurrence; TensorFlow's Grappler does not, for a
`while_loop`. The pass collects both operands in the loop (each with a TensorList accumulator, one reference
pushed per iteration: cheap to stack; `graph_edit.add_accumulator`), stacks them after it, and replaces the
accumulator's Exit by `init + MatMul(Reshape(A, [-1, I]), Reshape(B, [-1, H]), transpose_a=True)`.

What is checked: the loop variable is `acc -> acc + MatMul(a, b, transpose_a=True)` (AddV2, Add or a
two-input AddN), its value read by nothing else in the loop and the product by nothing else; the add and both
operands run in every iteration (not in a cond branch) and vary with it; the operands are rank 2 floats of
fully known shapes with the same number of rows. A loop that runs zero times stacks zero rows, and the product
is zero: the result is `init`, as before. The values equal the loop's within float rounding (the sum is
associated differently). The graph must not ask for swapping, and its device must have no memory limit
(`loop_fission.per_step_only`): every step's operands stay in device memory until the product, with their
stacked copies, where the graph as built frees each popped value in the gradient loop.

An operand that is a row of a tensor X the forward loop read is not collected again (`pushed_rows`): when a v1
history stack is filled with `row t of X` at t = 0, 1, ..., R-1 by a top-level loop of R iterations and popped,
once per iteration, by a top-level gradient loop that starts after it, the pops are X's rows last to first, and
the stacked operand is X with its rows reversed: one gather of X after the loop instead of a push, a pop, a
collecting push and a stacked copy per row. The stack is then popped by nothing, and stack push removal empties it.
"""
import numpy as np

from ..framework import dtypes
from .graph_edit import Builder, add_accumulator
from .loop_fission import per_step_only, rows_of
from .loop_frames import ROOT, pure, source

NAME = "accumulation_batching"
_ADDS = ("AddV2", "Add", "AddN")


def _readers(view, t):
    """The ops of `view` reading `t`, Identities read through (each Identity's own readers instead)."""
    out = []
    for c in t.consumers():
        if c in view.frame_of:
            out.extend(_readers(view, c.outputs[0]) if c.type == "Identity" else [c])
    return out


def batchable(view, loop, var):
    """(a, b) when loop variable `var` accumulates MatMul(a, b, transpose_a=True) every iteration, else None."""
    add = source(var.next_value).op
    if var.exit is None or add.type not in _ADDS or len(add.inputs) != 2 or view.conditional(add):
        return None
    if _readers(view, var.merge.outputs[0]) != [var.switch] or _readers(view, var.body_value) != [add]:
        return None
    others = [source(x) for x in add.inputs if source(x) is not var.body_value]
    if len(others) != 1 or _readers(view, others[0]) != [add]:
        return None
    product = others[0].op
    if product.type != "MatMul" or not pure(product) or view.conditional(product) \
            or not product.get_attr("transpose_a") or product.get_attr("transpose_b"):
        return None
    a, b = product.inputs
    if any(view.invariant(x, loop) or view.frame_of.get(source(x).op) != loop.name for x in (a, b)):
        return None
    if a.shape.ndims != 2 or b.shape.ndims != 2 or a.shape[0] != b.shape[0]:
        return None
    return a, b


def pushed_rows(view, loop, x):
    """(X, R) when operand `x` of gradient loop `loop` pops a v1 history stack that a top-level loop of R iterations
    filled with row t of X at t = 0 .. R-1 (loop_fission.rows_of), every iteration, before `loop` started; else
    None. The pops then return X's rows last to first."""
    pop = source(x).op
    if pop.type != "StackPopV2" or loop.parent != ROOT or view.conditional(pop) \
            or not view.invariant(pop.inputs[0], loop):
        return None
    stack = source(view.outer(pop.inputs[0], loop)).op
    enters = [c for c in view.consumers.get(stack, ()) if c in view.frame_of]
    if stack.type != "StackV2" or any(e.type != "Enter" for e in enters):
        return None
    users = [c for e in enters for c in view.consumers.get(e, ()) if c in view.frame_of]
    pushes = [c for c in users if c.type == "StackPushV2"]
    if len(pushes) != 1 or [c for c in users if c.type != "StackPushV2"] != [pop]:
        return None
    push = pushes[0]
    forward = view.loop_of(push)
    if forward is None or forward.parent != ROOT or view.conditional(push) or not _after(view, loop, forward):
        return None
    counter, trips = view.counter(forward)
    row = source(push.inputs[1]).op
    rows = rows_of(view, forward, row, counter) if counter is not None else None
    if rows is None or not rows.shape.ndims or rows.shape[0] != trips or row.outputs[0].shape != x.shape:
        return None
    return rows, trips


def _after(view, loop, forward):
    """True when an Enter of `loop` reads (through root-frame ops) an Exit of `forward`: it starts after it ends."""
    exits = {v.exit for v in forward.vars if v.exit is not None}
    seen, work = set(), [v.enter for v in loop.vars]
    while work:
        op = work.pop()
        for x in list(op.inputs) + list(op.control_inputs):
            parent = x.op if hasattr(x, "op") else x
            if parent in exits:
                return True
            if parent not in seen and view.frame_of.get(parent) == ROOT:
                seen.add(parent)
                work.append(parent)
    return False


def _reversed_rows(outside, rows, trips, name):
    """X with its rows last to first (a GatherV2 of indices R-1 .. 0): the order a gradient loop pops them."""
    order = outside.const(np.arange(trips - 1, -1, -1), dtypes.int32, f"{name}/reversed")
    return outside.op("GatherV2", [rows, order, outside.const(0, dtypes.int32, f"{name}/axis")], name=f"{name}/rows")


def batch(rewrite, view, loop, var, operands, stacked):
    """Replace `var`'s Exit by init + (stacked a)^T (stacked b), computed after the loop."""
    outside = Builder(rewrite, view, loop.parent)
    name = f"{var.exit.name}/batched"
    flat = []
    for x in operands:
        pushed = pushed_rows(view, loop, x) if x not in stacked else None
        if pushed is not None:
            stacked[x] = _reversed_rows(outside, *pushed, f"{source(x).op.name}/stacked")
        if x not in stacked:
            stacked[x] = add_accumulator(rewrite, view, loop, x, f"{source(x).op.name}/stacked")
        width = x.shape.as_list()[1]
        flat.append(outside.op("Reshape", [stacked[x], outside.shape([-1, width], f"{name}/shape")],
                               name=f"{name}/flat"))
    product = outside.op("MatMul", flat, {"transpose_a": True, "transpose_b": False}, name=f"{name}/MatMul",
                         device=var.exit.device)
    total = outside.op("AddV2", [var.enter.inputs[0], product], name=f"{name}/add", device=var.exit.device)
    rewrite.reroute(var.exit.outputs[0], total)


def has_work(look):
    """True when `run` would batch an accumulation of some loop (read-only, on the original graph)."""
    if per_step_only(look):
        return False
    view = look.view()
    return any(_batchable_vars(look, view, loop) for loop in view.loops.values() if loop.loop_cond is not None)


def _batchable_vars(rewrite, view, loop):
    """[(loop variable, its operands)] of `loop` that accumulate a batchable product, their Exits not fed."""
    found = [(var, batchable(view, loop, var)) for var in loop.vars
             if var.exit is not None and var.exit.outputs[0] not in rewrite.fed]
    return [(var, operands) for var, operands in found if operands is not None]


def run(rewrite):
    """Rewrite the copy in place; returns [(frame, [names of the Exits now computed after the loop])]."""
    if per_step_only(rewrite):
        return []
    done = []
    for name in sorted(rewrite.view().loops):
        view = rewrite.view()
        loop = view.loops[name]
        if loop.loop_cond is None:
            continue
        found = _batchable_vars(rewrite, view, loop)
        stacked = {}
        for var, operands in found:
            batch(rewrite, view, loop, var, operands, stacked)
        if found:
            done.append((name, [var.exit.name for var, _ in found]))
    return done
