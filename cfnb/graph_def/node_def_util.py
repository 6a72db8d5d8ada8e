"""One NodeDef checked against its OpDef before anything is built (TensorFlow's node_def_util.cc).

An imported GraphDef is a program from a stranger. Before cfnb turns a NodeDef into an Operation, the NodeDef must
say everything its OpDef asks for, in the right form, as TensorFlow's `ValidateNodeDef` and `InOutTypesForNode`
demand: every attr present (or defaulted, `AddDefaultsToNodeDef`), of its declared kind (`AttrValueHasType`), within
its allowed values and minimum (`ValidateAttrValue`), shapes with no dimension below -1, constants that parse
(`Tensor::FromProto`), and as many inputs as the signature takes. What it yields, the node's input and output
types, lets the graph-level check (validate.py) type every edge. The messages are TensorFlow's, naming the node
(`{{node b}}`), the attr or input, and the op's signature (`SummarizeOpDef`).

cfnb adds two limits TensorFlow does not have, because a few bytes of GraphDef may otherwise ask for gigabytes
before anything runs: a node has at most `MAX_OUTPUTS` outputs, and a constant holds at most 2 GB (what one
GraphDef can hold; a TensorProto of 5 bytes may claim 10^10 elements, filled from its last value).
"""
import functools
import math

from .protos import TYPE_NAMES, op_def, pb

MAX_OUTPUTS = 1 << 16
MAX_TENSOR_BYTES = (1 << 31) - 1
_KIND_OF_FIELD = {"type": "type", "i": "int", "f": "float", "b": "bool", "s": "string", "shape": "shape",
                  "tensor": "tensor", "func": "func"}
_FIELD_OF_KIND = {kind: field for field, kind in _KIND_OF_FIELD.items()}
_ITEM_SIZE = {"DT_HALF": 2, "DT_FLOAT": 4, "DT_DOUBLE": 8, "DT_INT32": 4, "DT_INT64": 8, "DT_BOOL": 1}


@functools.cache
def _data_types():
    """{DataType number: name} of every DataType TensorFlow has."""
    return {v: k for k, v in pb().DataType.items()}


def type_name(enum):
    """TensorFlow's DataTypeString: 1 -> "float", 101 -> "float_ref"; an unknown enum -> its number."""
    try:
        ref = enum > 100
        return pb().DataType.Name(enum - 100 if ref else enum)[3:].lower() + ("_ref" if ref else "")
    except ValueError:
        return str(enum)


def node_text(name):
    """A node's name as TensorFlow's error messages write it, `{{node name}}`, so messages about an imported graph
    read as TensorFlow's."""
    return f"{{{{node {name}}}}}"


# --- summaries, as TensorFlow prints them ---------------------------------------------------------------------------
def _value_text(value):
    which = value.WhichOneof("value")
    if which == "type":
        return pb().DataType.Name(value.type) if value.type in pb().DataType.values() else str(value.type)
    if which == "shape":
        s = value.shape
        return "<unknown>" if s.unknown_rank else "[" + ",".join(str(d.size) if d.size >= 0 else "?"
                                                                 for d in s.dim) + "]"
    if which == "s":
        return '"' + value.s.decode(errors="replace") + '"'
    if which == "b":
        return "true" if value.b else "false"
    if which in ("i", "f"):
        return str(getattr(value, which))
    if which == "list":
        items = [v for field in ("type", "i", "f", "b", "s") for v in getattr(value.list, field)]
        return "[" + ", ".join(str(v) for v in items) + "]"
    return which or "<none>"


def _arg_text(arg):
    if arg.number_attr:
        kind = f"{arg.number_attr}*{arg.type_attr or type_name(arg.type)}"
    else:
        kind = arg.type_list_attr or arg.type_attr or type_name(arg.type)
    return f"{arg.name}:{'Ref(' + kind + ')' if arg.is_ref else kind}"


def summarize_op_def(od):
    """`Op<name=Identity; signature=input:T -> output:T; attr=T:type>` (TensorFlow's SummarizeOpDef)."""
    parts = [f"name={od.name}", "signature=" + ", ".join(_arg_text(a) for a in od.input_arg) + " -> "
             + ", ".join(_arg_text(a) for a in od.output_arg)]
    for a in od.attr:
        text = f"attr={a.name}:{a.type}"
        if a.HasField("default_value"):
            text += f",default={_value_text(a.default_value)}"
        if a.has_minimum:
            text += f",min={a.minimum}"
        allowed = _allowed(a)
        if allowed:
            text += ",allowed=[" + ", ".join(allowed) + "]"
        parts.append(text)
    for flag in ("is_commutative", "is_aggregate", "is_stateful"):
        if getattr(od, flag):
            parts.append(f"{flag}=true")
    return "Op<" + "; ".join(parts) + ">"


