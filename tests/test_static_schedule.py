"""The precompiled schedule and the tagged-token executor agree with each other and with Python.

Property tests (hypothesis) draw trip counts, inputs and nesting; every program runs through the
static schedule, the executor with the `parallel_iterations` it was built with, and plain Python.
"""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from running import run

import cfnb as tf
from cfnb.runtime.fastpath.schedule import compile_static


def _both(fetches, feeds=None):
    a = run(fetches, feeds, static=True)
    b = run(fetches, feeds, static=False)
    return a, b


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 25), step=st.integers(1, 4), x0=st.floats(-2, 2, width=32),
       parallel=st.sampled_from([1, 2, 10]))
def test_counter_loop_with_float_accumulator(n, step, x0, parallel):
    tf.reset_default_graph()
    limit = tf.placeholder(tf.int32, [])
    x = tf.placeholder(tf.float32, [])
    r = tf.while_loop(lambda i, v: i < limit, lambda i, v: (i + step, tf.sin(v) * 0.9 + 0.1),
                      [0, x], parallel_iterations=parallel)
    a, b = _both(r, {limit: n, x: x0})
    i, v = 0, np.float32(x0)
    while i < n:
        i, v = i + step, np.sin(v) * np.float32(0.9) + np.float32(0.1)
    assert a[0] == b[0] == i
    assert a[1] == b[1] and np.isclose(a[1], v, rtol=1e-6, atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(outer=st.integers(0, 5), inner=st.integers(0, 5), threshold=st.integers(-3, 12))
def test_nested_loops_with_a_cond_in_the_body(outer, inner, threshold):
    tf.reset_default_graph()
    n_out, n_in, thr = (tf.placeholder(tf.int32, []) for _ in range(3))

    def outer_body(i, s):
        def inner_body(j, t):
            return j + 1, tf.cond(t > thr, lambda: t - j, lambda: t + 2 * j + 1)
        _, s2 = tf.while_loop(lambda j, t: j < n_in, inner_body, [0, s])
        return i + 1, s2 + i

    r = tf.while_loop(lambda i, s: i < n_out, outer_body, [0, 0])
    a, b = _both(r, {n_out: outer, n_in: inner, thr: threshold})
    s = 0
    for i in range(outer):
        for j in range(inner):
            s = s - j if s > threshold else s + 2 * j + 1
        s += i
    assert tuple(a) == tuple(b) == (outer, s)


@settings(max_examples=25, deadline=None)
@given(a=st.integers(1, 500), b=st.integers(1, 500))
def test_gcd_and_collatz(a, b):
    tf.reset_default_graph()
    x, y = tf.placeholder(tf.int32, []), tf.placeholder(tf.int32, [])
    g, _ = tf.while_loop(lambda p, q: q > 0, lambda p, q: (q, p % q), [x, y])
    steps, _ = tf.while_loop(lambda k, v: v > 1,
                             lambda k, v: (k + 1, tf.cond(tf.equal(v % 2, 0), lambda: v // 2, lambda: 3 * v + 1)),
                             [0, x])
    (ga, sa), (gb, sb) = _both([g, steps], {x: a, y: b})
    p, q = a, b
    while q > 0:
        p, q = q, p % q
    k, v = 0, a
    while v > 1:
        k, v = k + 1, (v // 2 if v % 2 == 0 else 3 * v + 1)
    assert ga == gb == p and sa == sb == k


def test_well_formed_loops_compile_and_hand_built_oddities_fall_back():
    from cfnb.ops import control_flow_ops as cf
    r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    sess = tf.Session()
    assert sess._executor([r], [], []).static is not None
    data = cf.enter(tf.constant([1, 2]), "foo_1", False)
    out = cf.exit(data * cf.enter(tf.constant(2), "foo_1", False))
    assert sess._executor([out], [], []).static is None  # a frame without a LoopCond: interpreted
    np.testing.assert_array_equal(sess.run(out), [2, 4])


def test_a_loop_body_reading_a_non_constant_enter_is_stuck_on_both_paths():
    """A non-constant Enter has a value in iteration 0 only: a body op reading it directly waits for ever in
    iteration 1. The executor reports the stuck node; the static schedule must not quietly reuse the value."""
    from cfnb.ops import control_flow_ops as cf
    enter_i, enter_k = cf.enter(tf.constant(0), "foo", False), cf.enter(tf.constant(1), "foo", False)
    merge_i = cf.merge([enter_i, enter_i])[0]
    sw_f, sw_t = cf.switch(merge_i, cf.loop_cond(tf.less(merge_i, cf.enter(tf.constant(5), "foo", True))))
    merge_i.op._update_input(1, cf.next_iteration(tf.add(sw_t, enter_k, name="needs_k")))
    out = cf.exit(sw_f)
    assert tf.Session()._executor([out], [], []).static is None
    for static in (True, False):
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"needs_k \(frame 'foo', iteration 1\)"):
            run(out, static=static)


def test_a_run_hands_back_the_schedule_that_ran_and_its_source():
    r = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0])
    sess = tf.Session()
    meta = tf.RunMetadata()
    assert sess.run(r, run_metadata=meta) == 10
    schedule = meta.static_schedule
    assert "def run_root(feeds" in schedule.source and "while True:" in schedule.source
    assert re.search(r"# @\d+$", schedule.source, re.M)  # kernel lines carry their node id
    assert schedule.run([]) == [10]  # the source shown is the code that runs
    traced = tf.RunMetadata()
    sess.run(r, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=traced)
    assert traced.static_schedule is None and len(traced.trace) > 0


def test_static_kernel_errors_name_node_frame_and_iteration():
    ta = tf.TensorArray(tf.float32, size=2)
    _, ta = tf.while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, 1.0)), [0, ta])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)Tried to write to index 2.*while/TensorArrayWrite"
                                                              r".*frame 'while/while_context', iteration 2"):
        run(ta.stack(), static=True)


