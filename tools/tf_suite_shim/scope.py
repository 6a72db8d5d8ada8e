"""The reviewed list of TensorFlow tests that are out of cfnb's scope, each with its reason.

cfnb's surface is DESIGN.md's contract 1: tf.compat.v1 graph mode on CPU devices (no eager mode, no
tf.function, no XLA, no GPUs), the ops its op table defines. A test listed here is counted as out of
scope by `tools/tf_suite.py`, never as passed. A key is `Class.testName` (its `WithControlFlowV2` twin
is covered by the same entry) or `Class.*` for a whole class.
"""
import unittest

from .test_util import OUT_OF_SCOPE

_REF = "reference-typed tensors (TF1 RefVariable, `_ref()`, RefEnter/RefSwitch): cfnb's variables are resource " \
       "variables, as tf.compat.v1.Variable is in TensorFlow 2.x"
_REF_MSG = "matches RefVariable's 'Attempting to use uninitialized value'; cfnb's Variable is a resource variable " \
           "(its message is ResourceVariable's, as tf.compat.v1.Variable's is in TensorFlow 2.x)"
_RESOURCE = "resource-variable kernels (ResourceGather via sparse_read, AssignVariableOp) are not cfnb's surface"
_INTERNAL = "checks a TensorFlow-internal helper or flag, not the graph API"
_STATS = "reads RunMetadata.step_stats / executor options (ConfigProto.experimental) that cfnb does not model"

OUT_OF_SCOPE_TESTS = {
    "ControlFlowTest.testRefIdentity": _REF,
    "ControlFlowTest.testRefEnter": _REF,
    "ControlFlowTest.testRefSwitch": _REF,
    "ControlFlowTest.testRefSelect": _REF,
    "ControlFlowTest.testWhileWithRefs_1": _REF,
    "ControlFlowTest.testWhileWithRefsWithGradients_1": _REF,
    "TupleTest.testTensors": _REF,
    "TupleTest.testIndexedSlices": _REF,
    "ControlFlowUtilTest.testIsLoopEnter": _REF,
    "ControlFlowUtilTest.testIsLoopExit": _REF,
    "ControlFlowUtilTest.testIsSwitch": _REF,
    "ControlFlowTest.testGroup": _REF_MSG,
    "ControlFlowTest.testWithOpsDependencies": _REF_MSG,
    "ControlFlowTest.testWithTensorDependencies": _REF_MSG,
    "ControlFlowTest.testWithIndexedSlicesDependencies": _REF_MSG,
    "ControlFlowTest.testCondResource": _RESOURCE,
    "ControlFlowTest.testCondGrad_ResourceVarSparseRead": _RESOURCE,
    "ControlFlowTest.testWhileGrad_ResourceVarSparseRead": _RESOURCE,
    "ControlFlowTest.testWhileGrad_MultiResourceVarSparseRead": _RESOURCE,
    "ControlFlowTest.testBufferForwarding": _STATS,
    "ControlFlowTest.testDisableLoweringSwitchMerge": _STATS,
    "WhileV2Test.testSingleThreadedExecution": _STATS,
    "AssertTest.testGuardedAssertDoesNotCopyWhenTrue": _STATS,
    "CondV2Test.testLowering": "grappler's RewriterConfig: " + _STATS,
    "CondV2Test.testLoweringDisabledWithFastCond": _INTERNAL + " (cond_v2.fast_cond_v2)",
    "WhileV2Test.testAccumulatorElementShapeUnknownShape": _INTERNAL + " (while_v2._get_graph)",
    "WhileV2Test.testDoNotAccumulateConstNodes": _INTERNAL + " (while_v2._get_graph)",
    "WhileV2Test.testDuplicateAccumulator": _INTERNAL + " (while_v2._get_graph)",
    "WhileV2Test.testAccumulatorElementShapeFullyDefinedShape": _INTERNAL + " (while_v2._get_graph)",
    "WhileV2Test.testAccumulatorElementShapePartiallyDefinedShape": _INTERNAL + " (while_v2._get_graph)",
    "WhileV2Test.testForwardPassRewrite": _INTERNAL + " (how many outputs While gets when its gradient rewrites it)",
    "ControlFlowTest.testCondComputeGradAfterSessRunFails": "expects TensorFlow's failure to differentiate a cond "
                                                            "after Session.run froze its graph; cfnb differentiates it",
    "WhileV2Test.testDisableLowering": _INTERNAL + " (_DISABLE_LOWER_USING_SWITCH_MERGE)",
    "WhileV2Test.testDoNotOutputLoopCounterAsIntermediate": _INTERNAL + " (output-all-intermediates override)",
    "WhileV2Test.testDoNotOutputLoopInvariantAsIntermediate": _INTERNAL + " (output-all-intermediates override)",
    "WhileV2Test.testPruningNested": _INTERNAL + " (output-all-intermediates override)",
    "WhileV2Test.testPruningNested2": _INTERNAL + " (output-all-intermediates override)",
    "WhileV2Test.testPruningNested3": _INTERNAL + " (output-all-intermediates override)",
    "WhileV2Test.testCustomGradient": "tf.custom_gradient is not cfnb's surface",
    "TensorArrayTest.testSkipEagerGetGradSource_EnclosingScope": _INTERNAL + " (tensor_array_grad._GetGradSource)",
    "TensorArrayTest.testSkipEagerGetGradSource_Invalid": _INTERNAL + " (tensor_array_grad._GetGradSource)",
    "TensorArrayTest.testSkipEagerGetGradSource_NestedUsesInnermost": _INTERNAL + " (tensor_array_grad._GetGradSource)",
    "TensorArrayTest.testSkipEagerGetGradSource_NoEnclosingScope": _INTERNAL + " (tensor_array_grad._GetGradSource)",
    "FunctionalOpsTest.testToBool": "the ToBool op is not cfnb's surface",
    "CaseTest.testCase": _INTERNAL + " (cond_v2.indexed_case, the Case op's builder)",
    "CaseTest.testStatelessCase": _INTERNAL + " (cond_v2.indexed_case, the StatelessCase op's builder)",
    "TensorArrayTest.testSkipEagerTensorArrayGradWithShapeKnownElementShape": "the TensorArrayGradWithShape op "
                                                                               "is not in cfnb's op table",
    "TensorArrayTest.testSkipEagerTensorArrayGradWithShapeUnknownElementShape": "the TensorArrayGradWithShape op "
                                                                                 "is not in cfnb's op table",
    "TensorArrayTest.testTensorArrayReadWrongIndexOrDataTypeFails": "calls the raw gen_data_flow_ops wrapper "
                                                                    "tensor_array_read_v3, which cfnb does not expose",
}

