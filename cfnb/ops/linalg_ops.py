"""`norm`: vector p-norms and the Frobenius norm, built from element-wise ops and reductions.

TensorFlow's `tf.norm` composes its result the same way (linalg_ops.norm): `sqrt(sum(x * x))` for the
euclidean norm, `sum(|x|)` for ord=1, `max(|x|)` for ord=inf, `sum(|x|^p)^(1/p)` otherwise, so its
gradient is the gradient of those ops. With `axis=None` the tensor is treated as one vector.
"""
import numpy as np

from ..framework.ops import convert_to_tensor, get_default_graph
from . import complex_ops, math_ops


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """`tf.norm`: vector norms (euclidean, 1, inf, any positive p) and the Frobenius norm of matrices, built from
    element-wise ops and reductions so that its gradient comes from theirs; other orders are refused."""
    keepdims = bool(keep_dims if keep_dims is not None else keepdims)
    is_matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if isinstance(axis, (list, tuple)) and not is_matrix:
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
    supported = ("euclidean", "fro", 1, 2, np.inf) if not is_matrix else ("euclidean", "fro")
    if not (ord in supported or (not is_matrix and isinstance(ord, (int, float)) and ord > 0)):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}" if not is_matrix else
                         f"'ord' must be a supported matrix norm in cfnb ('fro', 'euclidean'), got {ord}")
    with get_default_graph().name_scope(name or "norm"):
        x = convert_to_tensor(tensor)
        axis = list(axis) if is_matrix else axis
        if ord in ("euclidean", "fro", 2):
            sq = complex_ops.real(x * complex_ops.conj(x)) if x.dtype.is_complex else x * x
            return math_ops.sqrt(math_ops.reduce_sum(sq, axis, keepdims=keepdims))
        a = complex_ops.abs(x)
        if ord == 1:
            return math_ops.reduce_sum(a, axis, keepdims=keepdims)
        if ord == np.inf:
            return math_ops.reduce_max(a, axis, keepdims=keepdims)
        return math_ops.pow(math_ops.reduce_sum(math_ops.pow(a, float(ord)), axis, keepdims=keepdims), 1.0 / ord)
