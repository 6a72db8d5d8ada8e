"""numpy on tensors: numpy's dispatch protocols and ndarray's methods, installed on Tensor.

Interface (what the `%%whileloop` magic and a notebook can rely on):

* `Graph.dtype_rules` is "tensorflow" (default) or "numpy"; a FuncGraph (branch, loop body,
  function) takes its outer graph's value. Under "numpy", Python ints are int64, floats float64,
  bools bool, numpy values keep their dtypes, and mixed dtypes promote as numpy 2 does (weak
  Python scalars, NEP 50) through visible Cast ops (numpy_rules.py); `numpy_rules.result_dtype`
  gives numpy's common DType of some values. `gradients()` builds under TensorFlow's rules.
* numpy ufuncs (`np.tanh(t)`, `np.maximum(W, t)`, `W @ h`, `ndarray + t`, comparisons) call
  `Tensor.__array_ufunc__`, which builds graph ops (see `UFUNC_OPERATORS`, `UFUNCS`,
  `UFUNC_REDUCE`); numpy functions (`np.sum(t, axis=0, keepdims=True)`, `np.dot`, `np.where`,
  `np.concatenate`, `np.linalg.norm`, ... see `FUNCTIONS`) call `Tensor.__array_function__`.
  Either works when only one argument is a Tensor and the others are ndarrays or Python numbers.
  Anything else is refused *before numpy runs* with `cfnb.errors.UnsupportedNumpyError` (a
  TypeError; `.function` is the numpy name, e.g. "numpy.linalg.inv"; the message names it and
  says what to write instead).
* ndarray's methods and attributes on Tensor: `.reshape(2, 1)` / `.reshape((2, -1))` (dims may
  be tensors), `.T`, `.transpose()`, `.sum/.mean/.max/.min/.prod/.all/.any(axis=None,
  keepdims=False)`, `.argmax/.argmin(axis=None)`, `.astype(np.float64 | float | "int64")`,
  `.flatten()`, `.ravel()`, `.squeeze()`, `.clip(lo, hi)`, `.dot(b)`, `.copy()`, `.ndim`, `.size` (an int
  when static, else a Size tensor), `len(t)` of a static leading dimension (numpy rules only;
  TensorFlow's error otherwise), iteration over the rows of a static leading dimension (`a, b = row`; numpy
  rules only), `@` with numpy's 1-D rules (numpy rules only). Refused with
  UnsupportedNumpyError: `.item()`, `.tolist()`, `float(t)`, `int(t)`, `round(t)`, `t[i] = v`,
  and a tensor used as a Python integer (`[1, 2][t]`, `range(t)`, `X[t:]` on an ndarray).
* `ndarray[t]`: numpy cannot index an array with a symbolic tensor (it calls `t.__array__`, which
  raises UnsupportedNumpyError). Rewrite subscripts `a[k]` to `getitem(a, k)` (this module's,
  from numpy_functions.py): it slices in the graph when `k` holds tensors (an ndarray or a list of
  numbers becomes a constant first; a 1-D integer tensor gathers) and is plain `a[k]` otherwise.
  Indices must be int32/int64 tensors.
* `cfnb.print(*inputs, output_stream="stderr", sep=" ", end="\\n", summarize=3, formatter=
  "tensorflow" | "python", name=None)` is tf.print (logging_ops.py, string_format.py).
"""
import numpy as np

from ..framework.dtype_rules import NUMPY_RULES
from ..framework.errors import UnsupportedNumpyError
from ..framework.ops import Tensor
from . import array_ops, bitwise_ops, math_ops
from . import numpy_functions as F

getitem = F.getitem

# ufuncs with a Python operator: Tensor's operator (and its numpy rules) builds the op, the
# reflected one when the Tensor is on the right: np.add(W, t) is t.__radd__(W).
UFUNC_OPERATORS = {
    np.add: ("__add__", "__radd__"), np.subtract: ("__sub__", "__rsub__"), np.multiply: ("__mul__", "__rmul__"),
    np.true_divide: ("__truediv__", "__rtruediv__"), np.floor_divide: ("__floordiv__", "__rfloordiv__"),
    np.remainder: ("__mod__", "__rmod__"), np.power: ("__pow__", "__rpow__"),
    np.matmul: ("__matmul__", "__rmatmul__"),
    np.less: ("__lt__", "__gt__"), np.less_equal: ("__le__", "__ge__"),
    np.greater: ("__gt__", "__lt__"), np.greater_equal: ("__ge__", "__le__"),
    np.bitwise_and: ("__and__", "__rand__"), np.bitwise_or: ("__or__", "__ror__"),
    np.bitwise_xor: ("__xor__", "__rxor__"), np.left_shift: ("__lshift__", "__rlshift__"),
    np.right_shift: ("__rshift__", "__rrshift__"),
}
UFUNCS = {
    np.equal: math_ops.equal, np.not_equal: math_ops.not_equal,
    np.maximum: math_ops.maximum, np.minimum: math_ops.minimum, np.fmax: math_ops.maximum, np.fmin: math_ops.minimum,
    np.logical_and: math_ops.logical_and, np.logical_or: math_ops.logical_or,
    np.logical_xor: math_ops.logical_xor, np.logical_not: math_ops.logical_not,
    np.negative: math_ops.negative, np.positive: array_ops.identity, np.absolute: math_ops.abs,
    np.square: math_ops.square, np.sqrt: math_ops.sqrt, np.exp: math_ops.exp, np.log: math_ops.log,
    np.log1p: math_ops.log1p, np.sin: math_ops.sin, np.cos: math_ops.cos, np.tanh: math_ops.tanh,
    np.sign: math_ops.sign, np.floor: math_ops.floor, np.reciprocal: math_ops.reciprocal,
    np.invert: bitwise_ops.invert_,
}
# `np.add.reduce(t, axis)` and friends: the reductions they are.
UFUNC_REDUCE = {np.add: F.sum, np.multiply: F.prod, np.maximum: F.max, np.minimum: F.min,
                np.logical_and: F.all, np.logical_or: F.any}

