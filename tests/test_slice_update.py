"""Item assignment in place (runtime/slice_update.py): `a[k] = v` in a loop writes into `a`'s buffer on the static
schedule and on the executor when nothing else holds `a`, and copies it when something does (a constant, a feed, a
history stack, a consumer still waiting); values are bit for bit those of the graph run as built."""
import warnings
import weakref

import numpy as np
import pytest
from running import run

import cfnb as tf
from cfnb.ops import numpy_functions as npf
from cfnb.runtime import slice_update


@pytest.fixture
def in_place(monkeypatch):
    """Weak references to each target a slice update was allowed to write into (the real check still decides)."""
    written = []

    def counting(real):
        def check(target):
            ok = real(target)
            if ok and target.flags.writeable:  # (the vector-item kernel leaves that test to the write itself)
                written.append(weakref.ref(target))  # weak: it must not change the counts it tests
            return ok
        return check

    for name in ("_reusable", "_owns_its_memory"):
        monkeypatch.setattr(slice_update, name, counting(getattr(slice_update, name)))
    return written


def _unfused(monkeypatch, fetches, feeds=None, static=True):
    """The same graph run as built: no item assignment found."""
    with monkeypatch.context() as m:
        m.setattr(slice_update, "find", lambda ops: {})
        return run(fetches, feeds, static=static)


def _euler(n, y0=1.0):
    """ys[k + 1] = y in a loop, as the magic builds `for k in range(n): y = y + h * (-y); ys[k + 1] = y`."""
    def body(k, y, ys):
        y = y + 0.001 * (-y)
        return k + 1, y, npf.setitem(ys, k + 1, y)
    init = [tf.constant(0, tf.int64), tf.constant(y0, tf.float64), tf.constant(np.zeros(n + 1))]
    return tf.while_loop(lambda k, y, ys: k < n, body, init)[2]


def _plain_euler(n, y0=1.0):
    ys, y = np.zeros(n + 1), y0
    for k in range(n):
        y = y + 0.001 * (-y)
        ys[k + 1] = y
    return ys


@pytest.mark.parametrize("static", [True, False])
def test_a_preallocated_array_is_filled_in_place_on_both_paths(in_place, monkeypatch, static):
    ys = _euler(50)
    result = run(ys, static=static)
    np.testing.assert_array_equal(result, _plain_euler(50))
    # iteration 0 copies the constant (its kernel holds it); every later one writes into that one copy
    assert len(in_place) == 49 and all(ref() is result for ref in in_place)
    unfused = _unfused(monkeypatch, ys, static=static)
    assert unfused.tobytes() == result.tobytes() and unfused.dtype == result.dtype


def test_the_schedule_says_which_update_may_write_into_its_input():
    ys = _euler(3)
    meta = tf.RunMetadata()
    tf.Session().run(ys, run_metadata=meta)
    assert meta.static_schedule.forwarded == {"while/SelectV2": (0,)}
    # the mask, the scattered value and the slice it was built from are not computed at all
    assert "StridedSliceGrad" not in {item.op.type for item in meta.static_schedule.exe.items if item.op is not None}


def test_values_are_the_graphs_bit_for_bit_negative_zero_included(monkeypatch):
    """StridedSliceGrad's zeros plus v make a -0.0 into 0.0; the slice update does the same."""
    a = tf.constant(np.ones(4, np.float32))
    _, out = tf.while_loop(lambda k, a: k < 4, lambda k, a: (k + 1, npf.setitem(a, k, -0.0 * tf.cast(k, tf.float32))),
                           [tf.constant(0, tf.int64), a])
    for static in (True, False):
        fused, unfused = run(out, static=static), _unfused(monkeypatch, out, static=static)
        assert fused.tobytes() == unfused.tobytes()
        assert not np.signbit(fused).any()


@pytest.mark.parametrize("static", [True, False])
def test_a_sieve_row_slices_and_casts_agree_with_the_graph_as_built(monkeypatch, static):
    n = 30
    flags = tf.constant(np.ones(n + 1, bool))

    def inner(j, step, flags):
        return j + step, step, npf.setitem(flags, j, False)

    def outer(i, flags):
        _, _, flags = tf.while_loop(lambda j, step, f: j <= n, inner, [i * i, i, flags])
        return i + 1, flags

    _, sieve = tf.while_loop(lambda i, f: i * i <= n, outer, [tf.constant(2, tf.int64), flags])
    m = tf.constant(np.zeros((3, 4), np.float32))
    _, rows = tf.while_loop(lambda k, m: k < 3, lambda k, m: (k + 1, npf.setitem(m, k, tf.cast(k, tf.float64) + 0.5)),
                            [tf.constant(0, tf.int64), m])
    fused = run([sieve, rows], static=static)
    unfused = _unfused(monkeypatch, [sieve, rows], static=static)
    expected = np.ones(n + 1, bool)
    for i in range(2, 6):
        expected[i * i::i] = False
    np.testing.assert_array_equal(fused[0], expected)
    np.testing.assert_array_equal(fused[1], np.repeat(np.float32([0.5, 1.5, 2.5]), 4).reshape(3, 4))
    for a, b in zip(fused, unfused):
        assert a.tobytes() == b.tobytes() and a.dtype == b.dtype


