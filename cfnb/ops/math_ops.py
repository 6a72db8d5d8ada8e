"""Math ops (element-wise, matmul, reductions, comparisons) and the Tensor operator overloads.

Op types and default names are TensorFlow's: `x + y` is an `AddV2` named `add`, `tf.add(x, y)`
an `AddV2` named `Add`, `x / y` a `RealDiv` named `truediv`.
"""
import operator

import numpy as np

from ..framework import dtypes, op_kernel_context
from ..framework.dtype_rules import NUMPY_RULES
from ..framework.op_def_library import _graph_of, apply_op
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape, broadcast_shapes
from . import array_ops
from .array_ops import _as_value, _const_value, cast, constant

# The types TensorFlow allows for float-only ops (Exp, Softmax, ...) and for numeric ones (Sum, Mean, ...):
# numpy would compute them on other types too, with another result dtype than the one inferred.
FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
INTEGERS = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32,
            dtypes.uint64)
NUMBERS = FLOATS + INTEGERS
WITH_COMPLEX = NUMBERS + (dtypes.complex64, dtypes.complex128)  # TensorFlow's arithmetic type lists


def _binary_infer(op):
    x, y = op._inputs
    return [(x.dtype, broadcast_shapes(x.shape, y.shape, op))]


def _compare_infer(op):
    x, y = op._inputs
    return [(dtypes.bool_, broadcast_shapes(x.shape, y.shape, op))]


def _unary_infer(op):
    x = op._inputs[0]
    return [(x.dtype, x.shape)]


def _kernel(fn):
    return lambda op: fn


_INT_SCALARS = (np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32, np.uint64, int)


def _zero_int_divisor(x, y):
    if type(y) in _INT_SCALARS:  # the common case in a loop, without numpy's reductions (~40x faster)
        return y == 0
    return op_kernel_context.dtype_of(x).kind in "iu" and bool(op_kernel_context.array_module(y).any(y == 0))


_NUMBER_SCALARS = frozenset(_INT_SCALARS + (np.float64, np.float32, np.float16))


def _floordiv(x, y):
    if _zero_int_divisor(x, y):
        raise ZeroDivisionError("Integer division by zero")
    if type(x) in _NUMBER_SCALARS and type(x) is type(y):
        return x // y  # numpy scalars: the operator is numpy's floor_divide, without a ufunc call
    return np.floor_divide(x, y)


def _floormod(x, y):
    if _zero_int_divisor(x, y):
        raise ZeroDivisionError("Integer division by zero")
    if type(x) in _NUMBER_SCALARS and type(x) is type(y):
        return x % y
    return np.mod(x, y)


def _scalar_operator(op, ufunc):
    """`op` on two numpy scalars of one type (the same result as `ufunc`, ~20x cheaper), else `ufunc`."""
    def kernel(x, y):
        if type(x) in _NUMBER_SCALARS and type(x) is type(y):
            return op(x, y)
        return ufunc(x, y)
    return kernel


def _sigmoid(x):
    return np.reciprocal(1 + np.exp(-x))


# Kernels use Python operators where they mean exactly the numpy ufunc: on numpy scalars an
# operator costs ~30 ns and a ufunc call ~550 ns, and loops spend their time on scalars.
BINARY = {
    "AddV2": operator.add, "Add": operator.add, "Sub": operator.sub, "Mul": operator.mul, "RealDiv": operator.truediv,
    "FloorDiv": _floordiv, "FloorMod": _floormod, "Pow": operator.pow,
    "Maximum": np.maximum, "Minimum": np.minimum, "SquaredDifference": lambda x, y: np.square(x - y),
    "DivNoNan": lambda x, y: np.where(y == 0, np.zeros_like(x), np.true_divide(x, np.where(y == 0, 1, y))),
}
COMPARE = {
    "Less": operator.lt, "LessEqual": operator.le, "Greater": operator.gt, "GreaterEqual": operator.ge,
    "Equal": _scalar_operator(operator.eq, np.equal), "NotEqual": _scalar_operator(operator.ne, np.not_equal),
    "LogicalAnd": operator.and_, "LogicalOr": operator.or_,
}
UNARY = {
    "Neg": operator.neg, "Abs": operator.abs, "Square": lambda x: x * x, "Sqrt": np.sqrt,
    "Rsqrt": lambda x: 1 / np.sqrt(x),
    "Exp": np.exp, "Log": np.log, "Sin": np.sin, "Cos": np.cos, "Tanh": np.tanh, "Sigmoid": _sigmoid,
    "Relu": lambda x: np.maximum(x, np.zeros((), dtype=np.asarray(x).dtype)), "Reciprocal": np.reciprocal,
    "Sign": np.sign, "Floor": np.floor, "Log1p": np.log1p, "Round": np.round,
}
for _t, _f in BINARY.items():
    register_op(_t, _binary_infer, _kernel(_f))
