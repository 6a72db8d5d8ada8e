"""Functional If/While (control flow v2): the ops, both ways of running them, gradients, pruning; the If and Case
lowerings (the While lowering is in test_lowering.py)."""
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cfnb as tf
from cfnb.passes.lowering import lower_functional_ops
from cfnb.passes.output_liveness import _inputs_used, body_dependencies
from cfnb.passes.pruning import prune


@pytest.fixture
def v2():
    tf.enable_control_flow_v2()
    yield
    tf.disable_control_flow_v2()


def run(fetches, feeds=None, lower=True, static=True, trace=False):
    sess = tf.Session(config=tf.ConfigProto(lower_functional_ops=lower, static_schedule=static))
    if not trace:
        return sess.run(fetches, feeds)
    meta = tf.RunMetadata()
    out = sess.run(fetches, feeds, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
    return out, meta.trace


PATHS = [dict(lower=True, static=True), dict(lower=True, static=False), dict(lower=False, static=True),
         dict(lower=False, static=False)]


def test_seed_example_functional_graph_and_its_rewrite(v2):
    x = tf.constant(2.0)
    ret = tf.while_loop(lambda v: v < 8.0, lambda v: v * v, [x])
    while_op = tf.get_default_graph().get_operation_by_name("while")
    assert while_op.type == "StatelessWhile" and len(while_op.outputs) == 3
    assert [t.op.type for t in while_op.inputs] == ["Const", "Const", "Const"]
    (grad,) = tf.gradients(ret, [x])
    # The forward While was rewritten in place: it now takes and returns the accumulator.
    assert len(while_op.outputs) == 4 and while_op.outputs[3].dtype == tf.variant
    assert while_op.inputs[3].op.type == "EmptyTensorList"
    assert sorted(tf.get_default_graph().functions) == ["while_body_2_grad_3", "while_body_2_rewritten",
                                                        "while_cond_1_rewritten", "while_cond_1_rewritten_grad_4"]
    text = tf.get_default_graph().as_text()
    assert textwrap.dedent("""\
        function while_body_2_rewritten(loop_counter, maximum_iterations, placeholder, TensorListPushBack/gradients_while_grad_placeholder_0_accumulator) -> (add, maximum_iterations, mul, TensorListPushBack):
            loop_counter = Placeholder() {shape=()} -> int32[]
            maximum_iterations = Placeholder() {shape=()} -> int32[]
            placeholder = Placeholder() {shape=()} -> float32[]
            mul = Mul(placeholder, placeholder) -> float32[]
            add/y = Const() {value=1} -> int32[]
            add = AddV2(loop_counter, add/y) -> int32[]
            TensorListPushBack/gradients_while_grad_placeholder_0_accumulator = Placeholder() {shape=()} -> variant[]
            TensorListPushBack = TensorListPushBack(TensorListPushBack/gradients_while_grad_placeholder_0_accumulator, placeholder) {element_dtype=float32, element_shape_static=()} -> variant[]""") in text  # noqa: E501
    grad_while = tf.get_default_graph().get_operation_by_name("gradients/while_grad/while_grad")
    assert grad_while.type == "StatelessWhile"
    assert [t.name for t in grad_while.inputs] == ["gradients/while_grad/grad_counter:0", "while/maximum_iterations:0",
                                                   "while:0", "gradients/grad_ys_0:0", "while:3"]
    for path in PATHS:
        assert run([ret, grad], **path) == [16.0, 32.0]


def test_if_op_and_lowered_if(v2):
    p = tf.placeholder(tf.bool, [])
    x = tf.constant(3.0)
    r = tf.cond(p, lambda: tf.pow(x, 3.0), lambda: x)
    op = tf.get_default_graph().get_operation_by_name("cond")
    assert op.type == "StatelessIf"
    assert op.get_attr("then_branch").name == "cond_true_1" and op.get_attr("else_branch").name == "cond_false_2"
    (g,) = tf.gradients(r, [x])
    (gg,) = tf.gradients(g, [x])
    for path in PATHS:
        assert run([r, g, gg], {p: True}, **path) == [27.0, 27.0, 18.0]
        assert run([r, g, gg], {p: False}, **path) == [3.0, 1.0, 0.0]
    lowered = lower_functional_ops(tf.get_default_graph()).graph
    types = {op.name: op.type for op in lowered.get_operations()}
    assert types["cond/switch_pred"] == "Switch" and types["cond/pivot_t"] == "Identity"
    assert types["cond/output"] == "Merge" and types["cond/branch_executed"] == "Merge"


def test_strict_mode_runs_while_as_one_call(v2):
    r = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0])
    (value, trace) = run(r, lower=False, static=False, trace=True)
    assert value == 10
    assert [f.op_type for f in trace.firings if f.op_type in ("StatelessWhile", "Merge")] == ["StatelessWhile"]
    value, trace = run(r, lower=True, static=False, trace=True)
    assert value == 10 and sum(f.node == "while/merge_2" for f in trace.firings) == 11


