"""Devices, placement, partitioning and multi-device execution, against TensorFlow 2.21.

The whitepaper's examples (tests/conformance/partition_programs.py) must give TensorFlow's values and, per
device, TensorFlow's counts of _Send/_Recv/_HostRecv/Enter/Merge/Switch/NextIteration/Exit/LoopCond
(partitions_tf.json, written by record_partitions.py). The rest checks the API (device strings, device_count,
soft placement, logging, colocation, TensorFlow's error texts), the structure TensorFlow's
graph_partition_test asserts (every Recv in a loop waits for a control loop), dead tokens crossing devices,
and that a run that cannot finish raises instead of hanging.
"""
import importlib.util
import json
import pathlib
import re

import numpy as np
import pytest

import cfnb as tf
from cfnb.framework import errors
from cfnb.passes.partition import GraphDef, NodeDef
from cfnb.runtime.devices import DeviceSet
from cfnb.runtime.multi_device import MultiDeviceExecutor

HERE = pathlib.Path(__file__).parent / "conformance"
_spec = importlib.util.spec_from_file_location("cfnb_partition_programs", HERE / "partition_programs.py")
partition_programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(partition_programs)
RECORDED = json.loads((HERE / "partitions_tf.json").read_text())
COUNTED = ("_Send", "_Recv", "_HostRecv", "Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond")
CPU0, CPU1 = "/job:localhost/replica:0/task:0/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:1"
TWO_CPUS = {"CPU": 2}


def run_with_partitions(fetches, feeds=None, config=None, trace=False):
    meta = tf.RunMetadata()
    options = tf.RunOptions(output_partition_graphs=True,
                            trace_level=tf.RunOptions.FULL_TRACE if trace else tf.RunOptions.NO_TRACE)
    with tf.Session(config=config or tf.ConfigProto(device_count=TWO_CPUS)) as sess:
        values = sess.run(fetches, feeds, options=options, run_metadata=meta)
    return values, meta


def counts_of(partition_graphs):
    out = {}
    for pg in partition_graphs:
        c = out.setdefault(pg.device.rsplit(":", 1)[1], {t: 0 for t in COUNTED})
        for node in pg.node:
            if node.op in COUNTED:
                c[node.op] += 1
    return out


# --- TensorFlow's partitions of the whitepaper's examples ------------------------------------------
@pytest.mark.parametrize("name", list(partition_programs.PROGRAMS))
def test_partitions_match_tensorflow(name, mode):
    fetches, feeds = partition_programs.PROGRAMS[name](tf)
    values, meta = run_with_partitions(fetches, feeds, tf.ConfigProto(device_count=TWO_CPUS,
                                                                      allow_soft_placement=True))
    want = RECORDED[mode][name]
    for key, value in want["values"].items():
        np.testing.assert_allclose(values[key], value, rtol=1e-5, err_msg=key)
    assert counts_of(meta.partition_graphs) == want["counts"]


# v2 nested loops and loop gradients: TensorFlow's loop body holds no output Identity after a While nested in it, and
# its gradient loop's functions hold a few more Identities than cfnb's. That is how while_v2 builds the functions
# (ops/), not how they are lowered or partitioned, so Identity is left out of the comparison for these.
FUNCTION_IDENTITIES_DIFFER = {("v2", name) for name in (
    "nested_inner_on_b", "nested_outer_on_b", "nested_zero_trip_inner", "loop_in_untaken_branch", "while_gradient_on_b",
    "while_gradient_colocated")}


