"""`Assert` and `Print`: stateful ops that check or show values as the graph runs."""
import numpy as np

from ..framework import dtypes, errors
from ..framework.op_def_library import apply_op
from ..framework.ops import convert_to_tensor, get_default_graph
from ..framework.registry import register_op


def _assert_kernel(op, state):
    summarize = op.get_attr("summarize")

    def assert_(condition, *data):
        if not bool(condition):
            raise errors.InvalidArgumentError(op, op, "assertion failed: " + " ".join(_summarize(d, summarize)
                                                                                    for d in data))
    return assert_


def _summarize(value, summarize):
    """TensorFlow's `Tensor::SummarizeValue` (v1 form): the first `summarize` elements, flattened, in one
    pair of brackets, `...` when some are left out: `[2 1]`, `[1 2 3...]`."""
    flat = np.asarray(value).reshape(-1)
    shown = [_element_text(v) for v in flat[:summarize]]
    return "[" + " ".join(shown) + ("..." if flat.size > summarize else "") + "]"


def _element_text(v):
    if isinstance(v, bytes):
        return v.decode(errors="replace")
    if isinstance(v, np.floating):
        return np.format_float_positional(v, trim="-")
    if isinstance(v, np.bool_):
        return "1" if v else "0"
    return str(v)


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
