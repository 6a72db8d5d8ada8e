"""cfnb Graph -> TensorFlow `GraphDef` (TensorFlow's `Graph.as_graph_def`, `graph_to_function_def`).

Every op becomes a NodeDef with TensorFlow's fields: `name`, `op`, `input` (`"x"` for output 0, `"x:1"` past it,
`"^x"` for a control input), `device`, and `attr` under TensorFlow's names and types. The attrs come from the
op's TensorFlow OpDef (protos.op_def): an attr cfnb stores (frame_name, is_constant, dtype, value, shape,
then_branch, ...) is written as the OpDef types it; a type attr cfnb does not store (`T`, `Tin`, `Tcond`,
`Tidx`) is read off the dtype of the input or output argument that uses it, and a number attr (`N`) off the
argument's length, as TensorFlow's op_def_library infers them; every other attr gets the OpDef's default, as
TensorFlow's graphs carry them. cfnb's own bookkeeping attrs (a TensorArray's shared shape holder, a
StridedSlice's Python spec) are left out; an attr whose name starts with `_` is TensorFlow's private kind
(`_lower_using_switch_merge`) and is kept.

A functional If/While calls functions by name; the FuncGraphs it calls (and those they call) go into
`library` as FunctionDefs, whose nodes name their inputs by argument: `arg` for a function argument and
`node:out_arg:k` for output k of node's output argument `out_arg` (`Less:z:0`, `Switch:output_true:0`).

A few cfnb ops have no TensorFlow op of their own; expansions.py writes them as the ops TensorFlow builds for the
same thing.
"""
import re

from ..framework.func_graph import functions_of
from .attrs import attr_value, shape_proto
from .expansions import EXPANSIONS
from .export_nodes import node_attrs, tensor_lengths
from .protos import op_def, pb, type_enum

# TensorFlow 2.21's GraphDef version (versions.producer of the graphs it writes); 12 is its min_consumer.
PRODUCER, MIN_CONSUMER = 2474, 12
def _fill_node(node, op, name, inputs, control_inputs):
    node.name = name
    node.op = op.type
    node.input.extend(inputs)
    node.input.extend(f"^{c}" for c in control_inputs)
    if op.device:
        node.device = op.device
    for k, v in node_attrs(op).items():
        node.attr[k].CopyFrom(v)


def _graph_input_name(t):
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def _add_nodes(nodes, ops, input_name, add_shapes=False, node_ref=lambda name, out_arg: name, skip_control=()):
    """NodeDefs of `ops` appended to repeated field `nodes`; `input_name(tensor)` spells a data input,
    `node_ref(name, out_arg)` output 0 of a node an expansion adds; control inputs on `skip_control` (a
    function's arguments, always available) are left out."""
    for op in ops:
        # Sorted by name, as TensorFlow's Graph::ToGraphDef writes them.
        controls = sorted(c.name for c in op.control_inputs if c not in skip_control)
        expand = EXPANSIONS.get(op.type)
        if expand is not None and expand(op, nodes, input_name, node_ref, controls):
            continue
        node = nodes.add()
        _fill_node(node, op, op.name, [input_name(t) for t in op.inputs], controls)
        if add_shapes:
            node.attr["_output_shapes"].CopyFrom(attr_value([t.shape for t in op.outputs], "list(shape)"))


def _arg_name(name, taken):
    base = re.sub(r"[^a-z0-9_]", "_", name.lower()) or "arg"
    name, i = base, 0
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    taken.add(name)
    return name


def function_def(fg):
    """A FuncGraph as TensorFlow's FunctionDef: its argument placeholders become `signature.input_arg`s, its
    outputs `output_arg`s (`ret` names the tensor of each), its other ops `node_def`s."""
    p = pb()
    fdef = p.FunctionDef()
    fdef.signature.name = fg.name
    taken = {op.name.lower() for op in fg.get_operations()}
    args = {}
    for i, ph in enumerate(fg.inputs):
        name = _arg_name(ph.op.name, taken)
        args[ph] = name
        fdef.signature.input_arg.add(name=name, type=type_enum(ph.dtype))
        fdef.arg_attr[i].attr["_output_shapes"].CopyFrom(attr_value([ph.shape], "list(shape)"))
    arg_ops = {ph.op for ph in fg.inputs}

    def input_name(t):
        if t in args:
            return args[t]
        od = op_def(t.op.type)
        if od is None:
            return f"{t.op.name}:output:{t.value_index}"
        pos = 0
        for arg, n in zip(od.output_arg, tensor_lengths(t.op, od.output_arg, t.op.outputs)):
            if t.value_index < pos + n:
                return f"{t.op.name}:{arg.name}:{t.value_index - pos}"
            pos += n
        raise ValueError(f"{t.name}: no output argument of {t.op.type} holds output {t.value_index}")

    _add_nodes(fdef.node_def, [op for op in fg.get_operations() if op not in arg_ops], input_name,
               node_ref=lambda name, out_arg: f"{name}:{out_arg}:0", skip_control=arg_ops)
    for i, t in enumerate(fg.outputs):
        name = _arg_name(f"output_{i}", taken)
        fdef.signature.output_arg.add(name=name, type=type_enum(t.dtype))
        fdef.ret[name] = input_name(t)
    return fdef


def _library_functions(graph):
    """Every FuncGraph `graph`'s ops call, directly or through other functions, each once, callees first."""
    seen, order = {}, []

    def visit(g):
        for op in g.get_operations():
            for fg in functions_of(op):
                if fg.name not in seen:
                    seen[fg.name] = fg
                    visit(fg)
                    order.append(fg)
    visit(graph)
    return order


def graph_to_graph_def(graph, add_shapes=False):
    """TensorFlow's `GraphDef` of a cfnb Graph: nodes in creation order, the function library, versions."""
    gd = pb().GraphDef()
    _add_nodes(gd.node, graph.get_operations(), _graph_input_name, add_shapes)
    for fg in _library_functions(graph):
        gd.library.function.add().CopyFrom(function_def(fg))
    gd.versions.producer = PRODUCER
    gd.versions.min_consumer = MIN_CONSUMER
    return gd


__all__ = ["function_def", "graph_to_graph_def", "node_attrs", "shape_proto"]
