"""A GraphDef checked as a whole before `import_graph_def` builds anything: an imported graph is untrusted input.

TensorFlow's importer (graph_constructor.cc) refuses a GraphDef that is not a program before it adds a node:
`ValidateExternalGraphDefSyntax` (node names, inputs written `node`, `node:k` or `^node`, control inputs last), one
node per name, every NodeDef valid against its OpDef (node_def_util.py), every input naming a node that has that
output, of the type the consumer takes. cfnb does the same, in the same words, and checks the function library too,
since it builds a function's graph when a node names it (TensorFlow waits for the run): every `func` attr names a
function of the library, no function calls itself (TensorFlow 2.21 crashes running one), calls nest at most
`MAX_CALL_DEPTH` deep, a function's inputs and `ret` resolve, and a While, If or Case passes its functions the
arguments their signatures take.

cfnb refuses more than TensorFlow in one place: an imported PrintV2 prints to TensorFlow's stream names only
(stderr, stdout, log(info), log(warning), log(error)), never to a `file://` path a stranger chose; like an op
cfnb has no kernel for (ReadFile, WriteFile, SaveV2, PyFunc, ...), nothing outside is touched.
"""
import re
from typing import NamedTuple

from ..framework.registry import get_op_def
from ..framework.topological_order import topological_order
from .node_def_util import check_node_def, compatible, type_name
from .protos import TYPE_NAMES, op_def, pb

MAX_CALL_DEPTH = 64
PRINT_STREAMS = ("stderr", "stdout", "log(info)", "log(warning)", "log(error)")
_NAME = re.compile(r"[A-Za-z0-9._][A-Za-z0-9_.\-/]*(>[A-Za-z0-9.][A-Za-z0-9_.\-/]*)*\Z")
# functional op -> (attr with the argument types, attrs naming functions that take them, attr with result types)
_CALLS = {"While": ("T", ("cond", "body"), "T"), "StatelessWhile": ("T", ("cond", "body"), "T"),
          "If": ("Tin", ("then_branch", "else_branch"), "Tout"),
          "StatelessIf": ("Tin", ("then_branch", "else_branch"), "Tout"),
          "Case": ("Tin", ("branches",), "Tout"), "StatelessCase": ("Tin", ("branches",), "Tout")}


def parse_input(text):
    """TensorFlow's ParseTensorName: `a` -> ("a", 0), `a:2` -> ("a", 2), `^a` -> ("^a", -1); `a:x` is a node
    named "a:x" (which no node is)."""
    if text.startswith("^"):
        return text, -1
    name, colon, index = text.rpartition(":")
    if colon and index.isdigit():
        return name, int(index)
    return text, 0


def _check_node(node, where, seen, memo):
    """(node with defaults, input types, output types) of one NodeDef: its name, its op, its inputs' syntax and
    everything its OpDef asks (node_def_util.check_node_def, which remembers verdicts in `memo`)."""
    if not _NAME.match(node.name):
        raise ValueError(f"Node '{node.name}'{where}: Node name contains invalid characters")
    if node.name in seen:
        raise ValueError(f"Node '{node.name}' is not unique{where}")
    seen.add(node.name)
    if not node.op:
        raise ValueError(f"Node '{node.name}'{where} does not specify an operation")
    try:
        get_op_def(node.op)
    except KeyError:
        raise ValueError(f"Cannot import node '{node.name}'{where}: op '{node.op}' is not implemented in cfnb (the "
                         f"graph_def uses an op cfnb has no kernel for)") from None
    od = op_def(node.op)
    if od is None:
        raise ValueError(f"Cannot import node '{node.name}'{where}: op '{node.op}' is cfnb's own, not TensorFlow's "
                         f"(a GraphDef holds TensorFlow's ops; cfnb exports this one as TensorFlow writes it)")
    control = False
    for text in node.input:
        if text.startswith("^"):
            control = True
        elif control:
            raise ValueError(f"Node '{node.name}'{where}: Control dependencies must come after regular dependencies")
    data = sum(not t.startswith("^") for t in node.input)
    node, inputs, outputs = check_node_def(node, od, data, memo)
    if node.op == "StringFormat":
        placeholders = node.attr["template"].s.count(node.attr["placeholder"].s) if node.attr["placeholder"].s else -1
        if placeholders != data:
            raise ValueError(f"Node '{node.name}'{where}: num placeholders in template and num inputs must match: "
                             f"{placeholders} vs. {data}")
    if node.op == "PrintV2" and node.attr["output_stream"].s.decode(errors="replace") not in PRINT_STREAMS:
        stream = node.attr["output_stream"].s.decode(errors="replace")
        raise ValueError(f"Node '{node.name}'{where}: output_stream '{stream}' is not one of TensorFlow's streams "
                         f"({', '.join(PRINT_STREAMS)}); an imported graph may not print to a file")
    return node, inputs, outputs


