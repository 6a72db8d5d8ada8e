"""Pass 3, loop fission: per-iteration work that depends only on the counter is done for all rows at once.

An RNN's body computes `x_t @ W_x` with `x_t = xs.read(t)`: one small product per iteration, although nothing in
it depends on the previous iteration. cuDNN's RNN computes the input projection of every step as one matrix
product before the recurrence; a compiler calls this loop fission (splitting off the independent part of a loop
into a loop of its own, here a single array operation). The pass finds, in a loop whose counter `t` runs
0, 1, ..., N-1, a *row* `gather(X, t)` of a tensor X that is the same in every iteration, and the row-wise work
done on it, `f(gather(X, t), invariants)`; it computes `F = f(X, invariants)` once before the loop and replaces the
work in the loop by `gather(F, t)` (a GatherV2 of F's constant Enter).

A row is one of: `GatherV2(X, t, axis=0)` of an invariant X; `TensorListGetItem(list, t)` of an invariant list made
by `TensorListFromTensor(X)` (a functional loop's TensorArray); `TensorArrayReadV3(ta, t, flow)` of a TensorArray
whose flow is that of `TensorArrayScatterV3(ta, range(R), X)` (`unstack`) and that the loop does not write.

What is checked, precisely, before F is computed for every row of X:
- the trip count is exactly R, the number of rows of X (`FrameView.counter`: `t` enters as 0, steps by 1, the
  predicate is `t < N` with N a constant equal to X's static first dimension): every row of F is used, none is
  computed in vain, a gather of F is never out of range, and a loop that runs zero times has R = 0 rows to do;
- `f` is row-wise: a chain of MatMul with an invariant right operand (the row as left operand, not transposed)
  and element-wise ops (`loop_frames.ELEMENTWISE_*`) whose other operands are invariant and broadcast no wider
  than a row, or are rows of the same counter; rows are then independent, and row t of F is f of row t of X;
- every op is pure, on floats, of fully known shapes (`loop_frames.pure`), and runs in every iteration (not in a
  cond branch): computing rows cannot fail, and computes nothing the loop would have skipped;
- the graph asks for no swapping (`swap_memory`): F holds R rows in device memory, which swapping exists to avoid;
- the run's device has no memory limit (`per_step_only`): F lives from before the loop until it ends, when the
  history stacks are full, so its R rows add to the device's peak one for one.
At least one op besides the row itself must move, or nothing is gained.
"""
import numpy as np

from .graph_edit import Builder
from .loop_frames import ELEMENTWISE_BINARY, ELEMENTWISE_UNARY, const_value, pure, source

NAME = "loop_fission"


def rows_of(view, loop, op, counter):
    """X (a parent-frame tensor) when `op` reads row `t` of it, else None."""
    if op.type not in ("GatherV2", "TensorListGetItem", "TensorArrayReadV3") or view.conditional(op) \
            or source(op.inputs[1]) is not counter.body_value:
        return None
    source_op = op.inputs[0]
    if not view.invariant(source_op, loop) or view.outer(source_op, loop) is None:
        return None
    outer = source(view.outer(source_op, loop))
    if op.type == "GatherV2":
        return outer if const_value(op.inputs[2]) == 0 else None
    if op.type == "TensorListGetItem":
        return outer.op.inputs[0] if outer.op.type == "TensorListFromTensor" else None
    flow = op.inputs[2]
    if not view.invariant(flow, loop) or view.outer(flow, loop) is None:
        return None
    scatter = source(view.outer(flow, loop)).op
    if scatter.type != "TensorArrayScatterV3" or source(scatter.inputs[0]) is not outer:
        return None
    indices = scatter.inputs[1].op
    if indices.type != "Range" or [const_value(x) for x in indices.inputs] != [0, scatter.inputs[2].shape[0], 1]:
        return None
    return scatter.inputs[2]


def row_wise(view, loop, op, rows):
    """True when `op` computes its row from rows (`rows`: {tensor: X}) and invariants, row by row."""
    if not pure(op) or view.conditional(op):
        return False
    kinds = [("row" if source(x) in rows else "inv" if _known_invariant(view, loop, x) else None) for x in op.inputs]
    if None in kinds or "row" not in kinds:
        return False
    if op.type == "MatMul":
        return kinds == ["row", "inv"] and not op.get_attr("transpose_a")
    if op.type in ELEMENTWISE_UNARY:
        return True
    if op.type in ELEMENTWISE_BINARY:
        out = op.outputs[0].shape
        return all(k == "row" and x.shape == out or k == "inv" and x.shape.ndims <= out.ndims
                   for k, x in zip(kinds, op.inputs))
    return False


def _known_invariant(view, loop, x):
    """An invariant the pass can name outside the loop: an Enter's input, or a constant."""
    return view.invariant(x, loop) and (view.outer(x, loop) is not None or const_value(x) is not None)


