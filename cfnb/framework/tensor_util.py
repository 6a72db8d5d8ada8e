"""`constant_value` and `constant_value_as_shape`: what a tensor holds when the graph alone decides it.

Shape functions use them to turn a shape *tensor* into a static shape: `reshape(x, concat([[5], [3, 4]], 0))`
has static shape (5, 3, 4), `zeros(shape(y)[1:])` has y's trailing dims. TensorFlow's C++ shape inference
gets there by evaluating small constant subgraphs (`EvaluateConstantTensor`) and reading partial shapes out of
Shape, Pack, ConcatV2 and StridedSlice (`InferenceContext::MakeShapeFromShapeTensor`); Python's
`tensor_util.constant_value` and `constant_value_as_shape` are the same idea. cfnb evaluates with the ops' own
kernels, so every stateless op counts, as in TensorFlow's C++ inference.

The other way round, `infer_dtype` and `check_value_fits` decide what dtype a Python or numpy value gets as a
constant, and whether it fits a requested one (TensorFlow's `make_tensor_proto` and `_AssertCompatible`).
"""
import numbers

import numpy as np

from . import dtype_rules as _rules
from . import dtypes as _dtypes
from .dtype_rules import NUMPY_RULES, TENSORFLOW_RULES
from .registry import get_op_def
from .tensor import Tensor
from .tensor_shape import TensorShape

# Never constant: fed or run-time values, and control flow (a value inside a loop or a branch is per-iteration).
_NOT_CONSTANT = {"Placeholder", "PlaceholderWithDefault", "Switch", "Merge", "Enter", "Exit", "NextIteration",
                 "LoopCond", "RefEnter", "RefSwitch", "RefMerge", "ControlTrigger"}
MAX_ELEMENTS = 1024   # larger intermediate values are not evaluated (TensorFlow's kMaxTensorSize)
MAX_DEPTH = 200       # nor deeper chains of ops (Python recursion)


def constant_value(tensor):
    """The numpy value of `tensor` if it can be computed while building the graph, else None."""
    return _value(tensor, 0, {})


def _small(t):
    return t.shape.is_fully_defined() and t.shape.num_elements() <= MAX_ELEMENTS


def _value(tensor, depth, memo):
    if tensor not in memo:
        memo[tensor] = _compute(tensor, depth, memo)
    return memo[tensor]


def _compute(tensor, depth, memo):
    op = tensor.op
    if op.type == "Const":
        return op.get_attr("value")
    if op.type in ("Shape", "Size", "Rank"):
        shape = op.inputs[0].shape
        out = op.get_attr("out_type").as_numpy_dtype if op.type != "Rank" else np.int32
        if op.type == "Rank":
            return None if shape.ndims is None else np.int32(shape.ndims)
        if not shape.is_fully_defined():
            return None
        return np.array(shape.as_list(), out) if op.type == "Shape" else out(shape.num_elements())
    if op.type in ("Enter", "RefEnter") and op.get_attr("is_constant"):
        # a loop invariant: the same value on every iteration (TensorFlow's shape inference sees through it)
        return None if depth >= MAX_DEPTH else _value(op.inputs[0], depth + 1, memo)
    if op.type == "Placeholder":
        # A function graph's capture stands for an outer tensor, the same on every call: its value is that
        # tensor's (TensorFlow infers `reshape(u, concat([[5], outer_shape], 0))` as [5, 3, 4] in a loop body).
        outer = next((ext for ext, ph in getattr(op.graph, "captures", ()) if ph is tensor), None)
        return None if outer is None or depth >= MAX_DEPTH else _value(outer, depth + 1, memo)
    op_def = get_op_def(op.type)
    # only small values of known shape are computed, so evaluating never allocates much
    if (depth >= MAX_DEPTH or op.type in _NOT_CONSTANT or op_def.needs_state or op_def.kernel is None
            or op.attr.get("_lower_using_switch_merge") is not None
            or any(t.dtype.as_numpy_dtype is None or not _small(t) for t in op.outputs)):
        return None
    values = []
    for t in op.inputs:
        v = _value(t, depth + 1, memo)
        if v is None:
            return None
        values.append(v)
    try:
        out = op_def.kernel(op)(*values)
    except Exception:  # noqa: BLE001 - a kernel that fails here fails at run time, where it is reported
        return None
    if op_def.multi_output:
        out = out[tensor.value_index]
    return None if out is None else np.asarray(out)


def constant_value_as_shape(tensor):
    """The (possibly partial) static shape a 1-D shape tensor describes; -1 or an unknown entry is None."""
    op = tensor.op
    if tensor.shape.ndims == 0:  # a scalar describes no shape but an unknown rank (-1)
        return TensorShape(None)
    if op.type == "Shape":
        return op.inputs[0].shape
    if op.type == "Pack":
        return TensorShape([_dim(constant_value(t)) for t in op.inputs])
    if op.type == "ConcatV2":
        shape = TensorShape([])
        for t in op.inputs[:-1]:
            shape = shape.concatenate(constant_value_as_shape(t))
        return shape
    if op.type == "StridedSlice" and op.inputs[0].op.type == "Shape" and "spec" in op.attr \
            and not op.get_attr("tensor_slots"):  # cfnb's form (an imported TensorFlow form has bit masks)
        spec = op.get_attr("spec")
        dims = op.inputs[0].op.inputs[0].shape
        if len(spec) == 1 and isinstance(spec[0], slice) and dims.ndims is not None:
            return TensorShape(dims.as_list()[spec[0]])
    value = constant_value(tensor)
    if value is not None:
        return TensorShape([_dim(d) for d in np.reshape(value, -1)])
    if tensor.shape.ndims == 1 and tensor.shape[0] is not None:
        return TensorShape([None] * tensor.shape[0])
    return TensorShape(None)


