"""Chapter 08, from Python to graphs: what float32 does to a tolerance test."""
import cfnb as tf

from . import as_int, exercise, right, wrong


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


SUM_CELL = "total = 0\ni = 0\nn = 10\nwhile i < n:\n    total += i\n    i += 1\n"


def while_inputs(source):
    """The inputs of the While op that %%whileloop builds for `source` (its functional graph)."""
    from types import SimpleNamespace

    from magics import build
    options = SimpleNamespace(form="lowered", parallel_iterations=10, maximum_iterations=None, swap_memory=False,
                              grads=[], dtypes="numpy")
    graph = build(source, {}, options, "<exercise>")[0]
    op = next(op for op in graph.get_operations() if op.type in ("While", "StatelessWhile"))
    return list(op.inputs)


@exercise("08.loop_vars", "`total = 0; i = 0; n = 10; while i < n: total += i; i += 1` becomes one While op. "
                          "How many inputs does it have?")
def loop_vars(answer):
    n = len(while_inputs(SUM_CELL))
    got = as_int(answer)
    if got == n:
        return right(f"{n}: while_v2's counter and maximum_iterations; total and i, the names the body assigns "
                     "(AutoGraph's loop variables: read before the loop, changed in it); and n, which the loop "
                     "only reads: while_v2 captures it as one more input that the body passes through unchanged "
                     "(the lowered form gives it a constant Enter instead).")
    if got == n - 1:
        return wrong("n is read inside the loop (i < n). A tensor from outside that a while_v2 function uses "
                     "becomes one more input of the While op.")
    if got == n - 2 - 1 or got == n - 2:
        return wrong("while_v2 puts two loop variables of its own in front of yours: the iteration counter and "
                     "maximum_iterations.")
    return wrong("count the loop variables — the names the body assigns — then what while_v2 adds (counter, "
                 "maximum_iterations), then what the loop reads from outside.")
