"""Element types, mirroring `tf.dtypes`: a small fixed set, each tied to a numpy dtype.

TensorFlow's rule for Python literals is kept: a Python float becomes float32 and a Python int
int32 (int64 when it does not fit), so `import cfnb as tf` programs produce the same dtypes.
"""
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
        return self

    @property
    def is_floating(self):
        return self._np is not None and self._np.kind == "f"

    @property
    def is_integer(self):
        return self._np is not None and self._np.kind in "iu"

    @property
    def is_bool(self):
        return self._np is not None and self._np.kind == "b"

    @property
    def is_numeric(self):
        return self.is_floating or self.is_integer

    def __repr__(self):
        return f"tf.{self.name}"

    def __str__(self):
        return f"<dtype: '{self.name}'>"

    def __reduce__(self):
        return as_dtype, (self.name,)


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
bool_ = DType("bool", np.bool_)
string = DType("string", np.object_)
# Handles: a TensorArray/stack/TensorList travels through the graph as a resource or variant.
resource = DType("resource", None)
variant = DType("variant", None)
half, double = float16, float64

_ALL = [float16, float32, float64, int32, int64, bool_, string, resource, variant]
_BY_NAME = {d.name: d for d in _ALL}
_BY_NP = {np.dtype(d.as_numpy_dtype): d for d in _ALL if d.as_numpy_dtype not in (None, np.object_)}


def as_dtype(value):
    """A DType from a DType, a name, a numpy dtype or a Python type."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError(f"Cannot convert value {value!r} to a cfnb DType.")
    if value is float:
        return float32
    if value is int:
        return int32
    if value is bool:
        return bool_
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"Cannot convert value {value!r} to a cfnb DType.") from None
    if npd in _BY_NP:
        return _BY_NP[npd]
    raise TypeError(f"Cannot convert value {value!r} to a cfnb DType.")
