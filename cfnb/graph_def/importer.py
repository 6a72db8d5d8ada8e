"""TensorFlow `GraphDef` -> cfnb Graph (TensorFlow's `tf.compat.v1.import_graph_def`, `importer.py`).

A GraphDef is untrusted input: validate.py checks all of it (every NodeDef against its OpDef, every edge, the
function library) before the first node is built, so a graph that is not a program is refused whole, in
TensorFlow's words, and never half-imported; an op cfnb does not implement is refused, naming the op and the node.

Nodes are then created in the framework's loop-aware topological order: a loop's back edge (a NextIteration feeding
a Merge) is the one edge that may point forward, so a Merge is made with a stand-in for it and rewired once the
NextIteration exists, as TensorFlow's importer does. Attrs become cfnb's values (attrs.python_value); a `func` attr
becomes a FuncGraph built from the library's FunctionDef (its `input_arg`s the argument placeholders, its `ret` the
outputs).

A few cfnb kernels keep bookkeeping TensorFlow's graphs do not carry (a TensorArray's element-shape holder,
a TensorList's static element shape, a variable read's shape); `_cfnb_attrs` derives it from the graph.
"""
import logging

from ..framework.func_graph import FuncGraph
from ..framework.ops import Tensor, get_default_graph
from ..framework.tensor_shape import TensorShape
from ..framework.topological_order import is_back_edge, topological_order
from ..ops.array_ops import _as_value
from ..ops.logging_ops import OutputStream
from ..ops.string_format import Slot
from .attrs import python_value, shape_of
from .protos import arg_lengths, dtype_of, op_def, pb, type_enum
from .validate import check_graph_def

