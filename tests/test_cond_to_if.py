"""Conds compiled to Python `if`/`else` in the static schedule (runtime/fastpath/cond_to_if.py) and kernels
written inline (runtime/fastpath/inline_kernels.py) compute what the tagged-token executor computes, bit for bit,
and run the ops the executor runs: the untaken branch's stateful ops and prints never run.

Random programs (hypothesis) put conds, nested conds and integer/float arithmetic in a loop body;
every program runs on the static schedule and on the executor, in both control-flow forms.
"""
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cfnb as tf
from cfnb.runtime.fastpath.schedule import compile_static

DTYPES = [tf.int32, tf.int64, tf.float32, tf.float64]
BINARY = ["add", "sub", "mul", "mod", "floordiv", "max"]
COMPARE = ["lt", "ge", "eq", "ne"]


def _expressions():
    leaf = st.one_of(st.tuples(st.just("var"), st.integers(0, 2)), st.tuples(st.just("const"), st.integers(-7, 7)))

    def extend(inner):
        pred = st.tuples(st.sampled_from(COMPARE), inner, inner, st.booleans())
        return st.one_of(st.tuples(st.just("bin"), st.sampled_from(BINARY), inner, inner),
                         st.tuples(st.just("neg"), inner),
                         st.tuples(st.just("cond"), pred, inner, inner))
    return st.recursive(leaf, extend, max_leaves=8)


def _build(expr, env, dtype):
    kind = expr[0]
    if kind == "var":
        return env[expr[1]]
    if kind == "const":
        return tf.constant(expr[1], dtype=dtype)
    if kind == "neg":
        return -_build(expr[1], env, dtype)
    if kind == "bin":
        a, b = _build(expr[2], env, dtype), _build(expr[3], env, dtype)
        if expr[1] in ("mod", "floordiv"):
            b = tf.abs(b) + tf.constant(1, dtype=dtype)  # never an integer zero divisor
        return {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply, "mod": tf.floormod,
                "floordiv": tf.floordiv, "max": tf.maximum}[expr[1]](a, b)
    (cmp, x, y, negate), then, other = expr[1], expr[2], expr[3]
    pred = {"lt": tf.less, "ge": tf.greater_equal, "eq": tf.equal, "ne": tf.not_equal}[cmp](
        _build(x, env, dtype), _build(y, env, dtype))
    if negate:
        pred = tf.logical_not(pred)
    return tf.cond(pred, lambda: _build(then, env, dtype), lambda: _build(other, env, dtype))


def _program(dtype, exprs, v2):
    """A loop over i < n whose two state values are updated by the drawn expressions (variables: the
    two values and i cast to the dtype); a cond at the top of the body always guards one update."""
    (tf.enable_control_flow_v2 if v2 else tf.disable_control_flow_v2)()
    try:
        tf.reset_default_graph()
        n = tf.placeholder(tf.int32, [])
        a0, b0 = tf.placeholder(dtype, []), tf.placeholder(dtype, [])

        def body(i, a, b):
            env = [a, b, tf.cast(i, dtype)]
            new_a = _build(exprs[0], env, dtype)
            new_b = tf.cond(tf.equal(i % 3, 0), lambda: b, lambda: _build(exprs[1], env, dtype))
            return i + 1, new_a, new_b

        out = tf.while_loop(lambda i, a, b: i < n, body, [tf.constant(0), a0, b0])
    finally:
        tf.disable_control_flow_v2()
    return out, (n, a0, b0)


def _run(out, feeds, static):
    sess = tf.Session(config=tf.ConfigProto(static_schedule=static))
    try:
        return sess.run(out, feeds), None
    except tf.errors.OpError as e:
        return None, (type(e), e.message)


def _same_bits(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(DTYPES), exprs=st.tuples(_expressions(), _expressions()), trips=st.integers(0, 7),
       a=st.integers(-50, 50), b=st.integers(-50, 50), v2=st.booleans())
def test_random_conds_in_loops_are_bit_identical_to_the_executor(dtype, exprs, trips, a, b, v2):
    out, (n, a0, b0) = _program(dtype, exprs, v2)
    assert "_p = " not in _source(out, [n, a0, b0])  # every cond here is well-formed: compiled to `if`s
    feeds = {n: trips, a0: a, b0: b}
    fast, fast_error = _run(out, feeds, static=True)
    slow, slow_error = _run(out, feeds, static=False)
    assert fast_error == slow_error
    if slow_error is None:
        assert all(_same_bits(x, y) for x, y in zip(fast, slow)), (fast, slow)


