"""RNN forward + backward: gradients of sum(final h) w.r.t. both weight matrices, in control flow v1 and v2.

T=100, batch 32, input and hidden 256, float32; the same program as rnn_forward.py plus
`tf.gradients(tf.reduce_sum(h), [w_x, w_h])`. The gradient is a second while loop fed by history
stacks (v1) or TensorList accumulators (v2). Compared with back-propagation through time written by hand in
numpy (per step, as the loop is written: the floor for a numpy runtime that runs the graph as built), and with
TensorFlow in a child process when available. cfnb runs with its graph optimizations on (the default,
cfnb/passes/meta_optimizer.py), and each of them alone and none, in the same round-robin, so each pass's effect
is a ratio measured in the same run. Also reports the bytes the history stacks hold at their peak, against
T x batch x hidden x 4 (one float32 [batch, hidden] per step). "numpy, as optimized" is the optimized graph written
by hand in numpy (one input product, one product per weight gradient): the floor the passes can reach.
Targets: cfnb (passes on) at most 1.0x TensorFlow's time and below the hand-written numpy BPTT, in both forms.
"""

import numpy as np
from _timing import (
    best_of,
    check,
    main_or_tensorflow,
    print_table,
    report_tf,
    session_runner,
    tf_v1,
    timed_rows,
)
from rnn_forward import BATCH, HIDDEN, INPUT, T, data

import cfnb

TARGET_VS_TF = 1.0
TARGET_VS_NUMPY = 1.0
RC = cfnb.RewriterConfig
# The passes that fire on this program (cfnb/passes/): none, each alone, all (the default)
VARIANTS = {"cfnb": RC(), "cfnb, no pass": RC(disable_meta_optimizer=True),
            "cfnb, fission only": RC(accumulation_batching=RC.OFF, loop_optimization=RC.OFF),
            "cfnb, batching only": RC(loop_fission=RC.OFF, loop_optimization=RC.OFF)}


def build(tf, w_x, w_h):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [T, BATCH, INPUT], name="x")
        w_x, w_h = tf.constant(w_x), tf.constant(w_h)
        xs = tf.TensorArray(tf.float32, size=T).unstack(x)

        def body(t, h):
            return t + 1, tf.tanh(tf.matmul(xs.read(t), w_x) + tf.matmul(h, w_h))

        _, h = tf.while_loop(lambda t, h: t < T, body, [tf.constant(0), tf.zeros([BATCH, HIDDEN], tf.float32)])
        grads = tf.gradients(tf.reduce_sum(h), [w_x, w_h])
    return graph, x, grads


def numpy_bptt(x, w_x, w_h):
    h = np.zeros((BATCH, HIDDEN), np.float32)
    hs = [h]
    for t in range(T):
        h = np.tanh(x[t] @ w_x + h @ w_h)
        hs.append(h)
    dh = np.ones_like(h)
    dw_x, dw_h = np.zeros_like(w_x), np.zeros_like(w_h)
    for t in reversed(range(T)):
        da = dh * (1 - hs[t + 1] * hs[t + 1])
        dw_x += x[t].T @ da
        dw_h += hs[t].T @ da
        dh = da @ w_h.T
    return dw_x, dw_h


def numpy_as_optimized(x, w_x, w_h):
    """The graph the passes make, written by hand in numpy: the input projection of all steps as one product before
    the loop (fission), the weight gradients as one product each after it (batching). The floor the passes reach."""
    rows = x.reshape(-1, x.shape[-1])
    projected = (rows @ w_x).reshape(T, BATCH, HIDDEN)
    h = np.zeros((BATCH, HIDDEN), np.float32)
    hs = [h]
    for t in range(T):
        h = np.tanh(projected[t] + h @ w_h)
        hs.append(h)
    dh = np.ones_like(h)
    das = [None] * T
    for t in reversed(range(T)):
        das[t] = dh * (1 - hs[t + 1] * hs[t + 1])
        dh = das[t] @ w_h.T
    da = np.stack(das).reshape(-1, HIDDEN)
    return rows.T @ da, np.stack(hs[:-1]).reshape(-1, HIDDEN).T @ da


def stack_peak_bytes(x, w_x, w_h):
    graph, x_ph, fetches = build(cfnb, w_x, w_h)
    sess = cfnb.Session(graph=graph)
    meta = cfnb.RunMetadata()
    sess.run(fetches, {x_ph: x}, options=cfnb.RunOptions(trace_level=cfnb.RunOptions.FULL_TRACE), run_metadata=meta)
    return meta.memory.peak_bytes


def agrees(out, x, w_x, w_h):
    """Within 1e-4 of the largest entry: sums over 100 steps x 32 rows differ in float32 rounding
    between BLAS libraries (TensorFlow's oneDNN vs numpy's OpenBLAS)."""
    return all(np.shape(a) == np.shape(b) and np.max(np.abs(a - b)) <= 1e-4 * np.max(np.abs(b))
               for a, b in zip(out, numpy_bptt(x, w_x, w_h)))


def runners(form, x, w_x, w_h):
    """{row name: run()} for cfnb's variants in control flow `form`."""
    (cfnb.enable_control_flow_v2 if form == "v2" else cfnb.disable_control_flow_v2)()
    try:
        config = lambda rewrite: cfnb.ConfigProto(graph_options=cfnb.GraphOptions(rewrite_options=rewrite))
        return {name: session_runner(cfnb.compat.v1, build(cfnb.compat.v1, w_x, w_h), x, config=config(rewrite))
                for name, rewrite in VARIANTS.items()}
    finally:
        cfnb.disable_control_flow_v2()


def main():
    x, w_x, w_h = data()
    ok = True
    for form in ("v1", "v2"):
        runs = runners(form, x, w_x, w_h)
        checks = [(name, agrees(run(), x, w_x, w_h)) for name, run in runs.items()]
        runs["numpy"] = lambda: numpy_bptt(x, w_x, w_h)
        runs["numpy, as optimized"] = lambda: numpy_as_optimized(x, w_x, w_h)
        checks.append(("numpy, as optimized", agrees(numpy_as_optimized(x, w_x, w_h), x, w_x, w_h)))
        rows, skipped = timed_rows(runs, checks, __file__, repeat=10, form=form)
        kind = "control flow v1" if form == "v1" else "functional While, lowered"
        title = f"RNN forward + backward (dW_x, dW_h), T={T} batch={BATCH} hidden={HIDDEN} input={INPUT}, {kind}"
        print_table(title, "ms/run", rows, targets={"numpy": TARGET_VS_NUMPY, "tensorflow": TARGET_VS_TF},
                    tf_skipped=skipped)
        ok &= check("(dW_x, dW_h) == numpy BPTT (max error <= 1e-4 x max |dW|)", checks, lambda ok: ok)
    peak = stack_peak_bytes(x, w_x, w_h)
    floor = T * BATCH * HIDDEN * 4
    print(f"  history stacks at peak (v1, traced: the graph as built): {peak} bytes = {peak / floor:.2f} x "
          f"(T x batch x hidden x 4 = {floor})")
    return ok


def tensorflow_only(repeat, form="v1"):
    x, w_x, w_h = data()
    run = session_runner(tf_v1(form), build(tf_v1(form), w_x, w_h), x)
    report_tf(best_of(run, repeat=repeat), agrees(run(), x, w_x, w_h))


if __name__ == "__main__":
    main_or_tensorflow(main, tensorflow_only)