FUNCTIONS = {
    np.sum: F.sum, np.mean: F.mean, np.max: F.max, np.amax: F.max, np.min: F.min, np.amin: F.min,
    np.prod: F.prod, np.all: F.all, np.any: F.any, np.argmax: F.argmax, np.argmin: F.argmin,
    np.dot: F.dot, np.matmul: F.matmul, np.where: F.where, np.clip: F.clip,
    np.concatenate: F.concatenate, np.stack: F.stack, np.vstack: F.vstack, np.hstack: F.hstack,
    np.reshape: F.reshape, np.transpose: F.transpose,
    np.squeeze: F.squeeze, np.expand_dims: F.expand_dims, np.ravel: F.ravel, np.shape: F.shape,
    np.ndim: F.ndim, np.size: F.size, np.zeros_like: F.zeros_like, np.ones_like: F.ones_like,
    np.full_like: F.full_like, np.linalg.norm: F.norm, np.astype: F.astype, np.copy: F.copy,
    np.round: F.round, np.around: F.round,
    np.isclose: F.isclose, np.allclose: F.allclose, np.array_equal: F.array_equal,
}

# What to write instead, for numpy functions students reach for that have no graph form.
_INSTEAD = {
    "ceil": "-np.floor(-x)",
    "tan": "np.sin(x) / np.cos(x)", "log10": "np.log(x) / np.log(10)", "log2": "np.log(x) / np.log(2)",
    "expm1": "np.exp(x) - 1", "mod": "x % y", "divide": "x / y", "array": "the tensor itself",
    "asarray": "the tensor itself",
    "cumsum": "a running total in the loop (`total = total + x`)",
}
_GENERIC = ("compute it on numpy values before or after the loop, or build it from the numpy functions cfnb "
            "supports on tensors (np.sum, np.mean, np.max, np.dot, np.where, np.exp, np.sqrt, np.tanh, "
            "np.maximum, np.linalg.norm, ...)")


def _numpy_name(fn):
    module = getattr(fn, "__module__", None) or "numpy"
    module = "numpy" if module.startswith("numpy._core") or module.startswith("numpy.core") else module
    return f"{module}.{fn.__name__}"


def refuse(fn, what=None):
    """The error for a numpy function that has no graph form, naming it and what to write instead: better than numpy
    converting the tensor to an object array, a silent wrong answer."""
    name = _numpy_name(fn) if what is None else what
    short = name.rsplit(".", 1)[-1]
    advice = f"write {_INSTEAD[short]} instead" if short in _INSTEAD else _GENERIC
    return UnsupportedNumpyError(name, f"{name} has no graph form in cfnb, so it cannot take a tensor: {advice}.")


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """numpy's ufunc protocol (NEP 13): build the op for `ufunc` on these inputs."""
    if kwargs.get("out") is not None:
        raise UnsupportedNumpyError(f"numpy.{ufunc.__name__}", f"numpy.{ufunc.__name__}(..., out=...) cannot write "
                                                               f"into a tensor: assign the result to a name instead.")
    kwargs.pop("out", None)
    if method == "reduce" and ufunc in UFUNC_REDUCE:
        return UFUNC_REDUCE[ufunc](*inputs, **kwargs)
    if method != "__call__":
        raise refuse(ufunc, f"numpy.{ufunc.__name__}.{method}")
    dtype = kwargs.pop("dtype", None)
    if kwargs:
        raise UnsupportedNumpyError(f"numpy.{ufunc.__name__}", f"numpy.{ufunc.__name__}(..., {next(iter(kwargs))}="
                                                               f"...) has no graph form: leave it out.")
    if dtype is not None:
        inputs = [F.astype(x, dtype) for x in inputs]
    if ufunc in UFUNC_OPERATORS:
        forward, reflected = UFUNC_OPERATORS[ufunc]
        a, b = inputs
        return getattr(Tensor, forward)(a, b) if isinstance(a, Tensor) else getattr(Tensor, reflected)(b, a)
    if ufunc in UFUNCS:
        return UFUNCS[ufunc](*inputs)
    raise refuse(ufunc)


