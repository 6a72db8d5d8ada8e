"""Gradients through lowered cond and while_loop: TensorFlow's construction, values, limits."""
import textwrap

import numpy as np
import pytest
from running import run

import cfnb as tf
from cfnb.framework.graph_text import graph_to_text
from cfnb.testing import check_gradients


def _grad_ops(prefix="gradients"):
    return [op for op in tf.get_default_graph().get_operations() if op.name.startswith(prefix)]


# --- the seed example, node for node ---------------------------------------------------------------------
def test_seed_example_has_one_stack_two_counter_loops_and_gradient_32():
    x = tf.constant(2.0)
    r = tf.while_loop(lambda v: v < 8.0, lambda v: v * v, [x])
    (g,) = tf.gradients(r, [x])
    assert run([r, g]) == [16.0, 32.0] and run(g, static=False) == 32.0
    types = [op.type for op in _grad_ops()]
    assert types.count("StackV2") == 1 and types.count("StackPushV2") == 1 and types.count("StackPopV2") == 1
    names = {op.name for op in _grad_ops()}
    assert {"gradients/f_count", "gradients/f_count_1", "gradients/f_count_2", "gradients/b_count_1",
            "gradients/b_count_2", "gradients/b_count_3"} <= names
    # The same node list, inputs and control edges as TensorFlow 2.21 builds (CFv1), recorded from it.
    assert graph_to_text(tf.get_default_graph(), _grad_ops()) == textwrap.dedent("""\
        gradients/Shape = Const() {value=[]} -> int32[0]
        gradients/grad_ys_0/Const = Const() {value=1} -> float32[]
        gradients/grad_ys_0 = Fill(gradients/Shape, gradients/grad_ys_0/Const) -> float32[]
        gradients/f_count = Const() {value=0} -> int32[]
        gradients/f_count_1 = Enter(gradients/f_count) {frame_name=while/while_context, is_constant=False, parallel_iterations=10} -> int32[]
        gradients/Merge = Merge(gradients/f_count_1, gradients/NextIteration) -> int32[], int32[]
        gradients/Switch = Switch(gradients/Merge, while/LoopCond) -> int32[], int32[]
        gradients/Add/y = Const(^while/Identity) {value=1} -> int32[]
        gradients/Add = AddV2(gradients/Switch:1, gradients/Add/y) -> int32[]
        gradients/NextIteration = NextIteration(gradients/Add, ^gradients/while/mul_grad/Mul/StackPushV2) -> int32[]
        gradients/f_count_2 = Exit(gradients/Switch) -> int32[]
        gradients/b_count = Const() {value=1} -> int32[]
        gradients/b_count_1 = Enter(gradients/f_count_2) {frame_name=gradients/while/while_context, is_constant=False, parallel_iterations=10} -> int32[]
        gradients/Merge_1 = Merge(gradients/b_count_1, gradients/NextIteration_1) -> int32[], int32[]
        gradients/GreaterEqual = GreaterEqual(gradients/Merge_1, gradients/GreaterEqual/Enter) -> bool[]
        gradients/GreaterEqual/Enter = Enter(gradients/b_count) {frame_name=gradients/while/while_context, is_constant=True, parallel_iterations=10} -> int32[]
        gradients/b_count_2 = LoopCond(gradients/GreaterEqual) -> bool[]
        gradients/Switch_1 = Switch(gradients/Merge_1, gradients/b_count_2) -> int32[], int32[]
        gradients/Sub = Sub(gradients/Switch_1:1, gradients/GreaterEqual/Enter) -> int32[]
        gradients/NextIteration_1 = NextIteration(gradients/Sub, ^gradients/while/mul_grad/Mul/b_sync) -> int32[]
        gradients/b_count_3 = Exit(gradients/Switch_1) -> int32[]
        gradients/while/Exit_grad/b_exit = Enter(gradients/grad_ys_0) {frame_name=gradients/while/while_context, is_constant=False, parallel_iterations=10} -> float32[]
        gradients/while/Switch_grad/b_switch = Merge(gradients/while/Exit_grad/b_exit, gradients/while/Switch_grad_1/NextIteration) -> float32[], int32[]
        gradients/while/Merge_grad/Switch = Switch(gradients/while/Switch_grad/b_switch, gradients/b_count_2) -> float32[], float32[]
        gradients/while/Enter_grad/Exit = Exit(gradients/while/Merge_grad/Switch) -> float32[]
        gradients/while/mul_grad/Mul = Mul(gradients/while/Merge_grad/Switch:1, gradients/while/mul_grad/Mul/StackPopV2) -> float32[]
        gradients/while/mul_grad/Mul/Const = Const() {value=-1} -> int32[]
        gradients/while/mul_grad/Mul/f_acc = StackV2(gradients/while/mul_grad/Mul/Const) {elem_type=float32, stack_name=} -> resource[2]
        gradients/while/mul_grad/Mul/Enter = Enter(gradients/while/mul_grad/Mul/f_acc) {frame_name=while/while_context, is_constant=True, parallel_iterations=10} -> resource[2]
        gradients/while/mul_grad/Mul/StackPushV2 = StackPushV2(gradients/while/mul_grad/Mul/Enter, while/Identity, ^gradients/Add) {swap_memory=False} -> float32[]
        gradients/while/mul_grad/Mul/StackPopV2 = StackPopV2(gradients/while/mul_grad/Mul/StackPopV2/Enter, ^gradients/Sub) {elem_type=float32} -> float32[]
        gradients/while/mul_grad/Mul/StackPopV2/Enter = Enter(gradients/while/mul_grad/Mul/f_acc) {frame_name=gradients/while/while_context, is_constant=True, parallel_iterations=10} -> resource[2]
        gradients/while/mul_grad/Mul/b_sync = ControlTrigger(^gradients/while/mul_grad/Mul/StackPopV2)
        gradients/while/mul_grad/Mul_1 = Mul(gradients/while/Merge_grad/Switch:1, gradients/while/mul_grad/Mul/StackPopV2) -> float32[]
        gradients/AddN = AddN(gradients/while/mul_grad/Mul, gradients/while/mul_grad/Mul_1) -> float32[]
        gradients/while/Switch_grad_1/NextIteration = NextIteration(gradients/AddN) -> float32[]""")  # noqa: E501


