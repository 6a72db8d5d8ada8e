"""`PyFunc`: a Python function called when the graph runs (TensorFlow's `tf.compat.v1.py_func`,
`tensorflow/python/ops/script_ops.py`).

The function gets the inputs' values as numpy values and its results become the op's outputs, in the dtypes
`Tout` names. It runs every time the op runs: inside a loop, on every iteration. So a Python side effect (a
print, a file write, an append to a list outside the graph) happens as often as the program says, which tracing
the function once while the graph is built cannot do. As in TensorFlow, the function is kept in a registry
under a token (the op's `token` attr), the op is stateful (never pruned, never folded) and has no gradient, and
a GraphDef that holds one cannot be imported (its function is not in the GraphDef).
"""
import itertools

import numpy as np

from ..framework import dtypes
from ..framework.ops import convert_to_tensor, get_default_graph
from ..framework.registry import NotDifferentiable, register_op
from ..framework.tensor_shape import TensorShape

_FUNCS = {}  # token -> the Python function (TensorFlow's FuncRegistry)
_TOKENS = itertools.count()


def _infer(op):
    return [(dtypes.as_dtype(t), TensorShape(None)) for t in op.get_attr("Tout")]


def _kernel(op, state):
    func, tout = _FUNCS[op.get_attr("token")], [dtypes.as_dtype(t) for t in op.get_attr("Tout")]

    def call(*values):
        out = func(*values)
        if not tout:
            return []
        results = out if isinstance(out, (list, tuple)) else [out]
        if len(results) != len(tout):
            raise ValueError(f"the function of {op.name} returned {len(results)} values, Tout names {len(tout)}")
        return [np.asarray(r, dtype=t.as_numpy_dtype) for r, t in zip(results, tout)]
    return call


register_op("PyFunc", _infer, _kernel, stateful=True, multi_output=True)
NotDifferentiable("PyFunc")


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TensorFlow's argument names
    """Call `func(*values of inp)` when the graph runs; returns its outputs (a list when `Tout` is a list, None
    when it is empty: an op to run as a target or a control input, for its side effect)."""
    token = f"pyfunc_{next(_TOKENS)}"
    _FUNCS[token] = func
    many = isinstance(Tout, (list, tuple))
    tout = [dtypes.as_dtype(t) for t in (Tout if many else [Tout])]
    inputs = [convert_to_tensor(x) for x in inp]
    op = get_default_graph().create_op("PyFunc", inputs, {"token": token, "Tout": tout}, name=name or "PyFunc")
    if not tout:
        return op
    return list(op.outputs) if many else op.outputs[0]
