"""numpy's functions on tensors, with numpy's signatures, built from graph ops.

Each function here takes what its numpy namesake takes (`axis`, `keepdims`, `dtype`, ...) and
builds the ops TensorFlow's own numpy layer (`tf.experimental.numpy`) would: `sum` is a `Sum`,
`linalg.norm` a `Sqrt` of a `Sum` of a `Square`, `matmul` of a matrix and a vector a `MatMul`
between two `Reshape`s. numpy_dispatch.py maps numpy's functions and ufuncs to them; the
ndarray-like Tensor methods (`t.sum()`, `t.reshape(2, 1)`) call them too. Dtypes follow the
graph's rules: under numpy's (`Graph.dtype_rules == "numpy"`), results have numpy's dtypes.
"""
import builtins

import numpy as np

from ..framework import dtypes
from ..framework.errors import UnsupportedNumpyError
from ..framework.op_def_library import apply_op
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from . import arg_reductions, array_ops, array_ops_stack, math_ops, numpy_rules, slicing_ops


def as_tensor(value):
    """A tensor of numpy's dtype for `value` (a Python list becomes an array first)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in _flat(value)):
        return stack(value)
    return convert_to_tensor(value)


def _flat(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _no_out(name, out):
    if out is not None:
        raise UnsupportedNumpyError(f"numpy.{name}", f"numpy.{name}(..., out=...) cannot write into a tensor: "
                                                     f"assign the result to a name instead.")


def _static_rank(t, name):
    if t.shape.ndims is None:
        raise UnsupportedNumpyError(f"numpy.{name}", f"numpy.{name} needs the rank of {t.name}, which is not "
                                                     f"known while the graph is built.")
    return t.shape.ndims


# --- reductions ------------------------------------------------------------------------------
def _reduction(name, tf_fn, bool_input=False):
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, **unused):
        _no_out(name, out)
        _refuse_extra(name, unused, ("initial", "where"))
        x = as_tensor(a)
        if dtype is not None:
            x = array_ops.cast(x, np.dtype(dtype))
        if bool_input and x.dtype != dtypes.bool_:
            x = math_ops.not_equal(x, array_ops.zeros_like(x))
        if isinstance(axis, list):
            axis = tuple(axis)
        return tf_fn(x, axis=list(axis) if isinstance(axis, tuple) else axis, keepdims=bool(keepdims))
    reduce.__name__ = name
    reduce.__doc__ = f"numpy.{name}(a, axis=None, dtype=None, keepdims=False) as a `{tf_fn.__name__}`."
    return reduce


def _refuse_extra(name, kwargs, names):
    for k, v in kwargs.items():
        if k not in names or v is not np._NoValue and v is not None and not (k == "where" and v is True):
            raise UnsupportedNumpyError(f"numpy.{name}", f"numpy.{name}(..., {k}=...) has no graph form in cfnb: "
                                                         f"leave `{k}` out.")


sum = _reduction("sum", math_ops.reduce_sum)  # noqa: A001 - numpy's names
mean = _reduction("mean", math_ops.reduce_mean)
max = _reduction("max", math_ops.reduce_max)  # noqa: A001
min = _reduction("min", math_ops.reduce_min)  # noqa: A001
prod = _reduction("prod", math_ops.reduce_prod)
all = _reduction("all", math_ops.reduce_all, bool_input=True)  # noqa: A001
any = _reduction("any", math_ops.reduce_any, bool_input=True)  # noqa: A001


def _arg(name, tf_fn):
    def arg(a, axis=None, out=None, keepdims=False):
        _no_out(name, out)
        x = as_tensor(a)
        if axis is None:
            x, axis = array_ops.reshape(x, [-1]), 0  # numpy: the index into the flattened array
        result = tf_fn(x, axis=axis)
        return array_ops.expand_dims(result, axis) if keepdims else result
    arg.__name__ = name
    arg.__doc__ = f"numpy.{name}(a, axis=None): the int64 index (`{tf_fn.__name__}`); no axis flattens first."
    return arg


argmax = _arg("argmax", arg_reductions.argmax)
argmin = _arg("argmin", arg_reductions.argmin)


# --- products --------------------------------------------------------------------------------
def matmul(a, b):
    """`a @ b` with numpy's rules for vectors: a 1-D operand is a row (left) or a column (right) that
    is dropped from the result, so vector @ vector is a scalar and matrix @ vector a vector."""
    a, b = as_tensor(a), as_tensor(b)
    ra, rb = _static_rank(a, "matmul"), _static_rank(b, "matmul")
    if ra == 0 or rb == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions (a scalar cannot be matrix-"
                         "multiplied: use `*`).")
    if ra > 2 or rb > 2:
        raise UnsupportedNumpyError("numpy.matmul", f"matmul of rank-{ra} and rank-{rb} tensors (a batch of "
                                                    f"matrices) has no graph form in cfnb: loop over the batch.")
    with get_default_graph().name_scope("matmul") as scope:
        a2 = array_ops.reshape(a, [1, -1]) if ra == 1 else a
        b2 = array_ops.reshape(b, [-1, 1]) if rb == 1 else b
        product = math_ops.matmul(a2, b2, name=None if ra == 2 and rb == 2 else "MatMul")
        if ra == 2 and rb == 2:
            return product
        keep = [] if ra == 1 and rb == 1 else [-1]
        return array_ops.reshape(product, keep, name=scope)


def dot(a, b, out=None):
    """numpy.dot: a scalar operand multiplies, vectors and matrices are `matmul`."""
    _no_out("dot", out)
    a, b = as_tensor(a), as_tensor(b)
    if _static_rank(a, "dot") == 0 or _static_rank(b, "dot") == 0:
        return a * b
    return matmul(a, b)


# --- shapes ----------------------------------------------------------------------------------
def _shape_tensor(shape):
    """A shape given as an int, a tuple of ints, or with tensors (loop values) among its dims."""
    if isinstance(shape, Tensor):
        return numpy_rules.index_input(shape, dtypes.int32)
    dims = [shape] if isinstance(shape, (int, np.integer)) else list(shape)
    if builtins.any(isinstance(d, Tensor) for d in dims):
        return array_ops_stack.stack([array_ops.cast(d, dtypes.int32) if isinstance(d, Tensor) else np.int32(d)
                                for d in dims])
    return [int(d) for d in dims]


def reshape(a, shape=None, order="C", *, newshape=None):
    """`np.reshape` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): `tf.reshape`;
    `order='F'` has no graph form and is refused."""
    shape = newshape if shape is None else shape
    if order != "C":
        raise UnsupportedNumpyError("numpy.reshape", "reshape(..., order='F') has no graph form: leave `order` out.")
    return array_ops.reshape(as_tensor(a), _shape_tensor(shape))


def transpose(a, axes=None):
    """`np.transpose` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): `tf.transpose`."""
    return array_ops.transpose(as_tensor(a), None if axes is None else list(axes))


def squeeze(a, axis=None):
    """`np.squeeze` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): `tf.squeeze`."""
    return array_ops.squeeze(as_tensor(a), axis)


def expand_dims(a, axis):
    """`np.expand_dims` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): `tf.expand_dims`."""
    return array_ops.expand_dims(as_tensor(a), axis)


def ravel(a, order="C"):
    """`np.ravel` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): a reshape to one
    dimension."""
    return reshape(a, [-1], order)


def shape(a):
    """`np.shape` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): the static shape as a
    tuple, as numpy gives it; a shape not known while the graph is built is refused (the run-time shape is
    `cfnb.shape`)."""
    t = as_tensor(a)
    if not t.shape.is_fully_defined():
        raise UnsupportedNumpyError("numpy.shape", f"the shape of {t.name} is not fully known while the graph "
                                                   f"is built ({t.shape}): use cfnb.shape(t) for its run-time shape.")
    return tuple(t.shape.as_list())


def ndim(a):
    """`np.ndim` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): the static rank; an
    unknown rank is refused."""
    return _static_rank(as_tensor(a), "ndim")


def size(a, axis=None):
    """`np.size` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): the static element
    count, or a Size op when it is known only at run time."""
    t = as_tensor(a)
    n = t.shape.num_elements() if axis is None else t.shape[axis]
    if n is None:
        return array_ops.size(t, out_type=dtypes.int64 if numpy_rules.is_numpy_graph() else dtypes.int32)
    return n


# --- element-wise helpers ----------------------------------------------------------------------
def where(condition, x=None, y=None):
    """`np.where(c, x, y)` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): SelectV2; the
    one-argument form (indices of a run-time size) is refused."""
    if x is None and y is None:
        raise UnsupportedNumpyError("numpy.where", "numpy.where(condition) with one argument returns indices of "
                                                   "a run-time size: give both values, numpy.where(c, x, y).")
    return array_ops.where_v2(condition, x, y)


def clip(a, a_min=None, a_max=None, out=None, **kwargs):
    """`np.clip` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): a Maximum and a Minimum,
    as numpy clips; `out=` is refused."""
    _no_out("clip", out)
    a_min, a_max = kwargs.pop("min", a_min), kwargs.pop("max", a_max)
    _refuse_extra("clip", kwargs, ())
    x = as_tensor(a)
    if a_min is not None:
        x = math_ops.maximum(x, a_min)
    if a_max is not None:
        x = math_ops.minimum(x, a_max)
    return x


def concatenate(arrays, axis=0, out=None, dtype=None):
    """`np.concatenate` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): ConcatV2 after
    numpy's dtype promotion; `axis=None` flattens first."""
    _no_out("concatenate", out)
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    return array_ops_stack.concat(_common(arrays, dtype), axis)