class CheckedGraphDef(NamedTuple):
    nodes: list        # the GraphDef's NodeDefs, with their OpDefs' defaults filled in
    functions: dict    # function name -> its FunctionDef's NodeDefs, with defaults


def check_graph_def(graph_def, mapped_types):
    """The CheckedGraphDef of a GraphDef fit to import, else a ValueError naming the node and what is wrong.
    `mapped_types` gives the DataType of each `input_map` key (`"a:0"`)."""
    memo = {}
    signatures, functions = _check_library(graph_def.library, memo)
    nodes, types, seen = {}, {}, set()
    for node in graph_def.node:
        checked, inputs, outputs = _check_node(node, "", seen, memo)
        nodes[node.name], types[node.name] = checked, (inputs, outputs)
    for name, node in nodes.items():
        _check_inputs(node, types, mapped_types)
        _check_calls(node, types[name][0], types[name][1], signatures, "")
    return CheckedGraphDef(list(nodes.values()), functions)


def _check_inputs(node, types, mapped_types):
    """Every input of a graph node names an existing output of the type the node takes (`ValidateInput`...)."""
    want = types[node.name][0]
    k = 0
    for text in node.input:
        src, index = parse_input(text)
        if index < 0:
            if src[1:] not in types:
                raise ValueError(f"Node '{node.name}': Unknown input node '{text}'")
            continue
        key = f"{src}:{index}"
        if key in mapped_types:
            got = mapped_types[key]
        elif src not in types:
            raise ValueError(f"Node '{node.name}': Unknown input node '{text}'")
        else:
            outputs = types[src][1]
            if index >= len(outputs):
                raise ValueError(f"Node '{node.name}': Connecting to invalid output {index} of source node {src} "
                                 f"which has {len(outputs)} outputs.")
            got = outputs[index]
        if not compatible(got, want[k]):
            raise ValueError(f"Input {k} of node {node.name} was passed {type_name(got)} from {key} incompatible "
                             f"with expected {type_name(want[k])}.")
        k += 1


def _functions_named(node):
    """[(attr name, function name)] of a NodeDef's `func` and `list(func)` attrs."""
    out = []
    for key, value in node.attr.items():
        which = value.WhichOneof("value")
        if which == "func":
            out.append((key, value.func.name))
        elif which == "list":
            out.extend((key, f.name) for f in value.list.func)
    return out


def _check_calls(node, inputs, outputs, signatures, where):
    """The functions `node` names exist, and a While/If/Case passes them what their signatures take."""
    for key, fname in _functions_named(node):
        if fname not in signatures:
            raise ValueError(f"Node '{node.name}'{where}: Function {fname} is not defined (attr '{key}' names no "
                             f"function of the GraphDef's library)")
    call = _CALLS.get(node.op)
    if call is None:
        return
    args_attr, fn_attrs, results_attr = call
    args = list(node.attr[args_attr].list.type)
    results = list(node.attr[results_attr].list.type)
    for key in fn_attrs:
        for _, fname in [(k, f) for k, f in _functions_named(node) if k == key]:
            f_in, f_out = signatures[fname]
            want_out = [pb().DataType.Value("DT_BOOL")] if key == "cond" else results
            if f_in != args or (len(f_out) != len(want_out) if key == "cond" else f_out != want_out):
                raise ValueError(
                    f"Node '{node.name}'{where}: attr '{key}' names function '{fname}' of signature "
                    f"({_types(f_in)}) -> ({_types(f_out)}), but the {node.op} passes ({_types(args)}) and takes "
                    f"({_types(want_out)})")


def _types(types):
    return ", ".join(type_name(t) for t in types)


