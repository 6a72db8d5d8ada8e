"""One test per executor rule (TensorFlow's PropagatorState), on hand-built primitive graphs.

These run on the tagged-token executor (`static=False`) and, where the graph has a loop shape the
static schedule accepts, on both paths.
"""
import numpy as np
import pytest
from running import run

import cfnb as tf
from cfnb.framework import errors
from cfnb.ops import control_flow_ops as cf


def c(v):
    return tf.constant(v)


# --- T01/T02: Enter/Exit without a loop, Switch/Merge -------------------------------------------
def test_enter_exit_around_a_plain_op_is_a_single_iteration_frame():
    data = cf.enter(c([1, 2, 3, 4, 5, 6]), "foo_1", False)
    five = cf.enter(c(5), "foo_1", False)
    out = cf.exit(data * five)
    np.testing.assert_array_equal(run(out, static=False), [5, 10, 15, 20, 25, 30])


@pytest.mark.parametrize("pred,expected", [(True, [5, 10, 15, 20, 25, 30]), (False, [2, 3, 4, 5, 6, 7])])
def test_switch_routes_data_and_merge_fires_on_the_live_input(pred, expected):
    f, t = cf.switch(c([1, 2, 3, 4, 5, 6]), c(pred))
    out, index = cf.merge([f + 1, t * 5])
    value, idx, tr = *run([out, index], static=False, trace=True)[0], run([out], static=False, trace=True)[1]
    np.testing.assert_array_equal(value, expected)
    assert idx == (1 if pred else 0)
    # The op on the untaken side was dead: it never ran its kernel.
    dead_side = "add" if pred else "mul"
    (firing,) = tr.of_node(dead_side)
    assert not firing.live


def test_fetching_the_untaken_side_of_a_switch_is_a_clear_error():
    f, _ = cf.switch(c([1, 2, 3]), c(True))
    with pytest.raises(errors.InvalidArgumentError, match=r"Retval\[0\] does not have value.*untaken side"):
        run(tf.identity(f), static=False)


def test_a_node_fed_from_two_frames_is_refused():
    x = tf.placeholder(tf.float32, [])
    e1 = cf.enter(x, "foo_1", False)
    e2 = cf.enter(x, "foo_2", False)
    with pytest.raises(errors.InvalidArgumentError, match="has inputs from different frames"):
        run(e1 + e2, {x: 1.0}, static=False)


def test_exit_without_enter_is_refused():
    with pytest.raises(errors.InvalidArgumentError, match="Cannot find a corresponding Enter op"):
        run(cf.exit(c(1.0)), static=False)


# --- T04: a loop built by hand from the five primitives ------------------------------------------
def _hand_built_loop(limit=10, constant_pred=None):
    enter_i = cf.enter(c(0), "foo", False)
    enter_one = cf.enter(c(1), "foo", True)
    enter_n = cf.enter(c(limit), "foo", True)
    merge_i = cf.merge([enter_i, enter_i])[0]
    if constant_pred is None:
        pred = cf.loop_cond(tf.less(merge_i, enter_n))
    else:
        pred = cf.enter(c(constant_pred), "foo", False)
    sw_f, sw_t = cf.switch(merge_i, pred)
    nxt = cf.next_iteration(sw_t + enter_one)
    merge_i.op._update_input(1, nxt)
    return cf.exit(sw_f)


@pytest.mark.parametrize("static", [False, True])
def test_hand_built_loop_counts_to_ten(static):
    assert run(_hand_built_loop(), static=static) == 10


def test_loop_whose_predicate_is_a_plain_enter_still_finishes():
    # testLoop_false: the predicate exists in iteration 0 only (a non-constant Enter is not
    # replayed), so iteration 1's Switch never becomes ready, yet the frame completes.
    enter_i = cf.enter(c(10), "foo", False)
    pred = cf.enter(c(False), "foo", False)
    merge_i = cf.merge([enter_i, enter_i])[0]
    sw_f, _ = cf.switch(merge_i, pred)
    nxt = cf.next_iteration(sw_f)
    merge_i.op._update_input(1, nxt)
    assert run(cf.exit(sw_f), static=False) == 10


