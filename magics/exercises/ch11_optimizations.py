"""Chapter 11, graph optimizations: what loop fission hoists, and how many matrix products the passes save."""
import numpy as np

import cfnb as tf
from cfnb.passes.meta_optimizer import optimize

from . import as_int, exercise, right, wrong

STEPS, BATCH, INPUTS, HIDDEN = 5, 2, 3, 4
RC = tf.RewriterConfig


def small_rnn(with_bias=False):
    """`h = tanh(x_t W_x [+ b] + h W_h)` for t < 5 over rows of a fed x, with tf.gradients for W_x and W_h:
    (graph, fetches [h, dW_x, dW_h], feed_dict)."""
    rng = np.random.RandomState(0)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [STEPS, BATCH, INPUTS], name="x")
        w_x = tf.constant(rng.standard_normal((INPUTS, HIDDEN)).astype(np.float32) * 0.5, name="W_x")
        w_h = tf.constant(rng.standard_normal((HIDDEN, HIDDEN)).astype(np.float32) * 0.5, name="W_h")
        b = tf.constant(np.full(HIDDEN, 0.1, np.float32), name="b")

        def body(t, h):
            projection = tf.matmul(tf.gather(x, t), w_x)
            if with_bias:
                projection = projection + b
            return t + 1, tf.tanh(projection + tf.matmul(h, w_h))

        _, h = tf.while_loop(lambda t, h: t < STEPS, body, [0, tf.zeros([BATCH, HIDDEN])])
        fetches = [h] + tf.gradients(tf.reduce_sum(h), [w_x, w_h])
    return g, fetches, {x: rng.standard_normal((STEPS, BATCH, INPUTS)).astype(np.float32)}


def matmul_firings(rewrite):
    """How many MatMul kernels one run of small_rnn fires (live) with RewriterConfig `rewrite`, traced."""
    g, fetches, feeds = small_rnn()
    config = tf.ConfigProto(graph_options=tf.GraphOptions(rewrite_options=rewrite))
    meta = tf.RunMetadata()
    tf.Session(graph=g, config=config).run(fetches, feeds, run_metadata=meta,
                                           options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
    return sum(1 for f in meta.trace.firings if f.live and f.op_type == "MatMul")


@exercise("11.hoisted", "In `h = tanh(x_t @ W_x + b + h @ W_h)`, with x_t = tf.gather(x, t), how many ops does loop "
                        "fission compute for all rows before the loop?")
def hoisted(answer):
    g, fetches, feeds = small_rnn(with_bias=True)
    done = optimize(g, fetches, list(feeds)).rewrites["loop_fission"]
    names = [name for _, moved in done for name in moved]
    if as_int(answer) == len(names):
        return right(f"{len(names)}: {', '.join(names)}. x_t @ W_x is row t of X @ W_x, and adding the invariant b "
                     "keeps it row-wise; the next add meets h @ W_h, which depends on the previous iteration.")
    if as_int(answer) < len(names):
        return wrong("the bias add reads only the row's product and b, which is the same in every iteration: it is "
                     "row-wise too.")
    return wrong("h @ W_h needs the previous iteration's h: it cannot be computed before the loop, and neither can "
                 "anything that reads it.")


@exercise("11.products", "One run of the 5-step RNN with the gradients dW_x and dW_h fires how many MatMul kernels "
                         "without the optimizer and with it? Answer (unoptimized, optimized).")
def products(answer):
    # RewriterConfig's ON (not DEFAULT) optimizes traced runs too
    want = (matmul_firings(RC(disable_meta_optimizer=True)),
            matmul_firings(RC(loop_fission=RC.ON, accumulation_batching=RC.ON)))
    try:
        got = tuple(as_int(a) for a in answer)
    except TypeError:
        return wrong("answer with a pair (unoptimized, optimized).")
    if got == want:
        return right(f"{want}: unoptimized, 2 products per forward step and 3 per gradient step (dh, dW_x, dW_h); "
                     "optimized, the input projection is one product before the loop, and dW_x and dW_h are one "
                     "product each after the gradient loop, so only the recurrent products stay per step.")
    if got[0] != want[0]:
        return wrong("count both loops: the forward step has x_t @ W_x and h @ W_h; the gradient step has dz @ W_h^T "
                     "(the gradient of h) and x_t^T dz and h^T dz (accumulated into dW_x and dW_h).")
    return wrong("fission leaves h @ W_h in each forward step and adds one product for all rows; batching leaves "
                 "dz @ W_h^T in each gradient step and adds one product for each weight.")
