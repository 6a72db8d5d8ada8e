"""Hostile GraphDefs: programs from a stranger, each as text (TensorFlow's pbtxt) or raw bytes.

Neither cfnb nor TensorFlow is imported here: record_hostile.py imports each case into TensorFlow 2.21 and writes
what it answered (hostile_tf.json); test_graph_defs.py imports the same case into cfnb and compares. A case names the
words TensorFlow's message and cfnb's must both contain (`keys`); `refused` marks a graph TensorFlow accepts and cfnb
refuses on purpose (it would touch files or run Python), with cfnb's own words in `keys` and the reason in `why`.
"""
from typing import NamedTuple


class Case(NamedTuple):
    graph_def: object        # pbtxt text (str) or a serialized GraphDef (bytes)
    keys: tuple              # words both messages contain (cfnb's only, for a deliberate refusal)
    fetch: str = ""          # what to run after a successful import ("" = import only)
    refused: str = ""        # why cfnb refuses a graph TensorFlow accepts ("" = TensorFlow refuses it too)
    run_tf: bool = True      # False: TensorFlow must not run it (it would allocate gigabytes or loop forever)


def attr(key, value):
    return f'attr {{ key: "{key}" value {{ {value} }} }}'


def node(name, op, inputs=(), *attrs, device=""):
    ins = " ".join(f'input: "{i}"' for i in inputs)
    dev = f' device: "{device}"' if device else ""
    return f'node {{ name: "{name}" op: "{op}" {ins}{dev} {" ".join(attrs)} }}\n'


def scalar(v, dtype="DT_FLOAT", field="float_val"):
    return f"tensor {{ dtype: {dtype} tensor_shape {{ }} {field}: {v} }}"


def const(name, v=1.0, dtype="DT_FLOAT", field="float_val"):
    return node(name, "Const", (), attr("dtype", f"type: {dtype}"), attr("value", scalar(v, dtype, field)))


def identity(name, x, dtype="DT_FLOAT"):
    return node(name, "Identity", (x,), attr("T", f"type: {dtype}"))


def function(name, inputs, outputs, body, ret):
    sig = " ".join(f'input_arg {{ name: "{n}" type: {t} }}' for n, t in inputs)
    sig += " " + " ".join(f'output_arg {{ name: "{n}" type: {t} }}' for n, t in outputs)
    nodes = body.replace("node {", "node_def {")
    rets = " ".join(f'ret {{ key: "{k}" value: "{v}" }}' for k, v in ret.items())
    return f'function {{ signature {{ name: "{name}" {sig} }} {nodes} {rets} }}\n'


def library(*functions):
    return "library {\n" + "".join(functions) + "}\n"


def while_node(name, inputs, cond, body, dtypes="type: DT_INT32"):
    return node(name, "While", inputs, attr("T", f"list {{ {dtypes} }}"), attr("cond", f'func {{ name: "{cond}" }}'),
                attr("body", f'func {{ name: "{body}" }}'), attr("parallel_iterations", "i: 10"),
                attr("output_shapes", "list { shape { } }"))


_COND = function("cond", [("i", "DT_INT32")], [("out", "DT_BOOL")],
                 const("ten", 10, "DT_INT32", "int_val")
                 + node("less", "Less", ("i", "ten:output:0"), attr("T", "type: DT_INT32")),
                 {"out": "less:z:0"})

_SELF_BODY = function("body", [("i", "DT_INT32")], [("out", "DT_INT32")],
                      while_node("inner", ("i",), "cond", "body"), {"out": "inner:output:0"})
_A_CALLS_B = function("body", [("i", "DT_INT32")], [("out", "DT_INT32")],
                      while_node("inner", ("i",), "cond", "body2"), {"out": "inner:output:0"})
_B_CALLS_A = function("body2", [("i", "DT_INT32")], [("out", "DT_INT32")],
                      while_node("inner", ("i",), "cond", "body"), {"out": "inner:output:0"})
_PLUS_ONE = function("body", [("i", "DT_INT32")], [("out", "DT_INT32")],
                     const("one", 1, "DT_INT32", "int_val")
                     + node("add", "AddV2", ("i", "one:output:0"), attr("T", "type: DT_INT32")),
                     {"out": "add:z:0"})

_NESTED = [function(f"f{k}", [("i", "DT_INT32")], [("out", "DT_INT32")],
                    while_node("inner", ("i",), "cond", f"f{k + 1}"), {"out": "inner:output:0"}) for k in range(70)]
_NESTED.append(_PLUS_ONE.replace('name: "body"', 'name: "f70"', 1))
_I0 = const("i0", 0, "DT_INT32", "int_val")
_EARLY = "cfnb builds constants and functions when it imports a graph; TensorFlow finds this when the node runs"
_RECURSIVE = "TensorFlow 2.21 imports it and crashes (SIGSEGV) running it"


