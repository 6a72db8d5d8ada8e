"""`graph.as_text()`: one line per op, in creation order, the same on every run.

    while/Merge = Merge(while/Enter, while/NextIteration) -> int32[], int32[]
    while/mul/Enter = Enter(Const) {frame_name=while/while_context, is_constant=True, ...} -> float32[]

Inputs are written `op` for output 0 and `op:k` otherwise; control inputs follow as `^op`.
Golden tests compare this text, so nothing in it may depend on memory addresses or timing.
"""
import numpy as np

_HIDDEN_ATTRS = {"element_shape_holder", "value", "dtype", "T", "N", "SrcT", "out_type", "_class",
                 "_python_int", "_python_float"}  # checked kernels (ops/int_overflow.py, python_division.py)


def _tensor_ref(t):
    return t._op._name if t._value_index == 0 else f"{t._op._name}:{t._value_index}"


def _attr_text(value):
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        return value.replace("\n", "\\n").replace("\t", "\\t")  # one line per op (a print's `end`)
    if isinstance(value, float | int):
        return str(value)
    if hasattr(value, "name") and not isinstance(value, np.ndarray):
        return str(value.name)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_attr_text(v) for v in value) + "]"
    return str(value)


def value_text(value):
    """A constant's value as short text for `Graph.as_text`: a scalar as itself, an array by its first six
    elements, so that golden texts stay readable."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        v = arr.item()
        return repr(v) if not isinstance(v, float) else f"{v:g}"
    flat = arr.reshape(-1)
    body = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in flat[:6].tolist())
    return f"[{body}{', ...' if flat.size > 6 else ''}]"


def op_to_text(op):
    """One op as one line of `Graph.as_text`: `name = Type(inputs, ^control) {attrs} -> dtype[shape]`, in
    TensorFlow's names; attrs that only the drawing uses are left out. (It reads the op's fields, not the properties
    that copy them: tests compare whole graphs' texts before and after every rewrite.)"""
    args = [_tensor_ref(t) for t in op._inputs] + [f"^{c._name}" for c in op._control_inputs]
    if op._type == "Const":
        attrs = [("value", value_text(op.get_attr("value")))]
    else:
        attrs = [(k, v) for k, v in sorted(op._attrs.items())
                 if k not in _HIDDEN_ATTRS and not k.startswith("_cfnb_") and v is not None]  # _cfnb_: names to draw
    attr_text = (" {" + ", ".join(f"{k}={_attr_text(v)}" for k, v in attrs) + "}") if attrs else ""
    outs = ", ".join(f"{t._dtype.name}{_shape_text(t._shape)}" for t in op._outputs)
    return f"{op._name} = {op._type}({', '.join(args)}){attr_text}" + (f" -> {outs}" if outs else "")


def _shape_text(shape):
    dims = shape._dims
    if dims is None:
        return "[?]*"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def graph_to_text(graph, ops=None):
    """The whole graph (or the listed ops), one op per line, plus its functions if any."""
    ops = graph.get_operations() if ops is None else ops
    lines = [op_to_text(op) for op in ops]
    for name in sorted(getattr(graph, "_functions", {})):
        fn = graph._functions[name]
        args = ", ".join(_tensor_ref(t) for t in fn.inputs)
        results = ", ".join(_tensor_ref(t) for t in fn.outputs)
        lines.append(f"function {name}({args}) -> ({results}):")
        lines.extend("    " + line for line in graph_to_text(fn).splitlines())
    return "\n".join(lines)