def find(view, loop):
    """(counter, trip count, {row tensor: X}, [row-wise ops in graph order]) for `loop`, or None."""
    counter, trips = view.counter(loop)
    if counter is None:
        return None
    rows = {}
    for op in loop.ops:
        x = rows_of(view, loop, op, counter)
        if x is not None and x.shape.ndims and x.shape[0] == trips and op.outputs[0].shape.is_fully_defined():
            rows[op.outputs[0]] = x
    work = []
    for op in view.ops:  # graph order: a row-wise op's row inputs come first
        if view.frame_of.get(op) == loop.name and row_wise(view, loop, op, rows):
            rows[op.outputs[0]] = None
            work.append(op)
    return (counter, trips, rows, work) if work else None


def hoist(rewrite, view, loop, found):
    """Compute every row-wise op for all rows before the loop; read its row inside. Returns the names moved."""
    counter, trips, rows, work = found
    outside = Builder(rewrite, view, loop.parent)
    inside = Builder(rewrite, view, loop.name)
    full = {t: x for t, x in rows.items() if x is not None}  # row tensor -> the tensor of all its rows
    for op in work:
        name = f"{op.name}/hoisted"
        args = [full[source(x)] if source(x) in full else _outer_invariant(view, loop, x, outside, name)
                for x in op.inputs]
        full[op.outputs[0]] = _all_rows(outside, op, args, trips, name)
    for op in work:
        out = op.outputs[0]
        if all(c in work for c in out.consumers()):
            continue
        enter = inside.op("Enter", [full[out]], {"frame_name": loop.name, "is_constant": True,
                                                 "parallel_iterations": loop.parallel_iterations},
                          name=f"{op.name}/hoisted/Enter", device=op.device)
        axis = inside.const(0, counter.body_value.dtype, f"{op.name}/hoisted/axis")
        row = inside.op("GatherV2", [enter, counter.body_value, axis], {"_row_view": True},
                        name=f"{op.name}/hoisted/row", device=op.device)  # F is ours: its row, uncopied
        row._shape = out.shape
        rewrite.reroute(out, row, keep=set(work))
    return [op.name for op in work]


def _outer_invariant(view, loop, x, outside, name):
    outer = view.outer(x, loop)
    if outer is not None:
        return outer
    return outside.const(const_value(x), x.dtype, f"{name}/{source(x).op.name.rsplit('/', 1)[-1]}")


def _all_rows(outside, op, args, trips, name):
    """`op` applied to all rows: element-wise ops broadcast over the leading axis; a MatMul of rows of shape
    [B, I] runs as one [trips * B, I] x [I, H] product, reshaped back to [trips, B, H]."""
    attrs = dict(op.attr)
    attrs.pop("_class", None)
    if op.type != "MatMul":
        return outside.op(op.type, args, attrs, name=name, device=op.device)
    rows, w = args
    inner = op.inputs[0].shape.as_list()[-1]
    flat = outside.op("Reshape", [rows, outside.shape([-1, inner], f"{name}/flat_shape")], name=f"{name}/flat")
    product = outside.op("MatMul", [flat, w], attrs, name=name, device=op.device)
    shape = [trips] + op.outputs[0].shape.as_list()
    return outside.op("Reshape", [product, outside.shape(np.asarray(shape), f"{name}/shape")], name=f"{name}/rows")


def swaps(view):
    """True when some accumulator of the graph swaps to host memory (`swap_memory=True`)."""
    return any(op.type in ("StackPushV2", "TensorListPushBack") and
               (op.attr.get("swap_memory") or op.attr.get("_swap_memory")) for op in view.ops)


def per_step_only(rewrite):
    """True when the graph must keep its per-step form: it swaps, or its device has a memory limit. Fission and
    batching trade memory for speed (all rows of F, every step's operands held at once, at the time the history
    stacks are full), as cuDNN's RNN keeps a workspace; under a budget a compiler declines such a rewrite (XLA
    weighs its fusions and rematerialization against the device's memory limit) rather than raise the peak."""
    return rewrite.memory_limit is not None or swaps(rewrite.view())


def has_work(look):
    """True when `run` would hoist the row-wise work of some loop (read-only, on the original graph)."""
    if per_step_only(look):
        return False
    view = look.view()
    return any(find(view, loop) is not None for loop in view.loops.values())


def run(rewrite):
    """Rewrite the copy in place; returns [(frame, [names of the ops now computed before the loop])]."""
    if per_step_only(rewrite):
        return []
    done = []
    for name in sorted(rewrite.view().loops):
        view = rewrite.view()
        loop = view.loops.get(name)
        found = find(view, loop) if loop is not None else None
        if found is not None:
            done.append((name, hoist(rewrite, view, loop, found)))
    return done