def test_constant_enter_is_replayed_into_every_iteration():
    out, tr = run(_hand_built_loop(limit=4), static=False, trace=True)
    assert out == 4
    adds = tr.of_node("add")
    # Live in iterations 0..3; in iteration 4 the Switch sends the value to Exit, so `add` is dead.
    assert [(f.iteration, f.live) for f in adds] == [(0, True), (1, True), (2, True), (3, True), (4, False)]
    # The constant Enters fired once (in the root frame), yet `add` saw `enter_one` each iteration.
    assert len(tr.of_node("Enter_1")) == 1


def test_dead_next_iteration_stops_deadness_and_the_last_exit_is_live():
    _, tr = run(_hand_built_loop(limit=3), static=False, trace=True)
    nexts = tr.of_node("NextIteration")
    assert [f.live for f in nexts] == [True, True, True, False]
    exits = tr.of_node("Exit")
    assert [f.live for f in exits] == [False, False, False, True]
    # No iteration 4 was started by the dead NextIteration.
    assert max(f.iteration for f in tr.firings) == 3


# --- Merge rules ---------------------------------------------------------------------------------------
def test_merge_is_dead_only_when_all_inputs_are_dead():
    pred = tf.placeholder(tf.bool, [])
    f1, t1 = cf.switch(c(1.0), pred)
    f2, t2 = cf.switch(c(2.0), pred)
    # Both inputs come from the true side: when pred is False the Merge is dead.
    m = cf.merge([t1 * 1.0, t2 * 1.0])[0]
    out = cf.merge([m, f1 + 100.0])[0]
    assert run(out, {pred: False}, static=False) == 101.0
    _, tr = run(out, {pred: False}, static=False, trace=True)
    assert [f.live for f in tr.of_node("Merge")] == [False]


@pytest.mark.parametrize("static", [False, True])
def test_merge_forwards_its_first_live_input_and_drops_later_ones(static):
    # TensorFlow's executor lets only the first live edge set a Merge's input (TF 2.21 runs
    # merge([1., 2.]) to 1.0, and merge([t, t]) to t): MergeOp's "more than one valid input" error
    # is never reached. TensorFlow's own gradient of a variable read in one cond branch is Merge([g, g]).
    t = c(5.0) * 1.0
    value, index = run(list(cf.merge([c(1.0), c(2.0)])), static=static)
    assert (value, index) == (1.0, 0)
    assert run(cf.merge([t, t])[0], static=static) == 5.0


def test_dead_control_input_makes_a_node_dead_and_control_trigger_is_never_dead():
    _, t = cf.switch(c(1.0), c(False))
    # A control edge carries the deadness of its source node: the Switch itself ran (it is
    # live), but an Identity of its untaken output is dead, which is why cond pivots are Identities.
    pivot = tf.identity(t)
    with tf.control_dependencies([t]):
        after_switch = tf.constant(3.0)
    with tf.control_dependencies([pivot]):
        guarded = tf.constant(5.0)
    trigger = cf.control_trigger()
    trigger._add_control_input(pivot.op)
    with tf.control_dependencies([trigger]):
        after_trigger = tf.constant(7.0)
    assert run(after_switch, static=False) == 3.0
    with pytest.raises(errors.InvalidArgumentError, match="does not have value"):
        run(guarded, static=False)
    assert run(after_trigger, static=False) == 7.0


# --- frames and parallel_iterations --------------------------------------------------------------------
def _iterations_in_flight(trace, frame):
    """Largest number of iterations of `frame` that had started but not yet finished."""
    first, last = {}, {}
    for f in trace.firings:
        if f.frame == frame:
            first.setdefault(f.iteration, f.step)
            last[f.iteration] = f.step
    return max(sum(1 for i in first if first[i] <= s <= last[i]) for s in range(len(trace.firings)))


