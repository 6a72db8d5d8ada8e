"""Session: nested fetches, feeds and their checks, pruning, the compile cache, variables, default
sessions and tracing. Behaviour and error types are TensorFlow 2.21's (`tf.compat.v1.Session`).
"""
import collections

import numpy as np
import pytest

import cfnb as tf
from cfnb.framework import errors

P = collections.namedtuple("P", "a b")


@pytest.fixture(params=[True, False], ids=["static", "interpreted"])
def sess(request):
    """A Session on the (fresh) default graph, on either execution path."""
    return tf.Session(config=tf.ConfigProto(static_schedule=request.param))


@pytest.fixture()
def graph():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = x * 2.
    s = tf.reduce_sum(y)
    return x, y, s


# --- fetches ----------------------------------------------------------------------------------------
def test_nested_fetches_keep_their_structure(sess, graph):
    x, y, s = graph
    feed = {x: [[1., 2.]]}
    noop = tf.no_op(name="nop")
    out = sess.run([y, s], feed)
    assert isinstance(out, list) and out[0].tolist() == [[2., 4.]] and out[1] == 6.
    assert isinstance(out[0], np.ndarray) and out[0].dtype == np.float32
    assert isinstance(out[1], np.float32)
    assert sess.run((s, y), feed)[0] == 6. and isinstance(sess.run((s, y), feed), tuple)
    d = sess.run({"k": s, "j": [y, (s,)]}, feed)
    assert d["k"] == 6. and d["j"][0].tolist() == [[2., 4.]] and d["j"][1] == (6.,)
    nt = sess.run(P(a=s, b={"z": y}), feed)
    assert type(nt) is P and nt.a == 6. and nt.b["z"].tolist() == [[2., 4.]]
    assert sess.run([noop, s], feed) == [None, 6.]
    assert sess.run(P(a=noop, b=[s, s]), feed) == P(None, [6., 6.])
    assert sess.run([s, s, y], feed)[:2] == [6., 6.]
    assert sess.run(noop) is None
    assert sess.run([]) == [] and sess.run({}) == {}
    assert sess.run(s, feed) == 6.


def test_a_fetched_indexed_slices_is_an_indexed_slices_value(sess):
    """TensorFlow 2.21 fetches a gather's gradient as IndexedSlicesValue(values=[1, 1], indices=[1, 1],
    dense_shape=[2]), and IndexedSlices without a dense_shape with dense_shape=None, nested like any fetch."""
    v = tf.constant([1.0, 42.0])
    r = tf.gather(v, [1, 1])
    (g,) = tf.gradients(r, v)
    s = tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]))
    got = sess.run({"a": [g, r], "b": s})
    assert isinstance(got["a"][0], tf.IndexedSlicesValue) and got["b"].dense_shape is None
    np.testing.assert_array_equal(got["a"][0].values, [1.0, 1.0])
    np.testing.assert_array_equal(got["a"][0].indices, [1, 1])
    np.testing.assert_array_equal(got["a"][0].dense_shape, [2])
    np.testing.assert_array_equal(got["a"][1], [42.0, 42.0])
    assert got["b"].values.tolist() == [1.0] and got["b"].indices.tolist() == [0]
    assert sess.run(g).indices.tolist() == [1, 1]


def test_fetch_and_feed_by_name(sess, graph):
    tf.no_op(name="nop")
    assert sess.run("mul:0", {"x:0": [[3., 4.]]}).tolist() == [[6., 8.]]
    assert sess.run(["Sum:0", "nop"], {"x:0": [[3., 4.]]}) == [14., None]


@pytest.mark.parametrize("fetch,error", [(None, TypeError), (3, TypeError), (1.5, TypeError)])
def test_invalid_fetches(sess, fetch, error):
    tf.constant(1.)
    with pytest.raises(error):
        sess.run(fetch)


def test_fetch_from_another_graph_is_a_value_error(sess):
    tf.constant(1.)
    with tf.Graph().as_default():
        other = tf.constant(1.)
    with pytest.raises(ValueError):
        sess.run(other)


def test_fetch_of_a_missing_name_is_a_value_error(sess):
    tf.constant(1.)
    with pytest.raises(ValueError, match="nope:0"):
        sess.run("nope:0")


