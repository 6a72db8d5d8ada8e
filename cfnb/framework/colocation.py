"""`tf.compat.v1.colocate_with`: ops created inside are placed with another op.

cfnb runs everything on one device, so placement changes nothing at run time; the op records its
group as TensorFlow does (the `_class` attribute, `b"loc:@name"`), which `Operation.colocation_groups`
returns. `ignore_existing=True` starts a fresh group instead of nesting; `colocate_with(None)` clears.
"""
import contextlib

from .ops import Operation, Tensor, get_default_graph


@contextlib.contextmanager
def colocate_with(op, ignore_existing=False):
    if op is not None and not isinstance(op, Operation):
        op = op.op if isinstance(op, Tensor) else getattr(op, "op", op)  # a Tensor or a Variable
    g = get_default_graph()
    stack = g.__dict__.setdefault("_colocation_stack", [])
    stack.append(op)
    try:
        yield
    finally:
        stack.pop()