@pytest.mark.parametrize("name", list(partition_programs.PROGRAMS))
def test_partitions_hold_tensorflows_nodes_of_every_type(name, mode):
    """Every op type, not only the transfers and the control-flow primitives: the lowering's auxiliary nodes (each
    inlined function's input_control_node and output_control_node NoOps, its input and output Identities, the
    pivots), the dummy Consts and Identities of control edges across devices, _Arg and _Retval."""
    fetches, feeds = partition_programs.PROGRAMS[name](tf)
    _, meta = run_with_partitions(fetches, feeds, tf.ConfigProto(device_count=TWO_CPUS, allow_soft_placement=True))
    got = {}
    for pg in meta.partition_graphs:
        every = got.setdefault(pg.device.rsplit(":", 1)[1], {})
        for node in pg.node:
            every[node.op] = every.get(node.op, 0) + 1
    want = RECORDED[mode][name]["ops"]
    if (mode, name) in FUNCTION_IDENTITIES_DIFFER:
        for counts in (*got.values(), *want.values()):
            counts.pop("Identity", None)
    assert got == want


def test_control_loop_structure(mode):
    """TensorFlow's CheckLoopConstruction: every partition with a Recv inside a loop has the four _cloop
    nodes, and every such Recv has a control input; a Send and its Recv share their keys."""
    fetches, feeds = partition_programs.PROGRAMS["nested_inner_on_b"](tf)
    _, meta = run_with_partitions(fetches, feeds)
    b = next(pg for pg in meta.partition_graphs if pg.device == CPU1)
    cloop = {n.op for n in b.node if n.name.startswith("_cloop")}
    assert cloop == {"Enter", "Merge", "Switch", "NextIteration"}
    loop_recvs = [n for n in b.node if n.op in ("_Recv", "_HostRecv") and n.input]
    assert loop_recvs and all(i.startswith("^_cloop") for n in loop_recvs for i in n.input)
    # Two frames on B (the inner loop and, stacked under it, the outer one): two control loops, the outer
    # Merge feeding the inner Enter, the outermost Enter fed by an empty float Const.
    enters = [n for n in b.node if n.name.startswith("_cloop") and n.op == "Enter"]
    assert len(enters) == 2
    sources = {b_node.name: b_node for b_node in b.node}
    assert sorted(sources[e.input[0]].op for e in enters) == ["Const", "Merge"]
    sends = {n.attr["tensor_name"]: n for pg in meta.partition_graphs for n in pg.node if n.op == "_Send"}
    recvs = [n for pg in meta.partition_graphs for n in pg.node if n.op in ("_Recv", "_HostRecv")]
    assert len(sends) == len(recvs)
    for r in recvs:
        s = sends[r.attr["tensor_name"]]
        assert (s.attr["send_device"], s.attr["recv_device"], s.attr["send_device_incarnation"]) == \
               (r.attr["send_device"], r.attr["recv_device"], r.attr["send_device_incarnation"])
        assert s.device == s.attr["send_device"] and r.device == r.attr["recv_device"]
        assert r.attr["client_terminated"] is False and re.fullmatch(r"edge_\d+_.+", r.attr["tensor_name"])


def test_outer_only_device_gets_no_inner_control_loop():
    fetches, feeds = partition_programs.PROGRAMS["nested_outer_on_b"](tf)
    _, meta = run_with_partitions(fetches, feeds)
    b = next(pg for pg in meta.partition_graphs if pg.device == CPU1)
    frames = {n.attr["frame_name"] for n in b.node if n.op == "Enter"}
    assert frames == {"while/while_context"}


# --- devices and placement ----------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["/cpu:1", "/CPU:1", "/device:CPU:1", "cpu:1", "/job:localhost/task:0/cpu:1",
                                  "/job:localhost/replica:0/task:0/device:CPU:1"])
def test_device_spellings(spec):
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.device(spec):
        y = tf.sin(x, name="y")
    value, meta = run_with_partitions(y * 2.0, {x: 0.5})
    assert value == pytest.approx(2 * np.sin(0.5))
    placed = {n.name: n.device for pg in meta.partition_graphs for n in pg.node}
    assert placed["y"] == CPU1 and placed["mul"] == CPU0


