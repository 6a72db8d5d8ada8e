"""The GraphDef bridge against TensorFlow's own GraphDefs (tests/conformance/graph_defs/, written by TensorFlow 2.21
through tests/conformance/record_graph_defs.py; TensorFlow itself is never imported here).

* import: every recorded GraphDef (the whole conformance set, control flow v1 and v2) imports into cfnb and runs
  with TensorFlow's answers (expected_tf.json): on one of the three execution paths in `make test` (a different one
  per program, tests/sampling.py), on all three in `make test-all`;
* export: every program's GraphDef exported by cfnb imports back with TensorFlow's answers, in one control-flow
  version in `make test` (alternating, so both versions export: each exports different ops, the coverage of one is
  not the other's), in both in `make test-all`; for the
  programs whose node list is already TensorFlow's (test_conformance.IDENTICAL_GRAPHS), cfnb's `as_graph_def()`
  is TensorFlow's recorded GraphDef node for node: name, op, inputs, device and attrs;
* files: write_graph / read_graph, FileWriter's event file read back with summary_iterator;
* refusals: an op cfnb lacks is named with its node; without the tensorboard extra the error says what to install.
"""
import gzip
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import cfnb
from cfnb import viz
from cfnb.graph_def.attrs import tensor_value
from cfnb.graph_def.protos import pb

HERE = pathlib.Path(__file__).parent / "conformance"
sys.path.insert(0, str(pathlib.Path(__file__).parent))
from sampling import rotated  # noqa: E402
from test_conformance import EXECUTORS, EXPECTED, IDENTICAL_GRAPHS, mismatches, programs  # noqa: E402

MANIFEST = json.loads((HERE / "graph_defs" / "manifest.json").read_text())
MODES = ["v1", "v2"]


def recorded(mode, name):
    """TensorFlow's GraphDef of program `name` under control flow `mode` (binary: record_graph_defs.py says why)."""
    graph_def = cfnb.GraphDef()
    with gzip.open(HERE / "graph_defs" / mode / f"{name}.pb.gz", "rb") as f:
        graph_def.ParseFromString(f.read())
    return graph_def


def imported(graph_def):
    """`graph_def` imported into a fresh cfnb graph."""
    graph = cfnb.Graph()
    with graph.as_default():
        cfnb.import_graph_def(graph_def, name="")
    return graph


def run_imported(graph_def, entry, config=None, options=None, run_metadata=None, graph=None):
    """Import `graph_def` into a fresh cfnb graph (or take `graph`, imported already) and run it by the recorded
    names: (graph, {key: value})."""
    graph = graph or imported(graph_def)
    feeds = {graph.get_tensor_by_name(n): np.asarray(f["value"], dtype=f["dtype"])
             for n, f in zip(entry["feeds"], entry["feed_values"])}
    with cfnb.Session(graph=graph, config=config) as sess:
        if entry["init"]:
            sess.run(graph.get_operation_by_name(entry["init"]))
        values = sess.run({k: graph.get_tensor_by_name(n) for k, n in entry["fetches"].items()}, feed_dict=feeds,
                          options=options, run_metadata=run_metadata)
    return graph, {k: np.asarray(v) for k, v in values.items()}


def test_every_program_has_a_recorded_graph_def():
    for mode in MODES:
        missing = sorted(set(programs.PROGRAMS) - set(MANIFEST[mode]))
        assert not missing, f"run tests/conformance/record_graph_defs.py again; missing in {mode}: {missing}"


@pytest.mark.parametrize(("mode", "executor", "name"), [
    *rotated(list(programs.PROGRAMS), [("v1", e) for e in EXECUTORS], salt=0),
    *rotated(list(programs.PROGRAMS), [("v2", e) for e in EXECUTORS], salt=1)])
def test_tensorflow_graph_def_imports_and_runs(mode, executor, name):
    """(v1 hessians_cond_*: TensorFlow's tf.hessians loop reads a loop invariant from a cond's gradient, dead while
    the loop runs; the static schedule used to return the whole loop dead, see fastpath.codegen.emit_child_call.)"""
    want = EXPECTED[mode][name]
    if "error" in want:
        pytest.skip(f"TensorFlow itself fails: {want['error'][:200]}")
    graph = imported(recorded(mode, name))
    version = graph.version
    _, got = run_imported(None, MANIFEST[mode][name], cfnb.ConfigProto(**EXECUTORS[executor]), graph=graph)
    assert graph.version == version, "running the imported graph changed it"
    problems = mismatches(got, want, EXPECTED["dtypes"][mode][name], EXPECTED["shapes"][mode][name])
    assert not problems, "\n".join(problems)