def stack(arrays, axis=0, out=None, dtype=None):
    """`np.stack` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): Pack after numpy's
    dtype promotion."""
    _no_out("stack", out)
    return array_ops_stack.stack(_common(arrays, dtype), axis)


def vstack(tup, dtype=None):
    """numpy.vstack: 1-D arrays become rows, then they are concatenated along the first axis."""
    arrays = [as_tensor(a) for a in tup]
    return concatenate([reshape(a, [1, -1]) if _static_rank(a, "vstack") < 2 else a for a in arrays], 0, dtype=dtype)


def hstack(tup, dtype=None):
    """numpy.hstack: along the first axis for 1-D arrays, the second otherwise."""
    arrays = [as_tensor(a) for a in tup]
    return concatenate(arrays, 0 if _static_rank(arrays[0], "hstack") == 1 else 1, dtype=dtype)


def _common(arrays, dtype):
    """Tensors of one dtype: the one asked for, or numpy's common type of them all."""
    arrays = [a if isinstance(a, Tensor) else np.asarray(a) if numpy_rules.is_numpy_graph() else a for a in arrays]
    if dtype is not None:
        target = dtypes.as_dtype(np.dtype(dtype))
    elif numpy_rules.is_numpy_graph():
        target = numpy_rules.result_dtype(arrays)
    else:
        return arrays
    return [numpy_rules.to_dtype(a, target, "values") for a in arrays]


