"""numpy's number rules, for a graph whose `dtype_rules` is "numpy" (the `%%whileloop` magic's).

TensorFlow and numpy disagree about numbers, and a student's cell means numpy's:

  * a Python int is int64 and a Python float float64 (TensorFlow: int32 and float32); numpy
    arrays and scalars keep their dtypes under both rules (`Graph.dtype_rules`, `infer_dtype`);
  * mixed dtypes promote (TensorFlow refuses `int32 + float32`): numpy 2 resolves each ufunc's
    input dtypes (NEP 50), and Python scalars are *weak*, they take the other operand's kind
    when they can: `float32 * 0.1` stays float32, `int64 * 0.1` is float64, `int32 + int64` is
    int64, `int64 + float32` float64, and `/` of two ints is float64.

Rather than re-state numpy's tables, `input_dtypes` asks numpy: `ufunc.resolve_dtypes` gives the
dtypes a ufunc's loop takes its inputs in, with `int`/`float` standing for weak Python scalars.
The inputs are then converted to those dtypes with explicit `Cast` ops (a constant is made in the
target dtype directly), so the promotion is visible in the graph, and its gradient is the Cast's
gradient (a cast back) in both directions between float dtypes.

`apply_op` calls `promote_inputs` for every op whose inputs share a type attribute (TensorFlow's
`T`), which covers the arithmetic, comparisons, `MatMul`, `Select`, `AddN` and the unary math
ops (`sqrt` of an int64 is float64, as `np.sqrt`); reductions follow `np.sum` (the sum of an
int32 or bool is int64) and `np.mean` (the mean of ints is float64).
"""
import numbers
import sys

import numpy as np

from ..framework import dtype_rules, dtypes, op_def_library
from ..framework.dtype_rules import NUMPY_RULES
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from .array_ops import cast

# Op type -> the numpy ufunc whose type resolution gives the op's input dtypes under numpy's rules.
UFUNCS = {
    "AddV2": np.add, "Sub": np.subtract, "Mul": np.multiply, "RealDiv": np.true_divide,
    "FloorDiv": np.floor_divide, "FloorMod": np.remainder, "Pow": np.power,
    "Maximum": np.maximum, "Minimum": np.minimum, "SquaredDifference": np.subtract,
    "Less": np.less, "LessEqual": np.less_equal, "Greater": np.greater, "GreaterEqual": np.greater_equal,
    "Equal": np.equal, "NotEqual": np.not_equal, "MatMul": np.matmul,
    "Neg": np.negative, "Abs": np.absolute, "Square": np.square, "Sqrt": np.sqrt, "Rsqrt": np.sqrt,
    "Exp": np.exp, "Log": np.log, "Log1p": np.log1p, "Sin": np.sin, "Cos": np.cos, "Tanh": np.tanh,
    "Sigmoid": np.tanh, "Floor": np.floor, "Sign": np.sign, "Reciprocal": np.reciprocal,
    "BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor, "Invert": np.invert,
    "LeftShift": np.left_shift, "RightShift": np.right_shift,
}

# Reductions: numpy accumulates small integers and bools in int64 (`np.sum`, `np.prod`) and takes
# the mean of integers in float64 (`np.mean`); TensorFlow keeps the input's dtype.
_REDUCTION_DTYPES = {
    "Sum": {dtypes.int32: dtypes.int64, dtypes.bool_: dtypes.int64},
    "Prod": {dtypes.int32: dtypes.int64, dtypes.bool_: dtypes.int64},
    "Mean": {dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64, dtypes.bool_: dtypes.float64},
}


def is_numpy_graph(graph=None):
    """Whether `graph` (the default graph) follows numpy's dtype rules (`Graph.dtype_rules == "numpy"`)."""
    return (graph or get_default_graph()).dtype_rules == NUMPY_RULES


def is_weak(value):
    """A Python scalar (not a numpy one): numpy 2 lets it take the other operand's dtype."""
    return isinstance(value, (int, float)) and not isinstance(value, (bool, np.generic))


def operand_dtype(value):
    """What numpy's type resolution sees for `value`: a numpy dtype, or `int`/`float` for a weak
    Python scalar."""
    if isinstance(value, Tensor):
        if dtype_rules.is_weak(value) and value.dtype.is_numeric and value.dtype != dtypes.bool_:
            return int if value.dtype.is_integer else float  # a Python number computed in the graph
        return np.dtype(value.dtype.as_numpy_dtype) if value.dtype.as_numpy_dtype not in (None, np.object_) else None
    if is_weak(value):
        return int if isinstance(value, int) else float
    if isinstance(value, numbers.Number) and not isinstance(value, (bool, np.generic)):
        return None  # complex, Fraction, ...: not a dtype cfnb has
    try:
        return np.asarray(value).dtype
    except (TypeError, ValueError):
        return None