for _t, _f in COMPARE.items():
    register_op(_t, _compare_infer, _kernel(_f))
for _t, _f in UNARY.items():
    register_op(_t, _unary_infer, _kernel(_f))
def _logical_not(x):
    if type(x) is np.bool_:  # a scalar: no ufunc call (`~` on a numpy bool costs ~2 µs)
        return np.False_ if x else np.True_
    return np.logical_not(x)


register_op("LogicalNot", _unary_infer, _kernel(_logical_not))  # bool inputs only


def _binary(op_type, default_name, bool_inputs=False, allowed=None):
    def op(x, y, name=None):
        return apply_op(op_type, [("x", x), ("y", y)], name=name, default_name=default_name,
                        same_type=("x", "y"), allowed=allowed,
                        dtypes={"x": dtypes.bool_, "y": dtypes.bool_} if bool_inputs else None).outputs[0]
    op.__name__ = default_name.lower()
    op.__doc__ = f"Element-wise `{op_type}` with broadcasting (TensorFlow's `{op_type}` op)."
    return op


def _unary(op_type, allowed=None):
    def op(x, name=None):
        return apply_op(op_type, [("x", x)], name=name, default_name=op_type, same_type=("x",),
                        allowed=allowed).outputs[0]
    op.__name__ = op_type.lower()
    op.__doc__ = f"Element-wise `{op_type}` (TensorFlow's `{op_type}` op)."
    return op


# TensorFlow's type lists, restricted to cfnb's dtypes: arithmetic and ordering refuse bool (and
# string), as TensorFlow does at graph-build time; Equal/NotEqual take any dtype.
_add_v2 = _binary("AddV2", "Add", allowed=WITH_COMPLEX)
_add_strings = _binary("Add", "Add", allowed=(dtypes.string,))
subtract = _binary("Sub", "Sub", allowed=WITH_COMPLEX)
multiply = _binary("Mul", "Mul", allowed=WITH_COMPLEX)
maximum = _binary("Maximum", "Maximum", allowed=NUMBERS)
minimum = _binary("Minimum", "Minimum", allowed=NUMBERS)
floordiv = _binary("FloorDiv", "floordiv", allowed=NUMBERS)
floormod = mod = _binary("FloorMod", "FloorMod", allowed=NUMBERS)
squared_difference = _binary("SquaredDifference", "SquaredDifference", allowed=NUMBERS)
div_no_nan = _binary("DivNoNan", "div_no_nan", allowed=FLOATS)
less = _binary("Less", "Less", allowed=NUMBERS)
less_equal = _binary("LessEqual", "LessEqual", allowed=NUMBERS)
greater = _binary("Greater", "Greater", allowed=NUMBERS)
greater_equal = _binary("GreaterEqual", "GreaterEqual", allowed=NUMBERS)
equal = _binary("Equal", "Equal")
not_equal = _binary("NotEqual", "NotEqual")
logical_and = _binary("LogicalAnd", "LogicalAnd", bool_inputs=True)
logical_or = _binary("LogicalOr", "LogicalOr", bool_inputs=True)


