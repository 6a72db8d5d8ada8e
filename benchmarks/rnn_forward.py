"""An RNN forward pass, h_t = tanh(x_t @ W_x + h_{t-1} @ W_h), as a v1 while_loop over TensorArrays.

T=100 steps, batch 32, input and hidden size 256, float32. x is fed through a placeholder and
unstacked into a TensorArray read inside the loop; the outputs are the final h and the stack of all
h's. Compares cfnb with the same RNN hand-written in numpy and with TensorFlow (control flow v1) when
importable. Target: cfnb within 1.1x of the hand-written numpy.
"""

import numpy as np
from _timing import (
    allclose,
    best_of,
    check,
    main_or_tensorflow,
    print_table,
    report_tf,
    session_runner,
    tf_v1,
    timed_rows,
)

import cfnb

T, BATCH, HIDDEN, INPUT = 100, 32, 256, 256
TARGET_VS_NUMPY = 1.1


def data():
    rs = np.random.RandomState(0)
    w_x = (rs.randn(INPUT, HIDDEN) * 0.05).astype(np.float32)
    w_h = (rs.randn(HIDDEN, HIDDEN) * 0.05).astype(np.float32)
    x = rs.randn(T, BATCH, INPUT).astype(np.float32)
    return x, w_x, w_h


def build(tf, w_x, w_h):
    """The benchmarked program, for cfnb or tf.compat.v1: returns (graph, x placeholder, fetches)."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [T, BATCH, INPUT], name="x")
        w_x, w_h = tf.constant(w_x), tf.constant(w_h)
        xs = tf.TensorArray(tf.float32, size=T).unstack(x)

        def body(t, h, hs):
            h = tf.tanh(tf.matmul(xs.read(t), w_x) + tf.matmul(h, w_h))
            return t + 1, h, hs.write(t, h)

        init = [tf.constant(0), tf.zeros([BATCH, HIDDEN], tf.float32), tf.TensorArray(tf.float32, size=T)]
        _, h, hs = tf.while_loop(lambda t, h, hs: t < T, body, init)
        fetches = h, hs.stack()
    return graph, x, fetches


def numpy_rnn(x, w_x, w_h):
    h = np.zeros((BATCH, HIDDEN), np.float32)
    hs = []
    for t in range(T):
        h = np.tanh(x[t] @ w_x + h @ w_h)
        hs.append(h)
    return h, np.stack(hs)


def main():
    x, w_x, w_h = data()
    ok = True
    for form in ("v1", "v2"):
        (cfnb.enable_control_flow_v2 if form == "v2" else cfnb.disable_control_flow_v2)()
        runs = {"cfnb": session_runner(cfnb.compat.v1, build(cfnb.compat.v1, w_x, w_h), x)}
        if form == "v2":
            runs["cfnb strict"] = session_runner(cfnb.compat.v1, build(cfnb.compat.v1, w_x, w_h), x,
                                                 config=cfnb.ConfigProto(lower_functional_ops=False))
        checks = [(name, agrees(run(), x, w_x, w_h)) for name, run in runs.items()]
        runs["numpy"] = lambda: numpy_rnn(x, w_x, w_h)
        rows, skipped = timed_rows(runs, checks, __file__, repeat=20, form=form)
        kind = "control flow v1" if form == "v1" else "functional While (cfnb: lowered; strict also shown)"
        title = f"RNN forward, T={T} batch={BATCH} hidden={HIDDEN} input={INPUT}, {kind}"
        print_table(title, "ms/forward", rows, targets={"numpy": TARGET_VS_NUMPY}, tf_skipped=skipped)
        ok &= check("(final h, all h's) == numpy's (max error <= 1e-4 x max |h|)", checks, lambda ok: ok)
    cfnb.disable_control_flow_v2()
    return ok


def agrees(out, x, w_x, w_h):
    return all(allclose(a, b) for a, b in zip(out, numpy_rnn(x, w_x, w_h)))


def tensorflow_only(repeat, form="v1"):
    x, w_x, w_h = data()
    run = session_runner(tf_v1(form), build(tf_v1(form), w_x, w_h), x)
    report_tf(best_of(run, repeat=repeat), agrees(run(), x, w_x, w_h))


if __name__ == "__main__":
    main_or_tensorflow(main, tensorflow_only)
