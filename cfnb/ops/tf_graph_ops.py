"""Ops that TensorFlow's own graphs use and cfnb's builders do not: what a GraphDef TensorFlow wrote needs to run.

cfnb's builders make one op where TensorFlow's Python makes several (a reduction's gradient shape, a concat's
gradient split, `t[...]` slicing with its bounds as attrs), so TensorFlow's graphs hold ops cfnb never emits:
`ConcatOffset`, `DynamicStitch`, `InvertPermutation`, `ListDiff`, `ShapeN`, `Cumsum`/`Cumprod` (also built by
`tf.cumsum`/`tf.cumprod`, below), the `Optional*` ops
of a functional cond's gradient, `VariableShape`, `IdentityN`. Their kernels are numpy versions of TensorFlow's
(same names, same attrs); `Slice` is slicing_ops.py's. `StridedSlice` and `StridedSliceGrad` also take TensorFlow's
form here (begin/end/strides inputs and bit masks, `tensor_getitem_override.py::_slice_helper`): an op with a
`begin_mask` attr is read that way, cfnb's own form (a Python `spec`) as before; so does `SplitV` (sizes and axis
as inputs, not attrs) and `TensorListConcatV2` (a third input, `leading_dims`).
"""
import numpy as np

from ..framework import dtypes, errors, op_kernel_context
from ..framework.op_def_library import apply_op
from ..framework.registry import get_op_def, register_op
from ..framework.tensor_shape import TensorShape
from .array_ops import _as_value

_xp = op_kernel_context.device_module  # the array module of the kernel's device


def _const_value(t):
    """The value of `t` when a Const makes it (static shape inference), else None."""
    return t.op.get_attr("value") if t.op.type == "Const" else None


# --- StridedSlice in TensorFlow's form -----------------------------------------------------------
def tf_slice_key(begin, end, strides, attrs):
    """The numpy index for TensorFlow's (begin, end, strides, masks): bit j of a mask says what entry j is."""
    key = []
    for j in range(len(begin)):
        bit = 1 << j
        if attrs.get("ellipsis_mask", 0) & bit:
            key.append(Ellipsis)
        elif attrs.get("new_axis_mask", 0) & bit:
            key.append(None)
        elif attrs.get("shrink_axis_mask", 0) & bit:
            key.append(int(begin[j]))
        else:
            key.append(slice(None if attrs.get("begin_mask", 0) & bit else int(begin[j]),
                             None if attrs.get("end_mask", 0) & bit else int(end[j]), int(strides[j])))
    return tuple(key)


def _masks(op):
    return {k: op.get_attr(k) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                        "shrink_axis_mask") if k in op.attr}


def _tf_strided_slice_infer(op):
    x = op.inputs[0]
    bounds = [_const_value(t) for t in op.inputs[1:4]]
    if x.shape.is_fully_defined() and all(b is not None for b in bounds):
        shape = np.empty(x.shape.as_list(), dtype=np.int8)[tf_slice_key(*bounds, _masks(op))].shape
        return [(x.dtype, TensorShape(list(shape)))]
    return [(x.dtype, TensorShape(None))]


def _tf_strided_slice_kernel(op):
    masks = _masks(op)

    def strided_slice(x, begin, end, strides):
        key = tf_slice_key(np.reshape(begin, -1), np.reshape(end, -1), np.reshape(strides, -1), masks)
        x = np.asarray(x)
        try:
            return _as_value(np.array(x[key]))
        except IndexError as e:
            raise errors.InvalidArgumentError(op, op, f"slice index out of bounds: {e}") from None
    return strided_slice


def _tf_strided_slice_grad_infer(op):
    shape = _const_value(op.inputs[0])
    dy = op.inputs[-1]
    return [(dy.dtype, TensorShape(None) if shape is None else TensorShape([int(d) for d in shape]))]


def _tf_strided_slice_grad_kernel(op):
    masks = _masks(op)

    def strided_slice_grad(shape, begin, end, strides, dy):
        out = np.zeros(tuple(int(d) for d in np.reshape(shape, -1)), dtype=np.asarray(dy).dtype)
        key = tf_slice_key(np.reshape(begin, -1), np.reshape(end, -1), np.reshape(strides, -1), masks)
        out[key] = np.reshape(dy, out[key].shape)
        return out
    return strided_slice_grad


