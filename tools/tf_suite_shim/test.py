"""`tensorflow.python.platform.test` on cfnb: the TestCase TensorFlow's kernel tests are written against.

Mirrors `TensorFlowTestCase` (`framework/test_util.py`) in graph mode: each test starts with a fresh default
graph and the class's control-flow version, `cached_session()` is one Session per test made the default
(so `self.evaluate` and `Tensor.eval()` find it), and the assertions convert graph tensors by running them.
absl's TestCase (absl-py arrives with tensorboard, cfnb's `tensorboard` extra) is the base, so the tests'
`parameterized.TestCase` mixes in as it does in TensorFlow.
"""
import contextlib
import math
import re
import tempfile
import threading
import unittest
from unittest import mock  # noqa: F401 - `test.mock`

import numpy as np
from absl.testing import absltest

import cfnb
from cfnb.framework import default_session, errors
from cfnb.framework import ops as cfnb_ops
from cfnb.ops import control_flow_v2_toggles as toggles


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None, ps_config=None):
    """A distributed cluster is out of scope: the workers are stand-ins whose use skips the test."""
    from .scope import out_of_scope_stand_in
    worker = out_of_scope_stand_in("platform.test.create_local_cluster")
    return [worker] * num_workers, [worker] * num_ps


def main(*args, **kwargs):
    absltest.main(*args, **kwargs)


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    return False


def gpu_device_name():
    return ""


def is_built_with_cuda():
    return False


def is_built_with_gpu_support():
    return False


class Benchmark:
    """`test.Benchmark`: benchmarks are not tests; the loader never collects them."""


def _is_tensor_like(value):
    return isinstance(value, (cfnb.Tensor, cfnb.Operation, cfnb.IndexedSlices)) or hasattr(value, "_as_graph_element")


class _CapturedWrites:
    def __init__(self, buffer):
        self._buffer = buffer

    def contents(self):
        return self._buffer.getvalue()


class TestCase(absltest.TestCase):
    """TensorFlow's `test.TestCase`, graph mode only."""

    _cached = None  # set in setUp; here too for test classes whose setUp does not call ours

    @contextlib.contextmanager
    def captureWritesToStream(self, stream):  # noqa: N802 - TensorFlow's name
        """What is written to `stream` (sys.stderr or sys.stdout) inside the block (cfnb's PrintV2 writes there)."""
        import io
        import sys
        name = "stderr" if stream is sys.stderr else "stdout"
        buffer = io.StringIO()
        saved = getattr(sys, name)
        setattr(sys, name, buffer)
        try:
            yield _CapturedWrites(buffer)
        finally:
            setattr(sys, name, saved)

    def setUp(self):
        super().setUp()
        self._cached = None
        self._graph_ctx = None
        cfnb_ops.reset_default_graph()
        toggles.disable_control_flow_v2()  # `with_control_flow_v2`'s twins enable it inside the test
        np.random.seed(87654321)

    def tearDown(self):
        if self._cached is not None:
            self._cached.close()
        super().tearDown()

    # --- sessions -------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _session_scope(self, sess, graph):
        with graph.as_default(), default_session.default_session(sess):
            yield sess

    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        graph = graph or cfnb_ops.get_default_graph()
        if self._cached is None or self._cached.graph is not graph:
            self._cached = cfnb.Session(graph=graph, config=config)
        return self._session_scope(self._cached, graph)

    test_session = cached_session

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        graph = graph or cfnb_ops.get_default_graph()
        sess = cfnb.Session(graph=graph, config=config)
        try:
            with self._session_scope(sess, graph):
                yield sess
        finally:
            sess.close()

    def evaluate(self, tensors):
        """Run `tensors` (any nest) in the default session, as TensorFlow's graph-mode `evaluate` does."""
        sess = default_session.get_default_session()
        if sess is None:
            with self.cached_session() as cached:
                return cached.run(tensors)
        return sess.run(tensors)

    def get_temp_dir(self):
        return tempfile.mkdtemp()

    def checkedThread(self, target, args=None, kwargs=None):  # noqa: N802 - TensorFlow's name
        return threading.Thread(target=target, args=args or (), kwargs=kwargs or {})

    # --- assertions -----------------------------------------------------------------------------------------
    def _nd(self, value):
        if _is_tensor_like(value):
            value = self.evaluate(value)
        if hasattr(value, "values") and hasattr(value, "indices") and hasattr(value, "dense_shape"):
            value = _dense(value)
        return np.asarray(value) if not isinstance(value, np.ndarray) else value

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        a, b = self._nd(a), self._nd(b)
        if a.size and b.size and a.shape != b.shape and not (a.ndim == 0 or b.ndim == 0):
            raise AssertionError(f"Shape mismatch: expected {a.shape}, got {b.shape}. {msg or ''}")
        np.testing.assert_array_equal(a, b, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        with self.assertRaises(AssertionError):
            self.assertAllEqual(a, b)

    def _close(self, a, b, rtol, atol, msg, path):
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertEqual(set(a), set(b), msg)
            for key in a:
                self._close(a[key], b[key], rtol, atol, msg, path + [key])
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and not _numeric_leaf(a, b):
            self.assertEqual(len(a), len(b), f"Length mismatch at {path}. {msg or ''}")
            for k, (x, y) in enumerate(zip(a, b)):
                self._close(x, y, rtol, atol, msg, path + [k])
            return
        a, b = self._nd(a), self._nd(b)
        if a.shape != b.shape and a.size != 1 and b.size != 1:
            raise AssertionError(f"Shape mismatch at {path}: {a.shape} vs {b.shape}. {msg or ''}")
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{path} {msg or ''}", equal_nan=True)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        self._close(a, b, rtol, atol, msg, [])

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,  # noqa: N802
                                      half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        a, b = self._nd(a), self._nd(b)
        if a.dtype in (np.float32, np.complex64) or b.dtype in (np.float32, np.complex64):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if a.dtype == np.float16 or b.dtype == np.float16:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        self.assertEqual(len(farray1), len(farray2), msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertTrue(math.fabs(float(f1) - float(f2)) <= err, msg)

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        self.assertTrue(math.fabs(f1 - f2) <= err, f"{f1} != {f2} +/- {err}. {msg or ''}")

    def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802
        self.assertEqual(tuple(np.shape(input_a)), tuple(input_b.shape.as_list()), msg)

    def assertDeviceEqual(self, device1, device2, msg=None):  # noqa: N802
        from cfnb.framework.device_spec import device_string, parse_device  # TensorFlow's pydev.canonical_name
        canon = [device_string(parse_device(d or "")) for d in (device1, device2)]
        self.assertEqual(canon[0], canon[1], msg)

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                return re.search(expected_err_re_or_predicate, str(e)) is not None
        try:
            yield
        except exception_type as e:  # TensorFlow's check: the right type, and the predicate holds
            if not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e
        else:
            self.fail(f"{exception_type} not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)


def _numeric_leaf(a, b):
    """Lists of numbers compare as arrays (TensorFlow's assertAllClose treats them as one array)."""
    def flat_numbers(x):
        return all(isinstance(v, (int, float, complex, np.number, np.ndarray)) or
                   (isinstance(v, (list, tuple)) and flat_numbers(v)) for v in x)
    return flat_numbers(a) and flat_numbers(b)


def _dense(slices):
    """An IndexedSlices value as the dense array it stands for (`gradient_checker_v2._to_numpy`)."""
    values, indices = np.asarray(slices.values), np.asarray(slices.indices)
    out = np.zeros(tuple(np.asarray(slices.dense_shape)), values.dtype)
    np.add.at(out, indices, values)
    return out


unittest.TestCase.maxDiff = None
