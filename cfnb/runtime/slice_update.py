"""Item assignment in place: `a[k] = v` runs as one node that writes into `a`'s buffer when nothing else holds it.

`numpy_functions.setitem` builds `a[k] = v` from ops whose gradients are known, `where(mask, placed, a)`: `mask` and
`placed` scatter ones and `v` into zeros of `a`'s shape (StridedSliceGrad of the slice `a[k]`, broadcast). Run as
built, every assignment makes three arrays of `a`'s size, so a loop that fills a preallocated array one item per
step (`ys[n + 1] = y`, a sieve's `is_prime[j] = False`) is quadratic. TensorFlow runs such an update as one kernel
(`TensorStridedSliceUpdate`, `TensorScatterUpdate`) that asks `forward_input_or_allocate_output` for its output:
when the executor hands it the last reference to `a`, it writes the slice into `a`'s own buffer.

So, before a graph runs, `find` recognises that subgraph (as Grappler's remapper turns a pattern of ops into one
fused node) and compile_graph runs its SelectV2 as `slice_update`, reading `a`, the index and `v` directly. The
slice, the mask, the scattered value and the broadcast then do not run at all, unless something else reads them
(a gradient pushes the mask on a history stack). The graph itself is not changed, nor its gradients; and the
values are the graph's bit for bit: the slice becomes `0 + v`, as StridedSliceGrad's zeros plus `v` make it (a
-0.0 becomes 0.0 there too), and an index out of bounds is StridedSlice's error.

May the update write into `a`? Only if `a` owns its memory (not a view), is writeable, and is held by nothing but
the reference its caller hands over: its reference count is that of a lone input, measured once for each caller
(`LONE_IN_SLOT`: the executor, whose input slots are cleared once a node has fired, TensorFlow's `ClearInputs`;
`LONE_IN_LOCAL`: the static schedule, for a local variable no later line reads, buffer_forwarding.py). A constant,
a fed value, a value a history stack or a TensorArray holds, a view of `a` still alive, a consumer still waiting
for `a`: each holds a reference, and the update copies `a` first.
"""
import sys
from typing import NamedTuple

import numpy as np

from ..ops import slicing_ops

_getrefcount = sys.getrefcount


class SliceUpdate(NamedTuple):
    """One `a[k] = v` found in a graph: the SelectV2 that computes it reads these instead of its own inputs."""

    target: object     # the Tensor `a`
    dynamic: list      # the index's tensors (StridedSlice's `tensor_slots`)
    value: object      # `v`, broadcast to the slice's shape by the assignment, or already
    spec: list         # StridedSlice's static index
    slots: list

    @property
    def inputs(self):
        """The node's inputs in order: the target, the dynamic slice bounds, the value."""
        return [self.target, *self.dynamic, self.value]


def find(ops):
    """{SelectV2 op: SliceUpdate} for each item assignment among `ops` (see the module docstring)."""
    found = {}
    for op in ops:
        if op.type == "SelectV2":
            update = _match(op)
            if update is not None:
                found[op] = update
    return found


def _match(select):
    """The SliceUpdate of `where(StridedSliceGrad(shape(a), k, ones), StridedSliceGrad(shape(a), k, v), a)`, or
    None. Every op it would skip must take no control input (its deadness would be lost), and the mask's ones and
    the value's broadcast must have the slice's shape, which they do when they are built from `a[k]` itself."""
    mask, placed, target = select._inputs[0].op, select._inputs[1].op, select._inputs[2]
    if mask.type != "StridedSliceGrad" or placed.type != "StridedSliceGrad" or target.shape.ndims in (None, 0):
        return None
    spec, slots = placed.get_attr("spec"), placed.get_attr("tensor_slots")
    dynamic = list(placed._inputs[1:-1])
    if (mask.get_attr("spec"), mask.get_attr("tensor_slots"), list(mask._inputs[1:-1])) != (spec, slots, dynamic):
        return None
    if not all(_is_shape_of(g._inputs[0], target) for g in (mask, placed)):
        return None
    ones, value = mask._inputs[-1], placed._inputs[-1]
    part = _ones_of(ones)
    if part is None or not _is_slice(part, target, spec, slots, dynamic) or ones.dtype.name != "bool":
        return None
    if not value.dtype == target.dtype == placed._outputs[0].dtype:
        return None
    skipped = [mask, placed, mask._inputs[0].op, placed._inputs[0].op, ones.op, part.op]
    source = _broadcast_source(value, part)
    if source is not None:
        skipped.append(value.op)
        value = source
    if any(op._control_inputs for op in skipped):
        return None
    return SliceUpdate(target, dynamic, value, spec, slots)


def _is_shape_of(t, target):
    return t.op.type == "Shape" and t.op._inputs[0] is target and not t.op._control_inputs


def _ones_of(t):
    """The tensor `x` of `ones_like(x)` (possibly cast to bool), or None."""
    if t.op.type == "Cast":
        t = t.op._inputs[0]
    return t.op._inputs[0] if t.op.type == "OnesLike" else None


def _is_slice(part, target, spec, slots, dynamic):
    """Whether `part` is `target[k]` for this index."""
    op = part.op
    return op.type == "StridedSlice" and op._inputs[0] is target and list(op._inputs[1:]) == dynamic and \
        op.get_attr("spec") == spec and op.get_attr("tensor_slots") == slots


