"""Where swap_memory's copies run (runtime/swap.py): a value of at most SYNC_COPY_BYTES is copied to the host and back
by the kernel that pushes or pops it, in the executor's thread; a larger one on the Session's copy stream. Both paths
must give the unswapped values bit for bit and the same memory timeline: the host holds the history, the device peak
stays flat, every push is swapped out and every pop brings its value back."""
import threading
import warnings

import numpy as np
import pytest
from test_device_memory import SHAPE, STEPS, limited, rnn, run, same_across_devices

import cfnb as tf
from cfnb.runtime import backends, swap
from cfnb.runtime.device_memory import DeviceMemory, SimulatedDeviceWarning

GPU = "/job:localhost/replica:0/task:0/device:GPU:0"
PATHS = {"in the kernel": None, "on the copy stream": 0}  # SYNC_COPY_BYTES: as shipped, or every value asynchronous


def _copy_threads():
    return [t for t in threading.enumerate() if t.name == "cfnb copy stream"]


@pytest.fixture(params=list(PATHS), ids=["sync", "stream"])
def path(request, monkeypatch):
    if PATHS[request.param] is not None:
        monkeypatch.setattr(swap, "SYNC_COPY_BYTES", PATHS[request.param])
    return request.param


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_both_paths_swap_every_value_and_keep_the_values(path, v2):
    plain, _ = run(STEPS, False, v2, tf.ConfigProto())
    swapped, timeline = run(STEPS, True, v2, limited(100))
    for a, b in zip(plain, swapped):
        same_across_devices(a, b)
    gpu, host = timeline["GPU:0"], timeline["host"]
    per_step = np.prod(SHAPE) * 4
    assert gpu.count("push") == gpu.count("pop") == gpu.count("swap_out") >= 2 * STEPS
    assert gpu.swapped_out_bytes == gpu.count("swap_out") * per_step
    assert gpu.count("prefetch") > 0
    # the host held the history: its bytes rose by one value per swap-out, and all of it at once at the peak
    assert host.count("swap_out") == gpu.count("swap_out")
    assert host.peak_bytes >= gpu.count("push") * per_step


def test_both_paths_keep_the_device_peak_flat(path):
    peaks = [run(n, True, False, limited(100))[1]["GPU:0"].peak_bytes for n in (STEPS, 4 * STEPS)]
    unswapped = run(4 * STEPS, False, False, limited(100))[1]["GPU:0"].peak_bytes
    assert peaks[1] - peaks[0] <= 24 * np.prod(SHAPE) * 4 and peaks[1] < unswapped / 2


def test_small_values_never_wake_the_copy_thread():
    before = _copy_threads()
    memory = DeviceMemory(["/job:localhost/replica:0/task:0/device:CPU:0", GPU])
    value = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    pushed = [memory.swap_out(GPU, "stack", value + k) for k in range(8)]
    assert all(p.synchronous for p in pushed) and memory.copier._issued == 0
    assert _copy_threads() == before
    gpu = memory.allocator(GPU)
    assert gpu.swapped_out_bytes == 8 * value.nbytes and memory.host.bytes_in_use == 8 * value.nbytes
    pushed[-2].prefetch()
    assert gpu.bytes_in_use == value.nbytes  # the prefetched value is back on the device at once
    for k in reversed(range(8)):
        np.testing.assert_array_equal(backends.to_host(pushed.pop().swap_in()), value + k)
    assert memory.copier._issued == 0 and memory.host.bytes_in_use == 0


def test_a_large_value_goes_through_the_copy_stream():
    memory = DeviceMemory(["/job:localhost/replica:0/task:0/device:CPU:0", GPU])
    value = np.arange(swap.SYNC_COPY_BYTES // 4 + 1, dtype=np.float32)
    pushed = memory.swap_out(GPU, "stack", value)
    assert not pushed.synchronous and memory.copier._issued == 1
    pushed.prefetch()
    np.testing.assert_array_equal(backends.to_host(pushed.swap_in()), value)
    assert memory.copier._issued == 2 and memory.allocator(GPU).swapped_out_bytes == value.nbytes
    memory.close()


def test_host_buffers_are_reused_and_never_handed_out():
    memory = DeviceMemory(["/job:localhost/replica:0/task:0/device:CPU:0", GPU])
    value = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    first = memory.swap_out(GPU, "stack", value)
    buffer = first._host
    as_array = np.asarray(first)  # a conversion gets a copy, so the pool may reuse the buffer once the value goes
    assert not np.shares_memory(as_array, buffer)
    del first
    assert memory.host.bytes_in_use == 0
    second = memory.swap_out(GPU, "stack", value + 1)
    assert second._host is buffer  # the pool's buffer, not fresh pages
    np.testing.assert_array_equal(as_array, value)
    np.testing.assert_array_equal(backends.to_host(second.swap_in()), value + 1)
    assert memory.host.bytes_in_use == value.nbytes


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_repeated_runs_reuse_the_pool_and_keep_the_values(v2):
    plain, _ = run(STEPS, False, v2, tf.ConfigProto())
    g, x, fetches = rnn(STEPS, True, v2)
    config = limited(100)
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    feed = np.random.RandomState(1).randn(*SHAPE).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimulatedDeviceWarning)
        with tf.Session(graph=g, config=config) as sess:
            pools = []
            for _ in range(2):
                for a, b in zip(plain, sess.run(fetches, {x: feed})):
                    same_across_devices(a, b)
                pools.append(sum(len(free) for free in sess._memory.host_pool._free.values()))
    assert pools[0] >= 2 * STEPS and pools[0] == pools[1]  # the second run took no fresh buffer