def test_loop_invariant_gets_a_running_sum_accumulator():
    a, v = tf.constant(3.0), tf.constant(2.0)
    r = tf.while_loop(lambda v: v < 100.0, lambda v: v * a, [v])
    ga, gv = tf.gradients(r, [a, v])
    assert run([ga, gv]) == [216.0, 81.0] and run([ga, gv], static=False) == [216.0, 81.0]
    accumulator = [op.name for op in _grad_ops("gradients/while/mul/Enter_grad")]
    assert accumulator == ["gradients/while/mul/Enter_grad/b_acc", "gradients/while/mul/Enter_grad/b_acc_1",
                           "gradients/while/mul/Enter_grad/b_acc_2", "gradients/while/mul/Enter_grad/Switch",
                           "gradients/while/mul/Enter_grad/Add", "gradients/while/mul/Enter_grad/NextIteration",
                           "gradients/while/mul/Enter_grad/b_acc_3"]
    # `a` is a loop invariant: it is not stacked; only `v` (the forward Identity) is.
    pushed = [op.inputs[1].name for op in _grad_ops() if op.type == "StackPushV2"]
    assert pushed == ["while/Identity:0"]


def test_cond_in_loop_stacks_the_predicate():
    x = tf.placeholder(tf.float32, [])
    _, v = tf.while_loop(lambda i, v: i < 5, lambda i, v: (i + 1, tf.cond(v > 2.0, lambda: v * 0.5, lambda: v * x)),
                         [0, x])
    (gx,) = tf.gradients(v, x)
    pushed = {op.inputs[1].op.name for op in _grad_ops() if op.type == "StackPushV2"}
    assert "while/cond/pred_id" in pushed
    np.testing.assert_allclose(run([v, gx], {x: 1.7}), [2.0880250930786133, 4.913000106811523], rtol=1e-6)


