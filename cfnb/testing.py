"""`check_gradients`: compare cfnb's symbolic gradients with finite differences, in float64.

    from cfnb.testing import check_gradients
    check_gradients(lambda x: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, x])[1], 1.1)

`fn` receives float64 placeholders and returns a tensor y; the check differentiates sum(y) with
`cfnb.gradients` and with central differences, both in float64 so the comparison is tight, and
raises AssertionError (with the worst element) when they disagree. Notebooks can call it too.
Python numbers in `fn` take the placeholders' dtype, as they do in TensorFlow (`x * 2.0`).
"""
from typing import NamedTuple

import numpy as np

from .framework import dtypes
from .framework.ops import Graph
from .gradients import gradients
from .ops.array_ops import placeholder
from .ops.math_ops import reduce_sum
from .runtime.session import ConfigProto, Session


class GradientCheck(NamedTuple):
    analytic: list     # cfnb's gradient per input (numpy float64)
    numeric: list      # central differences per input
    max_error: float   # largest |analytic - numeric|


def check_gradients(fn, *values, delta=1e-4, rtol=1e-4, atol=1e-6, static_schedule=True):
    """Compare `gradients()` of `fn` at `values` with central finite differences, in float64 (TensorFlow's
    `gradient_checker.compute_gradient` does the same): the check for a gradient TensorFlow itself cannot run. A
    non-scalar `fn` is summed first. Returns both gradients and the largest difference; a disagreement raises
    AssertionError naming the input and the element where it is worst."""
    values = [np.asarray(v, dtype=np.float64) for v in values]
    graph = Graph()
    with graph.as_default():
        xs = [placeholder(dtypes.float64, v.shape, name=f"x{k}") for k, v in enumerate(values)]
        y = fn(*xs)
        if y.shape.ndims != 0:
            y = reduce_sum(y)
        grads = gradients(y, xs)
    sess = Session(graph=graph, config=ConfigProto(static_schedule=static_schedule))

    def value(vals):
        return float(sess.run(y, dict(zip(xs, vals))))

    feed = dict(zip(xs, values))
    analytic = [np.zeros_like(v) if g is None else np.asarray(sess.run(g, feed), dtype=np.float64)
                for g, v in zip(grads, values)]
    numeric = []
    for k, v in enumerate(values):
        num = np.zeros_like(v)
        for index in np.ndindex(v.shape):
            plus, minus = [x.copy() for x in values], [x.copy() for x in values]
            plus[k][index] += delta
            minus[k][index] -= delta
            num[index] = (value(plus) - value(minus)) / (2 * delta)
        numeric.append(num)
    errors = [np.abs(a - n) for a, n in zip(analytic, numeric)]
    max_error = max((float(e.max()) if e.size else 0.0) for e in errors)
    for k, (a, n) in enumerate(zip(analytic, numeric)):
        if not np.allclose(a, n, rtol=rtol, atol=atol):
            worst = np.unravel_index(np.argmax(np.abs(a - n)), a.shape) if a.shape else ()
            raise AssertionError(f"gradient of input {k} disagrees with finite differences at {worst}: cfnb "
                                 f"{a[worst] if a.shape else a} vs numeric {n[worst] if n.shape else n}")
    return GradientCheck(analytic, numeric, max_error)
