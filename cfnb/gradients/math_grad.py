"""Gradients of math ops, one function per op type (TensorFlow's math_grad.py).

Binary ops broadcast, so their gradients are summed over the broadcast axes and reshaped back
(`BroadcastGradientArgs` gives the axes); when both shapes are static and equal that step is
skipped, as TensorFlow does, which keeps gradient graphs small and readable.
"""
import numpy as np

from ..framework import dtypes
from ..framework.op_def_library import apply_op
from ..framework.registry import NotDifferentiable, RegisterGradient, register_op
from ..framework.tensor_shape import TensorShape
from ..ops import arg_reductions, array_ops, array_ops_stack, math_ops, slicing_ops  # noqa: F401 - ArgMax, ArgMin
from . import static_shapes
from .unary_grad_ops import reciprocal_grad, relu_grad, rsqrt_grad, sigmoid_grad, sqrt_grad, tanh_grad

# --- helper ops the gradients use ----------------------------------------------------------------


def _bga_kernel(op):
    def broadcast_gradient_args(s0, s1):
        s0, s1 = [int(d) for d in s0], [int(d) for d in s1]
        n = max(len(s0), len(s1))
        p0, p1 = [1] * (n - len(s0)) + s0, [1] * (n - len(s1)) + s1
        r0 = [i for i in range(n) if p0[i] == 1 and p1[i] != 1]
        r1 = [i for i in range(n) if p1[i] == 1 and p0[i] != 1]
        r0 += [i for i in range(n) if p0[i] == 1 and p1[i] == 1 and i < n - len(s0)]
        r1 += [i for i in range(n) if p0[i] == 1 and p1[i] == 1 and i < n - len(s1)]
        return np.array(sorted(set(r0)), np.int32), np.array(sorted(set(r1)), np.int32)
    return broadcast_gradient_args


register_op("BroadcastGradientArgs", lambda op: [(dtypes.int32, TensorShape([None]))] * 2, _bga_kernel,
            multi_output=True)


# --- broadcasting ------------------------------------------------------------------------------
def _static_reduction_axes(shape, grad_shape):
    """Axes of `grad_shape` that broadcasting added to `shape` (summed to undo it)."""
    n = len(grad_shape)
    padded = [1] * (n - len(shape)) + list(shape)
    return [i for i in range(n) if padded[i] == 1 and grad_shape[i] != 1 or i < n - len(shape)]


def _smart_broadcast_gradient_args(x, y, grad):
    """((sx, rx, must_reduce_x), (sy, ry, must_reduce_y)) as TensorFlow's SmartBroadcastGradientArgs:
    with static shapes the reduction axes are computed now and nothing needs reducing when a shape
    already equals the gradient's; otherwise a BroadcastGradientArgs op computes them at run time."""
    if x.shape.is_fully_defined() and y.shape.is_fully_defined() and grad.shape.is_fully_defined():
        gshape = grad.shape.as_list()
        sx = array_ops.constant(x.shape.as_list(), dtypes.int32, name="Shape")
        sy = array_ops.constant(y.shape.as_list(), dtypes.int32, name="Shape_1")
        rx = _static_reduction_axes(x.shape.as_list(), gshape)
        ry = _static_reduction_axes(y.shape.as_list(), gshape)
        return (sx, rx, x.shape.as_list() != gshape), (sy, ry, y.shape.as_list() != gshape)
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    rx, ry = apply_op("BroadcastGradientArgs", [("s0", sx), ("s1", sy)]).outputs
    return (sx, rx, True), (sy, ry, True)


def _reduce_to(grad, x):
    """Sum `grad` down to `x`'s shape (undoing broadcasting)."""
    if x.shape.is_fully_defined() and grad.shape.is_fully_defined():
        if x.shape == grad.shape:
            return grad
        axes = _static_reduction_axes(x.shape.as_list(), grad.shape.as_list())
        return array_ops.reshape(math_ops.reduce_sum(grad, axes, keepdims=True), x.shape.as_list())
    sx = array_ops.shape(x)
    rx, _ = apply_op("BroadcastGradientArgs", [("s0", sx), ("s1", array_ops.shape(grad))]).outputs
    return array_ops.reshape(math_ops.reduce_sum(grad, rx, keepdims=True), sx)


def _finish(g, args):
    """TensorFlow's `_ReduceGradientArg`: sum over the broadcast axes keeping them (keepdims=True), reshape."""
    s, r, must = args
    return array_ops.reshape(math_ops.reduce_sum(g, r, keepdims=True), s) if must else g


def _same_static_shapes(op, grad):
    x, y = op.inputs
    return all(t.shape.is_fully_defined() for t in (x, y, grad)) and x.shape == y.shape == grad.shape