def _like(name, tf_fn):
    def like(a, dtype=None, order="K", subok=True, shape=None):
        if shape is not None:
            raise UnsupportedNumpyError(f"numpy.{name}", f"numpy.{name}(..., shape=...) has no graph form: use "
                                                         f"numpy.{name[:-5]}(shape) instead.")
        return tf_fn(as_tensor(a), dtype=None if dtype is None else np.dtype(dtype))
    like.__name__ = name
    return like


zeros_like = _like("zeros_like", array_ops.zeros_like)
ones_like = _like("ones_like", array_ops.ones_like)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    """`np.full_like` on a tensor (the `%%whileloop` magic's numpy in graphs, numpy_dispatch.py): a Fill of the
    tensor's run-time shape with `fill_value` in the tensor's (or the given) dtype."""
    t = as_tensor(a)
    dtype = t.dtype if dtype is None else dtypes.as_dtype(np.dtype(dtype))
    return array_ops.fill(array_ops.shape(t), numpy_rules.to_dtype(fill_value, dtype, "value"))


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm for a vector (or the Frobenius norm of a matrix): ord None/2, 1 or inf."""
    x = as_tensor(x)
    if ord in (None, 2, "fro") and (ord is None or axis is not None or x.shape.ndims == 1 or ord == "fro"):
        if x.dtype.is_integer:
            x = array_ops.cast(x, dtypes.float64)  # numpy takes the norm of ints in float64
        return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=keepdims))
    if ord == 1 and (axis is not None or x.shape.ndims == 1):
        return math_ops.reduce_sum(math_ops.abs(x), axis=axis, keepdims=keepdims)
    if ord in (np.inf, float("inf")) and (axis is not None or x.shape.ndims == 1):
        return math_ops.reduce_max(math_ops.abs(x), axis=axis, keepdims=keepdims)
    raise UnsupportedNumpyError("numpy.linalg.norm", f"numpy.linalg.norm(x, ord={ord!r}) of a rank-{x.shape.ndims} "
                                                     f"tensor has no graph form in cfnb: use ord=None (the 2-norm), "
                                                     f"1 or numpy.inf of a vector.")


def astype(a, dtype):
    """`a.astype(dtype)`: numpy's dtypes (`float` is float64, `int` int64), a Cast op."""
    return array_ops.cast(as_tensor(a), dtypes.as_dtype(np.dtype(dtype) if not isinstance(dtype, dtypes.DType)
                                                        else dtype))


