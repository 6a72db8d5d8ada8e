"""Reverse-mode gradients: the traversal, the per-op gradient table, control-flow gradients."""
from . import array_grad, control_flow_grad, functional_grad, math_grad, tensor_array_grad  # noqa: F401
from .gradients_util import gradients, hessians

__all__ = ["gradients", "hessians"]
