"""The student's names on drawings: carried through lowering and the v1 rebuild as `_cfnb_var_name`, recovered
from the graph API's tensor names, shown on gradient nodes and history stacks (cfnb.viz.names, passes/)."""
import pytest
from running import run

import cfnb as tf
from cfnb import viz
from cfnb.passes.lowering import lower_functional_ops
from cfnb.passes.to_v1 import rebuild_v1
from cfnb.viz.names import Names, forward_name, user_named


def _newton_v2():
    """A functional While over (x, it), named as the %%whileloop magic names its loops."""
    tf.enable_control_flow_v2()
    x0 = tf.constant(1.0, name="x0")
    x0.op._set_attr("_cfnb_source", "notebook")
    it = tf.constant(0, name="Const")
    out = tf.while_loop(lambda x, it: tf.abs(x * x - 2.0) > 1e-6, lambda x, it: (x - (x * x - 2.0) / (2.0 * x), it + 1),
                        [x0, it])
    loop = next(op for op in tf.get_default_graph().get_operations() if op.type in ("While", "StatelessWhile"))
    loop._set_attr("_cfnb_var_names", [".counter", ".limit", "x", "it"])
    tf.disable_control_flow_v2()
    return tf.get_default_graph(), loop, out


def _var_names(graph):
    return {op.name: op.get_attr("_cfnb_var_name") for op in graph.get_operations() if "_cfnb_var_name" in op.attr}


def test_lowering_carries_the_student_names_onto_every_primitive():
    graph, _, out = _newton_v2()
    lowered = lower_functional_ops(graph)
    names = _var_names(lowered.graph)
    for kind in ("enter", "merge", "exit", "next_iteration"):
        assert names[f"while/{kind}_2"] == "x" and names[f"while/{kind}_3"] == "it"
    assert names["while/x0_switch"] == "x" and names["while/Const_switch"] == "it"
    assert set(names.values()) == {".counter", ".limit", "x", "it"}
    assert "_cfnb" not in lowered.graph.as_text()  # golden texts are unaffected
    with tf.Session() as sess:
        assert abs(sess.run(out[0]) - 2 ** 0.5) < 1e-6


def test_the_v1_rebuild_carries_them_too_and_runs_the_same():
    graph, _, out = _newton_v2()
    rebuilt = rebuild_v1(graph)
    names = _var_names(rebuilt.graph)
    assert {k: v for k, v in names.items() if v == "x"} == {
        f"while/{p}": "x" for p in ("Enter", "Merge", "Switch", "Identity", "NextIteration", "Exit")}
    assert {k for k, v in names.items() if v == "it"} == {
        f"while/{p}_1" for p in ("Enter", "Merge", "Switch", "Identity", "NextIteration", "Exit")}
    with tf.Session(graph=rebuilt.graph) as sess:
        assert sess.run(rebuilt.tensor_map[out[1]]) == 4


def test_an_if_carries_its_output_names_onto_its_merges():
    tf.enable_control_flow_v2()
    a = tf.placeholder(tf.float32, [], name="a")
    lo, hi = tf.cond(a > 0.0, lambda: (a, a * 2.0), lambda: (-a, a * a))
    op = next(o for o in tf.get_default_graph().get_operations() if o.type in ("If", "StatelessIf"))
    op._set_attr("_cfnb_out_names", ["lo", "hi"])
    tf.disable_control_flow_v2()
    lowered = lower_functional_ops(tf.get_default_graph()).graph
    assert _var_names(lowered) == {"cond/output": "lo", "cond/output_1": "hi"}
    assert set(_var_names(rebuild_v1(tf.get_default_graph()).graph).values()) == {"lo", "hi"}


def test_drawings_of_a_lowered_magic_loop_speak_the_student_names():
    graph, _, _ = _newton_v2()
    lowered = lower_functional_ops(graph).graph
    d = viz.drawing(lowered, detail="primitives")
    assert d.label_for("while/merge_2") == "x (while/merge_2)"
    assert d.label_for("while/exit_3") == "it (while/exit_3)"
    assert "x0 = 1\n(from the notebook)" in d.dot.source.replace("\\n", "\n")
    merge = d.plan.elements[d.element_for("while/merge_2")]
    assert merge.label.split("\n") == ["x", "merge_2"]
    lanes = viz.drawing(lowered, detail="lanes")
    lane = lanes.element_for("while/merge_2")
    assert lane.startswith("lane_") and lanes.element_for("while/exit_2") == lane  # the column is one lane
    assert ">x</B>" in lanes.plan.elements[lane].label


