"""The gradient table (tests/gradient_table.py) against cfnb's registry and TensorFlow's, and every gradient rule
against float64 finite differences: first order, and second order (finite differences of the first-order gradient),
so that a gradient of a gradient never silently drops a term (issue 18: TanhGrad, SigmoidGrad and SqrtGrad once
were "not differentiable" and d²/dx² sum(sigmoid(x) * x) lost half its value)."""
import json
import pathlib

import numpy as np
import pytest
from gradient_table import CFNB_ONLY, NOT_YET, TABLE

import cfnb as tf
from cfnb.framework.op_def_library import apply_op
from cfnb.framework.registry import get_op_def, registered_types
from cfnb.ops import array_ops
from cfnb.testing import check_gradients

RECORDED = json.loads((pathlib.Path(__file__).parent / "regressions" / "grad2_tf.json").read_text())["registry"]


def _rule(op_type):
    grad = get_op_def(op_type).grad
    if grad == "none":
        return "NotDifferentiable"
    return None if grad is None else f"{grad.__module__.rsplit('.', 1)[-1]}.{grad.__name__}"


def _cfnb_op_types():
    """The op types cfnb registers (tests register a few of their own, whose shape functions live in tests)."""
    return sorted(t for t in registered_types() if get_op_def(t).infer.__module__.startswith("cfnb."))


def test_every_registered_op_is_in_the_table():
    assert _cfnb_op_types() == sorted(TABLE), "audit the new op types against TensorFlow's gradients"


@pytest.mark.parametrize("op_type", sorted(TABLE))
def test_registry_is_the_table(op_type):
    assert _rule(op_type) == TABLE[op_type][1]


@pytest.mark.parametrize("op_type", sorted(TABLE))
def test_table_follows_tensorflows_rules(op_type):
    tf_rule, ours = TABLE[op_type]
    if op_type in CFNB_ONLY:
        assert tf_rule is None and ours is not None
    elif tf_rule is None:
        assert ours is None, "an op TensorFlow does not differentiate must raise LookupError, not return None"
    elif tf_rule != "NotDifferentiable":
        assert (ours in (None, "NotDifferentiable")) == (op_type in NOT_YET)


def test_tensorflow_column_is_tensorflows_registry():
    """record_grad2.py reads TensorFlow's registry for every op of the table."""
    assert sorted(RECORDED) == sorted(TABLE), "run tests/regressions/record_grad2.py again"
    for op_type, (tf_rule, _) in TABLE.items():
        assert RECORDED[op_type] == tf_rule, op_type


def test_a_gradient_reaching_an_op_without_one_is_a_lookup_error():
    """ListDiff (tf.setdiff1d) has no gradient in TensorFlow: its float output is a LookupError, not a None."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        kept = apply_op("ListDiff", [("x", x * 2.0), ("y", [4.0])], {"out_idx": tf.int32}, same_type=("x", "y"))
        with pytest.raises(LookupError, match="No gradient defined for operation 'ListDiff' .op type: ListDiff"):
            tf.gradients(kept.outputs[0], x)


def test_a_gradient_through_a_complex_tensor_is_refused_not_dropped():
    """TensorFlow differentiates complex tensors and cfnb does not: the path must not silently count for nothing."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        c = tf.cast(x, tf.complex64)
        with pytest.raises(NotImplementedError, match="cfnb does not differentiate complex tensors"):
            tf.gradients(tf.real(c * c) + x, x)
        (g,) = tf.gradients(x * 3.0 + tf.cast(tf.abs(c) > 1.0, tf.float32), x)  # the complex path carries nothing
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(g, {x: [0.5, 2.0]}), [3.0, 3.0])


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_a_gradient_through_a_tensor_array_of_complex_values_is_refused(v2):
    """TensorFlow's testSkipEagerTensorArrayGradientWriteRead with complex64: v2's TensorList of complex values is a
    variant no float gradient flows through, which gave a silent None; both versions refuse it."""
    if v2:
        tf.enable_control_flow_v2()
    with tf.Graph().as_default():
        v = tf.constant(np.array([1 + 2j], np.complex64))
        r = tf.TensorArray(tf.complex64, size=3).write(0, v).read(0)
        with pytest.raises(NotImplementedError, match="cfnb does not differentiate complex tensors"):
            tf.gradients([r], [v], grad_ys=[tf.constant(np.array([1j], np.complex64))])


# --- finite differences ---------------------------------------------------------------------------------------
def _op(op_type, inputs, attrs=None, **kw):
    return apply_op(op_type, inputs, attrs, **kw).outputs