_PASS_THROUGH = {"Enter", "Identity", "Switch", "Merge", "Exit", "NextIteration", "RefEnter", "RefIdentity"}


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Import `graph_def` into the default graph, under the name scope `name` ("import" when None, none
    when ""). `input_map` maps tensor names of `graph_def` to Tensors that replace them; `return_elements`
    lists names (`"op"` or `"op:0"`) whose Operations/Tensors are returned."""
    if not isinstance(graph_def, pb().GraphDef):
        raise TypeError(f"graph_def must be a GraphDef proto, got {type(graph_def).__name__}")
    graph = get_default_graph()
    prefix = "import" if name is None else name
    if prefix:
        with graph.name_scope(prefix) as scope:
            prefix = scope
    mapped = {}
    for key, t in (input_map or {}).items():
        if not isinstance(t, Tensor):
            raise TypeError(f"input_map values must be Tensors, got {t!r} for {key!r}")
        mapped[key if ":" in key else f"{key}:0"] = t
    checked = check_graph_def(graph_def, {k: type_enum(t.dtype) for k, t in mapped.items()})
    library = {f.signature.name: f for f in graph_def.library.function}
    builder = _Builder(graph, library, checked.functions)
    ops = builder.build(graph, checked.nodes, prefix, _graph_resolver(mapped))
    unused = sorted(set(mapped) - builder.used_inputs)
    if unused:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{', '.join(unused)}]")
    if return_elements is None:
        return None
    out = []
    for r in return_elements:
        op_name, _, index = r.partition(":")
        if op_name not in ops:
            raise ValueError(f"Requested return_element '{r}' not found in graph_def.")
        out.append(ops[op_name].outputs[int(index)] if index else ops[op_name])
    return out


def _graph_resolver(mapped):
    def resolve(text, builder):
        """A GraphDef input, `x` / `x:1`: (node name, output index), or the Tensor `input_map` puts there."""
        node, _, index = text.partition(":")
        key = f"{node}:{index or 0}"
        if key in mapped:
            builder.used_inputs.add(key)
            return mapped[key]
        return node, int(index or 0)
    return resolve


def _function_resolver(args, nodes_by_name):
    def resolve(text, builder):
        """A FunctionDef input: `arg` (its placeholder), or `node:out_arg:k` -> (node name, flat output index)."""
        if text in args:
            return args[text]
        parts = text.split(":")
        node = nodes_by_name.get(parts[0])
        if node is None:
            raise ValueError(f"FunctionDef input '{text}' names no argument or node")
        if len(parts) == 1:
            return parts[0], 0
        od = op_def(node.op)
        if od is None or len(parts) == 2:
            return parts[0], int(parts[-1])
        attrs = {k: (v.i if v.WhichOneof("value") == "i" else list(v.list.type)) for k, v in node.attr.items()}
        lengths = arg_lengths(od.output_arg, attrs, 0)
        pos = 0
        for arg, n in zip(od.output_arg, lengths):
            if arg.name == parts[1]:
                return parts[0], pos + int(parts[2])
            pos += n
        raise ValueError(f"FunctionDef input '{text}': {node.op} has no output argument '{parts[1]}'")
    return resolve


class _Builder:
    def __init__(self, root, library, function_nodes):
        self.root = root
        self.library = library
        self.function_nodes = function_nodes  # function name -> its NodeDefs, checked, with defaults
        self.functions = {}
        self.used_inputs = set()

    def function(self, name, outer):
        """The FuncGraph of library function `name` (built once)."""
        if name in self.functions:
            return self.functions[name]
        fdef = self.library.get(name)
        if fdef is None:
            raise ValueError(f"Function '{name}' is not in the GraphDef's library")
        fg = FuncGraph(name, outer)
        self.functions[name] = fg
        args = {}
        for i, arg in enumerate(fdef.signature.input_arg):
            shapes = fdef.arg_attr[i].attr["_output_shapes"].list.shape if i in fdef.arg_attr else []
            shape = shape_of(shapes[0]) if len(shapes) else TensorShape(None)
            args[arg.name] = fg.add_argument(dtype_of(arg.type), shape, name=arg.name)
        nodes = self.function_nodes[name]
        resolve = _function_resolver(args, {n.name: n for n in nodes})
        ops = self.build(fg, nodes, "", resolve, {name: t.op for name, t in args.items()})
        outputs = []
        for arg in fdef.signature.output_arg:
            r = resolve(fdef.ret[arg.name], self)
            outputs.append(r if isinstance(r, Tensor) else ops[r[0]].outputs[r[1]])
        fg.outputs = outputs
        self.root._add_function(fg)
        return fg

    def build(self, g, nodes, prefix, resolve, arg_ops=None):
        """Create `nodes` in `g` (names prefixed): {node name: Operation}. In a function, a control input may
        name an argument (`arg_ops`)."""
        arg_ops = arg_ops or {}
        by_name = {n.name: n for n in nodes}
        refs = {}
        for n in nodes:
            data, control = [], []
            for text in n.input:
                if text.startswith("^"):
                    control.append(text[1:])
                    continue
                r = resolve(text, self)
                data.append(r)
            refs[n.name] = (data, control)
        order = _dependency_order(nodes, by_name, refs)
        ops, back_edges = {}, []
        with g.as_default():
            for n in order:
                data, control = refs[n.name]
                inputs = []
                for k, r in enumerate(data):
                    if isinstance(r, Tensor):
                        inputs.append(r)
                    elif r[0] in ops:
                        inputs.append(ops[r[0]].outputs[r[1]])
                    elif r[0] in by_name:
                        back_edges.append((n.name, k, r))
                        inputs.append(None)
                    else:
                        raise ValueError(f"Node '{n.name}': input '{r[0]}' is not in the graph_def")
                stand_in = next((t for t in inputs if t is not None), None)
                if stand_in is None and any(t is None for t in inputs):
                    raise ValueError(f"Node '{n.name}' has only back-edge inputs")
                inputs = [stand_in if t is None else t for t in inputs]
                ops[n.name] = self._create(g, n, prefix, inputs)
            for node_name, k, (src, index) in back_edges:
                ops[node_name]._update_input(k, ops[src].outputs[index])
            for n in order:
                for c in refs[n.name][1]:
                    if c not in ops and c not in arg_ops:
                        raise ValueError(f"Node '{n.name}': control input '^{c}' is not in the graph_def")
                    ops[n.name]._add_control_input(ops[c] if c in ops else arg_ops[c])
        return ops

    def _create(self, g, node, prefix, inputs):
        attrs = {k: python_value(v, lambda f: self.function(f, g)) for k, v in node.attr.items()}
        attrs = _cfnb_attrs(node.op, attrs, inputs)
        name = prefix + node.name
        if name in g._ops_by_name:
            if g.building_function:
                name = g.unique_name(name)
            else:
                raise ValueError(f"Cannot import node '{node.name}': the graph already has an op named '{name}'")
        parts = name.lower().split("/")  # the name and its scopes are taken, so later ops get `while_1/...`
        for k in range(1, len(parts) + 1):
            g._names_in_use.setdefault("/".join(parts[:k]), 1)
        op = g.create_op(node.op, inputs, attrs, name=name + "/", compute_device=False)
        op._device = node.device
        return op


def _dependency_order(nodes, by_name, refs):
    """Nodes in the framework's loop-aware topological order (a Merge does not wait for its NextIteration); ties
    in the GraphDef's own order, so a graph cfnb wrote comes back in creation order."""
    def waits_for(name):
        data, control = refs[name]
        srcs = [r[0] for r in data if not isinstance(r, Tensor) and r[0] in by_name
                and not is_back_edge(by_name[r[0]].op, by_name[name].op)]
        return srcs + [c for c in control if c in by_name]
    order, unordered = topological_order([n.name for n in nodes], waits_for)
    if unordered:
        raise ValueError(f"{len(unordered)} nodes in a cycle (a cycle that is not a loop's back edge, NextIteration "
                         f"-> Merge): {unordered[:10]}")
    return [by_name[name] for name in order]


