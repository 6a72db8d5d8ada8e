"""Forward conformance programs for cfnb, each written once against the tf.compat.v1 graph API.

A program is `def name(tf): ... return fetches, feeds`. It builds its graph with whichever module it is
given (`tensorflow.compat.v1` in record.py, `cfnb` in tests/test_conformance.py), so the very same code
produces both the reference values and the values under test. `fetches` maps a key to one tensor;
`feeds` is a feed_dict. No program uses random ops, so TensorFlow's values are exact references.

A feed_dict has no place for "run this op first", so a program that needs variables initialised puts the
initialiser under the reserved feeds key `INIT`; `run_program` runs it before the fetches.

Programs named `tNN_...` are the forward parts of the TensorFlow test cases of
/work/shared/reference/tensorflow-control-flow.md section 3.
"""
import collections

import numpy as np

PROGRAMS = {}
INIT = "__init__"

# T19's namedtuple; defined once at module level so both frameworks see the same class.
Pair = collections.namedtuple("Pair", ("a", "b"))


def program(build):
    """Register `build` under its function name; a duplicate name would silently hide a program."""
    if build.__name__ in PROGRAMS:
        raise ValueError(f"duplicate conformance program {build.__name__!r}")
    PROGRAMS[build.__name__] = build
    return build


def run_program(tf, build, config=None):
    """Build `build` in a fresh graph with module `tf` and run it (in a Session made with `config`):
    {key: numpy array}."""
    graph = tf.Graph()
    with graph.as_default():
        fetches, feeds = build(tf)
        feeds = dict(feeds)
        init = feeds.pop(INIT, None)
        with tf.Session(graph=graph, config=config) as sess:
            if init is not None:
                sess.run(init)
            values = sess.run(fetches, feed_dict=feeds)
    return {key: np.asarray(value) for key, value in values.items()}


# ---------------------------------------------------------------------------------------------
# while_loop: counters, 1..4 loop vars, float exits


@program
def t13_long_counter(tf):
    r = tf.while_loop(lambda x: tf.less(x, 10000), lambda x: x + 1, [tf.constant(0)], parallel_iterations=20)
    return {"r": r}, {}


def _isum(tf, s, maximum_iterations=None):
    """T14's helper: add 0..9 (or fewer, under maximum_iterations) to `s`."""
    i = tf.constant(0)
    return tf.while_loop(lambda i, s: i < 10, lambda i, s: [i + 1, i + s], [i, s],
                         maximum_iterations=maximum_iterations)[1]


@program
def t14_two_vars_sum(tf):
    return {"s": _isum(tf, tf.constant(0))}, {}


@program
def t14_maximum_iterations_smaller(tf):
    """maximum_iterations below the natural trip count (10) cuts the loop short."""
    s = _isum(tf, tf.constant([1, 2, 3, 4, 5]), maximum_iterations=3)
    one = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], maximum_iterations=1)
    return {"s": s, "one": one}, {}


@program
def maximum_iterations_larger(tf):
    """A bound above the natural trip count (5) must not change anything. The body returns a list: with
    maximum_iterations, TF's v1 while_loop rejects a tuple body result for list loop_vars."""
    x = tf.placeholder(tf.float32, [])
    i, v = tf.while_loop(lambda i, v: i < 5, lambda i, v: [i + 1, v * x], [0, tf.constant(1.0)],
                         maximum_iterations=50)
    return {"i": i, "v": v}, {x: 1.5}


@program
def maximum_iterations_fed(tf):
    """A fed maximum_iterations is the only thing that stops a loop whose condition never turns false."""
    n = tf.placeholder(tf.int32, [])
    r = tf.while_loop(lambda v: v > -1.0, lambda v: v + 0.25, [tf.constant(0.0)], maximum_iterations=n)
    return {"r": r}, {n: 7}


@program
def t15_four_vars(tf):
    """100 iterations, far more than parallel_iterations=10."""
    def compute(i, m, c, o):
        m, c = m + 1, c + 1
        o = o + m
        o = o + c
        return [i + 1, m, c, o]

    r = tf.while_loop(lambda i, m, c, o: tf.less(i, tf.constant(100)), compute, [tf.constant(0)] * 4)
    return {"i": r[0], "m": r[1], "o": r[3]}, {}


@program
def newton_sqrt_three_vars(tf):
    """Three loop vars (int, float, float); a float convergence test decides the trip count."""
    a = tf.placeholder(tf.float32, [])

    def body(k, x, err):
        nx = 0.5 * (x + a / x)
        return k + 1, nx, tf.abs(nx - x)

    k, x, err = tf.while_loop(lambda k, x, err: err > 1e-3, body, [0, a, tf.constant(1.0)])
    return {"k": k, "x": x, "err": err}, {a: 10.0}


@program
def float_halving_counter(tf):
    x = tf.placeholder(tf.float32, [])
    n, v = tf.while_loop(lambda n, v: v > 1.0, lambda n, v: (n + 1, v * 0.5), [0, x])
    return {"n": n, "v": v}, {x: 1000.0}


@program
def float64_loop(tf):
    """A float64 loop var stays float64, Python-float operands included."""
    x = tf.placeholder(tf.float64, [2])
    _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 0.1 + 1.0 / 3.0), [0, x])
    return {"v": v}, {x: [1.0, -2.0]}