@functools.cache
def _allowed_values(op_type, attr_name):
    """The allowed values of an attr of TensorFlow's op `op_type`, as `_allowed` gives them (looked up once)."""
    return tuple(_allowed(next(a for a in op_def(op_type).attr if a.name == attr_name)))


def _allowed(a):
    if not a.HasField("allowed_values"):
        return []
    lst = a.allowed_values.list
    return [pb().DataType.Name(t) for t in lst.type] or ['"' + s.decode() + '"' for s in lst.s]


# --- attrs ----------------------------------------------------------------------------------------------------------
def _kind_of(value):
    which = value.WhichOneof("value")
    if which == "list":
        for field in ("type", "i", "f", "b", "s", "shape", "tensor", "func"):
            if len(getattr(value.list, field)):
                return f"list({_KIND_OF_FIELD[field]})"
        return "list"  # an empty list has every list kind
    if which == "placeholder":
        return "placeholder"
    return _KIND_OF_FIELD.get(which, which or "<none>")


def _attr_error(text, attr_name, node, od):
    return ValueError(f"{text}\n\t for attr '{attr_name}'\n\t; NodeDef: {node_text(node.name)}; {summarize_op_def(od)}")


def check_attr(node, a, value, od):
    """One attr of `node` against OpDef attr `a` (`AttrValueHasType`, `ValidateAttrValue`)."""
    kind = _kind_of(value)
    if kind == "placeholder":
        return  # a function's attr placeholder: bound when the function is called
    if kind != a.type and not (kind == "list" and a.type.startswith("list(")):
        raise _attr_error(f"AttrValue had value with type '{kind}' when '{a.type}' expected", a.name, node, od)
    items = _items(value, a.type)
    def where():
        return f"\n\t; NodeDef: {node_text(node.name)}; {summarize_op_def(od)}"
    is_type = a.type in ("type", "list(type)")
    for t in items if is_type else ():
        if t not in _data_types() or t == 0:
            raise _attr_error(f"AttrValue has invalid DataType enum: {t}", a.name, node, od)
        if t > 100:
            raise _attr_error(f"AttrValue must not have reference type value of {type_name(t)}", a.name, node, od)
        if _data_types()[t] not in TYPE_NAMES:
            raise ValueError(f"Node '{node.name}': cfnb has no dtype for TensorFlow's {pb().DataType.Name(t)} (attr "
                             f"'{a.name}')")
    allowed = _allowed_values(od.name, a.name)
    if allowed and is_type:
        for t in items:
            if _data_types()[t] not in allowed:
                names = ", ".join(type_name(pb().DataType.Value(n)) for n in allowed)
                raise ValueError(f"Value for attr '{a.name}' of {type_name(t)} is not in the list of allowed "
                                 f"values: {names}{where()}")
    elif allowed:
        for s in items:
            if f'"{s.decode(errors="replace")}"' not in allowed:
                raise ValueError(f"Value for attr '{a.name}' of \"{s.decode(errors='replace')}\" is not in the list "
                                 f"of allowed values: {', '.join(allowed)}{where()}")
    if a.has_minimum:
        got = len(items) if a.type.startswith("list(") else value.i
        if got < a.minimum:
            what = f"Length for attr '{a.name}' of {got}" if a.type.startswith("list(") else \
                f"Value for attr '{a.name}' of {got}"
            raise ValueError(f"{what} must be at least minimum {a.minimum}{where()}")
    for shape in [s for s in items if a.type in ("shape", "list(shape)")]:
        check_shape(shape, node, f"attr '{a.name}'")
    for tensor in [t for t in items if a.type in ("tensor", "list(tensor)")]:
        check_tensor(tensor, node)


def _items(value, kind):
    if kind.startswith("list("):
        return list(getattr(value.list, _FIELD_OF_KIND[kind[5:-1]]))
    return [getattr(value, _FIELD_OF_KIND[kind])]


def _dims_text(shape):
    return "[" + ",".join(str(d.size) for d in shape.dim) + "]"


def check_shape(shape, node, what):
    """TensorShapeProto: -1 is an unknown dimension; anything below is an error (`PartialTensorShape::IsValid`)."""
    if not shape.unknown_rank and any(d.size < -1 for d in shape.dim):
        raise ValueError(f"Shape {_dims_text(shape)} has dimensions with values below -1 (where -1 means unknown) "
                         f"for {what} of {node_text(node.name)}")