def test_session_on_another_graph():
    g = tf.Graph()
    with g.as_default():
        t = tf.constant(3) * 2
    assert tf.Session(graph=g).run(t) == 6
    assert tf.Session(graph=g).graph is g


# --- feeds ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value,message", [
    ([1., 2.], "Cannot feed value of shape (2,) for Tensor x:0, which has shape (None, 2)"),
    ([[1., 2., 3.]], "Cannot feed value of shape (1, 3) for Tensor x:0, which has shape (None, 2)"),
])
def test_feed_shape_mismatch(sess, graph, value, message):
    x, y, _ = graph
    with pytest.raises(ValueError) as info:
        sess.run(y, {x: value})
    assert str(info.value) == message


def test_feed_values_are_converted_to_the_placeholders_dtype(sess, graph):
    x, y, _ = graph
    out = sess.run(y, {x: np.array([[1, 2]], np.int32)})
    assert out.dtype == np.float32 and out.tolist() == [[2., 4.]]
    out = sess.run(y, {x: np.array([[1.5, 2.5]])})
    assert out.dtype == np.float32 and out.tolist() == [[3., 5.]]
    n = tf.placeholder(tf.int32, [])
    assert sess.run(n + 1, {n: 2.0}) == 3
    with pytest.raises(ValueError, match="could not convert string to float"):
        sess.run(y, {x: [["a", "b"]]})
    with pytest.raises(TypeError, match="The value of a feed cannot be a tf.Tensor object"):
        sess.run(y, {x: tf.constant([[1., 2.]])})
    with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor"):
        sess.run(y, {tf.no_op(): 1})


@pytest.mark.parametrize("dtype,value,expected", [
    pytest.param(tf.int32, 2.5, 3, id="float-into-int-truncates"),
    pytest.param(tf.bool, 1, False, id="int-into-bool"),
])
def test_feed_conversions_tensorflow_accepts(sess, dtype, value, expected):
    p = tf.placeholder(dtype, [])
    out = p + 1 if dtype == tf.int32 else tf.logical_not(p)
    assert sess.run(out, {p: value}) == expected


def test_feeding_an_int_too_large_for_int32_is_a_type_error(sess):
    n = tf.placeholder(tf.int32, [])
    with pytest.raises(TypeError, match="is not compatible with Tensor type"):
        sess.run(n + 1, {n: 2 ** 40})


@pytest.mark.parametrize("shape,name", [([None, 2], "x"), ([], "n"), (None, "u")])
def test_unfed_placeholder_is_an_invalid_argument(sess, shape, name):
    p = tf.placeholder(tf.float32, shape, name=name)
    with pytest.raises(errors.InvalidArgumentError, match=f"You must feed a value for placeholder tensor '{name}'"):
        sess.run(p + 1.)


def test_feeding_a_non_placeholder_overrides_its_value(sess):
    c = tf.constant(5.)
    d = c * 3.
    assert sess.run(d, {c: 10.}) == 30.
    assert sess.run(d) == 15.
    assert sess.run(d, {d: 1.}) == 1.
    with pytest.raises(ValueError, match=r"Cannot feed value of shape \(1,\) for Tensor Const:0, which has shape \(\)"):
        sess.run(d, {c: [10.]})


def test_only_the_needed_subgraph_runs(sess):
    c = tf.constant(5.)
    d = c * 3.
    unused = tf.placeholder(tf.float32, [])
    check = tf.Assert(tf.less(c, 0.), [c])
    with tf.control_dependencies([check]):
        guarded = tf.identity(c)
    _ = unused + d
    assert sess.run(d) == 15.  # neither the failing Assert nor the unfed placeholder runs
    with pytest.raises(errors.InvalidArgumentError, match="assertion failed"):
        sess.run(guarded)
    with pytest.raises(errors.InvalidArgumentError, match="assertion failed"):
        sess.run(check)


def test_placeholder_with_default(sess):
    p = tf.placeholder_with_default(tf.constant([1., 2.]), [None], name="pwd")
    assert (p.op.type, p.shape, p.dtype) == ("PlaceholderWithDefault", tf.TensorShape([None]), tf.float32)
    assert sess.run(p * 2.).tolist() == [2., 4.]
    assert sess.run(p * 2., {p: [5., 6., 7.]}).tolist() == [10., 12., 14.]
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        sess.run(p, {p: [[1.]]})


