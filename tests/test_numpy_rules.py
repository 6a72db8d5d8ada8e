"""Graph.dtype_rules = "numpy": Python's and numpy's numbers, promotion through visible Casts."""
import itertools
import re

import numpy as np
import pytest
from running import run

import cfnb as tf


@pytest.fixture
def g():
    graph = tf.Graph()
    graph.dtype_rules = "numpy"
    with graph.as_default():
        yield graph


def test_default_is_tensorflow_and_bad_value_refused():
    assert tf.Graph().dtype_rules == "tensorflow"
    with pytest.raises(ValueError, match="dtype_rules"):
        tf.Graph().dtype_rules = "python"


def test_python_values_take_numpys_dtypes(g):
    cases = [3, 2.5, True, [1, 2], [1.0, 2], np.float32(1.5), np.arange(3, dtype=np.int32), 2 ** 40]
    for v in cases:
        assert tf.constant(v).dtype.as_numpy_dtype == np.asarray(v).dtype, v
        assert tf.convert_to_tensor(v).dtype.as_numpy_dtype == np.asarray(v).dtype, v
    with pytest.raises(OverflowError, match="int64"):
        tf.constant(2 ** 70)


def test_tensorflow_rules_unchanged():
    assert tf.constant(3).dtype == tf.int32 and tf.constant(2.5).dtype == tf.float32
    with pytest.raises(TypeError):
        tf.constant(1) + tf.constant(1.5)


STRONG = {"f32": np.float32(1.5), "f64": np.float64(2.5), "i32": np.int32(3), "i64": np.int64(7)}
WEAK = {"int": 3, "float": 0.1}
OPERATORS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
             "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
             "**": lambda a, b: a ** b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b}


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_binary_operators_promote_as_numpy(g, op):
    """Every pair of a tensor and a tensor, Python scalar or numpy array: numpy's value and dtype."""
    fn = OPERATORS[op]
    pairs = list(itertools.product(STRONG.items(), list(STRONG.items()) + list(WEAK.items())))
    built, expected = [], []
    for (_, a), (nb, b) in pairs:
        ta = tf.constant(a)
        tb = tf.constant(b) if nb in STRONG else b
        built.append(fn(ta, tb))
        expected.append(fn(np.asarray(a), np.asarray(b) if nb in STRONG else b))
        if nb in STRONG:  # the reflected form: a numpy value on the left
            built.append(fn(np.asarray(b), ta))
            expected.append(fn(np.asarray(b), np.asarray(a)))
    values = run(built)
    for t, v, e in zip(built, values, expected):
        assert t.dtype.as_numpy_dtype == np.result_type(e), (op, t)
        assert np.asarray(v).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(v, e, rtol=1e-6)


def test_cast_is_visible_in_graph(g):
    n = tf.constant(10)
    x = 0.1 * n
    assert x.dtype == tf.float64
    assert x.op.type == "Mul"
    kinds = sorted(i.op.type for i in x.op.inputs)
    assert kinds == ["Cast", "Const"]
    assert run(x) == 0.1 * 10


def test_weak_scalars_keep_float32_and_int32(g):
    f = tf.constant(np.float32(1.0))
    i = tf.constant(np.int32(5))
    assert (f * 0.1).dtype == tf.float32
    assert (i + 1).dtype == tf.int32
    assert (i * 0.5).dtype == tf.float64
    assert (i + np.int64(1)).dtype == tf.int64
    with pytest.raises(OverflowError, match="int32"):
        i + 2 ** 40


def test_functions_and_unary_ops(g):
    n = tf.constant(9)
    for fn, np_fn in [(tf.sqrt, np.sqrt), (tf.exp, np.exp), (tf.tanh, np.tanh), (tf.square, np.square),
                      (tf.abs, np.abs), (tf.negative, np.negative)]:
        t = fn(n)
        assert t.dtype.as_numpy_dtype == np_fn(np.int64(9)).dtype
        assert run(t) == pytest.approx(np_fn(np.int64(9)))
    assert tf.maximum(n, 2.5).dtype == tf.float64
    assert tf.where(tf.constant(True), n, 0.5).dtype == tf.float64