CASES = {
    # --- inputs ----------------------------------------------------------------------------------------------
    "input_index_past_outputs": Case(const("a") + identity("b", "a:3"), ("b", "a", "3")),
    "unknown_input_node": Case(const("a") + identity("b", "zz"), ("b", "zz")),
    "unknown_control_input": Case(const("a") + node("b", "Identity", ("a", "^zz"), attr("T", "type: DT_FLOAT")),
                                  ("b", "zz")),
    "control_input_before_data_input": Case(const("a") + node("b", "Identity", ("^a", "a"),
                                                              attr("T", "type: DT_FLOAT")),
                                            ("b", "Control dependencies must come after regular dependencies")),
    "malformed_input_name": Case(const("a") + identity("b", "a:x"), ("b", "a:x")),
    "too_few_inputs": Case(const("a") + node("b", "AddV2", ("a",), attr("T", "type: DT_FLOAT")), ("b", "inputs")),
    "too_many_inputs": Case(const("a") + node("b", "Identity", ("a", "a"), attr("T", "type: DT_FLOAT")),
                            ("b", "inputs")),
    "input_dtype_mismatch": Case(const("a") + const("i", 1, "DT_INT32", "int_val")
                                 + node("b", "AddV2", ("a", "i"), attr("T", "type: DT_FLOAT")),
                                 ("b", "int32", "float")),
    "list_input_count_mismatch": Case(const("a") + node("b", "Pack", ("a", "a"), attr("T", "type: DT_FLOAT"),
                                                        attr("N", "i: 3"), attr("axis", "i: 0")), ("b", "inputs")),
    # --- names -----------------------------------------------------------------------------------------------
    "duplicate_node_names": Case(const("a") + const("a", 2.0) + identity("b", "a"), ("a",)),
    "invalid_node_name": Case(const("a b!"), ("a b!",)),
    "empty_node_name": Case(const(""), ("''",)),
    "empty_op_name": Case(node("a", ""), ("a",)),
    # --- attrs -----------------------------------------------------------------------------------------------
    "missing_attr": Case(const("a") + node("b", "Identity", ("a",)), ("b", "T")),
    "attr_of_wrong_kind": Case(const("a") + node("b", "Identity", ("a",), attr("T", "i: 3")), ("b", "T", "type")),
    "matmul_transpose_a_as_string": Case(
        node("m", "Const", (), attr("dtype", "type: DT_FLOAT"),
             attr("value", "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } "
                           "float_val: 1.0 }"))
        + node("mm", "MatMul", ("m", "m"), attr("T", "type: DT_FLOAT"), attr("transpose_a", 's: "yes"'),
               attr("transpose_b", "b: false")), ("mm", "transpose_a", "bool")),
    "placeholder_shape_as_int": Case(node("p", "Placeholder", (), attr("dtype", "type: DT_FLOAT"),
                                          attr("shape", "i: 3")), ("p", "shape")),
    "unknown_attr": Case(const("a") + node("b", "Identity", ("a",), attr("T", "type: DT_FLOAT"),
                                           attr("frobnicate", "i: 1")), (), fetch="b:0"),
    "type_not_allowed": Case(const("t", "true", "DT_BOOL", "bool_val")
                             + node("mm", "MatMul", ("t", "t"), attr("T", "type: DT_BOOL")), ("mm", "T", "bool")),
    "number_attr_below_minimum": Case(const("a") + node("b", "Pack", (), attr("T", "type: DT_FLOAT"),
                                                        attr("N", "i: -1"), attr("axis", "i: 0")), ("b", "N", "-1")),
    "invalid_dtype_enum": Case(node("p", "Placeholder", (), attr("dtype", "type: 4242"),
                                    attr("shape", "shape { }")), ("p", "4242")),
    "placeholder_negative_dim": Case(node("p", "Placeholder", (), attr("dtype", "type: DT_FLOAT"),
                                          attr("shape", "shape { dim { size: -7 } }")), ("p", "-7")),
    # --- constants -------------------------------------------------------------------------------------------
    "const_without_value": Case(node("a", "Const", (), attr("dtype", "type: DT_FLOAT")), ("a", "value")),
    "const_negative_dim": Case(node("a", "Const", (), attr("dtype", "type: DT_FLOAT"),
                                    attr("value", "tensor { dtype: DT_FLOAT tensor_shape { dim { size: -5 } } "
                                                  "float_val: 1.0 }")), ("a", "-5"), fetch="a:0"),
    "const_content_wrong_size": Case(node("a", "Const", (), attr("dtype", "type: DT_FLOAT"),
                                          attr("value", 'tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } '
                                                        'tensor_content: "\\000\\000\\200?" }')),
                                     ("a", "Cannot parse tensor from proto"), fetch="a:0", refused=_EARLY),
    "const_dtype_disagrees_with_value": Case(node("a", "Const", (), attr("dtype", "type: DT_FLOAT"),
                                                  attr("value", scalar(3, "DT_INT32", "int_val"))),
                                             ("a", "Type mismatch between value (int32) and dtype (float)"),
                                             fetch="a:0", refused=_EARLY),
    "const_of_forty_gigabytes": Case(node("a", "Const", (), attr("dtype", "type: DT_FLOAT"),
                                          attr("value", "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 100000 }"
                                                        " dim { size: 100000 } } float_val: 1.0 }")),
                                     ("a", "100000"), refused="a 40 GB constant from 5 bytes of GraphDef: cfnb "
                                     "refuses a constant larger than a GraphDef can hold (2 GB)", run_tf=False),
    # --- loops and functions ---------------------------------------------------------------------------------
    "cycle_not_through_a_loop": Case(identity("a", "b") + identity("b", "a"), ("nodes in a cycle",), fetch="b:0",
                                     run_tf=False),
    "while_body_calls_itself": Case(_I0 + while_node("w", ("i0",), "cond", "body") + library(_COND, _SELF_BODY),
                                    ("body", "recursive"), fetch="w:0", refused=_RECURSIVE),
    "while_bodies_call_each_other": Case(_I0 + while_node("w", ("i0",), "cond", "body")
                                         + library(_COND, _A_CALLS_B, _B_CALLS_A), ("body", "body2", "recursive"),
                                         fetch="w:0", refused=_RECURSIVE),
    "functions_nested_71_deep": Case(_I0 + while_node("w", ("i0",), "cond", "f0") + library(_COND, *_NESTED),
                                     ("f0", "71 deep"), refused="cfnb builds a function's graph when a node names it: "
                                     "71 nested builds are refused before Python's recursion limit", run_tf=False),
    "while_body_not_in_library": Case(_I0 + while_node("w", ("i0",), "cond", "nowhere") + library(_COND),
                                      ("w", "Function nowhere is not defined"), fetch="w:0", refused=_EARLY),
    "function_ret_names_no_node": Case(_I0 + while_node("w", ("i0",), "cond", "body")
                                       + library(_COND, function("body", [("i", "DT_INT32")], [("out", "DT_INT32")],
                                                                 "", {"out": "ghost:z:0"})),
                                       ("Return out -> ghost:z:0 is not found",), fetch="w:0", refused=_EARLY),
    "while_that_works": Case(_I0 + while_node("w", ("i0",), "cond", "body") + library(_COND, _PLUS_ONE), (),
                             fetch="w:0"),
    "switchn_of_a_billion_outputs": Case(const("a") + const("k", 0, "DT_INT32", "int_val")
                                         + node("s", "_SwitchN", ("a", "k"), attr("T", "type: DT_FLOAT"),
                                                attr("num_outs", "i: 1000000000")),
                                         ("s", "num_outs", "1000000000"), refused="a billion outputs would take "
                                         "gigabytes before anything runs", run_tf=False),
    # --- ops that reach outside ------------------------------------------------------------------------------
    "print_to_a_file": Case(const("a") + node("fmt", "StringFormat", ("a",), attr("T", "list { type: DT_FLOAT }"),
                                              attr("template", 's: "{}"'), attr("placeholder", 's: "{}"'),
                                              attr("summarize", "i: 3"))
                            + node("p", "PrintV2", ("fmt",), attr("output_stream", 's: "file:///tmp/cfnb_hostile"'),
                                   attr("end", 's: "\\n"')),
                            ("p", "output_stream", "file:///tmp/cfnb_hostile"),
                            refused="an imported graph may print to stderr, stdout or the log, never to a file",
                            run_tf=False),
    "string_format_placeholders_do_not_match_inputs": Case(
        const("a") + node("fmt", "StringFormat", ("a",), attr("T", "list { type: DT_FLOAT }"),
                          attr("template", 's: "{} and {}"'), attr("placeholder", 's: "{}"'),
                          attr("summarize", "i: 3")),
        ("fmt", "num placeholders in template and num inputs must match")),
    "read_file": Case(node("f", "Const", (), attr("dtype", "type: DT_STRING"),
                           attr("value", 'tensor { dtype: DT_STRING tensor_shape { } string_val: "/etc/passwd" }'))
                      + node("r", "ReadFile", ("f",)), ("r", "ReadFile"), refused="it reads a file", run_tf=False),
    "write_file": Case(node("f", "Const", (), attr("dtype", "type: DT_STRING"),
                            attr("value", 'tensor { dtype: DT_STRING tensor_shape { } string_val: "/tmp/x" }'))
                       + node("w", "WriteFile", ("f", "f")), ("w", "WriteFile"), refused="it writes a file",
                       run_tf=False),
    "py_func": Case(const("a") + node("p", "PyFunc", ("a",), attr("token", 's: "pyfunc_0"'),
                                      attr("Tin", "list { type: DT_FLOAT }"), attr("Tout", "list { type: DT_FLOAT }")),
                    ("p", "PyFunc"), refused="it runs Python named by a token", run_tf=False),
    # --- the file itself -------------------------------------------------------------------------------------
    "text_syntax_error": Case('node {\n  name: "a"\n  op: "Const"\n  attr { key: "dtype" value { type: DT_FLOAT }\n}\n',
                              ("5:",)),
    "text_unknown_field": Case('node {\n  name: "a"\n  opp: "Const"\n}\n', ("3:", "opp")),
    "binary_garbage": Case(b"\xff\xfe\x00garbage\x01\x02", ("Error parsing message",)),
}