@pytest.mark.parametrize("static", [True, False])
def test_a_history_stack_keeps_the_old_array_and_the_gradient_gets_it(in_place, monkeypatch, static):
    """The gradient of `s += sum(a * a)` needs each iteration's `a`: pushed on a history stack, it is held there,
    so the update copies it, and the gradient equals the graph's as built and finite differences."""
    x = tf.placeholder(tf.float64, [])

    def body(k, a, s):
        s = s + tf.reduce_sum(a * a)
        return k + 1, npf.setitem(a, k, x * tf.cast(k + 1, tf.float64)), s

    init = [tf.constant(0, tf.int64), tf.constant(np.ones(3)), tf.constant(0.0, tf.float64)]
    _, a, s = tf.while_loop(lambda k, a, s: k < 3, body, init)
    (g,) = tf.gradients(s, [x])
    fused = run([a, s, g], {x: 0.5}, static=static)
    assert in_place == []  # every old array is on the stack
    unfused = _unfused(monkeypatch, [a, s, g], {x: 0.5}, static=static)
    for u, v in zip(fused, unfused):
        assert np.asarray(u).tobytes() == np.asarray(v).tobytes()
    step = 1e-6
    numeric = (run(s, {x: 0.5 + step}, static=static) - run(s, {x: 0.5 - step}, static=static)) / (2 * step)
    np.testing.assert_allclose(fused[2], numeric, rtol=1e-6)
    assert fused[2] == pytest.approx(12 * 0.5)  # s = 3 + (x^2 + 2) + (x^2 + 4x^2 + 1)


def test_a_consumer_still_waiting_for_the_old_array_keeps_it(in_place, monkeypatch):
    """On the executor, `b = a * (a long chain)` waits with the old `a` in its input slot while the update is
    ready: the update must copy, and `b` see the old values."""
    def body(k, a, b):
        slow = tf.cast(k, tf.float64)
        for _ in range(6):
            slow = tf.sin(slow) + 1.0
        return k + 1, npf.setitem(a, k, 10.0), a * slow

    init = [tf.constant(0, tf.int64), tf.constant(np.ones(3)), tf.constant(np.zeros(3))]
    _, a, b = tf.while_loop(lambda k, a, b: k < 3, body, init, parallel_iterations=1)
    fused = run([a, b], static=False)
    unfused = _unfused(monkeypatch, [a, b], static=False)
    assert in_place == []
    for u, v in zip(fused, unfused):
        assert u.tobytes() == v.tobytes()
    old, slow = np.ones(3), 2.0
    for k in range(3):
        slow = float(k)
        for _ in range(6):
            slow = np.sin(slow) + 1.0
        b_expected, old[k] = old * slow, 10.0
    np.testing.assert_array_equal(fused[0], [10.0, 10.0, 10.0])
    np.testing.assert_allclose(fused[1], b_expected, rtol=1e-15)  # the old a: [10, 10, 1] * slow


def test_constants_feeds_and_earlier_results_are_never_written_into():
    init = np.arange(4.0)
    x = tf.placeholder(tf.float64, [4])
    body = lambda k, a: (k + 1, npf.setitem(a, k, -1.0))  # noqa: E731
    _, from_feed = tf.while_loop(lambda k, a: k < 4, body, [tf.constant(0, tf.int64), x])
    const = tf.constant(init.copy())
    _, from_const = tf.while_loop(lambda k, a: k < 4, body, [tf.constant(0, tf.int64), const])
    for static in (True, False):
        sess = tf.Session(config=tf.ConfigProto(static_schedule=static))
        fed = init.copy()
        first = sess.run([from_feed, from_const], {x: fed})
        kept = [v.copy() for v in first]
        sess.run([from_feed, from_const], {x: fed})
        np.testing.assert_array_equal(fed, init)
        np.testing.assert_array_equal(sess.run(const), init)
        for v, k in zip(first, kept):
            np.testing.assert_array_equal(v, k)
            np.testing.assert_array_equal(v, [-1.0] * 4)


