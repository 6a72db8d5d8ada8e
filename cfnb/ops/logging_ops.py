"""`Assert`, `Print` and `PrintV2` (`tf.print`): stateful ops that check or show values as the graph runs."""
import sys

import numpy as np

from ..framework import dtypes, errors
from ..framework.op_def_library import apply_op
from ..framework.ops import convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from .string_format import string_format


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
    """`tf.compat.v1.Print`: `input_` passed through, printing `message` and `data` to stderr each time it runs (in a
    loop, once per iteration)."""
    return apply_op("Print", [("input", input_)] + [(f"data_{i}", d) for i, d in enumerate(data)],
                    {"message": message}, name=name, default_name="Print").outputs[0]


# --- tf.print: StringFormat -> PrintV2 ------------------------------------------------------------
class OutputStream:
    """Where a PrintV2 writes. `sys.stdout` and `sys.stderr` (and TensorFlow's names "stdout",
    "stderr") are looked up when the op runs, not when it is built, so whatever has replaced them
    by then (IPython's, pytest's capture) receives the text; any other object with `write` is used
    as it is. `str()` is the stream's name, so graph texts do not depend on memory addresses."""

    __slots__ = ("name", "stream")

    def __init__(self, stream):
        if stream in ("stdout", "stderr"):
            self.name, self.stream = stream, None
        elif stream is sys.stdout or stream is sys.__stdout__:
            self.name, self.stream = "stdout", None
        elif stream is sys.stderr or stream is sys.__stderr__:
            self.name, self.stream = "stderr", None
        elif hasattr(stream, "write"):
            self.name, self.stream = str(getattr(stream, "name", type(stream).__name__)), stream
        else:
            raise ValueError(f"output_stream must be sys.stdout, sys.stderr, 'stdout', 'stderr' or an object with a "
                             f"`write` method, got {stream!r}")

    def resolve(self):
        """The stream to print to: the one given, or the process's stdout/stderr looked up at print time (so that
        IPython's and pytest's captures see it)."""
        if self.stream is not None:
            return self.stream
        return sys.stdout if self.name == "stdout" else sys.stderr

    def __repr__(self):
        return self.name


def _print_v2_kernel(op, state):
    stream, end = op.get_attr("output_stream"), op.get_attr("end")

    def print_v2(text):
        stream.resolve().write(f"{text.decode() if isinstance(text, bytes) else text}{end}")
    return print_v2


register_op("PrintV2", lambda op: [], _print_v2_kernel, stateful=True)


def print_v2(*inputs, output_stream="stderr", sep=" ", end="\n", summarize=3, formatter="tensorflow", name=None):
    """TensorFlow's `tf.print`: a StringFormat op turns `inputs` (strings, tensors, Python values,
    nested structures of them) into one string, and a stateful PrintV2 op writes it, followed by
    `end`, to `output_stream` every time it runs; returns the PrintV2 op.

    In graph mode the op runs only when something needs it: fetch it, or make it a control input
    of what you fetch. Inside a `while_loop` body, tie it to the body's outputs, as AutoGraph does:

        def body(i):
            p = cfnb.print("i =", i)
            with cfnb.control_dependencies([p]):
                return i + 1

    then it prints once per iteration, in order. `formatter="python"` prints each value as Python's
    `print` prints its numpy value (string_format.py); "tensorflow" (the default) as TensorFlow does.
    """
    stream = OutputStream(output_stream)
    g = get_default_graph()
    with g.name_scope(name or "PrintV2") as scope:
        text = string_format(inputs, sep=sep, summarize=summarize, formatter=formatter)
        return g.create_op("PrintV2", [text], {"output_stream": stream, "end": end}, name=scope)
