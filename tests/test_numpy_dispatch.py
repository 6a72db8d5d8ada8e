"""numpy on tensors: ufuncs and functions through numpy's protocols, ndarray's methods, refusals."""
import numpy as np
import pytest
from running import run

import cfnb as tf
from cfnb.ops.numpy_dispatch import getitem

RNG = np.random.default_rng(7)
A = RNG.normal(size=(3, 4))
V = RNG.normal(size=4)
M = RNG.normal(size=(4, 4))
I = np.arange(12).reshape(3, 4)  # noqa: E741
UnsupportedNumpyError = tf.errors.UnsupportedNumpyError


@pytest.fixture(autouse=True)
def numpy_graph():
    g = tf.get_default_graph()
    g.dtype_rules = "numpy"
    yield g


# Each case: a function applied to numpy arrays (eagerly) and to the same arrays as tensors (a graph).
CASES = {
    "tanh": lambda a, v, m, i: np.tanh(a),
    "exp_log_sqrt": lambda a, v, m, i: np.log(np.exp(a)) + np.sqrt(np.abs(a)),
    "sin_cos": lambda a, v, m, i: np.sin(v) * np.cos(v),
    "max_min": lambda a, v, m, i: np.maximum(a, 0.1) - np.minimum(a, v),
    "ufunc_arith": lambda a, v, m, i: np.add(a, 1) * np.subtract(v, 2) / np.multiply(v, 3) + np.divide(a, 4),
    "power_neg_square": lambda a, v, m, i: np.power(np.abs(a), 2.5) + np.negative(v) + np.square(a),
    "floor_mod": lambda a, v, m, i: (a // 0.3, a % 0.3, i // 5, i % 5, -i // 5),
    "compare": lambda a, v, m, i: (np.greater(a, 0), a <= v, np.equal(i, 4), np.not_equal(i % 2, 0), np.less(v, 0)),
    "sum": lambda a, v, m, i: (np.sum(a), np.sum(a, axis=0), np.sum(a, axis=1, keepdims=True), np.sum(i)),
    "mean_max_min_prod": lambda a, v, m, i: (np.mean(a, axis=1), np.max(a), np.min(a, axis=0), np.prod(v),
                                             np.mean(i), np.amax(i, axis=1)),
    "argmax_argmin": lambda a, v, m, i: (np.argmax(a), np.argmax(a, axis=1), np.argmin(v)),
    "dot_matmul": lambda a, v, m, i: (np.dot(a, v), np.matmul(m, m), a @ v, v @ v, v @ m, m @ v, np.dot(v, 2.0)),
    "where_clip": lambda a, v, m, i: (np.where(a > 0, a, 0.0), np.clip(a, -0.5, 0.5), np.where(i > 5, i, -1)),
    "concat_stack": lambda a, v, m, i: (np.concatenate([a, i], axis=0), np.stack([v, v * 2]), np.concatenate([v, v]),
                                        np.vstack([v, m]), np.hstack([v, v]), np.hstack([a, i])),
    "likes": lambda a, v, m, i: (np.zeros_like(a), np.ones_like(i), np.full_like(v, 7.0)),
    "norm": lambda a, v, m, i: (np.linalg.norm(v), np.linalg.norm(a, axis=1), np.linalg.norm(i[0]),
                                np.linalg.norm(v, 1), np.linalg.norm(v, np.inf)),
    "shape_fns": lambda a, v, m, i: (np.reshape(a, (4, 3)), np.transpose(a), np.squeeze(a.reshape(1, 12)),
                                     np.expand_dims(v, 0), np.ravel(a)),
    "methods": lambda a, v, m, i: (a.reshape(2, 6), a.reshape((6, -1)), a.T, a.sum(), a.sum(axis=0), a.mean(1),
                                   a.max(axis=1, keepdims=True), a.min(), i.astype(float), a.astype(np.int64),
                                   a.flatten(), a.transpose(), v.dot(v), a.argmax(axis=0), i.prod()),
    "round": lambda a, v, m, i: (np.round(a * 2.5), np.round(a, 2), np.around(v * 10, -1), np.round(i, -1),
                                 np.round(np.array([0.5, 1.5, 2.5, -0.5, -2.5]) + a[0, :1] * 0)),
    "all_any": lambda a, v, m, i: (np.all(a > -5), np.any(a > 1, axis=0), (i > 3).all()),
}


def _graph_args():
    return [tf.constant(x) for x in (A, V, M, I)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_dtypes_match_numpy(name):
    expected = CASES[name](A, V, M, I)
    built = CASES[name](*_graph_args())
    expected = expected if isinstance(expected, tuple) else (expected,)
    built = built if isinstance(built, tuple) else (built,)
    values = run(list(built))
    for t, v, e in zip(built, values, expected):
        assert isinstance(t, tf.Tensor)
        assert t.dtype.as_numpy_dtype == np.asarray(e).dtype, (name, t)
        assert tuple(t.shape.as_list()) == np.shape(e), (name, t)
        assert np.asarray(v).dtype == np.asarray(e).dtype and np.shape(v) == np.shape(e)
        np.testing.assert_allclose(v, e, rtol=1e-12)


@pytest.mark.parametrize("name", ["max_min", "dot_matmul", "concat_stack", "norm", "ufunc_arith", "compare"])
def test_ndarray_on_the_left_of_a_tensor(name):
    """Only one argument a tensor, the others notebook ndarrays: numpy's protocols still build ops."""
    expected = CASES[name](A, V, M, I)
    built = CASES[name](A, tf.constant(V), M, I)
    expected = expected if isinstance(expected, tuple) else (expected,)
    built = built if isinstance(built, tuple) else (built,)
    pairs = [(t, e) for t, e in zip(built, expected) if isinstance(t, tf.Tensor)]
    assert pairs
    for (_, e), v in zip(pairs, run([t for t, _ in pairs])):
        np.testing.assert_allclose(v, e, rtol=1e-12)
        assert np.asarray(v).dtype == np.asarray(e).dtype


def test_len_ndim_size_shape():
    a = tf.constant(A)
    assert (len(a), a.ndim, a.size, np.shape(a), np.ndim(a), np.size(a)) == (3, 2, 12, (3, 4), 2, 12)
    p = tf.placeholder(tf.float64, [None, 4])
    with pytest.raises(TypeError, match="first dimension is not known"):
        len(p)
    assert run(p.size, {p: A}) == 12
    with pytest.raises(TypeError, match="unsized"):
        len(tf.constant(1.0))


def test_tensorflow_rules_keep_tensorflows_len_and_matmul():
    g = tf.Graph()
    with g.as_default():
        v = tf.constant([1.0, 2.0])
        with pytest.raises(TypeError, match="len is not well defined"):
            len(v)
        with pytest.raises(ValueError, match="rank 2"):
            v @ v
        assert np.tanh(v).dtype == tf.float32  # numpy's functions, TensorFlow's dtypes
        assert run(np.sum(v)) == 3.0


def test_refusals_name_the_function_and_the_alternative():
    v = tf.constant(V)
    cases = [(lambda: np.ceil(v), "numpy.ceil", "-np.floor(-x)"),
             (lambda: np.linalg.inv(tf.constant(M)), "numpy.linalg.inv", "before or after the loop"),
             (lambda: np.cumsum(v), "numpy.cumsum", "running total"),
             (lambda: np.arctan2(v, v), "numpy.arctan2", "np.sum"),
             (lambda: np.add.accumulate(v), "numpy.add.accumulate", "np.sum"),
             (lambda: np.sum(v, out=np.zeros(())), "numpy.sum", "assign the result"),
             (lambda: v.item(), "Tensor.item", "graph runs"),
             (lambda: float(v[0]), "float", "np.sqrt(t) rather than math.sqrt(t)"),
             (lambda: np.asarray(v), "numpy.asarray", "run it in a Session"),
             (lambda: A[tf.constant(1)], "numpy.asarray", "getitem(X, t)"),
             (lambda: np.linalg.norm(tf.constant(A), 2), "numpy.linalg.norm", "ord=None"),
             (lambda: np.where(v > 0), "numpy.where", "numpy.where(c, x, y)"),
             (lambda: np.array([v[0], v[1]]), "numpy.asarray", "np.stack([t, u])"),
             (lambda: round(v[0]), "round", "np.round(t) rather than round(t)"),
             (lambda: [1, 2][tf.constant(1)], "index", "getitem(X, t)"),
             (lambda: V[tf.constant(1):], "index", "getitem(X, t)"),
             (lambda: range(tf.constant(3)), "index", "while loop"),
             (lambda: v.__setitem__(0, 1.0), "Tensor.__setitem__", "np.where(np.arange(n) == i, value, x)")]
    for fn, name, advice in cases:
        with pytest.raises(UnsupportedNumpyError) as info:
            fn()
        assert isinstance(info.value, TypeError)
        assert info.value.function == name
        assert name in str(info.value) or name in ("numpy.asarray", "Tensor.__setitem__", "index")
        assert advice in str(info.value), str(info.value)
        assert "site-packages/numpy" not in str(info.traceback[-1].path)  # raised before numpy runs


def test_getitem_indexes_notebook_arrays_with_tensors():
    t = tf.constant(2)
    cases = [(A, t), (A, (t, 1)), (A, (slice(None), t)), (V, slice(t, None)), ([10, 20, 30], t),
             (A, tf.constant(np.array([2, 0])))]
    built = [getitem(x, k) for x, k in cases]
    expected = [A[2], A[2, 1], A[:, 2], V[2:], 30, A[[2, 0]]]
    for b, v, e in zip(built, run(built), expected):
        np.testing.assert_array_equal(v, e)
        assert b.dtype.as_numpy_dtype == np.asarray(e).dtype
    assert getitem(A, 1) is not None and np.array_equal(getitem(A, 1), A[1])  # plain numpy without tensors
    for bad in (tf.constant(1.0), tf.constant(True)):  # numpy refuses a float index; so does TensorFlow
        with pytest.raises(TypeError, match="valid indices"):
            getitem(A, bad)
        with pytest.raises(TypeError, match="valid indices"):
            getitem(V, slice(bad, None))


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
@pytest.mark.parametrize("static", [True, False], ids=["static", "executor"])
def test_rnn_step_in_a_loop_indexes_by_the_counter(v2, static):
    """The student's RNN: h = np.tanh(W @ h + X[t].reshape(2, 1)), t the loop counter."""
    if v2:
        tf.enable_control_flow_v2()
    W = np.array([[0.5, -0.3], [0.2, 0.8]])
    X = RNG.normal(size=(5, 2))
    h0 = np.zeros((2, 1))

    def body(t, h):
        return t + 1, np.tanh(W @ h + getitem(X, t).reshape(2, 1))

    _, h = tf.while_loop(lambda t, h: t < len(X), body, [0, h0])
    expected = h0
    for t in range(len(X)):
        expected = np.tanh(W @ expected + X[t].reshape(2, 1))
    assert h.dtype == tf.float64
    np.testing.assert_array_equal(run(h, static=static), expected)


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_power_iteration(v2):
    if v2:
        tf.enable_control_flow_v2()
    S = M @ M.T
    b0 = np.ones(4)

    def body(k, b):
        b = S @ b
        return k + 1, b / np.linalg.norm(b)

    _, b = tf.while_loop(lambda k, b: k < 50, body, [0, b0])
    expected = b0
    for _ in range(50):
        expected = S @ expected
        expected = expected / np.linalg.norm(expected)
    np.testing.assert_allclose(run(b), expected, rtol=1e-12)


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_gradients_of_numpy_functions_match_finite_differences(v2):
    if v2:
        tf.enable_control_flow_v2()
    x = tf.placeholder(tf.float64, [4])

    def f(x, xp):
        h = xp.tanh(A @ x)
        y = xp.sum(h ** 2) + xp.linalg.norm(x) + xp.mean(xp.exp(x)) + xp.max(xp.maximum(x, 0.2))
        return y + xp.dot(x, x) * 0.5 + (x.reshape(2, 2).T @ x[:2]).sum() + xp.where(x > 0, x, 0.0).sum()

    def body(i, acc):
        return i + 1, acc + f(x, np) * i

    _, y = tf.while_loop(lambda i, acc: i < 3, body, [0, 0.0])
    (dx,) = tf.gradients(y, [x])
    v = V.copy()

    def total(z):
        return sum(f(z, np) * i for i in range(3))

    numeric = np.array([(total(v + e) - total(v - e)) / 2e-6 for e in np.eye(4) * 1e-6])
    np.testing.assert_allclose(run(dx, {x: v}), numeric, rtol=1e-6, atol=1e-8)
    assert run(y, {x: v}) == pytest.approx(total(v), rel=1e-12)


GRADIENT_CASES = {
    "unary": lambda x, y: np.sum(np.sin(x) * np.cos(y) + np.exp(x) + np.log(np.abs(y)) + np.sqrt(np.abs(x))
                                 + np.square(y) + np.abs(x) + np.negative(y) + np.tanh(x * y)),
    "binary": lambda x, y: np.sum(x / y + x ** 3 + np.abs(y) ** 1.5 + np.maximum(x, y) - np.minimum(x, 2 * y)),
    "reductions": lambda x, y: np.prod(x) + np.min(y) + np.max(x * y) + np.mean(x, axis=0).sum()
                               + np.sum(y, axis=1, keepdims=True).sum(),
    "products": lambda x, y: np.sum(x @ y.T) + np.dot(x[0], y[1]) + (x.T @ y).sum() + np.linalg.norm(x),
    "shapes": lambda x, y: np.sum(np.concatenate([x, y]) ** 2) + np.stack([x, y])[1, 0, 1]
                           + np.transpose(x).reshape(-1)[3] * y.ravel()[2] + np.clip(x, -0.5, 0.5).sum(),
    "where": lambda x, y: np.sum(np.where(x > y, x * y, x - y)),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_float64_gradients_of_numpy_expressions(name):
    fn = GRADIENT_CASES[name]
    xv, yv = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3)) + 2.0
    x, y = tf.placeholder(tf.float64, [2, 3]), tf.placeholder(tf.float64, [2, 3])
    out = fn(x, y)
    assert out.dtype == tf.float64
    dx, dy = tf.gradients(out, [x, y])
    got_x, got_y, value = run([dx, dy, out], {x: xv, y: yv})
    assert value == pytest.approx(fn(xv, yv), rel=1e-12)
    for got, which in ((got_x, 0), (got_y, 1)):
        numeric = np.zeros((2, 3))
        for k in np.ndindex(2, 3):
            e = np.zeros((2, 3))
            e[k] = 1e-6
            args_plus = (xv + e, yv) if which == 0 else (xv, yv + e)
            args_minus = (xv - e, yv) if which == 0 else (xv, yv - e)
            numeric[k] = (fn(*args_plus) - fn(*args_minus)) / 2e-6
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)
