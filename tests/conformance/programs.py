"""Conformance programs for cfnb (values and gradients), each written once against the tf.compat.v1 graph API.

A program is `def name(tf): ... return fetches, feeds`. It builds its graph with whichever module it is
given (`tensorflow.compat.v1` in record.py, `cfnb` in tests/test_conformance.py), so the very same code
produces both the reference values and the values under test. `fetches` maps a key to one tensor;
`feeds` is a feed_dict. No program uses random ops (a few feeds come from a seeded numpy RandomState), so
TensorFlow's values are exact references.

A feed_dict has no place for "run this op first", so a program that needs variables initialised puts the
initialiser under the reserved feeds key `INIT`; `run_program` runs it before the fetches.

Gradients: a program takes them with `grads(tf, ys, xs, ...)`, which is `tf.gradients` plus a note of the call
(`GradientCall`) that the finite-difference check of tests/test_conformance.py reads back. A fetch that is
`None` (tf.gradients' answer for an x that ys do not depend on) is dropped before Session.run, so "TensorFlow
says None" is recorded as a missing key, and cfnb must leave the same key out.

Programs named `tNN_...` are the TensorFlow test cases of /work/shared/reference/tensorflow-control-flow.md
section 3 (forward values, and the gradients of sections B, D, E and F where they use public API only).
Programs named `grad_...` (and `hessians_...`) are about gradients first; many of the others fetch gradients
too. A program that isolates one known cfnb gap keeps that gap out of the programs that cover other things.
"""
import collections

import numpy as np

PROGRAMS = {}
INIT = "__init__"

# T19's namedtuple; defined once at module level so both frameworks see the same class.
Pair = collections.namedtuple("Pair", ("a", "b"))

# One tf.gradients call made through `grads`: its arguments, its answer, and whether a finite-difference check
# of the answer is meaningful (`fd`: False where stop_gradient, back_prop=False, stop_gradients or a fed
# intermediate make the gradient differ from the derivative of the forward value, or where a trip count or a
# branch sits so close to its boundary that a small step crosses it).
GradientCall = collections.namedtuple("GradientCall", ("ys", "xs", "grad_ys", "grads", "fd"))
_CALLS = []


def program(build):
    """Register `build` under its function name; a duplicate name would silently hide a program."""
    if build.__name__ in PROGRAMS:
        raise ValueError(f"duplicate conformance program {build.__name__!r}")
    PROGRAMS[build.__name__] = build
    return build


def grads(tf, ys, xs, grad_ys=None, fd=True, **kwargs):
    """`tf.gradients(ys, xs, grad_ys, **kwargs)`, noted for the finite-difference check (see GradientCall)."""
    out = tf.gradients(ys, xs, grad_ys=grad_ys, **kwargs)
    # TensorFlow may answer IndexedSlices (gather's gradient, kept sparse through a v1 loop); compare dense values.
    out = [tf.convert_to_tensor(g) if hasattr(g, "dense_shape") else g for g in out]
    _CALLS.append(GradientCall(ys, xs, grad_ys, out, fd and not kwargs.get("stop_gradients")))
    return out


def build_program(tf, build):
    """Build `build` in a fresh graph with module `tf`: (graph, fetches without None, feeds, init op or None,
    the GradientCalls it made)."""
    graph = tf.Graph()
    del _CALLS[:]
    with graph.as_default():
        fetches, feeds = build(tf)
    calls = list(_CALLS)
    del _CALLS[:]
    feeds = dict(feeds)
    init = feeds.pop(INIT, None)
    return graph, {k: v for k, v in fetches.items() if v is not None}, feeds, init, calls


def run_program(tf, build, config=None):
    """Build `build` in a fresh graph with module `tf` and run it (in a Session made with `config`):
    {key: numpy array}. `None` fetches are left out."""
    graph, fetches, feeds, init, _ = build_program(tf, build)
    return run_built(tf, graph, fetches, feeds, init, config)


def run_built(tf, graph, fetches, feeds, init, config=None):
    """Run a program `build_program` built, in a new Session made with `config`: {key: numpy array}."""
    with graph.as_default(), tf.Session(graph=graph, config=config) as sess:
        if init is not None:
            sess.run(init)
        values = sess.run(fetches, feed_dict=feeds)
    return {key: np.asarray(value) for key, value in values.items()}


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _fed_value(feeds, x):
    """The feed for tensor `x`, looked up by identity (Tensor == may build an op)."""
    return next((v for k, v in feeds.items() if k is x), None)


def finite_difference_targets(calls, feeds):
    """(call, x, gradient tensor) for every gradient a finite difference can check: the call allows it, the
    gradient exists, and x is a fed float Placeholder."""
    out = []
    for call in calls:
        if not call.fd:
            continue
        for x, g in zip(_as_list(call.xs), call.grads):
            op = getattr(x, "op", None)
            if g is None or getattr(op, "type", None) != "Placeholder" or not x.dtype.is_floating:
                continue
            if _fed_value(feeds, x) is not None:
                out.append((call, x, g))
    return out


def finite_difference_check(tf, build, config=None, rel_step=1e-2, rtol=5e-3):
    """Compare every checkable gradient of `build` (see finite_difference_targets) with central differences
    of the forward value, all computed by module `tf`: [(description, problem)].

    tf.gradients(ys, xs, grad_ys) is the derivative of L = sum_i reduce_sum(ys[i] * grad_ys[i]); L is built
    (summed in float64) and evaluated with one element of x moved by +-h and +-h/2, h = rel_step * max(1, |x|),
    and the two central differences are combined by Richardson extrapolation. The programs are float32, so
    the tolerance is relative: |fd - g| <= rtol * (|g| + 0.1 * the largest |g| or |fd| of that x) + the
    rounding of L over the step (30 * eps(x's dtype) * (1 + |L|) / h). Checked against TensorFlow's own
    gradients, every program passes with a tenth of the default rtol."""
    graph, _, feeds, init, calls = build_program(tf, build)
    targets = finite_difference_targets(calls, feeds)
    problems = []
    with graph.as_default():
        objectives = {}
        for call in {id(c): c for c, _, _ in targets}.values():
            ys = _as_list(call.ys)
            gys = _as_list(call.grad_ys) if call.grad_ys is not None else [None] * len(ys)
            terms = []
            for y, gy in zip(ys, gys):
                y64 = tf.cast(y, tf.float64)
                terms.append(tf.reduce_sum(y64 if gy is None else y64 * tf.cast(tf.convert_to_tensor(gy), tf.float64)))
            objectives[id(call)] = tf.add_n(terms) if len(terms) > 1 else terms[0]
        with tf.Session(graph=graph, config=config) as sess:
            if init is not None:
                sess.run(init)

            def run(fetch, x=None, value=None):
                fed = dict(feeds)
                if x is not None:
                    fed = {k: (value if k is x else v) for k, v in fed.items()}
                return np.asarray(sess.run(fetch, feed_dict=fed), dtype=np.float64)

            for call, x, g in targets:
                objective = objectives[id(call)]
                dtype = x.dtype.as_numpy_dtype
                x0 = np.array(_fed_value(feeds, x), dtype=dtype)
                grad = run(g)
                l0 = float(run(objective))
                fd = np.zeros(x0.shape)
                steps = np.zeros(x0.shape)
                for k in np.ndindex(*x0.shape):
                    h = rel_step * max(1.0, abs(float(x0[k])))
                    diffs = []
                    for step in (h, h / 2):
                        up, down = x0.copy(), x0.copy()
                        up[k] += dtype(step)
                        down[k] -= dtype(step)
                        width = float(up[k]) - float(down[k])  # the step as rounded to x's dtype
                        diffs.append((float(run(objective, x, up)) - float(run(objective, x, down))) / width)
                    fd[k] = (4.0 * diffs[1] - diffs[0]) / 3.0
                    steps[k] = h
                what = f"d({', '.join(y.name for y in _as_list(call.ys))}) / d({x.name})"
                if grad.shape != x0.shape:
                    problems.append((what, f"gradient shape {grad.shape} != {x0.shape}"))
                    continue
                scale = max(np.max(np.abs(grad), initial=0.0), np.max(np.abs(fd), initial=0.0))
                rounding = 30.0 * np.finfo(dtype).eps * (1.0 + abs(l0)) / steps
                allowed = rtol * (np.abs(grad) + 0.1 * scale) + rounding
                if not np.all(np.abs(fd - grad) <= allowed):
                    problems.append((what, f"gradient {grad.tolist()} != finite differences {fd.round(6).tolist()}"))
    return problems


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
    return {"i": i, "v": v, "gx": grads(tf, v, x)[0]}, {x: 1.5}


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
    return {"k": k, "x": x, "err": err, "ga": grads(tf, x, a)[0]}, {a: 10.0}


@program
def float_halving_counter(tf):
    x = tf.placeholder(tf.float32, [])
    n, v = tf.while_loop(lambda n, v: v > 1.0, lambda n, v: (n + 1, v * 0.5), [0, x])
    return {"n": n, "v": v, "gx": grads(tf, v, x)[0]}, {x: 1000.0}


@program
def float64_loop(tf):
    """A float64 loop var stays float64, Python-float operands included."""
    x = tf.placeholder(tf.float64, [2])
    _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 0.1 + 1.0 / 3.0), [0, x])
    return {"v": v, "gx": grads(tf, v * v, x)[0]}, {x: [1.0, -2.0]}


@program
def body_ignores_loop_var(tf):
    """The body's new value does not depend on the old one; it reads a captured placeholder."""
    c = tf.placeholder(tf.float32, [])
    v0 = tf.constant(1.0)
    i, v = tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, c * 2.0), [0, v0])
    gc, gv0 = grads(tf, v, [c, v0])
    return {"i": i, "v": v, "gc": gc, "gv0": gv0}, {c: 2.5}


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
    return {"acc": acc, "n": n, "gx": grads(tf, acc * acc, x)[0]}, {x: [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]}


@program
def loops_in_series_and_parallel(tf):
    """Loop b consumes loop a's output; loop c is independent of both."""
    x = tf.placeholder(tf.float32, [])
    a = tf.while_loop(lambda v: v < 50.0, lambda v: v * 3.0, [x])
    b = tf.while_loop(lambda v: v > 1.0, lambda v: v - 7.0, [a])
    c = tf.while_loop(lambda k, v: k < 4, lambda k, v: (k + 1, v + x), [0, x])[1]
    total = a + b + c
    return {"a": a, "b": b, "c": c, "sum": total, "gx": grads(tf, total, x)[0]}, {x: 2.0}


