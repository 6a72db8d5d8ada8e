"""Buffer forwarding in the static schedule: element-wise ops write into an input only when no one
else can see it, so results equal the tagged-token executor's (which never forwards) bit for bit."""
import weakref

import numpy as np
import pytest
from running import run

import cfnb as tf
from cfnb.runtime.fastpath import buffer_forwarding


@pytest.fixture
def in_place_writes(monkeypatch):
    """(shape, weak reference) of each buffer reused at run time (the real check still decides)."""
    reused = []
    real = buffer_forwarding._reusable

    def counting(buf, other):
        ok = real(buf, other)
        if ok:
            reused.append((buf.shape, weakref.ref(buf)))  # weak: it must not change the counts it tests
        return ok

    monkeypatch.setattr(buffer_forwarding, "_reusable", counting)
    return reused


def _schedule(fetches, feeds=()):
    sess = tf.Session()
    flat = fetches if isinstance(fetches, list) else [fetches]
    return sess._executor(flat, [], list(feeds)).static


def _both(fetches, feeds=None):
    return run(fetches, feeds, static=True), run(fetches, feeds, static=False)


def test_an_accumulator_is_updated_in_place_and_equals_the_executor(in_place_writes):
    rs = np.random.RandomState(0)
    w_value, feed = rs.randn(8, 8).astype(np.float32), rs.randn(8, 8).astype(np.float32)
    x = tf.placeholder(tf.float32, [8, 8])
    _, acc = tf.while_loop(lambda i, acc: i < 5,
                           lambda i, acc: (i + 1, acc + tf.matmul(acc, tf.constant(w_value)) * 0.1), [0, x])
    kept = feed.copy()
    static, executor = _both(acc, {x: feed})
    np.testing.assert_array_equal(static, executor)
    expected = kept
    for _ in range(5):
        expected = expected + (expected @ w_value) * np.float32(0.1)
    np.testing.assert_allclose(static, expected, rtol=1e-5)
    np.testing.assert_array_equal(feed, kept)  # the fed array was not written into
    # while/add, the counter i + 1, is rank 0: a numpy scalar, never a buffer to reuse
    assert _schedule(acc, [x]).forwarded == {"while/mul": (0,), "while/add_1": (0, 1)}
    # both ops reuse a buffer every iteration (the product's for `* 0.1`)
    assert len(in_place_writes) == 10


def test_the_loop_variable_keeps_one_buffer_across_iterations(in_place_writes):
    x = tf.placeholder(tf.float32, [16])
    _, acc = tf.while_loop(lambda i, acc: i < 6, lambda i, acc: (i + 1, acc + tf.sin(acc)), [0, x])
    sess = tf.Session()
    result = sess._executor([acc], [], [x]).static.run([np.linspace(0, 1, 16, dtype=np.float32)])[0]
    # iteration 0 writes into sin's output (acc is still the fed array); from then on into acc itself,
    # once the Merge's m-variable is the buffer's only holder: all six sums land in one array
    assert [ref() is result for _, ref in in_place_writes] == [True] * 6


def test_a_value_also_written_to_a_tensor_array_is_not_overwritten(in_place_writes):
    ta = tf.TensorArray(tf.float32, size=4)

    def body(i, acc, ta):
        ta = ta.write(i, acc)  # the TensorArray holds acc's buffer now
        return i + 1, acc + 1.0, ta

    _, acc, ta = tf.while_loop(lambda i, *_: i < 4, body, [0, tf.zeros([3]), ta])
    static, executor = _both([acc, ta.stack()])
    np.testing.assert_array_equal(static[1], [[0] * 3, [1] * 3, [2] * 3, [3] * 3])
    np.testing.assert_array_equal(static[1], executor[1])
    np.testing.assert_array_equal(static[0], [4, 4, 4])
    assert in_place_writes == []


def test_pushed_history_values_survive_forwarding_in_a_gradient_loop():
    x = tf.placeholder(tf.float32, [4])
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.tanh(y + y * y)), [0, x])
    (g,) = tf.gradients(tf.reduce_sum(y), [x])
    feed = np.array([0.1, -0.2, 0.3, 0.5], np.float32)
    static, executor = _both(g, {x: feed})
    np.testing.assert_array_equal(static, executor)
    v, dv = feed.astype(np.float64), np.ones(4)
    values = []
    for _ in range(3):
        values.append(v)
        v = np.tanh(v + v * v)
    for prev in reversed(values):
        out = np.tanh(prev + prev * prev)
        dv = dv * (1 - out * out) * (1 + 2 * prev)
    np.testing.assert_allclose(static, dv, rtol=1e-5)


def test_loop_variables_that_swap_buffers_and_repeated_runs_keep_their_values():
    # Fibonacci on vectors: b's buffer may take a + b while the new b is the old a.
    init_a, init_b = tf.constant([1.0, 2.0]), tf.constant([1.0, 3.0])
    _, a, b = tf.while_loop(lambda i, a, b: i < 6, lambda i, a, b: (i + 1, a + b, a), [0, init_a, init_b])
    sess = tf.Session()
    first = sess.run([a, b])
    kept = [v.copy() for v in first]
    second = sess.run([a, b])
    x, y = np.array([1.0, 2.0]), np.array([1.0, 3.0])
    for _ in range(6):
        x, y = x + y, x
    for out in (first, second):
        np.testing.assert_array_equal(out[0], x)
        np.testing.assert_array_equal(out[1], y)
    np.testing.assert_array_equal(first[0], kept[0])  # a later run did not write into an earlier result
    np.testing.assert_array_equal(sess.run(init_a), [1.0, 2.0])  # nor into a constant


def test_only_dead_local_values_are_candidates():
    v = tf.placeholder(tf.float32, [2])
    _, out = tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, (v + v) + v), [0, v])
    # `v + v` (add_1) reads v twice, and v is read again by the next add: no candidate. After
    # `(v + v) + v` (add_2) neither input is read again: both are candidates.
    assert _schedule(out, [v]).forwarded == {"while/add_2": (0, 1)}
    np.testing.assert_array_equal(run(out, {v: [1.0, 2.0]}), [9.0, 18.0])


def test_broadcasting_and_mixed_shapes_fall_back_to_a_new_buffer(in_place_writes):
    row = tf.placeholder(tf.float32, [3])
    _, m = tf.while_loop(lambda i, m: i < 2, lambda i, m: (i + 1, (m * 2.0)[0] + tf.ones([2, 3])),
                         [0, tf.zeros([2, 3])])
    static, executor = _both(m, {row: np.zeros(3, np.float32)})
    np.testing.assert_array_equal(static, executor)
    np.testing.assert_array_equal(static, np.full((2, 3), 1.0 * 2 + 1))
    # (m * 2)[0] is a view of a [2, 3] product: its shape is not the [2, 3] result's, so no reuse
    assert (3,) not in [shape for shape, _ in in_place_writes]


def test_a_0_d_array_is_never_reused_so_results_keep_the_allocating_kernels_type():
    # Static rank unknown, so the Add is a candidate; DivNoNan's kernel returns a 0-d array, and
    # np.add(out=) into it would hand back a 0-d array where operator `+` gives a numpy scalar.
    x, y = tf.placeholder(tf.float32, None), tf.placeholder(tf.float32, None)
    total = tf.div_no_nan(x, y) + x
    feeds = {x: np.float32(3), y: np.float32(2)}
    static, executor = _both(total, feeds)
    assert static == executor == 4.5 and type(static) is type(executor)
