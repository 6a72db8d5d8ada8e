"""What a student reads: the engine's messages (TensorFlow's wording) in the cell's own words.

The graph API keeps TensorFlow's messages, which name ops and tensors (`Const_1:0`, `'add_1' (op:
'AddV2')`) and TensorFlow's remedies (`shape_invariants`, `cfnb.ops.numpy_dispatch.getitem`). A
`%%whileloop` student wrote neither: every CellError's message passes through `for_student`,
which rewrites the messages a cell can meet into Python's and numpy's words (numpy's own wording
where numpy has one: "operands could not be broadcast together") and removes any op or tensor
name that is left. Loop variables are already named by their cell names (runtime._name_loop_vars).
"""
import re

_SYMBOLS = {"AddV2": "+", "Add": "+", "Sub": "-", "Mul": "*", "RealDiv": "/", "FloorDiv": "//", "FloorMod": "%",
            "Pow": "**", "MatMul": "@", "Less": "<", "LessEqual": "<=", "Greater": ">", "GreaterEqual": ">=",
            "Equal": "==", "NotEqual": "!=", "Maximum": "max", "Minimum": "min", "SelectV2": "np.where",
            "Select": "np.where"}


def _shape(text):
    dims = [d.strip() for d in text.strip("[]()").split(",") if d.strip()]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _loop_dtype(m):
    name, before, after = m.group(1), m.group(2), m.group(3)
    return (f"'{name}' enters the loop as {before} but the loop body makes it {after}: a graph loop keeps each name's "
            f"type. Give it the {after} type before the loop (e.g. {name} = np.{after}({name})), or keep it {before} "
            f"in the body with .astype(np.{before})")


def _loop_shape(m):
    name, before, after = m.group(1), m.group(2), m.group(3)
    after = "a shape known only when the graph runs" if after == "<unknown>" or "None" in after else f"shape {after}"
    return (f"'{name}' enters the loop with shape {before} but the loop body gives it {after}: a graph loop keeps "
            f"each name's shape. Give it its final shape before the loop, or collect the pieces in a list with "
            f".append and np.stack them after the loop")


def _dimensions(m):
    a, b, op_type, shapes = m.group(1), m.group(2), m.group(3), m.group(4)
    parts = [_shape(s) for s in re.findall(r"[\[(][^\])]*[\])]", shapes)]
    if op_type == "MatMul":
        return f"shapes {' and '.join(parts)} do not fit for @ (matrix product): {a} is not {b}"
    return f"operands could not be broadcast together with shapes {' '.join(parts)}"


def _operand_types(m):
    op_type, got, expected = m.group(1), m.group(2), m.group(3)
    symbol = _SYMBOLS.get(op_type, op_type)
    return f"unsupported operand types for {symbol}: {expected} and {got}"


_REWRITES = [
    (r"'(?:Symbolic)?Tensor' object has no attribute '(\w+)'",
     r"a graph value (a loop value, which has a value only when the graph runs) has no attribute '\1': compute it "
     r"with numpy functions, or before the loop"),
    (r"Value passed to parameter '\w+' has DataType (\w+) not in list of allowed values: [^.]*\.?",
     r"this operation does not take a \1 value in a graph (a string supports + and f-strings)"),
    (r"Expected (\w+) passed to parameter '\w+' of op '\w+', got (.*?) of type '(\w+)' instead\..*",
     r"expected a \1 value, got \2 (a \3)"),
    (r"slice index (-?\d+) of dimension (\d+) out of bounds\.", r"index \1 is out of bounds for axis \2"),
    (r"'(\w+)' enters the loop with type (\w+) but has type (\w+) after 1 iteration\..*", _loop_dtype),
    (r"'(\w+)' enters the loop with shape (\(.*?\)|\S+), but has shape (\(.*?\)|<unknown>|\S+) after one "
     r"iteration\..*", _loop_shape),
    (r"Dimensions must be equal, but are (\d+) and (\d+) for '[^']*' \(op: '(\w+)'\) with input shapes: ([^.]*)\.?",
     _dimensions),
    (r"Input '\w+' of '(\w+)' Op has type (\w+) that does not match type (\w+) of argument '\w+'\.?", _operand_types),
    (r"Cannot convert a symbolic Tensor .*", "a loop value has no value while the graph is built (only when it runs), "
                                            "so numpy cannot make an array of it: write np.stack([a, b]) for "
                                            "np.array([a, b]), and keep sizes and shapes fixed before the loop"),
    (r"\S+ is used as a Python integer .*", "a loop value is used where Python needs a plain integer (a size, a "
                                           "shape, `range` of a list): it has a value only when the graph runs. Use "
                                           "sizes known before the loop"),
    (r"Only integers, slices .* are valid indices, got <tf\.Tensor '[^']*' shape=\((\d+),?\) dtype=bool>",
     "indexing with a mask (`x[mask]`) has no graph form: the result's size is known only when the graph runs. "
     "Use np.where(mask, x, 0) (and np.sum of it) instead"),
    (r"<tf\.Tensor '[^']*' shape=(\S+) dtype=(\w+)>", r"a loop value (shape \1, dtype \2)"),
    (r"\b(?:while_loop|cond|switch_case) '[^']*': ", ""),
    (r"(?<![\w.])[A-Za-z_][\w./-]*:\d+\b", "a loop value"),
    (r"\bcfnb\.ops\.[\w.]+", "the graph's numpy functions"),
]
_COMPILED = [(re.compile(p, re.S), r) for p, r in _REWRITES]


def for_student(message):
    """`message` without op or tensor names, in Python's and numpy's words."""
    for pattern, replacement in _COMPILED:
        message = pattern.sub(replacement, message)
    return message