# ---------------------------------------------------------------------------------------------
# Zero-iteration loops


@program
def zero_iteration_loop(tf):
    """The condition is false on entry: scalar, vector and matrix loop vars come out unchanged."""
    m = tf.placeholder(tf.float32, [2, 2])
    v0 = tf.constant([1.0, 2.0])
    i, v, mm = tf.while_loop(lambda i, v, mm: i < 0,
                             lambda i, v, mm: (i + 1, v * 2.0, tf.matmul(mm, mm)),
                             [tf.constant(5), v0, m])
    gv0, gm = grads(tf, [v, tf.reduce_sum(mm * mm)], [v0, m])
    return {"i": i, "v": v, "m": mm, "gv0": gv0, "gm": gm}, {m: [[1.0, 2.0], [3.0, 4.0]]}


@program
def zero_maximum_iterations(tf):
    """maximum_iterations=0 runs no iteration although the condition holds."""
    start = tf.constant(2.0)
    r = tf.while_loop(lambda v: v < 10.0, lambda v: v * v, [start], maximum_iterations=0)
    return {"r": r, "g": grads(tf, r, start)[0]}, {}


@program
def zero_iteration_fed_bound(tf):
    """A fed bound of 0: the body (whose xs[i] would be out of range) never runs."""
    n = tf.placeholder(tf.int32, [])
    xs = tf.constant([3.0, 4.0])
    acc0 = tf.constant(0.5)
    i, acc = tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * xs[i + 5]), [0, acc0])
    g_acc0, g_xs = grads(tf, acc, [acc0, xs])
    return {"i": i, "acc": acc, "g_acc0": g_acc0, "g_xs": g_xs}, {n: 0}


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
    s = ta.stack()
    weights = tf.constant(np.cos(np.arange(n)).astype(np.float32))
    gx_s = grads(tf, s, x, grad_ys=weights)[0]
    return {"s": s, "total": total, "gx_s": gx_s, "gx_total": grads(tf, total, x)[0]}, {x: [0.1, 0.2, 0.3, 0.4]}


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
    gxs, gw, gu = grads(tf, h, [xs, w, u], grad_ys=tf.constant([[1.0, -2.0]]))
    return {"h": h, "gxs": gxs, "gw": gw, "gu": gu}, \
        {xs: (np.arange(12, dtype=np.float32).reshape(4, 1, 3) - 5.0) * 0.2}


@program
def sigmoid_reductions(tf):
    """sigmoid and reduce_sum/mean/max (whole, per axis, keepdims) in a loop body."""
    m = tf.placeholder(tf.float32, [2, 3])

    def body(i, x, hist):
        y = tf.sigmoid(x) - 0.5 * tf.reduce_mean(x, axis=1, keepdims=True)
        return i + 1, y, hist + tf.reduce_max(y) + tf.reduce_sum(y, axis=0)

    _, x, hist = tf.while_loop(lambda i, x, hist: i < 3, body, [0, m, tf.zeros([3])])
    total, mean = tf.reduce_sum(x), tf.reduce_mean(hist)
    return {"x": x, "hist": hist, "total": total, "mean": mean, "row_max": tf.reduce_max(x, axis=1),
            "gm": grads(tf, [total, mean], m)[0]}, {m: [[0.5, -1.0, 2.0], [3.0, 0.0, -0.25]]}


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
    gm = grads(tf, out, m, grad_ys=tf.constant([[1.0, -1.0, 2.0], [0.5, 3.0, -2.0]]))[0]
    return {"out": out, "perm": tf.transpose(cube, [2, 0, 1]),
            "stack1": tf.stack([out, out * 2.0], axis=1), "gm": gm}, {m: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]}


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
    return {"i": i, "acc": acc, "gw": grads(tf, acc * acc, w)[0]}, {w: 0.5}


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
    return {"total": total, "count": count, "gtable": grads(tf, total, table)[0]}, {}


@program
def nested_matrix_powers(tf):
    """The outer loop sums A^k for k < 4; the inner loop builds A^k by repeated matmul."""
    a = tf.placeholder(tf.float32, [2, 2])
    eye = tf.constant([[1.0, 0.0], [0.0, 1.0]])

    def outer(k, total):
        _, p = tf.while_loop(lambda j, p: j < k, lambda j, p: (j + 1, tf.matmul(p, a)), [0, eye])
        return k + 1, total + p

    _, total = tf.while_loop(lambda k, total: k < 4, outer, [0, tf.zeros([2, 2])])
    return {"total": total, "ga": grads(tf, total, a)[0]}, {a: [[0.5, 1.0], [-0.25, 0.75]]}


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
    return {"a": a, "b": b, "gx": grads(tf, [a * a, b], x)[0]}, {p: p_value, x: [1.5, -2.0]}


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
        fetches[f"g{value}"] = grads(tf, fetches[f"p{value}"], x)[0]
        feeds[p] = value
    return fetches, feeds


def _nested_cond(tf, po_value, pi_value):
    """T09's forward value; the outer true branch returns a plain Python float."""
    po = tf.placeholder(tf.bool, [])
    pi = tf.placeholder(tf.bool, [])
    x = tf.constant(1.0)
    y = tf.constant(2.0)
    out = tf.cond(po, lambda: 2.0, lambda: tf.cond(pi, lambda: x * y * 2.0, lambda: x * 5.0))
    gx, gy = grads(tf, out, [x, y])
    return {"out": out, "gx": gx, "gy": gy}, {po: po_value, pi: pi_value}


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
    return {"r": r, "g": grads(tf, r, [n])[0]}, {p: p_value}


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
    return {"i": i, "v": v, "gx": grads(tf, v * v, x)[0]}, {p: p_value, x: 2.0}


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

    acc0 = tf.constant(0.0)
    i, acc = tf.while_loop(lambda i, acc: i < 6, outer, [0, acc0])
    return {"i": i, "acc": acc, "g": grads(tf, acc * acc, acc0)[0]}, {}


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

    v0 = tf.constant(1.0)
    _, v = tf.while_loop(lambda i, v: i < 7, body, [0, v0])
    return {"v": v, "g": grads(tf, v, v0)[0]}, {}


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
    leaves = [c(0.0), c(1.0), c(2.0), c(3.0), c(4.0)]
    lv = [Pair(a=leaves[0], b=leaves[1]), (leaves[2], leaves[3]), leaves[4]]
    b = lambda lv0, lv1, lv2: [Pair(a=lv0.a + 1, b=lv0.b), (lv1[0] + 1, lv1[1]), lv2 + 2]
    r = tf.while_loop(lambda lv0, _1, _2: lv0.a < 100.0, b, lv)
    kinds = [isinstance(r, list), isinstance(r[0], Pair),
             isinstance(r[1], tuple) and not isinstance(r[1], Pair)]
    g = grads(tf, [r[0].a * r[0].b, r[1][0] + r[1][1], r[2] * r[2]], leaves)
    return {"a": r[0].a, "b": r[0].b, "t0": r[1][0], "t1": r[1][1], "x": r[2],
            "kinds": tf.constant(kinds), "g": tf.stack(g)}, {}


@program
def dict_in_list_loop_vars(tf):
    """Loop vars [counter, {"pos", "vel"}, total]: a dict inside the loop-var list."""
    x = tf.placeholder(tf.float32, [2])

    def body(i, state, total):
        new = {"pos": state["pos"] + state["vel"], "vel": state["vel"] * 0.5}
        return [i + 1, new, total + tf.reduce_sum(new["pos"])]

    i, state, total = tf.while_loop(lambda i, state, total: i < 4, body,
                                    [0, {"pos": tf.zeros([2]), "vel": x}, tf.constant(0.0)])
    gx = grads(tf, [total, state["pos"] * state["vel"]], x)[0]
    return {"i": i, "pos": state["pos"], "vel": state["vel"], "total": total, "gx": gx}, {x: [1.0, -2.0]}


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
    s = ta.stack()
    gx = grads(tf, s * s, x)[0]
    return {"stack": s, "size": ta.size(), "gx": gx}, {x: [2.0, -0.5]}


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
    cumsum = out.stack()
    gxs = grads(tf, [acc * acc, cumsum], xs)[0]
    return {"acc": acc, "cumsum": cumsum, "gxs": gxs}, {xs: np.arange(10, dtype=np.float32).reshape(5, 2)}


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
    clipped = tf.where(x > 0.0, x, tf.zeros_like(x))
    picked = tf.gather(x, [4, 0, 2])
    return {
        "clipped": clipped,
        "as_int": as_int,
        "as_bool": as_bool,
        "back": tf.cast(as_bool, tf.float32),
        "picked": picked,
        "rows": tf.gather(tf.reshape(tf.range(6), [3, 2]), tf.constant([2, 0])),
        "acc": acc,
        "gx": grads(tf, [clipped * clipped, picked * 2.0, acc * acc], x)[0],
    }, {x: [-1.7, 2.5, 0.4, -0.2, 3.9]}


@program
def slicing(tf):
    """Static slices, negative indices, strides, and t[i] / t[i, 1:] with a tensor i inside a loop."""
    t = tf.placeholder(tf.float32, [4, 3])

    def body(i, acc, diag):
        return i + 1, acc + t[i], diag + t[i, 1:] * t[i, i % 3]

    _, acc, diag = tf.while_loop(lambda i, acc, diag: i < 4, body, [0, tf.zeros([3]), tf.zeros([2])])
    rows, tail, elem = t[1:3], t[-2:, 1:], t[2, 0]
    gt = grads(tf, [acc * acc, diag, rows * 3.0, tail * tail, elem * elem, t[::2] * 0.5], t)[0]
    return {
        "rows": rows, "col": t[:, 1], "last": t[-1], "step": t[::2], "elem": elem,
        "tail": tail, "acc": acc, "diag": diag, "gt": gt,
    }, {t: np.arange(12, dtype=np.float32).reshape(4, 3) - 4.0}