def test_missing_device_is_tensorflows_error():
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.device("/cpu:5"):
        y = tf.add(x, 1.0, name="add")
    with pytest.raises(errors.InvalidArgumentError) as e:
        tf.Session(config=tf.ConfigProto(device_count=TWO_CPUS)).run(y, {x: 1.0})
    # TensorFlow 2.21's text, recorded with the same program.
    assert str(e.value) == (
        "Cannot assign a device for operation add: {{node add}} was explicitly assigned to /device:CPU:5 but "
        "available devices are [ /job:localhost/replica:0/task:0/device:CPU:0, "
        "/job:localhost/replica:0/task:0/device:CPU:1 ]. Make sure the device specification refers to a valid "
        "device.")
    soft = tf.Session(config=tf.ConfigProto(device_count=TWO_CPUS, allow_soft_placement=True))
    assert soft.run(y, {x: 1.0}) == 2.0


def test_one_device_session_refuses_cpu1():
    with tf.device("/cpu:1"):
        y = tf.constant(1.0) + 1.0
    with pytest.raises(errors.InvalidArgumentError, match="available devices are"):
        tf.Session().run(y)


def test_log_device_placement(capsys):
    with tf.device("/cpu:1"):
        y = tf.square(tf.constant(3.0, name="c"), name="sq")
    assert tf.Session(config=tf.ConfigProto(device_count=TWO_CPUS, log_device_placement=True)).run(y) == 9.0
    # TensorFlow 2.21 prints exactly these lines (to stdout), the generator last.
    assert capsys.readouterr().out == f"sq: (Square): {CPU1}\nc: (Const): {CPU1}\n"


def test_colocation_and_heuristics():
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.device("/cpu:1"):
        a = tf.sin(x, name="a")
    with tf.colocate_with(a):
        b = tf.cos(a, name="b")
    c = tf.identity(b, name="c")          # Heuristic B: with its input
    d = tf.add(c, tf.constant(2.0, name="two"), name="d")  # default device; the Const goes with its consumer
    v = tf.Variable(1.0, name="v")
    with tf.device("/cpu:1"):
        r = v.read_value()                # resource edge: the whole variable group lives on one device
    meta = tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(device_count=TWO_CPUS)) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([d, r], {x: 0.1}, options=tf.RunOptions(output_partition_graphs=True), run_metadata=meta)
    placed = {n.name: n.device for pg in meta.partition_graphs for n in pg.node}
    assert placed["b"] == CPU1 and placed["c"] == CPU1
    assert placed["d"] == CPU0 and placed["two"] == CPU0
    assert placed["v"] == CPU1 and placed["Read/ReadVariableOp"] == CPU1


def test_conflicting_colocation_is_tensorflows_error():
    with tf.device("/cpu:0"):
        a = tf.sin(tf.constant(1.0), name="a")
    with tf.colocate_with(a), tf.device("/cpu:1"):
        b = tf.cos(a, name="b")
    with pytest.raises(errors.InvalidArgumentError, match=r"Cannot colocate nodes \{\{colocation_node a\}\} and "
                                                          r"\{\{colocation_node b\}\}"):
        tf.Session(config=tf.ConfigProto(device_count=TWO_CPUS)).run(b)


# --- execution ----------------------------------------------------------------------------------------
def test_dead_tokens_cross_devices_in_a_zero_trip_loop():
    fetches, feeds = partition_programs.PROGRAMS["while_zero_trip"](tf)
    values, meta = run_with_partitions(fetches, feeds, trace=True)
    assert values["i"] == 0 and values["v"] == pytest.approx(1.5)
    on_b = [f for f in meta.trace if f.device == CPU1]
    recvs = [f for f in on_b if f.op_type in ("_Recv", "_HostRecv") and f.frame]
    # B's control loop receives one (false) predicate; the loop_variable Recv of that iteration is dead.
    assert [f.value for f in recvs if f.op_type == "_HostRecv"] == ["False"]
    assert any(not f.live for f in recvs if f.op_type == "_Recv")
    assert {f.device for f in meta.trace} == {CPU0, CPU1}