def _broadcast_source(value, part):
    """`v` when `value` is `broadcast_to(v, shape(part))` and both shapes are known (so the assignment's own
    broadcast is the same), else None."""
    op = value.op
    if op.type != "BroadcastTo" or op._control_inputs or op._inputs[1].op.type != "Shape":
        return None
    source, shape_of = op._inputs[0], op._inputs[1].op
    if shape_of._inputs[0] is not part or shape_of._control_inputs:
        return None
    if not (source.shape.is_fully_defined() and part.shape.is_fully_defined()):
        return None
    if source.shape.ndims > part.shape.ndims:
        return None
    try:
        np.broadcast_shapes(tuple(source.shape.as_list()), tuple(part.shape.as_list()))
    except ValueError:
        return None
    return source


def inputs_of(op, updates):
    """What `op` reads when it runs: a found item assignment's SliceUpdate inputs, else its own."""
    update = updates.get(op)
    return op._inputs if update is None else update.inputs


def slice_update_kernel(update, lone=None):
    """The kernel of a found item assignment: `target` with `target[k] = 0 + value`, written into `target` itself
    when it is reusable and its reference count is at most `lone` (None: never), else into a copy.
    `kernel.in_place(lone)` is the same kernel for another caller's lone count."""
    if _is_item_of_vector(update):
        kernel = _item_update_kernel(update, lone)
        kernel.in_place = lambda lone: slice_update_kernel(update, lone)
        return kernel
    key_of = slicing_ops.key_function(update.spec, update.slots)
    dtype = np.dtype(update.target.dtype.as_numpy_dtype)
    # 0 + v is v but for a float's -0.0 (and it costs a ufunc call on a bool)
    zero = dtype.type(0) if dtype.kind in "fc" else None

    def slice_update(target, *rest):
        count = _getrefcount(target)  # the statement the lone counts are measured with: keep them alike
        key = key_of(rest[:-1], target.shape)
        out = target if lone is not None and count <= lone and _reusable(target) else target.copy()
        out[key] = rest[-1] if zero is None else rest[-1] + zero
        return out

    slice_update.in_place = lambda lone: slice_update_kernel(update, lone)
    return slice_update


def _is_item_of_vector(update):
    """Whether the update is `a[i] = v` for a vector `a`, a scalar `v` and one index from a tensor: what a loop filling
    a preallocated array does every step, worth a kernel of its own."""
    return len(update.spec) == 1 and [tuple(s) for s in update.slots] == [(0, "index")] and \
        update.target.shape.ndims == 1 and update.value.shape.ndims == 0 and not update.target.dtype.is_complex


def _item_update_kernel(update, lone):
    """`slice_update` for `a[i] = v` (`_is_item_of_vector`), about three times as fast, since a loop filling an array
    runs it every step: numpy checks the index itself (an IndexError is then StridedSlice's error, from the general
    key) and whether `a` may be written (a read-only `a` refuses the write before changing anything, and is then
    copied); `0 + v` is only `v` with -0.0 made 0.0, which a float's `not v` finds without a ufunc call; and the
    kernel takes its three inputs as three parameters, not a packed `*args` (428 -> 347 ns a step in a loop; the
    caller's reference count is the same, `_lone_count`)."""
    key_of = slicing_ops.key_function(update.spec, update.slots)
    dtype = np.dtype(update.target.dtype.as_numpy_dtype)
    zero = dtype.type(0) if dtype.kind == "f" else None
    lone = -1 if lone is None else lone  # never in place without a granted lone count

    def item_update(target, i, value):
        count = _getrefcount(target)  # as in slice_update: the lone counts are measured with this statement
        if zero is not None and not value:
            value = zero
        out = target if count <= lone and _owns_its_memory(target) else target.copy()
        try:
            out[i] = value
        except IndexError:
            key_of((i,), target.shape)  # StridedSlice's error for an index out of bounds
            raise
        except ValueError:
            if out is not target or target.flags.writeable:
                raise
            out = target.copy()  # a read-only array
            out[i] = value
        return out

    return item_update


def _owns_its_memory(target):
    """`_reusable` but for the writeable flag, which the write itself checks (a third of the kernel's time)."""
    return type(target) is np.ndarray and target.base is None


def _reusable(target):
    """Whether `target` may be written into: a plain array that owns its memory (not a view) and may be written."""
    return type(target) is np.ndarray and target.base is None and target.flags.writeable


def _lone_count(call):
    """The reference count `slice_update` sees for a target that only its caller's slot or variable holds, measured
    through the caller's own call shape (it differs between Python versions), for both shapes of kernel (packed
    `*rest` and `item_update`'s three parameters), which must see the same count."""
    seen = []

    def probe(target, *rest):
        count = _getrefcount(target)  # as in slice_update
        seen.append(count)

    def probe_of_three(target, i, value):
        count = _getrefcount(target)  # as in item_update
        seen.append(count)

    call(probe)
    call(probe_of_three)
    assert seen[0] == seen[1], f"a kernel's parameters change its input's reference count: {seen}"
    return seen[0]


def _call_from_a_slot(kernel):
    """The call ExecutorState.process makes: `item.kernel(*inputs[start:start + item.num_inputs])`."""
    inputs, start = [np.zeros(2), 1, 2], 0
    kernel(*inputs[start:start + 3])


def _call_from_a_local(kernel):
    """The call the static schedule's code makes: `v2 = k2(v1, v0, c3)` with v1 a local variable."""
    namespace = {"np": np}
    exec("def frame(k):\n    v1 = np.zeros(2)\n    v2 = k(v1, 1, 2)\n    return v2\n", namespace)  # noqa: S102
    namespace["frame"](kernel)


LONE_IN_SLOT = _lone_count(_call_from_a_slot)
LONE_IN_LOCAL = _lone_count(_call_from_a_local)