@program
def identity_and_stop_gradient(tf):
    """identity and stop_gradient pass values through unchanged, inside and outside a loop."""
    x = tf.placeholder(tf.float32, [3])
    _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.identity(v) + tf.stop_gradient(v * 0.5)),
                         [0, x])
    sg = tf.stop_gradient(tf.identity(v)) - 1.0
    # d v / d x is 1 (the stop_gradient half carries none); d sg / d x is None, so "gsg" is dropped.
    return {"v": v, "sg": sg, "gx": grads(tf, v * v, x, fd=False)[0], "gsg": grads(tf, sg, x)[0]}, \
        {x: [1.0, -2.0, 0.5]}


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
    return {"i": i, "v": v, "after": after, "ti": ti, "tv": tv, "gx": grads(tf, v, x)[0]}, {x: 2.0}


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
    gw, gb, gscale = grads(tf, x, [w, b, scale])
    return {"i": i, "x": x, "w": tf.identity(w), "gw": gw, "gb": gb, "gscale": gscale}, \
        {INIT: tf.global_variables_initializer()}


# ---------------------------------------------------------------------------------------------
# Session.run corners and mixed nesting


@program
def feed_intermediate_tensor(tf):
    """A feed may replace any tensor, not only a placeholder: the loop sees the fed value."""
    x = tf.placeholder(tf.float32, [])
    doubled = x * 2.0
    r = tf.while_loop(lambda v: v < 100.0, lambda v: v * doubled, [tf.constant(1.0)])
    # The gradient graph is built symbolically: d r / d x is (d r / d doubled) * 2, evaluated at the fed value.
    gx, gd = grads(tf, r, [x, doubled], fd=False)
    return {"r": r, "doubled": doubled, "gx": gx, "gd": gd}, {x: 1.0, doubled: 3.0}


@program
def placeholder_with_default_unfed(tf):
    """An unfed placeholder_with_default takes its default, inside a loop condition too."""
    limit = tf.placeholder_with_default(tf.constant(6), [])
    step = tf.placeholder_with_default(tf.constant(0.5), [])
    i, v = tf.while_loop(lambda i, v: i < limit, lambda i, v: (i + 1, v + step), [0, tf.constant(0.0)])
    return {"i": i, "v": v, "same": tf.identity(v), "again": v, "gstep": grads(tf, v * v, step)[0]}, {}


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
    # v = 10.02 is just past the first loop's bound 10.0: a finite difference would change n.
    return {"n": n, "v": v, "r": r, "gx": grads(tf, [v, r], x, fd=False)[0]}, {x: 1.2}


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


# =============================================================================================
# Gradients. The programs above fetch gradients too where they have float inputs; the ones below are
# about gradients first. `tNN_` programs are the cases of sections 3 D and E (and F's gradient calls inside
# loop bodies) of /work/shared/reference/tensorflow-control-flow.md; the others are cfnb's own.


# ---------------------------------------------------------------------------------------------
# Section 3 D: gradients through while_loop


@program
def t24_square_grad(tf):
    """testWhileGrad_Square, _MultipleUses, _LoopAdd: v -> v^8 by repeated squaring, a cond after the loop."""
    v = tf.constant(2.0)
    r = tf.while_loop(lambda v: v < 100.0, tf.square, [v], parallel_iterations=1)
    rc = tf.cond(tf.less(1, 2), lambda: r, lambda: v)
    return {"r": rc, "g": grads(tf, rc, v)[0], "g_mul": grads(tf, r * r, v)[0],
            "g_add": grads(tf, r + r, v)[0]}, {}


def _t25(tf, parallel_iterations):
    a = tf.constant(3.0)
    v = tf.constant(2.0)
    r = tf.while_loop(lambda v: v < 100.0, lambda v: v * a, [v], parallel_iterations=parallel_iterations)
    ga, gv = grads(tf, r, [a, v])
    return {"r": r, "ga": ga, "gv": gv}, {}


@program
def t25_mul_invariant_p1(tf):
    """testWhileGrad_Mul: a loop invariant's gradient (216) and the loop var's (81), serial loop."""
    return _t25(tf, 1)


@program
def t25_mul_invariant_p10(tf):
    return _t25(tf, 10)


@program
def t26_ys_xs(tf):
    """testWhileGrad_ys_xs: coupled loop vars; differentiating rx alone leaves ry's exit unused."""
    x = tf.constant(3.0)
    y = tf.constant(2.0)

    def body(x, y):
        y1 = x + y
        return x * y1, y1

    rx, ry = tf.while_loop(lambda x, y: x < 100.0, body, [x, y], parallel_iterations=1)
    gx_both, gy_both = grads(tf, [rx, ry], [x, y])
    gx_rx, gy_rx = grads(tf, [rx], [x, y])
    return {"rx": rx, "ry": ry, "gx_both": gx_both, "gy_both": gy_both, "gx_rx": gx_rx, "gy_rx": gy_rx}, {}


@program
def t27_zero_iteration_base_shape(tf):
    """testWhileGrad_BaseShape: zero iterations; the invariant x's accumulator needs x's runtime shape."""
    x = tf.placeholder(tf.float32, [None])
    v0 = tf.constant([2.0, 2.0])
    r = tf.while_loop(lambda v: tf.constant(False), lambda v: v * x, [v0])
    return {"r": r, "g": grads(tf, [r, tf.square(x)], x)[0]}, {x: [1.0, 2.0]}


@program
def t28_body_ignores_loop_var(tf):
    """testWhileGrad_Const and testWhileWithControl_2."""
    c0 = tf.constant(0.0)
    c1 = tf.constant(1.0)
    t = tf.while_loop(lambda d, _: d < 1, lambda d, _: (d + 1, c1), [tf.constant(0), c0])

    def body(r):
        with tf.control_dependencies([r]):
            return tf.constant(12)

    r = tf.while_loop(lambda r: r < 10, body, [tf.constant(0)], parallel_iterations=1)
    g_c0, g_c1 = grads(tf, tf.reduce_sum(t[1]), [c0, c1])
    return {"t1": t[1], "g_c0": g_c0, "g_c1": g_c1, "r": r}, {}


@program
def t29_back_prop_false(tf):
    """testWhileGrad_NoGradient: back_prop=False cuts the loop out of the gradient; G(r, v) is None."""
    v = tf.constant(2.0)
    r = tf.while_loop(lambda v: v < 100.0, tf.square, [v], back_prop=False)
    x = tf.placeholder(tf.float32, [])
    _, rx = tf.while_loop(lambda i, u: i < 3, lambda i, u: (i + 1, u * x), [0, x], back_prop=False)
    return {"r": r, "g": grads(tf, r + v, v, fd=False)[0], "g_none": grads(tf, r, v)[0],
            "rx": rx, "gx": grads(tf, rx + x * x, x, fd=False)[0], "gx_none": grads(tf, rx, x)[0]}, {x: 1.5}


@program
def t30_serial_two_loops(tf):
    """testWhileGrad_SerialTwoLoops: 1024."""
    i = tf.constant(0)
    x = tf.constant(2.0)
    b = lambda i, x: (i + 1, x * 2.0)
    c = lambda i, x: i < 5
    _, r1 = tf.while_loop(c, b, [i, x], parallel_iterations=1)
    _, r2 = tf.while_loop(c, b, [i, r1], parallel_iterations=1)
    return {"r2": r2, "g": grads(tf, r2, x)[0]}, {}


@program
def t30_parallel_two_loops(tf):
    """testWhileGrad_ParallelTwoLoops: 64."""
    i = tf.constant(0)
    x = tf.constant(2.0)
    b = lambda i, x: (i + 1, x * 2.0)
    c = lambda i, x: i < 5
    _, p1 = tf.while_loop(c, b, [i, x])
    _, p2 = tf.while_loop(c, b, [i, x])
    return {"p": p1 + p2, "g": grads(tf, p1 + p2, x)[0]}, {}


@program
def t31_nested_simple(tf):
    """testNestedWhileGrad_Simple: r=8, grad 8."""
    v = tf.constant(1.0)
    inner = lambda s: tf.while_loop(lambda x: x < 4.0, lambda x: x * 2.0, [s])
    r = tf.while_loop(lambda x: x < 2.0, lambda x: inner(x) * 2.0, [v])
    return {"r": r, "g": grads(tf, r, v)[0]}, {}


def _t31_inner(tf, s):
    return tf.while_loop(lambda i, x: i < 4, lambda i, x: [i + 1, x * 2.0], [tf.constant(0), s])


@program
def t31_serial_inner(tf):
    """testNestedWhileGrad_SerialInner: r=256, grad 256."""
    v = tf.constant(1.0)
    r = tf.while_loop(lambda x: x < 128.0, lambda x: _t31_inner(tf, _t31_inner(tf, x)[1])[1], [v])
    return {"r": r, "g": grads(tf, r, v)[0]}, {}


@program
def t31_parallel_inner(tf):
    """testNestedWhileGrad_ParallelInner: r=256, grad 512."""
    v = tf.constant(1.0)
    r = tf.while_loop(lambda x: x < 128.0, lambda x: _t31_inner(tf, x)[1] * _t31_inner(tf, x)[1], [v])
    return {"r": r, "g": grads(tf, r, v)[0]}, {}


@program
def t32_cond_in_while_grad(tf):
    """testWhileCondGrad_Simple: 1024; testNestedWhileCondWhileGrad: 512."""
    v = tf.constant(2.0)
    n = tf.constant(100.0)
    one = tf.constant(1.0)
    r = tf.while_loop(lambda x: x < n, lambda x: tf.cond(tf.constant(True), lambda: tf.square(x), lambda: x - one),
                      [v])
    w = tf.constant(1.0)
    r2 = tf.while_loop(lambda x: x < 128.0,
                       lambda x: tf.cond(tf.constant(True), lambda: tf.square(_t31_inner(tf, x)[1]),
                                         lambda: x * 2.0), [w])
    return {"r": r, "g": grads(tf, r, v)[0], "r2": r2, "g2": grads(tf, r2, w)[0]}, {}


def _t32_pred(tf, p_value, second_order=False):
    """testWhileCondGradMultiDevice without devices: 8 or 0. The second derivative is None under CFv1
    (0 under CFv2); it has programs of its own."""
    pred = tf.placeholder(tf.bool, [])
    x0 = tf.constant(1.0)
    _, z = tf.while_loop(lambda i, _: i < 3, lambda i, x: (i + 1, tf.cond(pred, lambda: x * 2.0, lambda: 10.0)),
                         [0, x0])
    g = grads(tf, z, x0)[0]
    if second_order:
        return {"g": g, "gg": grads(tf, g, x0)[0]}, {pred: p_value}
    return {"z": z, "g": g}, {pred: p_value}