# --- export: node for node ---------------------------------------------------------------------------
def _attr_key(value):
    """An AttrValue compared by meaning: a tensor by dtype, shape and values (TensorFlow may store one value in
    `int_val` or in `tensor_content`), anything else by its serialized form."""
    if value.WhichOneof("value") == "tensor":
        arr = tensor_value(value.tensor)
        return ("tensor", arr.dtype.name, arr.shape, arr.tolist())
    return value.SerializeToString(deterministic=True)


def node_summary(node):
    """What must match: name, op, inputs, device, and every attr but TensorFlow's private ones (`_class`
    colocation hints, `_has_manual_control_dependencies`), which cfnb does not keep."""
    attrs = {k: _attr_key(v) for k, v in node.attr.items() if not k.startswith("_")}
    return node.name, node.op, list(node.input), node.device, attrs


@pytest.mark.parametrize("name", IDENTICAL_GRAPHS)
def test_exported_graph_def_is_tensorflows_node_for_node(name):
    cfnb.disable_control_flow_v2()
    graph, *_ = programs.build_program(cfnb, programs.PROGRAMS[name])
    ours = [node_summary(n) for n in graph.as_graph_def().node]
    theirs = [node_summary(n) for n in recorded("v1", name).node]
    assert [n[0] for n in ours] == [n[0] for n in theirs]
    for a, b in zip(ours, theirs):
        assert a == b, f"node {a[0]}:\n cfnb       {a}\n TensorFlow {b}"


@pytest.mark.parametrize(("mode", "name"), rotated(list(programs.PROGRAMS), [(m,) for m in MODES], salt=1))
def test_exported_graph_def_imports_back_with_tensorflows_answers(mode, name):
    """cfnb's own export, imported into a fresh cfnb graph, still gives TensorFlow's answers: the GraphDef keeps
    everything the program needs (functions, attrs, the expansions of cfnb-only ops)."""
    want = EXPECTED[mode][name]
    if "error" in want:
        pytest.skip(f"TensorFlow itself fails: {want['error'][:200]}")
    (cfnb.enable_control_flow_v2 if mode == "v2" else cfnb.disable_control_flow_v2)()
    try:
        try:
            graph, fetches, feeds, init, _ = programs.build_program(cfnb, programs.PROGRAMS[name])
        except TypeError as e:  # test_conformance.DELIBERATE: cfnb refuses to build it
            pytest.skip(str(e)[:100])
        gd = graph.as_graph_def()
    finally:
        cfnb.disable_control_flow_v2()
    entry = {"feeds": [k.name for k in feeds], "init": None if init is None else init.name,
             "feed_values": [{"value": np.asarray(v).tolist(), "dtype": np.asarray(v).dtype.name}
                             for v in feeds.values()],
             "fetches": {k: v.name for k, v in fetches.items()}}
    _, got = run_imported(gd, entry)
    problems = mismatches(got, want, EXPECTED["dtypes"][mode][name], EXPECTED["shapes"][mode][name])
    assert not problems, "\n".join(problems)


def test_export_round_trips_through_cfnb_with_functions():
    """A v2 graph (If and While with their FunctionDefs in the library) exported and imported again gives the
    same values; the library holds the bodies by the names the ops call."""
    cfnb.enable_control_flow_v2()
    try:
        g = cfnb.Graph()
        with g.as_default():
            x = cfnb.placeholder(cfnb.float32, [], name="x")
            r = cfnb.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, cfnb.cond(s < 5.0, lambda: s * x,
                                                                                      lambda: s + 1.0)), [0, x])
            dr = cfnb.gradients(r[1], x)[0]
        gd = g.as_graph_def()
    finally:
        cfnb.disable_control_flow_v2()
    called = {v.func.name for n in gd.node for v in n.attr.values() if v.WhichOneof("value") == "func"}
    assert called and called <= {f.signature.name for f in gd.library.function}
    entry = {"feeds": ["x:0"], "feed_values": [{"value": 2.0, "dtype": "float32"}], "init": None,
             "fetches": {"r": r[1].name, "dr": dr.name}}
    with g.as_default(), cfnb.Session() as sess:
        want = sess.run({"r": r[1], "dr": dr}, {x: 2.0})
    for executor in EXECUTORS.values():
        _, got = run_imported(gd, entry, cfnb.ConfigProto(**executor))
        assert got["r"] == pytest.approx(want["r"]) and got["dr"] == pytest.approx(want["dr"])


