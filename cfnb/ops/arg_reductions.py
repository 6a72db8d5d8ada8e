"""`argmax` and `argmin`: the index of the largest/smallest element along an axis (ArgMax, ArgMin).

As in TensorFlow the axis defaults to 0, the result is int64 unless `output_type` says otherwise,
ties go to the first index, and the gradient of an index is None (gradients/math_grad.py).
"""
import numpy as np

from ..framework import dtypes
from ..framework.op_def_library import apply_op
from ..framework.ops import convert_to_tensor
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops


def _arg_infer(op):
    x, axis = op._inputs
    a = array_ops._const_value(axis)
    if x.shape.ndims is None or a is None:
        return [(op.get_attr("output_type"), TensorShape(None))]
    a = int(a) % x.shape.ndims
    dims = x.shape.as_list()
    return [(op.get_attr("output_type"), TensorShape(dims[:a] + dims[a + 1:]))]


def _arg_kernel(fn):
    def make(op):
        out = op.get_attr("output_type").as_numpy_dtype
        return lambda x, axis: np.asarray(fn(x, axis=int(axis)), dtype=out)[()]
    return make


register_op("ArgMax", _arg_infer, _arg_kernel(np.argmax))
register_op("ArgMin", _arg_infer, _arg_kernel(np.argmin))


def _arg(op_type):
    def arg(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):
        if axis is not None and dimension is not None:
            raise ValueError("Cannot specify both 'axis' and 'dimension'")
        axis = dimension if axis is None else axis
        x = convert_to_tensor(input)
        output_type = dtypes.as_dtype(output_type)
        if output_type not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"{op_type}: output_type must be int32 or int64, got {output_type.name}")
        return apply_op(op_type, [("input", x), ("dimension", 0 if axis is None else axis)],
                        {"output_type": output_type}, name=name, default_name=op_type,
                        dtypes={"dimension": dtypes.int32}).outputs[0]
    arg.__name__ = op_type.lower()
    arg.__doc__ = f"TensorFlow's `{op_type}`: indices along `axis` (default 0), `output_type` int64 by default."
    return arg


argmax = _arg("ArgMax")
argmin = _arg("ArgMin")