def _either(op_type, tf_infer, tf_kernel, is_tf_form=lambda op: "begin_mask" in op.attr):
    """Let registered op `op_type` read TensorFlow's form where `is_tf_form(op)` (default: a `begin_mask` attr),
    and cfnb's own form as before."""
    od = get_op_def(op_type)
    cfnb_infer, cfnb_kernel = od.infer, od.kernel
    od.infer = lambda op: (tf_infer if is_tf_form(op) else cfnb_infer)(op)
    od.kernel = lambda op: (tf_kernel if is_tf_form(op) else cfnb_kernel)(op)


_either("StridedSlice", _tf_strided_slice_infer, _tf_strided_slice_kernel)
_either("StridedSliceGrad", _tf_strided_slice_grad_infer, _tf_strided_slice_grad_kernel)


# --- array ops --------------------------------------------------------------------------------
def _rank_only(op):
    x = op.inputs[0]
    return [(x.dtype, TensorShape(None if x.shape.ndims is None else [None] * x.shape.ndims))]


def _cumulative(name):
    """Cumsum or Cumprod (`name` the array module's function), on the array module of the kernel's device (a
    gradient, the product's, runs them wherever the values are)."""
    def kernel(op):
        exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")

        def cumulative(x, axis):
            xp = _xp()
            x = xp.asarray(x)
            if np.ndim(axis) != 0:  # TensorFlow's ScanOp::Compute checks, with its messages
                raise errors.InvalidArgumentError(op, op, f"ScanOp: axis must be a scalar, not {list(np.shape(axis))}")
            if not -max(x.ndim, 1) <= int(axis) < max(x.ndim, 1):
                raise errors.InvalidArgumentError(op, op, f"ScanOp: Expected scan axis in the range [{-x.ndim}, "
                                                  f"{x.ndim}), but got {int(axis)}")
            axis = int(axis) % max(x.ndim, 1)
            y = xp.flip(x, axis) if reverse else x
            out = getattr(xp, name)(y, axis=axis, dtype=x.dtype)
            if exclusive:
                lead = (slice(None),) * axis
                identity = xp.zeros_like if name == "cumsum" else xp.ones_like
                out = xp.concatenate([identity(out[lead + (slice(0, 1),)]), out[lead + (slice(0, -1),)]], axis=axis)
            return xp.flip(out, axis) if reverse else out
        return cumulative
    return kernel


register_op("Cumsum", lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)], _cumulative("cumsum"))
register_op("Cumprod", lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)], _cumulative("cumprod"))


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """`tf.math.cumsum` (math_ops.cumsum): the running sum along `axis`; `exclusive` starts from 0, `reverse`
    runs from the end."""
    return apply_op("Cumsum", [("x", x), ("axis", axis)], {"exclusive": exclusive, "reverse": reverse},
                    name=name, default_name="Cumsum").outputs[0]


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """`tf.math.cumprod` (math_ops.cumprod): the running product, as `cumsum` with 1 for 0."""
    return apply_op("Cumprod", [("x", x), ("axis", axis)], {"exclusive": exclusive, "reverse": reverse},
                    name=name, default_name="Cumprod").outputs[0]


def _dynamic_stitch_kernel(op):
    n = op.get_attr("N")

    def dynamic_stitch(*args):
        indices, data = [np.asarray(i) for i in args[:n]], [np.asarray(d) for d in args[n:]]
        size = max((int(i.max()) + 1 for i in indices if i.size), default=0)
        tail = data[0].shape[indices[0].ndim:]
        out = np.zeros((size,) + tail, dtype=data[0].dtype)
        for i, d in zip(indices, data):
            out[i.reshape(-1)] = d.reshape((-1,) + tail)
        return out
    return dynamic_stitch


register_op("DynamicStitch", lambda op: [(op.inputs[-1].dtype, TensorShape(None))], _dynamic_stitch_kernel)
register_op("InvertPermutation", lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)],
            lambda op: lambda x: np.argsort(np.asarray(x)).astype(np.asarray(x).dtype))


def _list_diff_kernel(op):
    idx_type = op.get_attr("out_idx").as_numpy_dtype

    def list_diff(x, y):
        x, y = np.asarray(x), np.asarray(y)
        keep = np.array([v not in set(y.tolist()) for v in x.tolist()], dtype=bool).reshape(x.shape)
        return x[keep], np.nonzero(keep)[0].astype(idx_type)
    return list_diff


