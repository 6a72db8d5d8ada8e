"""Simulated GPU devices, memory limits (GPUOptions virtual devices), and swap_memory that swaps
(StackPushV2/StackPopV2 for v1 loops, TensorListPushBack/PopBack for v2 loops)."""
import warnings

import numpy as np
import pytest

import cfnb as tf
from cfnb.runtime import backends
from cfnb.runtime.allocator import Allocator, rounded_bytes
from cfnb.runtime.device_memory import SimulatedDeviceWarning

VD = tf.GPUOptions.Experimental.VirtualDevices
STEPS = 24
SHAPE = (32, 64)  # one history value: 8 KiB


def limited(mb):
    return tf.ConfigProto(gpu_options=tf.GPUOptions(
        experimental=tf.GPUOptions.Experimental(virtual_devices=[VD(memory_limit_mb=[mb])])))


def rnn(n, swap, v2):
    """h <- tanh(h @ w), n times; the loss and its gradients with respect to w and the initial h."""
    g = tf.Graph()
    was = tf.control_flow_v2_enabled()
    (tf.enable_control_flow_v2 if v2 else tf.disable_control_flow_v2)()
    try:
        with g.as_default():
            x = tf.placeholder(tf.float32, SHAPE)
            w = tf.constant(np.random.RandomState(0).randn(SHAPE[1], SHAPE[1]).astype(np.float32) * 0.2)
            _, h = tf.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w))),
                                 [tf.constant(0), x], swap_memory=swap)
            loss = tf.reduce_sum(h * h)
            grads = tf.gradients(loss, [w, x])
    finally:
        (tf.enable_control_flow_v2 if was else tf.disable_control_flow_v2)()
    return g, x, [loss] + grads


def run(n, swap, v2, config):
    """Values and memory timeline of `rnn` on a Session with `config`. The graph optimizations are off: swapping
    keeps a graph's values bit for bit, and the rewrites that trade device memory for speed leave a swapping
    graph alone (passes/loop_fission.py), so the unswapped references must run the graph as built too."""
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    g, x, fetches = rnn(n, swap, v2)
    feed = np.random.RandomState(1).randn(*SHAPE).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimulatedDeviceWarning)
        with tf.Session(graph=g, config=config) as sess:
            meta = tf.RunMetadata()
            values = sess.run(fetches, {x: feed}, run_metadata=meta)
    return values, meta.memory_timeline


def same_across_devices(a, b):
    """A CPU run's value against a GPU run's: bit for bit where the GPU is simulated with numpy; on a real GPU float32
    sums and products run in another order (cuBLAS, cupy's reductions), so to float32 rounding grown over the loop,
    a thousandth of the largest value. Two runs on one device are still compared bit for bit."""
    if not backends.has_gpu():
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-3 * max(1.0, float(np.abs(b).max())))


def test_bfc_rounding():
    assert [rounded_bytes(n) for n in (0, 1, 256, 257, 8192)] == [256, 256, 256, 512, 8192]


def test_gpu_options_declare_a_limited_gpu():
    expect = pytest.warns(SimulatedDeviceWarning, match="simulated") if not backends.has_gpu() else \
        warnings.catch_warnings()
    with expect:
        sess = tf.Session(graph=tf.Graph(), config=limited(3))
    gpu = sess._memory.allocator("/job:localhost/replica:0/task:0/device:GPU:0")
    assert gpu.limit == 3 << 20 and gpu.name == "GPU_0_bfc"


def test_allocator_frees_on_last_reference():
    a = Allocator("GPU_0_bfc", "/device:GPU:0", limit=1 << 20)
    x = np.zeros(1000, np.float32)
    a.register(x)
    a.register(x[10:])  # a view of a counted buffer costs nothing
    assert a.bytes_in_use == 4096
    del x
    assert a.bytes_in_use == 0 and a.peak == 4096


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_swapped_equals_unswapped(v2):
    plain, _ = run(STEPS, False, v2, tf.ConfigProto())
    on_gpu, _ = run(STEPS, False, v2, limited(100))
    swapped, timeline = run(STEPS, True, v2, limited(100))
    for a, b, c in zip(plain, on_gpu, swapped):
        same_across_devices(a, b)
        np.testing.assert_array_equal(b, c)
    gpu = timeline["GPU:0"]
    # every forward value of tanh(h @ w) went to the host and came back: two accumulated tensors a step
    assert gpu.swapped_out_bytes >= STEPS * np.prod(SHAPE) * 4
    assert gpu.count("push") == gpu.count("pop") == gpu.count("swap_out")
    assert gpu.count("prefetch") > 0


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_peak_bounded_with_swapping(v2):
    peaks = {n: run(n, True, v2, limited(100))[1]["GPU:0"].peak_bytes for n in (STEPS, 2 * STEPS, 4 * STEPS)}
    unswapped = {n: run(n, False, v2, limited(100))[1]["GPU:0"].peak_bytes for n in (STEPS, 4 * STEPS)}
    per_step = np.prod(SHAPE) * 4
    assert unswapped[4 * STEPS] - unswapped[STEPS] >= 3 * STEPS * per_step  # history grows with the length
    # with swapping the device holds a bounded window: the peak does not grow with the length
    assert max(peaks.values()) - min(peaks.values()) <= 24 * per_step
    assert peaks[4 * STEPS] < unswapped[4 * STEPS] / 2


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_twice_the_length_needs_swapping(v2):
    _, timeline = run(STEPS, False, v2, limited(100))
    fits = timeline["GPU:0"].peak_bytes
    limit_mb = (fits + (fits >> 3)) / (1 << 20)  # room for STEPS steps, not for 2 * STEPS
    run(STEPS, False, v2, limited(limit_mb))
    with pytest.raises(tf.errors.ResourceExhaustedError) as e:
        run(2 * STEPS, False, v2, limited(limit_mb))
    message = str(e.value)
    assert "OOM when allocating tensor with shape[" in message and "by allocator GPU_0_bfc" in message
    assert "bytes in use" in message and "limit" in message
    assert e.value.op is not None and f"{{{{node {e.value.op.name}}}}}" in message
    values, _ = run(2 * STEPS, True, v2, limited(limit_mb))
    same_across_devices(values[1], run(2 * STEPS, False, v2, tf.ConfigProto())[0][1])


def test_cpu_session_has_no_device_memory():
    g, x, fetches = rnn(3, True, False)
    with tf.Session(graph=g) as sess:
        meta = tf.RunMetadata()
        sess.run(fetches[0], {x: np.ones(SHAPE, np.float32)}, run_metadata=meta)
    assert sess._memory is None and meta.memory_timeline is None


@pytest.mark.skipif(not backends.has_gpu(), reason="needs cupy and a GPU (pip install -e .[gpu])")
def test_cupy_gpu_matches_numpy():
    cp = backends.cupy_module()
    assert backends.array_module("/device:GPU:0") is cp
    x = np.arange(6, dtype=np.float32)
    assert isinstance(backends.to_device(x, "/device:GPU:0"), cp.ndarray)
    np.testing.assert_array_equal(backends.to_host(backends.to_device(x, "/device:GPU:0")), x)