def _source(fetches, fed=()):
    return tf.Session()._executor(list(fetches), [], list(fed)).static.source


@pytest.mark.parametrize("v2", [False, True])
def test_a_cond_in_a_loop_compiles_to_an_if_that_runs_only_the_taken_branch(v2):
    """No Switch or dead-token test is left in the loop (the cond is one `if`); a variable updated in
    the untaken branch is not updated, on both paths."""
    (tf.enable_control_flow_v2 if v2 else tf.disable_control_flow_v2)()
    try:
        tf.reset_default_graph()
        counter = tf.Variable(np.int64(0), name="counter")

        def body(i, total):
            def taken():
                with tf.control_dependencies([counter.assign_add(np.int64(1))]):
                    return total + i
            return i + 1, tf.cond(tf.not_equal(i % 3, 0), taken, lambda: total)

        out = tf.while_loop(lambda i, t: i < 10, body, [tf.constant(np.int64(0)), tf.constant(np.int64(0))])
    finally:
        tf.disable_control_flow_v2()
    source = _source(out)
    assert "_p = " not in source and " is DEAD" not in source.split("while True:")[1]
    for static in (True, False):
        sess = tf.Session(config=tf.ConfigProto(static_schedule=static))
        sess.run(counter.initializer)
        assert [int(v) for v in sess.run(out)] == [10, sum(i for i in range(10) if i % 3)]
        assert sess.run(counter.read_value()) == 6  # i = 1, 2, 4, 5, 7, 8


@pytest.mark.parametrize("static", [True, False])
def test_prints_in_branches_print_only_when_taken_in_order(static):
    tf.reset_default_graph()
    buf = io.StringIO()

    def body(i):
        def loud():
            with tf.control_dependencies([tf.print("even", i, output_stream=buf)]):
                return tf.identity(i)

        def quiet():
            with tf.control_dependencies([tf.print("odd", i, output_stream=buf)]):
                return tf.identity(i)
        return tf.cond(tf.equal(i % 2, 0), loud, quiet) + 1

    out = tf.while_loop(lambda i: i < 4, body, [0])
    sess = tf.Session(config=tf.ConfigProto(static_schedule=static))
    assert sess.run(out) == 4
    assert buf.getvalue() == "even 0\nodd 1\neven 2\nodd 3\n"


def test_nested_conds_compile_to_nested_ifs():
    tf.reset_default_graph()
    x = tf.placeholder(tf.int64, [])

    def body(i, t):
        def inner():
            r = tf.cond(i > 5, lambda: t * 2, lambda: t + 7)
            return r - r // 2  # the nested Merge read twice (a walk once popped its side per reader)
        return i + 1, tf.cond(i % 2 > 0, inner, lambda: t - i)

    out = tf.while_loop(lambda i, t: i < x, body, [tf.constant(np.int64(0)), tf.constant(np.int64(1))])
    source = _source(out, [x]).split("while True:")[1]
    assert "_p = " not in source and source.count("        if ") >= 2
    t = 1
    for i in range(9):
        r = t * 2 if i > 5 else t + 7
        t = r - r // 2 if i % 2 else t - i
    for static in (True, False):
        assert tf.Session(config=tf.ConfigProto(static_schedule=static)).run(out, {x: 9})[1] == t


