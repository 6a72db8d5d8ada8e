"""Complex numbers: `real`, `imag`, `conj` and `abs` of complex64/complex128 tensors.

TensorFlow's `Real`, `Imag`, `Conj` and `ComplexAbs` ops; the part ops return the matching real
type (float32 for complex64, float64 for complex128). `abs` dispatches as `tf.math.abs` does: a
complex tensor goes to ComplexAbs, any other to Abs.
"""
import numpy as np

from ..framework import dtypes
from ..framework.op_def_library import apply_op
from ..framework.ops import convert_to_tensor
from ..framework.registry import register_op
from . import math_ops

COMPLEX = (dtypes.complex64, dtypes.complex128)


def _real_infer(op):
    x = op._inputs[0]
    return [(x.dtype.real_dtype, x.shape)]


def _part_kernel(fn):
    def make(op):
        out = op.outputs[0].dtype.as_numpy_dtype
        return lambda x: np.asarray(fn(x), dtype=out)[()]
    return make


register_op("Real", _real_infer, _part_kernel(np.real))
register_op("Imag", _real_infer, _part_kernel(np.imag))
register_op("ComplexAbs", _real_infer, _part_kernel(np.abs))
register_op("Conj", lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], lambda op: np.conj)


def _part(op_type, doc):
    def part(input, name=None):
        x = convert_to_tensor(input)
        if not x.dtype.is_complex:
            # TensorFlow: the real part of a real tensor is the tensor, its imaginary part zeros.
            return x if op_type in ("Real", "Conj") else math_ops.multiply(x, 0, name=name)
        return apply_op(op_type, [("input", x)], name=name, default_name=op_type).outputs[0]
    part.__name__ = op_type.lower()
    part.__doc__ = doc
    return part


real = _part("Real", "The real part of each element (TensorFlow's `tf.math.real`).")
imag = _part("Imag", "The imaginary part of each element (TensorFlow's `tf.math.imag`).")
conj = _part("Conj", "The complex conjugate of each element (TensorFlow's `tf.math.conj`).")


def abs(x, name=None):  # noqa: A001 - TensorFlow's name
    """|x|: ComplexAbs for a complex tensor (a real result), Abs otherwise (`tf.math.abs`)."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return apply_op("ComplexAbs", [("x", x)], name=name, default_name="ComplexAbs").outputs[0]
    return math_ops.abs(x, name=name)