# TensorFlow names outside cfnb's surface: a test that reaches one is out of scope, for the reason given.
OUT_OF_SCOPE_NAMES = {
    "eager.context.eager_mode": "eager execution (cfnb is graph mode only)",
    "eager.context.context": "eager context (cfnb is graph mode only)",
    "eager.def_function.function": "tf.function (cfnb builds tf.compat.v1 graphs)",
    "eager.backprop.*": "eager gradients (GradientTape)",
    "eager.wrap_function.*": "tf.function wrapping (eager)",
    "framework.function.Defun": "Defun functions (framework/function.py) are not cfnb's surface",
    "framework.meta_graph.*": "MetaGraph export (the grappler pruning tests) is not cfnb's surface",
    "ops.control_flow_util_v2.in_defun": "Defun functions (framework/function.py) are not cfnb's surface",
    "framework.sparse_tensor.*": "sparse tensors are not cfnb's surface",
    "framework.dtypes.qint8": "quantized dtypes are not cfnb's surface",
    "framework.test_util.create_local_cluster": "a distributed cluster (grpc servers)",
    "platform.test.create_local_cluster": "a distributed cluster (grpc servers)",
    "ops.ragged.ragged_factory_ops.*": "ragged tensors are not cfnb's surface",
    "ops.ragged.ragged_tensor.*": "ragged tensors are not cfnb's surface",
    "ops.random_ops.*": "random ops are not cfnb's surface",
    "ops.script_ops.*": "PyFunc runs Python out of a graph: cfnb refuses it",
    "ops.data_flow_ops.FIFOQueue": "queues are not cfnb's surface",
    "ops.gen_state_ops.variable": "reference-typed variables (the VariableV2 op) are not cfnb's surface",
    "ops.gen_state_ops.variable_v2": "reference-typed variables (the VariableV2 op) are not cfnb's surface",
    "ops.control_flow_ops.XLAControlFlowContext": "XLA",
    "training.adam.*": "optimizers (tf.train) are not cfnb's surface",
    "training.gradient_descent.*": "optimizers (tf.train) are not cfnb's surface",
    "training.saver.*": "saving and MetaGraphs are not cfnb's surface",
    "data.ops.dataset_ops.*": "tf.data is not cfnb's surface",
    "data.experimental.ops.cardinality.*": "tf.data is not cfnb's surface",
    "module.module.*": "tf.Module (TF2 object API)",
    "saved_model.save.*": "SavedModel is not cfnb's surface",
    "saved_model.load.*": "SavedModel is not cfnb's surface",
}


class _OutOfScopeMeta(type):
    def __getattr__(cls, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        cls._skip()

    def __call__(cls, *args, **kwargs):
        cls._skip()


def out_of_scope_stand_in(qualified):
    """For a listed name: a class (so `isinstance(x, it)` works and is False) whose call or attribute skips
    the running test as out of scope. None for a name not listed."""
    short = qualified.removeprefix("tensorflow.python.")
    reason = OUT_OF_SCOPE_NAMES.get(short) or OUT_OF_SCOPE_NAMES.get(short.rsplit(".", 1)[0] + ".*")
    if not reason:
        return None

    def skip():
        raise unittest.SkipTest(f"{OUT_OF_SCOPE} {reason} ({short})")
    return _OutOfScopeMeta(short.rsplit(".", 1)[-1], (), {"_skip": staticmethod(skip)})


def _reason(test_id):
    parts = test_id.split(".")
    cls, method = parts[-2], parts[-1].removesuffix("WithControlFlowV2")
    return OUT_OF_SCOPE_TESTS.get(f"{cls}.{method}") or OUT_OF_SCOPE_TESTS.get(f"{cls}.*")


def tests(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from tests(item)
        else:
            yield item


def mark_out_of_scope(suite):
    """Replace each listed test's method by a skip with its reason (the harness counts those)."""
    for test in tests(suite):
        reason = _reason(test.id())
        if reason:
            def skip(reason=reason):
                raise unittest.SkipTest(f"{OUT_OF_SCOPE} {reason}")
            setattr(test, test._testMethodName, skip)
