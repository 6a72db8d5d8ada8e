"""Array ops: constants, placeholders, identities, shapes and reshaping, fills, casts, `range`, `where`,
`tile`; each with its numpy kernel (stacking is in array_ops_stack.py, indexing in slicing_ops.py).

Every op is registered once (`register_op`) with its shape/dtype inference and kernel; the
Python wrappers below build nodes through `apply_op`, so names follow TensorFlow's scheme.
"""
import builtins

import numpy as np

from ..framework import dtypes, errors, op_kernel_context
from ..framework.op_def_library import apply_op
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph, register_tensor_conversion_function
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape, as_shape, broadcast_shapes
from ..framework.tensor_util import (
    check_numpy_strings,
    check_value_fits,
    constant_value,
    constant_value_as_shape,
    infer_dtype,
)

# ---------------------------------------------------------------------------------------------
# helpers shared by shape functions


def _in(op, i):
    return op._inputs[i]


def _const_value(t):
    """The value of `t` when it is known at graph-build time (tensor_util.constant_value)."""
    return constant_value(t)


def _partial_shape_value(t):
    """The dims that a 1-D shape tensor `t` holds, as far as they are known at build time (None for
    an unknown or -1 dim), or None when even its length is unknown (tensor_util.constant_value_as_shape)."""
    shape = constant_value_as_shape(t)
    return None if shape.ndims is None else shape.as_list()


def _same(op):
    x = _in(op, 0)
    return [(x.dtype, x.shape)]