def test_second_derivative_through_a_while_loop_is_48(v2):
    x = tf.constant(2.0)
    y = tf.while_loop(lambda i, p: i < 4, lambda i, p: (i + 1, p * x), [0, tf.constant(1.0)])[1]
    (d,) = tf.gradients(y, x)
    (dd,) = tf.gradients(d, x)
    for path in PATHS:
        assert run([y, d, dd], **path) == [16.0, 32.0, 48.0]


def test_hessians_through_a_loop(v2):
    x = tf.constant([1.0, 2.0])
    y = tf.reduce_sum(tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v * v), [0, x])[1])
    (h,) = tf.hessians(y, x)
    np.testing.assert_allclose(run(h), np.diag([12.0 * 1.0, 12.0 * 4.0]))


def test_loop_invariants_and_constants_are_not_accumulated(v2):
    x = tf.placeholder(tf.float32, [])
    a = tf.placeholder(tf.float32, [])
    y = tf.while_loop(lambda v: v < 50.0, lambda v: v * a + 2.0, [x])
    tf.gradients(y, [x, a])
    while_op = tf.get_default_graph().get_operation_by_name("while")
    accumulators = [t for t in while_op.inputs if t.op.type == "EmptyTensorList"]
    assert len(accumulators) == 1  # v, for d(v*a)/da; `a` is a loop invariant and 2.0 a constant


def test_inference_on_a_graph_built_with_gradients_prunes_the_accumulators():
    for version in (1, 2):
        tf.reset_default_graph()
        (tf.enable_control_flow_v2 if version == 2 else tf.disable_control_flow_v2)()
        x = tf.placeholder(tf.float32, [])
        y = tf.while_loop(lambda v: v < 50.0, lambda v: v * v + 1.0, [x])
        tf.gradients(y, x)
        graph = lower_functional_ops(tf.get_default_graph()).graph if version == 2 else tf.get_default_graph()
        fetch = graph.get_tensor_by_name(y.name)
        feed = graph.get_tensor_by_name(x.name)
        kept, removed = prune(graph, [fetch], [feed])
        push = "TensorListPushBack" if version == 2 else "StackPushV2"
        assert any(op.type == push for op in removed) and not any(op.type == push for op in kept)
        assert not any(op.name.startswith("gradients") for op in kept)
    tf.disable_control_flow_v2()


