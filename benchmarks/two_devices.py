"""Two simulated CPU devices: how much their work overlaps, and what the control loop costs per iteration.

1. Overlap. A while_loop carries two independent chains, `a = tanh(a @ W)` on CPU:0 and `b = tanh(b @ W)` on
   CPU:1 (256x256 float32, 40 iterations). The loop itself (its Merge, Switch, Identity and NextIteration for every
   loop variable, and the predicate) is on CPU:0, where the `while_loop` call's device scope puts it, as in
   TensorFlow: so `b` crosses to CPU:1 and back every iteration (partition graphs: `_Send` of while/Identity_2 and
   `_Recv` of while/Tanh_1 on CPU:0), and b's chain is a serial round trip, while CPU:0 may run `a` ahead
   (parallel_iterations=10). numpy's matmul releases the GIL, so the two device threads really compute at once.
   Printed: ms per run on one device; on two devices with every kernel on its device's thread (the default) and
   with an inter-op pool of two workers per device (`inter_op_parallelism_threads=2`, runtime/inter_op.py: CPU:0
   can forward b's value while a's matmul runs); and the floor, the same two-device loop with `a` left untouched
   (only b's round trip), which no scheduling on CPU:0 can beat. Then the overlap fraction of a traced run of each
   (the share of the run during which both devices were inside a firing, from `cfnb.viz.Timeline`).
2. Predicate broadcast. The scalar loop `(i + 1, s + 1.5) while i < n` (n = 5,000) with everything on CPU:0,
   then with the whole `s` chain (its Merge, Switch, body and NextIteration) on CPU:1: the only tensor
   crossing devices each iteration is the LoopCond, which CPU:0 sends to CPU:1's control loop. Then with
   only the body's add on CPU:1, which also sends the loop variable there and back. Printed: µs per
   iteration and the difference to one device, the cost per iteration of the broadcast (and transfers).
"""
import os
import time

# One BLAS thread per matrix product, so that the parallelism measured is the devices' (set before numpy loads;
# under run_all.py numpy is already loaded and the environment decides).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from _timing import best_of_each, check, print_table

import cfnb as tf  # noqa: E402
from cfnb.viz import Timeline  # noqa: E402

A, B = "/cpu:0", "/cpu:1"
# ConfigProto.inter_op_parallelism_threads: 0 (the default) runs every kernel on its device's executor thread, 2 gives
# each device a pool of two workers for its expensive kernels (runtime/inter_op.py).
POOLS = {"two devices, kernels inline": 0, "two devices, inter-op pool of 2": 2}
N_SCALAR, N_MATMUL, SIZE = 5_000, 40, 256


def overlap_program(two_devices, with_a=True):
    """with_a=False leaves `a` untouched: only b's round trip remains, the floor of the two-device time."""
    graph = tf.Graph()
    with graph.as_default():
        w = tf.constant(np.random.RandomState(0).standard_normal((SIZE, SIZE)).astype(np.float32) / SIZE ** 0.5)
        x = tf.placeholder(tf.float32, [SIZE, SIZE], name="x")

        def body(i, a, b):
            with tf.device(A):
                a1 = tf.tanh(tf.matmul(a, w)) if with_a else a
            with tf.device(B if two_devices else A):
                b1 = tf.tanh(tf.matmul(b, w))
            return i + 1, a1, b1

        with tf.device(A):
            _, a, b = tf.while_loop(lambda i, a, b: i < N_MATMUL, body, [0, x, x + 1.0])
            out = (a * 1.0, b * 1.0)
    return graph, x, out


def scalar_program(where):
    """where: "one" (all on CPU:0), "predicate" (the s chain on CPU:1), "body" (only s + 1.5 on CPU:1)."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(A):
        n = tf.placeholder(tf.int32, [], name="n")
        out = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, tf.add(s, 1.5, name="add_s")), [0, 0.0])
    moved = {"one": (), "predicate": ("while/Merge_1", "while/Identity_1", "while/add_s", "while/add_s/y"),
             "body": ("while/add_s", "while/add_s/y")}[where]
    for name in moved:
        # Loop internals have no device scope of their own; a benchmark may set the placement directly.
        graph.get_operation_by_name(name)._device = B
    return graph, n, out


def runner(built, feed, two_devices, trace=False, static=True, inter_op=0):
    graph, placeholder, fetches = built
    sess = tf.Session(graph=graph, config=tf.ConfigProto(device_count={"CPU": 2 if two_devices else 1},
                                                         static_schedule=static,
                                                         inter_op_parallelism_threads=inter_op))
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE) if trace else None
    meta = tf.RunMetadata()
    run = lambda: sess.run(fetches, {placeholder: feed}, options=options, run_metadata=meta)
    run()
    return run, meta


def main():
    ok = True
    x = np.random.RandomState(1).standard_normal((SIZE, SIZE)).astype(np.float32)
    one, _ = runner(overlap_program(False), x, False)
    runs = {"one device": one}
    for label, threads in POOLS.items():
        runs[label] = runner(overlap_program(True), x, True, inter_op=threads)[0]
    runs["floor: b's chain alone"] = runner(overlap_program(True, with_a=False), x, True)[0]
    want = one()
    ok &= check("values equal on one and two devices", [(k, f()) for k, f in runs.items() if k in POOLS],
                lambda got: all(np.allclose(g, w, rtol=1e-5) for g, w in zip(got, want)))
    times = best_of_each(runs, repeat=7)
    print(f"\ntwo matmul chains in one while_loop ({N_MATMUL} iterations, {SIZE}x{SIZE})\n  {'':34}{'ms/run':>10}")
    for label, t in times.items():
        ratio = "" if label == "one device" else f"   /one device = {t / times['one device']:.2f}x"
        print(f"  {label:34}{t * 1e3:10.3f}{ratio}")
    for label, threads in POOLS.items():
        traced, meta = runner(overlap_program(True), x, True, trace=True, inter_op=threads)
        traced()
        timeline = Timeline(meta.trace)
        print(f"  overlap fraction (traced run, {label}): {timeline.overlap():.2f} of "
              f"{timeline.duration * 1e3:.1f} ms with both devices inside a firing")

    rows, results, cpu = [], [], {}
    for where, label in (("one", "one device"), ("predicate", "predicate broadcast only"),
                         ("body", "body op on CPU:1 (+ 2 transfers)")):
        # The baseline runs the tagged-token executor too (static_schedule=False): partitions always do.
        run, _ = runner(scalar_program(where), N_SCALAR, where != "one", static=False)
        results.append((label, run()))
        rows.append((label, run))
        start = time.process_time()
        run()
        cpu[label] = (time.process_time() - start) / N_SCALAR * 1e6
    times = best_of_each(dict(rows), repeat=5)
    per_iter = {k: v / N_SCALAR * 1e6 for k, v in times.items()}
    print_table(f"scalar while_loop, {N_SCALAR} iterations, tagged-token executor", "µs/iter", list(per_iter.items()),
                subject="one device")
    for label, value in per_iter.items():
        if label != "one device":
            print(f"  {label}: +{value - per_iter['one device']:.1f} µs per iteration of wall time, "
                  f"+{cpu[label] - cpu['one device']:.1f} µs of CPU time (all threads), over one device")
    ok &= check(f"(i, s) == ({N_SCALAR}, {N_SCALAR * 1.5})", results,
                lambda got: got[0] == N_SCALAR and got[1] == N_SCALAR * 1.5)
    return ok


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
