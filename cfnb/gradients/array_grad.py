"""Gradients of array ops (TensorFlow's array_grad.py), and of the ops that only pass values on."""
import numpy as np

from ..framework import dtypes, op_kernel_context
from ..framework.indexed_slices import IndexedSlices
from ..framework.op_def_library import apply_op
from ..framework.registry import RegisterGradient, register_op
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, array_ops_stack, math_ops, slicing_ops
from . import static_shapes
from .math_grad import _reduce_to


@RegisterGradient("Identity")
@RegisterGradient("PlaceholderWithDefault")
@RegisterGradient("ReadVariableOp")
def _identity_grad(op, grad):
    return [grad] + [None] * (len(op.inputs) - 1)


@RegisterGradient("Print")
def _print_grad(op, grad):
    return [grad] + [None] * (len(op.inputs) - 1)


@RegisterGradient("Reshape")
@RegisterGradient("ExpandDims")
def _reshape_grad(op, grad):
    return array_ops.reshape(grad, static_shapes.shape(op.inputs[0])), None


@RegisterGradient("Squeeze")
def _squeeze_grad(op, grad):
    return array_ops.reshape(grad, static_shapes.shape(op.inputs[0]))


@RegisterGradient("Transpose")
def _transpose_grad(op, grad):
    """Transpose back: by the inverse permutation, computed now when the permutation is a constant, else by an
    InvertPermutation op (array_grad._TransposeGrad)."""
    perm = array_ops._const_value(op.inputs[1])
    if perm is None:
        inverse = apply_op("InvertPermutation", [("x", op.inputs[1])]).outputs[0]
        return array_ops.transpose(grad, inverse), None
    return array_ops.transpose(grad, list(np.argsort(perm))), None


@RegisterGradient("Pack")
def _pack_grad(op, grad):
    return array_ops_stack.unstack(grad, num=op.get_attr("N"), axis=op.get_attr("axis"))


@RegisterGradient("Unpack")
def _unpack_grad(op, *grads):
    grads = [g if g is not None else static_shapes.zeros_like(t) for g, t in zip(grads, op.outputs)]
    return array_ops_stack.stack(grads, axis=op.get_attr("axis"))


def _split_v_infer(op):
    x = op._inputs[0]
    sizes = op.get_attr("sizes")
    axis = op.get_attr("axis")
    out = []
    for n in sizes:
        dims = x.shape.as_list() if x.shape.ndims is not None else None
        if dims is not None:
            dims[axis] = n
        out.append((x.dtype, TensorShape(dims)))
    return out


def _split_v_kernel(op):
    sizes, axis = op.get_attr("sizes"), op.get_attr("axis")
    bounds = np.cumsum(sizes)[:-1].tolist()
    return lambda x: tuple(np.split(op_kernel_context.device_module().asarray(x), bounds, axis=axis))


register_op("SplitV", _split_v_infer, _split_v_kernel, multi_output=True)


@RegisterGradient("SplitV")
def _split_v_grad(op, *grads):
    """The pieces' gradients concatenated back along the split axis (array_grad._SplitVGrad); cfnb's SplitV
    holds sizes and axis as attrs, TensorFlow's (an imported graph's) as inputs 1 and 2."""
    if len(op.inputs) == 3:
        return [array_ops_stack.concat(list(grads), op.inputs[2]), None, None]
    return array_ops_stack.concat(list(grads), op.get_attr("axis"))


@RegisterGradient("ConcatV2")
def _concat_grad(op, grad):
    values, axis_t = op.inputs[:-1], op.inputs[-1]
    axis = array_ops._const_value(axis_t)
    if axis is None or values[0].shape.ndims is None:
        return _concat_grad_by_offsets(op, grad)
    axis = int(axis) % values[0].shape.ndims
    sizes = [v.shape[axis] for v in values]
    if any(s is None for s in sizes):
        # Sizes known only at run time (a loop variable growing under a shape invariant).
        shapes = [array_ops.shape(v) for v in values]
        parts = apply_op("ConcatGradSplit", [("grad", grad)] + [(f"shape_{i}", s) for i, s in enumerate(shapes)],
                         {"axis": axis}).outputs
        for part, v in zip(parts, values):
            part.set_shape(v.shape)
        return list(parts) + [None]
    parts = apply_op("SplitV", [("value", grad)], {"sizes": sizes, "axis": axis}).outputs
    return list(parts) + [None]