# --- import: names, maps, drawing, tracing -------------------------------------------------------------
def test_import_with_scope_input_map_and_return_elements():
    src = cfnb.Graph()
    with src.as_default():
        a = cfnb.placeholder(cfnb.int32, [], name="a")
        r = cfnb.while_loop(lambda i: i < 10, lambda i: i + 3, [a], name="loop")
    gd = src.as_graph_def()
    g = cfnb.Graph()
    with g.as_default():
        seven = cfnb.constant(7, name="seven")
        out, merge = cfnb.import_graph_def(gd, input_map={"a:0": seven}, return_elements=[r.name, "loop/Merge"],
                                           name="imp")
        again = cfnb.import_graph_def(gd, return_elements=["loop/Exit"])  # default scope "import"
        with cfnb.Session() as sess:
            assert sess.run(out) == 10
    assert out.name == "imp/" + r.name and merge.type == "Merge" and merge.name == "imp/loop/Merge"
    assert again[0].name == "import/loop/Exit"
    with cfnb.Graph().as_default():  # imported names and their scopes are taken: a new "loop" gets its own scope
        cfnb.import_graph_def(gd, name="")
        assert cfnb.while_loop(lambda i: i < 1, lambda i: i + 1, [0], name="loop").op.name.startswith("loop_1/")
    with pytest.raises(ValueError, match="not found in graph_def"):
        with g.as_default():
            cfnb.import_graph_def(gd, input_map={"nope:0": seven})


def test_imported_tensorflow_graph_draws_and_steps_in_a_trace():
    """TensorFlow's own v1 loop graph: drawn with one cluster per frame, and traced firing by firing."""
    entry = MANIFEST["v1"]["t23_cond_in_while"]
    meta = cfnb.RunMetadata()
    graph, got = run_imported(recorded("v1", "t23_cond_in_while"), entry,
                              options=cfnb.RunOptions(trace_level=cfnb.RunOptions.FULL_TRACE), run_metadata=meta)
    frame_of, _ = viz.frames_of(graph)
    assert frame_of[graph.get_operation_by_name("while/Merge")] == "while/while_context"
    source = viz.to_dot(graph).source
    assert "while/Merge" in source and "cluster" in source
    merges = meta.trace.of_node("while/Merge")
    assert len(merges) >= 2 and {f.frame for f in merges} == {"while/while_context"}
    assert [f.iteration for f in merges] == list(range(len(merges)))
    assert any(not f.live for f in meta.trace)  # the untaken cond branch fires dead


def test_imported_functional_graph_steps_in_the_explorer():
    """TensorFlow's v2 graph (a StatelessWhile with an If in its body, as FunctionDefs): the explorer shows the
    imported functional graph and its lowering, and steps through the run's trace."""
    from cfnb.passes.lowering import lower_functional_ops
    from magics.explorer import Explorer
    from magics.result import WhileLoopResult
    meta = cfnb.RunMetadata()
    graph, got = run_imported(recorded("v2", "t23_cond_in_while"), MANIFEST["v2"]["t23_cond_in_while"],
                              options=cfnb.RunOptions(trace_level=cfnb.RunOptions.FULL_TRACE), run_metadata=meta)
    assert {op.type for op in graph.get_operations()} >= {"StatelessWhile"}
    lowered = lower_functional_ops(graph).graph
    result = WhileLoopResult("functional", graph, graph, lowered, got, {}, lambda: (meta.trace, meta.memory))
    explorer = Explorer(result)
    assert explorer.last_step == len(meta.trace) - 1
    merges = [f.step for f in meta.trace if f.op_type == "Merge" and f.frame]
    explorer.step = merges[-1]
    caption = explorer.caption
    assert "Merge" in caption and f"iteration {meta.trace[merges[-1]].iteration}" in caption
    explorer.view = "functional"
    assert "StatelessWhile" in explorer.shown_svg and explorer.highlighted is not None