def getitem(obj, key):
    """`obj[key]` when `key` may hold tensors (a loop counter): numpy cannot index an array with a
    symbolic tensor (it asks the tensor for its value), so an ndarray or a list is made a constant
    first and sliced in the graph (StridedSlice; a 1-D integer tensor index gathers)."""
    keys = key if isinstance(key, tuple) else (key,)
    symbolic = builtins.any(isinstance(k, Tensor) or isinstance(k, slice) and builtins.any(
        isinstance(p, Tensor) for p in (k.start, k.stop, k.step)) for k in keys)
    if not isinstance(obj, Tensor) and not symbolic:
        return obj[key]
    t = as_tensor(obj if isinstance(obj, (Tensor, np.ndarray)) or not isinstance(obj, (list, tuple))
                  else (obj if builtins.any(isinstance(v, Tensor) for v in _flat(obj)) else np.asarray(obj)))
    if isinstance(key, Tensor) and key.shape.ndims == 1 and key.dtype.is_integer:
        return slicing_ops.gather(t, key)
    return t[key]


def setitem(a, key, value):
    """`a[key] = value` as a value: the new array, `a` unchanged (AutoGraph's `set_item` on a tensor).

    numpy's rules: `value` is cast to `a`'s dtype and broadcast to the shape `a[key]` has. Only
    basic indices (ints, slices, `None`, `...`, scalar int tensors) have a graph form here. Built
    from `a[key]` (StridedSlice) and its gradient op, which scatters a slice back into zeros of
    `a`'s shape (StridedSliceGrad): `where(mask, placed, a)`, whose gradients are the slice's and
    Select's (so `--grad` flows to both `a` and `value`)."""
    t = as_tensor(a)
    part = t[key]
    spec, slots = part.op.get_attr("spec"), part.op.get_attr("tensor_slots")
    dynamic = list(part.op.inputs[1:])
    v = array_ops.cast(value, t.dtype) if isinstance(value, Tensor) else \
        convert_to_tensor(np.asarray(value).astype(t.dtype.as_numpy_dtype), dtype=t.dtype)
    if part.shape.is_fully_defined() and v.shape.is_fully_defined():
        np.broadcast_shapes(tuple(v.shape.as_list()), tuple(part.shape.as_list()))  # numpy's ValueError
        if len(v.shape.as_list()) > len(part.shape.as_list()):
            raise ValueError(f"could not broadcast input array from shape {tuple(v.shape.as_list())} into shape "
                             f"{tuple(part.shape.as_list())}")
    v = array_ops.broadcast_to(v, array_ops.shape(part))

    def scatter(dy):
        out = apply_op("StridedSliceGrad", [("shape", array_ops.shape(t))] +
                       [(f"index_{i}", d) for i, d in enumerate(dynamic)] + [("dy", dy)],
                       {"spec": spec, "tensor_slots": slots}).outputs[0]
        out.set_shape(t.shape)
        return out
    mask = scatter(array_ops.ones_like(part, dtype=dtypes.bool_))
    return array_ops.where_v2(mask, scatter(v), t)


