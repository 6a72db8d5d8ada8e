"""Regression programs for issue 18, part 1: gradients that are never silently wrong.

Written once against the tf.compat.v1 graph API: record_grad2.py runs each with `tensorflow.compat.v1` and writes
grad2_tf.json, test_grad2.py runs it with `cfnb` in control flow v1 and v2 on every execution path (v1 static schedule
and executor; v2 lowered static schedule, lowered executor and strict functional calls). Values are float64 where a
second derivative is taken, so that a dropped term cannot hide in float32's noise. A fetch may be None: where
TensorFlow has no gradient, cfnb must have none either (zeros would be a wrong answer).

Grouped by the issue's bullets: second derivatives through the fused gradient kernels; second order through gather,
split and concat; None where nothing connects; v1 gradients of gather, of TensorArrays written zero times, and
TensorFlow's run-time refusals; a gradient taken under a device scope. The TensorArray, gather and device programs
are in grad2_programs_arrays.py.
"""
import numpy as np

from . import fuzz2_programs, grad2_programs_arrays, grad2_programs_slices  # noqa: F401 - register their programs
from .grad2_registry import grads, program, second

X2 = [0.5, -1.0]
X3 = [0.3, -0.7, 1.1]
W3 = [1.0, 2.0, -1.0]


def _x(tf, value=X3):
    return tf.placeholder(tf.float64, [len(value)], name="x"), value


# ---------------------------------------------------------------------------------------------------------------
# Second derivatives through the fused gradient kernels (TanhGrad, SigmoidGrad, SqrtGrad, RsqrtGrad, ...)


@program
def sigmoid_times_x_second_derivative(tf):
    """The issue's example: [0.441, 0.302] in TensorFlow, [0.235, 0.197] on cfnb when SigmoidGrad had no gradient."""
    x, value = _x(tf, X2)
    y = tf.reduce_sum(tf.sigmoid(x) * x)
    g, gg = second(tf, y, x)
    return {"y": y, "g": g, "gg": gg, "hessian": tf.hessians(y, x)[0]}, {x: value}


def _unary_second(tf, fn, value=X3):
    x, value = _x(tf, value)
    g, gg = second(tf, fn(tf, x) * (x + 2.0), x, weights=W3)
    return {"g": g, "gg": gg}, {x: value}


@program
def tanh_second_derivative(tf):
    return _unary_second(tf, lambda tf, x: tf.tanh(x))


@program
def sqrt_second_derivative(tf):
    return _unary_second(tf, lambda tf, x: tf.sqrt(x), [0.3, 0.7, 1.1])


@program
def rsqrt_second_derivative(tf):
    return _unary_second(tf, lambda tf, x: tf.rsqrt(x), [0.3, 0.7, 1.1])


@program
def reciprocal_second_derivative(tf):
    return _unary_second(tf, lambda tf, x: tf.reciprocal(x))


@program
def relu_and_softmax_second_derivative(tf):
    return _unary_second(tf, lambda tf, x: tf.nn.relu(x) * x + tf.nn.softmax(x * x))


@program
def third_derivative_of_tanh(tf):
    x, value = _x(tf)
    y = tf.reduce_sum(tf.tanh(x))
    (g,) = tf.gradients(y, x)
    (gg,) = tf.gradients(tf.reduce_sum(g * W3), x)
    (ggg,) = tf.gradients(tf.reduce_sum(gg * W3), x)
    return {"g": g, "gg": gg, "ggg": ggg}, {x: value}


@program
def second_derivative_in_a_cond(tf):
    x, value = _x(tf)
    y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.tanh(x) * tf.sigmoid(x), lambda: tf.sqrt(x * x + 1.0))
    g, gg = second(tf, y, x, weights=W3)
    return {"y": y, "g": g, "gg": gg}, {x: value}


@program(modes=("v2",))
def second_derivative_through_a_while_loop(tf):
    """A small RNN step, three times: tanh, sigmoid and sqrt inside a functional While."""
    x, value = _x(tf)
    w = tf.constant([[0.5, -0.3, 0.2], [0.1, 0.4, -0.6], [-0.2, 0.3, 0.7]], tf.float64)

    def body(i, h):
        z = tf.reshape(tf.matmul(w, tf.reshape(h, [3, 1])), [3]) + x
        return i + 1, tf.tanh(z) * tf.sigmoid(z) + tf.sqrt(z * z + 1.0)

    _, h = tf.while_loop(lambda i, h: i < 3, body, [0, x * 0.5])
    g, gg = second(tf, h, x, weights=W3)
    return {"h": h, "g": g, "gg": gg}, {x: value}