def check_tensor(proto, node, dtype=None):
    """A TensorProto that `Tensor::FromProto` accepts, of at most MAX_TENSOR_BYTES, with `dtype` (the node's)."""
    name = _data_types().get(proto.dtype, str(proto.dtype))
    if dtype is not None and proto.dtype != dtype:
        raise ValueError(f"Node '{node.name}': Type mismatch between value ({type_name(proto.dtype)}) and dtype "
                         f"({type_name(dtype)})")
    shape = proto.tensor_shape
    if shape.unknown_rank or any(d.size < 0 for d in shape.dim):
        raise ValueError(f"Shape {_dims_text(shape)} is not fully defined for the value of {node_text(node.name)}")
    size = math.prod(d.size for d in shape.dim)
    item = _ITEM_SIZE.get(name)
    if item is None and name != "DT_STRING":
        raise ValueError(f"Node '{node.name}': cfnb has no constant of TensorFlow's {name}")
    if size * (item or 1) > MAX_TENSOR_BYTES:
        raise ValueError(f"Node '{node.name}': a constant of shape {_dims_text(shape)} ({name}) would take "
                         f"{size * (item or 1):,} bytes; cfnb refuses a constant larger than a GraphDef can hold "
                         f"(2 GB)")
    given = len(proto.string_val) if name == "DT_STRING" else None
    if proto.tensor_content and item is not None:
        ok = len(proto.tensor_content) == size * item
    else:
        field = {"DT_HALF": "half_val", "DT_FLOAT": "float_val", "DT_DOUBLE": "double_val", "DT_INT32": "int_val",
                 "DT_INT64": "int64_val", "DT_BOOL": "bool_val"}.get(name)
        given = len(getattr(proto, field)) if field else given
        ok = given <= size
    if not ok:
        raise ValueError(f"Node '{node.name}': Cannot parse tensor from proto: {size} elements of {name} do not "
                         f"match its {len(proto.tensor_content) or given} given (bytes or values)")


def with_defaults(node, od):
    """`node`, or a copy with the attrs its OpDef defaults filled in (TensorFlow's `AddDefaultsToNodeDef`)."""
    missing = [a for a in od.attr if a.name not in node.attr and a.HasField("default_value")]
    if not missing:
        return node
    out = pb().NodeDef()
    out.CopyFrom(node)
    for a in missing:
        out.attr[a.name].CopyFrom(a.default_value)
    return out


# --- inputs and outputs ---------------------------------------------------------------------------------------------
def _arg_types(args, node, kind):
    types = []
    for arg in args:
        if arg.type_list_attr:
            part = list(node.attr[arg.type_list_attr].list.type)
        else:
            t = node.attr[arg.type_attr].type if arg.type_attr else arg.type
            n = node.attr[arg.number_attr].i if arg.number_attr else 1
            if n > MAX_OUTPUTS:
                raise ValueError(f"Node '{node.name}': {arg.number_attr} = {n} would give it {n} {kind}; cfnb refuses "
                                 f"more than {MAX_OUTPUTS} {kind} on one node")
            part = [t] * n
        types.extend(t + 100 if arg.is_ref and t < 100 else t for t in part)
    if len(types) > MAX_OUTPUTS:
        raise ValueError(f"Node '{node.name}' would have {len(types)} {kind}; cfnb refuses more than {MAX_OUTPUTS}")
    return types


def check_node_def(node, od, num_data_inputs, memo=None):
    """`(node with defaults, input types, output types)` of a NodeDef its OpDef accepts, else a ValueError in
    TensorFlow's words (`ValidateNodeDef`, `InOutTypesForNode`). `memo` (a dict) remembers the verdict on each
    (op, input count, attrs) already checked: a graph holds many nodes that differ only in their names and inputs,
    and a constant only in its value, which is checked every time."""
    node = with_defaults(node, od)
    key = None if memo is None else (od.name, num_data_inputs, tuple(sorted(
        (k, v.SerializeToString(deterministic=True)) for k, v in node.attr.items()
        if k != "value" or od.name != "Const")))
    if key in (memo or ()):
        if od.name == "Const":
            check_tensor(node.attr["value"].tensor, node, node.attr["dtype"].type)
        return (node, *memo[key])
    for a in od.attr:
        if a.name not in node.attr:
            raise ValueError(f"NodeDef missing attr '{a.name}' from {summarize_op_def(od)}; NodeDef: "
                             f"{node_text(node.name)}")
        check_attr(node, a, node.attr[a.name], od)
    inputs = _arg_types(od.input_arg, node, "inputs")
    outputs = _arg_types(od.output_arg, node, "outputs")
    if len(inputs) != num_data_inputs:
        raise ValueError(f"NodeDef expected inputs '{', '.join(type_name(t) for t in inputs)}' do not match "
                         f"{num_data_inputs} inputs specified; {summarize_op_def(od)}; NodeDef: {node_text(node.name)}")
    if od.name == "Const":
        check_tensor(node.attr["value"].tensor, node, node.attr["dtype"].type)
    if memo is not None:
        memo[key] = (inputs, outputs)
    return node, inputs, outputs


def compatible(got, want):
    """An output of type `got` may feed an input of type `want`: equal, or a ref read as its value
    (`TypesCompatible`)."""
    return got == want or (got > 100 and got - 100 == want)