@program
def body_ignores_loop_var(tf):
    """The body's new value does not depend on the old one; it reads a captured placeholder."""
    c = tf.placeholder(tf.float32, [])
    i, v = tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, c * 2.0), [0, tf.constant(1.0)])
    return {"i": i, "v": v}, {c: 2.5}


@program
def bool_loop_var_search(tf):
    """A bool loop var ends the loop: linear search for the first element above a threshold."""
    xs = tf.placeholder(tf.float32, [6])
    threshold = tf.placeholder(tf.float32, [])

    def body(i, found, idx):
        hit = xs[i] > threshold
        return i + 1, hit, tf.where(hit, i, idx)

    i, found, idx = tf.while_loop(lambda i, found, idx: tf.logical_and(i < 6, tf.logical_not(found)), body,
                                  [0, tf.constant(False), tf.constant(-1)])
    return {"i": i, "found": found, "idx": idx}, {xs: [0.5, 1.0, 3.5, 2.0, 7.0, 0.0], threshold: 2.5}


@program
def dynamic_bound_from_shape(tf):
    """The trip count comes from the runtime shape of a placeholder with an unknown first dimension."""
    x = tf.placeholder(tf.float32, [None, 2])
    n = tf.shape(x)[0]
    _, acc = tf.while_loop(lambda i, acc: i < n,
                           lambda i, acc: (i + 1, acc + x[i] * tf.cast(i + 1, tf.float32)),
                           [0, tf.zeros([2])])
    return {"acc": acc, "n": n}, {x: [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]}


@program
def loops_in_series_and_parallel(tf):
    """Loop b consumes loop a's output; loop c is independent of both."""
    x = tf.placeholder(tf.float32, [])
    a = tf.while_loop(lambda v: v < 50.0, lambda v: v * 3.0, [x])
    b = tf.while_loop(lambda v: v > 1.0, lambda v: v - 7.0, [a])
    c = tf.while_loop(lambda k, v: k < 4, lambda k, v: (k + 1, v + x), [0, x])[1]
    return {"a": a, "b": b, "c": c, "sum": a + b + c}, {x: 2.0}


# ---------------------------------------------------------------------------------------------
# Zero-iteration loops


@program
def zero_iteration_loop(tf):
    """The condition is false on entry: scalar, vector and matrix loop vars come out unchanged."""
    m = tf.placeholder(tf.float32, [2, 2])
    i, v, mm = tf.while_loop(lambda i, v, mm: i < 0,
                             lambda i, v, mm: (i + 1, v * 2.0, tf.matmul(mm, mm)),
                             [tf.constant(5), tf.constant([1.0, 2.0]), m])
    return {"i": i, "v": v, "m": mm}, {m: [[1.0, 2.0], [3.0, 4.0]]}


@program
def zero_maximum_iterations(tf):
    """maximum_iterations=0 runs no iteration although the condition holds."""
    r = tf.while_loop(lambda v: v < 10.0, lambda v: v + 1.0, [tf.constant(2.0)], maximum_iterations=0)
    return {"r": r}, {}


@program
def zero_iteration_fed_bound(tf):
    """A fed bound of 0: the body (whose xs[i] would be out of range) never runs."""
    n = tf.placeholder(tf.int32, [])
    xs = tf.constant([3.0, 4.0])
    i, acc = tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc + xs[i + 5]),
                           [0, tf.constant(0.5)])
    return {"i": i, "acc": acc}, {n: 0}


# ---------------------------------------------------------------------------------------------
# parallel_iterations: independent iterations, results collected in a TensorArray


def _independent_iterations(tf, parallel_iterations):
    """Each iteration's work depends only on the counter, so up to parallel_iterations may overlap."""
    x = tf.placeholder(tf.float32, [4])
    n = 40
    ta = tf.TensorArray(tf.float32, size=n)

    def body(i, total, ta):
        y = tf.reduce_sum(tf.sin(x * tf.cast(i, tf.float32)))
        return i + 1, total + y, ta.write(i, y)

    _, total, ta = tf.while_loop(lambda i, total, ta: i < n, body, [0, tf.constant(0.0), ta],
                                 parallel_iterations=parallel_iterations)
    return {"s": ta.stack(), "total": total}, {x: [0.1, 0.2, 0.3, 0.4]}


@program
def parallel_iterations_1(tf):
    return _independent_iterations(tf, 1)


@program
def parallel_iterations_10(tf):
    return _independent_iterations(tf, 10)


@program
def parallel_iterations_32(tf):
    return _independent_iterations(tf, 32)


# ---------------------------------------------------------------------------------------------
# Vectors and matrices


@program
def rnn_matmul_tanh(tf):
    """A small RNN unrolled by while_loop: xs[i] with a tensor index, matmul, tanh."""
    xs = tf.placeholder(tf.float32, [4, 1, 3])
    w = tf.constant([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.6]])
    u = tf.constant([[0.9, 0.1], [-0.3, 0.7]])

    def body(i, h):
        return i + 1, tf.tanh(tf.matmul(xs[i], w) + tf.matmul(h, u))

    _, h = tf.while_loop(lambda i, h: i < 4, body, [0, tf.zeros([1, 2])])
    return {"h": h}, {xs: (np.arange(12, dtype=np.float32).reshape(4, 1, 3) - 5.0) * 0.2}