def test_reductions_follow_numpy(g):
    x = tf.constant(np.array([2 ** 30, 2 ** 30, 2 ** 30], dtype=np.int32))
    s = tf.reduce_sum(x)
    assert s.dtype == tf.int64
    assert run(s) == 3 * 2 ** 30
    m = tf.reduce_mean(tf.constant([1, 2]))
    assert m.dtype == tf.float64 and run(m) == 1.5


def test_functions_inherit_rules_and_gradient_rules_do_not_leak(g):
    seen = []

    def branch():
        seen.append(tf.get_default_graph().dtype_rules)
        return tf.constant(1) * 0.5

    tf.enable_control_flow_v2()
    out = tf.cond(tf.constant(True), branch, branch)
    assert seen == ["numpy", "numpy"] and out.dtype == tf.float64
    assert run(out) == 0.5
    assert g.dtype_rules == "numpy"


@pytest.mark.parametrize("v2", [False, True])
@pytest.mark.parametrize("static", [True, False])
def test_int64_sum_past_2_31_in_a_loop(g, v2, static):
    """Python's 0 is numpy's int64, so a running sum crosses 2**31 (at the 208th of 1,000 steps of 100,003 * i)
    without wrapping, as it does in plain Python."""
    if v2:
        tf.enable_control_flow_v2()
    i, total = tf.while_loop(lambda i, s: i < 1000, lambda i, s: (i + 1, s + i * 100003), [0, 0])
    assert total.dtype == tf.int64
    assert run(total, static=static) == sum(i * 100003 for i in range(1000)) == 49951498500


@pytest.mark.parametrize("v2", [False, True])
def test_float64_tolerance_loop(g, v2):
    """Newton's square root of 2 to 1e-12: float64 all the way (float32 would never get there)."""
    if v2:
        tf.enable_control_flow_v2()
    x = tf.while_loop(lambda x: tf.abs(x * x - 2) > 1e-12, lambda x: x - (x * x - 2) / (2 * x), [1.0])
    assert x.dtype == tf.float64
    x_py = 1.0
    while abs(x_py * x_py - 2) > 1e-12:
        x_py = x_py - (x_py * x_py - 2) / (2 * x_py)
    assert run(x) == x_py


@pytest.mark.parametrize("v2", [False, True])
def test_gradient_through_inserted_casts(g, v2):
    """y = sum over a loop of float32(x) * 0.5 + x (float64): the gradient flows through the Casts."""
    if v2:
        tf.enable_control_flow_v2()
    x = tf.placeholder(tf.float64, [])
    x32 = tf.cast(x, tf.float32)

    def body(i, acc):
        return i + 1, acc + x32 * np.float32(0.5) * x + tf.sin(x)

    _, y = tf.while_loop(lambda i, acc: i < 3, body, [0, np.float64(0.0)])
    assert y.dtype == tf.float64
    (dx,) = tf.gradients(y, [x])
    assert dx.dtype == tf.float64

    def f(v):
        return run(y, {x: v})

    v, h = 0.7, 1e-3  # the float32 path rounds at 1e-7: a wider step, a looser tolerance
    numeric = (f(v + h) - f(v - h)) / (2 * h)
    assert run(dx, {x: v}) == pytest.approx(numeric, rel=1e-4)
    assert run(dx, {x: v}) == pytest.approx(3 * (0.5 * np.float32(v) + 0.5 * v + np.cos(v)), rel=1e-7)


UNARY = ["negative", "abs", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "sin", "cos", "tanh", "sigmoid",
         "sign", "floor", "reciprocal", "relu"]
NUMPY_UNARY = {"negative": np.negative, "abs": np.abs, "square": np.square, "sqrt": np.sqrt,
               "rsqrt": lambda x: 1 / np.sqrt(x), "exp": np.exp, "log": np.log, "log1p": np.log1p, "sin": np.sin,
               "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "sign": np.sign,
               "floor": np.floor, "reciprocal": np.reciprocal, "relu": lambda x: np.maximum(x, 0)}


