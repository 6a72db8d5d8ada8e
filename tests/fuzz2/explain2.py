"""Evidence for a mismatch explained as TensorFlow's fault: the second-order gradient by finite differences.

    /tmp/tfvenv/bin/python tests/fuzz2/explain2.py SEED

Runs the program in TensorFlow with control flow v2 in float64 (float32 replaced by float64 throughout, constants
included) and differentiates TensorFlow's own first-order gradient numerically: grad2_x[i] is the central difference
of sum(grad_x * harness2.WEIGHTS) along x[i] (step 1e-5). Prints it as json; the corpus stores it under the
program's "explained" field with the reason, and tests/fuzz2/KNOWN.md says why.
"""
import json
import os
import sys
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from gen2 import generate  # noqa: E402
from harness2 import WEIGHTS  # noqa: E402
from record2 import config  # noqa: E402

STEP = 1e-5


def float64_tf(tf1):
    """tf.compat.v1 with float32 read as float64 (dtype names and float constants)."""
    shim = types.SimpleNamespace(**{k: getattr(tf1, k) for k in dir(tf1) if not k.startswith("__")})
    shim.float32 = tf1.float64

    def constant(value, dtype=None, **kwargs):
        floats = np.asarray(value).dtype.kind == "f"
        return tf1.constant(value, dtype=tf1.float64 if floats and dtype in (None, tf1.float32) else dtype, **kwargs)

    shim.constant = constant
    shim.zeros = lambda shape, dtype=tf1.float64, **kw: tf1.zeros(shape, tf1.float64 if dtype == tf1.float32 else dtype)
    return shim


def first_order_weighted(tf1, program, x_value):
    namespace = {}
    exec(compile(program.source, "<fuzz2 program>", "exec"), namespace)  # noqa: S102 - generated program text
    graph = tf1.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf1.float64, [3])
        w = tf1.placeholder(tf1.float64, [3, 3])
        n = tf1.placeholder(tf1.int32, [])
        fetches = namespace["build"](float64_tf(tf1), x, w, n)
        loss = tf1.add_n([tf1.reduce_sum(fetches[k]) for k in sorted(fetches)])
        (gx,) = tf1.gradients(loss, [x])
        target = tf1.reduce_sum(gx * tf1.constant(WEIGHTS, tf1.float64))
    with tf1.Session(graph=graph, config=config(tf1)) as sess:
        return sess.run(target, {x: x_value, w: program.feeds["w"], n: program.feeds["n"]})


def main():
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    tf1.enable_control_flow_v2()
    program = generate(int(sys.argv[1]))
    x = np.asarray(program.feeds["x"], np.float64)
    grad2 = []
    for i in range(3):
        step = np.eye(3)[i] * STEP
        grad2.append((first_order_weighted(tf1, program, x + step) - first_order_weighted(tf1, program, x - step))
                     / (2 * STEP))
    print(json.dumps({"grad2_x_finite_differences_float64": [round(float(g), 6) for g in grad2]}))


if __name__ == "__main__":
    main()
