"""Chapter 09, memory: how many bytes the history stacks hold, and how long a loop fits under a GPU's limit."""
import warnings

import numpy as np

import cfnb as tf

from . import as_int, exercise, right, traced_run, wrong

N = 64                   # elements of v: a float32 [64] is 256 bytes, exactly one BFC allocation unit
LIMIT_BYTES = 6000       # the simulated GPU's memory limit of exercise 09.longest_fit


def history_loop(T, limit_bytes=None, swap_memory=False):
    """v = x; repeat T times: v = tanh(v * w); and d sum(v)/d[x, w]. Returns (graph, fetches, config or None).

    `limit_bytes` puts the run on a simulated GPU with that memory limit (TensorFlow's virtual-device option);
    without it the run is on the CPU.
    """
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.ones(N, np.float32), name="x")
        w = tf.constant(np.full(N, 0.5, np.float32), name="w")
        _, v = tf.while_loop(lambda i, v: i < T, lambda i, v: (i + 1, tf.tanh(v * w)), [0, x],
                             swap_memory=swap_memory)
        fetches = tf.gradients(tf.reduce_sum(v), [x, w])
    config = None
    if limit_bytes is not None:
        vd = tf.GPUOptions.Experimental.VirtualDevices(memory_limit_mb=[limit_bytes / (1 << 20)])
        # the optimizer's passes on (the default): on a device with a memory limit the ones that would raise the
        # peak (chapter 11's fission and batching) decline, so the history stacks are the ones the chapter counts
        config = tf.ConfigProto(gpu_options=tf.GPUOptions(experimental=tf.GPUOptions.Experimental(
            virtual_devices=[vd])))
    return g, fetches, config


def fits(T, limit_bytes=LIMIT_BYTES):
    """Whether `history_loop(T)` runs on a GPU with `limit_bytes` of memory without ResourceExhaustedError."""
    g, fetches, config = history_loop(T, limit_bytes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the "simulated GPU" notice
        with tf.Session(graph=g, config=config) as sess:
            try:
                sess.run(fetches)
            except tf.errors.ResourceExhaustedError:
                return False
    return True


@exercise("09.history_bytes", f"For `v = x; repeat 5 times: v = tanh(v * w)` with v a float32 vector of {N} "
                              "elements, how many bytes do the history stacks of tf.gradients(sum(v), [x, w]) "
                              "hold at the peak?")
def history_bytes(answer):
    g, fetches, _ = history_loop(5)
    with g.as_default():
        _, _, memory = traced_run(fetches, graph=g)
    stacks = sorted(op.name for op in g.get_operations() if op.type == "StackV2")
    got = as_int(answer)
    if got == memory.peak_bytes:
        return right(f"{memory.peak_bytes} bytes: {len(stacks)} stacks ({', '.join(stacks)}), each holding 5 "
                     f"values of {N * 4} bytes when the forward loop ends. TanhGrad needs tanh's output, the "
                     "gradient of v * w with respect to w needs v; both change every iteration. w is a loop "
                     "invariant and is not stacked. T steps hold T times as much.")
    if got == memory.peak_bytes // len(stacks):
        return wrong("that is one stack. Which values do the two gradients need? TanhGrad needs tanh's output, "
                     "and the gradient of v * w with respect to w needs v.")
    return wrong(f"each push holds one float32 vector of {N} elements ({N * 4} bytes), and nothing is popped "
                 "before the forward loop ends. How many values does each iteration push (one per value the "
                 "gradient needs that changes every iteration), and how many iterations are there?")


@exercise("09.longest_fit", f"On a simulated GPU with a memory limit of {LIMIT_BYTES} bytes, which T is the longest "
                            "for which `history_loop(T)` (v = tanh(v * w), T steps, with gradients) runs without "
                            "swap_memory?")
def longest_fit(answer):
    longest = 0
    while longest < 64 and fits(longest + 1):
        longest += 1
    got = as_int(answer)
    if got == longest:
        return right(f"{longest}: at T = {longest + 1} an allocation fails with ResourceExhaustedError. Besides "
                     "the history, the GPU holds the constants, the values in flight and the gradients, and the "
                     "BFC allocator rounds every buffer up to 256 bytes. With swap_memory=True the pushed values "
                     "go to host memory and much longer loops fit.")
    if got > longest:
        return wrong(f"T = {got} does not fit: the run raises ResourceExhaustedError. Try `fits(T)` from "
                     "magics.exercises.ch09_memory for shorter loops.")
    return wrong(f"T = {got + 1} still runs under the limit. Every step adds history, but the limit is more "
                 "than the history of a few steps: try `fits(T)` for longer loops.")