def test_a_while_bodys_dependencies_come_from_one_walk_as_from_one_walk_per_output(v2):
    """output_liveness.body_dependencies (one walk of the body for every loop variable) answers what a walk from
    each output answers: the inputs it reads and whether a stateful op is on its way (a gradient loop's
    accumulators, a loop variable that depends on another, one that reads none, a stateful op)."""
    x = tf.placeholder(tf.float32, [])
    i, a, b, c = tf.while_loop(lambda i, a, b, c: i < 3,
                               lambda i, a, b, c: (i + 1, a * b, tf.sin(b), tf.Print(c, [c]) + 1.0),
                               [0, x, x + 1.0, tf.constant(0.0)])
    tf.gradients(tf.gradients(a, x), x)
    whiles = [op for op in tf.get_default_graph().get_operations() if op.type == "While"]
    bodies = [w.get_attr("body") for w in whiles]
    assert any(len(body.outputs) > 6 for body in bodies)  # the forward loop carries accumulators
    for body in bodies:
        got = body_dependencies(body)
        assert got == [_inputs_used(body, [t]) for t in body.outputs]
    forward = body_dependencies(bodies[0])
    assert forward[3] == ({3, 4}, False) and forward[4] == ({4}, False) and forward[5][1]


@pytest.mark.parametrize("make", [
    lambda: tf.while_loop(lambda i, x: i < 10, lambda i, x: (i, i, x), [tf.constant(0), tf.constant([2.0, 4.0])]),
    lambda: tf.while_loop(lambda x: x < 10.0, lambda x: tf.cast(x, tf.float16) + 1, [tf.constant(1.0)]),
    lambda: tf.while_loop(lambda i, j: i < 2, lambda i, j: [i + 1, tf.concat([j, j], 0)], [0, tf.ones([2, 2])]),
    lambda: tf.while_loop(lambda x: x, lambda x: x + 1.0, [tf.constant(1.0)]),
    lambda: tf.cond(tf.constant(1), lambda: 1.0, lambda: 2.0),
    lambda: tf.cond(tf.constant([True, False]), lambda: 1.0, lambda: 2.0),
    lambda: tf.cond(tf.constant(True), lambda: tf.constant(1.0), lambda: tf.constant(1)),
])
def test_bad_input_is_refused_at_build_time_as_in_the_lowered_form(v2, make):
    with pytest.raises((ValueError, TypeError)) as info:
        make()
    assert "while_loop 'while'" in str(info.value) or "cond 'cond'" in str(info.value)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 8), x0=st.floats(-1.5, 1.5, width=32), threshold=st.floats(-1, 1, width=32))
def test_all_paths_agree_with_python(n, x0, threshold):
    results = []
    for version in (1, 2):
        tf.reset_default_graph()
        (tf.enable_control_flow_v2 if version == 2 else tf.disable_control_flow_v2)()
        limit = tf.placeholder(tf.int32, [])
        x = tf.placeholder(tf.float32, [])

        def body(i, v):
            return i + 1, tf.cond(v > threshold, lambda: v * 0.5 - 0.1, lambda: tf.sin(v) + 0.3)

        _, v = tf.while_loop(lambda i, v, limit=limit: i < limit, body, [0, x])
        (g,) = tf.gradients(v, x)
        paths = PATHS if version == 2 else [dict(lower=True, static=True), dict(lower=True, static=False)]
        for path in paths:
            results.append(run([v, g], {limit: n, x: x0}, **path))
    tf.disable_control_flow_v2()
    v, g = np.float32(x0), np.float32(1.0)
    for _ in range(n):
        if v > np.float32(threshold):
            v, g = v * np.float32(0.5) - np.float32(0.1), g * np.float32(0.5)
        else:
            v, g = np.sin(v) + np.float32(0.3), g * np.cos(v)
    for value, grad in results:
        np.testing.assert_allclose([value, grad], [v, g], rtol=1e-5, atol=1e-6)


def test_switch_case_is_one_case_op_lowered_to_switch_n():
    index = tf.placeholder(tf.int32, [])
    x = tf.constant(3.0)
    r = tf.switch_case(index, [lambda: x * 10.0, lambda: x * x], default=lambda: x + 100.0)
    op = tf.get_default_graph().get_operation_by_name("switch_case")
    assert op.type == "StatelessCase" and [fn.name for fn in op.get_attr("branches")] == [
        "switch_case_branch0_1", "switch_case_branch1_2", "switch_case_branch2_3"]
    (g,) = tf.gradients(r, x)
    for path in PATHS:
        assert [run([r, g], {index: k}, **path) for k in (0, 1, 2, -1, 9)] == [
            [30.0, 10.0], [9.0, 6.0], [103.0, 1.0], [103.0, 1.0], [103.0, 1.0]]
    lowered = lower_functional_ops(tf.get_default_graph()).graph
    switch = lowered.get_operation_by_name("switch_case/branch_index")
    assert switch.type == "_SwitchN" and switch.get_attr("num_outs") == 3
    assert lowered.get_operation_by_name("switch_case/merge").type == "Merge"