def _unknown(x):
    """`x` with no static shape: the gradient must work out the sizes when the graph runs."""
    return tf.placeholder_with_default(x, None)


A = np.array([[0.7, -1.3, 0.4], [1.9, 0.6, -0.8]])
B = np.array([[1.1, 0.3, -0.6], [-0.4, 1.5, 0.9]])
V = np.array([0.8, -0.5, 1.4])
POSITIVE = np.array([[0.7, 1.3, 0.4], [1.9, 0.6, 2.2]])

# name: (function of float64 placeholders, input values, op types it differentiates)
CASES = {
    "abs": (lambda x: tf.abs(x) * x, [A], ["Abs", "Mul"]),
    "add": (lambda x, y: _op("Add", [("x", x * x), ("y", y)], same_type=("x", "y"))[0], [A, V], ["Add"]),
    "add_n": (lambda x, y: tf.add_n([x, x * y, y * y]), [A, B], ["AddN"]),
    "add_v2_broadcast": (lambda x, y: (x + y) * (x + y), [A, V], ["AddV2"]),
    "broadcast_to": (lambda x: array_ops.broadcast_to(x * x, [2, 3]) * A, [V], ["BroadcastTo"]),
    "cast": (lambda x: tf.cast(tf.cast(x * x, tf.float32), tf.float64), [A], ["Cast"]),
    "concat": (lambda x, y: tf.concat([x * x, tf.sin(y)], 1) * tf.concat([A, B], 1), [A, B], ["ConcatV2", "SplitV"]),
    "concat_unknown_sizes": (lambda x, y: tf.concat([_unknown(x * x), _unknown(tf.sin(y))], 0) * 1.5, [A, B],
                             ["ConcatV2", "ConcatGradSplit"]),
    "cos": (lambda x: tf.cos(x) * x, [A], ["Cos"]),
    "cumprod": (lambda x: _op("Cumprod", [("x", x), ("axis", 1)], {"exclusive": False, "reverse": True},
                              dtypes={"axis": tf.int32})[0] * x, [A], ["Cumprod"]),
    "cumsum": (lambda x: _op("Cumsum", [("x", x * x), ("axis", 0)], {"exclusive": True, "reverse": False},
                             dtypes={"axis": tf.int32})[0] * x, [A], ["Cumsum"]),
    "div_no_nan": (lambda x, y: tf.div_no_nan(x * x, y), [A, B], ["DivNoNan"]),
    "dynamic_stitch": (lambda x, y: _op("DynamicStitch", [("indices_0", [0, 2]), ("indices_1", [1]),
                                                          ("data_0", x * x), ("data_1", tf.sin(y))], {"N": 2})[0],
                       [A, B[:1]], ["DynamicStitch"]),
    "exp": (lambda x: tf.exp(x) * x, [A], ["Exp"]),
    "expand_dims": (lambda x: tf.expand_dims(x * x, 0) * A, [V], ["ExpandDims"]),
    "fill": (lambda x: tf.fill([2, 3], tf.reduce_sum(x * x)) * A, [V], ["Fill", "Sum"]),
    "floor_mod": (lambda x, y: tf.floormod(x * x, y + 3.0) * x, [A, B], ["FloorMod"]),
    "gather_axis0": (lambda x: tf.gather(x * x, [1, 0, 1]) * tf.sin(x[:1]), [A], ["GatherV2", "UnsortedSegmentSum"]),
    "gather_axis1": (lambda x: tf.gather(x * x, [2, 2, 0], axis=1) * x, [A], ["GatherV2", "UnsortedSegmentSum"]),
    "gather_unknown_shape": (lambda x: tf.gather(_unknown(x * x), [2, 0], axis=0) * tf.exp(x[:2]), [V],
                             ["GatherV2"]),
    "identity": (lambda x: tf.identity(x * x) * x, [A], ["Identity"]),
    "identity_n": (lambda x, y: tf.add_n(_op("IdentityN", [("input", [x * x, y * x])], {"T": [tf.float64] * 2})),
                   [A, B], ["IdentityN"]),
    "log": (lambda x: tf.log(x) * x, [POSITIVE], ["Log"]),
    "log1p": (lambda x: tf.log1p(x) * x, [POSITIVE], ["Log1p"]),
    "matmul": (lambda x, y: tf.matmul(x, y, transpose_b=True) * tf.matmul(x, y, transpose_b=True), [A, B],
               ["MatMul"]),
    "matmul_transposed": (lambda x, y: tf.sin(tf.matmul(x, y, transpose_a=True)), [A, B], ["MatMul"]),
    "max": (lambda x: tf.reduce_max(x * x, 1) * tf.reduce_max(x), [A], ["Max"]),
    "min": (lambda x: tf.reduce_min(x * x, 0) * x[0], [A], ["Min"]),
    "maximum_minimum": (lambda x, y: tf.maximum(x, y) * tf.minimum(x * y, y), [A, B], ["Maximum", "Minimum"]),
    "mean": (lambda x: tf.reduce_mean(x * x, 0) * x, [A], ["Mean"]),
    "neg": (lambda x: -(x * x) * x, [A], ["Neg"]),
    "optional": (lambda x: _op("OptionalGetValue", [("optional", _op("OptionalFromValue",
                                                                        [("components_0", x * x)])[0])],
                               {"output_types": [tf.float64], "output_shapes": [tf.TensorShape([2, 3])]})[0] * x,
                 [A], ["OptionalFromValue", "OptionalGetValue"]),
    "pack_unpack": (lambda x, y: tf.stack(tf.unstack(x * y, axis=1), axis=1) * tf.stack([x, y])[1], [A, B],
                    ["Pack", "Unpack"]),
    "placeholder_with_default": (lambda x: tf.placeholder_with_default(x * x, [2, 3]) * x, [A],
                                 ["PlaceholderWithDefault"]),
    "pow": (lambda x, y: tf.pow(x, y) * x, [POSITIVE, B], ["Pow"]),
    "print": (lambda x: tf.Print(x * x, [], message="") * x, [A], ["Print"]),
    "prod": (lambda x: tf.reduce_prod(x, 1) * tf.reduce_prod(x), [A], ["Prod"]),
    "prod_with_a_zero": (lambda x: tf.reduce_prod(x * [[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]], 1), [A], ["Prod"]),
    "real_div": (lambda x, y: x / y * x, [A, B], ["RealDiv"]),
    "reciprocal": (lambda x: tf.reciprocal(x) * x * x, [A], ["Reciprocal", "ReciprocalGrad"]),
    "relu": (lambda x: tf.nn.relu(x) * x, [A], ["Relu", "ReluGrad"]),
    "reshape": (lambda x: tf.reshape(x * x, [3, 2]) * tf.reshape(x, [3, 2]), [A], ["Reshape"]),
    "rsqrt": (lambda x: tf.rsqrt(x) * x, [POSITIVE], ["Rsqrt", "RsqrtGrad"]),
    "select": (lambda x, y: tf.where(x > y, x * y, x * x), [A, B], ["Select"]),
    "select_v2_broadcast": (lambda x, y: tf.where_v2(x > 0.5, x * x, y * x), [A, V], ["SelectV2"]),
    "sigmoid": (lambda x: tf.sigmoid(x) * x, [V], ["Sigmoid", "SigmoidGrad"]),
    "sign": (lambda x: tf.sign(x) * x * x, [A], ["Sign"]),
    "sin": (lambda x: tf.sin(x) * x, [A], ["Sin"]),
    "slice": (lambda x: tf.slice(x * x, [0, 1], [2, 2]) * x[:, :2], [A], ["Slice", "SliceGrad"]),
    "softmax": (lambda x: tf.nn.softmax(x * x) * A, [A], ["Softmax"]),
    "split_v": (lambda x: tf.add_n([tf.reduce_sum(p * p) * (k + 1.0) for k, p in
                                    enumerate(_op("SplitV", [("value", tf.sin(x))], {"sizes": [1, 2], "axis": 1}))]),
                [A], ["SplitV"]),
    "sqrt": (lambda x: tf.sqrt(x) * x, [POSITIVE], ["Sqrt", "SqrtGrad"]),
    "square": (lambda x: tf.square(x) * x, [A], ["Square"]),
    "squared_difference": (lambda x, y: tf.squared_difference(x, y) * x, [A, B], ["SquaredDifference"]),
    "squeeze": (lambda x: tf.squeeze(x * x) * V, [V.reshape(1, 3)], ["Squeeze"]),
    "strided_slice": (lambda x: x[1:, ::2] * x[:1, 1:] * x[0, 0], [A], ["StridedSlice", "StridedSliceGrad"]),
    "sub": (lambda x, y: (x - y) * (x - y * y), [A, V], ["Sub"]),
    "sum": (lambda x: tf.reduce_sum(x * x, 1, keepdims=True) * x, [A], ["Sum"]),
    "tanh": (lambda x: tf.tanh(x) * x, [V], ["Tanh", "TanhGrad"]),
    "tile": (lambda x: tf.tile(x * x, [2, 1]) * tf.concat([A, B], 0), [A], ["Tile"]),
    "tile_unknown_shape": (lambda x: tf.tile(_unknown(x * x), [1, 2]) * tf.concat([A, B], 1), [A], ["Tile"]),
    "transpose": (lambda x: tf.transpose(x * x) * tf.transpose(x), [A], ["Transpose"]),
    "transpose_unknown_perm": (lambda x: tf.transpose(x * x, tf.placeholder_with_default([1, 0], [2])) * A.T, [A],
                               ["Transpose"]),
    "unsorted_segment_sum": (lambda x: _op("UnsortedSegmentSum", [("data", x * x), ("segment_ids", [1, -1, 1]),
                                                                  ("num_segments", 2)],
                                           dtypes={"segment_ids": tf.int32, "num_segments": tf.int32})[0] * 2.0,
                             [A.T], ["UnsortedSegmentSum"]),
}

