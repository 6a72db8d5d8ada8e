"""Python's numbers divided by zero: ZeroDivisionError, as plain Python raises it.

Under numpy's rules (the `%%whileloop` magic) a value plain Python holds as a Python float (`s = 1.0`,
then `s = s / (i - 1)`) is computed as a float64 scalar, and numpy divides a float64 by zero to `inf`
or `nan` with a warning. Plain Python raises `ZeroDivisionError: float division by zero` instead, and
a cell must leave what plain Python leaves: going on with `inf` would be a silent wrong answer.

So, like `int_overflow.py` for Python ints that leave int64, a division whose inputs are all Python
numbers (weak, `dtype_rules.is_weak`) and whose result is a float carries the `_python_float` attr
(numpy_rules.mark_result), and its kernel raises Python's error where the divisor is zero. Every
other division (numpy arrays and scalars, TensorFlow's own graphs) keeps numpy's and TensorFlow's
`inf`, and pays nothing: the check is chosen when the kernel is made. Integer divisions already
raise in their kernels (math_ops._floordiv). TensorFlow has no such attr: its floats follow IEEE 754.
"""
from ..framework.registry import get_op_def
from .numpy_rules import PYTHON_FLOAT_ATTR

# Python's own words (CPython's float_div, float_floor_div, float_rem; long_true_divide for two ints).
_MESSAGES = {"RealDiv": "float division by zero", "FloorDiv": "float floor division by zero",
             "FloorMod": "float modulo"}


def _of_ints(op):
    """`i / j` of two Python ints: numpy casts both to float64 first, Python says 'division by zero'."""
    return all(t.op.type == "Cast" and t.op.inputs[0].dtype.is_integer for t in op.inputs)


def _checked(op, kernel):
    message = "division by zero" if op.type == "RealDiv" and _of_ints(op) else _MESSAGES[op.type]

    def checked_division(x, y):
        if y == 0:  # weak inputs are Python numbers: scalars, never arrays
            raise ZeroDivisionError(message)
        return kernel(x, y)
    return checked_division


def _install():
    for op_type in _MESSAGES:
        op_def = get_op_def(op_type)
        plain = op_def.kernel

        def factory(op, plain=plain):
            kernel = plain(op)
            return _checked(op, kernel) if op._attrs.get(PYTHON_FLOAT_ATTR) else kernel
        op_def.kernel = factory


_install()
