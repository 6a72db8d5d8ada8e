"""`convert_to_tensor`: how a Variable, a TensorArray, a list of Tensors or a Python number becomes a Tensor.

TensorFlow's `framework/tensor_conversion_registry.py`: each layer registers a conversion function
for the types it owns (`register_tensor_conversion_function(cls, fn, priority)`), and
`convert_to_tensor` tries them in priority order. The framework itself knows none of them: a
Python value becomes a Const because the op layer registers `constant` for `object` at a low
priority (TensorFlow's `framework/constant_tensor_conversion.py`), a Variable reads
its value because `ops/variables.py` registers that, and an Operation is refused because
`framework/ops.py` registers the refusal. So the framework never imports the layers above it.
"""
from . import dtypes as _dtypes
from .tensor import Tensor

_tensor_conversion_functions = []  # (priority, order registered, cls, fn), kept sorted


def register_tensor_conversion_function(cls, fn, priority=100):
    """`fn(value, dtype, name) -> Tensor` for objects of `cls` (a type or a tuple of types).

    A lower `priority` is tried first (TensorFlow's default is 100; the Python-value fallback
    registers 200). `fn` may return `NotImplemented` to decline a value of its type."""
    _tensor_conversion_functions.append((priority, len(_tensor_conversion_functions), cls, fn))
    _tensor_conversion_functions.sort(key=lambda entry: entry[:2])


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None, preferred_dtype=None):
    """A Tensor from a Tensor, or whatever a registered conversion function makes of `value`.

    The rules of TensorFlow's `tensor_conversion_registry.convert`:
    - `dtype` and the hint (`dtype_hint`, or its old name `preferred_dtype`) go through `as_dtype`
      first, so an invalid one is a TypeError whatever `value` is;
    - with a hint and no `dtype`, each function is first asked for the hinted dtype. When that raises
      TypeError or ValueError it is asked again without one, so the value keeps its own dtype; when
      it declines (`NotImplemented`) the next function is tried; when it returns another dtype than
      the hint, that is a RuntimeError (the function broke its contract);
    - a result whose dtype is not the requested `dtype` is a RuntimeError too.
    """
    if dtype_hint is not None and preferred_dtype is not None:
        # TensorFlow's deprecation.deprecated_argument_lookup("dtype_hint", ..., "preferred_dtype", ...)
        raise ValueError("Cannot specify both 'preferred_dtype' and 'dtype_hint'.")
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
    hint = dtype_hint if dtype_hint is not None else preferred_dtype
    hint = _dtypes.as_dtype(hint) if hint is not None else None
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    for _, _, cls, fn in _tensor_conversion_functions:
        if not isinstance(value, cls):
            continue
        result = None
        if dtype is None and hint is not None:
            try:
                result = fn(value, hint, name)
            except (TypeError, ValueError):
                result = None  # the value cannot be the hinted dtype: it keeps its own
            else:
                if result is not NotImplemented and result.dtype != hint:
                    raise RuntimeError(_prefixed(f"Conversion function {fn!r} for type {cls} returned incompatible "
                                                 f"dtype: requested = {hint.name}, actual = {result.dtype.name}", name))
        if result is None:
            result = fn(value, dtype, name)
        if result is NotImplemented:  # the function declines (auto-packing a list without Tensors)
            continue
        if dtype is not None and result.dtype != dtype:
            raise RuntimeError(_prefixed(f"Conversion function {fn} for type {cls} returned incompatible dtype: "
                                         f"requested = {dtype.name}, actual = {result.dtype.name}", name))
        return result
    raise TypeError(f"Failed to convert object of type {type(value).__name__} to Tensor. Contents: {value!r}. "
                    f"Consider casting elements to a supported type.")


def _prefixed(message, name):
    """TensorFlow's `_add_error_prefix`: the conversion's `name`, when given, leads the message."""
    return message if name is None else f"{name}: {message}"


def convert_n_to_tensor(values, dtype=None, name=None):
    """Each value as a tensor (TensorFlow's `ops.convert_n_to_tensor`)."""
    return [convert_to_tensor(v, dtype=dtype, name=name) for v in values]
