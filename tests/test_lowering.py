"""Lowering (passes/lowering.py, TensorFlow's lower_while_op.cc and lower_if_op.cc): a functional While becomes
Enter/Merge/Switch/NextIteration/Exit with its functions inlined, node for node and edge for edge as TensorFlow 2.21
lowers it, and the lowered loop runs and ends. The If and Case lowerings are checked beside their ops in
test_functional.py."""
import numpy as np
import pytest

import cfnb as tf
from cfnb.passes.lowering import lower_functional_ops


@pytest.fixture
def v2():
    tf.enable_control_flow_v2()
    yield
    tf.disable_control_flow_v2()


def test_lowered_form_follows_lower_while_op(v2):
    x = tf.constant(2.0)
    tf.while_loop(lambda v: v < 8.0, lambda v: v * v, [x])
    lowered = lower_functional_ops(tf.get_default_graph()).graph
    names = [(op.name, op.type) for op in lowered.get_operations()]
    assert names == [
        ("Const", "Const"), ("while/maximum_iterations", "Const"), ("while/loop_counter", "Const"),
        ("while/enter", "Enter"), ("while/enter_1", "Enter"), ("while/enter_2", "Enter"),
        ("while/merge", "Merge"), ("while/merge_1", "Merge"), ("while/merge_2", "Merge"),
        ("Func/while/cond/input_control_node", "NoOp"), ("Func/while/cond/input", "Identity"),
        ("Func/while/cond/input_1", "Identity"), ("Func/while/cond/input_2", "Identity"),
        ("while/cond/Less/y", "Const"), ("while/cond/Less", "Less"), ("Func/while/cond/output", "Identity"),
        ("while/LoopCond", "LoopCond"),
        ("while/loop_counter_switch", "Switch"), ("while/maximum_iterations_switch", "Switch"),
        ("while/Const_switch", "Switch"), ("while/loop_body_control", "Identity"),
        ("Func/while/body/input_control_node", "NoOp"), ("Func/while/body/input", "Identity"),
        ("Func/while/body/input_1", "Identity"), ("Func/while/body/input_2", "Identity"),
        ("while/body/mul", "Mul"), ("while/body/add/y", "Const"), ("while/body/add", "AddV2"),
        ("Func/while/body/output", "Identity"), ("Func/while/body/output_1", "Identity"),
        ("Func/while/body/output_2", "Identity"), ("Func/while/body/output_control_node", "NoOp"),
        ("while/exit", "Exit"), ("while/exit_1", "Exit"), ("while/exit_2", "Exit"),
        ("while/next_iteration", "NextIteration"), ("while/next_iteration_1", "NextIteration"),
        ("while/next_iteration_2", "NextIteration"), ("while/LoopExecuted", "NoOp"),
        ("while/Identity", "Identity"), ("while/Identity_1", "Identity"), ("while/Identity_2", "Identity")]
    # The inliner's control edges, as TensorFlow 2.21 draws them (input_control_node gated by the cond's first
    # Merge and by loop_body_control; every input Identity and input-less body node waits for it; each
    # NextIteration waits for the body's output_control_node).
    controls = {op.name: [c.name for c in op.control_inputs] for op in lowered.get_operations() if op.control_inputs}
    assert controls["Func/while/cond/input_control_node"] == ["while/merge"]
    assert controls["Func/while/body/input_control_node"] == ["while/loop_body_control"]
    assert controls["while/body/add/y"] == controls["Func/while/body/input_2"] == ["Func/while/body/input_control_node"]
    assert controls["Func/while/body/output_control_node"] == ["Func/while/body/input_control_node"]
    assert controls["while/next_iteration_2"] == ["Func/while/body/output_control_node"]
    assert "while/body/mul" not in controls
    enter = lowered.get_operation_by_name("while/enter")
    assert enter.get_attr("frame_name") == "while" and not enter.get_attr("is_constant")


def test_lowered_while_reads_a_resource_through_the_body_input_identity(v2):
    """A resource loop input keeps its constant Enter (no Merge, no Switch); the inlined body's input Identity reads
    it under the body's input_control_node, so the ReadVariableOp cannot run in the iteration the predicate ends."""
    v = tf.Variable(2.0, name="v")
    x = tf.placeholder(tf.float32, [], name="x")
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * v.read_value()), [0, x])
    out = y * 1.0
    meta = tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(v.initializer)
        assert sess.run(out, {x: 1.5}, options=tf.RunOptions(output_partition_graphs=True), run_metadata=meta) == 12.0
    nodes = {n.name: n for pg in meta.partition_graphs for n in pg.node}
    read = next(n for n in nodes.values() if n.op == "ReadVariableOp")
    arg = nodes[read.input[0]]
    assert arg.op == "Identity" and arg.name.startswith("Func/while/body/input")
    assert nodes[arg.input[0]].op == "Enter" and nodes[arg.input[0]].attr["is_constant"]
    assert arg.input[1:] == ["^Func/while/body/input_control_node"]
    # TensorFlow 2.21 partitions the same program (grappler off) into these nodes, by type.
    counts = {}
    for n in nodes.values():
        counts[n.op] = counts.get(n.op, 0) + 1
    assert counts == {"AddV2": 2, "Const": 6, "Enter": 4, "Exit": 1, "Identity": 12, "Less": 1, "LoopCond": 1,
                      "Merge": 3, "Mul": 2, "NextIteration": 3, "NoOp": 3, "ReadVariableOp": 1, "Switch": 3,
                      "VarHandleOp": 1, "_Arg": 1, "_Retval": 1}


@pytest.mark.parametrize("static", [True, False])
def test_lowered_while_whose_body_only_reads_a_variable_ends(static):
    # The body's ReadVariableOp reads the resource's constant Enter: without the pivot Identity it
    # also ran in the iteration where the predicate ends and fed its NextIteration forever.
    tf.enable_control_flow_v2()
    v = tf.Variable(np.array([1.0, 2.0]))
    x = tf.placeholder(tf.float64, [2])
    r = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, v.read_value()), [tf.constant(0), x])
    sess = tf.Session(config=tf.ConfigProto(static_schedule=static, operation_timeout_in_ms=5_000))
    sess.run(tf.global_variables_initializer())
    i, a = sess.run(r, {x: np.zeros(2)})
    assert i == 2 and a.tolist() == [1.0, 2.0]