def add(x, y, name=None):
    """Element-wise `AddV2` with broadcasting; strings concatenate through TensorFlow's `Add` op."""
    if isinstance(x, Tensor) and x.dtype == dtypes.string or isinstance(x, (str, bytes)):
        return _add_strings(x, y, name=name)
    return _add_v2(x, y, name=name)


negative = _unary("Neg", WITH_COMPLEX)
abs = _unary("Abs", NUMBERS)  # noqa: A001 - TensorFlow's name
square = _unary("Square", WITH_COMPLEX)
sqrt = _unary("Sqrt", FLOATS)
rsqrt = _unary("Rsqrt", FLOATS)
exp = _unary("Exp", FLOATS)
log = _unary("Log", FLOATS)
log1p = _unary("Log1p", FLOATS)
sin = _unary("Sin", FLOATS)
cos = _unary("Cos", FLOATS)
tanh = _unary("Tanh", FLOATS)
sigmoid = _unary("Sigmoid", FLOATS)
sign = _unary("Sign", NUMBERS)
floor = _unary("Floor", FLOATS)
round = _unary("Round", NUMBERS)  # noqa: A001 - TensorFlow's name (tf.math.round): half to even, as numpy and Python
reciprocal = _unary("Reciprocal", NUMBERS)
relu = _unary("Relu", NUMBERS)


def logical_not(x, name=None):
    """`tf.logical_not`: a LogicalNot op, for booleans only."""
    return apply_op("LogicalNot", [("x", x)], name=name, default_name="LogicalNot",
                    dtypes={"x": dtypes.bool_}).outputs[0]


def logical_xor(x, y, name="LogicalXor"):
    """TensorFlow builds the inner ops at the caller's scope: LogicalOr, LogicalAnd, LogicalNot, then the
    final LogicalAnd named `name`."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


def pow(x, y, name=None):  # noqa: A001 - TensorFlow's name
    """`tf.pow`: a Pow op; both operands of one dtype, as in TensorFlow."""
    return apply_op("Pow", [("x", x), ("y", y)], name=name, default_name="Pow", same_type=("x", "y"),
                    allowed=NUMBERS).outputs[0]


def truediv(x, y, name=None):
    """`x / y`: integers are cast to float64 first (TensorFlow's truediv), then a RealDiv.

    Under numpy's rules the RealDiv's inputs promote as `np.true_divide`'s (ints to float64)."""
    g = _graph_of([("x", x), ("y", y)])
    if g.dtype_rules == NUMPY_RULES:
        with g.as_default(), g.name_scope(name or "truediv") as scope:
            return apply_op("RealDiv", [("x", x), ("y", y)], name=scope, same_type=("x", "y"),
                            allowed=FLOATS).outputs[0]
    with g.name_scope(name or "truediv") as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype_hint=x.dtype)
        if x.dtype != y.dtype:
            raise TypeError(f"x and y must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
        if x.dtype not in NUMBERS:
            raise TypeError(f"Invalid dtype {x.dtype!r} in __truediv__. Expected one of "
                            f"{{{', '.join(repr(d) for d in NUMBERS)}}}.")
        if x.dtype.is_integer:
            target = dtypes.float64 if x.dtype in (dtypes.int32, dtypes.int64) else dtypes.float32
            x, y = cast(x, target), cast(y, target)
        return apply_op("RealDiv", [("x", x), ("y", y)], name=scope, same_type=("x", "y")).outputs[0]


divide = truediv


def div(x, y, name=None):
    """TF1's `div`: Python 2 division, i.e. floor division for integers and RealDiv for floats."""
    with get_default_graph().name_scope(name or "div") as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype_hint=x.dtype)
        op_type = "FloorDiv" if x.dtype.is_integer else "RealDiv"
        return apply_op(op_type, [("x", x), ("y", y)], name=scope, same_type=("x", "y")).outputs[0]


# ---------------------------------------------------------------------------------------------
# AddN, MatMul


def _addn_infer(op):
    shape = op._inputs[0].shape
    for t in op._inputs[1:]:
        shape = shape.merge_with(t.shape)
    return [(op._inputs[0].dtype, shape)]