@program
def t32_pred_in_while_true(tf):
    return _t32_pred(tf, True)


@program
def t32_pred_in_while_false(tf):
    return _t32_pred(tf, False)


@program
def t32_pred_in_while_second_order_true(tf):
    return _t32_pred(tf, True, second_order=True)


@program
def t32_pred_in_while_second_order_false(tf):
    return _t32_pred(tf, False, second_order=True)


def _t33_loop(tf, x, y, inside=False):
    def body(x, y):
        y1 = tf.square(y)
        if inside:
            y1 = tf.stop_gradient(y1)
        return tf.square(x) + y1, y1

    return tf.while_loop(lambda x, y: x < 100.0, body, [x, y])


@program
def t33_stop_gradient(tf):
    """testWhileGrad_StopGrad. G(stop_gradient(rx), y) and G(stop_gradient(rx + ry), x) are None (dropped)."""
    x = tf.constant(3.0)
    y = tf.constant(2.0)
    rx, ry = _t33_loop(tf, x, y)
    sg = tf.stop_gradient
    return {"rx": rx, "ry": ry,
            "rx_y": grads(tf, rx, y)[0], "ry_y": grads(tf, ry, y)[0], "sum_y": grads(tf, rx + ry, y)[0],
            "rx_sgry_y": grads(tf, rx + sg(ry), y)[0], "sgrx_ry_y": grads(tf, sg(rx) + ry, y)[0],
            "sgrx_y": grads(tf, sg(rx), y)[0], "sgsum_x": grads(tf, sg(rx + ry), x)[0]}, {}


@program
def t33_stop_gradient_inside(tf):
    """testWhileGrad_StopGradInside: 0 and 156."""
    x = tf.constant(3.0)
    y = tf.constant(2.0)
    rx, _ = _t33_loop(tf, x, y, inside=True)
    return {"rx": rx, "gy": grads(tf, rx, y)[0], "gx": grads(tf, rx, x)[0]}, {}


@program
def t33_stop_gradient_on_while_grad(tf):
    """testStopGradOnWhileGrad: 388."""
    x = tf.constant(2.0)
    y = tf.constant(2.0)
    rx = tf.while_loop(lambda x: x < 100.0, lambda x: x * y, [x])
    gy = grads(tf, rx, y)[0]
    return {"rx": rx, "gy": gy, "g": grads(tf, tf.square(y) + rx + tf.stop_gradient(gy), y)[0]}, {}


@program
def t34_maximum_iterations_grad(tf):
    """testWhileGradAfterSessionRun / testNestedWhileGradAfterSessionRun (without the early run): a constant
    True condition, only maximum_iterations stops the loops. 1024 both."""
    v0 = tf.constant(2.0)
    r = tf.while_loop(lambda _: True, lambda v: v * v, [v0], maximum_iterations=3)
    v1 = tf.constant(2.0)
    body = lambda v: tf.while_loop(lambda _: True, lambda x: x * v, [tf.constant(1.0)], maximum_iterations=2)
    r2 = tf.while_loop(lambda _: True, body, [v1], maximum_iterations=3)
    return {"r": r, "g": grads(tf, r, v0)[0], "r2": r2, "g2": grads(tf, r2, v1)[0]}, {}


def _t35(tf, second_order):
    x = tf.constant(2.0)
    ret = tf.while_loop(lambda v: v < 8.0, lambda v: v ** 2, [x])
    g = grads(tf, ret, [x])[0]
    r1 = tf.while_loop(lambda v: v < 4.0, lambda v: v * v, [x])
    r2 = tf.while_loop(lambda v: v < 16.0, lambda v: v * v, [r1])
    g2 = grads(tf, r2, [x])[0]
    if second_order:
        return {"gg": grads(tf, g, [x])[0], "gg2": grads(tf, g2, [x])[0]}, {}
    return {"ret": ret, "g": g, "r2": r2, "g2": g2}, {}


@program
def t35_double_derivative(tf):
    """testDoubleDerivative, testMultipleWhileLoops, first derivatives: 32 and 32."""
    return _t35(tf, False)


@program
def t35_double_derivative_second_order(tf):
    """Their second derivatives: 48 under CFv2; None (both keys dropped) under CFv1, where the history stacks
    cut the path from x to the gradient loop."""
    return _t35(tf, True)


@program
def t35_scan_variable(tf):
    """testWhileGradGradFail's first-order part: tf.scan over a Variable, gradient 7 (res = [1, 3, 6])."""
    theta = tf.Variable(1.0)
    res = tf.scan(lambda prev, e: prev + e * theta, np.array([1.0, 2.0, 3.0], np.float32))
    return {"res": res, "gt": grads(tf, res, theta)[0]}, {INIT: tf.global_variables_initializer()}


@program
def t36_multiple_loop_vars(tf):
    """testMultipleLoopVars: [120, 23]; 39, 4, 43, 55, 6, 61."""
    x = tf.constant(5.0)
    y = tf.constant(3.0)
    ret = tf.while_loop(lambda v, _: v < 45.0, lambda v, w: (v * w, v + w), [x, y])
    g = {}
    for key, ys in (("0", ret[0]), ("1", ret[1]), ("both", ret)):
        g["gx_" + key], g["gy_" + key] = grads(tf, ys, [x, y])
    return {"r0": ret[0], "r1": ret[1], **g}, {}


@program
def t36_capture_external(tf):
    """testCaptureExternalTensorInBody (9, 12) and testCaptureExternalTensorInCond (9)."""
    x = tf.constant(2.0)
    y3 = tf.constant(3.0)
    r = tf.while_loop(lambda v: v < 8.0, lambda v: v * y3, [x])
    gx, gy3 = grads(tf, r, [x, y3])
    y1 = tf.constant(1.0)
    r_c = tf.while_loop(lambda v: v + y1 < 9.0, lambda v: v * 3.0, [x])
    gx_c, gy1 = grads(tf, r_c, [x, y1])
    # y1 reaches r_c only through the loop condition: no gradient (None, dropped).
    return {"r": r, "gx": gx, "gy3": gy3, "r_c": r_c, "gx_c": gx_c, "gy1": gy1}, {}


@program
def t37_nested_outer_captured(tf):
    """testNestedWhile: sum_{k=0..5} 3^k = 364; gradient w.r.t. the outer-captured n is 547."""
    n = tf.constant(3.0)
    m = tf.constant(5.0)
    s0 = tf.constant(0.0)

    def body(i, prev):
        inner = tf.while_loop(lambda c, _: c > 0, lambda c, v: (c - 1.0, v * n), [i, tf.constant(1.0)])[1]
        return i - 1.0, prev + inner

    res = tf.while_loop(lambda i, _: i >= 0, body, [m, s0])[1]
    return {"res": res, "gn": grads(tf, res, [n])[0]}, {}


# ---------------------------------------------------------------------------------------------
# Section 3 E: TensorArray in loops


def _map_by_hand(tf, fn, elems):
    """What tf.map_fn builds: unstack into a TensorArray, read/apply/write in a while_loop, stack."""
    n = tf.shape(elems)[0]
    inp = tf.TensorArray(elems.dtype, size=n).unstack(elems)
    out = tf.TensorArray(elems.dtype, size=n)
    _, out = tf.while_loop(lambda i, o: i < n, lambda i, o: (i + 1, o.write(i, fn(inp.read(i)))), [0, out])
    result = out.stack()
    result.set_shape(elems.shape)  # as map_fn does: the loop var keeps its static shape
    return result


@program
def t38_map_in_while_by_hand(tf):
    """testWhileAndTensorArray with tf.map_fn written out: y0 * 2^10, gradient 107520; alone 21."""
    param = tf.constant(2.0)
    y0 = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    r = tf.while_loop(lambda i, _: i < 10, lambda i, y: [i + 1, _map_by_hand(tf, lambda x: x * param, y)],
                      [tf.constant(0), y0], parallel_iterations=1)
    alone = _map_by_hand(tf, lambda x: x * param, y0)
    # r[1]: the test differentiates the whole list r, int32 counter included (see grad_int_ys_in_list).
    return {"r": r[1], "g": grads(tf, r[1], param)[0], "alone": alone, "g_alone": grads(tf, alone, param)[0]}, {}


@program
def t38_map_fn_in_while(tf):
    """testWhileAndTensorArray as written, with tf.map_fn."""
    param = tf.constant(2.0)
    y0 = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    r = tf.while_loop(lambda i, _: i < 10, lambda i, y: [i + 1, tf.map_fn(lambda x: x * param, y)],
                      [tf.constant(0), y0], parallel_iterations=1)
    alone = tf.map_fn(lambda x: x * param, y0)
    return {"r": r[1], "g": grads(tf, r, param)[0], "alone": alone, "g_alone": grads(tf, alone, param)[0]}, {}


@program
def t39_nested_ta_write(tf):
    """testNestedWhileAndTensorArray: a TensorArray written from an inner loop, [[1,2,3],[2,4,6],[3,6,9]];
    with the gradient of the weighted table w.r.t. n."""
    n = tf.constant(3.0)

    def body(row, ta):
        def inner(row, col, ta):
            ta = ta.write(tf.cast(n * (row - 1.0) + col - 1.0, tf.int32), row * col * n)
            return row, col + 1.0, ta

        ta = tf.while_loop(lambda _, col, _1: col <= n, inner, [row, tf.constant(1.0), ta])[2]
        return row + 1.0, ta

    ta = tf.while_loop(lambda row, _: row <= n, body, [tf.constant(1.0), tf.TensorArray(tf.float32, size=9)])[1]
    table = tf.reshape(ta.stack(), [3, 3])
    return {"table": table, "gn": grads(tf, table, n)[0]}, {}