@RegisterGradient("AddV2")
@RegisterGradient("Add")
def _add_grad(op, grad):
    if _same_static_shapes(op, grad):
        return grad, grad
    ax, ay = _smart_broadcast_gradient_args(*op.inputs, grad)
    return _finish(grad, ax), _finish(grad, ay)


@RegisterGradient("Sub")
def _sub_grad(op, grad):
    if _same_static_shapes(op, grad):
        return grad, -grad
    ax, ay = _smart_broadcast_gradient_args(*op.inputs, grad)
    gy = -grad if not ay[2] else -math_ops.reduce_sum(grad, ay[1])
    return _finish(grad, ax), (gy if not ay[2] else array_ops.reshape(gy, ay[0]))


@RegisterGradient("Mul")
def _mul_grad(op, grad):
    x, y = op.inputs
    if _same_static_shapes(op, grad):
        return math_ops.multiply(grad, y), math_ops.multiply(grad, x)
    gx, gy = math_ops.multiply(grad, y), math_ops.multiply(x, grad)
    ax, ay = _smart_broadcast_gradient_args(x, y, grad)
    return _finish(gx, ax), _finish(gy, ay)


def _binary(op, gx, gy):
    ax, ay = _smart_broadcast_gradient_args(*op.inputs, gx if gx is not None else gy)
    return (None if gx is None else _finish(gx, ax)), (None if gy is None else _finish(gy, ay))


def _quotient_grad(op, grad, divide):
    """d(x / y): grad / y and -grad * x / y / y, every division by `divide` (math_grad._RealDivGrad, and
    _DivNoNanGrad, whose divisions are DivNoNan: 0 where y is 0)."""
    x, y = op.inputs
    return _binary(op, divide(grad, y), grad * divide(divide(-x, y), y))


@RegisterGradient("RealDiv")
def _real_div_grad(op, grad):
    return _quotient_grad(op, grad, math_ops.div)


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op, grad):
    return _quotient_grad(op, grad, math_ops.div_no_nan)


@RegisterGradient("Pow")
def _pow_grad(op, grad):
    x, y = op.inputs
    z = op.outputs[0]
    gx = grad * y * math_ops.pow(x, y - array_ops.constant(1, dtype=y.dtype))
    safe_log = array_ops.where(x > 0, math_ops.log(array_ops.where(x > 0, x, array_ops.ones_like(x))),
                               static_shapes.zeros_like(x))
    gy = grad * z * safe_log
    return _binary(op, gx, gy)


def _maximum_minimum_grad(op, grad, selector):
    """The gradient goes to whichever input was chosen, x on ties (math_grad._MaximumMinimumGrad)."""
    x, y = op.inputs
    mask = selector(x, y)
    zeros = array_ops.zeros_like(grad)
    return _binary(op, array_ops.where_v2(mask, grad, zeros), array_ops.where_v2(mask, zeros, grad))


@RegisterGradient("Maximum")
def _maximum_grad(op, grad):
    return _maximum_minimum_grad(op, grad, math_ops.greater_equal)


@RegisterGradient("Minimum")
def _minimum_grad(op, grad):
    return _maximum_minimum_grad(op, grad, math_ops.less_equal)


@RegisterGradient("SquaredDifference")
def _squared_difference_grad(op, grad):
    x, y = op.inputs
    g = grad * 2.0 * (x - y)
    return _binary(op, g, -g)


@RegisterGradient("FloorMod")
def _floor_mod_grad(op, grad):
    x, y = op.inputs
    return _binary(op, grad, grad * -math_ops.floor(math_ops.div(x, y)))


@RegisterGradient("AddN")
def _add_n_grad(op, grad):
    return [grad] * len(op.inputs)


# --- unary ----------------------------------------------------------------------------------------
@RegisterGradient("Neg")
def _neg_grad(_, grad):
    return -grad


@RegisterGradient("Abs")
def _abs_grad(op, grad):
    return grad * math_ops.sign(op.inputs[0])


@RegisterGradient("Square")
def _square_grad(op, grad):
    x = op.inputs[0]
    return math_ops.multiply(grad, math_ops.multiply(x, array_ops.constant(2, dtype=x.dtype)))


@RegisterGradient("Sqrt")
def _sqrt_grad(op, grad):
    return sqrt_grad(op.outputs[0], grad)


@RegisterGradient("Rsqrt")
def _rsqrt_grad(op, grad):
    return rsqrt_grad(op.outputs[0], grad)


@RegisterGradient("Exp")
def _exp_grad(op, grad):
    return grad * op.outputs[0]


