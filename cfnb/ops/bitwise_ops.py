"""Bitwise ops on integers (TensorFlow's `tf.bitwise`, `tensorflow/python/ops/bitwise_ops.py`), and the
operators `&`, `|`, `^` and `~`, which TensorFlow gives both meanings by dtype (`math_ops.and_`, `or_`,
`xor_`, `invert_`): logical on bools, bitwise on integers (`n & 1` is a `BitwiseAnd` named `and`).

`<<` and `>>` are Python's and numpy's operators, not TensorFlow's (a tf.Tensor has no `__lshift__`): they
work on a graph built under numpy's rules (the `%%whileloop` magic), and raise Python's TypeError otherwise, as
TensorFlow does. A shift of Python ints past int64 raises OverflowError (ops/int_overflow.py), as Python's ints
never wrap.
"""
import numpy as np

from ..framework import dtypes
from ..framework.dtype_rules import NUMPY_RULES
from ..framework.op_def_library import _graph_of, apply_op
from ..framework.registry import register_op
from . import math_ops
from .math_ops import INTEGERS, _binary_infer, _kernel, _overload, _unary_infer

_BINARY = {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor,
           "LeftShift": np.left_shift, "RightShift": np.right_shift}
for _type, _ufunc in _BINARY.items():
    register_op(_type, _binary_infer, _kernel(_ufunc))
register_op("Invert", _unary_infer, _kernel(np.invert))


def _binary(op_type):
    def op(x, y, name=None):
        return apply_op(op_type, [("x", x), ("y", y)], name=name, default_name=op_type, same_type=("x", "y"),
                        allowed=INTEGERS).outputs[0]
    op.__name__ = op_type
    op.__doc__ = f"Element-wise `{op_type}` of integers, with broadcasting (TensorFlow's `tf.bitwise` op)."
    return op


bitwise_and = _binary("BitwiseAnd")
bitwise_or = _binary("BitwiseOr")
bitwise_xor = _binary("BitwiseXor")
left_shift = _binary("LeftShift")
right_shift = _binary("RightShift")


def invert(x, name=None):
    """`~x` of integers: every bit flipped (TensorFlow's `Invert`)."""
    return apply_op("Invert", [("x", x)], name=name, default_name="Invert", same_type=("x",),
                    allowed=INTEGERS).outputs[0]


def _by_dtype(logical, bitwise):
    """TensorFlow's `math_ops.and_` and friends: the logical op on bools (named as the operator's scope,
    `and`), the bitwise one on integers (inside it, `and/BitwiseAnd`)."""
    def op(x, y, name=None):
        is_bool = getattr(x, "dtype", None) == dtypes.bool_ if not isinstance(x, bool) else True
        return logical(x, y, name=name) if is_bool else bitwise(x, y)
    return op


and_ = _by_dtype(math_ops.logical_and, bitwise_and)
or_ = _by_dtype(math_ops.logical_or, bitwise_or)
xor_ = _by_dtype(math_ops.logical_xor, bitwise_xor)


def invert_(x, name=None):
    """Python's `~x` on a tensor: `logical_not` for booleans, else `invert` (bit flip), as numpy's `~` does;
    TensorFlow's `Tensor.__invert__` is `logical_not` only."""
    return math_ops.logical_not(x, name=name) if x.dtype == dtypes.bool_ else invert(x, name=name)


def _numpy_only(fn, scope_name, reverse=False):
    """`<<` and `>>`: numpy's operators under numpy's rules; a TypeError under TensorFlow's (no such operator)."""
    method = _overload(fn, scope_name, reverse)

    def shift(self, other):
        if _graph_of([("x", self)]).dtype_rules != NUMPY_RULES:
            return NotImplemented
        return method(self, other)
    return shift


def _install():
    from ..framework.ops import Tensor
    for name, fn in (("and", and_), ("or", or_), ("xor", xor_)):
        setattr(Tensor, f"__{name}__", _overload(fn, name))
        setattr(Tensor, f"__r{name}__", _overload(fn, name, reverse=True))
    Tensor.__invert__ = lambda self: invert_(self)
    Tensor.__lshift__ = _numpy_only(left_shift, "LeftShift")
    Tensor.__rlshift__ = _numpy_only(left_shift, "LeftShift", reverse=True)
    Tensor.__rshift__ = _numpy_only(right_shift, "RightShift")
    Tensor.__rrshift__ = _numpy_only(right_shift, "RightShift", reverse=True)


_install()