def _addn(*xs):
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total


register_op("AddN", _addn_infer, _kernel(_addn))


def add_n(inputs, name=None):
    """`tf.add_n`: one AddN op summing tensors of one dtype (how `gradients()` sums the gradients of a tensor used
    several times); a single input is returned as is."""
    inputs = [convert_to_tensor(t) for t in inputs]
    if len(inputs) == 1:
        return inputs[0] if name is None else apply_op("Identity", [("input", inputs[0])], name=name).outputs[0]
    return apply_op("AddN", [(f"inputs_{i}", t) for i, t in enumerate(inputs)], {"N": len(inputs)},
                    name=name, default_name="AddN", same_type=[f"inputs_{i}" for i in range(len(inputs))]).outputs[0]


def _matmul_infer(op):
    a, b = op._inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    for t in (a, b):
        if t.shape.ndims is not None and t.shape.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {t.shape.ndims} for '{op.name}' (op: 'MatMul') "
                             f"with input shapes: {a.shape}, {b.shape}.")
    m = (a.shape[1] if ta else a.shape[0]) if a.shape.ndims else None
    k1 = (a.shape[0] if ta else a.shape[1]) if a.shape.ndims else None
    k2 = (b.shape[1] if tb else b.shape[0]) if b.shape.ndims else None
    n = (b.shape[0] if tb else b.shape[1]) if b.shape.ndims else None
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"Dimensions must be equal, but are {k1} and {k2} for '{op.name}' (op: 'MatMul') with "
                         f"input shapes: {a.shape}, {b.shape}.")
    return [(a.dtype, TensorShape([m, n]))]


def _matmul_kernel(op):
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not ta and not tb:
        return np.matmul
    return lambda a, b: np.matmul(a.T if ta else a, b.T if tb else b)


register_op("MatMul", _matmul_infer, _matmul_kernel)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """`tf.matmul`: a MatMul op, optionally transposing either operand."""
    return apply_op("MatMul", [("a", a), ("b", b)], {"transpose_a": transpose_a, "transpose_b": transpose_b},
                    name=name, default_name="MatMul", same_type=("a", "b"), allowed=NUMBERS).outputs[0]


# ---------------------------------------------------------------------------------------------
# reductions


def _reduce_infer(op):
    x, axes_t = op._inputs
    keep = op.get_attr("keep_dims")
    axes = _const_value(axes_t)
    if x.shape.ndims is None:
        return [(x.dtype, TensorShape(None))]
    n = x.shape.ndims
    if axes is None:
        return [(x.dtype, TensorShape([None] * n if keep else None))]
    axes = {int(a) % n for a in np.reshape(axes, -1)} if n else set()
    dims = [(1 if keep else None) if i in axes else d for i, d in enumerate(x.shape.as_list())]
    return [(x.dtype, TensorShape([d for i, d in enumerate(dims) if keep or i not in axes]))]


def _reduce_kernel(np_fn):
    def make(op):
        keep = op.get_attr("keep_dims")

        def reduce(x, axes):
            axes = op_kernel_context.on_host(axes)
            ax = tuple(int(a) for a in axes.reshape(-1)) if axes.size else ()
            if not ax:
                return x
            xp = op_kernel_context.device_module()
            x = xp.asarray(x)
            return _as_value(xp.asarray(np_fn(x, axis=ax, keepdims=keep), dtype=x.dtype))
        return reduce
    return make


REDUCTIONS = {"Sum": np.sum, "Mean": np.mean, "Max": np.max, "Min": np.min, "Prod": np.prod,
              "All": np.all, "Any": np.any}
for _t, _f in REDUCTIONS.items():
    register_op(_t, _reduce_infer, _reduce_kernel(_f))