@program
def sigmoid_reductions(tf):
    """sigmoid and reduce_sum/mean/max (whole, per axis, keepdims) in a loop body."""
    m = tf.placeholder(tf.float32, [2, 3])

    def body(i, x, hist):
        y = tf.sigmoid(x) - 0.5 * tf.reduce_mean(x, axis=1, keepdims=True)
        return i + 1, y, hist + tf.reduce_max(y) + tf.reduce_sum(y, axis=0)

    _, x, hist = tf.while_loop(lambda i, x, hist: i < 3, body, [0, m, tf.zeros([3])])
    return {"x": x, "hist": hist, "total": tf.reduce_sum(x), "mean": tf.reduce_mean(hist),
            "row_max": tf.reduce_max(x, axis=1)}, {m: [[0.5, -1.0, 2.0], [3.0, 0.0, -0.25]]}


@program
def reshape_transpose_stack_loop(tf):
    """transpose, reshape, stack, unstack and concat of slices inside a loop body."""
    m = tf.placeholder(tf.float32, [2, 3])

    def body(i, m):
        flat = tf.reshape(tf.transpose(m), [2, 3])
        stacked = tf.stack([flat, m], axis=0)
        first, second = tf.unstack(stacked)
        rotated = tf.concat([m[:, 1:], m[:, :1]], 1)
        return i + 1, (first + second) * 0.5 + rotated

    _, out = tf.while_loop(lambda i, m: i < 3, body, [0, m])
    cube = tf.reshape(tf.range(24), [2, 3, 4])
    return {"out": out, "perm": tf.transpose(cube, [2, 0, 1]),
            "stack1": tf.stack([out, out * 2.0], axis=1)}, {m: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]}


# ---------------------------------------------------------------------------------------------
# Nested while loops


@program
def t20_nested_sum(tf):
    n = tf.constant(0)

    def cpu_sum(s):
        return tf.while_loop(lambda i, s: i < 10, lambda i, s: (i + 1, i + s), [n, s])[1]

    r = tf.while_loop(lambda x: x < 200, lambda x: x + cpu_sum(n), [n])
    return {"r": r}, {}


@program
def t20_nested_square(tf):
    def inner(s):
        return tf.while_loop(lambda s: s < 20.0, lambda s: s + s, [s], parallel_iterations=1)

    r = tf.while_loop(lambda x: x < 3000.0, lambda x: tf.square(inner(x)), [tf.constant(2.0)],
                      parallel_iterations=1)
    return {"r": r}, {}


@program
def nested_inner_uses_outer_var(tf):
    """The inner trip count is the outer counter; the inner body reads a placeholder captured from outside
    both loops and the outer loop var."""
    w = tf.placeholder(tf.float32, [])

    def outer(i, acc):
        def inner(j, a):
            return j + 1, a + w * tf.cast(i * 10 + j, tf.float32)

        _, acc = tf.while_loop(lambda j, a: j < i, inner, [0, acc])
        return i + 1, acc

    i, acc = tf.while_loop(lambda i, acc: i < 5, outer, [0, tf.constant(0.0)])
    return {"i": i, "acc": acc}, {w: 0.5}


@program
def nested_three_levels(tf):
    """Three levels; inner bounds depend on the enclosing counters, and the innermost body indexes a
    captured vector with all three counters. `count` counts innermost iterations through every level."""
    table = tf.constant([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0])

    def level1(i, total, count):
        def level2(j, total, count):
            def level3(k, total, count):
                return k + 1, total + table[(i + j + k) % 7] * tf.cast(k + 1, tf.float32), count + 1

            _, total, count = tf.while_loop(lambda k, t, c: k < j + 1, level3, [0, total, count])
            return j + 1, total, count

        _, total, count = tf.while_loop(lambda j, t, c: j < i, level2, [0, total, count])
        return i + 1, total, count

    _, total, count = tf.while_loop(lambda i, t, c: i < 4, level1, [0, tf.constant(0.0), 0])
    return {"total": total, "count": count}, {}


@program
def nested_matrix_powers(tf):
    """The outer loop sums A^k for k < 4; the inner loop builds A^k by repeated matmul."""
    a = tf.placeholder(tf.float32, [2, 2])
    eye = tf.constant([[1.0, 0.0], [0.0, 1.0]])

    def outer(k, total):
        _, p = tf.while_loop(lambda j, p: j < k, lambda j, p: (j + 1, tf.matmul(p, a)), [0, eye])
        return k + 1, total + p

    _, total = tf.while_loop(lambda k, total: k < 4, outer, [0, tf.zeros([2, 2])])
    return {"total": total}, {a: [[0.5, 1.0], [-0.25, 0.75]]}


# ---------------------------------------------------------------------------------------------
# cond


@program
def t05_cond(tf):
    x = tf.constant(10)
    pred = tf.less(1, 2)
    return {
        "true": tf.cond(pred, lambda: x + 1, lambda: x - 1),
        "false": tf.cond(tf.less(1, 0), lambda: x + 1, lambda: x - 1),
        "nested": tf.cond(pred, lambda: tf.cond(pred, lambda: x + 1, lambda: x - 1) + 1, lambda: x - 1),
    }, {}


