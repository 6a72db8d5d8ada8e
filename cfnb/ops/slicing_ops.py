"""Indexing a tensor: `gather`, `t[...]`, `tf.slice` and `tf.strided_slice`.

`t[...]` builds one StridedSlice op from the Python key (`_getitem`, installed as `Tensor.__getitem__`;
TensorFlow's `tensor_getitem_override.py::_slice_helper`): integers, slices, `...`, `newaxis` and scalar tensors, a
non-constant tensor becoming a run-time slot. `gather` is TensorFlow's GatherV2.
`strided_slice` with its masks (begin, end, ellipsis, new_axis, shrink_axis) is translated into the
same index spec, so it shares that op's shape inference and gradient.
`slice` is TensorFlow's `Slice` op: `begin` and `size` tensors, a size of -1 meaning "to the end";
its static shape is the constant sizes, even where the input's dimension is unknown.
"""
import builtins

import numpy as np

from ..framework import dtypes, op_kernel_context
from ..framework.op_def_library import apply_op
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from ..framework.registry import RegisterGradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops
from .array_ops import _as_value, _const_value


# --- gather and `t[...]` (GatherV2, StridedSlice) ---------------------------------------------------
def _gather_infer(op):
    params, indices = op._inputs[0], op._inputs[1]
    axis = _const_value(op._inputs[2])
    if params.shape.ndims is None or indices.shape.ndims is None or axis is None:
        return [(params.dtype, TensorShape(None))]
    p = params.shape.as_list()
    a = int(axis) % len(p)
    return [(params.dtype, TensorShape(p[:a] + indices.shape.as_list() + p[a + 1:]))]


def _gather_kernel(op):
    view = bool(op.attr.get("_row_view"))

    def gather(params, indices, axis):
        if type(params) is np.ndarray and params.ndim > 1 and np.ndim(indices) == 0 and int(axis) == 0:
            return _row(params, int(indices), view)
        xp = op_kernel_context.device_module()
        params = xp.asarray(params)
        idx = xp.asarray(indices)
        a = int(axis)
        n = params.shape[a]
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            bad = idx[(idx < 0) | (idx >= n)].reshape(-1)[0]
            raise IndexError(f"indices = {bad} is not in [0, {n})")
        return _as_value(np.take(params, idx, axis=a))
    return gather


def _row(params, index, view=False):
    """`gather(params, t)` for one index along axis 0 (a loop reading its row t), without the general path's index
    arrays and reductions: a copy of that row, which the ops after it may write into, or with `view` (the `_row_view`
    attr loop fission sets on its row of F, a tensor the graph alone holds) the row itself, copied by nothing: an op
    that writes into an input never writes into a view (runtime/fastpath/buffer_forwarding.py), so the add after it
    writes into its other input."""
    if 0 <= index < params.shape[0]:
        return params[index] if view else params[index].copy()
    raise IndexError(f"indices = {index} is not in [0, {params.shape[0]})")


register_op("GatherV2", _gather_infer, _gather_kernel)


def gather(params, indices, axis=0, name=None):
    """`tf.gather`: a GatherV2 op; indices must be int32 or int64, with TensorFlow's message. Its gradient is an
    IndexedSlices (indexed_slices_util.py)."""
    with get_default_graph().name_scope(name or "GatherV2") as scope:
        indices = convert_to_tensor(indices, name="indices")
        if indices.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"Value passed to parameter 'indices' has DataType {indices.dtype.name} not in list of "
                            f"allowed values: int32, int64")
        return apply_op("GatherV2", [("params", params), ("indices", indices), ("axis", axis)], name=scope,
                        dtypes={"axis": dtypes.int32}).outputs[0]


def _strided_slice_infer(op):
    x = op._inputs[0]
    spec = op.get_attr("spec")
    # Positions whose start/stop/step is a tensor: the slice's length is unknown until run time.
    dynamic = {pos for pos, field in op.get_attr("tensor_slots") if field != "index"}
    if x.shape.ndims is None:
        return [(x.dtype, TensorShape(None))]
    dims = []
    i = 0
    for pos, item in enumerate(spec):
        if item is None:
            dims.append(1)
        elif item is Ellipsis:
            rest = sum(1 for s in spec if s is not None and s is not Ellipsis)
            n_ell = x.shape.ndims - rest
            dims.extend(x.shape.as_list()[i:i + n_ell])
            i += n_ell
        elif isinstance(item, builtins.slice):
            d = x.shape[i]
            dims.append(None if d is None or pos in dynamic else len(builtins.range(*item.indices(d))))
            i += 1
        else:
            i += 1
    dims.extend(x.shape.as_list()[i:])
    return [(x.dtype, TensorShape(dims))]


