"""The ops a unary op's gradient is written with, and their own gradients: what second derivatives are made of.

TensorFlow computes the first derivative of `tanh`, `sigmoid`, `sqrt`, `rsqrt`, `reciprocal` and `relu` with one
fused kernel each (`TanhGrad(y, dy) = dy * (1 - y^2)`, ...; `gen_math_ops.tanh_grad`, `gen_nn_ops.relu_grad`). Those
kernels are ops like any other, so a gradient of a gradient passes through them and needs *their* gradients:
TensorFlow registers them in math_grad.py (`_TanhGradGrad`, `_SigmoidGradGrad`, `_SqrtGradGrad`, `_RsqrtGradGrad`,
`_ReciprocalGradGrad`) and nn_grad.py (`_ReluGradGrad`). Declaring them not differentiable instead would drop a term
of every second derivative silently (d²/dx² sum(sigmoid(x) * x) would lose sigmoid'' * x), which is why each rule
here is checked against finite differences of the first derivative (tests/test_gradient_table.py).

Each fused op `F(a, b)` is linear in `b` (the incoming gradient), so its gradient with respect to `b` is `F(a, grad)`
again, and with respect to `a` is what differentiating the formula in `a` gives.
"""
import numpy as np

from ..framework.op_def_library import apply_op
from ..framework.registry import RegisterGradient, register_op
from ..ops import math_ops
from . import static_shapes


def _grad_op(op_type, fn):
    """Register `op_type(y, dy)` with kernel `fn` and return its builder."""
    register_op(op_type, lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], lambda op: fn)

    def build(y, dy, name=None):
        return apply_op(op_type, [("y", y), ("dy", dy)], name=name, default_name=op_type,
                        same_type=("y", "dy")).outputs[0]
    build.__name__ = op_type
    return build


def _tanh_grad(y, dy):
    """dy * (1 - y * y), written into the one temporary y * y when the shapes and dtypes allow: the same
    roundings in the same order (1 - t, then dy * t), two allocations fewer per call (an RNN's gradient loop
    runs it every step)."""
    t = y * y
    if type(t) is np.ndarray and type(dy) is np.ndarray and t.shape == dy.shape and t.dtype == dy.dtype:
        np.subtract(1, t, out=t)
        return np.multiply(dy, t, out=t)
    return dy * (1 - t)


tanh_grad = _grad_op("TanhGrad", _tanh_grad)
sigmoid_grad = _grad_op("SigmoidGrad", lambda y, dy: dy * y * (1 - y))
sqrt_grad = _grad_op("SqrtGrad", lambda y, dy: dy * 0.5 / y)
rsqrt_grad = _grad_op("RsqrtGrad", lambda y, dy: dy * -0.5 * y * y * y)
reciprocal_grad = _grad_op("ReciprocalGrad", lambda y, dy: -dy * y * y)
register_op("ReluGrad", lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
            lambda op: lambda dy, features: np.where(features > 0, dy, np.zeros_like(dy)))


def relu_grad(gradients, features, name=None):
    """`gradients` where `features > 0`, else 0 (gen_nn_ops.relu_grad)."""
    return apply_op("ReluGrad", [("gradients", gradients), ("features", features)], name=name,
                    default_name="ReluGrad", same_type=("gradients", "features")).outputs[0]


@RegisterGradient("TanhGrad")
@RegisterGradient("ReciprocalGrad")
def _tanh_or_reciprocal_grad_grad(op, grad):
    """TanhGrad(a, b) = b * (1 - a^2) and ReciprocalGrad(a, b) = -b * a^2 share d/da = -2ab; d/db is the op again
    (math_grad._TanhGradGrad, _ReciprocalGradGrad)."""
    a, b = op.inputs
    return grad * -2.0 * b * a, (tanh_grad if op.type == "TanhGrad" else reciprocal_grad)(a, grad)


@RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op, grad):
    """SigmoidGrad(a, b) = b * a * (1 - a): d/da = b - 2ab, d/db = SigmoidGrad(a, .) (math_grad._SigmoidGradGrad)."""
    a, b = op.inputs
    gb = grad * b
    return gb - 2.0 * gb * a, sigmoid_grad(a, grad)


@RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op, grad):
    """SqrtGrad(a, b) = 0.5 * b / a: d/da = -y / a, d/db = 0.5 / a (math_grad._SqrtGradGrad)."""
    a = op.inputs[0]
    y = op.outputs[0]
    ga = math_ops.div(grad, a)
    return -ga * y, 0.5 * ga


@RegisterGradient("RsqrtGrad")
def _rsqrt_grad_grad(op, grad):
    """RsqrtGrad(a, b) = -0.5 * b * a^3: d/da = -1.5 b a^2, d/db = RsqrtGrad(a, .) (math_grad._RsqrtGradGrad)."""
    a, b = op.inputs
    return -1.5 * grad * b * math_ops.square(a), rsqrt_grad(a, grad)


@RegisterGradient("ReluGrad")
def _relu_grad_grad(op, grad):
    """ReluGrad passes its gradient where the features are positive: so does its gradient; the features get
    zeros (nn_grad._ReluGradGrad)."""
    x = op.inputs[1]
    return relu_grad(grad, x), static_shapes.zeros_like(x)
