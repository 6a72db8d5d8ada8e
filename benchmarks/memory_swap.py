"""swap_memory on a memory-limited GPU device: the seed's experiment (an RNN that fits twice the length with
swapping), on a simulated GPU when the machine has none.

An RNN h_t = tanh(x_t W_x + h_{t-1} W_h), batch 32, input and hidden 256, float32, with tf.gradients of
sum(h_T) w.r.t. both weights, under control flow v1 (history stacks) and v2 (TensorList accumulators).
1. Peak device bytes with and without swap_memory, per length T, 2T, 4T (unlimited device): without
   swapping the peak grows with the length, with it only the fed input x ([length, batch, input], which lives
   on the device) grows, and the host holds the history.
2. A device limited to what the T-step run needs (its peak + 10 %): T fits, 2T fails with
   ResourceExhaustedError, 2T with swap_memory=True fits.
3. Overhead at a length of 1000 steps: with swapping on a device limited to what 500 steps need without it
   (+10 %), against no swapping on an unlimited device, round-robin in the same process (target <= 1.25x). Each
   swapped value (32 KB) is copied to a pooled host buffer and back by the kernel that pushes or pops it
   (runtime/swap.py: a copy that small costs less than handing the interpreter to the copy stream's thread, which
   takes only values over SYNC_COPY_BYTES); the line after the table says where the copies ran. A Session with a
   GPU runs partitioned (the feed crosses from the CPU), so cfnb's graph optimizations, which skip partitioned runs,
   leave both runs as built.
"""
import os
import warnings

# One BLAS thread, so that the executor threads (and a copy stream, if one runs) are what is measured (set before numpy
# loads; under run_all.py numpy is already loaded and the environment decides).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from _timing import best_of_each, check, print_table  # noqa: E402

import cfnb as tf  # noqa: E402
from cfnb.runtime.device_memory import SimulatedDeviceWarning  # noqa: E402

T, BATCH, INPUT, HIDDEN = 60, 32, 256, 256
LONG = 1000
TARGET_OVERHEAD = 1.25
VD = tf.GPUOptions.Experimental.VirtualDevices


def input_bytes(n):
    return n * BATCH * INPUT * 4


def config(limit_mb=None):
    """A GPU Session with the graph optimizations off. They leave a swapping graph, and any graph on a device with a
    memory limit, in its per-step form, but would fuse the steps of the unswapped one on the unlimited device (loop
    fission, accumulation batching), changing its rounding and its peak: the reference runs the same graph."""
    rewrite = tf.GraphOptions(rewrite_options=tf.RewriterConfig(disable_meta_optimizer=True))
    if limit_mb is None:
        return tf.ConfigProto(device_count={"GPU": 1}, graph_options=rewrite)
    return tf.ConfigProto(graph_options=rewrite, gpu_options=tf.GPUOptions(
        experimental=tf.GPUOptions.Experimental(virtual_devices=[VD(memory_limit_mb=[limit_mb])])))


def build(n, swap, v2):
    rng = np.random.RandomState(0)
    was = tf.control_flow_v2_enabled()
    (tf.enable_control_flow_v2 if v2 else tf.disable_control_flow_v2)()
    graph = tf.Graph()
    try:
        with graph.as_default():
            x = tf.placeholder(tf.float32, [n, BATCH, INPUT], name="x")
            w_x = tf.constant((rng.standard_normal((INPUT, HIDDEN)) / INPUT ** 0.5).astype(np.float32))
            w_h = tf.constant((rng.standard_normal((HIDDEN, HIDDEN)) / HIDDEN ** 0.5).astype(np.float32))

            def body(t, h):
                return t + 1, tf.tanh(tf.matmul(tf.gather(x, t), w_x) + tf.matmul(h, w_h))

            _, h = tf.while_loop(lambda t, h: t < n, body, [tf.constant(0), tf.zeros([BATCH, HIDDEN])],
                                 swap_memory=swap)
            fetches = [tf.reduce_sum(h)] + tf.gradients(tf.reduce_sum(h), [w_x, w_h])
    finally:
        (tf.enable_control_flow_v2 if was else tf.disable_control_flow_v2)()
    return graph, x, fetches


