"""Reverse-mode gradients: the traversal, the per-op gradient table, control-flow gradients."""
from . import (  # noqa: F401
    array_grad,
    control_flow_grad,
    functional_grad,
    math_grad,
    tensor_array_grad,
    tf_graph_ops_grad,  # noqa: F401 - after array_grad, whose ops ops/tf_graph_ops.py extends
)
from .gradients_util import gradients, hessians

__all__ = ["gradients", "hessians"]
