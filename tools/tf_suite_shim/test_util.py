"""`tensorflow.python.framework.test_util`'s decorators, for a graph-mode-only TensorFlow 1 run.

Each decorator does what TensorFlow's does when `tf2.enabled()` is False (TensorFlow 1 behaviour): tests
marked `run_v1_only` run, `run_deprecated_v1` runs the test in a fresh graph, `with_control_flow_v2`
adds a `...WithControlFlowV2` twin of every test not marked `disable_control_flow_v2`, and
`run_in_graph_and_eager_modes` runs its graph half. Tests that only make sense with eager execution,
GPUs or a cluster are skipped with a reason that starts with `OUT_OF_SCOPE`, which the harness counts
as out of scope (never as passed).
"""
import functools
import unittest

from cfnb.framework import ops as cfnb_ops
from cfnb.ops import control_flow_v2_toggles as toggles

from .test import TestCase, create_local_cluster  # noqa: F401 - `test_util.create_local_cluster`

OUT_OF_SCOPE = "out of scope:"
TensorFlowTestCase = TestCase


def _decorator_maybe_with_args(make):
    """Let a decorator be used bare (`@d`) or called (`@d(...)`), as TensorFlow's are."""
    @functools.wraps(make)
    def decorator(func=None, *args, **kwargs):
        if callable(func) and not args and not kwargs:
            return make(func)
        return make
    return decorator


def _in_fresh_graph(func, with_session=False):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        with cfnb_ops.Graph().as_default():
            if not with_session:
                return func(self, *args, **kwargs)
            with self.test_session():
                return func(self, *args, **kwargs)
    return wrapper


def _skip_out_of_scope(reason):
    def decorate(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            raise unittest.SkipTest(f"{OUT_OF_SCOPE} {reason}")
        return wrapper
    return decorate


def _apply_to_class_or_function(decorate):
    """TensorFlow's v1-only decorators also take a class: then each test method is decorated."""
    def apply(target):
        if isinstance(target, type):
            for name, value in list(target.__dict__.items()):
                if name.startswith("test") and callable(value):
                    setattr(target, name, decorate(value))
            return target
        return decorate(target)
    return apply


def run_deprecated_v1(func=None):
    return _apply_to_class_or_function(_in_fresh_graph)(func)


deprecated_graph_mode_only = run_deprecated_v1


def run_v1_only(reason=None, func=None):
    """Runs: cfnb is TensorFlow 1 behaviour (`reason` names TensorFlow's bug for its v2 skip)."""
    if func is not None:
        return func
    if callable(reason):
        return reason
    return lambda target: target


def run_v2_only(func=None):
    return _decorator_maybe_with_args(_skip_out_of_scope("run_v2_only: needs TensorFlow 2 behaviour (eager, "
                                                          "tf.function)"))(func)


def run_gpu_only(func=None):
    return _skip_out_of_scope("run_gpu_only: needs a GPU device")(func)


run_cuda_only = run_gpu_only


def run_in_graph_and_eager_modes(func=None, config=None, use_gpu=True, assert_no_eager_garbage=False):
    """The graph half only: a fresh graph with a test session, as TensorFlow's graph half runs."""
    def decorate(f):
        return _in_fresh_graph(f, with_session=True)
    return decorate(func) if func is not None else decorate


def run_all_in_graph_and_eager_modes(cls):
    return _apply_to_class_or_function(lambda f: _in_fresh_graph(f, with_session=True))(cls)


def build_as_function_and_v1_graph(func=None):
    """The v1-graph half (the tf.function half is a graph too, built by `def_function`: not cfnb's surface)."""
    return _apply_to_class_or_function(lambda f: _in_fresh_graph(f, with_session=True))(func)


def disable_control_flow_v2(unused_msg):
    def decorate(func):
        func._disable_control_flow_v2 = True
        return func
    return decorate


def enable_control_flow_v2(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        was = toggles.control_flow_v2_enabled()
        toggles.enable_control_flow_v2()
        try:
            return func(*args, **kwargs)
        finally:
            (toggles.enable_control_flow_v2 if was else toggles.disable_control_flow_v2)()
    return wrapper


def with_control_flow_v2(cls):
    """Adds `<test>WithControlFlowV2` for each test not marked `disable_control_flow_v2` (TensorFlow 1 mode)."""
    for name, value in list(cls.__dict__.items()):
        if not name.startswith("test") or not callable(value) or getattr(value, "_disable_control_flow_v2", False):
            continue
        twin = enable_control_flow_v2(value)
        twin.__name__ = name + "WithControlFlowV2"
        setattr(cls, twin.__name__, twin)
    return cls


def _identity_decorator(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda target: target


with_eager_op_as_function = _identity_decorator
disable_xla = _identity_decorator
disable_tfrt = _identity_decorator
enable_output_all_intermediates = _identity_decorator
assert_no_new_pyobjects_executing_eagerly = _identity_decorator
assert_no_garbage_created = _identity_decorator
assert_no_new_tensors = _identity_decorator
xla_allow_fallback = _identity_decorator


def is_xla_enabled():
    return False


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    return False


def IsMklEnabled():  # noqa: N802 - TensorFlow's name
    return False