def _cond_runtime(tf, p_value):
    """Two outputs of different kinds from each branch, predicate fed at run time."""
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [2])
    a, b = tf.cond(p, lambda: (x * 2.0, tf.reduce_sum(x)), lambda: (x - 1.0, tf.reduce_max(x)))
    return {"a": a, "b": b}, {p: p_value, x: [1.5, -2.0]}


@program
def cond_runtime_true(tf):
    return _cond_runtime(tf, True)


@program
def cond_runtime_false(tf):
    return _cond_runtime(tf, False)


@program
def cond_int_predicate_both(tf):
    """T06's forward values: both outcomes of a runtime int predicate in one run."""
    x = tf.constant(10.0)
    fetches, feeds = {}, {}
    for value in (1, 3):
        p = tf.placeholder(tf.int32, [])
        fetches[f"p{value}"] = tf.cond(tf.less(p, 2), lambda: x * 42.0, lambda: x * 3.0)
        feeds[p] = value
    return fetches, feeds


def _nested_cond(tf, po_value, pi_value):
    """T09's forward value; the outer true branch returns a plain Python float."""
    po = tf.placeholder(tf.bool, [])
    pi = tf.placeholder(tf.bool, [])
    x = tf.constant(1.0)
    y = tf.constant(2.0)
    out = tf.cond(po, lambda: 2.0, lambda: tf.cond(pi, lambda: x * y * 2.0, lambda: x * 5.0))
    return {"out": out}, {po: po_value, pi: pi_value}


@program
def nested_cond_tt(tf):
    return _nested_cond(tf, True, True)


@program
def nested_cond_tf(tf):
    return _nested_cond(tf, True, False)


@program
def nested_cond_ft(tf):
    return _nested_cond(tf, False, True)


@program
def nested_cond_ff(tf):
    return _nested_cond(tf, False, False)


@program
def cond_nested_outputs(tf):
    """Both branches return a dict holding a tuple and a tensor; cond rebuilds that structure."""
    p = tf.placeholder(tf.int32, [])
    out = tf.cond(p > 0,
                  lambda: {"pair": (p * 2, tf.constant(1.5)), "v": tf.fill([2], 3.0)},
                  lambda: {"pair": (p - 1, tf.constant(-1.0)), "v": tf.zeros([2])})
    return {"p0": out["pair"][0], "p1": out["pair"][1], "v": out["v"]}, {p: 4}


# ---------------------------------------------------------------------------------------------
# cond inside while, while inside cond


@program
def t23_cond_in_while(tf):
    r = tf.while_loop(lambda x: x < tf.constant(10),
                      lambda x: tf.cond(tf.constant(True), lambda: x + 1, lambda: x - 1), [tf.constant(0)])

    def cond(i):
        return tf.cond(i > 0, lambda: tf.constant(True), lambda: tf.constant(False))

    def body(i):
        return tf.cond(i > 0, lambda: i - 1, lambda: i)

    with tf.control_dependencies([tf.no_op()]):
        r2 = tf.while_loop(cond, body, (tf.constant(5),))
    return {"r": r, "r2": r2}, {}


@program
def collatz_steps(tf):
    """Integer loop with a cond on the loop var's parity in every iteration."""
    n0 = tf.placeholder(tf.int32, [])

    def body(n, steps, peak):
        n = tf.cond(tf.equal(n % 2, 0), lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1, tf.maximum(peak, n)

    n, steps, peak = tf.while_loop(lambda n, s, p: n > 1, body, [n0, 0, n0])
    return {"n": n, "steps": steps, "peak": peak}, {n0: 27}


def _t22(tf, p_value):
    """T22's forward value: a while in the true branch only."""
    p = tf.placeholder(tf.bool, [])
    n = tf.constant(0.0)
    r = tf.cond(p, lambda: tf.while_loop(lambda x: x < 10.0, lambda x: x + 1.0, [n]), lambda: n * 2.0)
    return {"r": r}, {p: p_value}


@program
def t22_while_in_cond_true(tf):
    return _t22(tf, True)


@program
def t22_while_in_cond_false(tf):
    return _t22(tf, False)


def _while_in_both_branches(tf, p_value):
    """Each branch runs its own loop with two loop vars; only the taken one may run."""
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [])

    def up():
        return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v + x), [0, x])

    def down():
        return tf.while_loop(lambda i, v: v > 0.0, lambda i, v: (i + 1, v - 1.5), [0, x * 4.0])

    i, v = tf.cond(p, up, down)
    return {"i": i, "v": v}, {p: p_value, x: 2.0}


@program
def while_in_both_branches_true(tf):
    return _while_in_both_branches(tf, True)


@program
def while_in_both_branches_false(tf):
    return _while_in_both_branches(tf, False)


@program
def while_cond_while(tf):
    """A while inside a cond inside a while: the inner loop runs only on even outer iterations and its
    trip count is the outer counter."""
    def outer(i, acc):
        def run_inner():
            _, s = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + tf.cast(j, tf.float32)),
                                 [0, acc])
            return s

        acc = tf.cond(tf.equal(i % 2, 0), run_inner, lambda: acc - 1.0)
        return i + 1, acc

    i, acc = tf.while_loop(lambda i, acc: i < 6, outer, [0, tf.constant(0.0)])
    return {"i": i, "acc": acc}, {}