@RegisterGradient("Log")
def _log_grad(op, grad):
    return grad * math_ops.reciprocal(op.inputs[0])


@RegisterGradient("Log1p")
def _log1p_grad(op, grad):
    x = op.inputs[0]
    return grad * math_ops.reciprocal(array_ops.constant(1, dtype=x.dtype) + x)


@RegisterGradient("Reciprocal")
def _reciprocal_grad(op, grad):
    return reciprocal_grad(op.outputs[0], grad)


@RegisterGradient("Sin")
def _sin_grad(op, grad):
    return grad * math_ops.cos(op.inputs[0])


@RegisterGradient("Cos")
def _cos_grad(op, grad):
    return -grad * math_ops.sin(op.inputs[0])


@RegisterGradient("Tanh")
def _tanh_grad(op, grad):
    return tanh_grad(op.outputs[0], grad)


@RegisterGradient("Sigmoid")
def _sigmoid_grad(op, grad):
    return sigmoid_grad(op.outputs[0], grad)


@RegisterGradient("Relu")
def _relu_grad(op, grad):
    return relu_grad(grad, op.outputs[0])


@RegisterGradient("Softmax")
def _softmax_grad(op, grad):
    y = op.outputs[0]
    return (grad - math_ops.reduce_sum(grad * y, -1, keepdims=True)) * y


@RegisterGradient("Cast")
def _cast_grad(op, grad):
    src = op.inputs[0].dtype
    if src.is_floating and op.outputs[0].dtype.is_floating:
        return array_ops.cast(grad, src)
    return None


# --- matmul and reductions ------------------------------------------------------------------------
@RegisterGradient("MatMul")
def _matmul_grad(op, grad):
    """TensorFlow's `_MatMulGrad`; its two MatMuls are marked `grad_a` and `grad_b`, as TensorFlow marks them."""
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not ta and not tb:
        da, db = math_ops.matmul(grad, b, transpose_b=True), math_ops.matmul(a, grad, transpose_a=True)
    elif not ta and tb:
        da, db = math_ops.matmul(grad, b), math_ops.matmul(grad, a, transpose_a=True)
    elif ta and not tb:
        da, db = math_ops.matmul(b, grad, transpose_b=True), math_ops.matmul(a, grad)
    else:
        da, db = (math_ops.matmul(b, grad, transpose_a=True, transpose_b=True),
                  math_ops.matmul(grad, a, transpose_a=True, transpose_b=True))
    da.op._set_attr("grad_a", True)
    db.op._set_attr("grad_b", True)
    return da, db


def _kept_dims_shape(op):
    """The reduced output's shape with the reduced axes kept as 1 (a static list when possible)."""
    x, axes = op.inputs
    axes_value = array_ops._const_value(axes)
    if x.shape.is_fully_defined() and axes_value is not None:
        n = x.shape.ndims
        reduced = {int(a) % n for a in np.reshape(axes_value, -1)} if n else set()
        return [1 if i in reduced else d for i, d in enumerate(x.shape.as_list())], x.shape.as_list()
    return None, None


def _reduced_shape_kernel(op):
    def reduced_shape(input_shape, axes):
        shape = np.array(input_shape, dtype=np.int32)
        shape[np.reshape(axes, -1) % max(1, len(shape))] = 1
        return shape
    return reduced_shape


# TensorFlow builds this from several small ops (math_ops.reduced_shape); one op reads better here.
register_op("ReducedShape", lambda op: [(dtypes.int32, op._inputs[0].shape)], _reduced_shape_kernel)


def _kept_dims(op):
    """(shape with reduced axes kept as 1, input shape), static lists when known, else tensors."""
    kept, full = _kept_dims_shape(op)
    if kept is not None:
        return kept, full
    x, axes = op.inputs
    full = array_ops.shape(x)
    kept = apply_op("ReducedShape", [("input_shape", full), ("axes", axes)]).outputs[0]
    return kept, full


