"""Tensor: one output of an Operation, the value that flows along a graph edge.

TensorFlow 2.x keeps the class in `framework/tensor.py` (it was `ops.Tensor`). A Tensor knows its
op, its position among the op's outputs, its dtype and its static shape; it has no value until a
session runs the graph, which is why `bool(t)` and `for x in t` are refused in graph mode. Its
operators (`t + 1`, `t[i]`) are installed by the op layer (`ops/math_ops.py`), which owns the ops
they build, and `t.eval()` finds its session on the framework's default-session stack.
"""
from . import build_journal, errors
from .default_session import eval_using_default_session
from .tensor_shape import TensorShape, as_shape


class Tensor:
    """One output of an Operation: `op`, `value_index`, `dtype`, static `shape`."""

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "__weakref__")
    _JOURNAL_FIELDS = ("_consumers", "_shape")  # what a rewrite may change (build_journal.py)
    # numpy defers to the Tensor's reflected operators: `np.float64(1.) + t` is `t.__radd__(...)`.
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype, shape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = shape if type(shape) is TensorShape else as_shape(shape)
        self._consumers = []

    op = property(lambda self: self._op)
    value_index = property(lambda self: self._value_index)
    dtype = property(lambda self: self._dtype)
    graph = property(lambda self: self._op.graph)
    device = property(lambda self: self._op.device)

    @property
    def name(self):
        """`"<op name>:<output index>"`, TensorFlow's tensor name: what feeds, fetches and
        `Graph.get_tensor_by_name` use."""
        return f"{self._op.name}:{self._value_index}"

    @property
    def shape(self):
        """The static shape inferred when the op was built (TensorFlow's `Tensor.shape`); dimensions may be
        unknown (None)."""
        return self._shape

    def get_shape(self):
        """The same as `shape` (TensorFlow's `Tensor.get_shape`)."""
        return self._shape

    def set_shape(self, shape):
        """Refine the static shape with what the caller knows (TensorFlow's `Tensor.set_shape`): merged with
        the inferred shape, an incompatible shape is a ValueError."""
        build_journal.note(self)
        self._shape = self._shape.merge_with(shape)

    def consumers(self):
        """The ops that take this tensor as an input (TensorFlow's `Tensor.consumers`)."""
        return list(self._consumers)

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        """TensorFlow's `str(t)`: `Tensor("a:0", shape=(), dtype=float32)`; an unknown shape and an
        empty device are left out."""
        shape = f", shape={self._shape}" if self._shape.ndims is not None else ""
        device = f", device={self.device}" if self.device else ""
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name}{device})'

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed in Graph execution. "
                        "Use `cfnb.cond` for a branch on a tensor, or `cfnb.while_loop` for a loop.")

    def __iter__(self):
        # As TensorFlow in graph mode: a symbolic tensor has no elements to loop over in Python yet.
        raise errors.OperatorNotAllowedInGraphError(
            f"Iterating over a symbolic `tf.Tensor` is not allowed: {self.name} has no value until the graph "
            f"runs. Unstack it (`tf.unstack`) when its first dimension is static, or loop in the graph "
            f"(`tf.while_loop`, `tf.map_fn`).")

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Use cfnb.size or "
                        f"cfnb.shape.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array: run it "
                                  f"in a Session first.")

    def eval(self, feed_dict=None, session=None):
        """The tensor's value, run in `session` or the default one (TensorFlow's `Tensor.eval`)."""
        return eval_using_default_session(self, feed_dict, self.graph, session)

    # Operator overloads are installed by cfnb.ops.math_ops (it owns the ops they build).