def test_trace_records_device_and_time():
    fetches, feeds = partition_programs.PROGRAMS["while_body_on_b"](tf)
    _, meta = run_with_partitions(fetches, feeds, trace=True)
    tanh = [f for f in meta.trace if f.node == "while/Tanh" and f.live]
    assert [f.iteration for f in tanh] == [0, 1, 2, 3] and all(f.device == CPU1 for f in tanh)
    assert all(0.0 <= f.start <= f.end for f in meta.trace)


def test_strict_functional_ops_run_on_their_device():
    """lower_functional_ops=False: an If/While runs its functions as one call on the op's device, as
    TensorFlow's single-device FunctionLibraryRuntime did; the graph around it is partitioned."""
    tf.enable_control_flow_v2()
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.device("/cpu:1"):
        a = x * 3.0
        r = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * a), [0, x])[1]
    out = r + 1.0
    config = tf.ConfigProto(device_count=TWO_CPUS, lower_functional_ops=False)
    values, meta = run_with_partitions(out, {x: 2.0}, config)

    def body(i, v):
        with tf.device("/cpu:1"):
            return i + 1, v * a

    with tf.device("/cpu:0"):
        r2 = tf.while_loop(lambda i, v: i < 3, body, [0, x])[1]
    with pytest.warns(UserWarning, match=r"runs its functions on .*CPU:0 as one strict call \(lower_functional_ops="
                                         r"False\): the devices its functions ask for \(.*CPU:1\) are not used"):
        tf.Session(config=config).run(r2, {x: 2.0})
    assert values == pytest.approx(2.0 * 6.0 ** 3 + 1.0)
    placed = {n.name: (n.op, n.device) for pg in meta.partition_graphs for n in pg.node}
    assert placed["while"] == ("StatelessWhile", CPU1)


def test_deadline_and_stuck_recv_are_reported():
    """A Recv whose Send never comes: the run raises, naming the node and its device, instead of hanging."""
    devices = DeviceSet(TWO_CPUS)
    recv = NodeDef("x/_1", "_Recv", CPU0, {"tensor_name": "edge_7_x", "send_device": CPU1,
                                             "send_device_incarnation": 2, "recv_device": CPU0,
                                             "client_terminated": False, "tensor_type": tf.float32})
    ret = NodeDef("_retval_x_0_0", "_Retval", CPU0, {"T": tf.float32, "index": 0})
    ret.input.append("x/_1")
    a = GraphDef(CPU0)
    a.node += [recv, ret]
    b = GraphDef(CPU1)
    b.node.append(NodeDef("c", "Const", CPU1, {"dtype": tf.float32, "value": np.float32(1)}))
    sess = tf.Session(config=tf.ConfigProto(device_count=TWO_CPUS))
    runner = MultiDeviceExecutor([a, b], ["x:0"], sess._make_kernel)
    assert len(devices) == 2
    with pytest.raises(errors.InvalidArgumentError, match=r"x/_1 on CPU:0 \(root frame\) waits for edge_7_x from "
                                                          r"CPU:1"):
        runner.run([])


def test_gradients_of_a_partitioned_loop_both_placements(mode):
    for name in ("while_gradient_on_b", "while_gradient_colocated"):
        tf.reset_default_graph()
        fetches, feeds = partition_programs.PROGRAMS[name](tf)
        values, meta = run_with_partitions(fetches, feeds, tf.ConfigProto(device_count=TWO_CPUS,
                                                                          allow_soft_placement=True))
        assert values["g"] == pytest.approx(RECORDED[mode][name]["values"]["g"], rel=1e-5)
        if mode == "v1":  # v2's gradient ops live in functions; their placement is checked by the counts
            ops_on_b = {n.name for pg in meta.partition_graphs if pg.device == CPU1 for n in pg.node}
            assert ("gradients/while/Tanh_grad/TanhGrad" in ops_on_b) == (name == "while_gradient_colocated")