def _dim(value):
    return None if value is None or int(value) < 0 else int(value)


# --- the dtype of a Python value (TensorFlow's make_tensor_proto and _AssertCompatible) ------------
def infer_dtype(value, rules=TENSORFLOW_RULES):
    """The dtype TensorFlow gives a Python/numpy value: float -> float32, int -> int32.

    Under numpy's rules (`Graph.dtype_rules == "numpy"`) it is the dtype numpy gives it
    (`np.asarray(value).dtype`): float -> float64, int -> int64."""
    if rules == NUMPY_RULES and not isinstance(value, (str, bytes, np.ndarray, np.generic)):
        return _rules.numpy_dtype_of(value, _elements)
    if isinstance(value, np.ndarray | np.generic):
        return _dtypes.as_dtype(value.dtype)
    if isinstance(value, bool):
        return _dtypes.bool_
    if isinstance(value, int):
        return _dtypes.int32 if -(2 ** 31) <= value < 2 ** 31 else _dtypes.int64
    if isinstance(value, float):
        return _dtypes.float32
    if isinstance(value, complex):
        return _dtypes.complex128
    if isinstance(value, (str, bytes)):
        return _dtypes.string
    if isinstance(value, (list, tuple)):
        if any(isinstance(v, Tensor) for v in value):
            raise TypeError("A list holding Tensors cannot become a constant: use cfnb.stack.")
        _check_one_kind(value)
        kinds = {infer_dtype(v) for v in value}
        for candidate in (_dtypes.complex128, _dtypes.complex64, _dtypes.float64, _dtypes.float32, _dtypes.float16,
                          _dtypes.int64, _dtypes.int32):
            if candidate in kinds:
                return candidate
        return kinds.pop() if kinds else _dtypes.float32
    raise TypeError(f"Failed to convert object of type {type(value).__name__} to Tensor. Contents: {value!r}. "
                    f"Consider casting elements to a supported type.")


def _check_one_kind(value):
    """A list mixing text with numbers (or holding None, or an object that is no number) has no dtype.

    TensorFlow's `make_tensor_proto` leaves the list to numpy, which makes it a string (or object)
    array, and then fails to turn the numbers into bytes: `tf.constant(["a", 3])` is a TypeError,
    never the string "3"."""
    leaves = list(_leaves(value))
    text = [isinstance(v, (str, bytes)) or (isinstance(v, np.ndarray) and v.dtype.kind in "SU") for v in leaves]
    other = [not isinstance(v, (numbers.Number, np.generic, np.ndarray, str, bytes)) for v in leaves]
    if any(other) or (any(text) and not all(text)):
        raise TypeError(f"Failed to convert elements of {value} to Tensor. Consider casting elements to a supported "
                        f"type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.")


# The Python values each dtype takes: TensorFlow's `_TF_TO_IS_OK` with compat's integral_types,
# real_types, complex_types and bytes_or_text_types.
_INTEGRAL = (numbers.Integral, np.integer)
_REAL = (numbers.Real, np.integer, np.floating)
_COMPLEX = (numbers.Complex, np.number)
_TEXT = (bytes, str)


def _accepted(dtype):
    if dtype.is_bool:
        return (bool,)  # as TensorFlow's _check_bool: a numpy bool scalar in a list is refused too
    if dtype.is_integer:
        return _INTEGRAL
    if dtype.is_floating:
        return _REAL
    if dtype.is_complex:
        return _COMPLEX
    if dtype == _dtypes.string:
        return _TEXT
    return None


def check_value_fits(value, dtype):
    """TensorFlow's check of a Python value against a requested dtype (`_AssertCompatible`): an
    integer type takes ints (and bools) only, so 1.0 is refused as an int32 (`Expected int32, but got
    1.0 of type 'float'.`); a float type takes any real number; a complex type any number; bool takes
    bools only; string takes str and bytes only, so a number is never silently a string
    (`Expected string, but got 3 of type 'int'.`). A numpy array inside a list is checked by its
    dtype and named whole, as TensorFlow does."""
    ok = _accepted(dtype)
    if ok is None:
        return
    for v in _leaves(value):
        if not (isinstance(v, ok) or (isinstance(v, np.ndarray) and issubclass(v.dtype.type, ok))):
            raise TypeError(f"Expected {dtype.name}, but got {v} of type '{type(v).__name__}'.")


def check_numpy_strings(value):
    """A numpy value asked to be a string must hold text: TensorFlow turns each element into bytes
    (`compat.as_bytes`), which refuses a number (`Expected binary or unicode string, got 1`)."""
    for v in np.asarray(value).astype(object).reshape(-1):  # Python scalars, as TensorFlow reports them
        if not isinstance(v, (bytes, str)):
            raise TypeError(f"Expected binary or unicode string, got {v!r}")


def _leaves(value):
    """The leaves of a (nested) Python list, numpy arrays kept whole (TensorFlow's `nest.flatten`)."""
    if isinstance(value, Tensor):
        raise TypeError("A list holding Tensors cannot become a constant: use cfnb.stack.")
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _elements(value):
    """The scalars of a (nested) Python list, numpy arrays opened; a Tensor among them is refused as in `_leaves`."""
    for leaf in _leaves(value):
        if isinstance(leaf, np.ndarray):
            yield from leaf.reshape(-1)
        else:
            yield leaf
