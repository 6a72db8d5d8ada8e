"""`StringFormat`: the values of tensors formatted into one string, as `tf.print` does before printing.

`tf.print("x is", x)` builds a StringFormat op (the tensors are its inputs, the rest of the call a
template) feeding a PrintV2 op. Two formatters:

  * "tensorflow" (TensorFlow's): floats with 6 (float32) or 15 (float64) significant digits, or 9
    or 17 when fewer do not round-trip (TensorFlow's `FloatToBuffer`), bools as 1/0, strings in
    quotes, arrays as nested brackets with the middle of any dimension longer than
    2 * `summarize` elided as `...` (TensorFlow's `SummarizeValue`);
  * "python": each value exactly as Python's `print` shows the numpy value (`str(np.float64(3.5))`
    is `3.5`, an array its `str`), and non-tensor arguments as `print` shows them. This is what
    the `%%whileloop` magic uses, so a cell prints what plain Python prints.

The template is the call's structure with each tensor replaced by a slot; at run time the slots
are filled with the values and every argument rendered, then joined with `sep`.
"""
import numpy as np

from ..framework import dtypes, nest
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape

FORMATTERS = ("tensorflow", "python")


class Slot:
    """Where the value of the StringFormat's `index`-th input goes in the template; with the python formatter,
    an f-string's `!r`/`!s` conversion ("r", "s", "a" or "") and format spec (`.3f`) are applied to it."""

    __slots__ = ("index", "conversion", "spec")

    def __init__(self, index, conversion="", spec=""):
        self.index, self.conversion, self.spec = index, conversion, spec

    def __repr__(self):
        return "{}"


class Formatted:
    """A tensor with an f-string's conversion and format spec (`f"{x:.3f}"`): a Slot that formats its value.
    `python`: the value stands for a Python number, whose `!r` is Python's (`0.5`, not `np.float64(0.5)`)."""

    __slots__ = ("tensor", "conversion", "spec")

    def __init__(self, tensor, conversion="", spec="", python=False):
        self.tensor, self.spec = tensor, spec
        self.conversion = conversion + ("p" if python and conversion in ("r", "a") else "")


class _Text:
    """A rendered value inside a Python structure: `str([...])` shows it as it is."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _float_text(v, digits, more):
    """TensorFlow's FloatToBuffer/DoubleToBuffer: %g with FLT_DIG or DBL_DIG digits, more when needed
    to read the same number back."""
    text = f"{v:.{digits}g}"
    return text if type(v)(text) == v or np.isnan(v) else f"{v:.{more}g}"


def _tf_element(v):
    if isinstance(v, np.floating):
        return _float_text(v, 6, 9) if v.dtype.itemsize <= 4 else _float_text(v, 15, 17)
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (str, bytes)):
        return f'"{v.decode() if isinstance(v, bytes) else v}"'
    return str(v)


def tf_summarize(value, summarize=3):
    """A value as TensorFlow's `SummarizeValue` prints it (`[1 2 3 ... 5 6 7]` with summarize 3)."""
    a = np.asarray(value)
    if a.ndim == 0:
        return _tf_element(a[()])

    def block(x, depth):
        n = x.shape[0]
        keep = list(range(n)) if summarize < 0 or n <= 2 * summarize else \
            list(range(summarize)) + [None] + list(range(n - summarize, n))
        if x.ndim == 1:
            return "[" + " ".join("..." if i is None else _tf_element(x[i]) for i in keep) + "]"
        sep = "\n" * (x.ndim - 1) + " " * (depth + 1)
        return "[" + sep.join("..." if i is None else block(x[i], depth + 1) for i in keep) + "]"
    return block(a, 0)


def _python_text(value, conversion="", spec=""):
    """`format(value, spec)` after `!r`/`!s`/`!a` as an f-string applies them; a string value (bytes in the
    graph, as TensorFlow's) is its text."""
    if isinstance(value, (bytes, np.bytes_)):
        value = value.decode()
    if conversion:  # "rp": repr of the Python number the value stands for
        python = conversion.endswith("p") and isinstance(value, np.generic)
        value = {"r": repr, "s": str, "a": ascii}[conversion[0]](value.item() if python else value)
    return format(value, spec) if spec else str(value)


def _render(value, formatter, summarize, slot=None):
    if formatter == "python":
        return _python_text(value, slot.conversion, slot.spec) if slot is not None else _python_text(value)
    return tf_summarize(value, summarize)


def format_values(structure, values, sep, formatter, summarize):
    """The template `structure` (the print call's arguments, tensors replaced by Slots) with `values`."""
    # A 0-d array shows as its scalar (`print([np.float64(1.5)])`), whichever a kernel returned.
    values = [v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in values]
    parts = []
    for arg in structure:
        if isinstance(arg, Slot):
            parts.append(_render(values[arg.index], formatter, summarize, arg))
        elif isinstance(arg, str):
            parts.append(arg)
        elif formatter == "python":
            parts.append(str(nest.map_structure(lambda s: values[s.index] if isinstance(s, Slot) else s, arg)))
        else:
            parts.append(str(nest.map_structure(
                lambda s: _Text(_render(values[s.index], formatter, summarize)) if isinstance(s, Slot) else s, arg)))
    return sep.join(parts)


def _string_length_kernel(op):
    return lambda s: np.int32(len(s.decode() if isinstance(s, bytes) else s))


register_op("StringLength", lambda op: [(dtypes.int32, op._inputs[0].shape)], _string_length_kernel)


def string_length(s, name=None):
    """The number of characters of a string (TensorFlow's `tf.strings.length(s, unit="UTF8_CHAR")`)."""
    return get_default_graph().create_op("StringLength", [convert_to_tensor(s)], {"unit": "UTF8_CHAR"},
                                         name=name or "StringLength").outputs[0]


def _string_format_kernel(op):
    structure, sep = op.get_attr("template"), op.get_attr("sep")
    formatter, summarize = op.get_attr("formatter"), op.get_attr("summarize")
    return lambda *values: format_values(structure, values, sep, formatter, summarize).encode()


register_op("StringFormat", lambda op: [(dtypes.string, TensorShape([]))], _string_format_kernel)


def string_format(inputs, sep=" ", summarize=3, formatter="tensorflow", name=None):
    """One StringFormat op for the print arguments `inputs` (tensors anywhere in nested structures)."""
    if formatter not in FORMATTERS:
        raise ValueError(f"formatter must be one of {FORMATTERS}, got {formatter!r}")
    tensors = []

    def slot(x):
        if isinstance(x, Formatted):
            tensors.append(x.tensor)
            return Slot(len(tensors) - 1, x.conversion, x.spec)
        if hasattr(x, "_as_graph_element") or hasattr(x, "_handle"):
            x = convert_to_tensor(x)
        if isinstance(x, Tensor):
            tensors.append(x)
            return Slot(len(tensors) - 1)
        return x
    template = tuple(slot(x) if isinstance(x, (str, Formatted)) or not nest.is_nested(x) else
                     nest.map_structure(slot, x) for x in inputs)
    g = get_default_graph()
    return g.create_op("StringFormat", tensors, {"template": template, "sep": sep, "summarize": summarize,
                                                  "formatter": formatter}, name=name or "StringFormat").outputs[0]
