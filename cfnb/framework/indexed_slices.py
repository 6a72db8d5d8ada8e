"""`tf.IndexedSlices`: a sparse gradient, rows `indices` of a dense tensor of shape `dense_shape`.

The gradient of `gather(params, indices)` touches only the gathered rows, so TensorFlow returns it as
`IndexedSlices(values, indices, dense_shape)` instead of a dense tensor of zeros and a few rows;
gradients of several gathers aggregate by concatenating their slices. Where a dense tensor is needed
(an op's input, a sum with a dense gradient) it converts to one: rows with the same index add up
(UnsortedSegmentSum, registered in gradients/indexed_slices_util.py).
"""
import collections

from .tensor_shape import TensorShape

# What a Session gives back for a fetched IndexedSlices: its parts' values (TensorFlow's `IndexedSlicesValue`).
IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])


class IndexedSlices:
    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    name = property(lambda self: self._values.name)
    op = property(lambda self: self._values.op)
    graph = property(lambda self: self._values.graph)
    device = property(lambda self: self._values.device)

    @property
    def shape(self):
        """The dense shape as far as it is known when the graph is built."""
        known = _known_shape(self._dense_shape)
        if known is not None:
            return known
        return TensorShape(None) if self._values.shape.ndims is None else \
            TensorShape([None]).concatenate(self._values.shape[1:])

    def _to_components(self):
        """The tensors that carry it through control flow (TensorFlow's `IndexedSlicesSpec._to_components`):
        values, indices and, when it has one, dense_shape."""
        return [self._values, self._indices] + ([] if self._dense_shape is None else [self._dense_shape])

    def _from_components(self, components):
        """An IndexedSlices like this one made of `components` (in `_to_components`' order)."""
        return IndexedSlices(*components)

    def _component_shapes(self, dense_shape):
        """The shape of each component, given the dense shape a loop's shape invariant states (TensorFlow's
        `IndexedSlicesSpec._component_specs`): values [None, *rest], indices [None], dense_shape [rank]."""
        dense_shape = TensorShape(dense_shape)
        rows = TensorShape([None])
        values = rows.concatenate(dense_shape[1:]) if dense_shape.ndims is not None else TensorShape(None)
        return [values, rows, TensorShape([dense_shape.ndims])][:len(self._to_components())]

    def __neg__(self):
        # `-values` is the Neg op the op layer installs as Tensor.__neg__ (TensorFlow's IndexedSlices.__neg__).
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!r}"
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}{shape})"


def _known_shape(dense_shape):
    """The dense shape a Const or the Shape of a fully known tensor states, else None."""
    if dense_shape is None:
        return None
    op = dense_shape.op
    if op.type == "Const":
        return TensorShape([int(d) for d in op.get_attr("value")])
    if op.type == "Shape" and op.inputs[0].shape.is_fully_defined():
        return op.inputs[0].shape
    return None
