"""Issue 18, part 1: every program of grad2_programs.py (and grad2_programs_arrays.py), run on cfnb in control flow v1
and v2 on every execution path, gives what TensorFlow 2.21 gave (grad2_tf.json, written by record_grad2.py): the same
fetches that are None, static shapes, values, dtypes and run-time shapes, or the same error (type, build or run
time, and the message part the program names). Then what TensorFlow cannot be asked: that a failed gradients() call
leaves the graph as it was, on every path, for v1 and v2. TensorFlow is never imported here."""
import json
import pathlib

import numpy as np
import pytest

import cfnb
from cfnb.framework.registry import register_op
from cfnb.testing import check_gradients

from . import grad2_programs  # noqa: F401 - registers the programs
from .grad2_registry import CPUS, MODES, PROGRAMS, match_for, run_program_on_paths

EXPECTED = json.loads((pathlib.Path(__file__).parent / "grad2_tf.json").read_text())
# v1: the static schedule and the tagged-token executor; v2 adds strict calls of the functional ops
PATHS = {"static": {}, "executor": {"static_schedule": False}, "strict": {"lower_functional_ops": False}}
CASES = [(mode, name) for name in PROGRAMS for mode in MODES[name]]


def _set_mode(mode):
    (cfnb.enable_control_flow_v2 if mode == "v2" else cfnb.disable_control_flow_v2)()


def test_every_program_is_recorded():
    for mode in ("v1", "v2"):
        missing = sorted(name for name in PROGRAMS if mode in MODES[name] and name not in EXPECTED[mode])
        assert not missing, f"run tests/regressions/record_grad2.py again; missing in {mode}: {missing}"


@pytest.mark.parametrize("mode,name", CASES)
def test_program_matches_tensorflow(mode, name):
    """Built once, run on every path (a v1 graph has no functional ops: strict calls are the static schedule, so v1
    runs two); a failure names the path."""
    want = EXPECTED[mode][name]
    _set_mode(mode)
    configs = {path: cfnb.ConfigProto(device_count={"CPU": CPUS[name]}, **kw) for path, kw in PATHS.items()
               if not (mode == "v1" and path == "strict")}
    for path, got in run_program_on_paths(cfnb, PROGRAMS[name], configs).items():
        try:
            _check(want, got, match_for(name, mode))
        except AssertionError as e:
            raise AssertionError(f"on the {path} path: {e}") from None


def _check(want, got, match):
    if "error" in want:
        expected, error = want["error"], got.get("error")
        assert error is not None, f"cfnb answered {got.get('values')}; TensorFlow raised {expected}"
        assert (error["phase"], error["type"]) == (expected["phase"], expected["type"]), error
        assert match in error["message"], f"cfnb's message {error['message']!r}"
    else:
        assert "error" not in got, f"cfnb raised {got['error']}"
    for key in ("none", "static"):
        if key in want:
            assert got[key] == want[key], f"{key}: cfnb {got[key]} != TensorFlow's {want[key]}"
    for key, value in want.get("values", {}).items():
        expected = np.asarray(value, dtype=want["dtypes"][key]).reshape(want["shapes"][key])
        actual = np.asarray(got["values"][key], dtype=got["dtypes"][key]).reshape(got["shapes"][key])
        assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape), key
        rtol, atol = (1e-9, 1e-12) if expected.dtype == np.float64 else (2e-5, 2e-6)
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=key)


def test_second_derivative_tensorflow_fails_to_run_matches_finite_differences():
    """TensorFlow 2.21's second derivative of this loop stops while running ("Incompatible shapes: [3] vs. [12]",
    in the gradient of a Mul of the rewritten body); cfnb's is checked against finite differences instead."""
    cfnb.enable_control_flow_v2()

    def first_derivative(x):
        _, g = cfnb.while_loop(lambda i, g: i < 3, lambda i, g: (i + 1, cfnb.concat([g, cfnb.tanh(x * g[-3:])], 0)),
                               [0, x], shape_invariants=[cfnb.TensorShape([]), cfnb.TensorShape([None])])
        (d,) = cfnb.gradients(cfnb.reduce_sum(g * g), x)
        return d * np.array([1.0, 2.0, -1.0])

    for static in (True, False):
        check_gradients(first_derivative, np.array([0.3, -0.7, 1.1]), static_schedule=static)


# --- a failed gradients() call leaves the graph as it was ------------------------------------------------------
register_op("NoGradientForTest", lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], lambda op: lambda x: x * 2)


def _no_gradient(x):
    """x * 2 by an op with no gradient registered: a gradient through it is a LookupError."""
    return cfnb.get_default_graph().create_op("NoGradientForTest", [x], name="NoGradientForTest").outputs[0]


@pytest.mark.parametrize("mode", ["v1", "v2"])
def test_failed_gradient_leaves_the_graph_as_it_was(mode):
    """The gradient fails after it has accumulated forward values (v2: pushed them in the forward body and given the
    While more outputs; v1: built stacks, counters and a gradient loop): the graph's text is what it was, and the
    loops, an earlier gradient and a later one run on every path. Before, the strict path died with IndexError."""
    _set_mode(mode)
    x = cfnb.placeholder(cfnb.float32, [2], name="x")
    _, v = cfnb.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, cfnb.tanh(_no_gradient(v) * x) * cfnb.sin(v)),
                           [0, x])
    _, u = cfnb.while_loop(lambda i, u: i < 3, lambda i, u: (i + 1, cfnb.tanh(u) * x), [0, x])
    (before,) = cfnb.gradients(u, x)
    graph = cfnb.get_default_graph()
    text, ops = graph.as_text(), len(graph.get_operations())
    with pytest.raises(LookupError, match="NoGradientForTest"):
        cfnb.gradients(v, x)
    assert graph.as_text() == text and len(graph.get_operations()) == ops
    assert graph._get_control_flow_context() is None
    (after,) = cfnb.gradients(u * u, x)
    results = []
    for config in PATHS.values():
        with cfnb.Session(config=cfnb.ConfigProto(**config)) as sess:
            results.append(sess.run([v, u, before, after], {x: [0.5, -1.0]}))
    for got in results[1:]:
        for a, b in zip(got, results[0]):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    u_value = np.array([0.5, -1.0])
    for _ in range(3):
        u_value = np.tanh(u_value) * [0.5, -1.0]
    np.testing.assert_allclose(results[0][1], u_value, rtol=1e-6)


def test_failed_v1_second_derivative_leaves_a_graph_that_builds_more():
    """TensorFlow leaves its graph inside the gradient loop's context after this failure, so the gradient built next
    cannot be fetched (InaccessibleTensorError); cfnb's can."""
    x = cfnb.placeholder(cfnb.float64, [3], name="x")
    _, h = cfnb.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, cfnb.tanh(h) * x), [0, x])
    (g,) = cfnb.gradients(cfnb.reduce_sum(h), x)
    with pytest.raises(TypeError, match="Second-order gradient for while loops not supported"):
        cfnb.gradients(cfnb.reduce_sum(g), x)
    (later,) = cfnb.gradients(cfnb.reduce_sum(h * h), x)
    x0 = np.array([0.3, -0.7, 1.1])
    with cfnb.Session() as sess:
        later_value = sess.run(later, {x: x0})
    numeric = check_gradients(lambda x: cfnb.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, cfnb.tanh(h) * x),
                                                        [0, x])[1] ** 2, x0).numeric[0]
    np.testing.assert_allclose(later_value, numeric, rtol=1e-5)