# Rules exercised by other tests, with the control flow, TensorArrays and TensorLists they need.
ELSEWHERE = {
    "Case": "test_v2_captures.py, regressions/test_grad2.py", "If": "test_v2_captures.py",
    "StatelessCase": "regressions/test_grad2.py", "StatelessIf": "test_v2_captures.py",
    "While": "test_functional.py", "StatelessWhile": "test_functional.py, regressions/test_grad2.py",
    "Enter": "test_gradients.py", "Exit": "test_gradients.py", "Merge": "test_gradients.py",
    "Switch": "test_gradients.py", "NextIteration": "test_gradients.py", "LoopCond": "test_gradients.py",
    "ReadVariableOp": "test_gradients.py",
    "ArgMax": "an index: None", "ArgMin": "an index: None", "Floor": "None", "Round": "None", "FloorDiv": "None",
    **{t: "regressions/test_grad2.py" for t in TABLE if t.startswith(("TensorArray", "TensorList"))},
}


def _second_order(fn):
    """A function whose gradient is the second derivative of `fn`: the first-order gradients, weighted."""
    def first_order(*xs):
        grads = tf.gradients(tf.reduce_sum(fn(*xs)), list(xs))
        weights = [np.linspace(0.5, 1.5, int(np.prod(x.shape.as_list()))).reshape(x.shape.as_list()) for x in xs]
        return tf.add_n([tf.reduce_sum(g * w) for g, w in zip(grads, weights) if g is not None])
    return first_order