def _as_value(value):
    """Kernels return numpy scalars for rank 0 (like TF's fetched scalars), arrays otherwise."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


# ---------------------------------------------------------------------------------------------
# Const, Placeholder, Identity and friends

register_op("Const", lambda op: [(op.get_attr("dtype"), TensorShape(np.shape(op.get_attr("value"))))],
            lambda op: (lambda v: (lambda: v))(op.get_attr("value")))


def constant(value, dtype=None, shape=None, name="Const"):
    """A Const op holding `value` (converted with TensorFlow's dtype rules)."""
    if isinstance(value, Tensor):
        raise TypeError(f"constant() expects a Python or numpy value, got the Tensor {value.name}")
    if value is None:
        raise ValueError("None values not supported.")
    g = get_default_graph()
    dtype = dtypes.as_dtype(dtype) if dtype is not None else infer_dtype(value, g.dtype_rules)
    if isinstance(value, np.ndarray | np.generic):
        if dtype == dtypes.string:
            check_numpy_strings(value)
            value = dtypes.as_bytes_value(np.asarray(value, dtype=object))  # TensorFlow's strings are bytes
        arr = np.asarray(value.astype(dtype.as_numpy_dtype))  # TensorFlow casts numpy values: 1.5 -> int32 1
    else:
        check_value_fits(value, dtype)  # before anything is converted: 3 is no string, "3" no int32
        if dtype == dtypes.string:
            value = dtypes.as_bytes_value(value)
        arr = np.asarray(value, dtype=dtype.as_numpy_dtype)
    if shape is not None:
        shape = list(shape)
        if arr.size == 1 and int(np.prod(shape)) != 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        else:
            if arr.size != int(np.prod(shape)):
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {arr.shape}.")
            arr = arr.reshape(shape)
    arr = _as_value(arr.copy())
    return g.create_op("Const", [], {"value": arr, "dtype": dtype}, name=name).outputs[0]


def _constant_tensor_conversion_function(value, dtype=None, name=None):
    """Any other Python or numpy value becomes a Const (TensorFlow's
    `framework/constant_tensor_conversion.py`, registered for `object` at priority 200)."""
    return constant(value, dtype=dtype, name=name or "Const")


register_tensor_conversion_function(object, _constant_tensor_conversion_function, priority=200)


register_op("Placeholder", lambda op: [(op.get_attr("dtype"), op.get_attr("shape"))], None)
register_op("PlaceholderWithDefault", lambda op: [(_in(op, 0).dtype, op.get_attr("shape"))],
            lambda op: lambda x: x)


def placeholder(dtype, shape=None, name=None):
    """A value fed at `Session.run` time; the feed's dtype and shape are checked against these."""
    g = get_default_graph()
    try:
        dtype = dtypes.as_dtype(dtype)
    except TypeError:  # TensorFlow's op_def_library check of a `type` attr
        raise TypeError(f"Expected DataType for argument 'dtype' not {dtype!r}.") from None
    return g.create_op("Placeholder", [], {"dtype": dtype, "shape": as_shape(shape)},
                       name=name or "Placeholder").outputs[0]


def placeholder_with_default(input, shape, name=None):
    """`tf.compat.v1.placeholder_with_default`: `input` unless the run feeds this tensor, with the (possibly less
    specific) static `shape`."""
    return apply_op("PlaceholderWithDefault", [("input", input)], {"shape": as_shape(shape)}, name=name)\
        .outputs[0]


register_op("Identity", _same, lambda op: lambda x: x)
register_op("StopGradient", _same, lambda op: lambda x: x)
register_op("NoOp", lambda op: [], lambda op: lambda *a: None)


def identity(input, name=None):
    """`tf.identity`: an Identity op, the node control flow hangs things on (pivots, control dependencies, fetching a
    cond output); a TensorArray makes an Identity of its flow instead."""
    if hasattr(input, "_as_identity"):
        return input._as_identity(name)
    return apply_op("Identity", [("input", input)], name=name, default_name="Identity").outputs[0]


def stop_gradient(input, name=None):
    """`tf.stop_gradient`: the value unchanged, with no gradient through it (`gradients()` treats the op as a
    constant)."""
    return apply_op("StopGradient", [("input", input)], name=name, default_name="StopGradient").outputs[0]


def no_op(name=None):
    """`tf.no_op`: a NoOp, something to hang control dependencies on."""
    return get_default_graph().create_op("NoOp", [], name=name or "NoOp")


# ---------------------------------------------------------------------------------------------
# shapes


def _shape_out(op):
    return [(op.get_attr("out_type"), TensorShape([_in(op, 0).shape.ndims]))]


register_op("Shape", _shape_out,
            lambda op: (lambda dt: lambda x: np.array(np.shape(x), dtype=dt))(
                op.get_attr("out_type").as_numpy_dtype))
register_op("Size", lambda op: [(op.get_attr("out_type"), TensorShape([]))],
            lambda op: (lambda dt: lambda x: dt(np.size(x)))(op.get_attr("out_type").as_numpy_dtype))
register_op("Rank", lambda op: [(dtypes.int32, TensorShape([]))], lambda op: lambda x: np.int32(np.ndim(x)))


def shape(input, name=None, out_type=dtypes.int32):
    """`tf.shape`: the dynamic shape as a tensor, for when the static shape is not known at build time."""
    return apply_op("Shape", [("input", input)], {"out_type": dtypes.as_dtype(out_type)}, name=name,
                    default_name="Shape").outputs[0]


def size(input, name=None, out_type=dtypes.int32):
    """`tf.size`: the number of elements as a tensor."""
    return apply_op("Size", [("input", input)], {"out_type": dtypes.as_dtype(out_type)}, name=name,
                    default_name="Size").outputs[0]


def rank(input, name=None):
    """`tf.rank`: the number of dimensions as a tensor."""
    return apply_op("Rank", [("input", input)], name=name, default_name="Rank").outputs[0]


def _reshape_infer(op):
    """TensorFlow's Reshape shape function. With at most one unknown dim on each side (a -1 is
    unknown): known sizes must agree, a fully known side must be divisible by the other's known
    part, and a fully known input gives the output's missing dim."""
    x, s = _in(op, 0), _in(op, 1)
    out = _partial_shape_value(s)
    if out is None or x.shape.ndims is None:
        return [(x.dtype, TensorShape(out))]
    dims = x.shape.as_list()
    known_in = int(np.prod([d for d in dims if d is not None]))
    known_out = int(np.prod([d for d in out if d is not None]))
    unknown_in, unknown_out = dims.count(None), out.count(None)
    if unknown_in > 1 or unknown_out > 1:
        return [(x.dtype, TensorShape(out))]
    if not unknown_in and not unknown_out and known_in != known_out:
        raise ValueError(f"Cannot reshape a tensor with {known_in} elements to shape [{','.join(map(str, out))}] "
                         f"({known_out} elements) for '{op.name}' (op: 'Reshape') with input shapes: {x.shape}, "
                         f"{s.shape}.")
    if not unknown_in and unknown_out and known_out > 0:
        if known_in % known_out:
            raise ValueError(f"Dimension size must be evenly divisible by {known_out} but is {known_in} for "
                             f"'{op.name}' (op: 'Reshape') with input shapes: {x.shape}, {s.shape}.")
        out = [known_in // known_out if d is None else d for d in out]
    if unknown_in and not unknown_out and known_in and known_out % known_in:
        raise ValueError(f"Dimension size must be evenly divisible by {known_in} but is {known_out} for "
                         f"'{op.name}' (op: 'Reshape') with input shapes: {x.shape}, {s.shape}.")
    return [(x.dtype, TensorShape(out))]


register_op("Reshape", _reshape_infer,
            lambda op: lambda x, s: _as_value(op_kernel_context.module_of(x).reshape(
                x, s if type(s) is np.ndarray else tuple(op_kernel_context.on_host(s).tolist()))))


def reshape(tensor, shape, name=None):
    """`tf.reshape`; one dimension of `shape` may be -1."""
    return apply_op("Reshape", [("tensor", tensor), ("shape", shape)], name=name, default_name="Reshape",
                    dtypes={"shape": dtypes.int32}).outputs[0]


def _expand_infer(op):
    x = _in(op, 0)
    axis = _const_value(_in(op, 1))
    if x.shape.ndims is None or axis is None:
        return [(x.dtype, TensorShape(None))]
    dims = x.shape.as_list()
    a = int(axis)
    a = a if a >= 0 else len(dims) + 1 + a
    return [(x.dtype, TensorShape(dims[:a] + [1] + dims[a:]))]


register_op("ExpandDims", _expand_infer, lambda op: lambda x, a: np.expand_dims(x, int(a)))


def expand_dims(input, axis, name=None):
    """`tf.expand_dims`: a dimension of size 1 inserted at `axis`."""
    return apply_op("ExpandDims", [("input", input), ("dim", axis)], name=name, default_name="ExpandDims",
                    dtypes={"dim": dtypes.int32}).outputs[0]


def _squeeze_infer(op):
    """TensorFlow's rules: a named dim must be 1 (or unknown); with no dims named, an unknown dim may
    or may not be squeezed away, so the result has unknown rank."""
    x = _in(op, 0)
    axes = op.get_attr("squeeze_dims")
    if x.shape.ndims is None:
        return [(x.dtype, TensorShape(None))]
    dims = x.shape.as_list()
    n = len(dims)
    for k, a in enumerate(axes):
        if not -n <= a < n:
            raise ValueError(f"squeeze_dims[{k}] not in [{-n},{n}). for '{op.name}' (op: 'Squeeze') with input "
                             f"shapes: {x.shape}.")
    axes = [a % n for a in axes]
    if not axes and None in dims:
        return [(x.dtype, TensorShape(None))]
    for a in axes:
        if dims[a] is not None and dims[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got {dims[a]} for '{op.name}' "
                             f"(op: 'Squeeze') with input shapes: {x.shape}.")
    out = [d for i, d in enumerate(dims) if not ((i in axes) if axes else d == 1)]
    return [(x.dtype, TensorShape(out))]


register_op("Squeeze", _squeeze_infer,
            lambda op: (lambda ax: lambda x: np.squeeze(x, axis=ax) if ax else np.squeeze(x))(
                tuple(op.get_attr("squeeze_dims")) or None))


def squeeze(input, axis=None, name=None):
    """`tf.squeeze`: dimensions of size 1 removed (all, or those in `axis`)."""
    axis = [] if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    return apply_op("Squeeze", [("input", input)], {"squeeze_dims": axis}, name=name,
                    default_name="Squeeze").outputs[0]


def _transpose_infer(op):
    x = _in(op, 0)
    perm = _const_value(_in(op, 1))
    if x.shape.ndims is None or perm is None:
        return [(x.dtype, TensorShape(None if x.shape.ndims is None else [None] * x.shape.ndims))]
    return [(x.dtype, TensorShape([x.shape[int(p)] for p in perm]))]


register_op("Transpose", _transpose_infer, lambda op: lambda x, p: np.transpose(x, p))


def transpose(a, perm=None, name="transpose"):
    """`tf.transpose`: dimensions permuted by `perm`, reversed when it is None (which needs a known rank)."""
    with get_default_graph().name_scope(name) as scope:
        a = convert_to_tensor(a, name="a")
        if perm is None:
            if a.shape.ndims is None:
                raise ValueError("transpose without perm needs a known rank")
            perm = list(builtins.range(a.shape.ndims))[::-1]
        return apply_op("Transpose", [("x", a), ("perm", perm)], name=scope,
                        dtypes={"perm": dtypes.int32}).outputs[0]


def _fill_infer(op):
    return [(_in(op, 1).dtype, TensorShape(_partial_shape_value(_in(op, 0))))]


register_op("Fill", _fill_infer,
            lambda op: lambda d, v: _as_value(op_kernel_context.device_module().full(
                tuple(op_kernel_context.on_host(d).tolist()), v, dtype=op_kernel_context.dtype_of(v))))


def fill(dims, value, name=None):
    """`tf.fill`: a tensor of shape `dims` holding `value` everywhere."""
    return apply_op("Fill", [("dims", dims), ("value", value)], name=name, default_name="Fill",
                    dtypes={"dims": dtypes.int32}).outputs[0]


def _zeros_or_ones(fill_value, shape, dtype, name):
    dtype = dtypes.as_dtype(dtype)
    if isinstance(shape, Tensor):
        with get_default_graph().name_scope(name) as scope:
            return fill(shape, constant(fill_value, dtype=dtype), name=scope)
    shape = list(shape) if not isinstance(shape, int) else [shape]
    return constant(np.full(shape, fill_value, dtype=dtype.as_numpy_dtype), dtype=dtype, name=name)


def zeros(shape, dtype=dtypes.float32, name=None):
    """TensorFlow's `zeros`: the zero of a string is the empty string."""
    return _zeros_or_ones("" if dtypes.as_dtype(dtype) == dtypes.string else 0, shape, dtype, name or "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """`tf.ones`, built as TensorFlow builds it: a constant when the shape is static, else a Fill."""
    return _zeros_or_ones(1, shape, dtype, name or "ones")


def _zeros_like(x):
    """Zeros of x's shape; for a TensorList (a loop's accumulator), a list of zeros of its length."""
    if hasattr(x, "zeros_like"):  # a TensorList (TensorFlow's ZerosLike of a variant: TensorListZerosLike)
        return x.zeros_like()
    return _as_value(np.zeros_like(x))


register_op("ZerosLike", _same, lambda op: _zeros_like)
register_op("OnesLike", _same, lambda op: lambda x: _as_value(np.ones_like(x)))


def zeros_like(tensor, dtype=None, name=None):
    """`tf.zeros_like`: a ZerosLike op (the gradient of an unused output), cast when `dtype` is given."""
    t = apply_op("ZerosLike", [("x", tensor)], name=name, default_name="zeros_like").outputs[0]
    return t if dtype is None or dtypes.as_dtype(dtype) == t.dtype else cast(t, dtype)


def ones_like(tensor, dtype=None, name=None):
    """`tf.ones_like`: a OnesLike op (the seed `gradients()` starts from), cast when `dtype` is given."""
    t = apply_op("OnesLike", [("x", tensor)], name=name, default_name="ones_like").outputs[0]
    return t if dtype is None or dtypes.as_dtype(dtype) == t.dtype else cast(t, dtype)


def _cast_kernel(op):
    """TensorFlow's CastOp: numbers and bools cast among themselves, a string only to a string; any
    other pair fails when the kernel is made (`Cast int32 to string is not supported`), never a
    number silently held as a "string"."""
    src, dst = _in(op, 0).dtype, op.get_attr("DstT")
    if src != dst and dtypes.string in (src, dst):
        raise errors.UnimplementedError(op, op, f"Cast {src.name} to {dst.name} is not supported")
    dt = dst.as_numpy_dtype
    return lambda x: _as_value(op_kernel_context.device_module().asarray(x).astype(dt))


register_op("Cast", lambda op: [(op.get_attr("DstT"), _in(op, 0).shape)], _cast_kernel)


def cast(x, dtype, name=None):
    """A Cast op; a Tensor that already has `dtype` comes back as it is, before any name is taken."""
    dtype = dtypes.as_dtype(dtype)
    if isinstance(x, Tensor) and x.dtype == dtype:
        return x
    with get_default_graph().name_scope(name or "Cast") as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype == dtype:
            return x
        return apply_op("Cast", [("x", x)], {"SrcT": x.dtype, "DstT": dtype}, name=scope).outputs[0]


def _range_infer(op):
    vals = [_const_value(_in(op, i)) for i in builtins.range(3)]
    dt = _in(op, 0).dtype
    if any(v is None for v in vals):
        return [(dt, TensorShape([None]))]
    return [(dt, TensorShape([len(np.arange(*[v.item() for v in vals]))]))]


register_op("Range", _range_infer, lambda op: lambda start, limit, delta: op_kernel_context.device_module().arange(
    *(op_kernel_context.on_host(v)[()] for v in (start, limit, delta)), dtype=op_kernel_context.dtype_of(start)))


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF's name
    """`tf.range`: start, limit and delta cast to one dtype (the widest of them, as TensorFlow infers it), then a
    Range op."""
    if limit is None:
        start, limit = 0, start
    with get_default_graph().name_scope(name) as scope:
        vals = [start, limit, delta]
        tensors = [v for v in vals if isinstance(v, Tensor)]
        dt = dtypes.as_dtype(dtype) if dtype is not None else (
            tensors[0].dtype if tensors else max((convert_dtype(v) for v in vals), key=_rank_dtype))
        start, limit, delta = (cast(convert_to_tensor(v, name=n, dtype_hint=dt), dt)
                               for v, n in zip(vals, ("start", "limit", "delta")))
        return apply_op("Range", [("start", start), ("limit", limit), ("delta", delta)], name=scope,
                        same_type=("start", "limit", "delta")).outputs[0]


def convert_dtype(v):
    """The dtype a Python value becomes under the default graph's dtype rules (TensorFlow's or numpy's)."""
    return infer_dtype(v, get_default_graph().dtype_rules)


def _rank_dtype(dt):
    return [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64].index(dt) if dt in (
        dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64) else 0


# ---------------------------------------------------------------------------------------------
# where (select)


def _select_v2_infer(op):
    c, x, y = op._inputs
    return [(x.dtype, broadcast_shapes(broadcast_shapes(c.shape, x.shape, op), y.shape, op))]


def _select_infer(op):
    """Select (tf.compat.v1.where) does not broadcast: `t` and `e` have one shape, and `condition` is a
    scalar, that same shape, or a vector along the first dimension."""
    c, x, y = op._inputs
    data = x.shape.merge_with(y.shape)
    if c.shape.ndims is None or data.ndims is None or c.shape.ndims == 0:
        return [(x.dtype, data)]
    if c.shape.ndims == 1 and data.ndims > 1:
        c.shape.merge_with(data[:1])
        return [(x.dtype, data)]
    return [(x.dtype, data.merge_with(c.shape))]


def _select_kernel(op):
    def select(c, x, y):
        xp = op_kernel_context.module_of(x, y)  # int32 values select on the host (HostMemory), the condition with them
        c = op_kernel_context.on_host(c) if xp is np else xp.asarray(c)
        if c.ndim == 1 and np.ndim(x) > 1:  # a vector condition picks whole rows
            c = c.reshape((-1,) + (1,) * (np.ndim(x) - 1))
        return _as_value(np.where(c, x, y))
    return select


register_op("Select", _select_infer, _select_kernel)




register_op("SelectV2", _select_v2_infer, lambda op: lambda c, x, y: _as_value(np.where(c, x, y)))
register_op("Where", lambda op: [(dtypes.int64, TensorShape([None, op._inputs[0].shape.ndims]))],
            lambda op: lambda c: np.argwhere(c).astype(np.int64))


def where(condition, x=None, y=None, name=None):
    """tf.compat.v1.where: the indices of True (a Where op), or a Select op, which does not broadcast."""
    return _where(condition, x, y, name, "Select")


def where_v2(condition, x=None, y=None, name=None):
    """tf.where of TensorFlow 2: as `where`, but a SelectV2, which broadcasts its three inputs."""
    return _where(condition, x, y, name, "SelectV2")


def _where(condition, x, y, name, select_type):
    if x is None and y is None:
        return apply_op("Where", [("condition", condition)], name=name, default_name="Where",
                        dtypes={"condition": dtypes.bool_}).outputs[0]
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return apply_op(select_type, [("condition", condition), ("t", x), ("e", y)], name=name,
                    default_name=select_type, same_type=("t", "e"), dtypes={"condition": dtypes.bool_}).outputs[0]


# ---------------------------------------------------------------------------------------------
# broadcasting

def _broadcast_to_infer(op):
    return [(op._inputs[0].dtype, TensorShape(_partial_shape_value(op._inputs[1])))]


register_op("BroadcastTo", _broadcast_to_infer, lambda op: lambda x, s: np.broadcast_to(x, tuple(s)).copy())


register_op("Tile", lambda op: [(op._inputs[0].dtype, _tile_shape(op))], lambda op: np.tile)


def _tile_shape(op):
    x, multiples = op._inputs
    m = _const_value(multiples)
    if m is None or x.shape.ndims is None:
        return TensorShape(None if x.shape.ndims is None else [None] * x.shape.ndims)
    return TensorShape([None if d is None else d * int(k) for d, k in zip(x.shape.as_list(), m)])


def tile(input, multiples, name=None):
    """`tf.tile`: the tensor repeated `multiples` times along each dimension."""
    return apply_op("Tile", [("input", input), ("multiples", multiples)], name=name, default_name="Tile",
                    dtypes={"multiples": dtypes.int32}).outputs[0]


def broadcast_to(x, shape, name=None):
    """`tf.broadcast_to`: the tensor broadcast to `shape` by numpy's rules."""
    return apply_op("BroadcastTo", [("input", x), ("shape", shape)], name=name, default_name="BroadcastTo",
                    dtypes={"shape": dtypes.int32}).outputs[0]


newaxis = None