def _concat_grad_by_offsets(op, grad):
    """An axis (or rank) known only at run time: TensorFlow's own construction, a ConcatOffset of the inputs'
    shapes and one Slice of the gradient per input (array_grad._ConcatGradHelper)."""
    values, axis_t = op.inputs[:-1], op.inputs[-1]
    shapes = [array_ops.shape(v) for v in values]
    offsets = apply_op("ConcatOffset", [("concat_dim", axis_t)] + [(f"shape_{i}", s) for i, s in enumerate(shapes)],
                       {"N": len(values)}).outputs
    parts = [slicing_ops.slice(grad, begin, size) for begin, size in zip(offsets, shapes)]
    for part, v in zip(parts, values):
        part.set_shape(v.shape)
    return parts + [None]


def _unsorted_segment_sum_kernel(op):
    def segment_sum(data, ids, num):
        xp = op_kernel_context.device_module()
        data, ids = xp.asarray(data), np.asarray(ids)
        out = xp.zeros((int(num),) + data.shape[ids.ndim:], dtype=data.dtype)
        keep = ids >= 0  # a negative id drops its row, as TensorFlow's kernel does
        np.add.at(out, ids[keep], data[keep])
        return out
    return segment_sum


register_op("UnsortedSegmentSum", lambda op: [(op._inputs[0].dtype, TensorShape(None))], _unsorted_segment_sum_kernel)


@RegisterGradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op, grad):
    """Each row of the data gets the gradient of the segment it was added to, a row with a negative id (dropped
    by the sum) zeros (math_grad._UnsortedSegmentSumGrad and its _GatherDropNegatives)."""
    ids = op.inputs[1]
    gathered = slicing_ops.gather(grad, math_ops.maximum(ids, array_ops.zeros_like(ids)))
    extra = array_ops.rank(gathered) - array_ops.rank(ids)
    mask_shape = array_ops_stack.concat([array_ops.shape(ids), array_ops.fill(array_ops.expand_dims(extra, 0), 1)],
                                        0)
    keep = array_ops.reshape(math_ops.greater_equal(ids, array_ops.zeros_like(ids)), mask_shape)
    return array_ops.where_v2(keep, gathered, array_ops.zeros_like(gathered)), None, None


@RegisterGradient("GatherV2")
def _gather_grad(op, grad):
    """TensorFlow's _GatherV2Grad: along axis 0 the gathered rows as IndexedSlices (one row per index); along
    another axis that axis is moved to the front, the gradient summed per index (UnsortedSegmentSum into as many
    rows as the axis has, read at run time when it is not static) and moved back."""
    params, indices, axis_t = op.inputs
    axis = array_ops._const_value(axis_t)
    rank = params.shape.ndims
    if axis is None or (rank is None and int(axis) != 0):
        raise NotImplementedError(f"Gradient of {op.name}: cfnb needs the gather axis, and the rank of params for an "
                                  f"axis other than 0, when the graph is built (TensorFlow computes them at run time).")
    axis = int(axis) % rank if rank else int(axis)
    params_shape = static_shapes.shape(params)
    if axis == 0:
        size = array_ops.expand_dims(static_shapes.size(indices), 0)
        values = array_ops.reshape(grad, array_ops_stack.concat([size, params_shape[1:]], 0))
        values.set_shape(TensorShape([None]).concatenate(params.shape[1:]) if rank is not None else TensorShape(None))
        return IndexedSlices(values, array_ops.reshape(indices, size), params_shape), None, None
    k = indices.shape.ndims
    if k is None:
        raise NotImplementedError(f"Gradient of {op.name}: cfnb needs the rank of the indices when the graph is "
                                  f"built.")
    n = params.shape[axis] if params.shape[axis] is not None else params_shape[axis]
    # Move the gathered axes to the front, segment-sum, move back.
    perm = list(range(axis, axis + k)) + list(range(axis)) + list(range(axis + k, rank - 1 + k))
    moved = array_ops.transpose(grad, perm)
    g = apply_op("UnsortedSegmentSum", [("data", moved), ("segment_ids", indices), ("num_segments", n)],
                 dtypes={"num_segments": dtypes.int32}).outputs[0]
    back = list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank))
    out = array_ops.transpose(g, back)
    out.set_shape(params.shape)
    return out, None, None


def _strided_slice_grad_kernel(op):
    spec, slots = op.get_attr("spec"), op.get_attr("tensor_slots")

    def strided_slice_grad(shape, *rest):
        dynamic, dy = rest[:-1], rest[-1]
        xp = op_kernel_context.device_module()
        out = xp.zeros(tuple(int(d) for d in shape), dtype=op_kernel_context.dtype_of(dy))
        index = tuple(slicing_ops.slice_key(spec, slots, dynamic))
        out[index] += xp.asarray(dy).reshape(out[index].shape)
        return out
    return strided_slice_grad


