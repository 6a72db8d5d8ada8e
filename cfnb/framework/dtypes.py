"""Element types, mirroring `tf.dtypes`: a small fixed set, each tied to a numpy dtype.

TensorFlow's rule for Python literals is kept: a Python float becomes float32 and a Python int
int32 (int64 when it does not fit), so `import cfnb as tf` programs produce the same dtypes.
"""
import ml_dtypes
import numpy as np


class DType:
    """One element type. Compare with `==`; `as_numpy_dtype` gives the numpy counterpart."""

    __slots__ = ("name", "as_numpy_dtype", "_np")

    def __init__(self, name, np_dtype):
        self.name = name
        self.as_numpy_dtype = np_dtype
        self._np = np.dtype(np_dtype) if np_dtype is not None else None

    @property
    def base_dtype(self):
        """The dtype itself: cfnb has no reference dtypes (TensorFlow's `float32_ref`), so code written
        against `DType.base_dtype` runs unchanged."""
        return self

    @property
    def is_floating(self):
        """Whether values are real floating point, bfloat16 included (TensorFlow's `DType.is_floating`): the dtypes
        `gradients()` differentiates."""
        return self._np is not None and (self._np.kind == "f" or self._np == _BFLOAT16_NP)

    @property
    def is_integer(self):
        """Whether values are signed or unsigned integers (TensorFlow's `DType.is_integer`)."""
        return self._np is not None and self._np.kind in "iu"

    @property
    def is_unsigned(self):
        """Whether values are unsigned integers (TensorFlow's `DType.is_unsigned`)."""
        return self._np is not None and self._np.kind == "u"

    @property
    def is_complex(self):
        """Whether values are complex (TensorFlow's `DType.is_complex`)."""
        return self._np is not None and self._np.kind == "c"

    @property
    def real_dtype(self):
        """float32 for complex64, float64 for complex128, the type itself otherwise."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def size(self):
        """Bytes per element (TensorFlow's `DType.size`), 1 for variant and resource handles; device memory
        accounting multiplies it by the element count."""
        return self._np.itemsize if self._np is not None and self._np.kind != "O" else 1

    @property
    def min(self):
        """The smallest representable value (TensorFlow's `DType.min`)."""
        return np.iinfo(self._np).min if self.is_integer else float(ml_dtypes.finfo(self._np).min)

    @property
    def max(self):
        """The largest representable value (TensorFlow's `DType.max`)."""
        return np.iinfo(self._np).max if self.is_integer else float(ml_dtypes.finfo(self._np).max)

    @property
    def is_bool(self):
        """Whether this is `bool` (TensorFlow's `DType.is_bool`): the only dtype a Switch predicate may have."""
        return self._np is not None and self._np.kind == "b"

    @property
    def is_numeric(self):
        """Whether values are numbers: integer, floating or complex (TensorFlow's `DType.is_numeric`)."""
        return self.is_floating or self.is_integer or self.is_complex

    def __eq__(self, other):
        """The same element type; a numpy dtype, numpy or Python type or name stands for its DType, as in TensorFlow's
        `DType.__eq__` (`tensor.dtype == np.int64`)."""
        if isinstance(other, DType):
            return other is self
        if not isinstance(other, (str, type, np.dtype)):
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    __hash__ = object.__hash__

    def __repr__(self):
        return f"tf.{self.name}"

    def __str__(self):
        return f"<dtype: '{self.name}'>"

    def __reduce__(self):
        return as_dtype, (self.name,)


# bfloat16 (TensorFlow's `tf.bfloat16`) has no numpy type of its own: ml_dtypes provides the one TensorFlow
# itself uses (`dtypes.bfloat16.as_numpy_dtype` is `ml_dtypes.bfloat16` there too); its numpy kind is "V".
_BFLOAT16_NP = np.dtype(ml_dtypes.bfloat16)
float16 = DType("float16", np.float16)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
bool_ = DType("bool", np.bool_)
string = DType("string", np.object_)
# Handles: a TensorArray/stack/TensorList travels through the graph as a resource or variant.
resource = DType("resource", None)
variant = DType("variant", None)
half, double = float16, float64

_ALL = [float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, complex64,
        complex128, bool_, string, resource, variant]
_BY_NAME = {d.name: d for d in _ALL}
_BY_NP = {np.dtype(d.as_numpy_dtype): d for d in _ALL if d.as_numpy_dtype not in (None, np.object_)}


def _not_a_dtype(value):
    return TypeError(f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.")


def as_dtype(value):
    """A DType from a DType, a name, a numpy dtype or a Python type."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise _not_a_dtype(value)
    if value is float:
        return float32
    if value is int:
        return int32
    if value is bool:
        return bool_
    if value is complex:
        return complex128
    try:
        npd = np.dtype(value)
    except TypeError:
        raise _not_a_dtype(value) from None
    if npd in _BY_NP:
        return _BY_NP[npd]
    raise _not_a_dtype(value)


def as_bytes_value(value):
    """A string tensor's value as TensorFlow holds it: bytes (str is encoded as UTF-8), nested lists
    as an object array of bytes."""
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return bytes(value)  # np.bytes_ too: TensorFlow hands back plain bytes
    if isinstance(value, (list, tuple)):
        return [as_bytes_value(v) for v in value]
    if isinstance(value, np.ndarray) and value.dtype.kind in "OU":
        return np.vectorize(lambda v: v.encode() if isinstance(v, str) else v, otypes=[object])(value)
    return value
