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
from ..ops import array_ops_stack, math_ops


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

