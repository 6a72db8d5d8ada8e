"""Python's ints in an int64 graph: the kernels of Python-int arithmetic check for overflow.

Under numpy's rules (the `%%whileloop` magic) a value that plain Python holds as a Python int (a
`range` counter, `p = p * 2` of Python ints) is computed in int64. Python's int never wraps, so an
int64 that wraps would be a wrong answer: an op whose inputs are all Python numbers and whose
result is int64 carries the `_python_int` attr (numpy_rules.mark_result), and its kernel raises
OverflowError where the int64 result would wrap. Every other int64 op (numpy int64 arrays and
scalars) keeps numpy's wrapping, and pays nothing: the check is chosen when the kernel is made.
TensorFlow has no such op attr (its ints are fixed-width); the checks are Python's rule for ints
that leave int64 (`OverflowError: Python int too large to convert to C long`).
"""
import operator
import sys

import numpy as np

from ..framework.registry import get_op_def
from .numpy_rules import PYTHON_INT_ATTR

_MIN, _MAX = -(2 ** 63), 2 ** 63 - 1
_SYMBOL = {"AddV2": "+", "Sub": "-", "Mul": "*", "Pow": "**", "LeftShift": "<<"}


def _overflow(op_type, args):
    if any(a is None for a in args):
        return OverflowError(f"{op_type} of Python ints went past int64: Python's ints are unbounded, but the graph "
                             f"computes them in int64 (from -2**63 to 2**63 - 1). Use floats for numbers this large, "
                             f"or keep them smaller.")
    exact = {"AddV2": operator.add, "Sub": operator.sub, "Mul": operator.mul, "Pow": operator.pow,
             "LeftShift": operator.lshift,
             "Neg": operator.neg, "Abs": abs, "Square": lambda x: x * x}[op_type](*(int(a) for a in args))
    what = f" {_SYMBOL[op_type]} ".join(str(int(a)) for a in args) if op_type in _SYMBOL else \
        f"{op_type.lower()}({int(args[0])})"
    shown = str(exact) if abs(exact) < 10 ** 30 else f"a number of {len(str(abs(exact)))} digits"
    return OverflowError(f"{what} = {shown} does not fit in int64: Python's ints are unbounded, but the graph "
                         f"computes them in int64 (from -2**63 to 2**63 - 1). Use floats for numbers this large, "
                         f"or keep them smaller.")


# Each check gets the kernel's inputs and its (possibly wrapped) result: sign tests, no Python ints.
_CHECKS = {
    "AddV2": lambda x, y, r: (x ^ r) & (y ^ r) < 0,
    "Sub": lambda x, y, r: (x ^ y) & (x ^ r) < 0,
    "Mul": lambda x, y, r: x != 0 and (r // x != y or (x == -1 and y == _MIN)),
    "Neg": lambda x, r: x == _MIN,
    "Abs": lambda x, r: x == _MIN,
    "Square": lambda x, r: x != 0 and (r // x != x or x == _MIN),
    "LeftShift": lambda x, y, r: x != 0 and (y >= 63 or (r >> y) != x or (r < 0) != (x < 0)),
}


def _checked(op_type, kernel):
    if op_type == "Pow":
        def checked_pow(x, y):
            if np.ndim(x) or np.ndim(y):
                return kernel(x, y)
            if y < 0:
                raise ValueError(f"{int(x)} ** {int(y)}: a Python int to a negative power is a float in Python, but "
                                 f"the graph computes this power of ints as an int (its exponent is known only "
                                 f"when the graph runs): write float(x) ** y")
            exact = int(x) ** int(y)
            if not _MIN <= exact <= _MAX:
                raise _overflow(op_type, (x, y))
            return np.int64(exact)
        return checked_pow
    check = _CHECKS[op_type]

    def checked(*args):
        r = kernel(*args)
        if type(r) is np.int64 and check(*args, r):  # Python numbers are scalars
            raise _overflow(op_type, args)
        return r
    checked.__name__ = f"checked_{op_type}"
    checked.unchecked = kernel  # the static schedule runs this one and lets numpy detect the overflow
    return checked


# Op types whose numpy-scalar kernels report int64 overflow to numpy's error handler (`np.errstate`);
# numpy's scalar `**` does not, so a Pow keeps its checked kernel everywhere.
SCALAR_REPORTED = ("AddV2", "Sub", "Mul", "Neg", "Abs", "Square")


def overflow_call(kind, flag):
    """numpy's error callback (`np.errstate(over="call", call=overflow_call)`) while a static schedule runs:
    numpy reports a scalar overflow as it computes it, at no cost when none happens. If the node
    running (the one tagged on the generated code's current line, `_line_nodes`) is Python-int arithmetic
    (`_python_int_nodes`: node id -> (op type, input variables)), raise its OverflowError; any other
    overflow (a numpy int64 scalar, a float) is left as numpy leaves it."""
    frame = sys._getframe(1)
    while frame is not None:
        nodes = frame.f_globals.get("_python_int_nodes")
        if nodes is not None:
            site = nodes.get(frame.f_globals["_line_nodes"].get(frame.f_lineno))
            if site is not None:
                op_type, refs = site
                values = {**frame.f_globals, **frame.f_locals}
                raise _overflow(op_type, [values.get(r) for r in refs])
            return
        frame = frame.f_back


def _install():
    for op_type in list(_CHECKS) + ["Pow"]:
        op_def = get_op_def(op_type)
        plain = op_def.kernel

        def factory(op, plain=plain, op_type=op_type):
            kernel = plain(op)
            return _checked(op_type, kernel) if op._attrs.get(PYTHON_INT_ATTR) else kernel
        op_def.kernel = factory


_install()