@program
def t39_ta_read_previous(tf):
    """testGradSerialTwoLoops: each element is twice the previous one (a TensorArray read inside a cond inside
    the loop), a second loop writes the rest; gradient 31."""
    x = tf.constant(2.0)
    acc = tf.TensorArray(tf.float32, size=100, clear_after_read=False, element_shape=tf.TensorShape([]))

    def body(i, acc):
        return i + 1, acc.write(i, tf.cond(tf.equal(i, 0), lambda: x, lambda: acc.read(i - 1) * 2.0))

    i1, acc1 = tf.while_loop(lambda i, acc: i < 5, body, [tf.constant(0), acc])
    _, acc2 = tf.while_loop(lambda i, acc: i < 100, lambda i, acc: (i + 1, acc.write(i, tf.constant(0.0))),
                            [i1, acc1])
    s = acc2.stack()
    return {"head": s[:6], "g": grads(tf, s, [x])[0]}, {}


def _t39_write_pack(tf, dynamic_size):
    """testWhileLoopWritePackGradients with v0[time] for tf.slice and placeholders for the Variable."""
    v0 = tf.placeholder(tf.float32, [3, 5])
    state0 = tf.placeholder(tf.float32, [5])
    var = tf.placeholder(tf.float32, [5])
    ta = tf.TensorArray(tf.float32, size=0 if dynamic_size else 3, dynamic_size=dynamic_size)
    time_0 = tf.identity(0)

    def body(time, ta_t, state):
        sliced = v0[time]
        out = sliced + var + state
        state += sliced
        return time + 1, ta_t.write(time, out), state

    _, h_final, _ = tf.while_loop(lambda time, _1, _2: time < 3, body, (time_0, ta, state0),
                                  shape_invariants=(time_0.get_shape(), tf.TensorShape(None), tf.TensorShape(None)),
                                  parallel_iterations=3)
    vout = h_final.stack()
    grad_val = -np.arange(15, dtype=np.float32).reshape(3, 5)
    dv0, dvar, dstate0 = grads(tf, [vout], [v0, var, state0], grad_ys=[grad_val])
    return {"vout": vout, "dv0": dv0, "dvar": dvar, "dstate0": dstate0}, {
        v0: np.arange(15, dtype=np.float32).reshape(3, 5), state0: np.ones(5, np.float32),
        var: np.arange(100, 105, dtype=np.float32)}


@program
def t39_write_pack_gradients(tf):
    return _t39_write_pack(tf, False)


@program
def t39_write_pack_gradients_dynamic(tf):
    return _t39_write_pack(tf, True)


# ---------------------------------------------------------------------------------------------
# Section 3 F: tf.gradients called inside loop bodies and branches


@program
def t40_gradients_inside_loops(tf):
    """testCallGradInLoop (600), testWhileGradInCond (9), testWhileGradInWhile (9), testCondGradInNestedWhiles
    (3, 1)."""
    params = tf.constant(5.0)
    p1 = tf.square(params)
    b = lambda i, x: (i + 1, x + tf.gradients(tf.constant([1.0, 2.0, 3.0]) * p1, params)[0])
    call_in_loop = tf.while_loop(lambda i, _: i < 10, b, [tf.constant(0), tf.constant(0.0)])[1]

    x = tf.placeholder(tf.float32)
    n = tf.constant(1.0)
    fn1 = lambda: tf.gradients(tf.while_loop(lambda n: n < 10.0, lambda n: n + x, [n], [tf.TensorShape(None)]),
                               x)[0]
    in_cond = tf.cond(tf.less(1, 2), fn1, lambda: x)
    in_while = tf.while_loop(
        lambda n: n < 6.0,
        lambda n: tf.gradients(tf.while_loop(lambda n: n < 10.0, lambda n: n + x, [n], [tf.TensorShape(None)]), x),
        [n], [tf.TensorShape(None)])

    def inner_body(j, x):
        y = tf.cond(tf.less(x, 1), lambda: 2 * x, lambda: x)
        return j + 1, tf.gradients(y, x)[0]

    i, v = tf.while_loop(lambda i, x: i < 3,
                         lambda i, x: (i + 1, tf.while_loop(lambda j, x: j < 3, inner_body, [0, 0.0])[1]), [0, 0.0])
    return {"call_in_loop": call_in_loop, "in_cond": in_cond, "in_while": in_while, "i": i, "v": v}, {x: 1.0}


# ---------------------------------------------------------------------------------------------
# cond gradients (section 3 B) and hessians


def _t08(tf, p_value):
    """CV2 testSecondDerivative (27/1, 18/0) and T07's gradient-of-gradient (None under CFv1: dropped)."""
    pred = tf.placeholder(tf.bool, [])
    x = tf.constant(3.0)
    cnd = tf.cond(pred, lambda: tf.pow(x, 3.0), lambda: x)
    g = grads(tf, cnd, [x])[0]
    xp = tf.placeholder(tf.float32, [])
    yp = tf.placeholder(tf.float32, [])
    z = tf.cond(pred, lambda: xp * yp * 2.0, lambda: 2.0)
    gz = grads(tf, z, xp)[0]
    return {"cnd": cnd, "g": g, "gg": grads(tf, g, [x])[0], "gz": gz, "ggz": grads(tf, gz, xp)[0]}, \
        {pred: p_value, xp: 1.0, yp: 2.0}


@program
def t08_second_derivative_true(tf):
    return _t08(tf, True)


@program
def t08_second_derivative_false(tf):
    return _t08(tf, False)


@program
def hessians_smooth(tf):
    """tf.hessians of a loop-free function of a vector (TensorFlow builds it with a while_loop over the
    gradient's elements and tf.gradients inside the body)."""
    x = tf.placeholder(tf.float32, [3])
    y = tf.reduce_sum(tf.sin(x) * tf.square(x)) + tf.reduce_prod(x)
    return {"y": y, "h": tf.hessians(y, x)[0]}, {x: [0.5, -1.0, 2.0]}


def _hessians_cond(tf, p_value):
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [2])
    y = tf.cond(p, lambda: tf.reduce_sum(x * x * x), lambda: tf.reduce_prod(x) + tf.reduce_sum(tf.sin(x)))
    return {"y": y, "g": grads(tf, y, x)[0], "h": tf.hessians(y, x)[0]}, {p: p_value, x: [1.5, -2.0]}


@program
def hessians_cond_true(tf):
    return _hessians_cond(tf, True)


@program
def hessians_cond_false(tf):
    return _hessians_cond(tf, False)


@program
def hessians_slicing(tf):
    """A second derivative through slicing needs the gradient of StridedSliceGrad."""
    x = tf.placeholder(tf.float32, [2])
    y = x[0] * x[1] + tf.square(x[1])
    return {"y": y, "h": tf.hessians(y, x)[0]}, {x: [1.5, -2.0]}


# ---------------------------------------------------------------------------------------------
# Nested loops


@program
def grad_nested_two_levels(tf):
    """The inner trip count is the outer counter + 1; the inner body multiplies by x and adds the counters."""
    x = tf.placeholder(tf.float32, [])
    s0 = tf.placeholder(tf.float32, [])

    def outer(i, s):
        _, s = tf.while_loop(lambda j, t: j < i + 1,
                             lambda j, t: (j + 1, t * x + tf.cast(i + j, tf.float32) * 0.1), [0, s])
        return i + 1, tf.tanh(s)

    _, s = tf.while_loop(lambda i, s: i < 3, outer, [0, s0])
    gx, gs0 = grads(tf, s, [x, s0])
    return {"s": s, "gx": gx, "gs0": gs0}, {x: 0.9, s0: 0.4}


@program
def grad_nested_three_levels(tf):
    """Three float levels, each with its own trip count; the innermost reads w (captured from outside all
    three) and the middle level's loop var."""
    x = tf.placeholder(tf.float32, [2])
    w = tf.placeholder(tf.float32, [])

    def level1(i, v):
        def level2(j, u):
            def level3(k, t):
                return k + 1, tf.sin(t * w) + u * 0.3

            _, t = tf.while_loop(lambda k, t: k < 2, level3, [0, u])
            return j + 1, t * 0.5 + u * 0.5

        _, u = tf.while_loop(lambda j, u: j < i + 1, level2, [0, v])
        return i + 1, u + v * w

    _, v = tf.while_loop(lambda i, v: i < 3, level1, [0, x])
    gx, gw = grads(tf, tf.reduce_sum(v * v), [x, w])
    return {"v": v, "gx": gx, "gw": gw}, {x: [0.3, -0.8], w: 1.1}


@program
def grad_nested_parallel_iterations(tf):
    """An outer loop with parallel_iterations=32 around an inner serial loop (parallel_iterations=1) and an
    inner loop with 10, both reading the outer counter and a captured vector."""
    x = tf.placeholder(tf.float32, [3])
    ta = tf.TensorArray(tf.float32, size=6)

    def outer(i, ta):
        fi = tf.cast(i, tf.float32)
        _, a = tf.while_loop(lambda j, a: j < 3, lambda j, a: (j + 1, a * 0.5 + tf.sin(x * fi)), [0, x],
                             parallel_iterations=1)
        _, b = tf.while_loop(lambda j, b: j < i, lambda j, b: (j + 1, b + tf.square(a) * 0.1), [0, a],
                             parallel_iterations=10)
        return i + 1, ta.write(i, tf.reduce_sum(b))

    _, ta = tf.while_loop(lambda i, ta: i < 6, outer, [0, ta], parallel_iterations=32)
    s = ta.stack()
    return {"s": s, "gx": grads(tf, s, x, grad_ys=tf.constant([1.0, -1.0, 0.5, 2.0, -0.5, 1.5]))[0]}, \
        {x: [0.2, -0.4, 0.7]}


# ---------------------------------------------------------------------------------------------
# cond inside while, while inside cond


@program
def grad_cond_in_while(tf):
    """A cond on the loop var's value in every iteration picks one of two smooth updates."""
    x = tf.placeholder(tf.float32, [])
    a = tf.placeholder(tf.float32, [])

    def body(i, v):
        v = tf.cond(v > 1.0, lambda: tf.sqrt(v) * a, lambda: v * v + a)
        return i + 1, v

    _, v = tf.while_loop(lambda i, v: i < 6, body, [0, x])
    gx, ga = grads(tf, v, [x, a])
    return {"v": v, "gx": gx, "ga": ga}, {x: 0.7, a: 1.3}


