"""Inter-op worker pools of a partitioned run (runtime/inter_op.py): kernels computed on a worker are reported,
traced and waited for exactly like kernels computed on the device's own thread.

- a kernel that fails on a worker raises the same error type and message (naming the node and its frame) as the
  same kernel inline on two devices, and the same type and text as on one device;
- a device whose only work is a kernel in flight is not idle: the rendezvous must not call the run stuck while
  the other device waits for that kernel's output (a slowed-down kernel makes the window wide); a deadline still
  ends such a run, and says what was computing;
- a traced run records each pooled firing once, on its device, with the worker's start and end times;
- an expensive kernel goes to a worker only when its device's thread has other work ready (`Pool.wants`);
- single-device runs never start a worker, whatever the settings; nor do two devices by default.
"""
import threading
import time
import types

import numpy as np
import pytest

import cfnb as tf
from cfnb.framework import errors
from cfnb.runtime import inter_op

TWO_CPUS = {"CPU": 2}


def _workers():
    return [t for t in threading.enumerate() if t.name.startswith("cfnb inter-op")]


@pytest.fixture
def submitted(monkeypatch):
    """Names of the nodes handed to a worker pool during the test."""
    names = []
    submit = inter_op.Pool.submit
    monkeypatch.setattr(inter_op.Pool, "submit", lambda pool, token, args: (names.append(token[0].name),
                                                                             submit(pool, token, args)))
    return names


def _bad_matmul_in_loop(two_devices):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, None, name="x")
        w = tf.placeholder(tf.float32, None, name="w")

        def body(i, v):
            with tf.device("/cpu:0"):
                m = tf.matmul(v, w, name="mm")
            with tf.device("/cpu:1" if two_devices else "/cpu:0"):
                return i + 1, tf.tanh(m)

        with tf.device("/cpu:0"):
            out = tf.while_loop(lambda i, v: i < 3, body, [0, x])[1]
    return graph, x, w, out


def _error_of(two_devices, threads, submitted):
    graph, x, w, out = _bad_matmul_in_loop(two_devices)
    config = tf.ConfigProto(device_count=TWO_CPUS, inter_op_parallelism_threads=threads)
    with tf.Session(graph=graph, config=config) as sess:
        feed = {x: np.ones((4, 4), np.float32), w: np.ones((4, 4), np.float32)}
        assert sess.run(out, feed).shape == (4, 4)  # well-shaped inputs run
        submitted.clear()
        with pytest.raises(errors.OpError) as info:
            sess.run(out, {x: np.ones((4, 4), np.float32), w: np.ones((3, 2), np.float32)})
    return type(info.value), info.value.message, info.value.op.name


def test_a_pooled_kernel_fails_like_an_inline_one(monkeypatch, submitted):
    # Every MatMul goes to the pool, even when its device has nothing else ready (Pool.wants would keep it).
    monkeypatch.setattr(inter_op.Pool, "wants", lambda pool, item, args, ready: item.op.type == "MatMul")
    pooled = _error_of(True, 2, submitted)
    assert submitted == ["while/mm"]  # the failing MatMul ran on a worker
    inline = _error_of(True, -1, submitted)
    assert submitted == []  # inter_op_parallelism_threads=-1: every kernel on the device's thread
    assert _error_of(True, 0, submitted) == inline  # so does the default
    assert submitted == []
    one_device = _error_of(False, 2, submitted)
    assert submitted == []  # one device: no pool at all
    assert pooled == inline
    assert pooled[0] is errors.InvalidArgumentError and pooled[2] == "while/mm"
    assert "[[node while/mm (MatMul) in frame 'while/while_context'" in pooled[1]
    # One device says the same, up to how it writes the frame's address.
    assert (one_device[0], one_device[1].split("[[")[0], one_device[2]) == (pooled[0], pooled[1].split("[[")[0],
                                                                             pooled[2])
    assert _workers() == []