# --- the compile cache ----------------------------------------------------------------------------
def test_compiled_executable_is_cached_per_fetches_and_feeds(sess, graph):
    x, y, s = graph
    feed = {x: [[1., 2.]]}
    sess.run(y, feed)
    assert len(sess._cache) == 1
    ((key, entry),) = sess._cache.items()
    assert sess.run(y, {x: [[3., 4.]]}).tolist() == [[6., 8.]]
    assert len(sess._cache) == 1 and sess._cache[key] is entry
    sess.run(s, feed)
    sess.run([y, s], feed)
    assert len(sess._cache) == 3 and sess._cache[key] is entry


def test_cache_is_invalidated_when_the_graph_changes(sess, graph):
    x, y, _ = graph
    feed = {x: [[1., 2.]]}
    sess.run(y, feed)
    ((key, entry),) = sess._cache.items()
    z = y + 1.
    assert sess.run(y, feed).tolist() == [[2., 4.]]
    assert sess._cache[key] is not entry and len(sess._cache) == 1
    again = sess._cache[key]
    assert sess.run(z, feed).tolist() == [[3., 5.]]
    assert sess.run(y, feed).tolist() == [[2., 4.]] and sess._cache[key] is again


# --- variables --------------------------------------------------------------------------------------
def test_get_variable_initializers_and_variable(sess):
    v = tf.get_variable("v", shape=[2], initializer=tf.zeros_initializer())
    w = tf.get_variable("w", shape=[2, 2], dtype=tf.int32, initializer=tf.ones_initializer())
    k = tf.get_variable("k", shape=[3], initializer=tf.constant_initializer(2.5))
    k2 = tf.get_variable("k2", shape=[2], initializer=tf.constant_initializer([1., 2.]))
    big_v = tf.Variable([1., 2.], name="V")
    plain = tf.Variable(3)
    assert [(t.name, t.dtype, t.shape) for t in (v, w, big_v, plain)] == [
        ("v:0", tf.float32, tf.TensorShape([2])), ("w:0", tf.int32, tf.TensorShape([2, 2])),
        ("V_1:0", tf.float32, tf.TensorShape([2])), ("Variable:0", tf.int32, tf.TensorShape([]))]
    assert [t.name for t in tf.global_variables()] == ["v:0", "w:0", "k:0", "k2:0", "V_1:0", "Variable:0"]
    assert [t.name for t in tf.trainable_variables()] == ["v:0", "w:0", "k:0", "k2:0", "V_1:0", "Variable:0"]
    assert (v.op.name, v.op.type, v.initializer.name, v.initializer.type) == ("v", "VarHandleOp", "v/Assign",
                                                                              "AssignVariableOp")
    init = tf.global_variables_initializer()
    assert (init.name, init.type) == ("init", "NoOp")
    assert [op.name for op in init.control_inputs] == ["v/Assign", "w/Assign", "k/Assign", "k2/Assign", "V_1/Assign",
                                                       "Variable/Assign"]
    assert sess.run(init) is None
    out = sess.run([v, w, k, k2, big_v, plain])
    assert [o.tolist() for o in out] == [[0., 0.], [[1, 1], [1, 1]], [2.5, 2.5, 2.5], [1., 2.], [1., 2.], 3]
    assert [np.asarray(o).dtype for o in out] == [np.float32, np.int32, np.float32, np.float32, np.float32, np.int32]
    assert sess.run(big_v + big_v).tolist() == [2., 4.]
    assert sess.run({"a": big_v, "b": [v]})["a"].tolist() == [1., 2.]
    with pytest.raises(ValueError, match="Variable v already exists, disallowed. Did you mean to set reuse=True"):
        tf.get_variable("v", shape=[2])


def test_reading_a_variable_before_initialization_fails(sess):
    v = tf.Variable([1., 2.], name="v")
    with pytest.raises(errors.FailedPreconditionError):
        sess.run(v)
    with pytest.raises(errors.FailedPreconditionError):
        sess.run(v + 1.)
    sess.run(v.initializer)
    assert sess.run(v + 1.).tolist() == [2., 3.]


