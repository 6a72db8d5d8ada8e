"""cond / case / while_loop (control flow v1): the nodes TensorFlow emits, values, and build-time errors."""
import collections
import textwrap

import numpy as np
import pytest
from running import run

import cfnb as tf


def _ops(g=None):
    return [(op.name, op.type) for op in (g or tf.get_default_graph()).get_operations()]


# --- graph structure, node for node as tf.compat.v1 emits it ----------------------------------------
def test_while_loop_emits_tensorflows_nodes_and_names():
    # The node list TensorFlow 2.21 (CFv1) emits for this program, recorded with tf.compat.v1.
    tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0])
    assert tf.get_default_graph().as_text() == textwrap.dedent("""\
        while/Const = Const() {value=0} -> int32[]
        while/Enter = Enter(while/Const) {frame_name=while/while_context, is_constant=False, parallel_iterations=10} -> int32[]
        while/Merge = Merge(while/Enter, while/NextIteration) -> int32[], int32[]
        while/Less/y = Const(^while/Merge) {value=10} -> int32[]
        while/Less = Less(while/Merge, while/Less/y) -> bool[]
        while/LoopCond = LoopCond(while/Less) -> bool[]
        while/Switch = Switch(while/Merge, while/LoopCond) -> int32[], int32[]
        while/Identity = Identity(while/Switch:1) -> int32[]
        while/add/y = Const(^while/Identity) {value=1} -> int32[]
        while/add = AddV2(while/Identity, while/add/y) -> int32[]
        while/NextIteration = NextIteration(while/add) -> int32[]
        while/Exit = Exit(while/Switch) -> int32[]""")  # noqa: E501


def test_captured_tensor_enters_through_one_constant_enter():
    a = tf.constant(3.0)
    tf.while_loop(lambda v: v < 100.0, lambda v: v * a * a, [tf.constant(2.0)])
    enters = [op for op in tf.get_default_graph().get_operations() if op.type == "Enter"]
    assert [(op.name, op.get_attr("is_constant")) for op in enters] == [("while/Enter", False),
                                                                         ("while/mul/Enter", True)]
    assert enters[1].inputs[0] is a


def test_cond_emits_pivots_one_switch_per_captured_tensor_and_one_merge():
    x, y, z = tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)
    tf.cond(x < y, lambda: tf.add(x, z), lambda: tf.square(y))
    assert _ops()[4:] == [
        ("cond/Switch", "Switch"), ("cond/switch_t", "Identity"), ("cond/switch_f", "Identity"),
        ("cond/pred_id", "Identity"), ("cond/Add", "AddV2"), ("cond/Add/Switch", "Switch"),
        ("cond/Add/Switch_1", "Switch"), ("cond/Square", "Square"), ("cond/Square/Switch", "Switch"),
        ("cond/Merge", "Merge")]
    merge = tf.get_default_graph().get_operation_by_name("cond/Merge")
    assert [t.name for t in merge.inputs] == ["cond/Square:0", "cond/Add:0"]


def test_nested_loop_routes_outer_values_through_outer_enters():
    n = tf.constant(0)

    def inner(s):
        return tf.while_loop(lambda i, s: i < 10, lambda i, s: (i + 1, i + s), [n, s])[1]

    r = tf.while_loop(lambda x: x < 200, lambda x: x + inner(n), [n])
    g = tf.get_default_graph()
    inner_enters = [op for op in g.get_operations() if op.type == "Enter"
                    and op.get_attr("frame_name") == "while/while/while_context"]
    assert inner_enters and all(op.inputs[0].op.type == "Enter" for op in inner_enters)
    assert run(r) == 225 and run(r, static=False) == 225


# --- values -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("static", [False, True])
def test_cond_both_outcomes_and_nested(static):
    p = tf.placeholder(tf.bool, [])
    x = tf.constant(10)
    r = tf.cond(p, lambda: tf.cond(p, lambda: x + 1, lambda: x - 1) + 1, lambda: x - 1)
    assert run(r, {p: True}, static=static) == 12
    assert run(r, {p: False}, static=static) == 9


@pytest.mark.parametrize("static", [False, True])
def test_case_first_true_wins_and_default(static):
    x, y, z = tf.constant(1), tf.constant(2), tf.constant(3)
    f1, f2, f3 = (lambda: tf.constant(17)), (lambda: tf.constant(23)), (lambda: tf.constant(-1))
    r = [tf.case({x < y: f1, x > z: f2}, default=f3, exclusive=True),
         tf.case([(y > z, f1), (y > x, f2)], default=f3),
         tf.case([(x < y, f1), (x < y, f2)], default=f3),
         tf.case({x > y: f1}, default=f3)]
    assert run(r, static=static) == [17, 23, 17, -1]