@program
def grad_cond_on_counter_in_while(tf):
    """A cond on the counter's parity: even iterations multiply by w, odd ones add sin(v)."""
    x = tf.placeholder(tf.float32, [2])
    w = tf.placeholder(tf.float32, [])

    def body(i, v):
        v = tf.cond(tf.equal(i % 2, 0), lambda: v * w, lambda: v + tf.sin(v))
        return i + 1, v

    _, v = tf.while_loop(lambda i, v: i < 5, body, [0, x])
    gx, gw = grads(tf, tf.reduce_sum(v), [x, w])
    return {"v": v, "gx": gx, "gw": gw}, {x: [0.5, -1.5], w: 0.8}


def _while_in_cond(tf, p_value):
    """Each branch of a fed cond runs its own loop over the same inputs."""
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [2])
    w = tf.placeholder(tf.float32, [])

    def true_fn():
        return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.tanh(v * w) + v), [0, x])[1]

    def false_fn():
        return tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * tf.exp(-w)), [0, x * 2.0])[1]

    r = tf.cond(p, true_fn, false_fn)
    gx, gw = grads(tf, r * r, [x, w])
    return {"r": r, "gx": gx, "gw": gw}, {p: p_value, x: [0.4, -0.9], w: 0.6}


@program
def grad_while_in_cond_true(tf):
    return _while_in_cond(tf, True)


@program
def grad_while_in_cond_false(tf):
    return _while_in_cond(tf, False)


@program
def grad_while_cond_while(tf):
    """A while inside a cond inside a while: the inner loop runs on even outer iterations only."""
    x = tf.placeholder(tf.float32, [])
    w = tf.placeholder(tf.float32, [])

    def outer(i, acc):
        def run_inner():
            return tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s * w + 0.1), [0, acc])[1]

        acc = tf.cond(tf.equal(i % 2, 0), run_inner, lambda: tf.sin(acc) + acc)
        return i + 1, acc

    _, acc = tf.while_loop(lambda i, acc: i < 5, outer, [0, x])
    gx, gw = grads(tf, acc, [x, w])
    return {"acc": acc, "gx": gx, "gw": gw}, {x: 0.3, w: 0.9}


# ---------------------------------------------------------------------------------------------
# Loop invariants, pass-through loop vars, unused exits


@program
def grad_invariant_many_uses(tf):
    """w is captured by the outer loop's condition, used twice in its body, and again in a nested loop's body;
    its gradient sums every use."""
    x = tf.placeholder(tf.float32, [])
    w = tf.placeholder(tf.float32, [])

    def outer(i, v):
        _, u = tf.while_loop(lambda j, u: j < 2, lambda j, u: (j + 1, u * w + w * w * 0.1), [0, v])
        return i + 1, u * w + tf.sin(w) + v * 0.1

    _, v = tf.while_loop(lambda i, v: tf.logical_and(i < 3, v < w * 1000.0), outer, [0, x])
    gx, gw = grads(tf, v, [x, w])
    return {"v": v, "gx": gx, "gw": gw}, {x: 1.3, w: 0.8}


@program
def grad_pass_through_loop_var(tf):
    """p is a loop var that the body hands back unchanged; v reads it."""
    x = tf.placeholder(tf.float32, [2])
    p = tf.placeholder(tf.float32, [])
    _, v, pp = tf.while_loop(lambda i, v, p: i < 4, lambda i, v, p: (i + 1, v * p + 1.0, p), [0, x, p])
    gx, gp = grads(tf, [v, pp * 3.0], [x, p])
    gp_only = grads(tf, pp, p)[0]
    return {"v": v, "pp": pp, "gx": gx, "gp": gp, "gp_only": gp_only}, {x: [0.5, -1.0], p: 1.2}


@program
def grad_unused_exit(tf):
    """Two coupled loop vars; only one output is differentiated, the other's exit is unused."""
    x = tf.placeholder(tf.float32, [])
    y = tf.placeholder(tf.float32, [])

    def body(i, a, b):
        return i + 1, a + tf.sin(b), b * 0.9 + a * 0.1

    _, a, b = tf.while_loop(lambda i, a, b: i < 5, body, [0, x, y])
    ga_x, ga_y = grads(tf, a, [x, y])
    gb_x, gb_y = grads(tf, b, [x, y])
    return {"a": a, "b": b, "ga_x": ga_x, "ga_y": ga_y, "gb_x": gb_x, "gb_y": gb_y}, {x: 0.2, y: 1.1}


@program
def grad_int_counter_float_acc(tf):
    """An int32 counter and an int32 running sum feed a float accumulator through casts."""
    x = tf.placeholder(tf.float32, [])

    def body(i, k, acc):
        fi = tf.cast(i, tf.float32)
        return i + 1, k + i * i, acc * 0.9 + fi * x + tf.cast(k, tf.float32) * 0.01 * acc

    i, k, acc = tf.while_loop(lambda i, k, acc: i < 7, body, [0, 0, x])
    return {"i": i, "k": k, "acc": acc, "gx": grads(tf, acc, x)[0]}, {x: 0.6}


@program
def grad_several_xs(tf):
    """One call, five xs: two placeholders, a constant, an intermediate before the loop and one after it."""
    x = tf.placeholder(tf.float32, [2])
    y = tf.placeholder(tf.float32, [])
    c = tf.constant([0.5, 0.25])
    pre = x * y + c
    _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.tanh(v) * y + c), [0, pre])
    post = v * 2.0
    out = tf.reduce_sum(post * post)
    gx, gy, gc, gpre, gpost = grads(tf, out, [x, y, c, pre, post])
    return {"out": out, "gx": gx, "gy": gy, "gc": gc, "gpre": gpre, "gpost": gpost}, {x: [0.3, -0.6], y: 0.7}


@program
def grad_ys_weights(tf):
    """grad_ys: a weight per element of each of two ys, one of them a placeholder."""
    x = tf.placeholder(tf.float32, [3])
    gy2 = tf.placeholder(tf.float32, [])
    _, v, s = tf.while_loop(lambda i, v, s: i < 3, lambda i, v, s: (i + 1, v * 0.5 + tf.cos(v), s + v),
                            [0, x, tf.zeros([3])])
    total = tf.reduce_sum(s)
    g = grads(tf, [v, total], x, grad_ys=[tf.constant([1.0, -2.0, 0.5]), gy2])[0]
    g_v = grads(tf, v, x, grad_ys=tf.constant([1.0, -2.0, 0.5]))[0]
    return {"v": v, "s": s, "g": g, "g_v": g_v}, {x: [0.1, 0.9, -0.4], gy2: 3.0}


@program
def grad_unconnected(tf):
    """z does not reach y; q reaches it only through the loop condition. Both are None (dropped) by
    default and zeros with unconnected_gradients="zero"."""
    x = tf.placeholder(tf.float32, [2])
    z = tf.placeholder(tf.float32, [3])
    q = tf.placeholder(tf.float32, [])
    _, v = tf.while_loop(lambda i, v: tf.logical_and(i < 3, q > 0.0), lambda i, v: (i + 1, v * v + 0.5), [0, x])
    y = tf.reduce_sum(v)
    gx, gz, gq = grads(tf, y, [x, z, q])
    zx, zz, zq = grads(tf, y, [x, z, q], unconnected_gradients="zero")
    return {"v": v, "gx": gx, "gz": gz, "gq": gq, "zx": zx, "zz": zz, "zq": zq}, \
        {x: [0.5, -0.3], z: [1.0, 2.0, 3.0], q: 1.0}


@program
def grad_stop_gradient_in_body(tf):
    """stop_gradient on part of the body's update: only the other part carries a gradient."""
    x = tf.placeholder(tf.float32, [2])
    w = tf.placeholder(tf.float32, [])

    def body(i, v):
        return i + 1, v * w + tf.stop_gradient(tf.square(v)) * 0.1

    _, v = tf.while_loop(lambda i, v: i < 3, body, [0, x])
    gx, gw = grads(tf, tf.reduce_sum(v), [x, w], fd=False)
    return {"v": v, "gx": gx, "gw": gw}, {x: [0.5, 1.5], w: 0.9}


@program
def grad_stop_gradients_argument(tf):
    """tf.gradients(stop_gradients=...) with a loop output and a loop input among the stopped tensors."""
    x = tf.placeholder(tf.float32, [])
    w = tf.placeholder(tf.float32, [])
    u = x * w
    _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * w + u), [0, u])
    y = v * x
    gx, gw = grads(tf, y, [x, w], stop_gradients=[u])
    gx2, gw2 = grads(tf, y, [x, w], stop_gradients=[v])
    return {"y": y, "gx": gx, "gw": gw, "gx2": gx2, "gw2": gw2}, {x: 0.5, w: 1.5}


@program
def grad_back_prop_false_mixed(tf):
    """A back_prop=False loop next to an ordinary one; only the ordinary one carries a gradient."""
    x = tf.placeholder(tf.float32, [])
    a = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, x], back_prop=False)[1]
    b = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, x])[1]
    return {"a": a, "b": b, "g": grads(tf, a + b, x, fd=False)[0], "g_a": grads(tf, a, x)[0]}, {x: 1.1}


# ---------------------------------------------------------------------------------------------
# Zero iterations and maximum_iterations


@program
def grad_zero_iterations_fed(tf):
    """A fed trip count of 0: the gradient is the identity for the loop var and zero for the invariant w."""
    n = tf.placeholder(tf.int32, [])
    x = tf.placeholder(tf.float32, [2])
    w = tf.placeholder(tf.float32, [2, 2])
    _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, tf.tanh(tf.matmul(v, w))), [0, x[None, :]])
    gx, gw = grads(tf, v * v, [x, w])
    return {"v": v, "gx": gx, "gw": gw}, {n: 0, x: [0.5, -1.0], w: [[1.0, 0.5], [-0.5, 2.0]]}


@program
def grad_maximum_iterations(tf):
    """maximum_iterations stops one loop, the condition the other (the bound is above its trip count)."""
    x = tf.placeholder(tf.float32, [])
    _, a = tf.while_loop(lambda i, v: i < 10, lambda i, v: [i + 1, v * x + 0.5], [0, x], maximum_iterations=4)
    _, b = tf.while_loop(lambda i, v: i < 3, lambda i, v: [i + 1, tf.sin(v) * x], [0, x], maximum_iterations=7)
    n = tf.placeholder(tf.int32, [])
    c = tf.while_loop(lambda v: v > -1e6, lambda v: v * 0.5 + x, [x], maximum_iterations=n)
    ga, gb, gc = grads(tf, a, x)[0], grads(tf, b, x)[0], grads(tf, c, x)[0]
    return {"a": a, "b": b, "c": c, "ga": ga, "gb": gb, "gc": gc}, {x: 0.8, n: 5}


