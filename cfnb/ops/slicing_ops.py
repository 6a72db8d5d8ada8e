"""`tf.slice` and `tf.strided_slice`: TensorFlow's begin/size and begin/end/strides slicing functions.

`strided_slice` with its masks (begin, end, ellipsis, new_axis, shrink_axis) is translated into the
index spec that cfnb's StridedSlice op runs (the op `t[...]` builds, array_ops.py), so it shares that
op's shape inference and gradient; a bound given as a non-constant tensor becomes a run-time slot.
`slice` is TensorFlow's `Slice` op: `begin` and `size` tensors, a size of -1 meaning "to the end";
its static shape is the constant sizes, even where the input's dimension is unknown.
"""
import builtins

import numpy as np

from ..framework import dtypes
from ..framework.op_def_library import apply_op
from ..framework.ops import Tensor, convert_to_tensor
from ..framework.registry import RegisterGradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops


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