def test_generated_source_is_readable_python():
    r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    sess = tf.Session()
    schedule = compile_static(sess._executor([r], [], []).static.exe)
    assert "while True:" in schedule.source and "def run_root(feeds" in schedule.source


def test_a_long_signature_is_wrapped_so_the_printed_source_fits_a_page():
    """A frame's constants are default arguments of its function; past SOURCE_WIDTH (76) columns its `def` goes on
    over lines aligned after the parenthesis, and the code still runs and still names a failing node by its line."""
    def body(*xs):
        return [x + float(k + 1) for k, x in enumerate(xs)]
    r = tf.while_loop(lambda *xs: xs[0] < 3.0, body, [tf.constant(0.0)] * 6)
    meta = tf.RunMetadata()
    assert tf.Session().run(r, run_metadata=meta) == [3.0, 6.0, 9.0, 12.0, 15.0, 18.0]
    source = meta.static_schedule.source
    head = re.search(r"^def frame_\d+\(.*?\):$", source, re.M | re.S).group(0).split("\n")
    assert len(head) > 1 and all(len(line) <= 76 for line in head)
    assert all(line.startswith(" " * head[0].index("(") + " ") for line in head[1:])

    ta = tf.TensorArray(tf.float32, size=2)
    out = tf.while_loop(lambda i, ta, *xs: i < 3, lambda i, ta, *xs: (i + 1, ta.write(i, 1.0), *body(*xs)),
                        [0, ta] + [tf.constant(0.0)] * 6)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)Tried to write to index 2.*while_1/TensorArrayWrite"
                                                              r".*frame 'while_1/while_context', iteration 2"):
        run(out[1].stack(), static=True)


def test_loop_invariant_dead_while_loop_variables_live():
    """A loop reads a tensor from the untaken side of a Switch (a constant Enter whose input is dead) only through
    a Merge that also has a live input, as TensorFlow's tf.hessians-through-cond graph does: the loop still runs
    and only the invariant's consumers die. The static schedule must not return the whole loop dead."""
    from cfnb.ops.control_flow_ops import merge, switch
    x = tf.placeholder(tf.float32, [])
    p = tf.placeholder(tf.bool, [])
    _, taken_if_true = switch(x * 10.0, p)

    def body(i, acc):
        return i + 1, merge([tf.identity(taken_if_true) + acc, acc + 1.0])[0]

    _, out = tf.while_loop(lambda i, acc: i < 3, body, [0, x])
    for pred, want in ((False, 5.0), (True, 62.0)):
        for static in (True, False):
            with tf.Session(config=tf.ConfigProto(static_schedule=static)) as sess:
                assert sess.run(out, {x: 2.0, p: pred}) == want


def test_a_lowered_functional_loop_costs_what_the_v1_loop_costs():
    """The inliner's nodes (input_control_node NoOps, input/output Identities under them; passes/lowering.py) are
    always live in a static frame: the generated loop reads through them and calls no NoOp kernel, so it has the
    same lines as the loop control flow v1 builds, plus while_v2's counter."""
    def loop_lines(v2):
        g = tf.Graph()
        with g.as_default():
            toggle = tf.enable_control_flow_v2 if v2 else tf.disable_control_flow_v2
            toggle()
            try:
                n = tf.placeholder(tf.int32, [])
                r = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 2), [0, 0])
            finally:
                tf.disable_control_flow_v2()
            sess = tf.Session(graph=g)
            assert list(sess.run(r, {n: 5})) == [5, 10]
            source = sess._executor(list(r), [], [n]).static.source
        body = source[source.index("while True:"):source.index("_iters[-1] += 1")]
        return [line.split("#")[0].strip() for line in body.splitlines() if line.strip()]

    v1, v2 = loop_lines(False), loop_lines(True)
    assert not any(line.startswith("_ = k") or re.fullmatch(r"v\d+ = [mv]\d+", line) for line in v2), v2
    assert len(v2) == len(v1) + 1  # while_v2's own iteration counter (TensorFlow's loop_counter) is one more add


def test_a_schedule_compiled_once_for_two_sessions_still_names_its_failing_node():
    """Two Sessions running one graph generate the same source, which Python compiles once (schedule._compiled);
    each schedule keeps its own file name, by which a failing kernel's line, and so its node, is found."""
    tf.reset_default_graph()
    d = tf.placeholder(tf.int64, [])
    out = tf.while_loop(lambda i, t: i < 5, lambda i, t: (i + 1, t // (d - i)),
                        [tf.constant(np.int64(0)), tf.constant(np.int64(10))])
    schedules, messages = [], []
    for _ in range(2):
        sess = tf.Session()
        meta = tf.RunMetadata()
        sess.run(out, {d: 9}, run_metadata=meta)
        schedules.append(meta.static_schedule)
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(out, {d: 3})
        messages.append(info.value.message)
    first, second = schedules
    assert first is not second and first.source == second.source
    assert first._filename != second._filename
    assert first._namespace["run_root"].__code__.co_filename == first._filename
    assert second._namespace["run_root"].__code__.co_filename == second._filename
    for message in messages:
        assert "Integer division by zero" in message
        assert "[[node while/floordiv (FloorDiv) in frame 'while/while_context', iteration 3]]" in message