def slice_key(spec, tensor_slots, dynamic):
    """The numpy index for a StridedSlice: its static spec with the run-time (tensor) bounds filled in."""
    key = list(spec)
    for (pos, field), v in zip(tensor_slots, dynamic):
        v = int(v)
        if field == "index":
            key[pos] = v
        else:
            s = key[pos]
            parts = {"start": s.start, "stop": s.stop, "step": s.step}
            parts[field] = v
            key[pos] = builtins.slice(parts["start"], parts["stop"], parts["step"])
    return key


def checked_key(spec, tensor_slots, dynamic, shape):
    """`slice_key` for an array of `shape`, refusing an index out of bounds with TensorFlow's message."""
    key = slice_key(spec, tensor_slots, dynamic)
    for k, item in enumerate(key):
        if isinstance(item, int):
            d = shape[sum(1 for s in key[:k] if s is not None)]
            if not -d <= item < d:
                raise IndexError(f"slice index {item} of dimension {k} out of bounds.")
    return tuple(key)


def key_function(spec, tensor_slots):
    """`checked_key` for one op's index, as a function of (dynamic values, shape). The common `a[i]` (one index, from
    a tensor) skips the general walk: it is what a loop over an array reads and writes every step."""
    if len(spec) == 1 and [tuple(s) for s in tensor_slots] == [(0, "index")]:
        def single_index(dynamic, shape):
            i, d = int(dynamic[0]), shape[0]
            if not -d <= i < d:
                raise IndexError(f"slice index {i} of dimension 0 out of bounds.")
            return (i,)
        return single_index
    return lambda dynamic, shape: checked_key(spec, tensor_slots, dynamic, shape)


def _strided_slice_kernel(op):
    key = key_function(op.get_attr("spec"), op.get_attr("tensor_slots"))

    def strided_slice(x, *dynamic):
        x = op_kernel_context.device_module().asarray(x)
        return _as_value(x[key(dynamic, x.shape)])
    return strided_slice


register_op("StridedSlice", _strided_slice_infer, _strided_slice_kernel)


def _getitem(tensor, key):
    """`t[1:3, 0]`, `t[..., None]`, `t[i]` with tensor indices: one StridedSlice op."""
    if not isinstance(key, tuple):
        key = (key,)
    for item in key:
        bounds = (item.start, item.stop, item.step) if isinstance(item, builtins.slice) else (item,)
        for b in bounds:
            if isinstance(b, Tensor) and b.dtype not in (dtypes.int32, dtypes.int64):
                raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), cfnb.newaxis (`None`) and scalar "
                                f"int32/int64 tensors are valid indices, got {b!r}")
    spec, dynamic, slots = [], [], []
    for pos, item in enumerate(key):
        if isinstance(item, builtins.slice):
            parts = {}
            for field in ("start", "stop", "step"):
                v = getattr(item, field)
                if isinstance(v, Tensor):
                    slots.append((pos, field))
                    dynamic.append(v)
                    v = 0
                parts[field] = v
            spec.append(builtins.slice(parts["start"], parts["stop"], parts["step"]))
        elif item is None or item is Ellipsis:
            spec.append(item)
        elif isinstance(item, Tensor):
            slots.append((pos, "index"))
            dynamic.append(item)
            spec.append(0)
        elif isinstance(item, (int, np.integer)):
            spec.append(int(item))
        else:
            raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), cfnb.newaxis (`None`) and scalar "
                            f"int32 tensors are valid indices, got {item!r}")
    with get_default_graph().name_scope("strided_slice") as scope:
        return apply_op("StridedSlice", [("input", tensor)] + [(f"index_{i}", d) for i, d in enumerate(dynamic)],
                        {"spec": tuple(spec), "tensor_slots": tuple(slots)}, name=scope).outputs[0]


Tensor.__getitem__ = _getitem


