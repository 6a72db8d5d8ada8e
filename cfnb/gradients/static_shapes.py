"""`shape`, `size` and `zeros_like` as TensorFlow's gradient functions get them: a constant when the static shape is
known (array_ops.shape, size and zeros_like with their default `optimize=True`), an op reading the tensor otherwise.

It matters beyond the graph's looks. Inside a functional loop's gradient, an op that reads a forward tensor makes
the gradient depend on it: the tensor is captured (or accumulated), and a second derivative through the gradient
loop then reaches it and comes out as zeros where TensorFlow's, with no such edge, is None.
"""
from ..framework import dtypes
from ..ops import array_ops


def shape(t, out_type=dtypes.int32):
    """A tensor's shape as a Const when it is fully known, else a Shape op: TensorFlow's gradient functions use
    static shapes where they can, and the graphs must match node for node."""
    if t.shape.is_fully_defined():
        return array_ops.constant(t.shape.as_list(), out_type, name="Shape")
    return array_ops.shape(t, out_type=out_type)


def size(t, out_type=dtypes.int32):
    """A tensor's size as a Const when its shape is fully known, else a Size op (as `shape`)."""
    if t.shape.is_fully_defined():
        return array_ops.constant(t.shape.num_elements(), out_type, name="Size")
    return array_ops.size(t, out_type=out_type)


def zeros_like(t):
    """Zeros of a fully known shape as a constant `zeros`, else a ZerosLike op (as `shape`)."""
    if t.shape.is_fully_defined() and t.dtype != dtypes.variant:
        return array_ops.zeros(t.shape.as_list(), t.dtype, name="zeros_like")
    return array_ops.zeros_like(t)