def test_nested_loop_stacks_the_inner_trip_count():
    x = tf.placeholder(tf.float32, [])

    def outer(i, s):
        _, s2 = tf.while_loop(lambda j, t: j < i + 1, lambda j, t: (j + 1, t * x + 1.0), [0, s])
        return i + 1, s2

    _, s = tf.while_loop(lambda i, s: i < 3, outer, [0, tf.constant(0.5)])
    (gx,) = tf.gradients(s, x)
    pushed = [op.inputs[1].op for op in _grad_ops() if op.type == "StackPushV2"]
    # The inner loop's trip count (the Exit of its f_count loop) is pushed in the outer loop.
    assert any(op.type == "Exit" and "f_count" in op.name for op in pushed)
    value, grad = run([s, gx], {x: 0.9})
    assert run([s, gx], {x: 0.9}, static=False) == [value, grad]
    expected = 0.5
    for i in range(3):
        for _ in range(i + 1):
            expected = expected * 0.9 + 1.0
    np.testing.assert_allclose(value, expected, rtol=1e-6)


# --- values against float64 finite differences --------------------------------------------------------
def _rnn(x):
    w = x * 0.0 + 0.3
    _, h = tf.while_loop(lambda t, h: t < 4, lambda t, h: (t + 1, tf.tanh(h * w + x)), [0, x])
    return h


PROGRAMS = {
    "power": lambda x: tf.while_loop(lambda i, p: i < 6, lambda i, p: (i + 1, p * x), [0, x * 0.0 + 1.0])[1],
    "square_until": lambda x: tf.while_loop(lambda v: v < 8.0, lambda v: v * v, [x]),
    "vector": lambda x: tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, tf.tanh(v) + v * 0.5), [0, x])[1],
    "cond_in_loop": lambda x: tf.while_loop(
        lambda i, v: i < 5, lambda i, v: (i + 1, tf.cond(v > 2.0, lambda: v * 0.5, lambda: v * x)), [0, x])[1],
    "while_in_cond": lambda x: tf.cond(x > 0.0, lambda: tf.while_loop(lambda v: v < 10.0, lambda v: v * 1.5, [x]),
                                       lambda: x * 2.0),
    "invariant_twice": lambda x: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x + tf.sin(x)),
                                               [0, x])[1],
    "max_iterations": lambda x: tf.while_loop(lambda v: v > 0.0, lambda v: v * 0.5 + x, [x], maximum_iterations=3),
    "zero_iterations": lambda x: tf.while_loop(lambda v: v < -100.0, lambda v: v * 3.0, [x]),
    "pass_through": lambda x: tf.add_n(tf.while_loop(lambda i, a, b: i < 3, lambda i, a, b: (i + 1, a * b, b),
                                                     [0, x, x * 2.0])[1:]),
    "rnn": _rnn,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("static", [True, False])
def test_gradients_match_finite_differences(name, static):
    value = np.array([0.3, -0.7, 1.1]) if name in ("vector", "rnn") else 1.3
    check_gradients(PROGRAMS[name], value, static_schedule=static)


def test_tensor_array_gradient():
    x = tf.placeholder(tf.float32, [])
    ta = tf.TensorArray(tf.float32, size=4)
    _, ta = tf.while_loop(lambda i, ta: i < 4,
                          lambda i, ta: (i + 1, ta.write(i, x * tf.cast(i, tf.float32) ** 2)), [0, ta])
    (gx,) = tf.gradients(tf.reduce_sum(ta.stack()), x)
    assert run(gx, {x: 2.0}) == 14.0 and run(gx, {x: 2.0}, static=False) == 14.0


@pytest.mark.parametrize("parallel", [1, 10])
def test_parallel_iterations_keeps_push_and_pop_order(parallel):
    x = tf.placeholder(tf.float32, [3])
    _, v = tf.while_loop(lambda i, v: i < 6, lambda i, v: (i + 1, tf.sin(v) * v + 0.1), [0, x],
                         parallel_iterations=parallel)
    (gx,) = tf.gradients(tf.reduce_sum(v), x)
    feed = {x: [0.3, -1.2, 2.0]}
    (_, value), trace = run([v, gx], feed, static=False, trace=True)
    np.testing.assert_allclose(value, run(gx, feed), rtol=1e-6)
    pushes = [f.iteration for f in trace.firings if f.op_type == "StackPushV2" and f.live]
    pops = [f.iteration for f in trace.firings if f.op_type == "StackPopV2" and f.live]
    assert pushes == sorted(pushes) and len(pops) == len(pushes)


