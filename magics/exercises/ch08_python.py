"""Chapter 08, from Python to graphs: what float32 does to a tolerance test."""
import cfnb as tf

from . import exercise, right, wrong


def newton_iterations(dtype, tol=1e-9, cap=100):
    """Iterations of `while abs(x*x - 2) > tol: x = x - (x*x - 2) / (2*x)` from x = 1, in `dtype`."""
    g = tf.Graph()
    with g.as_default():
        x0 = tf.constant(1.0, dtype=dtype)
        k, _ = tf.while_loop(lambda k, x: tf.abs(x * x - 2.0) > tol,
                             lambda k, x: (k + 1, x - (x * x - 2.0) / (2.0 * x)), [0, x0], maximum_iterations=cap)
        return int(tf.Session().run(k))


@exercise("08.float32_tolerance", "Newton's method for √2 with `while abs(x*x - 2) > 1e-9` from x = 1, at most "
                                  "100 iterations: how many iterations in float32, and in float64? Answer a pair.")
def float32_tolerance(answer):
    want = (newton_iterations(tf.float32), newton_iterations(tf.float64))
    try:
        got = tuple(int(a) for a in answer)
    except TypeError:
        return wrong("answer with a pair (float32 iterations, float64 iterations).")
    if got == want:
        return right(f"{want}: float64 converges in {want[1]} steps. In float32 the closest x to √2 leaves "
                     "x*x - 2 around 1e-7 (float32 keeps about 7 digits), never below 1e-9, so the loop only stops "
                     f"at maximum_iterations={want[0]}. Python floats are float64: a graph built in float32, as "
                     "TensorFlow does by default, changes what the same test means.")
    if got[1] != want[1]:
        return wrong("in float64, Newton's method doubles the correct digits each step: 1, 1.5, 1.4167, ... "
                     "count the steps until x*x is within 1e-9 of 2.")
    return wrong("float32 has a 24-bit mantissa: about 7 decimal digits. Can x*x - 2 ever be smaller than 1e-9 "
                 "in float32, for any float32 x? If not, what stops the loop?")