def test_case_exclusive_with_two_true_predicates_fails_at_run_time():
    x, y = tf.constant(1), tf.constant(2)
    r = tf.case([(x < y, lambda: tf.constant(17)), (x < y, lambda: tf.constant(23))],
                default=lambda: tf.constant(-1), exclusive=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="exclusive=True: more than 1 conditions"):
        run(r)


@pytest.mark.parametrize("static", [False, True])
def test_maximum_iterations_and_structures(static):
    i = tf.constant(0)
    s = tf.constant([1, 2, 3, 4, 5])
    r = tf.while_loop(lambda i, s: i < 10, lambda i, s: [i + 1, i + s], [i, s], maximum_iterations=3)
    np.testing.assert_array_equal(run(r[1], static=static), [4, 5, 6, 7, 8])
    assert run(tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], maximum_iterations=1), static=static) == 1


def test_nested_structures_keep_their_types():
    named = collections.namedtuple("named", ("a", "b"))
    lv = [named(a=tf.constant(0.0), b=tf.constant(1.0)), (tf.constant(2.0), tf.constant(3.0)), tf.constant(4.0)]
    r = tf.while_loop(lambda lv0, _1, _2: lv0.a < 100.0,
                      lambda lv0, lv1, lv2: [named(a=lv0.a + 1, b=lv0.b), (lv1[0] + 1, lv1[1]), lv2 + 2], lv)
    assert isinstance(r, list) and isinstance(r[0], named) and isinstance(r[1], tuple)
    assert tf.nest.flatten(run(r)) == [100.0, 1.0, 102.0, 3.0, 204.0]


def test_dict_loop_vars_and_return_same_structure():
    r = tf.while_loop(lambda d: d["i"] < 3, lambda d: [{"i": d["i"] + 1, "s": d["s"] * 2.0}],
                      [{"i": tf.constant(0), "s": tf.constant(1.0)}], return_same_structure=True)
    assert run(r) == [{"i": 3, "s": 8.0}]


def test_shape_invariants_allow_a_growing_loop_var():
    i = tf.constant(0)
    m = tf.ones([2, 2])
    r = tf.while_loop(lambda i, j: i < 2, lambda i, j: [i + 1, tf.concat([j, j], 0)], [i, m],
                      [i.get_shape(), tf.TensorShape([None, 2])])
    assert r[1].shape.as_list() == [None, 2]
    assert run(r[1]).shape == (8, 2)


@pytest.mark.parametrize("static", [False, True])
def test_tensor_array_in_loop(static):
    x = tf.placeholder(tf.float32, [4])
    ta_in = tf.TensorArray(tf.float32, size=4).unstack(x)
    ta_out = tf.TensorArray(tf.float32, size=4)
    _, ta_out = tf.while_loop(lambda i, ta: i < 4, lambda i, ta: (i + 1, ta.write(i, ta_in.read(i) * 2.0)),
                              [0, ta_out])
    np.testing.assert_array_equal(run(ta_out.stack(), {x: [1, 2, 3, 4]}, static=static), [2, 4, 6, 8])