# ---------------------------------------------------------------------------------------------
# case


@program
def t11_case(tf):
    """T11 without the exclusive=True error case."""
    x, y, z = tf.constant(1), tf.constant(2), tf.constant(3)
    f1 = lambda: tf.constant(17)
    f2 = lambda: tf.constant(23)
    f3 = lambda: tf.constant(-1)
    return {
        "exclusive_dict": tf.case({x < y: f1, x > z: f2}, default=f3, exclusive=True),
        "list": tf.case([(y > z, f1), (y > x, f2)], default=f3),
        "first_true_wins": tf.case([(x < y, f1), (x < y, f2)], default=f3),
        "default": tf.case({x > y: f1}, default=f3),
    }, {}


@program
def case_with_default_fed(tf):
    """TensorFlow's CaseTest.testCase_withDefault: x=1 -> 2, x=2 -> 4, otherwise the default 6."""
    fetches, feeds = {}, {}
    for value in (1, 2, 3):
        x = tf.placeholder(tf.int32, [])
        branches = [(tf.equal(x, 1), lambda: tf.constant(2)), (tf.equal(x, 2), lambda: tf.constant(4))]
        fetches[f"x{value}"] = tf.case(branches, default=lambda: tf.constant(6), exclusive=True)
        feeds[x] = value
    return fetches, feeds


@program
def case_dict_order_by_name(tf):
    """Non-exclusive case over a dict: TensorFlow orders the pairs by predicate tensor name, not by
    insertion, so with both predicates true the branch of 'a_small' wins."""
    x = tf.placeholder(tf.int32, [])
    pb = tf.greater(x, 0, name="b_positive")
    pa = tf.less(x, 10, name="a_small")
    r = tf.case({pb: lambda: tf.constant(1), pa: lambda: tf.constant(2)}, default=lambda: tf.constant(0))
    return {"r": r}, {x: 5}


@program
def case_in_while(tf):
    """A three-way case in the body picks the update from the counter's remainder."""
    def body(i, v):
        r = i % 3
        v = tf.case([(tf.equal(r, 0), lambda: v + 1.0), (tf.equal(r, 1), lambda: v * 2.0)],
                    default=lambda: v - 0.5)
        return i + 1, v

    _, v = tf.while_loop(lambda i, v: i < 7, body, [0, tf.constant(1.0)])
    return {"v": v}, {}


# ---------------------------------------------------------------------------------------------
# shape_invariants


@program
def t16_shape_invariants_concat(tf):
    i = tf.constant(0)
    m = tf.ones([2, 2])
    b = lambda i, j: [i + 1, tf.concat([j, j], 0)]
    r = tf.while_loop(lambda i, j: i < 2, b, [i, m], [i.get_shape(), tf.TensorShape([None, 2])])
    return {"i": r[0], "m": r[1], "shape": tf.shape(r[1])}, {}


@program
def t17_unknown_shape_invariants(tf):
    """T17 with x[i:i + 1] in place of tf.strided_slice(x, [i], [i + 1])."""
    x = tf.constant([1, 2, 3, 4, 5, 6])
    s = tf.size(x)

    def compute(i, c, o):
        c = x[i:i + 1]
        return [i + 1, c, tf.concat([o, c], 0)]

    r = tf.while_loop(lambda i, c, o: i < s, compute, [tf.constant(0), tf.constant([0]), tf.constant([0])],
                      [tf.TensorShape([]), tf.TensorShape(None), tf.TensorShape(None)])
    return {"i": r[0], "c": r[1], "o": r[2]}, {}


@program
def fibonacci_sequence_concat(tf):
    """A growing int vector (shape invariant [None]) whose next element reads seq[-1] and seq[-2]."""
    n = tf.placeholder(tf.int32, [])

    def body(k, seq):
        return k + 1, tf.concat([seq, tf.expand_dims(seq[-1] + seq[-2], 0)], 0)

    _, seq = tf.while_loop(lambda k, seq: k < n, body, [0, tf.constant([0, 1])],
                           shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    return {"seq": seq, "len": tf.size(seq)}, {n: 10}


@program
def growing_matrix_rows(tf):
    """Rows appended to a float matrix, shape invariant [None, 3]."""
    def body(i, m):
        row = tf.reshape(tf.cast(tf.range(3) + i, tf.float32) * 0.5, [1, 3])
        return i + 1, tf.concat([m, row], 0)

    _, m = tf.while_loop(lambda i, m: i < 4, body, [0, tf.zeros([1, 3])],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 3])])
    return {"m": m, "col_sum": tf.reduce_sum(m, axis=0)}, {}


# ---------------------------------------------------------------------------------------------
# Nested structures as loop vars


@program
def t19_nested_loop_vars(tf):
    """T19; `kinds` records the structure TensorFlow hands back (list / namedtuple / plain tuple)."""
    c = tf.constant
    lv = [Pair(a=c(0.0), b=c(1.0)), (c(2.0), c(3.0)), c(4.0)]
    b = lambda lv0, lv1, lv2: [Pair(a=lv0.a + 1, b=lv0.b), (lv1[0] + 1, lv1[1]), lv2 + 2]
    r = tf.while_loop(lambda lv0, _1, _2: lv0.a < 100.0, b, lv)
    kinds = [isinstance(r, list), isinstance(r[0], Pair),
             isinstance(r[1], tuple) and not isinstance(r[1], Pair)]
    return {"a": r[0].a, "b": r[0].b, "t0": r[1][0], "t1": r[1][1], "x": r[2],
            "kinds": tf.constant(kinds)}, {}