def test_unknown_op_is_refused_with_op_and_node():
    gd = cfnb.GraphDef()
    gd.node.add(name="c", op="Const").attr["dtype"].type = pb().DataType.Value("DT_FLOAT")
    gd.node[0].attr["value"].tensor.dtype = pb().DataType.Value("DT_FLOAT")
    gd.node.add(name="weird/node", op="FrobnicateV7", input=["c"])
    with cfnb.Graph().as_default(), pytest.raises(ValueError, match=r"'weird/node'.*'FrobnicateV7'"):
        cfnb.import_graph_def(gd)


def test_graph_def_type_and_text_round_trip(tmp_path):
    g = cfnb.Graph()
    with g.as_default():
        cfnb.while_loop(lambda i: i < 3, lambda i: i + 1, [cfnb.constant(0)])
    gd = g.as_graph_def()
    assert isinstance(gd, cfnb.GraphDef) and not isinstance(g, cfnb.GraphDef)
    text = cfnb.io.write_graph(g, str(tmp_path / "logs"), "g.pbtxt")
    binary = cfnb.train.write_graph(gd, str(tmp_path / "logs"), "g.pb", as_text=False)
    assert 'op: "NextIteration"' in pathlib.Path(text).read_text()
    assert cfnb.io.read_graph(text) == gd == cfnb.io.read_graph(binary)
    assert cfnb.GraphDef.FromString(gd.SerializeToString()) == gd
    shaped = g.as_graph_def(add_shapes=True)
    merge = next(n for n in shaped.node if n.op == "Merge")
    assert [len(s.dim) for s in merge.attr["_output_shapes"].list.shape] == [0, 0]  # a scalar and value_index


def test_file_writer_event_file_reads_back(tmp_path):
    """The event file TensorBoard's graph dashboard reads: a version event, then the graph's GraphDef."""
    g = cfnb.Graph()
    with g.as_default():
        cfnb.while_loop(lambda i: i < 3, lambda i: i + 1, [cfnb.constant(0)], name="outer")
    with cfnb.summary.FileWriter(str(tmp_path), graph=g) as writer:
        logdir = writer.get_logdir()
    files = list(pathlib.Path(logdir).glob("events.out.tfevents.*"))
    assert len(files) == 1
    events = list(cfnb.train.summary_iterator(str(files[0])))
    assert events[0].file_version == "brain.Event:2"
    graphs = [cfnb.GraphDef.FromString(e.graph_def) for e in events if e.graph_def]
    assert graphs == [g.as_graph_def()]
    frames = {n.attr["frame_name"].s.decode() for n in graphs[0].node if n.op == "Enter"}
    assert frames == {"outer/while_context"}  # the frame is the `outer/` name scope on the dashboard
    # TensorBoard's own reader, the one behind its graph dashboard, finds the same graph.
    from tensorboard.backend.event_processing import event_accumulator
    accumulator = event_accumulator.EventAccumulator(logdir)
    accumulator.Reload()
    assert accumulator.Graph().SerializeToString() == graphs[0].SerializeToString()


def test_without_tensorboard_the_engine_imports_and_the_bridge_says_what_to_install():
    code = ("import sys; sys.modules['tensorboard'] = None\n"
            "import cfnb\n"
            "g = cfnb.Graph()\n"
            "with g.as_default(): cfnb.constant(1.0)\n"
            "try:\n    g.as_graph_def()\nexcept ImportError as e:\n    print('ImportError:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("ImportError:") and "pip install -e '.[tensorboard]'" in out


def test_tensorflows_export_check_is_recorded():
    """record_graph_defs.py ran cfnb's exported graphs in TensorFlow; its outcome is part of the data."""
    check = MANIFEST["export_check"]
    for mode in MODES:
        assert set(check[mode]) == set(programs.PROGRAMS)
        ok = sum(v == "ok" for v in check[mode].values())
        assert check["counts"][mode].startswith(f"{ok} of ")
