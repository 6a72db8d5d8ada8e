"""Only what the fetched gradients need is accumulated, on every path (issue #9, "Hangs and memory").

A loop differentiated with `tf.gradients` carries history accumulators (v1: StackPushV2 onto history
stacks; v2: TensorListPushBack onto accumulator lists). Fetching only the forward value must push
nothing; fetching the gradient pushes exactly what the lowered loop pushes. The pushes are counted by
wrapping the kernels that perform them.
"""
import numpy as np
import pytest

import cfnb as tf
from cfnb.framework.registry import get_op_def

PATHS = {"static": {}, "executor": {"static_schedule": False}, "strict": {"lower_functional_ops": False}}
PUSHES = ("StackPushV2", "TensorListPushBack", "TensorListSetItem")


@pytest.fixture
def pushes(monkeypatch):
    counts = {}
    for op_type in PUSHES:
        op_def = get_op_def(op_type)
        factory = op_def.kernel

        def counting(op, *state, _factory=factory, _type=op_type):
            kernel = _factory(op, *state)

            def run(*args):
                counts[_type] = counts.get(_type, 0) + 1
                return kernel(*args)
            return run
        monkeypatch.setattr(op_def, "kernel", counting)
    return counts


def _single_loop():
    x = tf.constant(1.5)
    _, y = tf.while_loop(lambda i, y: i < 50, lambda i, y: (i + 1, y * y * 0.5 + 0.25), [0, x])
    return x, y


def _nested_loops():
    x = tf.constant(0.5)

    def body(i, y):
        _, z = tf.while_loop(lambda j, z: j < 3, lambda j, z: (j + 1, tf.sin(z) * y), [0, y])
        return i + 1, z
    _, y = tf.while_loop(lambda i, y: i < 4, body, [0, x])
    return x, y


@pytest.mark.parametrize("build", [_single_loop, _nested_loops])
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_forward_fetch_accumulates_nothing_and_gradient_what_lowered_does(pushes, version, build):
    if version == "v2":
        tf.enable_control_flow_v2()
    x, y = build()
    (g,) = tf.gradients(y, x)
    counted = {}
    for path, config in PATHS.items():
        sess = tf.Session(config=tf.ConfigProto(**config))
        pushes.clear()
        forward = sess.run(y)
        assert sum(pushes.values()) == 0, f"{path}: forward-only run pushed {pushes}"
        grad = sess.run(g)
        counted[path] = (dict(pushes), forward, grad)
    assert sum(counted["static"][0].values()) > 0  # the gradient does need history
    for path in PATHS:
        assert counted[path][0] == counted["static"][0], f"{path}: {counted[path][0]} vs lowered {counted['static'][0]}"
        np.testing.assert_allclose(counted[path][1:], counted["static"][1:], rtol=1e-6)