register_op("StridedSliceGrad", lambda op: [(op._inputs[-1].dtype, TensorShape(None))], _strided_slice_grad_kernel)


@RegisterGradient("StridedSlice")
def _strided_slice_grad(op, grad):
    x = op.inputs[0]
    dynamic = list(op.inputs[1:])
    g = apply_op("StridedSliceGrad", [("shape", static_shapes.shape(x))] + [(f"index_{i}", d) for i, d in
                                                                       enumerate(dynamic)] + [("dy", grad)],
                 {"spec": op.get_attr("spec"), "tensor_slots": op.get_attr("tensor_slots")}).outputs[0]
    g.set_shape(x.shape)
    return [g] + [None] * len(dynamic)


@RegisterGradient("Select")
def _select_grad(op, grad):
    """Select (tf.compat.v1.where) does not broadcast, so there is nothing to sum back."""
    c, x = op.inputs[0], op.inputs[1]
    zeros = static_shapes.zeros_like(x)
    return None, array_ops.where(c, grad, zeros), array_ops.where(c, zeros, grad)


@RegisterGradient("SelectV2")
def _select_v2_grad(op, grad):
    c, x, y = op.inputs
    zeros = array_ops.zeros_like(grad)
    return (None, _reduce_to(array_ops.where_v2(c, grad, zeros), x),
            _reduce_to(array_ops.where_v2(c, zeros, grad), y))


@RegisterGradient("Fill")
def _fill_grad(_, grad):
    return None, math_ops.reduce_sum(grad)


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op, grad):
    return _reduce_to(grad, op.inputs[0]), None


@RegisterGradient("StridedSliceGrad")
def _strided_slice_grad_grad(op, grad):
    """The gradient of a slice's gradient is the same slice of the incoming gradient."""
    dynamic = list(op.inputs[1:-1])
    sliced = apply_op("StridedSlice", [("input", grad)] + [(f"index_{i}", d) for i, d in enumerate(dynamic)],
                      {"spec": op.get_attr("spec"), "tensor_slots": op.get_attr("tensor_slots")}).outputs[0]
    return [None] * (len(op.inputs) - 1) + [sliced]


def _concat_offsets_kernel(op):
    axis = op.get_attr("axis")

    def concat_split(grad, *shapes):
        sizes = [int(s[axis]) for s in shapes]
        bounds = np.cumsum(sizes)[:-1].tolist()
        return tuple(np.split(op_kernel_context.device_module().asarray(grad), bounds, axis=axis))
    return concat_split


# TensorFlow builds this from ConcatOffset and Slice; one op that splits by the inputs' run-time
# sizes does the same when the sizes are only known when the graph runs.
register_op("ConcatGradSplit", lambda op: [(op._inputs[0].dtype, TensorShape(None)) for _ in op._inputs[1:]],
            _concat_offsets_kernel, multi_output=True)


@RegisterGradient("ConcatGradSplit")
def _concat_grad_split_grad(op, *grads):
    """ConcatGradSplit is linear in the gradient it splits: its own gradient concatenates the pieces' gradients
    back (TensorFlow's Slices have Pad as theirs). Second derivatives through a loop that grows a tensor by
    concat pass here."""
    axis = op.get_attr("axis")
    grads = [g if g is not None else static_shapes.zeros_like(t) for g, t in zip(grads, op.outputs)]
    return [array_ops_stack.concat(grads, axis)] + [None] * (len(op.inputs) - 1)




@RegisterGradient("Tile")
def _tile_grad(op, grad):
    """Sum the tiled copies: view the gradient as [m0, d0, m1, d1, ...] and sum the m axes (array_grad._TileGrad;
    the interleaved shape is built by ops when the multiples or the input's shape are known only at run time)."""
    x, multiples = op.inputs
    m = array_ops._const_value(multiples)
    if m is None or not x.shape.is_fully_defined():
        pairs = array_ops_stack.stack([array_ops.cast(multiples, dtypes.int32), array_ops.shape(x)])
        split = array_ops.reshape(array_ops.transpose(pairs, [1, 0]), [-1])
        axes = array_ops.range(0, array_ops.size(split), 2)
        summed = math_ops.reduce_sum(array_ops.reshape(grad, split), axes)
        summed.set_shape(x.shape)
        return summed, None
    dims = x.shape.as_list()
    split = [v for pair in zip([int(k) for k in m], dims) for v in pair]
    summed = math_ops.reduce_sum(array_ops.reshape(grad, split), list(range(0, 2 * len(dims), 2)))
    return array_ops.reshape(summed, dims), None