def input_dtypes(op_type, values):
    """The DTypes `values` take as inputs of `op_type` under numpy's rules, or None when numpy's
    rules do not apply (a string, handle or foreign object among them)."""
    ops = [operand_dtype(v) for v in values]
    if any(o is None or (isinstance(o, np.dtype) and o.kind not in "biuf") for o in ops):
        return None
    if all(o is int or o is float for o in ops):  # Python numbers only: computed as Python does, in int64/float64
        ops = [np.dtype(np.float64) if float in ops else np.dtype(np.int64)] * len(ops)
    ufunc = UFUNCS.get(op_type)
    if ufunc is not None and ufunc.nin == len(ops):
        resolved = ufunc.resolve_dtypes(tuple(ops) + (None,) * ufunc.nout)[:len(ops)]
    else:  # ops without a ufunc (Select, AddN): one common dtype, np.result_type's
        common = np.result_type(*[_weak_sample(o) for o in ops])
        resolved = [common] * len(ops)
    try:
        return [dtypes.as_dtype(d) for d in resolved]
    except TypeError:
        raise TypeError(f"{op_type}: numpy computes {', '.join(map(str, ops))} in {', '.join(map(str, resolved))}, "
                        f"a dtype cfnb does not have.") from None


def to_dtype(value, dtype, name):
    """`value` as a tensor of `dtype`: a tensor through a visible Cast, a Python or numpy value as a
    constant made in `dtype` (numpy's rules raise OverflowError for an int that does not fit)."""
    if isinstance(value, Tensor):
        out = cast(value, dtype)
        return dtype_rules.mark_weak(out) if dtype_rules.is_weak(value) else out
    if is_weak(value) and dtype.is_integer:
        info = np.iinfo(dtype.as_numpy_dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {dtype.name}")
    out = convert_to_tensor(value, dtype=dtype, name=name)
    return dtype_rules.mark_weak(out) if is_weak(value) else out


# Ops whose result is a Python number when all their inputs are (`i * 2 + 1`, `abs(n)`, `-x`).
_KEEPS_WEAK = (set(UFUNCS) - {"MatMul"}) | {"Identity"}


# Python-int arithmetic that can leave int64: its kernel checks (math_ops.checked_int_kernel).
PYTHON_INT_ATTR = "_python_int"
_CAN_OVERFLOW = ("AddV2", "Sub", "Mul", "Neg", "Abs", "Square", "Pow", "LeftShift")
# Python-float division, which raises ZeroDivisionError where numpy gives inf (python_division.py).
PYTHON_FLOAT_ATTR = "_python_float"
_DIVISIONS = ("RealDiv", "FloorDiv", "FloorMod")


def mark_result(op, inputs):
    """Mark the outputs of `op` weak when every input is (numpy: Python numbers give a Python number).
    An int64 result of Python ints gets the `_python_int` attr: plain Python's int would not wrap
    past 2**63, so the kernel raises OverflowError instead of wrapping (numpy int64 values still wrap).
    A float division of Python numbers gets the `_python_float` attr: its kernel raises Python's
    ZeroDivisionError for a zero divisor instead of numpy's inf."""
    if op.type in _KEEPS_WEAK and inputs and all(dtype_rules.is_weak(t) for t in inputs):
        for out in op.outputs:
            if out.dtype != dtypes.bool_:
                dtype_rules.mark_weak(out)
        if op.type in _CAN_OVERFLOW and op.outputs and op.outputs[0].dtype == dtypes.int64:
            op._set_attr(PYTHON_INT_ATTR, True)
        if op.type in _DIVISIONS and op.outputs and op.outputs[0].dtype.is_floating:
            op._set_attr(PYTHON_FLOAT_ATTR, True)


def promote_inputs(op_type, inputs, same):
    """`inputs` ((arg, value) pairs) with the args in `same` converted to numpy's dtypes for `op_type`."""
    index = [i for i, (arg, _) in enumerate(inputs) if arg in same]
    values = [inputs[i][1] if isinstance(inputs[i][1], (Tensor, numbers.Number, np.ndarray, np.generic, list, tuple))
              else convert_to_tensor(inputs[i][1], name=inputs[i][0]) for i in index]
    targets = input_dtypes(op_type, values)
    if targets is None:
        return inputs
    if op_type in _REDUCTION_DTYPES:
        targets = [_REDUCTION_DTYPES[op_type].get(t, t) for t in targets]
    if op_type == "Pow" and _negative_int_power(values):
        targets = [dtypes.float64] * len(values)  # Python: 2 ** -1 == 0.5 (numpy refuses ints to negative powers)
    out = list(inputs)
    for i, v, dt in zip(index, values, targets):
        out[i] = (inputs[i][0], to_dtype(v, dt, inputs[i][0]))
    return out


def _negative_int_power(values):
    """`i ** -1` of Python ints (a weak int, a negative Python int literal): a float in Python."""
    base, exponent = values
    python_int = isinstance(base, Tensor) and dtype_rules.is_weak(base) and base.dtype.is_integer
    return python_int and type(exponent) is int and exponent < 0


def index_input(tensor, dtype):
    """An int64 tensor (a numpy-rules loop counter) where an op takes an int32 shape, axis or size:
    cast down, as numpy accepts any integer there."""
    if dtype == dtypes.int32 and tensor.dtype == dtypes.int64:
        return cast(tensor, dtypes.int32)
    return tensor


def result_dtype(values):
    """np.result_type of `values` (weak Python scalars included) as a DType."""
    ops = [operand_dtype(v) for v in values]
    return dtypes.as_dtype(np.result_type(*[_weak_sample(o) for o in ops]))


def _weak_sample(o):
    """np.result_type reads a Python scalar as weak; `int`/`float` (the types) it would read as dtypes.
    (Identity tests: a numpy dtype compares equal to the Python type it defaults from.)"""
    return 0 if o is int else 0.0 if o is float else o


op_def_library.register_promotion_policy(NUMPY_RULES, sys.modules[__name__])
