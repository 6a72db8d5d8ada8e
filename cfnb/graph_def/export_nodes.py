"""One NodeDef: its attrs under TensorFlow's OpDef (`node_attrs`), and a node written from parts (`add_node`),
which is what the exporter's expansions (expansions.py) emit besides cfnb's own ops."""
from .attrs import attr_value, tensor_proto
from .protos import arg_lengths, op_def, pb


def add_node(nodes, name, op_type, inputs, device, attrs, control_inputs=()):
    """Append a NodeDef to repeated field `nodes`: name, op, data inputs, `^control` inputs, device, attrs."""
    node = nodes.add()
    node.name = name
    node.op = op_type
    node.input.extend(inputs)
    node.input.extend(f"^{c}" for c in control_inputs)
    if device:
        node.device = device
    for k, v in attrs.items():
        node.attr[k].CopyFrom(v)
    return node


# cfnb attrs that are its own bookkeeping, never TensorFlow's.
_CFNB_ONLY = {"element_shape_holder", "element_shape_static", "spec", "tensor_slots"}


def node_attrs(op):
    """{attr name: AttrValue} of `op` under TensorFlow's OpDef (see the module docstring)."""
    od = op_def(op.type)
    given = {k: v for k, v in op.attr.items() if v is not None and k not in _CFNB_ONLY}
    if od is None:
        out = {}
        for k, v in given.items():
            try:
                out[k] = attr_value(v)
            except TypeError:
                pass
        return out
    values = dict(given)
    holder = op.attr.get("element_shape_holder")
    if holder and op.type == "TensorArrayGatherV3":  # what TensorFlow's TensorArray knew of its element shape
        values.setdefault("element_shape", holder[0])
    if op.type == "VarHandleOp":  # TensorFlow's Python names the resource after the variable; "" would be shared
        values.setdefault("shared_name", op.name)
    for args, tensors in ((od.input_arg, op.inputs), (od.output_arg, op.outputs)):
        lengths = tensor_lengths(op, args, tensors)
        pos = 0
        for arg, n in zip(args, lengths):
            part = tensors[pos:pos + n]
            pos += n
            if arg.number_attr:
                values[arg.number_attr] = n
            if arg.type_attr and part:
                values[arg.type_attr] = part[0].dtype
            if arg.type_list_attr:
                values[arg.type_list_attr] = [t.dtype for t in part]
    out = {}
    for a in od.attr:
        if a.name in values:
            v = values[a.name]
            if a.type.startswith("list(") and not isinstance(v, (list, tuple)):
                v = [v]
            if a.type == "tensor":
                try:
                    out[a.name] = pb().AttrValue(tensor=tensor_proto(v, values.get("dtype")))
                except TypeError as e:
                    raise TypeError(f"Cannot export node '{op.name}' ({op.type}): {e}") from None
            else:
                out[a.name] = attr_value(v, a.type)
        elif a.HasField("default_value"):
            out[a.name] = pb().AttrValue.FromString(a.default_value.SerializeToString())
    for k, v in given.items():
        if k.startswith("_") and k not in out:
            out[k] = attr_value(v)
    return out


def tensor_lengths(op, args, tensors):
    """How many of `tensors` (op's inputs or outputs) each OpDef argument takes. A list attr cfnb stores may be
    stale (an If whose gradient added outputs keeps its first `Tout`): then the tensors decide."""
    given = {k: v for k, v in op.attr.items() if v is not None}
    lengths = arg_lengths(args, given, len(tensors))
    if sum(lengths) != len(tensors):
        lengths = arg_lengths(args, {k: v for k, v in given.items() if not isinstance(v, list)}, len(tensors))
    return lengths
