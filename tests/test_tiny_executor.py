"""docs/tiny_executor.py states the executor's rules in a page; here it must agree with cfnb/runtime/executor.py.

On the executor-rule programs (test_executor.py's) and the course's loops (chapters 01-07), both run the same
graph: they must fetch the same values (bit for bit, dtype included) and fire the same nodes, in the same frame
instances and iterations, live or dead, with the same values, in the same order.
"""
import importlib.util
import pathlib
import re

import numpy as np
import pytest
from test_executor import _hand_built_loop

import cfnb as tf
from cfnb.ops import control_flow_ops as cf
from cfnb.passes.lowering import lower_functional_ops
from cfnb.runtime.trace import summarize

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("tiny_executor", ROOT / "docs" / "tiny_executor.py")
tiny_executor = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tiny_executor)

PROGRAMS = {}


def program(fn):
    """A test program: builds a graph, returns (fetches, feeds)."""
    PROGRAMS[fn.__name__] = fn
    return fn


# --- the executor-rule programs -----------------------------------------------------------------------------
@program
def enter_exit_without_a_loop():
    return [cf.exit(cf.enter(tf.constant([1, 2, 3]), "foo_1", False) * cf.enter(tf.constant(5), "foo_1", False))], {}


@program
def switch_and_merge():
    f, t = cf.switch(tf.constant([1, 2, 3]), tf.constant(False))
    return list(cf.merge([f + 1, t * 5])), {}


@program
def hand_built_loop():
    return [_hand_built_loop(limit=4)], {}


@program
def loop_whose_predicate_is_a_plain_enter():
    enter_i = cf.enter(tf.constant(10), "foo", False)
    merge_i = cf.merge([enter_i, enter_i])[0]
    sw_f, _ = cf.switch(merge_i, cf.enter(tf.constant(False), "foo", False))
    merge_i.op._update_input(1, cf.next_iteration(sw_f))
    return [cf.exit(sw_f)], {}


@program
def merge_dead_only_when_all_inputs_are():
    pred = tf.placeholder(tf.bool, [])
    f1, t1 = cf.switch(tf.constant(1.0), pred)
    _, t2 = cf.switch(tf.constant(2.0), pred)
    return [cf.merge([cf.merge([t1 * 1.0, t2 * 1.0])[0], f1 + 100.0])[0]], {pred: False}


@program
def merge_takes_its_first_live_input():
    t = tf.constant(5.0) * 1.0
    return list(cf.merge([tf.constant(1.0), tf.constant(2.0)])) + [cf.merge([t, t])[0]], {}


@program
def control_trigger_is_never_dead():
    _, t = cf.switch(tf.constant(1.0), tf.constant(False))
    trigger = cf.control_trigger()
    trigger._add_control_input(tf.identity(t).op)
    with tf.control_dependencies([t]):
        after_switch = tf.constant(3.0)
    with tf.control_dependencies([trigger]):
        after_trigger = tf.constant(7.0)
    return [after_switch, after_trigger], {}


def _tanh_chain(parallel):
    x = tf.placeholder(tf.float32, [3])
    _, v = tf.while_loop(lambda i, v: i < 12, lambda i, v: (i + 1, tf.tanh(v) * 0.5 + v), [0, x],
                         parallel_iterations=parallel)
    return [v], {x: np.array([0.1, 0.2, 0.3], np.float32)}


for _p in (1, 2, 10):
    PROGRAMS[f"parallel_iterations_{_p}"] = lambda p=_p: _tanh_chain(p)


@program
def each_outer_iteration_gets_a_fresh_inner_frame():
    def outer(i, s):
        _, s2 = tf.while_loop(lambda j, t: j < 2, lambda j, t: (j + 1, t + 1.0), [0, s])
        return i + 1, s2
    return [tf.while_loop(lambda i, s: i < 3, outer, [0, 0.0])[1]], {}


@program
def while_loop_in_an_untaken_branch():
    p = tf.placeholder(tf.bool, [])
    n = tf.constant(0.0)
    return [tf.cond(p, lambda: tf.while_loop(lambda x: x < 10.0, lambda x: x + 1.0, [n]), lambda: n * 2.0)], \
        {p: np.bool_(False)}


# --- the course's loops --------------------------------------------------------------------------------------
@program
def ch01_counter():
    return [tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0])], {}


@program
def ch02_tensor_array_timeline():
    x = tf.constant([0.5, 1.0])

    def body(i, ta):
        return i + 1, ta.write(i, tf.tanh(tf.sin(tf.cos(x * tf.cast(i, tf.float32)))))

    _, ta = tf.while_loop(lambda i, ta: i < 6, body, [0, tf.TensorArray(tf.float32, size=6)], parallel_iterations=4)
    return [ta.stack()], {}


@program
def ch03_cond():
    x, y = tf.placeholder(tf.float32, [], name="x"), tf.placeholder(tf.float32, [], name="y")
    return [tf.cond(x < y, lambda: tf.add(x, tf.constant(3.0)), lambda: tf.square(y))], \
        {x: np.float32(2.0), y: np.float32(1.0)}