def _array_function(self, func, types, args, kwargs):
    """numpy's function protocol (NEP 18): numpy's function with a graph form, or a clear refusal."""
    impl = FUNCTIONS.get(func)
    if impl is None:
        raise refuse(func)
    return impl(*args, **kwargs)


def _array(self, dtype=None, copy=None):
    raise UnsupportedNumpyError(
        "numpy.asarray",
        f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array: it has no value until the graph runs "
        f"(run it in a Session first). numpy asks for one when it indexes an array with a tensor (`X[t]`: write "
        f"cfnb.ops.numpy_dispatch.getitem(X, t), or cfnb.constant(X)[t]), when it makes an array of tensors "
        f"(`np.array([t, u])`: write np.stack([t, u])), or when it calls a function cfnb has no graph form of.")


def _index(self):
    raise UnsupportedNumpyError(
        "index", f"{self.name} is used as a Python integer (an index, a size, `range(...)`), but it has no value "
                 f"until the graph runs: index with cfnb.ops.numpy_dispatch.getitem(X, t) (or cfnb.constant(X)[t]), "
                 f"make zeros of a run-time size with np.zeros_like(t) or cfnb.zeros(cfnb.stack([n])), and loop "
                 f"with a while loop on the tensor.")


def _setitem(self, key, value):
    raise UnsupportedNumpyError(
        "Tensor.__setitem__", f"A tensor cannot be changed in place ({self.name}[...] = ...): build a new one, e.g. "
                              f"np.where(np.arange(n) == i, value, x) for x[i] = value, or collect the values in a "
                              f"list and np.stack them.")


def _len(self):
    if self.graph.dtype_rules == NUMPY_RULES:
        if self.shape.ndims == 0:
            raise TypeError("len() of unsized object (a scalar tensor)")
        if self.shape.ndims is not None and self.shape[0] is not None:
            return self.shape[0]
        raise TypeError(f"len() of {self.name}: its first dimension is not known while the graph is built "
                        f"(shape {self.shape}); use np.shape or cfnb.shape at run time.")
    raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Use cfnb.size or cfnb.shape.")


_tf_iter = Tensor.__iter__


def _iter(self):
    """numpy's iteration under numpy's rules: the rows of an array whose first dimension is static (`a, b = row`,
    `for row in M` in Python); TensorFlow's refusal otherwise."""
    if self.graph.dtype_rules == NUMPY_RULES and self.shape.ndims and self.shape[0] is not None:
        return iter([self[i] for i in range(self.shape[0])])
    return _tf_iter(self)


def _refuse_scalar(what):
    def method(self, *args):
        raise UnsupportedNumpyError(what, f"{what}() needs the value of {self.name}, which it has only when the "
                                          f"graph runs: keep it a tensor (np.sqrt(t) rather than math.sqrt(t), "
                                          f"t.astype(int) rather than int(t), np.round(t) rather than "
                                          f"round(t)) or run the graph first.")
    return method


def _numpy_matmul(operator):
    def method(self, other):
        if self.graph.dtype_rules == NUMPY_RULES:
            return F.matmul(other, self) if operator.startswith("__r") else F.matmul(self, other)
        return _tf_operators[operator](self, other)
    return method


_tf_operators = {"__matmul__": Tensor.__matmul__, "__rmatmul__": Tensor.__rmatmul__}


def _shape_args(args):
    return args[0] if len(args) == 1 else args


def _install():
    Tensor.__array_ufunc__ = _array_ufunc
    Tensor.__array_function__ = _array_function
    Tensor.__array__ = _array
    Tensor.__len__ = _len
    Tensor.__iter__ = _iter
    Tensor.__matmul__ = _numpy_matmul("__matmul__")
    Tensor.__rmatmul__ = _numpy_matmul("__rmatmul__")
    Tensor.__float__ = _refuse_scalar("float")
    Tensor.__int__ = _refuse_scalar("int")
    Tensor.__complex__ = _refuse_scalar("complex")
    Tensor.__round__ = _refuse_scalar("round")
    Tensor.__index__ = _index
    Tensor.__setitem__ = _setitem
    Tensor.item = _refuse_scalar("Tensor.item")
    Tensor.tolist = _refuse_scalar("Tensor.tolist")
    Tensor.reshape = lambda self, *shape, order="C": F.reshape(self, _shape_args(shape), order)
    Tensor.T = property(lambda self: F.transpose(self))
    Tensor.transpose = lambda self, *axes: F.transpose(self, _shape_args(axes) if axes else None)
    for name in ("sum", "mean", "max", "min", "prod", "all", "any", "argmax", "argmin", "clip", "squeeze",
                 "ravel", "astype", "dot", "copy"):
        setattr(Tensor, name, getattr(F, name))
    Tensor.flatten = lambda self, order="C": F.ravel(self, order)
    Tensor.ndim = property(lambda self: F.ndim(self))
    Tensor.size = property(lambda self: F.size(self))


_install()