# --- what TensorFlow does not support, taught -------------------------------------------------------
def test_second_order_through_a_lowered_while_loop_is_none_or_refused_as_in_tensorflow():
    # TensorFlow 1: None when the history stacks cut every path from x to the gradient loop ...
    x = tf.constant(2.0)
    r = tf.while_loop(lambda v: v < 8.0, lambda v: v * v, [x])
    (g,) = tf.gradients(r, x)
    assert tf.gradients(g, x) == [None]
    # ... and the Exit gradient's TypeError when a path reaches it (x also enters the loop as an invariant).
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y + x * x), [0, tf.constant(0.0)])
    (g,) = tf.gradients(y, x)
    with pytest.raises(TypeError, match="Second-order gradient for while loops not supported.*functional"):
        tf.gradients(g, x)


def test_gradient_inside_a_body_wrt_the_initial_loop_value_is_refused():
    x = tf.constant(1.0, name="x")

    def body(v):
        tf.gradients(v * 2.0, x)
        return v + 1.0

    with pytest.raises(ValueError, match="Cannot compute gradient inside while loop with respect to op 'x'"):
        tf.while_loop(lambda v: v < 3.0, body, [x])


def test_back_prop_false_integer_stop_gradient_and_unconnected():
    x = tf.constant(2.0)
    r = tf.while_loop(lambda v: v < 8.0, lambda v: v * v, [x], back_prop=False)
    assert tf.gradients(r, x) == [None]
    n = tf.constant(3)
    assert tf.gradients(tf.cast(n, tf.float32) * x, n) == [None]
    y = tf.while_loop(lambda v: v < 8.0, lambda v: tf.stop_gradient(v) * v, [x])
    assert run(tf.gradients(y, x)) == [8.0]
    other = tf.constant(5.0)
    assert tf.gradients(x * 2.0, other) == [None]
    assert run(tf.gradients(x * 2.0, other, unconnected_gradients="zero")) == [0.0]


def test_unused_exit_gets_a_zero_gradient():
    x = tf.placeholder(tf.float32, [])
    a, b = tf.while_loop(lambda a, b: a < 10.0, lambda a, b: (a + b, b * 1.5), [x, x])
    (ga,) = tf.gradients(a, x)
    check = check_gradients(lambda x: tf.while_loop(lambda a, b: a < 10.0, lambda a, b: (a + b, b * 1.5),
                                                    [x, x])[0], 1.0)
    np.testing.assert_allclose(run(ga, {x: 1.0}), check.numeric[0], rtol=1e-5)


def test_grad_ys_scales_the_gradient():
    x = tf.constant([1.0, 2.0])
    r = tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v * v), [0, x])[1]
    (g,) = tf.gradients(r, x, grad_ys=tf.constant([1.0, 0.5]))
    np.testing.assert_allclose(run(g), [4.0, 16.0])