def test_every_differentiated_op_has_a_case():
    covered = {t for _, _, types in CASES.values() for t in types}
    differentiated = {t for t, (_, ours) in TABLE.items() if ours not in (None, "NotDifferentiable")}
    missing = differentiated - covered - set(ELSEWHERE)
    assert not missing, f"no finite-difference case for {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_order_matches_finite_differences(name):
    fn, values, types = CASES[name]
    tol = {"rtol": 1e-2, "atol": 1e-4} if name == "cast" else {}
    check_gradients(fn, *values, **tol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order_matches_finite_differences(name):
    fn, values, types = CASES[name]
    tol = {"rtol": 1e-2, "atol": 1e-3} if name == "cast" else {"rtol": 1e-4, "atol": 1e-5}
    check_gradients(_second_order(fn), *values, **tol)


def test_sigmoid_second_derivative_and_hessian_are_tensorflows():
    """Issue 18's example: d²/dx² sum(sigmoid(x) * x) at [0.5, -1.0] is [0.441, 0.302] in TensorFlow 2.21."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2])
        y = tf.reduce_sum(tf.sigmoid(x) * x)
        second = tf.gradients(tf.gradients(y, x)[0], x)[0]
        (hessian,) = tf.hessians(y, x)
        with tf.Session() as sess:
            got, h = sess.run([second, hessian], {x: [0.5, -1.0]})
    np.testing.assert_allclose(got, [0.44122903, 0.30236612], rtol=1e-7)
    np.testing.assert_allclose(h, np.diag(got), rtol=1e-7)


@pytest.mark.parametrize("step", [tf.floor, tf.round])
def test_a_step_functions_gradient_is_none_as_in_tensorflow(step):
    """math_grad._FloorGrad and _RoundGrad answer None: nothing flows back, and nothing is raised."""
    with tf.Graph().as_default():
        x = tf.constant([0.4, 1.5, 2.5])
        assert tf.gradients(step(x), [x]) == [None]
        with tf.Session() as sess:  # x still reaches the sum through the identity term
            np.testing.assert_allclose(sess.run(tf.gradients(step(x) + 2.0 * x, [x])[0]), [2.0, 2.0, 2.0])