register_op("ListDiff", lambda op: [(op.inputs[0].dtype, TensorShape([None])),
                                    (op.get_attr("out_idx"), TensorShape([None]))],
            _list_diff_kernel, multi_output=True)
register_op("ShapeN", lambda op: [(op.get_attr("out_type"), TensorShape([t.shape.ndims])) for t in op.inputs],
            lambda op: (lambda dt: lambda *xs: tuple(np.array(np.shape(x), dtype=dt) for x in xs))(
                op.get_attr("out_type").as_numpy_dtype), multi_output=True)


def _concat_offset_kernel(op):
    def concat_offset(axis, *shapes):
        shapes = [np.asarray(s) for s in shapes]
        axis = int(axis) % len(shapes[0])
        out, at = [], 0
        for s in shapes:
            offset = np.zeros_like(s)
            offset[axis] = at
            at += int(s[axis])
            out.append(offset)
        return tuple(out)
    return concat_offset


register_op("ConcatOffset", lambda op: [(t.dtype, t.shape) for t in op.inputs[1:]], _concat_offset_kernel,
            multi_output=True)


# --- optionals (a functional cond's gradient keeps a branch's intermediates in them) ---------------
class OptionalValue:
    """A variant holding the values of one branch's intermediates, or nothing (OptionalNone)."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = values

    nbytes = property(lambda self: sum(getattr(v, "nbytes", 0) for v in self.values or ()))


register_op("OptionalFromValue", lambda op: [(dtypes.variant, TensorShape([]))],
            lambda op: lambda *xs: OptionalValue(tuple(xs)))
register_op("OptionalNone", lambda op: [(dtypes.variant, TensorShape([]))], lambda op: lambda: OptionalValue(None))


def _optional_get_kernel(op):
    def optional_get_value(optional):
        if optional.values is None:
            raise errors.InvalidArgumentError(op, op, "The optional does not have a value.")
        return tuple(optional.values)
    return optional_get_value


register_op("OptionalGetValue", lambda op: list(zip(op.get_attr("output_types"), op.get_attr("output_shapes"))),
            _optional_get_kernel, multi_output=True)


def _variable_shape_kernel(op, state):
    dt = op.get_attr("out_type").as_numpy_dtype
    return lambda handle: np.array(np.shape(state.variables[handle]), dtype=dt)


register_op("VariableShape", lambda op: [(op.get_attr("out_type"), TensorShape([None]))], _variable_shape_kernel,
            stateful=True)


def _leading_dims_optional(op_type, n_inputs):
    """TensorFlow's `op_type` takes one input more than cfnb's (TensorListConcatV2's `leading_dims`, unused when
    the list's elements have a known leading dimension): its kernel is cfnb's, fed the first `n_inputs`."""
    od = get_op_def(op_type)
    cfnb_kernel = od.kernel
    od.kernel = lambda op: (lambda f: lambda *args: f(*args[:n_inputs]))(cfnb_kernel(op))


_leading_dims_optional("TensorListConcatV2", 2)


def _optional_aware(op_type, fn):
    """`op_type`'s kernel, with TensorFlow's variant rule for optionals: ZerosLike of an optional is an optional
    of zeros (None stays None)."""
    od = get_op_def(op_type)
    cfnb_kernel = od.kernel

    def kernel(op):
        f = cfnb_kernel(op)
        return lambda x: fn(x) if isinstance(x, OptionalValue) else f(x)
    od.kernel = kernel


_optional_aware("ZerosLike", lambda x: OptionalValue(None if x.values is None else
                                                     tuple(np.zeros_like(v) for v in x.values)))

register_op("IdentityN", lambda op: [(t.dtype, t.shape) for t in op.inputs], lambda op: lambda *xs: tuple(xs),
            multi_output=True)


def _tf_split_v_infer(op):
    x = op.inputs[0]
    return [(x.dtype, TensorShape(None if x.shape.ndims is None else [None] * x.shape.ndims))] * op.get_attr(
        "num_split")


def _tf_split_v_kernel(op):
    """TensorFlow's SplitV(value, size_splits, split_dim): one size may be -1 (the rest)."""
    def split_v(x, size_splits, split_dim):
        x, sizes, axis = np.asarray(x), [int(s) for s in np.reshape(size_splits, -1)], int(split_dim)
        if -1 in sizes:
            sizes[sizes.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
        return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))
    return split_v


_either("SplitV", _tf_split_v_infer, _tf_split_v_kernel, lambda op: len(op.inputs) == 3)