def test_assign_and_assign_add(sess):
    v = tf.Variable([1., 2.], name="v")
    cnt = tf.Variable(0, name="cnt")
    set_v = tf.assign(v, [5., 6.])
    bump = cnt.assign_add(1)
    sess.run(tf.global_variables_initializer())
    sess.run(set_v)
    sess.run(bump)
    sess.run(bump)
    assert sess.run([v, cnt])[0].tolist() == [5., 6.] and sess.run(cnt) == 2
    sess.run(v.assign(v * 2.))
    assert sess.run(v).tolist() == [10., 12.]
    sess.run(tf.variables_initializer([v]))
    assert sess.run(v).tolist() == [1., 2.] and sess.run(cnt) == 2
    assert v.eval(session=sess).tolist() == [1., 2.]


def test_two_sessions_hold_separate_values():
    v = tf.Variable([1., 2.], name="v")
    inc = v.assign_add([1., 1.])
    init = tf.global_variables_initializer()
    s1, s2 = tf.Session(), tf.Session(config=tf.ConfigProto(static_schedule=False))
    s1.run(init)
    s1.run(inc)
    with pytest.raises(errors.FailedPreconditionError):
        s2.run(v)
    s2.run(init)
    assert s2.run(v).tolist() == [1., 2.] and s1.run(v).tolist() == [2., 3.]
    s2.run(inc)
    s2.run(inc)
    assert s2.run(v).tolist() == [3., 4.] and s1.run(v).tolist() == [2., 3.]


def test_fetching_an_assign_returns_the_new_value(sess):
    v = tf.Variable([1., 2.], name="v")
    cnt = tf.Variable(0, name="cnt")
    set_v, bump = tf.assign(v, [5., 6.]), cnt.assign_add(10)
    sess.run(tf.global_variables_initializer())
    assert sess.run(set_v).tolist() == [5., 6.]
    assert sess.run(bump) == 10


def test_assign_add_is_an_assign_add_variable_op():
    cnt = tf.Variable(0, name="cnt")
    cnt.assign_add(1)
    assert [op.type for op in tf.get_default_graph().get_operations()][-3:] == [
        "Const", "AssignAddVariableOp", "ReadVariableOp"]


def test_get_variable_emits_tensorflows_nodes():
    tf.get_variable("v", shape=[2], initializer=tf.zeros_initializer())
    assert [(op.name, op.type) for op in tf.get_default_graph().get_operations()] == [
        ("v/Initializer/zeros", "Const"), ("v", "VarHandleOp"), ("v/IsInitialized/VarIsInitializedOp",
                                                                 "VarIsInitializedOp"),
        ("v/Assign", "AssignVariableOp"), ("v/Read/ReadVariableOp", "ReadVariableOp")]


# --- default sessions and closing -------------------------------------------------------------------
def test_session_as_context_manager_is_the_default_session(graph):
    x, y, _ = graph
    d = tf.constant(5.) * 3.
    noop = tf.no_op()
    assert tf.get_default_session() is None
    with tf.Session() as s:
        assert tf.get_default_session() is s
        assert d.eval() == 15.
        assert y.eval({x: [[1., 1.]]}).tolist() == [[2., 2.]]
        assert noop.run() is None
    assert tf.get_default_session() is None
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        s.run(d)
    with pytest.raises(ValueError, match="(?i)no default session is registered"):
        d.eval()
    s2 = tf.Session()
    with s2.as_default():
        assert tf.get_default_session() is s2 and d.eval() == 15.
    assert tf.get_default_session() is None
    assert s2.run(d) == 15.  # as_default() does not close the session
    assert d.eval(session=s2) == 15.


def test_closed_session_raises_runtime_error(sess):
    c = tf.constant(1.)
    assert sess.run(c) == 1.
    sess.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        sess.run(c)


# --- tracing ----------------------------------------------------------------------------------------
def test_full_trace_fills_run_metadata(graph):
    x, _, s = graph
    sess = tf.Session()
    meta = tf.RunMetadata()
    out = sess.run(s, {x: [[1., 2.]]}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                   run_metadata=meta)
    assert out == 6.
    firings = list(meta.trace)
    assert len(firings) > 0 and meta.step_stats == firings
    nodes = [f.node for f in firings]
    assert {"mul/y", "mul", "Sum"} <= set(nodes)
    assert nodes.index("mul") < nodes.index("Sum")
    assert all(f.live for f in firings)
    assert next(f for f in firings if f.node == "Sum").op_type == "Sum"
    untraced = tf.RunMetadata()
    sess.run(s, {x: [[1., 2.]]}, run_metadata=untraced)
    assert untraced.trace is None
