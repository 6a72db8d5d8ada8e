"""A fuzz2 program in float64, for evidence by finite differences, the same way for cfnb and for TensorFlow.

A float32 program's gradient cannot be checked against a finite difference finer than float32's rounding, so the
program is rebuilt with float32 read as float64 (dtype names, float constants, zeros) and its inputs fed as float64.
`Float64Program(tf, program)` builds the forward graph and, in the same graph, `tf.gradients` of the harness's loss
(the sum of every output, as harness2.build) with respect to `x` and `w`; its `forward(x, w)` returns every output,
`gradients()` the gradients at the program's feeds. `replace` swaps functions of the graph API (explain2.py
freezes `stop_gradient`). `central_differences` differentiates a scalar function of an
array numerically. Neither cfnb nor TensorFlow is imported here: `tf` is passed in.
"""
import types

import numpy as np
from harness2 import WEIGHTS


def float64_tf(tf1, replace=None):
    """tf.compat.v1 (or cfnb) with float32 read as float64 (dtype names and float constants), and the functions in
    `replace` (name -> function) put in place of the module's."""
    shim = types.SimpleNamespace(**{k: getattr(tf1, k) for k in dir(tf1) if not k.startswith("__")})
    shim.float32 = tf1.float64

    def constant(value, dtype=None, **kwargs):
        floats = np.asarray(value).dtype.kind == "f"
        return tf1.constant(value, dtype=tf1.float64 if floats and dtype in (None, tf1.float32) else dtype, **kwargs)

    shim.constant = constant
    shim.zeros = lambda shape, dtype=tf1.float64, **kw: tf1.zeros(shape, tf1.float64 if dtype == tf1.float32 else dtype)
    for name, function in (replace or {}).items():
        setattr(shim, name, function)
    return shim


class Float64Program:
    """The program's graph in float64: outputs, first-order gradients and (v2) the weighted first-order gradient
    whose derivative is harness2's `grad2_x`."""

    def __init__(self, tf1, program, first_order=True, weighted=False, replace=None):
        namespace = {}
        exec(compile(program.source, "<fuzz2 program>", "exec"), namespace)  # noqa: S102 - generated program text
        self.tf1, self.feeds = tf1, program.feeds
        self.graph = tf1.Graph()
        with self.graph.as_default():
            self.x = tf1.placeholder(tf1.float64, [3])
            self.w = tf1.placeholder(tf1.float64, [3, 3])
            self.n = tf1.placeholder(tf1.int32, [])
            self.outputs = dict(namespace["build"](float64_tf(tf1, replace), self.x, self.w, self.n))
            loss = tf1.add_n([tf1.reduce_sum(self.outputs[k]) for k in sorted(self.outputs)])
            self.grads = {}
            if first_order:
                for key, g in zip(("grad_x", "grad_w"), tf1.gradients(loss, [self.x, self.w])):
                    self.grads[key] = None if g is None else tf1.convert_to_tensor(g)
            if weighted:
                (gx,) = tf1.gradients(loss, [self.x])
                self.weighted = tf1.reduce_sum(tf1.convert_to_tensor(gx) * tf1.constant(WEIGHTS, tf1.float64))

    def _feed(self, x, w):
        return {self.x: x, self.w: w, self.n: self.feeds["n"]}

    def inputs(self):
        return np.asarray(self.feeds["x"], np.float64), np.asarray(self.feeds["w"], np.float64)

    def forward(self, session, x, w):
        """{output name: float64 array} at (x, w)."""
        return session.run(self.outputs, self._feed(x, w))

    def loss(self, session, x, w):
        """The harness's loss, summed here in float64 from the outputs."""
        return sum(float(np.sum(v)) for _, v in sorted(self.forward(session, x, w).items()))

    def gradients(self, session):
        """{"grad_x", "grad_w": float64 array or None} at the program's feeds."""
        fetch = {k: g for k, g in self.grads.items() if g is not None}
        values = session.run(fetch, self._feed(*self.inputs()))
        return {k: values.get(k) for k in self.grads}


def central_differences(f, point, step):
    """d f / d point by central differences (float64), one evaluation pair per element of `point`."""
    grad = np.zeros_like(point)
    for index in np.ndindex(point.shape):
        delta = np.zeros_like(point)
        delta[index] = step
        grad[index] = (f(point + delta) - f(point - delta)) / (2 * step)
    return grad