# ---------------------------------------------------------------------------------------------
# Nested structures as loop vars


@program
def grad_namedtuple_loop_vars(tf):
    """A Pair namedtuple of float loop vars next to a plain tuple."""
    x = tf.placeholder(tf.float32, [])
    y = tf.placeholder(tf.float32, [2])

    def body(i, pair, t):
        return i + 1, Pair(a=pair.a * 0.5 + tf.reduce_sum(pair.b), b=pair.b * pair.a), (t[0] + pair.a, t[1])

    _, pair, t = tf.while_loop(lambda i, pair, t: i < 3, body, [0, Pair(a=x, b=y), (x * 2.0, y)])
    gx, gy = grads(tf, [pair.a, pair.b, t[0], t[1]], [x, y])
    return {"a": pair.a, "b": pair.b, "t0": t[0], "gx": gx, "gy": gy}, {x: 0.7, y: [0.2, -0.5]}


@program
def grad_dict_loop_vars(tf):
    """A dict of loop vars holding a matrix and a vector (a tiny damped spring)."""
    p0 = tf.placeholder(tf.float32, [2])
    k = tf.placeholder(tf.float32, [])

    def body(i, s):
        acc = -k * s["pos"] - 0.1 * s["vel"]
        return i + 1, {"pos": s["pos"] + 0.1 * s["vel"], "vel": s["vel"] + 0.1 * acc, "m": s["m"] * 0.9}

    _, s = tf.while_loop(lambda i, s: i < 6, body,
                         [0, {"pos": p0, "vel": tf.zeros([2]), "m": tf.reshape(p0, [1, 2]) * k}])
    energy = tf.reduce_sum(tf.square(s["pos"])) * k + tf.reduce_sum(tf.square(s["vel"])) + tf.reduce_sum(s["m"])
    gp0, gk = grads(tf, energy, [p0, k])
    return {"pos": s["pos"], "vel": s["vel"], "energy": energy, "gp0": gp0, "gk": gk}, {p0: [1.0, -0.5], k: 2.0}


# ---------------------------------------------------------------------------------------------
# Ops inside loop bodies


@program
def grad_elementwise_ops_in_loop(tf):
    """exp, log, sin, cos, sqrt, pow (constant and tensor exponent), square, tanh, sigmoid in a loop body."""
    x = tf.placeholder(tf.float32, [3])
    p = tf.placeholder(tf.float32, [])

    def body(i, v):
        a = tf.exp(-v) + tf.log(v + 1.0) + tf.sin(v) * tf.cos(v)
        b = tf.sqrt(v + 1.0) + tf.pow(v, 1.5) * 0.1 + tf.square(v) * 0.05 + tf.pow(p, v * 0.1)
        return i + 1, 0.3 * a + 0.3 * b + 0.1 * tf.tanh(v) + 0.1 * tf.sigmoid(v)

    _, v = tf.while_loop(lambda i, v: i < 3, body, [0, x])
    gx, gp = grads(tf, tf.reduce_sum(v * v), [x, p])
    return {"v": v, "gx": gx, "gp": gp}, {x: [0.5, 1.2, 2.0], p: 1.7}


@program
def grad_reductions_where_in_loop(tf):
    """reduce_sum/mean/max (whole and per axis), maximum/minimum, abs and where in a loop body."""
    m = tf.placeholder(tf.float32, [2, 3])

    def body(i, x):
        leaky = tf.maximum(x, 0.1 * x)
        picked = tf.where(x > 0.0, x * 1.5, tf.minimum(x, -0.5) * 0.5)
        rows = tf.reduce_max(x, axis=1, keepdims=True) * 0.2 + tf.reduce_mean(tf.abs(x), axis=0) * 0.1
        return i + 1, 0.5 * leaky + 0.3 * picked + rows + 0.05 * tf.reduce_sum(x)

    _, x = tf.while_loop(lambda i, x: i < 3, body, [0, m])
    return {"x": x, "gm": grads(tf, tf.reduce_sum(x * x) + tf.reduce_max(x), m)[0]}, \
        {m: [[0.9, -1.3, 2.1], [-2.2, 0.35, 1.2]]}


@program
def grad_gather_concat_stack_in_loop(tf):
    """gather (rows, columns, a tensor index), concat, stack, reshape, transpose and slicing in a loop body."""
    m = tf.placeholder(tf.float32, [2, 3])
    vec = tf.placeholder(tf.float32, [4])

    def body(i, x, acc):
        g = tf.gather(x, tf.constant([2, 0, 1]), axis=1)
        c = tf.concat([x[:, :1] * 0.5, g[:, 1:]], axis=1)
        s = tf.stack([c, tf.transpose(tf.reshape(x, [3, 2]))], axis=0)
        x = tf.reduce_sum(s, axis=0) * 0.4 + tf.sin(x) * 0.2 + tf.gather(vec, i % 4) * 0.1
        acc = acc + tf.gather(tf.reshape(x, [6]), tf.stack([i, 5 - i])) * x[1, 2]
        return i + 1, x, acc

    _, x, acc = tf.while_loop(lambda i, x, acc: i < 4, body, [0, m, tf.zeros([2])])
    gm, gvec = grads(tf, [x, acc], [m, vec])
    return {"x": x, "acc": acc, "gm": gm, "gvec": gvec}, \
        {m: [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], vec: [0.1, -0.2, 0.3, 0.4]}


@program
def grad_matmul_loop(tf):
    """The shared matmul_loop case: r <- r w + m, with gradients w.r.t. m and the constant w."""
    m = tf.placeholder(tf.float32, [2, 2])
    w = tf.constant([[0.5, -0.25], [0.1, 0.9]])
    _, r = tf.while_loop(lambda i, r: i < 3, lambda i, r: (i + 1, tf.matmul(r, w) + m), [0, m])
    gm, gw = grads(tf, tf.reduce_sum(r * r), [m, w])
    return {"r": r, "gm": gm, "gw": gw}, {m: [[1.0, 0.0], [0.5, -1.0]]}


@program
def grad_rnn_two_weights(tf):
    """An RNN over 5 steps (batch 2, 3 inputs, 4 hidden units) whose outputs go to a TensorArray; a squared
    error on the stacked outputs plus the final state; gradients w.r.t. both weight matrices, the bias, the
    inputs and the initial state."""
    xs = tf.placeholder(tf.float32, [5, 2, 3])
    wx = tf.placeholder(tf.float32, [3, 4])
    wh = tf.placeholder(tf.float32, [4, 4])
    b = tf.placeholder(tf.float32, [4])
    h0 = tf.placeholder(tf.float32, [2, 4])
    inputs = tf.TensorArray(tf.float32, size=5).unstack(xs)
    outputs = tf.TensorArray(tf.float32, size=5)

    def body(t, h, outputs):
        h = tf.tanh(tf.matmul(inputs.read(t), wx) + tf.matmul(h, wh) + b)
        return t + 1, h, outputs.write(t, tf.sigmoid(h))

    _, h, outputs = tf.while_loop(lambda t, h, o: t < 5, body, [0, h0, outputs])
    ys = outputs.stack()
    target = tf.constant(np.linspace(0.0, 1.0, 40, dtype=np.float32).reshape(5, 2, 4))
    loss = tf.reduce_mean(tf.square(ys - target)) + tf.reduce_sum(h) * 0.1
    gwx, gwh, gb, gxs, gh0 = grads(tf, loss, [wx, wh, b, xs, h0])
    rng = np.random.RandomState(0)
    return {"loss": loss, "gwx": gwx, "gwh": gwh, "gb": gb, "gxs": gxs, "gh0": gh0}, {
        xs: rng.uniform(-1, 1, (5, 2, 3)).astype(np.float32), wx: rng.uniform(-0.5, 0.5, (3, 4)).astype(np.float32),
        wh: rng.uniform(-0.5, 0.5, (4, 4)).astype(np.float32), b: [0.1, -0.1, 0.0, 0.2],
        h0: rng.uniform(-0.2, 0.2, (2, 4)).astype(np.float32)}


# ---------------------------------------------------------------------------------------------
# TensorArray gradients


@program
def grad_ta_scatter_gather(tf):
    """scatter out of order, read in a loop, write to a second array, gather part of it back."""
    values = tf.placeholder(tf.float32, [4, 2])
    inp = tf.TensorArray(tf.float32, size=4).scatter([3, 1, 0, 2], values)
    out = tf.TensorArray(tf.float32, size=4)

    def body(i, h, out):
        h = tf.tanh(h + inp.read(i))
        return i + 1, h, out.write(i, h * tf.cast(i + 1, tf.float32))

    _, h, out = tf.while_loop(lambda i, h, o: i < 4, body, [0, tf.zeros([2]), out])
    picked = out.gather([3, 0, 2, 1])
    return {"picked": picked, "g": grads(tf, [picked, h], values)[0]}, \
        {values: [[0.5, -0.5], [1.0, 0.2], [-0.3, 0.8], [0.1, 0.1]]}


@program
def grad_ta_gather_subset(tf):
    """gather reads back only some of the elements written in the loop: the others get a zero gradient (an
    element of the gradient TensorArray that was never written reads as zeros)."""
    x = tf.placeholder(tf.float32, [])
    ta = tf.TensorArray(tf.float32, size=3)
    _, ta = tf.while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, x * tf.cast(i + 1, tf.float32))),
                          [0, ta])
    picked = ta.gather([2, 0])
    return {"picked": picked, "g": grads(tf, picked, x)[0]}, {x: 1.5}


@program
def grad_ta_second_gradients_call(tf):
    """A second tf.gradients call (name scope gradients_1) with grad_ys, through a TensorArray written in a
    loop: every TensorArray gradient of one call must use that call's gradient TensorArray."""
    x = tf.placeholder(tf.float32, [2])
    ta = tf.TensorArray(tf.float32, size=3)
    _, ta = tf.while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, x * tf.cast(i, tf.float32))),
                          [0, ta])
    s = ta.stack()
    first = grads(tf, x * x, x)[0]
    second = grads(tf, s, x, grad_ys=tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))[0]
    return {"first": first, "second": second}, {x: [1.0, 2.0]}