@program(modes=("v2",))
def second_derivative_through_nested_loops(tf):
    """An inner loop's accumulators are lists the outer loop accumulates in lists of lists: those carry gradients
    too (a list of variants is trainable), or d/dw of dy/dx loses every term that went through them."""
    x, value = _x(tf)
    w = tf.constant([0.5, -0.4, 0.2], tf.float64)

    def outer_body(i, v):
        _, u = tf.while_loop(lambda j, u: j < 2, lambda j, u: (j + 1, tf.sin(w) * u + tf.tanh(u * w)), [0, v])
        return i + 1, u + x

    _, h = tf.while_loop(lambda i, v: i < 2, outer_body, [0, x])
    g, gg = second(tf, h, x, weights=W3)
    (gw,) = grads(tf, g * W3, [w])
    return {"h": h, "g": g, "gg": gg, "gw": gw}, {x: value}


@program(match="Second-order gradient for while loops not supported")
def second_derivative_through_a_v1_loop_is_refused(tf):
    """Control flow v1 cannot differentiate its gradient loop: TensorFlow's TypeError (v2: the derivative)."""
    x, value = _x(tf)
    _, h = tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(h) * x), [0, x])
    g, gg = second(tf, h, x, weights=W3)
    return {"h": h, "g": g, "gg": gg}, {x: value}


# ---------------------------------------------------------------------------------------------------------------
# Second order through gather, split and concat


@program(modes=("v2",))
def gather_second_derivative_in_a_loop(tf):
    """LookupError (no gradient for UnsortedSegmentSum) on cfnb before; TensorFlow has one."""
    x = tf.placeholder(tf.float64, [3], name="x")

    def body(i, s):
        return i + 1, s + tf.reduce_sum(tf.gather(x * x * x, i))

    _, s = tf.while_loop(lambda i, s: i < 2, body, [0, tf.constant(0.0, tf.float64)])
    g, gg = second(tf, s, x, weights=W3)
    return {"s": s, "g": g, "gg": gg}, {x: [1.0, 2.0, 3.0]}


@program
def gather_second_derivative_along_an_axis(tf):
    x = tf.placeholder(tf.float64, [2, 3], name="x")
    y = tf.gather(x * x * tf.sin(x), [2, 0, 2], axis=1)
    (g,) = tf.gradients(tf.reduce_sum(y), x)
    (gg,) = tf.gradients(tf.reduce_sum(g * [[1.0, 2.0, -1.0], [0.5, 1.5, 3.0]]), x)
    return {"g": g, "gg": gg}, {x: [[0.3, -0.7, 1.1], [0.2, 0.9, -0.4]]}


@program
def concat_second_derivative(tf):
    """The concat's gradient is a SplitV, whose gradient cfnb lacked."""
    x, value = _x(tf)
    y = tf.concat([x * x, tf.sin(x) * x], 0)
    g, gg = second(tf, y * y, x, weights=W3)
    return {"g": g, "gg": gg}, {x: value}


@program
def concat_second_derivative_with_unknown_sizes(tf):
    x = tf.placeholder(tf.float64, [None], name="x")
    y = tf.concat([x * x, tf.sin(x) * x], 0)
    g, gg = second(tf, y * y, x)
    return {"g": g, "gg": gg}, {x: X3}