@pytest.mark.parametrize("static", [True, False])
def test_an_index_out_of_bounds_is_strided_slices_error(static):
    a = tf.constant(np.zeros(2))
    _, bad = tf.while_loop(lambda k, a: k < 3, lambda k, a: (k + 1, npf.setitem(a, k, 1.0)),
                           [tf.constant(0, tf.int64), a])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)IndexError: slice index 2 of dimension 0 out of "
                                                             r"bounds.*iteration 2"):
        run(bad, static=static)


def test_a_device_that_counts_memory_runs_the_graph_as_built(monkeypatch):
    searched = []
    real = slice_update.find
    monkeypatch.setattr(slice_update, "find", lambda ops: searched.append(ops) or real(ops))
    ys = _euler(4)
    np.testing.assert_array_equal(run(ys), _plain_euler(4))
    assert len(searched) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a GPU simulated on a machine without one says so
        result = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})).run(ys)
    np.testing.assert_array_equal(result, _plain_euler(4))
    assert len(searched) == 1  # kernels are counted one by one there: nothing is fused


CELLS = {
    "euler": "ys = np.zeros(201)\ny = 1.0\nh = 0.01\nfor n in range(200):\n    y = y + h * (-y)\n    ys[n + 1] = y",
    "sieve": "n = 200\nis_prime = np.ones(n + 1, dtype=bool)\nis_prime[0] = False\nis_prime[1] = False\ni = 2\n"
             "while i * i <= n:\n    if is_prime[i]:\n        j = i * i\n        while j <= n:\n"
             "            is_prime[j] = False\n            j += i\n    i += 1",
}


@pytest.mark.parametrize("name", sorted(CELLS))
def test_the_magic_writes_arrays_in_place_and_leaves_what_python_leaves(clean, in_place, name):
    cell = CELLS[name]
    expected = {"np": np}
    exec(cell, expected)  # noqa: S102 - the test's own cell
    clean.run_cell_magic("whileloop", "--no-display", cell)
    array = "ys" if name == "euler" else "is_prime"
    ours = clean.user_ns[array]
    assert ours.dtype == expected[array].dtype and ours.tobytes() == expected[array].tobytes()
    # every step but the first of each loop instance writes into the array it was handed
    assert len(in_place) >= (199 if name == "euler" else 150)


@pytest.mark.parametrize("dtype, values", [(np.float64, [np.nan, -0.0, np.inf, -2.5]), (np.float32, [-0.0, 1.5]),
                                           (np.int64, [-3, 7]), (np.bool_, [False, True])])
def test_an_item_of_a_vector_takes_its_own_kernel_and_equals_the_graph_as_built(monkeypatch, dtype, values):
    """`a[i] = v` of a vector and a scalar (what a loop filling an array does) has a kernel of its own; negative
    indices, NaN, -0.0 and every dtype still give the graph's bytes."""
    n = len(values)
    a = tf.constant(np.arange(2 * n).astype(dtype))
    v = tf.constant(np.array(values, dtype))
    body = lambda k, a: (k + 1, npf.setitem(a, -1 - 2 * k, v[k]))  # noqa: E731 - indices -1, -3, ...
    _, out = tf.while_loop(lambda k, a: k < n, body, [tf.constant(0, tf.int64), a])
    meta = tf.RunMetadata()
    tf.Session().run(out, run_metadata=meta)
    kernels = {item.kernel.__name__ for item in meta.static_schedule.exe.items if item.op is not None and
               item.op.type == "SelectV2"}
    assert kernels == {"item_update"}
    for static in (True, False):
        fused, unfused = run(out, static=static), _unfused(monkeypatch, out, static=static)
        assert fused.tobytes() == unfused.tobytes() and fused.dtype == unfused.dtype == dtype


@pytest.mark.parametrize("static", [True, False])
def test_a_read_only_array_is_copied_never_written(static):
    """The vector-item kernel leaves the writeable test to numpy's write: a read-only array it was handed (a kernel's
    own read-only result, nothing else holding it) is copied, and the loop's values are the graph's."""
    readonly = tf.py_func(lambda: _frozen(np.zeros(4)), [], tf.float64, stateful=False)
    readonly.set_shape([4])
    _, out = tf.while_loop(lambda k, a: k < 4, lambda k, a: (k + 1, npf.setitem(a, k, tf.cast(k, tf.float64) + 0.5)),
                           [tf.constant(0, tf.int64), readonly])
    np.testing.assert_array_equal(run(out, static=static), [0.5, 1.5, 2.5, 3.5])


def _frozen(a):
    a.flags.writeable = False
    return a