# --- memory: only what the gradient needs is stacked ------------------------------------------------
def test_swap_memory_flag_and_stack_memory_timeline():
    steps, batch, hidden = 5, 4, 3
    xs = tf.placeholder(tf.float32, [steps, batch, hidden])
    w = tf.constant(np.full((hidden, hidden), 0.1, np.float32))
    inputs = tf.TensorArray(tf.float32, size=steps).unstack(xs)
    _, h = tf.while_loop(lambda t, h: t < steps, lambda t, h: (t + 1, tf.tanh(tf.matmul(h, w) + inputs.read(t))),
                         [0, tf.zeros([batch, hidden])], swap_memory=True)
    (gw,) = tf.gradients(tf.reduce_sum(h), w)
    pushes = [op for op in _grad_ops() if op.type == "StackPushV2"]
    assert pushes and all(op.get_attr("swap_memory") for op in pushes)
    sess = tf.Session()
    meta = tf.RunMetadata()
    feed = {xs: np.ones((steps, batch, hidden), np.float32)}
    sess.run(gw, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
    memory = meta.memory
    floats = {op.name for op in _grad_ops() if op.type == "StackV2" and op.get_attr("elem_type") == tf.float32}
    float_peak = sum(memory.peak_by_stack[name] for name in floats)
    # The matmul's input h and the tanh output are stacked: 2 x T x batch x hidden x 4 bytes.
    assert float_peak == 2 * steps * batch * hidden * 4
    totals = [e.total for e in memory.events]
    assert totals[-1] == 0 and max(totals) == memory.peak_bytes
    assert any(e.swap for e in memory.events)


@pytest.mark.parametrize("form", ["v1", "v1-executor", "v2", "v2-strict"])
def test_gradient_of_a_variable_read_in_one_cond_branch(form):
    # TensorFlow 2.21 (use_resource=True), both control-flow versions: the taken branch gives x, the
    # other zeros of the variable's shape (v1: ZerosLikeOutsideLoop for the handle's Switch; v2: the
    # If gradient's zero output for a resource input has the variable's dtype).
    if form.startswith("v2"):
        tf.enable_control_flow_v2()
    v = tf.get_variable("v", initializer=np.array([1.0, 2.0]), dtype=tf.float64)
    x = tf.placeholder(tf.float64, [2])
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: v * x, lambda: x * 3.0)
    grads = tf.gradients(tf.reduce_sum(y), [v, x])
    config = tf.ConfigProto(static_schedule=form != "v1-executor", lower_functional_ops=form != "v2-strict")
    sess = tf.Session(config=config)
    sess.run(tf.global_variables_initializer())
    taken = sess.run(grads, {x: [1.0, 1.0], p: True})
    untaken = sess.run(grads, {x: [1.0, 1.0], p: False})
    assert [g.tolist() for g in taken] == [[1.0, 1.0], [1.0, 2.0]]
    assert [g.tolist() for g in untaken] == [[0.0, 0.0], [3.0, 3.0]]


@pytest.mark.parametrize("form", ["v1", "v2"])
def test_the_gradient_of_a_cond_whose_branch_gathers(form):
    # TensorFlow's testCondGrad_Gather: v1 adds the Merge's IndexedSlices to the identity branch's dense gradient
    # (a Tensor); v2's If gradient returns its components, the identity branch's gradient made slices of every row,
    # so the gradient is an IndexedSlices (values recorded in grad2_tf.json: cond_gradient_of_gather_*).
    if form == "v2":
        tf.enable_control_flow_v2()
    v = tf.placeholder(tf.float32, [2])
    c = tf.placeholder(tf.int32, [])
    r = tf.cond(c < 2, lambda: tf.identity(v), lambda: tf.gather(v, [1, 1]))
    (g,) = tf.gradients(r, [v])
    assert isinstance(g, tf.IndexedSlices) == (form == "v2")
    assert g.indices.dtype == tf.int32 if form == "v2" else g.dtype == tf.float32
    dense = tf.convert_to_tensor(g)
    with tf.Session() as sess:
        assert sess.run(dense, {v: [1.0, 42.0], c: 1}).tolist() == [1.0, 1.0]
        assert sess.run(dense, {v: [1.0, 42.0], c: 3}).tolist() == [0.0, 2.0]


def test_colocated_loop_gradients_take_the_device_of_the_op_they_differentiate():
    # TensorFlow 2.21, v1 (testWhileGrad_ColocateGradients): with colocate_gradients_with_ops every op of Square's
    # gradient, its history stack (f_acc) and that stack's size Const included, is on Square's device; the stack is
    # colocated with the loop value it saves (no device), so the enclosing colocation's device applies.
    v = tf.constant(2.0, name="v")

    def body(x):
        with tf.device("/device:CPU:0"):
            return tf.square(x)

    loop = tf.while_loop(lambda v: v < 100.0, body, [v], parallel_iterations=1)
    (r,) = tf.gradients(loop, v, colocate_gradients_with_ops=True)
    placed = [op.name for op in tf.get_default_graph().get_operations() if op.device == "/device:CPU:0"]
    assert placed == ["while/Square"] + [f"gradients/while/Square_grad/{n}" for n in (
        "Const", "Mul", "Mul/Const", "Mul/f_acc", "Mul/Enter", "Mul/StackPushV2", "Mul/StackPopV2",
        "Mul/StackPopV2/Enter", "Mul_1")]
    with tf.Session() as sess:
        assert sess.run(r) == 1024.0