def runner(n, swap, v2, cfg):
    """(run() -> values, last RunMetadata) for one program on one Session."""
    graph, x, fetches = build(n, swap, v2)
    feed = {x: np.random.RandomState(1).standard_normal((n, BATCH, INPUT)).astype(np.float32)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimulatedDeviceWarning)
        sess = tf.Session(graph=graph, config=cfg)
    meta = tf.RunMetadata()

    def run():
        return sess.run(fetches, feed, run_metadata=meta)
    run.session = sess
    return run, meta


def peak(n, swap, v2, cfg):
    run, meta = runner(n, swap, v2, cfg)
    values = run()
    return values, meta.memory_timeline["GPU:0"]


def main():
    ok = True
    for v2 in (False, True):
        form = "v2 (TensorList accumulators)" if v2 else "v1 (history stacks)"
        print(f"\nRNN with gradients, control flow {form}: batch {BATCH}, hidden {HIDDEN}, float32")
        print(f"  {'length':>8} {'peak GPU, no swap':>20} {'peak GPU, swap':>16} {'of it the input x':>18} "
              f"{'host (swapped)':>16}")
        peaks = {}
        for n in (T, 2 * T, 4 * T):
            plain, rec = peak(n, False, v2, config())
            swapped, rec_s = peak(n, True, v2, config())
            peaks[n] = (rec.peak_bytes, rec_s.peak_bytes)
            print(f"  {n:>8} {rec.peak_bytes / 2**20:>16.2f} MiB {rec_s.peak_bytes / 2**20:>12.2f} MiB "
                  f"{input_bytes(n) / 2**20:>14.2f} MiB {rec_s.swapped_out_bytes / 2**20:>12.2f} MiB")
            ok &= check(f"T={n} swapped values and gradients equal unswapped", [(form, (plain, swapped))],
                        lambda pair: all(np.array_equal(a, b) for a, b in zip(*pair)))
        ok &= check("peak with swapping, less the input, flat (4T within 1.1x of T)", [(form, peaks)],
                    lambda p: p[4 * T][1] - input_bytes(4 * T) <= 1.1 * (p[T][1] - input_bytes(T))
                    and p[4 * T][0] > 2 * p[T][0])

        limit_mb = peaks[T][0] * 1.1 / 2**20
        fits = _fits(T, False, v2, limit_mb)
        fails = _fits(2 * T, False, v2, limit_mb)
        swaps = _fits(2 * T, True, v2, limit_mb)
        print(f"  device limited to {limit_mb:.2f} MiB: T={T} without swap: {fits}; T={2 * T} without swap: "
              f"{fails}; T={2 * T} with swap_memory: {swaps}")
        ok &= check("T fits, 2T fails, 2T fits with swapping", [(form, (fits, fails, swaps))],
                    lambda r: r[0] == "fits" and r[1].startswith("ResourceExhaustedError") and r[2] == "fits")

        ok &= overhead(v2, form)
    return ok


def overhead(v2, form):
    """Time LONG steps with swapping on a device limited to LONG / 2 steps' peak, against no swapping unlimited."""
    _, record = peak(LONG // 2, False, v2, config())
    limit_mb = record.peak_bytes * 1.1 / 2**20
    unlimited, _ = runner(LONG, False, v2, config())
    limited_swap, meta = runner(LONG, True, v2, config(limit_mb))
    times = best_of_each({"swap, limited device": limited_swap, "no swap, unlimited device": unlimited}, repeat=3)
    print_table(f"time of T={LONG} with gradients ({form}), device limited to {limit_mb:.1f} MiB (T={LONG // 2} "
                f"fits)", "ms/run", [(k, v * 1e3) for k, v in times.items()], subject="swap, limited device",
                targets={"no swap, unlimited device": TARGET_OVERHEAD})
    gpu, stream = meta.memory_timeline["GPU:0"], limited_swap.session._memory.copier
    print(f"  a swapped run: {gpu.count('swap_out')} copies to the host and {gpu.count('prefetch')} + "
          f"{gpu.count('swap_in')} back (prefetched + on demand); of all its runs' copies, {stream._issued} went "
          f"to the copy stream, the rest were made in the executor's thread")
    ratio = times["swap, limited device"] / times["no swap, unlimited device"]
    return check(f"swap overhead <= {TARGET_OVERHEAD}x", [(form, ratio)], lambda r: r <= TARGET_OVERHEAD)


def _fits(n, swap, v2, limit_mb):
    try:
        peak(n, swap, v2, config(limit_mb))
        return "fits"
    except tf.errors.ResourceExhaustedError as e:
        return f"ResourceExhaustedError at {e.op.name if e.op is not None else '?'}"


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