def test_the_functional_drawing_names_arguments_and_results():
    graph, loop, _ = _newton_v2()
    d = viz.drawing(graph, detail="primitives")
    body_args = [e.label for e in d.plan.elements.values() if e.cluster == "fn_while.body" and e.kind == "op"
                 and "Placeholder" in e.attrs["tooltip"]]
    assert sorted(body_args) == ["counter", "it", "x"]  # the limit passes through unused: left out
    returns = sorted(e.label for e in d.plan.elements.values() if e.kind == "return")
    assert returns == ["\u2192 counter", "\u2192 it", "\u2192 loop again?", "\u2192 x"]
    label = d.plan.elements[d.element_for("while")].label
    assert "vars: x, it" in label and "it = 0" in label
    assert d.element_for("while/body/mul") == "o_while.body.mul"  # the lowered name of the body's `mul`
    assert d.element_for("Func/while/body/input_2") == "fn_while.body"


def test_graph_api_names_come_from_the_tensors_the_user_named():
    x = tf.constant(2.0, name="x")
    tf.while_loop(lambda x, k: x < 8.0, lambda x, k: (x * x, k + 1), [x, 0])
    names = Names(tf.get_default_graph().get_operations())
    ops = {op.name: op for op in tf.get_default_graph().get_operations()}
    assert names.var_name(ops["while/Merge"]) == "x" and names.var_name(ops["while/Exit"]) == "x"
    assert names.var_name(ops["while/Merge_1"]) == "loop var 1"  # a Python 0: no name to recover
    assert user_named(ops["x"]) and not user_named(ops["while/mul"]) and not user_named(ops["while/Less/y"])


def _gradient_graph():
    a = tf.constant(3.0, name="a")
    v = tf.constant(2.0, name="v")
    r = tf.while_loop(lambda v: v < 100.0, lambda v: v * a, [v])
    return tf.gradients(r, [a, v])


def test_gradient_nodes_are_named_after_what_they_differentiate_and_marked():
    _gradient_graph()
    g = tf.get_default_graph()
    assert forward_name("gradients/while/Exit_grad/b_exit") == "while/Exit"
    assert forward_name("gradients/while/Switch_grad_1/NextIteration") == "while/Switch"
    d = viz.drawing(g, detail="primitives")
    assert d.label_for("gradients/while/Exit_grad/b_exit") == "grad v (gradients/while/Exit_grad/b_exit)"
    assert d.label_for("gradients/while/mul/Enter_grad/b_acc_1").startswith("grad a ")
    assert d.label_for("gradients/f_count_1").startswith("counter ")
    forward = d.plan.elements[d.element_for("while/Switch")]
    backward = d.plan.elements[d.element_for("gradients/while/Merge_grad/Switch")]
    assert forward.label == "v\nSwitch" and backward.label == "grad v\n\u2207 Switch"
    assert backward.attrs["color"] == "#c2185b" and forward.attrs["color"] != "#c2185b"
    assert "gradient frame" in d.dot.source


def test_history_stacks_show_as_stacks_never_object_reprs():
    da, _ = _gradient_graph()
    g = tf.get_default_graph()
    d = viz.drawing(g, detail="primitives")
    assert d.label_for("gradients/while/mul_grad/Mul_1/f_acc").startswith("stack of v (")
    assert d.label_for("gradients/while/mul_grad/Mul_1/StackPushV2").startswith("push v (")
    _, trace = run(da, trace=True)
    last_push = max(f.step for f in trace if f.op_type == "StackPushV2")
    source = d.at(trace, last_push).source
    assert "StackState" not in source and "stack of v: 4 values" in source  # v = 2, 6, 18, 54 pushed
    caption = d.caption(trace.firings[last_push])
    assert "push v (gradients/while/mul_grad/Mul_1/StackPushV2)" in caption


@pytest.mark.parametrize("kind", ["Enter", "Merge", "Switch", "NextIteration", "Exit"])
def test_forward_and_backward_primitives_never_look_alike(kind):
    _gradient_graph()
    d = viz.drawing(tf.get_default_graph(), detail="primitives")
    labels = [e.label for e in d.plan.elements.values() if e.kind == "op" and f"({kind})" in e.attrs["tooltip"]]
    assert len(labels) == len(set(labels)) > 1


def test_the_memory_timeline_names_each_stack_by_what_it_holds():
    """The legend says `stack of Tanh`, with the StackV2's own name after it, not the bare node name."""
    import re

    import numpy as np
    g = tf.Graph()
    with g.as_default():
        x, w = tf.constant(np.ones(3, np.float32)), tf.constant(np.ones(3, np.float32))
        _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.tanh(v * w)), [0, x])
        grads = tf.gradients(tf.reduce_sum(v), [x, w])
        meta = tf.RunMetadata()
        with tf.Session() as sess:
            sess.run(grads, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
    svg = viz.memory_timeline(meta.memory)._repr_mimebundle_()["image/svg+xml"]
    assert "stack of Tanh (gradients/while/Tanh_grad/TanhGrad/f_acc)" in re.findall(r"—— ([^<]*)<", svg)