def test_deadline_while_waiting_for_a_recv():
    """A device waiting for a Recv while another is still busy honours the run's deadline."""
    import time
    import types

    from cfnb.runtime.rendezvous import Rendezvous
    rendezvous = Rendezvous(num_devices=2)   # the other device never waits: it counts as busy
    endpoint = rendezvous.endpoint(CPU0)
    token = (types.SimpleNamespace(name="x/_1"), None, None, False)
    assert rendezvous.recv(((CPU1, 2, CPU0, "edge_1_x"), (), 0), endpoint, token) is None
    with pytest.raises(errors.DeadlineExceededError, match=r"x/_1 on CPU:0 \(root frame\) waits for edge_1_x"):
        rendezvous.wait(endpoint, deadline=time.monotonic() + 0.05)


def test_single_device_run_reports_one_partition():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.square(x, name="y")
    values, meta = run_with_partitions(y, {x: 3.0}, tf.ConfigProto())
    assert values == 9.0 and [pg.device for pg in meta.partition_graphs] == [CPU0]
    assert [(n.name, n.op) for n in meta.partition_graphs[0].node] == [
        ("_arg_x_0_0", "_Arg"), ("y", "Square"), ("_retval_y_0_0", "_Retval")]
    assert meta.partition_graphs[0].node[1].input == ["_arg_x_0_0"]


# --- pictures -----------------------------------------------------------------------------------------
def test_partition_drawing_links_sends_to_recvs():
    from cfnb.viz import partitions_to_dot
    fetches, feeds = partition_programs.PROGRAMS["while_body_on_b"](tf)
    _, meta = run_with_partitions(fetches, feeds)
    source = partitions_to_dot(meta.partition_graphs).source
    assert source == partitions_to_dot(meta.partition_graphs).source
    assert source.count("subgraph cluster_device_") == 2  # one cluster per device, side by side
    n_recvs = sum(n.op in ("_Recv", "_HostRecv") for pg in meta.partition_graphs for n in pg.node)
    assert source.count("color=\"#cc0000\" constraint=false penwidth=2 style=bold") == n_recvs == 4
    assert source.count("label=\"control loop\"") == 2  # each device's control loop in a box of its own
    assert len(re.findall(r'id="o_CPU.[01]._cloop', source)) == 8  # four _cloop nodes on each device


def test_timeline_overlap_of_known_firings():
    from cfnb.runtime.trace import Firing
    from cfnb.viz import Timeline

    def firing(device, start, end):
        return Firing(0, "n", "Op", "", (), 0, True, "-", 0, device, start, end)
    # CPU:0 busy over [0, 4], CPU:1 over [3, 5] and [6, 8]: both busy during [3, 4], one eighth of the run.
    timeline = Timeline([firing(CPU0, 0, 2), firing(CPU0, 2, 4), firing(CPU1, 3, 5), firing(CPU1, 6, 8)])
    assert timeline.busy(CPU0) == [[0, 4]] and timeline.overlap() == pytest.approx(1 / 8)
    assert timeline.svg.count("<rect") == 4 and repr(timeline) == "<cfnb Timeline: 2 devices, 4 firings>"


def test_cross_device_loop_without_loop_cond_is_refused():
    """A hand-built loop whose Switch reads a plain `Less` (no LoopCond) has no frame leader to follow."""
    from cfnb.ops import control_flow_ops as cf
    enter_i = cf.enter(tf.constant(0), "foo", False)
    enter_n = cf.enter(tf.constant(3), "foo", True)
    enter_one = cf.enter(tf.constant(1), "foo", True)
    merge_i = cf.merge([enter_i, enter_i])[0]
    sw_f, sw_t = cf.switch(merge_i, tf.less(merge_i, enter_n))
    with tf.device("/cpu:1"):
        body = sw_t + enter_one
    merge_i.op._update_input(1, cf.next_iteration(body))
    out = cf.exit(sw_f)
    assert tf.Session(config=tf.ConfigProto(allow_soft_placement=True)).run(out) == 3  # one device: fine
    with pytest.raises(errors.InvalidArgumentError, match="A cross-device loop must have a pivot predicate: foo"):
        tf.Session(config=tf.ConfigProto(device_count=TWO_CPUS)).run(out)