def test_a_branch_value_read_past_its_merge_keeps_the_dead_token_rule():
    """A branch value that is also fetched directly is dead when its branch is not taken: the cond is not
    compiled to an `if`, and both paths report the dead fetch."""
    from cfnb.ops import control_flow_ops as cf
    tf.reset_default_graph()
    p = tf.placeholder(tf.bool, [])
    x = tf.constant(3.0)
    s_false, s_true = cf.switch(x, p)
    y = s_true * 2.0
    m, _ = cf.merge([s_false, y])
    sess = tf.Session()
    assert "_p = " in sess._executor([m, y], [], [p]).static.source
    for static in (True, False):
        sess = tf.Session(config=tf.ConfigProto(static_schedule=static))
        assert sess.run([m, y], {p: True}) == [6.0, 6.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Retval"):
            sess.run([m, y], {p: False})


def test_an_error_in_a_taken_branch_names_its_node_and_iteration():
    tf.reset_default_graph()
    d = tf.placeholder(tf.int64, [])

    def body(i, t):
        return i + 1, tf.cond(i >= 2, lambda: t // (d - i), lambda: t + 1)

    out = tf.while_loop(lambda i, t: i < 5, body, [tf.constant(np.int64(0)), tf.constant(np.int64(10))])
    messages = []
    for static in (True, False):
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            tf.Session(config=tf.ConfigProto(static_schedule=static)).run(out, {d: 3})
        messages.append(info.value.message)
    assert "Integer division by zero" in messages[0]
    for message in messages:  # the executor adds its frame's parent iterations, in which they differ
        assert "[[node while/cond/floordiv (FloorDiv) in frame 'while/while_context'" in message
        assert message.endswith("iteration 3]]")
    assert messages[0].split("\n")[0] == messages[1].split("\n")[0]


def test_inline_kernels_keep_the_kernels_dtypes_and_refusals():
    """Inline `%`, `//`, `==` and `not` give the kernel's results (int32 wraparound, float32 rounding) and
    leave what they do not cover (an integer zero divisor, arrays) to the kernel."""
    tf.reset_default_graph()
    k = tf.placeholder(tf.int32, [])
    f = tf.placeholder(tf.float32, [])

    def body(i, a, x, v):
        return (i + 1, a * 65537 + a // (i + 1) + a % 7, x * np.float32(1.1) + x // np.float32(0.3),
                tf.where(tf.logical_not(tf.equal(v % 2, 0)), v * 3, v // 2))

    out = tf.while_loop(lambda i, a, x, v: i < k, body,
                        [0, tf.constant(123457), f, tf.constant(np.array([5, 8, 13], np.int64))])
    for trips in (0, 1, 9):
        fast, slow = (tf.Session(config=tf.ConfigProto(static_schedule=s)).run(out, {k: trips, f: 0.7})
                      for s in (True, False))
        assert all(_same_bits(x, y) for x, y in zip(fast, slow))
    a = np.int32(123457)
    with np.errstate(all="ignore"):
        for i in range(9):
            a = a * np.int32(65537) + a // np.int32(i + 1) + a % np.int32(7)
    assert fast[1] == a and fast[1].dtype == np.int32
    zero = tf.placeholder(tf.int32, [])
    bad = tf.while_loop(lambda i: i < 3, lambda i: i + 1 + i % zero, [0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)Integer division by zero.*FloorMod"):
        tf.Session().run(bad, {zero: 0})


def test_schedule_source_tags_kernel_lines_with_their_node():
    tf.reset_default_graph()
    out = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    sess = tf.Session()
    static = sess._executor([out], [], []).static
    schedule = compile_static(static.exe)
    tagged = [line for line in schedule.source.split("\n") if "# @" in line]
    assert tagged and all(static.exe.items[int(line.rsplit("# @", 1)[1])].op is not None for line in tagged)
    assert "_where" not in schedule.source


_SAFE_CASTS = [(s, d) for s in (tf.bool, tf.int8, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.float16, tf.float32)
               for d in (tf.int16, tf.int32, tf.int64, tf.float32, tf.float64)
               if s != d and np.can_cast(s.as_numpy_dtype, d.as_numpy_dtype, "safe")]


@settings(max_examples=60, deadline=None)
@given(pair=st.sampled_from(_SAFE_CASTS), bits=st.integers(0, 2**64 - 1))
def test_inline_casts_and_integer_extrema_are_the_kernels_bit_for_bit(pair, bits):
    """A Cast the schedule writes inline (a safe cast of a scalar: the destination type's constructor)
    gives the kernel's bits, NaN payloads and int64 -> float64 rounding included; so do the integer
    Maximum/Minimum."""
    src, dst = pair
    np_src = src.as_numpy_dtype
    size = np.dtype(np_src).itemsize
    value = np.array([bits % 2**(8 * size)], dtype=f"u{size}").view(np_src)[0] if src != tf.bool else bool(bits % 2)
    tf.reset_default_graph()
    x = tf.placeholder(src, [])
    out = tf.while_loop(lambda i, v, m: i < 2,
                        lambda i, v, m: (i + 1, tf.cast(x, dst) + v, tf.maximum(tf.minimum(m, i * 7 - 3), i - 1)),
                        [0, tf.zeros([], dst), 5])
    source = _source(out, [x])
    assert f"t_{np.dtype(dst.as_numpy_dtype).name}(" in source and " >= " in source  # written inline
    fast, slow = (tf.Session(config=tf.ConfigProto(static_schedule=s)).run(out, {x: value}) for s in (True, False))
    assert all(_same_bits(a, b) for a, b in zip(fast, slow)), (fast, slow)