@program
def ch04_chain_loop():
    def body(i, y):
        for _ in range(8):
            y = tf.sin(y)
        return i + 1, y
    return [tf.while_loop(lambda i, y: i < 8, body, [0, tf.constant(1.0)], parallel_iterations=3)[1]], {}


@program
def ch04_nested_loops():
    def body(k):
        j = tf.while_loop(lambda j: j < 2, lambda j: j + 1, [0])
        return k + 1 + 0 * j
    return [tf.while_loop(lambda k: k < 3, body, [0])], {}


@program
def ch06_gradient_with_a_loop_invariant():
    a, v = tf.constant(3.0, name="a"), tf.constant(2.0, name="v")
    r = tf.while_loop(lambda v: v < 100.0, lambda v: v * a, [v])
    return [r] + tf.gradients(r, [a, v]), {}


@program
def ch06_gradient_of_a_cond_in_a_loop():
    x = tf.constant(1.5, name="x")
    _, y = tf.while_loop(lambda i, y: i < 4,
                         lambda i, y: (i + 1, tf.cond(i % 2 < 1, lambda: y * x, lambda: y + x)), [0, x])
    return [y] + tf.gradients(y, x), {}


@program
def ch06_gradient_of_nested_loops():
    x = tf.constant(1.1, name="x")

    def outer(k, y):
        return k + 1, tf.while_loop(lambda j, y: j < k, lambda j, y: (j + 1, y * x), [0, y])[1]
    _, y = tf.while_loop(lambda k, y: k < 4, outer, [1, x])
    return [y] + tf.gradients(y, x), {}


@program
def ch07_functional_while_and_its_gradient():
    tf.enable_control_flow_v2()
    x = tf.constant(2.0, name="x")
    v = tf.while_loop(lambda v: v < 8.0, lambda v: v * v, [x])
    return [v] + tf.gradients(v, x), {}


@program
def ch07_functional_if():
    tf.enable_control_flow_v2()
    a, b = tf.placeholder(tf.float32, [], name="a"), tf.placeholder(tf.float32, [], name="b")
    return [tf.cond(a < b, lambda: a + b, lambda: a * b)], {a: np.float32(2.0), b: np.float32(3.0)}


def _executor_run(fetches, feeds):
    """Values and trace of the tagged-token executor, and the session (whose kernels the tiny executor borrows)."""
    sess = tf.Session(config=tf.ConfigProto(static_schedule=False))
    meta = tf.RunMetadata()
    values = sess.run(fetches, feeds, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
    firings = [(f.node.removeprefix("_feed/"), f.frame_path, f.iteration, f.live, f.value) for f in meta.trace
               if not f.node.startswith("_retval/")]
    return values, firings, sess


def _tiny_run(fetches, feeds, sess):
    """Values and trace of the tiny executor, on the graph the session ran (functional ops lowered)."""
    graph = fetches[0].graph
    if any(op.type in ("While", "StatelessWhile", "If", "StatelessIf") for op in graph.get_operations()):
        low = lower_functional_ops(graph)
        fetches, feeds = [low.tensor_map[t] for t in fetches], {low.tensor_map[t]: v for t, v in feeds.items()}
    values, trace = tiny_executor.TinyExecutor(fetches, feeds, sess._make_kernel).run()
    return values, [(name, path, i, outputs is not None, _summary(name, outputs)) for name, path, i, outputs in trace]


def _summary(name, outputs):
    """What the executor's trace says of a firing's value (trace.Trace.record)."""
    if not outputs:
        return "-"
    port = 1 if len(outputs) == 2 and outputs[0] is None else 0  # the taken side of a Switch
    return summarize(outputs[port])


def _without_run_counters(firings):
    """Each run of a TensorArray op names its array afresh (`<name>_<counter>`, TensorFlow's tensor_array_counter),
    so the two executors' runs name the same array differently: compare without the counter."""
    return [(*f[:4], re.sub(r"(<TensorArrayState \S+?)_\d+>", r"\1>", f[4])) for f in firings]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_the_tiny_executor_fires_what_the_executor_fires(name):
    fetches, feeds = PROGRAMS[name]()
    tf.disable_control_flow_v2()
    values, firings, sess = _executor_run(fetches, feeds)
    tiny_values, tiny_firings = _tiny_run(fetches, feeds, sess)
    assert len(firings) > 5
    assert _without_run_counters(tiny_firings) == _without_run_counters(firings)
    for value, tiny_value in zip(values, tiny_values, strict=True):
        assert np.asarray(tiny_value).dtype == np.asarray(value).dtype
        np.testing.assert_array_equal(tiny_value, value)


def test_a_different_order_would_be_seen():
    """The comparison is sharp: with parallel_iterations 1 and 10 the same loop fires the same nodes in another
    order, and the traces differ."""
    fetches, feeds = _tanh_chain(1)
    one = _executor_run(fetches, feeds)[1]
    tf.reset_default_graph()
    fetches, feeds = _tanh_chain(10)
    ten = _executor_run(fetches, feeds)[1]
    assert sorted(one) == sorted(ten) and one != ten

