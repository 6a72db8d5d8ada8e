"""Kernels written inline in the static schedule's code: a Python expression instead of a call.

In a loop over scalars the kernels themselves are cheap (an operator on two numpy scalars costs
~30 ns); what costs is calling them: a Python call, and for the kernels that guard an operator
(`FloorMod` refuses an integer zero divisor, `Equal` falls back to `np.equal` for arrays) a few
type tests. The generated code can say the same thing in one expression:

    v24 = m8 % c23 if type(m8) is t_int64 else k24(m8, c23)

which *is* the kernel's own fast path, taken under the kernel's own condition, with the kernel
itself called otherwise, so the value (dtype, int64 wraparound, float32 rounding) is the kernel's
bit for bit. Only kernels whose definition is known here are inlined, recognised by identity: a
changed kernel is simply called again. A condition on a constant input is decided once, when the
code is generated (a constant divisor of the right type that is not zero needs no test at all).

The numpy scalar type a guard tests (`t_int64`) is the op's input dtype, so on the common path a
value of that dtype passes with one `is` test.
"""
import operator

import numpy as np

from ...ops import math_ops

# Kernels that *are* a Python operator: the expression is exactly the call.
_OPERATORS = {
    operator.add: "{0} + {1}", operator.sub: "{0} - {1}", operator.mul: "{0} * {1}",
    operator.truediv: "{0} / {1}", operator.pow: "{0} ** {1}",
    operator.lt: "{0} < {1}", operator.le: "{0} <= {1}", operator.gt: "{0} > {1}", operator.ge: "{0} >= {1}",
    operator.and_: "{0} & {1}", operator.or_: "{0} | {1}", operator.neg: "-{0}", operator.abs: "abs({0})",
}
# Kernels that apply an operator when both inputs are numpy scalars of one type (math_ops._scalar_operator,
# _floormod, _floordiv), else a ufunc: the expression tests that condition.
_GUARDED = {
    math_ops.COMPARE["Equal"]: "==", math_ops.COMPARE["NotEqual"]: "!=",
    math_ops.BINARY["FloorMod"]: "%", math_ops.BINARY["FloorDiv"]: "//",
}
_DIVISIONS = {"%", "//"}


def inline_expression(item, refs, kernel_name, constants, defaults, kernel=None):
    """The expression computing `item`'s kernel (or `kernel`, the one the code calls instead: Python-int arithmetic's
    unchecked operator, whose overflow numpy reports at the line) on `refs` (variable names), or None to call it.

    `constants`: {ref: value} of the inputs that are constants; `defaults`: the generated function's
    default arguments, where a guard's scalar type is added."""
    kernel = item.kernel if kernel is None else kernel
    try:
        template = _OPERATORS.get(kernel)
    except TypeError:  # an unhashable kernel object: not one of ours
        return None
    if template is not None:
        return template.format(*refs)
    if kernel is math_ops._logical_not:
        defaults["t_bool"] = np.bool_
        defaults["t_false"], defaults["t_true"] = np.False_, np.True_
        (x,) = refs
        return f"(t_false if {x} else t_true) if type({x}) is t_bool else {kernel_name}({x})"
    op_type = item.op.type
    if op_type == "Cast":
        return _cast(item, refs[0], kernel_name, defaults)
    if op_type in ("Maximum", "Minimum") and kernel in (np.maximum, np.minimum):
        return _integer_extremum(item, refs, kernel_name, defaults, ">=" if op_type == "Maximum" else "<=")
    symbol = _GUARDED.get(kernel)
    if symbol is None or len(refs) != 2:
        return None
    scalar = item.op.inputs[0].dtype.as_numpy_dtype
    if scalar not in math_ops._NUMBER_SCALARS:
        return None
    type_name = f"t_{np.dtype(scalar).name}"
    defaults[type_name] = scalar
    x, y = refs
    tests = [f"type({x}) is {type_name}"] if type(constants.get(x)) is not scalar else []
    if type(constants.get(y)) is not scalar:
        tests.append(f"type({y}) is {type_name}")
    integer_division = symbol in _DIVISIONS and np.dtype(scalar).kind in "iu"
    if integer_division and not (y in constants and type(constants[y]) is scalar and constants[y] != 0):
        tests.append(y)  # a zero divisor goes to the kernel, which refuses it
    expression = f"{x} {symbol} {y}"
    if not tests:
        return expression
    return f"{expression} if {' and '.join(tests)} else {kernel_name}({x}, {y})"


def _scalar_type(dtype, defaults):
    """The numpy scalar type of `dtype`, bound in the generated function as `t_<name>`."""
    scalar = dtype.as_numpy_dtype
    name = f"t_{np.dtype(scalar).name}"
    defaults[name] = scalar
    return scalar, name


def _cast(item, x, kernel_name, defaults):
    """Cast (`np.asarray(x).astype(DstT)`, a scalar back as a scalar) of a numpy scalar, for the casts
    numpy calls safe (every value of the source type has a value of the destination type, bool, ints
    and floats only): the destination type's constructor converts the scalar by the same C cast."""
    src, dst = item.op.inputs[0].dtype.as_numpy_dtype, item.op.get_attr("DstT").as_numpy_dtype
    if np.dtype(src).kind not in "biuf" or np.dtype(dst).kind not in "iuf" or not np.can_cast(src, dst, "safe"):
        return None
    _src, src_name = _scalar_type(item.op.inputs[0].dtype, defaults)
    _dst, dst_name = _scalar_type(item.op.get_attr("DstT"), defaults)
    return f"{dst_name}({x}) if type({x}) is {src_name} else {kernel_name}({x})"


def _integer_extremum(item, refs, kernel_name, defaults, keep_first):
    """Maximum/Minimum (`np.maximum`/`np.minimum`) of two integer scalars of one type: the larger (smaller)
    one, which is the ufunc's result exactly for integers (floats keep the ufunc: NaN and signed zeros)."""
    scalar, name = _scalar_type(item.op.inputs[0].dtype, defaults)
    if np.dtype(scalar).kind not in "iu":
        return None
    x, y = refs
    return f"({x} if {x} {keep_first} {y} else {y}) if type({x}) is {name} and type({y}) is {name} else " \
           f"{kernel_name}({x}, {y})"