@program
def grad_ta_split_read(tf):
    """TensorArray split into uneven pieces, each read in a loop."""
    x = tf.placeholder(tf.float32, [6])
    pieces = tf.TensorArray(tf.float32, size=3, infer_shape=False).split(x, [1, 2, 3])

    def body(i, s):
        piece = pieces.read(i)
        return i + 1, s + tf.reduce_sum(piece * piece) * tf.cast(i + 1, tf.float32)

    _, s = tf.while_loop(lambda i, s: i < 3, body, [0, tf.constant(0.0)])
    return {"s": s, "g": grads(tf, s, x)[0]}, {x: [0.5, -1.0, 1.5, 2.0, -0.5, 0.25]}


@program
def grad_ta_concat(tf):
    """concat of a TensorArray whose uneven pieces are written in a loop."""
    x = tf.placeholder(tf.float32, [3])
    out = tf.TensorArray(tf.float32, size=3, infer_shape=False)

    def body(i, out):
        return i + 1, out.write(i, x[i] * tf.ones(tf.stack([i + 1])) * tf.cast(i + 1, tf.float32))

    _, out = tf.while_loop(lambda i, o: i < 3, body, [0, out])
    c = out.concat()
    return {"c": c, "g": grads(tf, c * c, x)[0]}, {x: [0.5, -1.0, 1.5]}


@program
def grad_int_ys_in_list(tf):
    """ys may hold an int32 tensor (a loop counter): it contributes nothing (T38 differentiates [i, y])."""
    x = tf.placeholder(tf.float32, [])
    r = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, x])
    return {"g": grads(tf, r, x)[0]}, {x: 2.0}


@program
def grad_growing_matrix_rows(tf):
    """Rows appended to a matrix in a loop (shape invariant [None, 3]): concat's gradient with sizes known only
    at run time."""
    x = tf.placeholder(tf.float32, [1, 3])

    def body(i, m):
        return i + 1, tf.concat([m, m[-1:] * x + tf.cast(i, tf.float32)], 0)

    _, m = tf.while_loop(lambda i, m: i < 3, body, [0, x],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 3])])
    return {"m": m, "g": grads(tf, tf.reduce_sum(m * m), x)[0]}, {x: [[0.5, -1.0, 1.5]]}


@program
def grad_ta_read_twice(tf):
    """clear_after_read=False: the same element is read in two iterations; the gradients add up."""
    x = tf.placeholder(tf.float32, [3])
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False).unstack(x)

    def body(i, acc):
        return i + 1, acc * ta.read(i % 3) + ta.read((i + 1) % 3)

    _, acc = tf.while_loop(lambda i, acc: i < 5, body, [0, tf.constant(1.0)])
    return {"acc": acc, "g": grads(tf, acc, x)[0]}, {x: [0.9, -0.6, 1.2]}


@program
def grad_ta_dynamic_size(tf):
    """A dynamically sized TensorArray written with a fed trip count, then stacked."""
    n = tf.placeholder(tf.int32, [])
    x = tf.placeholder(tf.float32, [2])
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    _, v, ta = tf.while_loop(lambda i, v, ta: i < n, lambda i, v, ta: (i + 1, tf.sin(v) + v, ta.write(i, v * v)),
                             [0, x, ta])
    s = ta.stack()
    return {"s": s, "g": grads(tf, [s, v], x)[0]}, {n: 4, x: [0.3, -0.7]}


@program
def t12_switch_case(tf):
    """IndexedCaseTest.testCase_withDefault: b in {2, 4} -> b * 10; -1, 5, 6 -> the default 60;
    with a gradient through the taken branch."""
    b = tf.placeholder(tf.int32, [], name="b")
    x = tf.placeholder(tf.float32, [], name="x")
    branches = [(i, (lambda i=i: x * float(i * 10))) for i in range(5)]
    out = tf.switch_case(b, branches, default=lambda: x * x + 60.0)
    results = {}
    for k in (-1, 2, 4, 6):
        results[f"out_{k}"] = tf.switch_case(tf.constant(k), branches, default=lambda: x * x + 60.0)
    return {"out": out, "gx": grads(tf, out, x)[0], **results}, {b: 3, x: 1.5}


# Graph optimizations (cfnb/passes/meta_optimizer.py): programs each pass is for, and programs it must leave
# alone. cfnb runs them optimized by default; tests/test_optimizer.py also runs them unoptimized and says which
# pass fires where.
def _rnn_data(steps=6, batch=3, inputs=5, hidden=4):
    rng = np.random.RandomState(7)
    return (rng.standard_normal((steps, batch, inputs)).astype(np.float32) * 0.5,
            rng.standard_normal((inputs, hidden)).astype(np.float32) * 0.4,
            rng.standard_normal((hidden, hidden)).astype(np.float32) * 0.4)


@program
def opt_rnn_tensorarray(tf):
    """The benchmark's RNN, small: x unstacked into a TensorArray, h = tanh(x_t W_x + h W_h). Fission hoists
    x_t W_x; batching turns dW_x and dW_h into one product each."""
    xv, wx, wh = _rnn_data()
    x = tf.placeholder(tf.float32, xv.shape, name="x")
    w_x, w_h = tf.constant(wx), tf.constant(wh)
    xs = tf.TensorArray(tf.float32, size=xv.shape[0]).unstack(x)
    _, h = tf.while_loop(lambda t, h: t < xv.shape[0],
                         lambda t, h: (t + 1, tf.tanh(tf.matmul(xs.read(t), w_x) + tf.matmul(h, w_h))),
                         [tf.constant(0), tf.zeros([xv.shape[1], wh.shape[0]])])
    g_x, g_wx, g_wh = grads(tf, tf.reduce_sum(h * h), [x, w_x, w_h])
    return {"h": h, "g_x": g_x, "g_wx": g_wx, "g_wh": g_wh}, {x: xv}


@program
def opt_rnn_gather_chain(tf):
    """Rows by tf.gather, and a row-wise chain sigmoid(x_t W + b) * 2 hoisted whole; the weights fed."""
    xv, wx, wh = _rnn_data(steps=5)
    x = tf.placeholder(tf.float32, xv.shape, name="x")
    w_x = tf.placeholder(tf.float32, wx.shape, name="w_x")
    w_h = tf.constant(wh)
    b = tf.constant(np.linspace(-1, 1, wh.shape[0]).astype(np.float32))

    def body(t, h):
        gate = tf.sigmoid(tf.matmul(tf.gather(x, t), w_x) + b) * 2.0
        return t + 1, tf.tanh(gate * tf.matmul(h, w_h) + gate)

    _, h = tf.while_loop(lambda t, h: t < 5, body, [0, tf.ones([xv.shape[1], wh.shape[0]])])
    g_wx, g_wh, g_b = grads(tf, tf.reduce_sum(h), [w_x, w_h, b])
    return {"h": h, "g_wx": g_wx, "g_wh": g_wh, "g_b": g_b}, {x: xv, w_x: wx}


@program
def opt_rnn_one_gradient(tf):
    """Only dW_h is fetched: the history stack of x_t is pushed to and never read (stack push removal)."""
    xv, wx, wh = _rnn_data()
    x = tf.placeholder(tf.float32, xv.shape, name="x")
    w_x, w_h = tf.constant(wx), tf.constant(wh)

    def body(t, h):
        return t + 1, tf.tanh(tf.matmul(tf.gather(x, t), w_x) + tf.matmul(h, w_h))

    _, h = tf.while_loop(lambda t, h: t < 6, body, [0, tf.zeros([3, 4])])
    g_wx, g_wh = grads(tf, tf.reduce_sum(h), [w_x, w_h])
    return {"h": h, "g_wh": g_wh}, {x: xv}


@program
def opt_invariant_chain(tf):
    """tanh(w * 2) + 1 is the same in every iteration: loop-invariant node motion computes it once."""
    w = tf.placeholder(tf.float32, [3], name="w")
    v0 = tf.placeholder(tf.float32, [3], name="v0")
    _, v = tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * 0.5 + (tf.tanh(w * 2.0) + 1.0)), [0, v0])
    g_w, g_v0 = grads(tf, tf.reduce_sum(v * v), [w, v0])
    return {"v": v, "g_w": g_w, "g_v0": g_v0}, {w: [0.1, -0.4, 0.9], v0: [1.0, 2.0, -3.0]}


@program
def opt_rnn_fed_length(tf):
    """The trip count is fed (0 here): no fission (the rows a loop reads are not known), and the batched
    gradients of a loop that ran zero times are their initial zeros."""
    xv, wx, wh = _rnn_data()
    n = tf.placeholder(tf.int32, [], name="n")
    x = tf.placeholder(tf.float32, xv.shape, name="x")
    w_x, w_h = tf.constant(wx), tf.constant(wh)

    def body(t, h):
        return t + 1, tf.tanh(tf.matmul(tf.gather(x, t), w_x) + tf.matmul(h, w_h))

    _, h = tf.while_loop(lambda t, h: t < n, body, [0, tf.ones([3, 4])])
    g_wx, g_wh = grads(tf, tf.reduce_sum(h), [w_x, w_h])
    return {"h": h, "g_wx": g_wx, "g_wh": g_wh}, {x: xv, n: 0}


@program
def opt_rnn_row_in_cond(tf):
    """The row is read only on even steps (in a cond): nothing in the cond is hoisted."""
    xv, wx, wh = _rnn_data()
    x = tf.placeholder(tf.float32, xv.shape, name="x")
    w_x, w_h = tf.constant(wx), tf.constant(wh)

    def body(t, h):
        step = tf.cond(tf.equal(t % 2, 0), lambda: tf.matmul(tf.matmul(tf.gather(x, t), w_x), tf.tanh(w_h * 3.0)),
                       lambda: tf.zeros([3, 4]))
        return t + 1, tf.tanh(step + tf.matmul(h, w_h))

    _, h = tf.while_loop(lambda t, h: t < 6, body, [0, tf.zeros([3, 4])])
    g_wx, g_wh = grads(tf, tf.reduce_sum(h), [w_x, w_h])
    return {"h": h, "g_wx": g_wx, "g_wh": g_wh}, {x: xv}