@program(modes=("v2",))
def concat_in_a_loop_second_derivative(tf):
    """The issue's example: a one-iteration loop that concatenates x onto g; d²/dx² exp(x + sum(g)) is 6.595 in
    TensorFlow, 3.297 on cfnb when the gradient of the concat's gradient was dropped."""
    x = tf.placeholder(tf.float64, [], name="x")
    _, g = tf.while_loop(lambda i, g: i < 1, lambda i, g: (i + 1, tf.concat([g, tf.reshape(x, [1])], 0)),
                         [0, tf.zeros([0], tf.float64)], shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    y = tf.exp(x + tf.reduce_sum(g))
    d, dd = second(tf, y, x)
    return {"y": y, "d": d, "dd": dd}, {x: 0.25}


@program(modes=("v2",))
def concat_in_a_loop_three_times(tf):
    x, value = _x(tf)
    # (With g[-3:] in place of the sum TensorFlow's second derivative fails while running: "Incompatible shapes:
    # [3] vs. [12]"; test_grad2.py checks cfnb's against finite differences.)
    _, g = tf.while_loop(lambda i, g: i < 3, lambda i, g: (i + 1, tf.concat([g, tf.tanh(x * tf.reduce_sum(g))], 0)),
                         [0, x], shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    d, dd = second(tf, tf.reduce_sum(g * g), x, weights=W3)
    return {"g": g, "d": d, "dd": dd}, {x: value}


@program
def prod_with_a_zero(tf):
    """The product of the other entries, never y / x (0/0 at a zero)."""
    x = tf.placeholder(tf.float64, [2, 3], name="x")
    y = tf.reduce_prod(x, 1)
    g, gg = second(tf, y, x, weights=[[1.0, 2.0, -1.0], [0.5, 1.5, 3.0]])
    return {"y": y, "g": g, "gg": gg}, {x: [[0.3, 0.0, 1.1], [0.0, 0.0, 2.0]]}


@program
def sign_has_a_zero_gradient(tf):
    x, value = _x(tf)
    return {"g": grads(tf, tf.sign(x), [x])[0], "floor": grads(tf, tf.floor(x), [x])[0]}, {x: value}


# ---------------------------------------------------------------------------------------------------------------
# None where nothing connects: a second derivative that reaches x only through integer or boolean accumulators


def _second_in_loop(tf, body, x0, init=None):
    x = tf.placeholder(tf.float64, np.shape(x0), name="x")
    start = x if init is None else tf.constant(init, tf.float64)
    _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, body(tf, i, v, x)), [0, start])
    d, dd = second(tf, v, x)
    return {"v": v, "d": d, "dd": dd}, {x: x0}


@program(modes=("v2",))
def gather_by_the_loop_index_has_no_second_derivative(tf):
    return _second_in_loop(tf, lambda tf, i, v, x: v + tf.gather(x, i % 2), [0.5, 1.0], init=0.0)


@program(modes=("v2",))
def cond_in_a_loop_has_no_second_derivative(tf):
    return _second_in_loop(tf, lambda tf, i, v, x: tf.cond(v > 0.0, lambda: v + x, lambda: v), 0.5)


@program(modes=("v2",))
def scan_sum_has_no_second_derivative(tf):
    x = tf.placeholder(tf.float64, [2], name="x")
    d, dd = second(tf, tf.scan(lambda a, e: a + e, x), x)
    return {"d": d, "dd": dd}, {x: [0.5, 1.0]}


@program(modes=("v2",))
def linear_loop_has_a_zero_second_derivative(tf):
    """Where something does connect, the second derivative is zeros, not None."""
    return _second_in_loop(tf, lambda tf, i, v, x: v * tf.stop_gradient(x) + 1.0, 0.5)


@program
def loop_invariant_has_no_second_derivative(tf):
    return _second_in_loop(tf, lambda tf, i, v, x: v + x, 0.5, init=0.0)


# ---------------------------------------------------------------------------------------------------------------
# A failed tf.gradients call leaves the graph as it was


@program(modes=("v1",))
def failed_second_derivative_leaves_the_loop_runnable(tf):
    """The second gradients() call fails part way (v1 cannot differentiate a gradient loop); the loop and its first
    gradient still run. (TensorFlow leaves its graph inside the gradient loop's context after the failure, so ops
    built afterwards are not fetchable there; test_grad2.py checks that cfnb's are.)"""
    x, value = _x(tf)
    _, h = tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(h) * x), [0, x])
    (g,) = tf.gradients(tf.reduce_sum(h), x)
    try:
        tf.gradients(tf.reduce_sum(g), x)
    except TypeError:
        return {"h": h, "g": g}, {x: value}
    raise AssertionError("the second-order gradient of a v1 loop should have been refused")