# --- the function library -------------------------------------------------------------------------------------------
def _check_library(library, memo):
    """({function name: (input types, output types)}, {function name: checked NodeDefs}) of a library fit to build,
    else a ValueError."""
    signatures, calls, functions = {}, {}, {}
    for fdef in library.function:
        sig = fdef.signature
        if sig.name in signatures:
            raise ValueError(f"Cannot add function '{sig.name}' because a different function with the same name "
                             f"already exists.")
        for arg in list(sig.input_arg) + list(sig.output_arg):
            if arg.type_attr or arg.number_attr or arg.type_list_attr or \
                    pb().DataType.Name(arg.type) not in TYPE_NAMES:
                raise ValueError(f"Function '{sig.name}': argument '{arg.name}' must have one of cfnb's types, got "
                                 f"{type_name(arg.type) if arg.type else arg.type_attr or arg.type_list_attr}")
        signatures[sig.name] = ([a.type for a in sig.input_arg], [a.type for a in sig.output_arg])
    for fdef in library.function:
        calls[fdef.signature.name], functions[fdef.signature.name] = _check_function(fdef, signatures, memo)
    names = list(signatures)
    order, unordered = topological_order(names, lambda f: calls[f])
    if unordered:
        raise ValueError(f"Functions {unordered[:5]} of the GraphDef's library call themselves, directly or through "
                         f"each other: a recursive function cannot be built (TensorFlow 2.21 crashes running one)")
    depth = {}
    for f in order:  # callees come first
        depth[f] = 1 + max((depth[c] for c in calls[f]), default=0)
    deepest = max(depth, key=depth.get, default=None)
    if deepest is not None and depth[deepest] > MAX_CALL_DEPTH:
        raise ValueError(f"Function '{deepest}' nests function calls {depth[deepest]} deep; cfnb builds at most "
                         f"{MAX_CALL_DEPTH}")
    return signatures, functions


def _check_function(fdef, signatures, memo):
    """(the functions `fdef` calls, its checked NodeDefs), once its nodes, inputs and `ret` are checked."""
    sig = fdef.signature
    where = f" (in function '{sig.name}')"
    args = {a.name: a.type for a in sig.input_arg}
    nodes, seen = {}, set(args)
    for node in fdef.node_def:
        checked, inputs, outputs = _check_node(node, where, seen, memo)
        nodes[node.name] = (checked, inputs, outputs)
    callees = set()
    for name, (node, inputs, outputs) in nodes.items():
        k = 0
        for text in node.input:
            if text.startswith("^"):
                if text[1:] not in nodes and text[1:] not in args:
                    raise ValueError(f"Node '{name}'{where}: Unknown input node '{text}'")
                continue
            got = _function_output(text, args, nodes, where)
            if not compatible(got, inputs[k]):
                raise ValueError(f"Input {k} of node {name}{where} was passed {type_name(got)} from {text} "
                                 f"incompatible with expected {type_name(inputs[k])}.")
            k += 1
        _check_calls(node, inputs, outputs, signatures, where)
        callees.update(f for _, f in _functions_named(node))
    for arg in sig.output_arg:
        if arg.name not in fdef.ret:
            raise ValueError(f"Function '{sig.name}': output '{arg.name}' has no ret")
        try:
            got = _function_output(fdef.ret[arg.name], args, nodes, where)
        except ValueError:
            raise ValueError(f"Return {arg.name} -> {fdef.ret[arg.name]} is not found.\n\tIn function output "
                             f"{arg.name}:{type_name(arg.type)}{where}") from None
        if not compatible(got, arg.type):
            raise ValueError(f"Function '{sig.name}': ret {arg.name} -> {fdef.ret[arg.name]} is {type_name(got)}, "
                             f"the signature says {type_name(arg.type)}")
    return sorted(callees), [node for node, _, _ in nodes.values()]


def _function_output(text, args, nodes, where):
    """The DataType of a FunctionDef input: `arg`, `node:out_arg:k` or `node:k`."""
    if text in args:
        return args[text]
    parts = text.split(":")
    if parts[0] not in nodes or len(parts) > 3 or not all(p.isdigit() for p in parts[2:]) or \
            (len(parts) == 2 and not parts[1].isdigit()):
        raise ValueError(f"FunctionDef input '{text}'{where} names no argument or node output")
    node, _, outputs = nodes[parts[0]]
    if len(parts) == 1:
        flat = 0
    elif len(parts) == 2:
        flat = int(parts[1])
    else:
        od = op_def(node.op)
        start, n = _output_range(od, node, parts[1])
        if n is None or int(parts[2]) >= n:
            raise ValueError(f"FunctionDef input '{text}'{where}: {node.op} has no output '{parts[1]}:{parts[2]}'")
        flat = start + int(parts[2])
    if flat >= len(outputs):
        raise ValueError(f"Node '{node.name}'{where}: Connecting to invalid output {flat} of source node "
                         f"{node.name} which has {len(outputs)} outputs.")
    return outputs[flat]


def _output_range(od, node, arg_name):
    """(first flat index, length) of output argument `arg_name` of `node`, or (0, None)."""
    pos = 0
    for arg in od.output_arg:
        if arg.type_list_attr:
            n = len(node.attr[arg.type_list_attr].list.type)
        else:
            n = node.attr[arg.number_attr].i if arg.number_attr else 1
        if arg.name == arg_name:
            return pos, n
        pos += n
    return 0, None