# --- Slice ------------------------------------------------------------------------------------------
def _slice_infer(op):
    x, begin, size = op._inputs
    b, s = array_ops._const_value(begin), array_ops._const_value(size)
    if s is None:
        n = size.shape[0] if size.shape.ndims == 1 else x.shape.ndims
        return [(x.dtype, TensorShape(None if n is None else [None] * n))]
    dims = []
    for k, d in enumerate(np.reshape(s, -1)):
        d = int(d)
        if d != -1:
            dims.append(d)
        else:
            known = x.shape.ndims is not None and x.shape[k] is not None and b is not None
            dims.append(x.shape[k] - int(np.reshape(b, -1)[k]) if known else None)
    return [(x.dtype, TensorShape(dims))]


def _slice_index(x, begin, size):
    begin, size = np.reshape(begin, -1), np.reshape(size, -1)
    if len(begin) != np.ndim(x) or len(size) != np.ndim(x):
        raise ValueError(f"Expected begin and size arguments to be 1-D tensors of size {np.ndim(x)}, but got shapes "
                         f"[{len(begin)}] and [{len(size)}] instead.")
    index = []
    for k, (b, s) in enumerate(zip(begin, size)):
        b, s = int(b), int(s)
        end = np.shape(x)[k] if s == -1 else b + s
        if not (0 <= b <= end <= np.shape(x)[k]):
            raise ValueError(f"Expected size[{k}] in [0, {np.shape(x)[k] - b}], but got {s}")
        index.append(builtins.slice(b, end))
    return tuple(index)


register_op("Slice", _slice_infer, lambda op: lambda x, begin, size: np.asarray(x)[_slice_index(x, begin, size)])


def _slice_grad_kernel(op):
    def slice_grad(shape, begin, size, grad):
        out = np.zeros([int(d) for d in shape], dtype=np.asarray(grad).dtype)
        out[_slice_index(out, begin, size)] = grad
        return out
    return slice_grad


# TensorFlow pads the gradient back to the input's shape (Pad); one op placing it does the same.
register_op("SliceGrad", lambda op: [(op._inputs[3].dtype, TensorShape(None))], _slice_grad_kernel)


@RegisterGradient("Slice")
def _slice_grad(op, grad):
    x, begin, size = op.inputs
    g = apply_op("SliceGrad", [("shape", array_ops.shape(x)), ("begin", begin), ("size", size), ("grad", grad)],
                 default_name="SliceGrad").outputs[0]
    g.set_shape(x.shape)
    return g, None, None


@RegisterGradient("SliceGrad")
def _slice_grad_grad(op, grad):
    return None, None, None, slice(grad, op.inputs[1], op.inputs[2])


def slice(input_, begin, size, name=None):  # noqa: A001 - TensorFlow's name
    """`input_[begin[i] : begin[i] + size[i]]` in every dimension; `size[i] == -1` takes the rest."""
    index_type = convert_to_tensor(begin).dtype if isinstance(begin, Tensor) else dtypes.int32
    return apply_op("Slice", [("input", input_), ("begin", begin), ("size", size)], name=name,
                    default_name="Slice", dtypes={"begin": index_type, "size": index_type}).outputs[0]


# --- strided_slice ----------------------------------------------------------------------------------
def _bounds(value, n):
    """Per-position bounds: Python ints where known at build time, scalar tensors otherwise."""
    if value is None:
        return [None] * n
    if isinstance(value, Tensor):
        known = array_ops._const_value(value)
        if known is None:
            return [value[k] for k in range(n)]
        value = known
    return [int(v) for v in np.reshape(value, -1)]


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    """TensorFlow's strided slice: position k takes `begin[k]:end[k]:strides[k]`, unless a mask bit k says
    otherwise (begin/end: from the start/to the end; ellipsis: `...`; new_axis: a new dimension of 1;
    shrink_axis: the single index `begin[k]`, removing the dimension)."""
    n = len(begin) if not isinstance(begin, Tensor) else begin.shape[0]
    if n is None:
        raise ValueError("strided_slice: the length of `begin` must be known when the graph is built")
    b, e, s = _bounds(begin, n), _bounds(end, n), _bounds(strides, n)
    key = []
    for k in range(n):
        bit = 1 << k
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(b[k])
        else:
            key.append(builtins.slice(None if begin_mask & bit else b[k], None if end_mask & bit else e[k], s[k]))
    return convert_to_tensor(input_)[tuple(key)]  # one StridedSlice op, named as `t[...]` names it
