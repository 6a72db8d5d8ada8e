"""Hostile GraphDefs (graph_def_cases.py) imported into cfnb, against what TensorFlow 2.21 did with each
(hostile_tf.json, written by record_hostile.py; TensorFlow is never imported here).

* TensorFlow refused the file itself (text syntax, wire format): `cfnb.io.read_graph` raises the same protobuf error
  with the same line and column;
* TensorFlow refused the import: cfnb raises a ValueError that says what TensorFlow's says (the case's `keys`),
  and the graph is left as it was, with not one node of the refused GraphDef in it;
* cfnb refuses on purpose what TensorFlow accepts or finds only when it runs (the case's `refused` says why): a
  ValueError at import, the graph untouched;
* TensorFlow imported and ran it: cfnb imports it and gives TensorFlow's value on every execution path.
Every case has a timeout: a hostile graph may fail, never hang.
"""
import json
import pathlib

import numpy as np
import pytest

import cfnb
from cfnb.graph_def.protos import pb

from . import graph_def_cases as cases

HERE = pathlib.Path(__file__).parent
RECORDED = json.loads((HERE / "hostile_tf.json").read_text())["cases"]
PATHS = {"static": {}, "executor": {"static_schedule": False}, "strict": {"lower_functional_ops": False}}


def _message(error):
    return getattr(error, "message", None) or str(error)


def _parse(case):
    if isinstance(case.graph_def, bytes):
        return cfnb.GraphDef.FromString(case.graph_def)
    return pb().text_format.Parse(case.graph_def, cfnb.GraphDef())


def test_every_case_is_recorded():
    assert sorted(RECORDED) == sorted(cases.CASES), "run tests/hostile/record_hostile.py again"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", list(cases.CASES))
def test_hostile_graph_def(name, tmp_path):
    case, tf = cases.CASES[name], RECORDED[name]
    for key in case.keys if not case.refused or "message" in tf else ():
        assert key in tf["message"], f"TensorFlow's message does not say {key!r}: {tf['message']}"
    if tf["phase"] == "parse":
        path = tmp_path / "graph.pbtxt"
        path.write_bytes(case.graph_def if isinstance(case.graph_def, bytes) else case.graph_def.encode())
        with pytest.raises(Exception) as info:  # noqa: B017 - the type is TensorFlow's, compared below
            cfnb.io.read_graph(str(path))
        assert type(info.value).__name__ == tf["type"]
        assert str(info.value).replace("tensorboard.", "tensorflow.") == tf["message"]  # the protos' package
        return
    graph_def = _parse(case)
    graph = cfnb.Graph()
    with graph.as_default():
        before = cfnb.constant(0.0, name="before")
        if case.refused or tf["phase"] == "import":
            with pytest.raises(ValueError) as info:
                cfnb.import_graph_def(graph_def, name="")
            message = _message(info.value)
            for key in case.keys:
                assert key in message, f"cfnb's message does not say {key!r}: {message}"
            assert graph.get_operations() == [before.op]  # nothing of the refused graph was built
            return
        cfnb.import_graph_def(graph_def, name="")
    if not case.fetch:
        return
    for config in PATHS.values():
        with cfnb.Session(graph=graph, config=cfnb.ConfigProto(**config)) as sess:
            if tf["phase"] == "run":
                with pytest.raises(Exception) as info:  # noqa: B017 - the type is TensorFlow's, compared below
                    sess.run(case.fetch)
                assert type(info.value).__name__ == tf["type"]
                for key in case.keys:
                    assert key in _message(info.value)
            else:
                np.testing.assert_array_equal(sess.run(case.fetch), tf["value"])


