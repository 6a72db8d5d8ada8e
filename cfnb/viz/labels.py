"""The text inside each drawn node: TensorFlow's name, the student's name, the constants folded into it.

At `detail="all"` a node says what TensorFlow calls it (`mul/Enter`, `Merge_1`, `Const` with its value); at the
other levels the student's name comes first (`x` over `Merge_1`, `grad x` over `\u2207 Switch_1`, `stack of x`),
a gradient node's TensorFlow name carries a `\u2207`, and a constant read only here is written in (`y = 100`).
"""
from ..framework.graph_text import value_text
from .names import FUNCTIONAL, SOURCE, arg_names, is_gradient, short_name, shown
from .style import NABLA, STYLE

HISTORY = ("StackV2", "StackPushV2", "StackPopV2", "EmptyTensorList", "TensorListPushBack", "TensorListPopBack")

def tf_label(op):
    """TensorFlow's name for a node, short: the last name component (two for a primitive, `mul/Enter`), and the
    op type when the name does not say it."""
    parts = op.name.split("/")
    short = parts[-1]
    if len(parts) >= 3 and op.type in STYLE:
        short = "/".join(parts[-2:])  # `mul/Enter`, `Add/Switch_1`: which value the primitive carries
    if op.type == "Const":
        return f"{short}\n= {value_text(op.get_attr('value'))[:24]}"
    base = short.split("/")[-1].split("_")[0].lower()
    if base and op.type.lower().startswith(base):  # `Merge_1`, `mul` (Mul), `add` (AddV2)
        return short
    return f"{short}\n{op.type}"


def const_value(op):
    """A constant's value as short text (a `Fill` of a scalar says the scalar)."""
    if op.type == "Const":
        return value_text(op.get_attr("value"))[:24]
    if op.type == "Fill" and op.inputs[1].op.type == "Const":
        return value_text(op.inputs[1].op.get_attr("value"))[:24]
    return f"({op.type} of constants)"


def node_label(op, names, detail, folded=()):
    """The label of a node drawn as itself; `folded` lists (input index, constant op) written into it."""
    if detail == "all":
        return tf_label(op)
    gradient = is_gradient(op, names.in_gradient)
    if SOURCE in op.attr:
        value = f" = {const_value(op)}" if op.type == "Const" else ""
        return f"{short_name(op.name)}{value}\n(from the notebook)"
    if op.type == "Placeholder" and op in names.arg_names:
        return shown(names.arg_names[op])
    if not op.inputs and op.type == "Const" or op.type in ("Fill",) and _all_constant(op):
        name = names.tensor_name(op.outputs[0]) or short_name(op.name)
        return f"{name} = {const_value(op)}"
    student = names.label(op)
    tf = tf_label(op) if op.type != "Const" else short_name(op.name)
    if student and op.type in STYLE and op.type not in FUNCTIONAL:
        tf = short_name(op.name)  # the student's name says which value, the shape which primitive
        folded = () if op.type in HISTORY else folded
    if gradient:
        tf = NABLA + tf
    if student and tf.startswith(shown(student) + "_"):
        student = None  # `x_switch`, `maximum_iterations_switch`: TensorFlow's name says it already
    lines = [shown(student), tf] if student else [tf]
    lines += _folded_lines(op, names, folded if op.type not in HISTORY else ())
    return "\n".join(lines)


def _all_constant(op):
    return all(t.op.type == "Const" for t in op.inputs)


def _folded_lines(op, names, folded):
    """One `name = value` line per constant folded into `op`; for a functional op the constant is named after the
    argument it becomes (`total = 0`) and its loop variables are listed."""
    functional = op.type in FUNCTIONAL
    inputs = _input_names(op, names) if functional else {}
    lines = []
    for k, c in folded:
        value = const_value(c)
        name = inputs.get(k) or names.tensor_name(c.outputs[0]) or short_name(c.name)
        if functional and (name in ("counter", "maximum_iterations") and value in ("0", "-1") or
                           name.startswith(".")):
            continue  # the loop counter starts at 0; -1: no maximum_iterations; the magic's own flags
        lines.append(f"{name} = {value}")
    if op.type in ("While", "StatelessWhile"):
        shown = [n for k, n in sorted(inputs.items()) if k >= 2 and n and not n.startswith((".", "loop var"))]
        if shown:
            lines.append(_wrap_list("vars: ", shown))
    return lines


def _input_names(op, names):
    """{input index: the argument name it has in the op's functions}."""
    out = {}
    offset = 0 if op.type in ("While", "StatelessWhile") else 1
    for fn, got in arg_names(op, names).items():
        for k, t in enumerate(fn.inputs):
            if t.op in got:
                out.setdefault(k + offset, got[t.op])
    return out


def _wrap_list(head, items, width=28):
    lines, line = [], head
    for item in items:
        piece = item if line == head else ", " + item
        if len(line) + len(piece) > width and line != head:
            lines.append(line + ",")
            line = item
        else:
            line += piece
    return "\n".join(lines + [line])
