"""`tf.TensorSpec`: the shape and dtype a tensor is expected to have.

cfnb uses it where tf.compat.v1 programs do in control flow: as a `shape_invariants` entry of
`while_loop` (`as_shape` reads its `shape`), and as a description to compare tensors with.
"""
from . import dtypes
from .tensor_shape import TensorShape, as_shape


class TensorSpec:
    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = as_shape(shape) if not isinstance(shape, TensorShape) else shape
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec (shape, dtype, name) of an existing tensor (TensorFlow's `TensorSpec.from_tensor`)."""
        return cls(tensor.shape, tensor.dtype, name or tensor.op.name)

    def is_compatible_with(self, spec_or_tensor):
        """Same dtype and a compatible shape (TensorSpec.is_compatible_with)."""
        return self._dtype == spec_or_tensor.dtype and self._shape.is_compatible_with(spec_or_tensor.shape)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self._shape == other._shape and self._dtype == other._dtype
                and self._name == other._name)

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"
