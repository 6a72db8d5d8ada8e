"""RNN forward + backward: gradients of sum(final h) w.r.t. both weight matrices, through a v1 loop.

T=100, batch 32, input and hidden 256, float32; the same program as rnn_forward.py plus
`tf.gradients(tf.reduce_sum(h), [w_x, w_h])`. The gradient is a second while loop fed by history
stacks. Compared with back-propagation through time written by hand in numpy (the floor for a numpy
runtime), and with TensorFlow in a child process when available. Also reports the bytes the history
stacks hold at their peak, against T x batch x hidden x 4 (one float32 [batch, hidden] per step).
Target: within 1.1x of the hand-written numpy BPTT.
"""

import numpy as np
from _timing import (
    best_of,
    best_of_each,
    check,
    main_or_tensorflow,
    print_table,
    report_tf,
    session_runner,
    tf_row,
    tf_v1,
)
from rnn_forward import BATCH, HIDDEN, INPUT, T, data

import cfnb

TARGET_VS_NUMPY = 1.1


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


def main():
    x, w_x, w_h = data()
    ms = lambda seconds: seconds * 1e3
    runs = {"cfnb": session_runner(cfnb.compat.v1, build(cfnb.compat.v1, w_x, w_h), x),
            "numpy": lambda: numpy_bptt(x, w_x, w_h)}
    checks = [("cfnb", agrees(runs["cfnb"](), x, w_x, w_h))]
    rows = [(name, ms(seconds)) for name, seconds in best_of_each(runs, repeat=10).items()]
    tf = tf_row(__file__, repeat=10)
    if tf is not None:
        rows.append(("tensorflow", ms(tf[0])))
        checks.append(("tensorflow", tf[1]))
    title = f"RNN forward + backward (dW_x, dW_h), T={T} batch={BATCH} hidden={HIDDEN} input={INPUT}"
    print_table(title, "ms/step", rows, targets={"numpy": TARGET_VS_NUMPY}, tf_skipped=tf is None)
    peak = stack_peak_bytes(x, w_x, w_h)
    floor = T * BATCH * HIDDEN * 4
    print(f"  history stacks at peak: {peak} bytes = {peak / floor:.2f} x (T x batch x hidden x 4 = {floor})")
    return check("(dW_x, dW_h) == numpy BPTT (max error <= 1e-4 x max |dW|)", checks, lambda ok: ok)


def tensorflow_only(repeat, form="v1"):
    x, w_x, w_h = data()
    run = session_runner(tf_v1(form), build(tf_v1(form), w_x, w_h), x)
    report_tf(best_of(run, repeat=repeat), agrees(run(), x, w_x, w_h))


if __name__ == "__main__":
    main_or_tensorflow(main, tensorflow_only)
