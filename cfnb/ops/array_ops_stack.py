"""`stack`, `unstack` and `concat`: many tensors into one and back.

TensorFlow 2.x moved `stack` and `unstack` to `ops/array_ops_stack.py` and kept `concat` in `array_ops.py`;
cfnb keeps the three together, as one idea.

`stack` builds a `Pack` op, `unstack` an `Unpack` with one output per slice, `concat` a `ConcatV2` whose
last input is the axis. They are the ops a list of tensors turns into (auto-packing, `autopacking.py`)
and the ones a loop's history is read back with.
"""
import builtins

import numpy as np

from ..framework import dtypes, op_kernel_context
from ..framework.op_def_library import apply_op
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape
from .array_ops import _as_value, _const_value, identity


def _pack_infer(op):
    xs = op._inputs
    axis = op.get_attr("axis")
    base = xs[0].shape
    for x in xs[1:]:
        base = base.merge_with(x.shape)
    if base.ndims is None:
        return [(xs[0].dtype, TensorShape(None))]
    dims = base.as_list()
    a = axis if axis >= 0 else len(dims) + 1 + axis
    return [(xs[0].dtype, TensorShape(dims[:a] + [len(xs)] + dims[a:]))]


register_op("Pack", _pack_infer, lambda op: (lambda a: lambda *xs: op_kernel_context.module_of(*xs).stack(
    xs, axis=a))(op.get_attr("axis")))  # the inputs' module: int32 values stay in host memory on a GPU


def _check_same_dtypes(op_type, values):
    """TensorFlow's op_def_library check of a list input sharing one type attr (`T` of Pack and ConcatV2)."""
    if any(v.dtype != values[0].dtype for v in values[1:]):
        names = ", ".join(v.dtype.name for v in values)
        raise TypeError(f"Tensors in list passed to 'values' of '{op_type}' Op have types [{names}] that don't "
                        f"all match.")


def stack(values, axis=0, name="stack"):
    """`tf.stack`: a Pack op; Python values take the dtype of the first tensor, and mixed dtypes are refused with
    TensorFlow's message."""
    with get_default_graph().name_scope(name) as scope:
        tensors = [v for v in values if isinstance(v, Tensor)]
        hint = tensors[0].dtype if tensors else None
        values = [convert_to_tensor(v, dtype_hint=hint) for v in values]
        _check_same_dtypes("Pack", values)
        return get_default_graph().create_op("Pack", values, {"axis": axis, "N": len(values)},
                                             name=scope).outputs[0]


def _unpack_infer(op):
    x = op._inputs[0]
    axis = op.get_attr("axis")
    num = op.get_attr("num")
    if x.shape.ndims is None:
        return [(x.dtype, TensorShape(None))] * num
    dims = x.shape.as_list()
    del dims[axis]
    return [(x.dtype, TensorShape(dims))] * num


register_op("Unpack", _unpack_infer,
            lambda op: (lambda a: lambda x: tuple(_as_value(v) for v in np.moveaxis(
                op_kernel_context.device_module().asarray(x), a, 0)))(
                op.get_attr("axis")), multi_output=True)


def unstack(value, num=None, axis=0, name="unstack"):
    """`tf.unstack`: an Unpack op into `num` tensors along `axis`; `num` must be known from the static shape when not
    given, as in TensorFlow."""
    value = convert_to_tensor(value)
    if num is None:
        if value.shape.ndims is None or value.shape[axis] is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value.shape}")
        num = value.shape[axis]
    axis = axis if axis >= 0 else value.shape.ndims + axis
    return apply_op("Unpack", [("value", value)], {"num": num, "axis": axis}, name=name).outputs


def _concat_infer(op):
    xs = op._inputs[:-1]
    axis = _const_value(op._inputs[-1])
    ranks = [x.shape.ndims for x in xs if x.shape.ndims is not None]
    if not ranks:
        return [(xs[0].dtype, TensorShape(None))]
    n = ranks[0]
    if axis is None:
        return [(xs[0].dtype, TensorShape([None] * n))]
    a = int(axis) % n
    dims = [None] * n
    total = 0
    for x in xs:
        if x.shape.ndims is None:
            total = None
            continue
        for i in builtins.range(n):
            if i != a and dims[i] is None:
                dims[i] = x.shape[i]
        total = None if total is None or x.shape[a] is None else total + x.shape[a]
    dims[a] = total
    return [(xs[0].dtype, TensorShape(dims))]


register_op("ConcatV2", _concat_infer, lambda op: lambda *xs: np.concatenate(xs[:-1], axis=int(xs[-1])))


def concat(values, axis, name="concat"):
    """`tf.concat`: a ConcatV2 op, or just an Identity for one value (as TensorFlow builds it)."""
    if len(values) == 1:
        with get_default_graph().name_scope(name) as scope:
            return identity(values[0], name=scope)
    with get_default_graph().name_scope(name) as scope:
        tensors = [v for v in values if isinstance(v, Tensor)]
        hint = tensors[0].dtype if tensors else None
        values = [convert_to_tensor(v, dtype_hint=hint) for v in values]
        _check_same_dtypes("ConcatV2", values)
        axis = convert_to_tensor(axis, name="axis", dtype=dtypes.int32)
        return get_default_graph().create_op("ConcatV2", values + [axis], {"N": len(values)},
                                             name=scope).outputs[0]