@program
def dict_in_list_loop_vars(tf):
    """Loop vars [counter, {"pos", "vel"}, total]: a dict inside the loop-var list."""
    x = tf.placeholder(tf.float32, [2])

    def body(i, state, total):
        new = {"pos": state["pos"] + state["vel"], "vel": state["vel"] * 0.5}
        return [i + 1, new, total + tf.reduce_sum(new["pos"])]

    i, state, total = tf.while_loop(lambda i, state, total: i < 4, body,
                                    [0, {"pos": tf.zeros([2]), "vel": x}, tf.constant(0.0)])
    return {"i": i, "pos": state["pos"], "vel": state["vel"], "total": total}, {x: [1.0, -2.0]}


@program
def return_same_structure(tf):
    """return_same_structure=True keeps a one-element list a list and a tuple a tuple."""
    one = tf.while_loop(lambda x: x < 10, lambda x: [x + 3], [tf.constant(1)], return_same_structure=True)
    pair = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), (0, tf.constant(1.5)),
                         return_same_structure=True)
    kinds = [isinstance(one, list), len(one) == 1, isinstance(pair, tuple)]
    return {"one": one[0], "pair_i": pair[0], "pair_v": pair[1], "kinds": tf.constant(kinds)}, {}


@program
def single_var_unpacked(tf):
    """Without return_same_structure a one-element loop_vars list comes back as a bare tensor."""
    r = tf.while_loop(lambda x: x < 10, lambda x: x + 4, [tf.constant(1)])
    return {"r": r, "is_bare_tensor": tf.constant(not isinstance(r, (list, tuple)))}, {}


# ---------------------------------------------------------------------------------------------
# TensorArray (v1 API)


@program
def ta_write_stack(tf):
    """Write vectors in a loop, then stack, read one element and ask the size."""
    x = tf.placeholder(tf.float32, [2])
    ta = tf.TensorArray(tf.float32, size=4)
    _, ta = tf.while_loop(lambda i, ta: i < 4,
                          lambda i, ta: (i + 1, ta.write(i, x * tf.cast(i, tf.float32) ** 2)), [0, ta])
    return {"stack": ta.stack(), "size": ta.size()}, {x: [2.0, -0.5]}


@program
def ta_unstack_read(tf):
    """unstack an input, read it element by element in a loop, write a running sum to a second array."""
    xs = tf.placeholder(tf.float32, [5, 2])
    inp = tf.TensorArray(tf.float32, size=5).unstack(xs)
    out = tf.TensorArray(tf.float32, size=5)

    def body(i, acc, out):
        acc = acc + inp.read(i)
        return i + 1, acc, out.write(i, acc)

    _, acc, out = tf.while_loop(lambda i, acc, out: i < 5, body, [0, tf.zeros([2]), out])
    return {"acc": acc, "cumsum": out.stack()}, {xs: np.arange(10, dtype=np.float32).reshape(5, 2)}


@program
def ta_dynamic_size(tf):
    """size=0, dynamic_size=True: the array grows to the fed trip count."""
    n = tf.placeholder(tf.int32, [])
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i * i - 3)), [0, ta])
    return {"stack": ta.stack(), "size": ta.size()}, {n: 6}


@program
def ta_gather(tf):
    """gather picks elements out of order after a loop wrote them."""
    ta = tf.TensorArray(tf.float32, size=5)
    _, ta = tf.while_loop(lambda i, ta: i < 5,
                          lambda i, ta: (i + 1, ta.write(i, tf.fill([3], tf.cast(i, tf.float32) + 0.5))),
                          [0, ta])
    return {"gathered": ta.gather([4, 0, 2])}, {}


@program
def ta_nested_loops(tf):
    """The outer loop writes each inner loop's result into a TensorArray."""
    ta = tf.TensorArray(tf.float32, size=4)

    def outer(i, ta):
        _, s = tf.while_loop(lambda j, s: j <= i, lambda j, s: (j + 1, s + tf.cast(j * j, tf.float32)),
                             [0, tf.constant(0.0)])
        return i + 1, ta.write(i, s)

    _, ta = tf.while_loop(lambda i, ta: i < 4, outer, [0, ta])
    return {"stack": ta.stack()}, {}


# ---------------------------------------------------------------------------------------------
# Integer programs


@program
def integer_gcd(tf):
    a = tf.placeholder(tf.int32, [])
    b = tf.placeholder(tf.int32, [])
    g, _ = tf.while_loop(lambda x, y: y > 0, lambda x, y: (y, x % y), [a, b])
    return {"gcd": g}, {a: 3528, b: 3780}


@program
def fibonacci_pair(tf):
    _, a, b = tf.while_loop(lambda k, a, b: k < 30, lambda k, a, b: (k + 1, b, a + b), [0, 0, 1])
    return {"a": a, "b": b}, {}


