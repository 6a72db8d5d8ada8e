"""`Assert` and `Print`: stateful ops that check or show values as the graph runs."""
import numpy as np

from ..framework import dtypes, errors
from ..framework.op_def_library import apply_op
from ..framework.ops import convert_to_tensor, get_default_graph
from ..framework.registry import register_op


def _summarize(value, summarize):
    """A tensor as TensorFlow's Assert prints it: `[1 2 3...]` (the first `summarize` elements), booleans as 0/1."""
    value = np.asarray(value)
    if value.dtype == np.bool_:
        value = value.astype(np.int8)
    if value.ndim > 1:
        return np.array2string(value, threshold=summarize)
    flat = [str(v) for v in value.reshape(-1)]
    return "[" + " ".join(flat[:summarize]) + ("..." if len(flat) > summarize else "") + "]"


def _assert_kernel(op, state):
    summarize = op.get_attr("summarize")

    def assert_(condition, *data):
        if not bool(condition):
            raise errors.InvalidArgumentError(op, op, "assertion failed: " + " ".join(
                f"[{d}]" if isinstance(d, str) else _summarize(d, summarize) for d in data))
    return assert_


register_op("Assert", lambda op: [], _assert_kernel, stateful=True)


def Assert(condition, data, summarize=3, name=None):  # noqa: N802 - TensorFlow's name
    """Fail the run with `assertion failed: [data...]` when `condition` is false."""
    g = get_default_graph()
    with g.name_scope(name or "Assert") as scope:
        condition = convert_to_tensor(condition, name="condition")
        tensors = [convert_to_tensor(d) for d in data]
        return apply_op("Assert", [("condition", condition)] + [(f"data_{i}", t) for i, t in enumerate(tensors)],
                        {"summarize": summarize}, name=scope, dtypes={"condition": dtypes.bool_})


def _print_kernel(op, state):
    message = op.get_attr("message")

    def print_(x, *data):
        print(message + " ".join(str(np.asarray(d)) for d in data))
        return x
    return print_


register_op("Print", lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], _print_kernel, stateful=True)


def Print(input_, data, message="", name=None):  # noqa: N802 - TensorFlow's name
    return apply_op("Print", [("input", input_)] + [(f"data_{i}", d) for i, d in enumerate(data)],
                    {"message": message}, name=name, default_name="Print").outputs[0]