def _reduction(op_type, allowed=None):
    bool_input = {"input": dtypes.bool_} if op_type in ("All", "Any") else {}

    def reduce(input_tensor, axis=None, keepdims=False, name=None, reduction_indices=None, keep_dims=None):
        axis = reduction_indices if axis is None else axis
        keepdims = keep_dims if keep_dims is not None else keepdims
        x = convert_to_tensor(input_tensor)
        reduce_all_axes = axis is None
        if axis is None:
            if x.shape.ndims is not None:
                # TensorFlow's _ReductionDims: a Const made before the op's own name scope.
                axis = constant(list(range(x.shape.ndims)), dtypes.int32)
            else:
                axis = array_ops.range(0, array_ops.rank(x))
        out = apply_op(op_type, [("input", x), ("reduction_indices", axis)], {"keep_dims": bool(keepdims)},
                       name=name, default_name=op_type, same_type=("input",), allowed=allowed,
                       dtypes={"reduction_indices": dtypes.int32, **bool_input}).outputs[0]
        if reduce_all_axes and not keepdims:
            out.set_shape([])  # a scalar even when the rank is unknown (TensorFlow's _may_reduce_to_scalar)
        return out
    reduce.__name__ = f"reduce_{op_type.lower()}"
    return reduce


reduce_sum = _reduction("Sum", NUMBERS)
reduce_mean = _reduction("Mean", NUMBERS)
reduce_max = _reduction("Max", NUMBERS)
reduce_min = _reduction("Min", NUMBERS)
reduce_prod = _reduction("Prod", NUMBERS)
reduce_all = _reduction("All")
reduce_any = _reduction("Any")




# ---------------------------------------------------------------------------------------------
# softmax


def _softmax(x):
    z = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


register_op("Softmax", _unary_infer, _kernel(_softmax))


def softmax(logits, axis=None, name=None):
    """`tf.nn.softmax`: a Softmax op over the last axis, for floating dtypes."""
    return apply_op("Softmax", [("logits", logits)], name=name, default_name="Softmax", same_type=("logits",),
                    allowed=FLOATS).outputs[0]


# ---------------------------------------------------------------------------------------------
# operator overloads, named as TensorFlow names them (`add`, `mul`, `truediv`, ...)


def _overload(fn, scope_name, reverse=False):
    def method(self, other):
        g = _graph_of([("x", self)])
        with g.as_default(), g.name_scope(scope_name) as scope:
            if g.dtype_rules == NUMPY_RULES:  # numpy's promotion happens in the op (numpy_rules.py)
                return fn(other, self, name=scope) if reverse else fn(self, other, name=scope)
            # TensorFlow: `x + 1.5` tries x's dtype for 1.5 and reports the mismatch in the op;
            # `1.5 + x` converts 1.5 to x's dtype outright (a TypeError when it does not fit).
            other = (convert_to_tensor(other, name="x", dtype=self.dtype) if reverse else
                     convert_to_tensor(other, name="y", dtype_hint=self.dtype))
            return fn(other, self, name=scope) if reverse else fn(self, other, name=scope)
    return method


def _install_overloads():
    pairs = {"add": add, "sub": subtract, "mul": multiply, "truediv": truediv, "floordiv": floordiv,
             "mod": floormod, "pow": pow, "matmul": matmul}
    for name, fn in pairs.items():
        setattr(Tensor, f"__{name}__", _overload(fn, name))
        setattr(Tensor, f"__r{name}__", _overload(fn, name, reverse=True))
    Tensor.__div__ = Tensor.__truediv__
    Tensor.__neg__ = lambda self: negative(self)
    Tensor.__abs__ = lambda self: abs(self)
    Tensor.__lt__ = _overload(less, "Less")
    Tensor.__le__ = _overload(less_equal, "LessEqual")
    Tensor.__gt__ = _overload(greater, "Greater")
    Tensor.__ge__ = _overload(greater_equal, "GreaterEqual")
    Tensor.__and__ = _overload(logical_and, "and")
    Tensor.__or__ = _overload(logical_or, "or")
    Tensor.__invert__ = lambda self: logical_not(self)
    # In graph mode `==` is identity, as in tf.compat.v1 graphs (tensors are dict keys in feed_dicts).
    Tensor.__eq__ = object.__eq__
    Tensor.__hash__ = object.__hash__


_install_overloads()