@program
def digit_sum_floordiv_mod(tf):
    """Digit sum and digit reversal of a fed integer with // and %."""
    n0 = tf.placeholder(tf.int32, [])
    _, s, rev = tf.while_loop(lambda n, s, rev: n > 0,
                              lambda n, s, rev: (n // 10, s + n % 10, rev * 10 + tf.mod(n, 10)), [n0, 0, 0])
    return {"sum": s, "rev": rev}, {n0: 9075123}


@program
def integer_division_semantics(tf):
    """floordiv/mod round toward -inf, v1 `div` floors integers, `/` on int32 gives float64."""
    a = tf.constant([-7, 7, -7, 7])
    b = tf.constant([2, -2, -2, 2])
    f = tf.constant([-7.5, 7.5])
    return {
        "floordiv": tf.floordiv(a, b),
        "op_floordiv": a // b,
        "mod": tf.mod(a, b),
        "op_mod": a % b,
        "div_int": tf.div(a, b),
        "truediv_int": a / b,
        "float_floordiv": f // 2.0,
        "float_mod": f % 2.0,
    }, {}


# ---------------------------------------------------------------------------------------------
# Python constants, dtypes and everyday ops


@program
def python_constants_dtypes(tf):
    """Python ints become int32 and Python floats float32: in loop_vars, constants, mixed arithmetic."""
    i, f, v = tf.while_loop(lambda i, f, v: i < 3, lambda i, f, v: (i + 1, f * 1.5, v + 1),
                            [0, 1.0, tf.constant([1, 2])])
    return {
        "i": i, "f": f, "v": v,
        "int_const": tf.constant(3) * 2,
        "float_const": tf.constant(1.5) * 2,
        "int_list": tf.constant([1, 2, 3]),
        "float_list": tf.constant([1.0, 2]),
        "fill_int": tf.fill([2], 7),
        "zeros": tf.zeros([2]),
        "range": tf.range(5),
        "cast": tf.cast(tf.range(3), tf.float32),
        "f64": tf.constant([1.0, 2.0], dtype=tf.float64) * 0.5,
        "bool": tf.constant(1.0) < 2,
    }, {}


@program
def where_cast_gather(tf):
    """where, cast (float->int truncates toward zero; int->bool; bool->float) and gather, also in a loop."""
    x = tf.placeholder(tf.float32, [5])
    as_int = tf.cast(x, tf.int32)
    as_bool = tf.cast(as_int, tf.bool)

    def body(i, acc):
        return i + 1, acc + tf.gather(x, tf.stack([i, 4 - i]))

    _, acc = tf.while_loop(lambda i, acc: i < 3, body, [0, tf.zeros([2])])
    return {
        "clipped": tf.where(x > 0.0, x, tf.zeros_like(x)),
        "as_int": as_int,
        "as_bool": as_bool,
        "back": tf.cast(as_bool, tf.float32),
        "picked": tf.gather(x, [4, 0, 2]),
        "rows": tf.gather(tf.reshape(tf.range(6), [3, 2]), tf.constant([2, 0])),
        "acc": acc,
    }, {x: [-1.7, 2.5, 0.4, -0.2, 3.9]}


@program
def slicing(tf):
    """Static slices, negative indices, strides, and t[i] / t[i, 1:] with a tensor i inside a loop."""
    t = tf.placeholder(tf.float32, [4, 3])

    def body(i, acc, diag):
        return i + 1, acc + t[i], diag + t[i, 1:] * t[i, i % 3]

    _, acc, diag = tf.while_loop(lambda i, acc, diag: i < 4, body, [0, tf.zeros([3]), tf.zeros([2])])
    return {
        "rows": t[1:3], "col": t[:, 1], "last": t[-1], "step": t[::2], "elem": t[2, 0],
        "tail": t[-2:, 1:], "acc": acc, "diag": diag,
    }, {t: np.arange(12, dtype=np.float32).reshape(4, 3) - 4.0}


@program
def identity_and_stop_gradient(tf):
    """identity and stop_gradient pass values through unchanged, inside and outside a loop."""
    x = tf.placeholder(tf.float32, [3])
    _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.identity(v) + tf.stop_gradient(v * 0.5)),
                         [0, x])
    return {"v": v, "sg": tf.stop_gradient(tf.identity(v)) - 1.0}, {x: [1.0, -2.0, 0.5]}


@program
def control_dependencies_in_loop(tf):
    """Control inputs inside the body (an Assert that holds, a no_op) and on the loop's result order
    execution without changing values; tf.tuple groups two outputs."""
    x = tf.placeholder(tf.float32, [])

    def body(i, v):
        check = tf.Assert(v < 1000.0, [v])
        with tf.control_dependencies([check, tf.no_op()]):
            v = tf.identity(v * x)
        return i + 1, v

    i, v = tf.while_loop(lambda i, v: i < 5, body, [0, tf.constant(1.0)])
    with tf.control_dependencies([v]):
        after = tf.identity(i) + 100
    ti, tv = tf.tuple([i, v])
    return {"i": i, "v": v, "after": after, "ti": ti, "tv": tv}, {x: 2.0}


