"""Gradients of the ops only TensorFlow's own graphs contain (ops/tf_graph_ops.py): what an imported GraphDef needs
to be differentiated as TensorFlow differentiates it.

cfnb's builders never emit `Cumsum`, `Cumprod`, `DynamicStitch`, `IdentityN` or the `Optional*` ops of a functional
cond's gradient, but a graph TensorFlow wrote holds them, and TensorFlow registers a gradient for each
(math_grad.py, data_flow_grad.py, array_grad.py, optional_grad.py); the index arithmetic (`ConcatOffset`,
`InvertPermutation`, `ShapeN`, `VariableShape`) is declared not differentiable, as TensorFlow declares it. These
ops are registered by ops/tf_graph_ops.py, which needs the gradient helpers of array_grad.py first, so their
gradients live here, imported last.
"""
from ..framework import dtypes
from ..framework.op_def_library import apply_op
from ..framework.registry import NotDifferentiable, RegisterGradient
from ..ops import array_ops, math_ops, slicing_ops, tf_graph_ops  # noqa: F401 - tf_graph_ops registers the ops
from .math_grad import cumprod


def _cumsum(x, axis, exclusive=False, reverse=False):
    return apply_op("Cumsum", [("x", x), ("axis", axis)], {"exclusive": exclusive, "reverse": reverse},
                    dtypes={"axis": dtypes.int32}).outputs[0]


@RegisterGradient("Cumsum")
def _cumsum_grad(op, grad):
    """A cumulative sum's gradient is the cumulative sum the other way (math_grad._CumsumGrad)."""
    return _cumsum(grad, op.inputs[1], op.get_attr("exclusive"), not op.get_attr("reverse")), None


@RegisterGradient("Cumprod")
def _cumprod_grad(op, grad):
    """TensorFlow's `_CumprodGrad`: the reversed cumulative sum of prod * grad, divided by x (0 where x is 0)."""
    x, axis = op.inputs
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    prod = cumprod(x, axis, exclusive, reverse)
    return math_ops.div_no_nan(_cumsum(prod * grad, axis, exclusive, not reverse), x), None


@RegisterGradient("DynamicStitch")
def _dynamic_stitch_grad(op, grad):
    """Each data input gets the rows of the gradient its indices wrote (data_flow_grad._DynamicStitchGrads)."""
    n = len(op.inputs) // 2
    return [None] * n + [slicing_ops.gather(grad, array_ops.cast(i, dtypes.int32)) for i in op.inputs[:n]]


@RegisterGradient("IdentityN")
def _identity_n_grad(_, *grads):
    return list(grads)


@RegisterGradient("OptionalFromValue")
def _optional_from_value_grad(op, grad):
    """The components' gradients are the gradient optional's values (optional_grad._OptionalFromValueGrad)."""
    return list(apply_op("OptionalGetValue", [("optional", grad)],
                         {"output_types": [t.dtype for t in op.inputs],
                          "output_shapes": [t.shape for t in op.inputs]}).outputs)


@RegisterGradient("OptionalGetValue")
def _optional_get_value_grad(op, *grads):
    """The optional's gradient holds the values' gradients (optional_grad._OptionalGetValueGrad)."""
    grads = [g if g is not None else array_ops.zeros_like(t) for g, t in zip(grads, op.outputs)]
    return apply_op("OptionalFromValue", [(f"components_{i}", g) for i, g in enumerate(grads)]).outputs[0]


for _type in ("ConcatOffset", "InvertPermutation", "ShapeN", "VariableShape"):
    NotDifferentiable(_type)  # index arithmetic, as TensorFlow declares it