@RegisterGradient("Sum")
def _sum_grad(op, grad):
    kept, full = _kept_dims(op)
    if isinstance(kept, list):
        multiples = [f // max(1, k) for f, k in zip(full, kept)]
        return array_ops.tile(array_ops.reshape(grad, kept), array_ops.constant(multiples, dtypes.int32)), None
    return array_ops.broadcast_to(array_ops.reshape(grad, kept), full), None


@RegisterGradient("Mean")
def _mean_grad(op, grad):
    sum_grad = _sum_grad(op, grad)[0]
    kept, full = _kept_dims_shape(op)
    if kept is not None:
        count = array_ops.constant(int(np.prod(full)) // max(1, int(np.prod(kept))), dtype=sum_grad.dtype)
    else:
        count = array_ops.cast(math_ops.div(array_ops.size(op.inputs[0]), array_ops.size(op.outputs[0])),
                               sum_grad.dtype)
    return math_ops.div(sum_grad, count), None


def _min_or_max_grad(op, grad):
    kept, _ = _kept_dims(op)
    y = array_ops.reshape(op.outputs[0], kept)
    g = array_ops.reshape(grad, kept)
    x = op.inputs[0]
    indicators = array_ops.cast(math_ops.equal(y, x), g.dtype)
    num_selected = array_ops.reshape(math_ops.reduce_sum(indicators, op.inputs[1]), kept)
    return math_ops.div(indicators, num_selected) * g, None


RegisterGradient("Max")(_min_or_max_grad)
RegisterGradient("Min")(_min_or_max_grad)


def cumprod(x, axis, exclusive=False, reverse=False):
    """A Cumprod op (`tf.math.cumprod`): the gradient of Prod is built from exclusive cumulative products, as
    TensorFlow's `_ProdGrad` does."""
    return apply_op("Cumprod", [("x", x), ("axis", axis)], {"exclusive": exclusive, "reverse": reverse},
                    dtypes={"axis": dtypes.int32}).outputs[0]


@RegisterGradient("Prod")
def _prod_grad(op, grad):
    """TensorFlow's `_ProdGrad`: an entry's gradient is the product of the *other* entries of its reduction, an
    exclusive cumulative product from the left times one from the right (never y / x, which is 0/0 at a zero).
    The reduced axes are moved to the front and flattened into one, so one pair of cumprods covers them all."""
    x, axes = op.inputs
    kept, full = _kept_dims(op)
    grad = array_ops.broadcast_to(array_ops.reshape(grad, kept), full)
    rank = array_ops.rank(x)
    reduced = math_ops.floormod(array_ops.reshape(array_ops.cast(axes, dtypes.int32), [-1]) + rank,
                                math_ops.maximum(rank, 1))
    other = apply_op("ListDiff", [("x", array_ops.range(0, rank)), ("y", reduced)], {"out_idx": dtypes.int32},
                     same_type=("x", "y")).outputs[0]
    perm = array_ops_stack.concat([reduced, other], 0)
    shape = static_shapes.shape(x)
    reduced_num = math_ops.reduce_prod(slicing_ops.gather(shape, reduced))
    other_num = math_ops.reduce_prod(slicing_ops.gather(shape, other))
    permuted = array_ops.transpose(x, perm)
    flat = array_ops.reshape(permuted, array_ops_stack.stack([reduced_num, other_num]))
    others = cumprod(flat, 0, exclusive=True) * cumprod(flat, 0, exclusive=True, reverse=True)
    others = array_ops.reshape(others, array_ops.shape(permuted))
    inverse = apply_op("InvertPermutation", [("x", perm)]).outputs[0]
    return array_ops.reshape(grad * array_ops.transpose(others, inverse), shape), None


@RegisterGradient("Sign")
def _sign_grad(op, _):
    """Zero, not None (math_grad._SignGrad): sign(x) is differentiable almost everywhere."""
    return static_shapes.zeros_like(op.inputs[0])


@RegisterGradient("Floor")
def _floor_grad(_, unused_grad):
    return [None]


@RegisterGradient("Round")
def _round_grad(_, unused_grad):
    """No gradient, registered rather than declared (math_grad._RoundGrad): a step function's slope is 0 almost
    everywhere, and TensorFlow answers None for it, as for Floor."""
    return [None]


@RegisterGradient("FloorDiv")
def _floor_div_grad(_, unused_grad):
    return None, None


@RegisterGradient("ArgMax")
@RegisterGradient("ArgMin")
def _arg_max_grad(_, unused_grad):
    """An index has no gradient; TensorFlow registers a function that says so (math_grad._ArgMaxGrad)."""
    return [None, None]


# Ops TensorFlow declares not differentiable (ops.NotDifferentiable). An op TensorFlow leaves without any
# registration (Where, Placeholder, NoOp, ...) stays unregistered here too, so that a gradient reaching it is
# TensorFlow's LookupError rather than a silent None (tests/test_gradient_table.py holds the two tables together).
for _type in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr",
              "LogicalNot", "BroadcastGradientArgs", "Range", "Shape", "Size", "Rank", "ZerosLike", "OnesLike",
              "Const", "StopGradient", "VarIsInitializedOp", "Assert", "ReducedShape",
              # bitwise_ops.py declares the integer bit operations not differentiable
              "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift"):
    NotDifferentiable(_type)
