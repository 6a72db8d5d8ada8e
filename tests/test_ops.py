"""Math and array ops against numpy: values, dtypes, op types, and static shapes that agree with the
runtime shapes, on both execution paths (static schedule and tagged-token executor).

Expected op types, dtypes and error types are TensorFlow 2.21's (`tf.compat.v1`, graph mode).
"""
import numpy as np
import pytest
from running import run

import cfnb as tf
from cfnb.framework import errors

F = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
I = np.array([[7, -3, 2], [-8, 5, 4]], np.int32)  # noqa: E741
POS = np.array([[1.0, 2.0, 4.0], [0.25, 9.0, 3.0]], np.float32)
B1 = np.array([[True, False, True], [False, False, True]])
B2 = np.array([[True, True, False], [False, True, True]])
A24 = np.arange(24).reshape(2, 3, 4)
R10 = np.arange(10)


def c(v):
    return tf.constant(v)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# (id, build, expected value, expected dtype, expected op type or None where TF constant-folds)
CASES = [
    # element-wise binary
    ("add", lambda: tf.add(c(F), c(F)), F + F, tf.float32, "AddV2"),
    ("subtract_int", lambda: tf.subtract(c(I), c(I[::-1])), I - I[::-1], tf.int32, "Sub"),
    ("multiply_int", lambda: tf.multiply(c(I), c(I)), I * I, tf.int32, "Mul"),
    ("maximum", lambda: tf.maximum(c(F), 0.), np.maximum(F, 0), tf.float32, "Maximum"),
    ("minimum_int", lambda: tf.minimum(c(I), 0), np.minimum(I, 0), tf.int32, "Minimum"),
    ("squared_difference", lambda: tf.squared_difference(c(F), 1.), (F - 1) ** 2, tf.float32, "SquaredDifference"),
    ("div_no_nan", lambda: tf.div_no_nan(c(F), c(np.array([2., 0., 1.], np.float32))),
     [[0.75, 0., 3.], [0.25, 0., -1.]], tf.float32, "DivNoNan"),
    ("divide_int", lambda: tf.divide(c(I), 2), I / 2, tf.float64, "RealDiv"),
    ("truediv_int", lambda: tf.truediv(c(I), 2), I / 2, tf.float64, "RealDiv"),
    ("truediv_float", lambda: tf.truediv(c(F), 2.), F / 2, tf.float32, "RealDiv"),
    ("div_float", lambda: tf.div(c(F), 2.), F / 2, tf.float32, "RealDiv"),
    ("div_int_floors", lambda: tf.div(c(I), 2), I // 2, tf.int32, "FloorDiv"),
    ("floordiv_int", lambda: tf.floordiv(c(I), 3), I // 3, tf.int32, "FloorDiv"),
    ("floordiv_float", lambda: tf.floordiv(c(F), 2.), F // 2, tf.float32, "FloorDiv"),
    ("mod_int", lambda: tf.mod(c(I), 3), I % 3, tf.int32, "FloorMod"),
    ("floormod_neg_divisor", lambda: tf.floormod(c(I), -3), I % -3, tf.int32, "FloorMod"),
    ("mod_float", lambda: tf.mod(c(F), 2.), F % 2, tf.float32, "FloorMod"),
    ("pow_float", lambda: tf.pow(c(F), 2.), F ** 2, tf.float32, "Pow"),
    ("pow_int", lambda: tf.pow(c(I), 2), I ** 2, tf.int32, "Pow"),
    # element-wise unary
    ("negative_int", lambda: tf.negative(c(I)), -I, tf.int32, "Neg"),
    ("abs_int", lambda: tf.abs(c(I)), np.abs(I), tf.int32, "Abs"),
    ("abs_float", lambda: tf.abs(c(F)), np.abs(F), tf.float32, "Abs"),
    ("square_int", lambda: tf.square(c(I)), I * I, tf.int32, "Square"),
    ("sqrt", lambda: tf.sqrt(c(POS)), np.sqrt(POS), tf.float32, "Sqrt"),
    ("rsqrt", lambda: tf.rsqrt(c(POS)), 1 / np.sqrt(POS), tf.float32, "Rsqrt"),
    ("exp", lambda: tf.exp(c(F)), np.exp(F), tf.float32, "Exp"),
    ("log", lambda: tf.log(c(POS)), np.log(POS), tf.float32, "Log"),
    ("log1p", lambda: tf.log1p(c(POS)), np.log1p(POS), tf.float32, "Log1p"),
    ("sin", lambda: tf.sin(c(F)), np.sin(F), tf.float32, "Sin"),
    ("cos", lambda: tf.cos(c(F)), np.cos(F), tf.float32, "Cos"),
    ("tanh", lambda: tf.tanh(c(F)), np.tanh(F), tf.float32, "Tanh"),
    ("sigmoid", lambda: tf.sigmoid(c(F)), _sigmoid(F), tf.float32, "Sigmoid"),
    ("sign_float", lambda: tf.sign(c(F)), np.sign(F), tf.float32, "Sign"),
    ("sign_int", lambda: tf.sign(c(I)), np.sign(I), tf.int32, "Sign"),
    ("floor", lambda: tf.floor(c(F)), np.floor(F), tf.float32, "Floor"),
    ("reciprocal", lambda: tf.reciprocal(c(POS)), 1 / POS, tf.float32, "Reciprocal"),
    ("nn_relu", lambda: tf.nn.relu(c(F)), np.maximum(F, 0), tf.float32, "Relu"),
    ("nn_relu_int", lambda: tf.nn.relu(c(I)), np.maximum(I, 0), tf.int32, "Relu"),
    ("nn_softmax", lambda: tf.nn.softmax(c(F)), _softmax(F), tf.float32, "Softmax"),
    ("nn_sigmoid", lambda: tf.nn.sigmoid(c(F)), _sigmoid(F), tf.float32, "Sigmoid"),
    ("nn_tanh", lambda: tf.nn.tanh(c(F)), np.tanh(F), tf.float32, "Tanh"),
    ("identity", lambda: tf.identity(c(I)), I, tf.int32, "Identity"),
    ("stop_gradient", lambda: tf.stop_gradient(c(F)), F, tf.float32, "StopGradient"),
    # comparisons and logic
    ("less", lambda: tf.less(c(F), 1.), F < 1, tf.bool, "Less"),
    ("less_equal", lambda: tf.less_equal(c(I), 2), I <= 2, tf.bool, "LessEqual"),
    ("greater", lambda: tf.greater(c(I), 2), I > 2, tf.bool, "Greater"),
    ("greater_equal", lambda: tf.greater_equal(c(F), 1.5), F >= 1.5, tf.bool, "GreaterEqual"),
    ("equal", lambda: tf.equal(c(I), 2), I == 2, tf.bool, "Equal"),
    ("not_equal", lambda: tf.not_equal(c(I), 2), I != 2, tf.bool, "NotEqual"),
    ("logical_and", lambda: tf.logical_and(c(B1), c(B2)), B1 & B2, tf.bool, "LogicalAnd"),
    ("logical_or", lambda: tf.logical_or(c(B1), c(B2)), B1 | B2, tf.bool, "LogicalOr"),
    ("logical_xor", lambda: tf.logical_xor(c(B1), c(B2)), B1 ^ B2, tf.bool, "LogicalAnd"),
    ("logical_not", lambda: tf.logical_not(c(B1)), ~B1, tf.bool, "LogicalNot"),
    ("op_and", lambda: c(B1) & c(B2), B1 & B2, tf.bool, "LogicalAnd"),
    ("op_or", lambda: c(B1) | c(B2), B1 | B2, tf.bool, "LogicalOr"),
    ("op_invert", lambda: ~c(B1), ~B1, tf.bool, "LogicalNot"),
    # matmul and add_n
    ("matmul", lambda: tf.matmul(c(F), c(F.T)), F @ F.T, tf.float32, "MatMul"),
    ("matmul_transpose_b", lambda: tf.matmul(c(F), c(F), transpose_b=True), F @ F.T, tf.float32, "MatMul"),
    ("matmul_transpose_a", lambda: tf.matmul(c(F), c(F), transpose_a=True), F.T @ F, tf.float32, "MatMul"),
    ("matmul_transpose_ab", lambda: tf.matmul(c(F), c(POS.T), transpose_a=True, transpose_b=True), F.T @ POS,
     tf.float32, "MatMul"),
    ("matmul_int", lambda: tf.matmul(c(I), c(I.T)), I @ I.T, tf.int32, "MatMul"),
    ("matmul_operator", lambda: c(F) @ c(F.T), F @ F.T, tf.float32, "MatMul"),
    ("add_n", lambda: tf.add_n([c(I), c(I), c(I)]), 3 * I, tf.int32, "AddN"),
    # reductions
    ("reduce_sum_all", lambda: tf.reduce_sum(c(F)), F.sum(), tf.float32, "Sum"),
    ("reduce_sum_axis0", lambda: tf.reduce_sum(c(I), axis=0), I.sum(0), tf.int32, "Sum"),
    ("reduce_sum_keepdims", lambda: tf.reduce_sum(c(I), axis=1, keepdims=True), I.sum(1, keepdims=True), tf.int32,
     "Sum"),
    ("reduce_sum_neg_axis", lambda: tf.reduce_sum(c(F), axis=-1), F.sum(-1), tf.float32, "Sum"),
    ("reduce_sum_all_keepdims", lambda: tf.reduce_sum(c(F), keepdims=True), F.sum(keepdims=True), tf.float32, "Sum"),
    ("reduce_sum_reduction_indices", lambda: tf.reduce_sum(c(I), reduction_indices=[1]), I.sum(1), tf.int32, "Sum"),
    ("reduce_mean_int_truncates", lambda: tf.reduce_mean(c(I), axis=1), [2, 0], tf.int32, "Mean"),
    ("reduce_mean_float", lambda: tf.reduce_mean(c(F)), F.mean(), tf.float32, "Mean"),
    ("reduce_max_axes", lambda: tf.reduce_max(c(I), axis=[0, 1]), I.max(), tf.int32, "Max"),
    ("reduce_min_keepdims", lambda: tf.reduce_min(c(F), axis=0, keepdims=True), F.min(0, keepdims=True), tf.float32,
     "Min"),
    ("reduce_prod_neg_axis", lambda: tf.reduce_prod(c(I), axis=-2), I.prod(0), tf.int32, "Prod"),
    ("reduce_all", lambda: tf.reduce_all(c(B1), axis=1), B1.all(1), tf.bool, "All"),
    ("reduce_any", lambda: tf.reduce_any(c(B1)), B1.any(), tf.bool, "Any"),
    # where, cast, gather
    ("where3", lambda: tf.where(c(B1), c(F), c(-F)), np.where(B1, F, -F), tf.float32, None),
    ("cast_float_to_int", lambda: tf.cast(c(F), tf.int32), F.astype(np.int32), tf.int32, "Cast"),
    ("cast_int_to_bool", lambda: tf.cast(c(I), tf.bool), I != 0, tf.bool, "Cast"),
    ("cast_int_to_float64", lambda: tf.cast(c(I), tf.float64), I.astype(np.float64), tf.float64, "Cast"),
    ("cast_bool_to_float", lambda: tf.cast(c(B1), tf.float32), B1.astype(np.float32), tf.float32, "Cast"),
    ("gather_axis0", lambda: tf.gather(c(I), [1, 0, 1]), I[[1, 0, 1]], tf.int32, "GatherV2"),
    ("gather_axis1", lambda: tf.gather(c(F), [2, 0], axis=1), F[:, [2, 0]], tf.float32, "GatherV2"),
    ("gather_2d_indices", lambda: tf.gather(c(I), [[0, 1], [1, 1]]), I[[[0, 1], [1, 1]]], tf.int32, "GatherV2"),
    ("gather_scalar_index", lambda: tf.gather(c(I), 1), I[1], tf.int32, "GatherV2"),
    # concat, stack, unstack
    ("concat_axis0", lambda: tf.concat([c(I), c(I)], 0), np.concatenate([I, I], 0), tf.int32, "ConcatV2"),
    ("concat_axis1", lambda: tf.concat([c(F), c(F)], axis=1), np.concatenate([F, F], 1), tf.float32, "ConcatV2"),
    ("concat_neg_axis", lambda: tf.concat([c(F), c(POS)], axis=-1), np.concatenate([F, POS], -1), tf.float32,
     "ConcatV2"),
    ("stack_axis0", lambda: tf.stack([c(F), c(POS)]), np.stack([F, POS]), tf.float32, "Pack"),
    ("stack_axis1", lambda: tf.stack([c(I), c(-I)], axis=1), np.stack([I, -I], 1), tf.int32, "Pack"),
    ("stack_neg_axis", lambda: tf.stack([c(I), c(-I)], axis=-1), np.stack([I, -I], -1), tf.int32, "Pack"),
    ("stack_python_values", lambda: tf.stack([1, 2, 3]), [1, 2, 3], tf.int32, None),
    ("unstack_axis0", lambda: tf.unstack(c(I))[1], I[1], tf.int32, "Unpack"),
    ("unstack_axis1", lambda: tf.unstack(c(I), axis=1)[2], I[:, 2], tf.int32, "Unpack"),
    ("unstack_neg_axis", lambda: tf.unstack(c(I), axis=-1)[0], I[:, 0], tf.int32, "Unpack"),
    # shapes
    ("reshape_minus_one", lambda: tf.reshape(c(I), [3, -1]), I.reshape(3, -1), tf.int32, "Reshape"),
    ("reshape_flat", lambda: tf.reshape(c(F), [-1]), F.reshape(-1), tf.float32, "Reshape"),
    ("reshape_add_dims", lambda: tf.reshape(c([5.]), [1, 1, 1]), [[[5.]]], tf.float32, "Reshape"),
    ("transpose_default", lambda: tf.transpose(c(I)), I.T, tf.int32, "Transpose"),
    ("transpose_perm", lambda: tf.transpose(c(A24), [1, 2, 0]), A24.transpose(1, 2, 0), tf.int64, "Transpose"),
    ("transpose_default_3d", lambda: tf.transpose(c(A24)), A24.T, tf.int64, "Transpose"),
    ("expand_dims_0", lambda: tf.expand_dims(c(I), 0), I[None], tf.int32, "ExpandDims"),
    ("expand_dims_neg", lambda: tf.expand_dims(c(I), -1), I[..., None], tf.int32, "ExpandDims"),
    ("squeeze_all", lambda: tf.squeeze(c(np.ones((1, 3, 1), np.float32))), np.ones(3), tf.float32, "Squeeze"),
    ("squeeze_axis_list", lambda: tf.squeeze(c(np.ones((1, 3, 1), np.float32)), axis=[2]), np.ones((1, 3)),
     tf.float32, "Squeeze"),
    ("squeeze_axis_int", lambda: tf.squeeze(c(np.ones((1, 3, 1), np.float32)), 0), np.ones((3, 1)), tf.float32,
     "Squeeze"),
    ("shape", lambda: tf.shape(c(F)), [2, 3], tf.int32, None),
    ("shape_int64", lambda: tf.shape(c(F), out_type=tf.int64), [2, 3], tf.int64, None),
    ("size", lambda: tf.size(c(F)), 6, tf.int32, None),
    ("rank", lambda: tf.rank(c(A24)), 3, tf.int32, None),
    # fills and ranges
    ("fill_int", lambda: tf.fill([2, 3], 7), np.full((2, 3), 7), tf.int32, "Fill"),
    ("fill_float", lambda: tf.fill([2], 1.5), [1.5, 1.5], tf.float32, "Fill"),
    ("zeros", lambda: tf.zeros([2, 3]), np.zeros((2, 3)), tf.float32, "Const"),
    ("zeros_int", lambda: tf.zeros([2], tf.int32), [0, 0], tf.int32, "Const"),
    ("ones", lambda: tf.ones([3]), np.ones(3), tf.float32, "Const"),
    ("ones_int", lambda: tf.ones((2, 2), dtype=tf.int32), np.ones((2, 2)), tf.int32, "Const"),
    ("zeros_like", lambda: tf.zeros_like(c(I)), np.zeros_like(I), tf.int32, None),
    ("ones_like", lambda: tf.ones_like(c(F)), np.ones_like(F), tf.float32, None),
    ("zeros_like_dtype", lambda: tf.zeros_like(c(I), dtype=tf.float32), np.zeros((2, 3)), tf.float32, None),
    ("zeros_of_shape_tensor", lambda: tf.zeros(tf.shape(c(I))), np.zeros((2, 3)), tf.float32, "Fill"),
    ("range_1_arg", lambda: tf.range(5), np.arange(5), tf.int32, "Range"),
    ("range_2_args", lambda: tf.range(2, 7), np.arange(2, 7), tf.int32, "Range"),
    ("range_3_args_negative", lambda: tf.range(10, 1, -3), [10, 7, 4], tf.int32, "Range"),
    ("range_float", lambda: tf.range(0., 1., 0.25), [0., 0.25, 0.5, 0.75], tf.float32, "Range"),
    ("range_mixed", lambda: tf.range(0, 2.5), [0., 1., 2.], tf.float32, "Range"),
    ("range_dtype", lambda: tf.range(4, dtype=tf.float32), [0., 1., 2., 3.], tf.float32, "Range"),
    # __getitem__
    ("getitem_slice", lambda: c(R10)[1:3], R10[1:3], tf.int64, "StridedSlice"),
    ("getitem_2d_slice", lambda: c(I)[:, 1:3], I[:, 1:3], tf.int32, "StridedSlice"),
    ("getitem_int", lambda: c(I)[1], I[1], tf.int32, "StridedSlice"),
    ("getitem_column", lambda: c(I)[:, 0], I[:, 0], tf.int32, "StridedSlice"),
    ("getitem_ellipsis_newaxis", lambda: c(I)[..., None], I[..., None], tf.int32, "StridedSlice"),
    ("getitem_newaxis_first", lambda: c(I)[tf.newaxis], I[None], tf.int32, "StridedSlice"),
    ("getitem_reverse", lambda: c(I)[::-1], I[::-1], tf.int32, "StridedSlice"),
    ("getitem_tensor_index", lambda: c(I)[c(1)], I[1], tf.int32, "StridedSlice"),
    ("getitem_two_ints", lambda: c(I)[1, 2], I[1, 2], tf.int32, "StridedSlice"),
    ("getitem_negative_ints", lambda: c(I)[-1, -2], I[-1, -2], tf.int32, "StridedSlice"),
    ("getitem_step", lambda: c(R10)[1:8:3], R10[1:8:3], tf.int64, "StridedSlice"),
    ("getitem_negative_step", lambda: c(R10)[8:2:-2], R10[8:2:-2], tf.int64, "StridedSlice"),
    # operators
    ("op_add", lambda: c(I) + 1, I + 1, tf.int32, "AddV2"),
    ("op_radd", lambda: 1 + c(I), I + 1, tf.int32, "AddV2"),
    ("op_rsub", lambda: 10 - c(F), 10 - F, tf.float32, "Sub"),
    ("op_rmul", lambda: 2. * c(F), 2 * F, tf.float32, "Mul"),
    ("op_rtruediv", lambda: 1 / c(POS), 1 / POS, tf.float32, "RealDiv"),
    ("op_truediv_int", lambda: c(I) / 2, I / 2, tf.float64, "RealDiv"),
    ("op_rtruediv_int", lambda: 6 / c(np.array([1, 4, 3], np.int32)), [6., 1.5, 2.], tf.float64, "RealDiv"),
    ("op_truediv_int64", lambda: c(np.array([3, 4])) / 2, [1.5, 2.], tf.float64, "RealDiv"),
    ("op_floordiv_int", lambda: c(I) // 3, I // 3, tf.int32, "FloorDiv"),
    ("op_rfloordiv", lambda: 7 // c(np.array([2, -2], np.int32)), [3, -4], tf.int32, "FloorDiv"),
    ("op_mod_int", lambda: c(I) % 3, I % 3, tf.int32, "FloorMod"),
    ("op_floordiv_neg_divisor", lambda: c(I) // -3, I // -3, tf.int32, "FloorDiv"),
    ("op_mod_neg_divisor", lambda: c(I) % -3, I % -3, tf.int32, "FloorMod"),
    ("op_pow", lambda: c(F) ** 2, F ** 2, tf.float32, "Pow"),
    ("op_rpow", lambda: 2. ** c(F), 2. ** F, tf.float32, "Pow"),
    ("op_neg", lambda: -c(F), -F, tf.float32, "Neg"),
    ("op_abs", lambda: abs(c(I)), np.abs(I), tf.int32, "Abs"),
    ("op_lt", lambda: c(I) < 3, I < 3, tf.bool, "Less"),
    ("op_ge", lambda: c(F) >= 1.5, F >= 1.5, tf.bool, "GreaterEqual"),
    ("broadcast_row", lambda: c(F) + c(np.array([1., 2., 3.], np.float32)), F + [1., 2., 3.], tf.float32, "AddV2"),
    ("broadcast_outer", lambda: c(F[:, :1]) * c(F[:1, :]), F[:, :1] * F[:1, :], tf.float32, "Mul"),
    ("int64_preserved", lambda: c(np.array([1, 2], np.int64)) * 3, [3, 6], tf.int64, "Mul"),
    ("float64_preserved", lambda: c(np.array([1, 2], np.float64)) * 3., [3., 6.], tf.float64, "Mul"),
]


@pytest.fixture(params=[True, False], ids=["static", "interpreted"])
def static(request):
    return request.param


@pytest.mark.parametrize("build,expected,dtype,op_type", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_op_matches_numpy(build, expected, dtype, op_type, static):
    t = build()
    value = run(t, static=static)
    expected = np.asarray(expected)
    assert t.dtype == dtype
    assert np.asarray(value).dtype == dtype.as_numpy_dtype
    if op_type is not None:
        assert t.op.type == op_type
    # Every input is a constant, so the static shape is exact.
    assert t.shape.as_list() == list(np.shape(value)) == list(expected.shape)
    if dtype.is_floating:
        np.testing.assert_allclose(value, expected, rtol=1e-6, atol=1e-7)
    else:
        np.testing.assert_array_equal(value, expected)
    if np.ndim(value) == 0:
        assert isinstance(value, np.generic)  # a numpy scalar, as TensorFlow fetches it


@pytest.mark.parametrize("a", [7, -7, 6, -6, 0])
@pytest.mark.parametrize("b", [3, -3, 2, -2])
def test_floordiv_and_mod_follow_python_semantics(a, b):
    i, j = tf.constant(a), tf.constant(b)
    x, y = tf.constant(float(a)), tf.constant(float(b))
    assert run([i // j, i % j, tf.floordiv(i, j), tf.floormod(i, j)]) == [a // b, a % b, a // b, a % b]
    assert run([x // y, x % y]) == [a // b, a % b]
    assert run(i / j) == a / b


@pytest.mark.parametrize("build", [lambda i, z: i // z, lambda i, z: i % z], ids=["floordiv", "mod"])
def test_integer_division_by_zero_is_an_invalid_argument(build, static):
    with pytest.raises(errors.InvalidArgumentError, match="Integer division by zero"):
        run(build(tf.constant(7), tf.constant(0)), static=static)


def test_integer_truediv_casts_to_float64():
    x = tf.placeholder(tf.int32, [None])
    y = x / 2
    assert (y.op.name, y.op.type, y.dtype) == ("truediv", "RealDiv", tf.float64)
    assert [t.op.type for t in y.op.inputs] == ["Cast", "Cast"]
    assert run(y, {x: [1, 2, 3]}).tolist() == [0.5, 1.0, 1.5]
    with pytest.raises(TypeError, match="must have the same dtype"):
        tf.constant(1) / tf.constant(1.)


def test_where_with_one_argument_lists_true_coordinates(static):
    t = tf.where(tf.constant(B1))
    assert (t.op.type, t.dtype, t.shape) == ("Where", tf.int64, tf.TensorShape([None, 2]))
    value = run(t, static=static)
    assert value.dtype == np.int64 and value.tolist() == [[0, 0], [0, 2], [1, 2]]


def test_add_n_of_one_tensor_is_that_tensor():
    x = tf.placeholder(tf.float32, [2])
    assert tf.add_n([x]) is x


def test_unstack_returns_all_outputs():
    parts = tf.unstack(tf.constant(I), axis=1)
    assert [p.name for p in parts] == ["unstack:0", "unstack:1", "unstack:2"]
    assert [p.shape.as_list() for p in parts] == [[2]] * 3
    np.testing.assert_array_equal(run(parts), list(I.T))
    assert len(tf.unstack(tf.placeholder(tf.float32, [None, 3]), num=2)) == 2
    with pytest.raises(ValueError, match="Cannot infer argument `num` from shape"):
        tf.unstack(tf.placeholder(tf.float32, [None, 3]))


def test_cast_to_the_same_dtype_returns_the_input():
    x = tf.placeholder(tf.float32, [2])
    assert tf.cast(x, tf.float32) is x


# --- static shapes with unknown dimensions ------------------------------------------------------------
@pytest.fixture()
def phs():
    return {"p": tf.placeholder(tf.float32, [None, 3]), "q": tf.placeholder(tf.float32, [4, None]),
            "u": tf.placeholder(tf.float32), "iv": tf.placeholder(tf.int32, [None])}


@pytest.mark.parametrize("build,shape", [
    (lambda p, q, u, iv: p * 1., [None, 3]),
    (lambda p, q, u, iv: p + tf.constant([1., 2., 3.]), [None, 3]),
    (lambda p, q, u, iv: u + 1., None),
    (lambda p, q, u, iv: tf.matmul(q, p), [4, 3]),
    (lambda p, q, u, iv: tf.reduce_sum(p, 1), [None]),
    (lambda p, q, u, iv: tf.reduce_sum(p, 0, keepdims=True), [1, 3]),
    (lambda p, q, u, iv: tf.reduce_sum(u, 0), None),
    (lambda p, q, u, iv: tf.concat([p, tf.ones([2, 3])], 0), [None, 3]),
    (lambda p, q, u, iv: tf.concat([p, p], 1), [None, 6]),
    (lambda p, q, u, iv: tf.stack([p, p], 1), [None, 2, 3]),
    (lambda p, q, u, iv: tf.reshape(p, [-1]), [None]),
    (lambda p, q, u, iv: tf.reshape(p, [3, -1]), [3, None]),
    (lambda p, q, u, iv: tf.reshape(u, [2, -1]), [2, None]),
    (lambda p, q, u, iv: tf.shape(p), [2]),
    (lambda p, q, u, iv: tf.shape(u), [None]),
    (lambda p, q, u, iv: tf.gather(p, iv), [None, 3]),
    (lambda p, q, u, iv: tf.gather(p, iv, axis=1), [None, None]),
    (lambda p, q, u, iv: tf.where(p > 0.), [None, 2]),
    (lambda p, q, u, iv: tf.transpose(p), [3, None]),
    (lambda p, q, u, iv: tf.expand_dims(p, 1), [None, 1, 3]),
    (lambda p, q, u, iv: tf.squeeze(q, [1]), [4]),
    (lambda p, q, u, iv: p[1:3], [None, 3]),
    (lambda p, q, u, iv: p[:, 1], [None]),
    (lambda p, q, u, iv: tf.range(iv[0]), [None]),
    (lambda p, q, u, iv: tf.cast(iv, tf.float32), [None]),
    (lambda p, q, u, iv: tf.reduce_sum(u), []),
    (lambda p, q, u, iv: tf.fill(tf.shape(p), 1.), [None, 3]),
    (lambda p, q, u, iv: tf.squeeze(q), None),
    (lambda p, q, u, iv: tf.constant(R10)[iv[0]:], [None]),
], ids=["mul", "add-row", "unknown-rank", "matmul", "reduce-axis1", "reduce-keepdims", "reduce-unknown-rank-axis",
        "concat0", "concat1", "stack", "reshape-flat", "reshape-3x", "reshape-unknown-rank", "shape", "shape-unknown",
        "gather", "gather-axis1", "where", "transpose", "expand_dims", "squeeze-axis", "slice-rows", "slice-column",
        "range", "cast", "reduce-all-unknown-rank", "fill-from-shape", "squeeze-maybe-1", "slice-tensor-start"])
def test_static_shapes_with_unknown_dimensions(phs, build, shape):
    assert build(**phs).shape == tf.TensorShape(shape)


def test_static_shape_of_a_slice_with_tensor_bounds_is_compatible_with_its_value(static):
    iv = tf.placeholder(tf.int32, [2])
    t = tf.constant(R10)[iv[0]:iv[1]]
    value = run(t, {iv: [2, 5]}, static=static)
    assert value.tolist() == [2, 3, 4]
    assert t.shape.is_compatible_with(value.shape)


def test_static_shape_squeeze_of_known_dims_and_feeds_agree(static):
    x = tf.placeholder(tf.float32, [None, 1, 3])
    y = tf.squeeze(x, [1])
    assert y.shape == tf.TensorShape([None, 3])
    assert run(y, {x: np.ones((2, 1, 3))}, static=static).shape == (2, 3)


# --- build-time errors ------------------------------------------------------------------------------
@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.ones([2, 3]) + tf.ones([4]), ValueError, "Dimensions must be equal, but are 3 and 4"),
    (lambda: tf.matmul(tf.ones([2, 3]), tf.ones([2, 3])), ValueError, "Dimensions must be equal, but are 3 and 2"),
    (lambda: tf.matmul(tf.ones([3]), tf.ones([3, 3])), ValueError, "Shape must be rank 2 but is rank 1"),
    (lambda: tf.reshape(tf.constant([1, 2, 3]), [2, 2]), ValueError,
     "Cannot reshape a tensor with 3 elements to shape"),
    (lambda: tf.add_n([tf.ones([2]), tf.constant([1, 2])]), TypeError, None),
    (lambda: tf.concat([tf.constant([1]), tf.constant([1.])], 0), TypeError, None),
    (lambda: tf.stack([tf.constant(1), tf.constant(1.)]), TypeError, None),
    (lambda: tf.where(tf.constant([True]), tf.constant([1]), tf.constant([1.])), TypeError,
     "Input 'e' of '(Select|SelectV2)' Op has type float32 that does not match type int32 of argument 't'"),
    (lambda: tf.pow(tf.constant(2.), tf.constant(2)), TypeError,
     "Input 'y' of 'Pow' Op has type int32 that does not match type float32 of argument 'x'."),
    (lambda: tf.logical_and(tf.ones([2]), tf.ones([2])), TypeError,
     "Input 'x' of 'LogicalAnd' Op has type float32 that does not match expected type of bool."),
    (lambda: tf.squeeze(tf.ones([2, 3]), [0]), ValueError, "Can not squeeze dim\\[0\\]"),
    (lambda: tf.reshape(tf.placeholder(tf.float32, [None, 2]), [3]), ValueError,
     "Dimension size must be evenly divisible by 2 but is 3"),
    (lambda: tf.nn.softmax(tf.constant([1, 2])), TypeError, "DataType int32 not in list of allowed values"),
    (lambda: tf.reduce_mean(tf.constant([True])), TypeError, "DataType bool not in list of allowed values"),
], ids=["broadcast", "matmul-inner", "matmul-rank", "reshape-size", "add_n-dtypes", "concat-dtypes", "stack-dtypes",
        "where-dtypes", "pow-dtypes", "logical-on-float", "squeeze-non-1", "reshape-partial", "softmax-int",
        "mean-bool"])
def test_build_time_errors(build, error, match):
    with pytest.raises(error, match=match):
        build()


# cfnb's dtypes in TensorFlow's type lists; add, subtract, multiply, negate and square also take complex.
NUMBER_TYPES = ("float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64"
                "(, complex64, complex128)?")


@pytest.mark.parametrize("build,param", [
    (lambda t, f: t + f, "x"), (lambda t, f: t - f, "x"), (lambda t, f: t * f, "x"), (lambda t, f: t // t, "x"),
    (lambda t, f: t % t, "x"), (lambda t, f: t ** t, "x"), (lambda t, f: -t, "x"), (lambda t, f: abs(t), "x"),
    (lambda t, f: tf.square(t), "x"), (lambda t, f: tf.maximum(t, f), "x"), (lambda t, f: tf.minimum(t, f), "x"),
    (lambda t, f: t < f, "x"), (lambda t, f: t >= f, "x"), (lambda t, f: tf.nn.relu(t), "x"),
    (lambda t, f: tf.sign(t), "x"), (lambda t, f: tf.matmul([[True]], [[True]]), "a"),
], ids=["add", "sub", "mul", "floordiv", "mod", "pow", "neg", "abs", "square", "maximum", "minimum", "less",
        "greater_equal", "relu", "sign", "matmul"])
def test_arithmetic_and_ordering_refuse_bool_as_tensorflow_does(build, param):
    # TensorFlow: "Value passed to parameter 'x' has DataType bool not in list of allowed values: ..."
    with pytest.raises(TypeError, match=f"parameter '{param}' has DataType bool not in list of allowed values: "
                                        f"{NUMBER_TYPES}$"):
        build(tf.constant(True), tf.constant(False))


def test_bools_still_compare_select_and_cast():
    t, f = tf.constant(True), tf.constant(False)
    values = run([tf.equal(t, f), tf.not_equal(t, f), tf.where(t, f, t), tf.cast(t, tf.float32)])
    assert values == [False, True, False, 1.0]


def test_bool_true_division_is_refused_like_tensorflows_truediv():
    with pytest.raises(TypeError, match=r"Invalid dtype tf.bool in __truediv__. Expected one of \{tf.float16, "):
        tf.constant(True) / tf.constant(True)


def test_gather_indices_must_be_integers():
    with pytest.raises(TypeError, match="parameter 'indices' has DataType float32 not in list of allowed values: "
                                        "int32, int64"):
        tf.gather(tf.constant([1.0, 2.0]), tf.constant([0.0]))
    # the refused op had opened its name scope, as in TensorFlow: the next gather is GatherV2_1
    assert tf.gather(tf.constant([1.0, 2.0]), [1]).op.inputs[1].name == "GatherV2_1/indices:0"


def test_strings_concatenate_through_the_add_op():
    s = tf.constant("ab") + tf.constant("cd")
    assert (s.op.type, s.op.name) == ("Add", "add")  # TensorFlow's _add_dispatch: AddV2 has no string kernel
    assert run(s) in ("abcd", b"abcd")


# --- run-time errors -------------------------------------------------------------------------------
def test_gather_out_of_range_is_an_invalid_argument(static):
    with pytest.raises(errors.InvalidArgumentError, match=r"indices.* = 5 is not in \[0, 2\)"):
        run(tf.gather(tf.constant([1, 2]), 5), static=static)


def test_assert(static):
    x = tf.placeholder(tf.float32, [])
    check = tf.Assert(x > 0., [x])
    with tf.control_dependencies([check]):
        y = tf.identity(x)
    assert isinstance(check, tf.Operation)
    assert run(y, {x: 2.}, static=static) == 2.
    with pytest.raises(errors.InvalidArgumentError, match="assertion failed"):
        run(y, {x: -1.}, static=static)
    with pytest.raises(errors.InvalidArgumentError, match=r"assertion failed: \[-3"):
        run(check, {x: -3.}, static=static)


# --- where TensorFlow's graph differs ---------------------------------------------------------------
def test_where_with_three_arguments_is_select():
    t = tf.where(tf.constant(B1), tf.constant(F), tf.constant(-F))
    assert (t.op.name, t.op.type) == ("Select", "Select")


def test_floordiv_function_name():
    assert tf.floordiv(tf.constant(7), 2).op.name == "floordiv"


def test_reduce_over_an_empty_axis_list_is_identity():
    t = tf.reduce_sum(tf.constant(F), axis=[])
    assert t.shape == tf.TensorShape([2, 3])
    np.testing.assert_array_equal(run(t), F)


def test_logical_xor_inner_op_names():
    tf.logical_xor(tf.constant(B1), tf.constant(B2))
    assert [op.name for op in tf.get_default_graph().get_operations()][2:] == [
        "LogicalOr", "LogicalAnd", "LogicalNot", "LogicalXor"]