@program
def variables_in_loop(tf):
    """get_variable with constant/zeros initialisers, read in a loop body; the initializer runs first."""
    w = tf.get_variable("w", shape=[2], dtype=tf.float32, initializer=tf.constant_initializer([1.5, -0.5]))
    b = tf.get_variable("b", shape=[2], initializer=tf.zeros_initializer())
    scale = tf.get_variable("scale", shape=[], initializer=tf.constant_initializer(3.0))
    start = tf.get_variable("start", shape=[], dtype=tf.int32, initializer=tf.zeros_initializer())

    def body(i, x):
        return i + 1, x * w + b + scale

    i, x = tf.while_loop(lambda i, x: i < start + 4, body, [start, tf.ones([2])])
    return {"i": i, "x": x, "w": tf.identity(w)}, {INIT: tf.global_variables_initializer()}


# ---------------------------------------------------------------------------------------------
# Session.run corners and mixed nesting


@program
def feed_intermediate_tensor(tf):
    """A feed may replace any tensor, not only a placeholder: the loop sees the fed value."""
    x = tf.placeholder(tf.float32, [])
    doubled = x * 2.0
    r = tf.while_loop(lambda v: v < 100.0, lambda v: v * doubled, [tf.constant(1.0)])
    return {"r": r, "doubled": doubled}, {x: 1.0, doubled: 3.0}


@program
def placeholder_with_default_unfed(tf):
    """An unfed placeholder_with_default takes its default, inside a loop condition too."""
    limit = tf.placeholder_with_default(tf.constant(6), [])
    step = tf.placeholder_with_default(tf.constant(0.5), [])
    i, v = tf.while_loop(lambda i, v: i < limit, lambda i, v: (i + 1, v + step), [0, tf.constant(0.0)])
    return {"i": i, "v": v, "same": tf.identity(v), "again": v}, {}


@program
def dynamic_shapes_in_body(tf):
    """Shapes computed from the loop var inside the body: range(i), ones([i]), fill."""
    def body(i, a, b):
        return i + 1, a + tf.reduce_sum(tf.range(i)), b + tf.reduce_sum(tf.ones(tf.stack([i]))) * 0.5

    _, a, b = tf.while_loop(lambda i, a, b: i < 6, body, [0, 0, tf.constant(0.0)])
    return {"a": a, "b": b, "filled": tf.fill(tf.stack([2, a // 5]), 1.5)}, {}


@program
def ta_scatter_concat_split(tf):
    """scatter out of order, read in a loop, concat; split into uneven pieces then stack the pieces' sums.
    clear_after_read=False because v1 TensorArrays otherwise refuse the second read (by concat);
    infer_shape=False because pieces of different lengths are otherwise refused."""
    values = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False).scatter([2, 0, 1], values)

    def body(i, acc):
        return i + 1, acc + ta.read(i) * tf.cast(i + 1, tf.float32)

    _, acc = tf.while_loop(lambda i, acc: i < 3, body, [0, tf.zeros([2])])
    pieces = tf.TensorArray(tf.float32, size=3, infer_shape=False).split(tf.range(6.0), [1, 2, 3])
    sums = tf.TensorArray(tf.float32, size=3)
    _, sums = tf.while_loop(lambda i, s: i < 3,
                            lambda i, s: (i + 1, s.write(i, tf.reduce_sum(pieces.read(i)))), [0, sums])
    return {"acc": acc, "concat": ta.concat(), "sums": sums.stack()}, {}


@program
def nested_maximum_iterations_outer_var(tf):
    """The inner loop's maximum_iterations is the outer counter (0 on the first outer iteration)."""
    def outer(i, total):
        inner = tf.while_loop(lambda v: v < 100.0, lambda v: v + 1.0, [tf.constant(0.0)],
                              maximum_iterations=i)
        return i + 1, total + inner

    i, total = tf.while_loop(lambda i, total: i < 5, outer, [0, tf.constant(0.0)])
    return {"i": i, "total": total}, {}


@program
def loop_result_drives_cond(tf):
    """A loop's output is the predicate of a cond whose branch runs another loop."""
    x = tf.placeholder(tf.float32, [])
    n, v = tf.while_loop(lambda n, v: v < 10.0, lambda n, v: (n + 1, v * 1.7), [0, x])
    r = tf.cond(tf.equal(n % 2, 0),
                lambda: tf.while_loop(lambda k: k < v, lambda k: k + 2.5, [tf.constant(0.0)]),
                lambda: v - 100.0)
    return {"n": n, "v": v, "r": r}, {x: 1.2}


@program
def nested_mixed_parallel_iterations(tf):
    """Outer loop with parallel_iterations=32 over an inner serial loop (parallel_iterations=1),
    writing each inner result to a TensorArray."""
    ta = tf.TensorArray(tf.int32, size=12)

    def outer(i, ta):
        _, f = tf.while_loop(lambda j, f: j < i, lambda j, f: (j + 1, f * 2 % 1000 + j), [0, 1],
                             parallel_iterations=1)
        return i + 1, ta.write(i, f)

    _, ta = tf.while_loop(lambda i, ta: i < 12, outer, [0, ta], parallel_iterations=32)
    return {"stack": ta.stack()}, {}


@program
def maximum_iterations_with_tensorarray(tf):
    """maximum_iterations stops a loop that writes a dynamically sized TensorArray."""
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    _, ta = tf.while_loop(lambda i, ta: i < 100,
                          lambda i, ta: [i + 1, ta.write(i, tf.cast(i, tf.float32) * 1.5)], [0, ta],
                          maximum_iterations=4)
    return {"stack": ta.stack(), "size": ta.size()}, {}
