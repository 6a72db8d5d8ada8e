"""`cfnb.nn`: the few neural-network ops the course needs."""
from .ops.math_ops import relu, sigmoid, softmax, tanh

__all__ = ["relu", "sigmoid", "softmax", "tanh"]
