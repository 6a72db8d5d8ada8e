"""One NodeDef, written from parts: what the exporter's expansions (expansions.py) emit besides cfnb's own ops."""


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