def _source(t, types):
    """The op of `types` a handle comes from, through Enter/Identity/Switch/Merge/... (or None)."""
    seen = 0
    op = t.op
    while op.type not in types and op.type in _PASS_THROUGH and op.inputs and seen < 10000:
        op = op.inputs[0].op
        seen += 1
    return op if op.type in types else None


class _LogStream:
    """TensorFlow's `log(info)`, `log(warning)`, `log(error)` streams: Python's logging, logger "cfnb"."""

    def __init__(self, name):
        self.name = name
        self.level = getattr(logging, name[4:-1].upper())

    def write(self, text):
        logging.getLogger("cfnb").log(self.level, text.rstrip("\n"))


def _cfnb_attrs(op_type, attrs, inputs):
    """Add what cfnb's kernels read but TensorFlow's NodeDefs do not carry."""
    if op_type == "StringFormat":  # TensorFlow's template string -> cfnb's structure (ops/string_format.py)
        pieces = attrs["template"].split(attrs["placeholder"])  # one more than the inputs (validate.py)
        structure = []
        for k, text in enumerate(pieces):
            structure.extend(([text] if text else []) + ([Slot(k)] if k < len(pieces) - 1 else []))
        attrs.update(template=tuple(structure), sep="", formatter="tensorflow")
    elif op_type == "PrintV2":  # one of validate.PRINT_STREAMS
        stream = attrs["output_stream"]
        attrs["output_stream"] = OutputStream(stream if stream in ("stdout", "stderr") else _LogStream(stream))
    elif op_type == "Const":
        value = attrs["value"]
        if value.dtype == object:
            value = value.astype(object)
        attrs["value"] = _as_value(value.copy())
    elif op_type == "ReadVariableOp":
        src = _source(inputs[0], {"VarHandleOp"})
        attrs.setdefault("shape", src.get_attr("shape") if src is not None else TensorShape(None))
    elif op_type.startswith("TensorArray"):
        if op_type == "TensorArrayV3":
            shape = attrs.get("element_shape", TensorShape(None))
            attrs["element_shape_holder"] = [shape]
        else:
            src = _source(inputs[0], {"TensorArrayV3", "TensorArrayGradV3"})
            holder = [TensorShape(None)]
            if src is not None and src.type == "TensorArrayV3":
                holder = src.get_attr("element_shape_holder")
                attrs.setdefault("dtype", src.get_attr("dtype"))
            elif src is not None:
                holder = [src.get_attr("element_shape")]
            attrs["element_shape_holder"] = holder
            if op_type == "TensorArrayGradV3":
                attrs["element_shape"] = holder[0]
            if "dtype" not in attrs and "T" in attrs:
                attrs["dtype"] = attrs["T"]
    elif op_type.startswith("TensorList") or op_type == "EmptyTensorList":
        shape = TensorShape(None)
        if op_type == "TensorListFromTensor" and inputs[0].shape.ndims:
            shape = TensorShape(inputs[0].shape.as_list()[1:])
        attrs.setdefault("element_shape_static", shape)
    return attrs