def test_tensor_array_read_twice_is_cleared():
    ta = tf.TensorArray(tf.float32, size=1).write(0, 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not read index 0 twice"):
        run([ta.read(0), tf.identity(ta.read(0)) * 1.0])


@pytest.mark.parametrize("static", [False, True])
def test_while_in_cond_and_cond_in_while(static):
    p = tf.placeholder(tf.bool, [])
    n = tf.constant(0.0)
    r = tf.cond(p, lambda: tf.while_loop(lambda x: x < 10.0, lambda x: x + 1.0, [n]), lambda: n * 2.0)
    assert run(r, {p: True}, static=static) == 10.0 and run(r, {p: False}, static=static) == 0.0
    w = tf.while_loop(lambda x: x < 10, lambda x: tf.cond(tf.constant(True), lambda: x + 1, lambda: x - 1), [0])
    assert run(w, static=static) == 10
    cond = lambda i: tf.cond(i > 0, lambda: tf.constant(True), lambda: tf.constant(False))  # noqa: E731
    body = lambda i: tf.cond(i > 0, lambda: i - 1, lambda: i)  # noqa: E731
    with tf.control_dependencies([tf.no_op()]):
        w2 = tf.while_loop(cond, body, (tf.constant(5),))
    assert run(w2, static=static) == 0


def test_zero_iteration_loop_returns_the_initial_values():
    x = tf.placeholder(tf.float32, [])
    r = tf.while_loop(lambda v: v < 0.0, lambda v: v * 2.0, [x])
    assert run(r, {x: 3.0}) == 3.0 and run(r, {x: 3.0}, static=False) == 3.0


# --- build-time errors, naming the loop/cond and the variable --------------------------------------------
def test_body_structure_mismatch():
    with pytest.raises(ValueError, match=r"(?s)while_loop 'while'.*don't have the same nested structure"):
        tf.while_loop(lambda i, x: i < 10, lambda i, x: (i, i, x), [tf.constant(0), tf.constant([2.0, 4.0])])


def test_dtype_change_of_a_loop_var():
    with pytest.raises(TypeError, match=r"while_loop 'while': Loop var Const:0 .*float32.*float16"):
        tf.while_loop(lambda x: x < 10, lambda x: tf.cast(x, tf.float16) + 1, [tf.constant(1.0)])


def test_shape_change_without_invariant_names_the_invariant_that_would_allow_it():
    i, m = tf.constant(0), tf.ones([2, 2])
    with pytest.raises(ValueError, match=r"Input tensor 'ones:0' \(loop variable #1\) enters the loop with shape "
                                         r"\(2, 2\), but has shape \(4, 2\) after one iteration.*"
                                         r"TensorShape\(\[None, 2\]\)"):
        tf.while_loop(lambda i, j: i < 2, lambda i, j: [i + 1, tf.concat([j, j], 0)], [i, m])


def test_initial_shape_incompatible_with_invariant():
    i = tf.constant(0)
    with pytest.raises(ValueError, match="shape invariant specified for Const_1:0 is not compatible"):
        tf.while_loop(lambda i, _: i < 10, lambda i, x: [i + 1, x + 1], [i, tf.constant([2.0, 4.0])],
                      [i.shape, tf.TensorShape([5])])


@pytest.mark.parametrize("pred,error,pattern", [
    (lambda x: x, TypeError, "`cond` must return a boolean tensor, but returned .* of dtype float32"),
    (lambda x: tf.ones([2], tf.bool), ValueError, r"`cond` must return a scalar, .* of shape \(2,\)"),
    (lambda x: True, TypeError, "`cond` returned the Python bool True"),
    (lambda x: np.bool_(False), TypeError, "`cond` returned the Python bool False"),
])
def test_bad_loop_predicates_get_one_message_in_both_forms(mode, pred, error, pattern):
    with pytest.raises(error, match=f"while_loop 'while'.*{pattern}"):
        tf.while_loop(pred, lambda x: x + 1.0, [tf.constant(1.0)])


def test_a_one_element_predicate_is_squeezed_in_v2_and_refused_by_v1s_loop_cond():
    """TensorFlow's while_v2 reshapes a [1] predicate to a scalar; v1's LoopCond demands a scalar."""
    def cond(x):
        return tf.reshape(x < 3.0, [1])
    with pytest.raises(ValueError, match=r"while_loop 'while'.*must return a scalar.*\(1,\)"):
        tf.while_loop(cond, lambda x: x + 1.0, [tf.constant(1.0)])
    tf.enable_control_flow_v2()
    r = tf.while_loop(cond, lambda x: x + 1.0, [tf.constant(1.0)])
    assert tf.Session().run(r) == 3.0


@pytest.mark.parametrize("kwargs,error,pattern", [
    ({"parallel_iterations": 0}, TypeError, "'parallel_iterations' must be a positive integer"),
    ({"maximum_iterations": [2, 3]}, ValueError, "'maximum_iterations' must be a scalar"),
    # TensorFlow's v1 counts in floats (2.5 runs three iterations) and its v2 refuses the float: cfnb refuses it in
    # both, never casting it to 2 iterations
    ({"maximum_iterations": 2.5}, TypeError, "'maximum_iterations' must be an integer, got float32"),
    ({"maximum_iterations": np.float64(2.0)}, TypeError, "'maximum_iterations' must be an integer, got float64"),
])
def test_bad_loop_arguments(mode, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        tf.while_loop(lambda x: x < 3, lambda x: x + 1, [0], **kwargs)


def test_an_int64_bound_counts_in_int64_in_v1_and_is_refused_by_v2_as_in_tensorflow():
    """TensorFlow's v2 refuses an int64 `maximum_iterations` (its While op counts in int32); casting it could
    wrap a bound of 2**32 to 0 iterations."""
    bound = tf.constant(2, tf.int64)
    r = tf.while_loop(lambda x: x < 10, lambda x: x + 1, [tf.constant(0)], maximum_iterations=bound)
    assert tf.Session().run(r) == 2
    tf.enable_control_flow_v2()
    with pytest.raises(TypeError, match="while_loop 'while_1'.*must be an int32 with control flow v2.*got int64"):
        tf.while_loop(lambda x: x < 10, lambda x: x + 1, [tf.constant(0)], maximum_iterations=bound)
    with pytest.raises(ValueError, match="while_loop 'while_2'.*is 4294967296, outside the range of the While op's"):
        tf.while_loop(lambda x: x < 10, lambda x: x + 1, [tf.constant(0)], maximum_iterations=2**32)


def test_missing_or_uncallable_arguments():
    with pytest.raises(ValueError, match="'loop_vars' must be provided"):
        tf.while_loop(lambda: True, lambda: 1, [])
    with pytest.raises(TypeError, match="'cond' must be callable"):
        tf.while_loop(True, lambda x: x, [0])
    with pytest.raises(ValueError, match="`body` returned None"):
        tf.while_loop(lambda x: x < 3, lambda x: None, [0])


def test_cond_errors():
    x = tf.constant(1.0)
    with pytest.raises(TypeError, match="'pred' must not be a Python bool"):
        tf.cond(False, lambda: x + 1, lambda: x - 1)
    with pytest.raises(TypeError, match="cond 'cond'.*must be a boolean tensor"):
        tf.cond(tf.constant(1), lambda: x, lambda: x)
    with pytest.raises(ValueError, match="cond 'cond_1'.*must be a scalar"):
        tf.cond(tf.constant([True, False]), lambda: x, lambda: x)
    with pytest.raises(ValueError, match="cond 'cond_2'.*same structure"):
        tf.cond(x < 2.0, lambda: {"a": x, "b": x}, lambda: {"c": x, "d": x})
    with pytest.raises(ValueError, match=r"cond 'cond_3'.*same type\(s\). Received float32 from 'true_fn' and int32"):
        tf.cond(x < 2.0, lambda: x, lambda: tf.constant(1))
    with pytest.raises(ValueError, match="'true_fn' must have a return value"):
        tf.cond(x < 2.0, lambda: None, lambda: x)


def test_tensor_from_inside_a_loop_used_outside_or_in_another_loop():
    inside = []

    def body(v):
        inside.append(v * 2.0)
        return v + 1.0

    tf.while_loop(lambda v: v < 3.0, body, [tf.constant(0.0)])
    with pytest.raises(ValueError, match="Cannot use 'while/mul' as input to 'add' because 'while/mul' is in a "
                                         "while loop"):
        inside[0] + 1.0
    with pytest.raises(ValueError, match="because they are in different while loops"):
        tf.while_loop(lambda v: v < 3.0, lambda v: v + inside[0], [tf.constant(0.0)])


def test_merge_predicates_tell_a_conds_merge_from_a_loops():
    """control_flow_util.IsCondMerge / IsLoopMerge, as TensorFlow's control_flow_util_test checks them: a cond's
    Merge takes its inputs from the branches' CondContexts, a loop's from Enter and NextIteration."""
    from cfnb.ops import control_flow_util as util
    g = tf.Graph()
    with g.as_default():
        tf.disable_control_flow_v2()
        x = tf.constant(1.0)
        tf.while_loop(lambda i: i < 3.0, lambda i: tf.cond(i > x, lambda: i + 1.0, lambda: i + 2.0), [x])
    merges = {op.name: (util.IsCondMerge(op), util.IsLoopMerge(op)) for op in g.get_operations() if util.IsMerge(op)}
    assert merges == {"while/Merge": (False, True), "while/cond/Merge": (True, False)}


def test_with_dependencies_colocates_its_identity_with_the_tensor():
    # TensorFlow 2.21 (testDependenciesDevice): the Identity goes where the tensor goes, not where the enclosing
    # device scope says; a Python value's Const is made under the scope first, then colocated with.
    from cfnb.ops.control_flow_ops import with_dependencies
    with tf.device("/job:ps"):
        vd = tf.constant([0.0], name="vd")
    a = with_dependencies([tf.no_op()], vd)
    vdef = tf.constant([0.0], name="vdef")
    with tf.device("/job:worker/device:GPU:1"):
        b = with_dependencies([tf.no_op()], vdef)
        c = with_dependencies([tf.no_op()], 3.0)
    assert (a.device, a.op.colocation_groups()) == ("/job:ps", [b"loc:@vd"])
    assert (b.device, b.op.colocation_groups()) == ("", [b"loc:@vdef"])
    assert (c.device, c.op.colocation_groups()) == ("/job:worker/device:GPU:1", [b"loc:@control_dependency_2/Const"])