def round(a, decimals=0, out=None):  # noqa: A001 - numpy's name
    """`np.round(a, decimals)`: TensorFlow's Round (half to even, as numpy's); with `decimals`, as numpy's
    PyArray_Round computes it: Round(a * 10**decimals) / 10**decimals (a / 10**-decimals, then times it, for
    decimals < 0; an integer array in float64, cast back). An integer array with decimals >= 0 is itself."""
    _no_out("round", out)
    x = as_tensor(a)
    if not isinstance(decimals, (int, np.integer)):
        raise UnsupportedNumpyError("numpy.round", "np.round(x, decimals) of a tensor takes a Python int decimals")
    if x.dtype.is_integer and decimals >= 0:
        return array_ops.identity(x)
    if decimals == 0:
        return math_ops.round(x)
    y = x if x.dtype.is_floating else array_ops.cast(x, dtypes.float64)  # numpy rounds an int in float64
    scale = np.asarray(10.0 ** builtins.abs(decimals), dtype=y.dtype.as_numpy_dtype)
    y = math_ops.round(y * scale) / scale if decimals > 0 else math_ops.round(y / scale) * scale
    return y if x.dtype.is_floating else array_ops.cast(y, x.dtype)


def copy(a, order="K", subok=False):
    """`np.copy(a)`, `a.copy()`: a new array with a's items (an Identity: a tensor is never changed in place, so
    the copy is a value of its own, as numpy's is)."""
    return array_ops.identity(as_tensor(a))


def _as_float(t):
    return t if t.dtype.is_floating else array_ops.cast(t, np.result_type(t.dtype.as_numpy_dtype, 1.0))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy's `isclose`: |a - b| <= atol + rtol * |b| item by item (infinities close only to themselves; NaN
    to NaN only with `equal_nan`)."""
    x, y = _as_float(as_tensor(a)), _as_float(as_tensor(b))
    close = math_ops.logical_or(math_ops.less_equal(math_ops.abs(x - y), atol + rtol * math_ops.abs(y)),
                                math_ops.equal(x, y))
    if equal_nan:
        close = math_ops.logical_or(close, math_ops.logical_and(math_ops.not_equal(x, x), math_ops.not_equal(y, y)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy's `allclose`: every item `isclose` (one bool)."""
    return all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """numpy's `array_equal`: the same shape and the same items (one bool; False at once when the static shapes
    differ, as numpy's answer then does not depend on the values)."""
    x, y = as_tensor(a1), as_tensor(a2)
    if x.shape.is_fully_defined() and y.shape.is_fully_defined() and x.shape.as_list() != y.shape.as_list():
        return array_ops.constant(False)
    same = math_ops.equal(x, y)
    if equal_nan:
        same = math_ops.logical_or(same, math_ops.logical_and(math_ops.not_equal(x, x), math_ops.not_equal(y, y)))
    return all(same)