def test_switch_case_refuses_bad_input():
    with pytest.raises(TypeError, match="'branch_index' must be a scalar integer Tensor"):
        tf.switch_case(tf.constant(1.0), [lambda: 1.0])
    with pytest.raises(ValueError, match="output #0 is float32 in branch 0 but int32 in branch 1"):
        tf.switch_case(tf.constant(1), [lambda: tf.constant(1.0), lambda: tf.constant(1)])


def test_tensor_array_is_a_tensor_list_in_functional_graphs(v2):
    x = tf.placeholder(tf.float32, [3])
    ta = tf.TensorArray(tf.float32, size=4)
    assert ta.flow.dtype == tf.variant and ta.flow.op.type == "TensorListReserve" and ta.handle is None
    _, ta = tf.while_loop(lambda i, ta: i < 4, lambda i, ta: (i + 1, ta.write(i, x * tf.cast(i, tf.float32))),
                          [0, ta])
    s = ta.stack()
    assert s.shape.as_list() == [4, 3]
    (gx,) = tf.gradients(tf.reduce_sum(s * s), x)
    body = tf.get_default_graph().get_operation_by_name("while").get_attr("body")
    assert "TensorListSetItem" in {op.type for op in body.get_operations()}
    feed = {x: [1.0, -2.0, 0.5]}
    for path in PATHS:
        value, grad = run([s, gx], feed, **path)
        np.testing.assert_allclose(value, [[0, 0, 0], [1, -2, 0.5], [2, -4, 1], [3, -6, 1.5]])
        np.testing.assert_allclose(grad, 2 * 14 * np.array([1.0, -2.0, 0.5]))


def test_while_op_outputs_are_fetchable_but_if_outputs_are_not():
    """TensorFlow 2.21: while_v2 leaves its While op fetchable (output 0, the counter, is 2 for the RFC's
    `v = 2; while v < 8: v = v * v`), while cond_v2 and switch_case mark their If/Case ops not fetchable."""
    tf.enable_control_flow_v2()
    x = tf.constant(2.0)
    tf.while_loop(lambda v: v < 8, lambda v: v * v, [x])
    tf.cond(x < 3, lambda: x * 2, lambda: x + 1)
    g = tf.get_default_graph()
    (while_op,) = [op for op in g.get_operations() if op.type in ("While", "StatelessWhile")]
    (if_op,) = [op for op in g.get_operations() if op.type in ("If", "StatelessIf")]
    with tf.Session() as sess:
        assert sess.run(while_op.outputs[0]) == 2
        with pytest.raises(ValueError, match="marked as not fetchable"):
            sess.run(if_op.outputs[0])


def test_while_v2_called_directly_returns_the_loop_vars_structure():
    # TensorFlow's while_v2.while_loop defaults to return_same_structure=True (its tests write
    # `while_loop_v2(c, b, [v0])[0]`); tf.while_loop itself unpacks a single loop variable.
    from cfnb.ops import while_v2
    v0 = tf.constant(2.0)
    ret = while_v2.while_loop(lambda v: v < 8.0, lambda v: v * v, [v0])
    assert isinstance(ret, list) and len(ret) == 1
    (grad,) = tf.gradients(ret[0], [v0])
    assert isinstance(tf.while_loop(lambda v: v < 8.0, lambda v: v * v, [v0]), tf.Tensor)
    with tf.Session() as sess:
        assert sess.run([ret[0], grad]) == [16.0, 32.0]