@pytest.mark.parametrize("parallel", [1, 2, 10])
def test_parallel_iterations_bounds_iterations_in_flight(parallel):
    # Two independent loop vars: without the bound, iterations can overlap freely.
    x = tf.placeholder(tf.float32, [3])
    _, v = tf.while_loop(lambda i, v: i < 12, lambda i, v: (i + 1, tf.tanh(v) * 0.5 + v),
                         [0, x], parallel_iterations=parallel)
    out, tr = run(v, {x: [0.1, 0.2, 0.3]}, static=False, trace=True)
    in_flight = _iterations_in_flight(tr, "while/while_context")
    assert in_flight <= parallel
    if parallel == 1:
        # Iteration i+1 never starts before iteration i has finished.
        firings = [f for f in tr.firings if f.frame == "while/while_context"]
        assert [f.iteration for f in firings] == sorted(f.iteration for f in firings)
    else:
        assert in_flight >= 2
    expected = np.array([0.1, 0.2, 0.3], np.float32)
    for _ in range(12):
        expected = np.tanh(expected) * np.float32(0.5) + expected
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_each_outer_iteration_gets_a_fresh_inner_frame():
    def outer(i, s):
        _, s2 = tf.while_loop(lambda j, t: j < 2, lambda j, t: (j + 1, t + 1.0), [0, s])
        return i + 1, s2

    _, s = tf.while_loop(lambda i, s: i < 3, outer, [0, 0.0])
    out, tr = run(s, static=False, trace=True)
    assert out == 6.0
    inner = {f.frame_path for f in tr.firings if f.frame == "while/while/while_context"}
    # Outer iterations 0..2 run the inner loop; in iteration 3 the outer body is dead, so the
    # inner frame instance it creates runs dead.
    assert inner == {(("while/while_context", 0), ("while/while/while_context", k)) for k in range(4)}
    last = [f for f in tr.firings if f.frame_path[-1:] == (("while/while/while_context", 3),)]
    assert last and not any(f.live for f in last)


def test_while_loop_in_untaken_branch_runs_dead_and_its_exits_propagate_deadness():
    p = tf.placeholder(tf.bool, [])
    n = c(0.0)
    r = tf.cond(p, lambda: tf.while_loop(lambda x: x < 10.0, lambda x: x + 1.0, [n]), lambda: n * 2.0)
    assert run(r, {p: True}, static=False) == 10.0
    out, tr = run(r, {p: False}, static=False, trace=True)
    assert out == 0.0
    loop_firings = [f for f in tr.firings if f.frame == "cond/while/while_context"]
    assert loop_firings and not any(f.live for f in loop_firings)


# --- errors, never a hang ---------------------------------------------------------------------------------
def test_kernel_error_names_node_frame_and_iteration():
    ta = tf.TensorArray(tf.float32, size=2)
    _, ta = tf.while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, 1.0)), [0, ta])
    with pytest.raises(errors.InvalidArgumentError) as info:
        run(ta.stack(), static=False)
    message = str(info.value)
    assert "Tried to write to index 2" in message
    assert "while/TensorArrayWrite" in message and "iteration 2" in message and "while/while_context" in message


def test_stuck_graph_raises_naming_the_waiting_nodes():
    enter_x = cf.enter(c(1.0), "stuck", False)
    waiting = enter_x + cf.enter(tf.placeholder_with_default(c(2.0), []), "other", False)
    with pytest.raises(errors.InvalidArgumentError):
        run(waiting, static=False)
    # A body op reads a non-constant Enter, which exists in iteration 0 only: in iteration 1 it
    # waits for ever, the loop can never finish, and the run says which node was waiting.
    enter_i = cf.enter(c(0), "foo", False)
    enter_k = cf.enter(c(1), "foo", False)
    enter_n = cf.enter(c(5), "foo", True)
    merge_i = cf.merge([enter_i, enter_i])[0]
    sw_f, sw_t = cf.switch(merge_i, cf.loop_cond(tf.less(merge_i, enter_n)))
    merge_i.op._update_input(1, cf.next_iteration(tf.add(sw_t, enter_k, name="needs_k")))
    with pytest.raises(errors.InvalidArgumentError, match=r"does not have value.*needs_k \(frame 'foo', iteration 1\)"):
        run(cf.exit(sw_f), static=False)


def test_infinite_loop_respects_the_run_timeout():
    r = tf.while_loop(lambda x: tf.constant(True), lambda x: x + 1, [0])
    sess = tf.Session()
    with pytest.raises(errors.DeadlineExceededError):
        sess.run(r, options=tf.RunOptions(timeout_in_ms=200))


def test_trace_is_off_by_default_and_records_frame_iteration_and_liveness():
    r = tf.while_loop(lambda i: i < 2, lambda i: i + 1, [0])
    out, tr = run(r, static=False, trace=True)
    assert out == 2
    rows = [(f.node, f.iteration, f.live) for f in tr.firings if f.node in ("while/Switch", "while/Exit")]
    assert rows == [("while/Switch", 0, True), ("while/Exit", 0, False), ("while/Switch", 1, True),
                    ("while/Exit", 1, False), ("while/Switch", 2, True), ("while/Exit", 2, True)]
    switch_ports = [f.port for f in tr.of_node("while/Switch")]
    assert switch_ports == [1, 1, 0]