@pytest.mark.parametrize("static", [True, False], ids=["static", "executor"])
@pytest.mark.parametrize("np_dtype", [np.float64, np.int64, np.float32, np.int32])
def test_kernels_give_the_inferred_dtype(g, np_dtype, static):
    """Every unary op and reduction on each dtype: the value the kernel makes has the dtype the graph
    says, and numpy's value (a float-only op on integers computes in float64, as numpy's ufunc)."""
    x = np.array([[1, 2, 3], [4, 5, 7]], dtype=np_dtype)
    built, expected = [], []
    for name in UNARY:
        if name in ("reciprocal",) and np.dtype(np_dtype).kind == "i":
            continue  # numpy's integer reciprocal truncates; TensorFlow's too, but neither is numpy's float
        built.append(getattr(tf.nn if name == "relu" else tf, name)(tf.constant(x)))
        expected.append(NUMPY_UNARY[name](x))
    for name, np_fn in [("reduce_sum", np.sum), ("reduce_mean", np.mean), ("reduce_max", np.max),
                        ("reduce_min", np.min), ("reduce_prod", np.prod)]:
        for axis in (None, 0, 1):
            built.append(getattr(tf, name)(tf.constant(x), axis=axis))
            expected.append(np_fn(x, axis=axis))
    for t, v, e in zip(built, run(built, static=static), expected):
        assert np.asarray(v).dtype == t.dtype.as_numpy_dtype == np.asarray(e).dtype, t
        np.testing.assert_allclose(v, e, rtol=1e-6 if np_dtype == np.float32 else 1e-15)


@pytest.mark.parametrize("static", [True, False], ids=["static", "executor"])
@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_bisection_to_1e_9_with_a_cond_in_the_loop(g, v2, static):
    """The issue's hang: in float32 `hi - lo` never gets below 1e-9; in float64 it does, in the same
    number of steps as Python's, to the same bits."""
    if v2:
        tf.enable_control_flow_v2()

    def body(lo, hi):
        mid = (lo + hi) / 2
        return tf.cond(mid * mid > 2, lambda: (lo, mid), lambda: (mid, hi))

    lo, hi = tf.while_loop(lambda lo, hi: hi - lo > 1e-9, body, [0.0, 2.0])
    py_lo, py_hi = 0.0, 2.0
    while py_hi - py_lo > 1e-9:
        mid = (py_lo + py_hi) / 2
        if mid * mid > 2:
            py_hi = mid
        else:
            py_lo = mid
    assert run([lo, hi], static=static) == [py_lo, py_hi]


def test_division_follows_the_rules_of_its_inputs_graph():
    """`tf.divide(t, 2)` for a tensor of a numpy-rules graph that is not the default one."""
    g = tf.Graph()
    g.dtype_rules = "numpy"
    with g.as_default():
        n = tf.constant(7)
    q = tf.divide(n, 2)
    assert q.graph is g and q.dtype == tf.float64
    assert tf.Session(graph=g).run(q) == 3.5


def test_weak_tensors_promote_as_python_numbers_and_propagate(g):
    """A tensor marked as a Python number (the magic's range counters) is a weak scalar (NEP 50)."""
    from cfnb.framework.dtype_rules import is_weak, mark_weak
    i = mark_weak(tf.constant(2, dtype=tf.int64))
    v = tf.constant(np.ones(3, np.float32))
    assert (v * 0.5 + i).dtype == tf.float32 and (tf.constant(np.ones(2, np.int32)) + i).dtype == tf.int32
    j = i * 3 + 1
    assert is_weak(j) and j.dtype == tf.int64 and (v * j).dtype == tf.float32
    assert not is_weak(tf.cast(i, tf.float64)) and is_weak(i * 0.5) and (i * 0.5).dtype == tf.float64
    assert not is_weak(i < 3)


@pytest.mark.parametrize("static", [True, False])
def test_python_int_arithmetic_raises_overflow_on_both_executors(g, static):
    """Python ints do not wrap: ops of weak int64 tensors get `_python_int` and raise OverflowError; the
    same ops of numpy int64 values wrap as numpy's do."""
    from cfnb.framework.dtype_rules import mark_weak
    big = mark_weak(tf.constant(2 ** 62, dtype=tf.int64))
    for wrapped, expression in [(big * 2, "4611686018427387904 * 2"), (big + big, "+ 4611686018427387904"),
                                (-big - big - big, "- 4611686018427387904"), (big ** 2, "** 2")]:
        assert wrapped.op.get_attr("_python_int") is True
        with pytest.raises(tf.errors.OpError, match=r"OverflowError: .*" + re.escape(expression)):
            run(wrapped, static=static)
    assert run(big * 1, static=static) == 2 ** 62
    numpy_big = tf.constant(np.int64(2 ** 62))
    assert run(numpy_big * 2, static=static) == -(2 ** 63)  # numpy's int64 wraps
