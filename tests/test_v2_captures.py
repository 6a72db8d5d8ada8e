"""Control flow v2: an outer tensor used more than once inside a nested function (issue #9).

A nested FuncGraph reaches a tensor of the outermost graph through its enclosing function's capture. The
capture cache must be keyed by the tensor the caller named (as TensorFlow's FuncGraph.capture keys by
id(tensor)); keyed by the enclosing function's placeholder, a second use made a second placeholder that nothing
fed ("'NoneType' object is not callable" at a Placeholder). Expected values are TensorFlow 2.21's, v2, graph mode.
"""
import pytest

import cfnb as tf

CONFIGS = {"lowered-static": {}, "lowered-executor": {"static_schedule": False},
           "strict": {"lower_functional_ops": False}}


@pytest.fixture(autouse=True)
def v2():
    tf.enable_control_flow_v2()
    yield
    tf.disable_control_flow_v2()


def run_everywhere(fetches, feeds=None):
    return {name: tf.Session(config=tf.ConfigProto(**cfg)).run(fetches, feeds) for name, cfg in CONFIGS.items()}


def test_cond_in_cond_uses_a_captured_constant_twice():
    x = tf.constant(1)
    y = tf.cond(tf.constant(False), lambda: tf.constant(7),
                lambda: tf.cond(tf.constant(True), lambda: x + x, lambda: x))
    assert run_everywhere(y) == {name: 2 for name in CONFIGS}


def test_second_capture_in_a_nested_function_is_the_first_placeholder():
    x = tf.constant(1)
    seen = {}

    def inner_true():
        seen["graph"] = tf.get_default_graph()
        return x + x
    tf.cond(tf.constant(False), lambda: tf.constant(7), lambda: tf.cond(tf.constant(True), inner_true, lambda: x))
    inner = seen["graph"]
    assert len(inner.captures) == 1
    assert inner.capture(x) is inner.internal_captures[0]


def test_gradient_of_cond_in_cond():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.cond(x > 0., lambda: tf.cond(x < 5., lambda: x * x + x, lambda: x), lambda: x * 3.)
    got = run_everywhere([y] + tf.gradients(y, [x]), {x: 1.5})
    assert got == {name: [3.75, 4.0] for name in CONFIGS}


def test_gradient_of_cond_in_while():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, tf.cond(v < 10., lambda: v + x * x, lambda: v - x)),
                      [0, x])[1]
    got = run_everywhere([y] + tf.gradients(y, [x]), {x: 1.5})
    assert got == {name: [10.5, 13.0] for name in CONFIGS}


def test_gradient_of_while_in_cond_and_while_in_while():
    x = tf.placeholder(tf.float32, [], name="x")
    in_cond = tf.cond(x > 0., lambda: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x + x), [0, x])[1],
                      lambda: x)

    def body(i, v):
        w = tf.while_loop(lambda j, u: j < 2, lambda j, u: (j + 1, u + x * x), [0, v])[1]
        return i + 1, w * x
    in_while = tf.while_loop(lambda i, v: i < 2, body, [0, x])[1]
    got = run_everywhere([in_cond, in_while] + tf.gradients(in_cond, [x]) + tf.gradients(in_while, [x]), {x: 1.5})
    assert got == {name: [12.1875, 20.25, 24.25, 47.25] for name in CONFIGS}