def _slow_kernel_session(seconds):
    """CPU:0 computes `slow` (a kernel that sleeps), CPU:1 waits for it."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        with tf.device("/cpu:0"):
            slow = tf.sin(x, name="slow")
        with tf.device("/cpu:1"):
            out = tf.cos(slow, name="out")
    sess = tf.Session(graph=graph, config=tf.ConfigProto(device_count=TWO_CPUS))
    make_kernel = sess._make_kernel

    def make_slow(op):
        kernel = make_kernel(op)
        if op.name != "slow":
            return kernel
        return lambda v: (time.sleep(seconds), kernel(v))[1]

    sess._make_kernel = make_slow
    return sess, x, out


def test_a_kernel_in_flight_is_not_a_stuck_run(monkeypatch, submitted):
    """CPU:0's only work is a slow pooled kernel whose output CPU:1 waits for: both executors wait, neither inbox
    holds anything, yet the run is not stuck."""
    monkeypatch.setattr(inter_op, "POOL_EVERY_KERNEL", True)
    sess, x, out = _slow_kernel_session(0.3)
    assert sess.run(out, {x: 0.5}) == pytest.approx(np.cos(np.sin(0.5)))
    assert "slow" in submitted
    assert _workers() == []


def test_a_deadline_passes_while_a_kernel_is_in_flight(monkeypatch, submitted):
    monkeypatch.setattr(inter_op, "POOL_EVERY_KERNEL", True)
    sess, x, out = _slow_kernel_session(1.0)
    with pytest.raises(errors.DeadlineExceededError) as info:
        sess.run(out, {x: 0.5}, options=tf.RunOptions(timeout_in_ms=200))
    assert "slow" in submitted
    assert "1 kernel(s) still computing on CPU:0's inter-op workers" in info.value.message
    assert "slow/_" in info.value.message  # and CPU:1's Recv, waiting for it
    assert _workers() == []  # the run ended after its worker did


def test_a_traced_pooled_run_records_each_firing_on_its_device(monkeypatch, submitted):
    # Every kernel goes to the pool: by TensorFlow's rule (`Pool.wants`) a matmul stays on its device's thread when
    # nothing else is ready there, which depends on how the threads are scheduled; on a busy machine a device kept
    # its matmul inline in every iteration (1 run in 25 with two cores loaded), and nothing pooled was traced.
    monkeypatch.setattr(inter_op, "POOL_EVERY_KERNEL", True)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [64, 64], name="x")
        w = tf.constant(np.eye(64, dtype=np.float32) * 0.5)

        def body(i, a, b):
            with tf.device("/cpu:0"):
                a1 = tf.matmul(a, w, name="mm_a")
            with tf.device("/cpu:1"):
                b1 = tf.matmul(b, w, name="mm_b")
            return i + 1, a1, b1

        with tf.device("/cpu:0"):
            _, a, b = tf.while_loop(lambda i, a, b: i < 4, body, [0, x, x + 1.0])
    feed = {x: np.ones((64, 64), np.float32)}
    runs = {}
    for threads in (-1, 2):
        sess = tf.Session(graph=graph, config=tf.ConfigProto(device_count=TWO_CPUS,
                                                             inter_op_parallelism_threads=threads))
        meta = tf.RunMetadata()
        values = sess.run([a, b], feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                          run_metadata=meta)
        runs[threads] = values, meta.trace
    assert {"while/mm_a", "while/mm_b"} <= set(submitted)
    (inline_values, inline_trace), (pooled_values, pooled_trace) = runs[-1], runs[2]
    np.testing.assert_array_equal(pooled_values[0], np.full((64, 64), 0.5 ** 4, np.float32))
    for got, want in zip(pooled_values, inline_values):
        np.testing.assert_array_equal(got, want)
    key = lambda f: (f.node, f.frame_path, f.iteration, f.live, f.value, f.device)
    assert sorted(map(key, pooled_trace)) == sorted(map(key, inline_trace))
    for f in pooled_trace.of_node("while/mm_b"):
        assert f.device.endswith("CPU:1") and 0.0 < f.start <= f.end
    assert sum(f.live for f in pooled_trace.of_node("while/mm_a")) == 4  # and a dead one in the last iteration


def test_a_kernel_goes_to_a_worker_only_when_its_device_has_other_work():
    """`Pool.wants`, TensorFlow's `curr_expensive_node` rule, asked directly (a run's timing decides what it is
    asked): an expensive kernel (by type, or by its inputs' size) is handed to a worker when the device's thread has
    something else ready, and stays inline when it has not; a stateful kernel never leaves the thread."""
    settings = types.SimpleNamespace(classes=[inter_op.NEVER, inter_op.BY_SIZE, inter_op.ALWAYS], every_kernel=False,
                                     threads=2)  # an InterOp's fields, without a graph to classify
    pool = inter_op.Pool(settings, endpoint=None)
    never, by_size, always = (types.SimpleNamespace(id=k) for k in range(3))
    big, small, other = np.zeros(inter_op.EXPENSIVE_ELEMENTS, np.float32), np.zeros(3, np.float32), ["another token"]
    assert [pool.wants(always, [small], other), pool.wants(always, [small], [])] == [True, False]
    assert [pool.wants(by_size, [small, big], other), pool.wants(by_size, [small], other),
            pool.wants(by_size, [big], [])] == [True, False, False]
    assert pool.wants(never, [big], other) is False
    pool.every_kernel = True  # POOL_EVERY_KERNEL, for tests: anything but a stateful kernel
    assert [pool.wants(by_size, [small], []), pool.wants(never, [big], other)] == [True, False]


def test_single_device_runs_never_pool(monkeypatch, submitted):
    monkeypatch.setattr(inter_op, "POOL_EVERY_KERNEL", True)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        with tf.device("/cpu:0"):
            out = tf.while_loop(lambda i, v: i < 5, lambda i, v: (i + 1, tf.sin(v)), [0, x])[1]
    sess = tf.Session(graph=graph, config=tf.ConfigProto(device_count=TWO_CPUS))
    want = np.float32(0.5)
    for _ in range(5):
        want = np.sin(want)
    assert sess.run(out, {x: 0.5}) == pytest.approx(want)
    assert submitted == []