def test_an_imported_print_writes_to_the_streams_tensorflow_names(capsys, caplog):
    """PrintV2's output_stream from a GraphDef: stdout and stderr are Python's, `log(...)` is Python's logging."""
    for stream, where in (("stdout", "out"), ("stderr", "err"), ("log(warning)", "log")):
        graph_def = _parse(cases.Case(cases.const("a", 2.5) + cases.node(
            "fmt", "StringFormat", ("a",), cases.attr("T", "list { type: DT_FLOAT }"),
            cases.attr("template", 's: "a is {}"'), cases.attr("placeholder", 's: "{}"'),
            cases.attr("summarize", "i: 3")) + cases.node("p", "PrintV2", ("fmt",),
                                                          cases.attr("output_stream", f's: "{stream}"')), ()))
        graph = cfnb.Graph()
        with graph.as_default():
            cfnb.import_graph_def(graph_def, name="")
        with cfnb.Session(graph=graph) as sess:
            sess.run(graph.get_operation_by_name("p"))
        out, err = capsys.readouterr()
        got = {"out": out, "err": err, "log": caplog.text}[where]
        assert "a is 2.5" in got
        exported = [n for n in graph.as_graph_def().node if n.name == "p"][0]
        assert exported.attr["output_stream"].s.decode() == stream


def test_a_text_graph_def_that_is_valid_utf8_but_binary_reads_as_binary(tmp_path):
    """read_graph tells text from binary by trying both: a binary GraphDef that happens to be UTF-8 still reads."""
    graph = cfnb.Graph()
    with graph.as_default():
        cfnb.constant(1.0, name="a")
    data = graph.as_graph_def().SerializeToString()
    path = tmp_path / "graph.pb"
    path.write_bytes(data)
    assert [n.name for n in cfnb.io.read_graph(str(path)).node] == ["a"]


def test_print_exports_as_tensorflows_string_format_and_prints_the_same_after_import(capsys):
    """cfnb's StringFormat (a structure of arguments) is written as TensorFlow's (one template string): imported
    again, it prints exactly what the original printed, a literal "{}" in a string argument included."""
    graph = cfnb.Graph()
    with graph.as_default():
        x = cfnb.constant([1.5, -2.0], name="x")
        p = cfnb.print("x is", x, "and {} stays", [x[0], "a"], sep=" | ")
    with cfnb.Session(graph=graph) as sess:
        sess.run(p)
    original = capsys.readouterr().err
    graph_def = graph.as_graph_def()
    node = [n for n in graph_def.node if n.op == "StringFormat"][0]
    assert node.attr["placeholder"].s == b"{{}}" and node.attr["template"].s.count(b"{{}}") == 2
    again = cfnb.Graph()
    with again.as_default():
        cfnb.import_graph_def(graph_def, name="")
    with cfnb.Session(graph=again) as sess:
        sess.run(again.get_operation_by_name(p.name))
    assert capsys.readouterr().err == original == "x is | [1.5 -2] | and {} stays | [1.5, 'a']\n"


@pytest.mark.timeout(60)
def test_a_node_like_one_already_checked_is_still_checked_for_its_own_value_and_inputs():
    """Import remembers the verdict on each (op, input count, attrs): a second Const with the same attrs still has
    its own value checked, and a second AddV2 with one input fewer is still refused."""
    good = cases.const("a", 1.0) + cases.const("b", 2.0)
    bad_value = cases.node("c", "Const", (), cases.attr("dtype", "type: DT_FLOAT"),
                           cases.attr("value", "tensor { dtype: DT_FLOAT tensor_shape { dim { size: -5 } } }"))
    add = cases.node("s", "AddV2", ("a", "b"), cases.attr("T", "type: DT_FLOAT"))
    short = cases.node("t", "AddV2", ("a",), cases.attr("T", "type: DT_FLOAT"))
    for text, keys in ((good + bad_value, ("c", "-5")), (good + add + short, ("t", "inputs"))):
        with cfnb.Graph().as_default(), pytest.raises(ValueError) as info:
            cfnb.import_graph_def(_parse(cases.Case(text, ())), name="")
        assert all(key in _message(info.value) for key in keys), _message(info.value)
    with cfnb.Graph().as_default() as graph:
        cfnb.import_graph_def(_parse(cases.Case(good + add, ())), name="")
    with cfnb.Session(graph=graph) as sess:
        assert sess.run("s:0") == 3.0
