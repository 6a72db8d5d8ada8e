"""IndexedSlices in gradients: densifying them, aggregating them (TensorFlow's backprop_util).

`to_dense` is the conversion every op input applies to an IndexedSlices (TensorFlow's
`_indexed_slices_to_tensor`): an UnsortedSegmentSum of the values into `dense_shape[0]` rows, so rows
with the same index add up. `aggregate` is `AggregateIndexedSlicesGradients`: with a dense gradient
among them everything is densified and added; slices alone are concatenated into one IndexedSlices.
"""
from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices
from ..framework.op_def_library import apply_op
from ..framework.ops import Tensor, register_tensor_conversion_function
from ..ops import array_ops, array_ops_stack, control_flow_ops, math_ops


def to_dense(value, dtype=None, name=None):
    """An IndexedSlices (a gather's gradient) as a dense tensor: an UnsortedSegmentSum of its rows, summing repeated
    indices, as TensorFlow's `_IndexedSlicesToTensor` does."""
    if dtype is not None and dtypes.as_dtype(dtype) != value.dtype:
        raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for IndexedSlices with "
                         f"dtype {value.dtype.name}")
    if value.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: {value.name}")
    rows = value.dense_shape[0]
    dense = apply_op("UnsortedSegmentSum", [("data", value.values), ("segment_ids", value.indices),
                                            ("num_segments", rows)], name=name,
                     default_name="UnsortedSegmentSum", dtypes={"num_segments": value.dense_shape.dtype}).outputs[0]
    dense.set_shape(value.shape)
    return dense


register_tensor_conversion_function(IndexedSlices, to_dense)


def aggregate(grads):
    """The sum of a list of gradients, some of them IndexedSlices."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    if any(isinstance(g, Tensor) for g in grads):
        return math_ops.add_n(grads)
    return IndexedSlices(array_ops_stack.concat([g.values for g in grads], 0),
                         array_ops_stack.concat([g.indices for g in grads], 0), grads[0].dense_shape)


# --- Switch and Merge of IndexedSlices (control_flow_ops.switch / merge on composite values) ----------
def as_indexed_slices(t):
    """A dense tensor as IndexedSlices of all its rows (TensorFlow's `_as_indexed_slices`)."""
    if isinstance(t, IndexedSlices):
        return t
    shape = array_ops.shape(t)
    return IndexedSlices(t, array_ops.range(0, shape[0]), shape)


def switch(data, pred, name=None):
    """`(false, true)`: an IndexedSlices goes through a Switch part by part, as TensorFlow's switch does."""
    if not isinstance(data, IndexedSlices):
        return control_flow_ops.switch(data, pred, name=name)
    values = control_flow_ops.switch(data.values, pred, name=name)
    indices = control_flow_ops.switch(data.indices, pred, name="indices")
    shapes = control_flow_ops.switch(data.dense_shape, pred, name="dense_shape") if data.dense_shape is not None \
        else (None, None)
    return tuple(IndexedSlices(v, i, s) for v, i, s in zip(values, indices, shapes))


def merge(inputs, name=None):
    """`(output, value_index)`: with an IndexedSlices among the inputs every input becomes one and each
    part is merged, as TensorFlow's merge does."""
    if not any(isinstance(t, IndexedSlices) for t in inputs):
        return control_flow_ops.merge(inputs, name=name)
    inputs = [as_indexed_slices(t) for t in inputs]
    values, chosen = control_flow_ops.merge([t.values for t in inputs], name=name)
    indices, _ = control_flow_ops.merge([t.indices for t in inputs], name="indices")
    shape = None
    if all(t.dense_shape is not None for t in inputs):
        shape, _ = control_flow_ops.merge([t.dense_shape for t in inputs], name="dense_shape")
    return IndexedSlices(values, indices, shape), chosen
