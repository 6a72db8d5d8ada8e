"""cfnb standing in for TensorFlow, so that TensorFlow's own control-flow tests import it unchanged.

`install()` puts a finder on `sys.meta_path` that answers every `tensorflow...` import with a forwarding
module: `tensorflow.python.ops.while_loop` is cfnb's `cfnb.ops.while_loop`, `tensorflow.python.framework.ops`
is `cfnb.framework.ops`, and a name cfnb keeps elsewhere (TensorFlow's `gen_*_ops` wrappers, helpers that
cfnb files under another module) is looked up in the rest of cfnb's package. What this folder writes itself
is only the test scaffolding TensorFlow keeps outside the ops: `platform/test` (`test.py`: the TestCase)
and `framework/test_util` (`test_util.py`: the decorators), plus `eager.context`/`tf2` answering "graph
mode, TensorFlow 1 behaviour" (cfnb has no eager mode).

A name cfnb does not have raises `MissingSurface` (an AttributeError) at the test's own line, so a test
that needs an op outside cfnb's surface fails with the op's name in its first error line; the harness
(`tools/tf_suite.py`) reports it, and `scope.py` lists the ones judged out of scope, each with its reason.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys
import types

from cfnb.ops import control_flow_v2_toggles as toggles

# TensorFlow module (after `tensorflow.python.`) -> cfnb modules searched first, in order.
_EXPLICIT = {
    "framework.ops": ["cfnb.framework.ops", "cfnb.framework.default_session"],
    "framework.constant_op": ["cfnb.ops.array_ops"],
    "framework.dtypes": ["cfnb.framework.dtypes"],
    "framework.errors": ["cfnb.framework.errors"],
    "framework.errors_impl": ["cfnb.framework.errors"],
    "framework.tensor": ["cfnb.framework.tensor"],
    "framework.tensor_shape": ["cfnb.framework.tensor_shape"],
    "framework.tensor_spec": ["cfnb.framework.tensor_spec"],
    "framework.indexed_slices": ["cfnb.framework.indexed_slices"],
    "framework.test_util": ["tools.tf_suite_shim.test_util"],
    "platform.test": ["tools.tf_suite_shim.test"],
    "eager.context": ["tools.tf_suite_shim.eager"],
    "tf2": ["tools.tf_suite_shim.eager"],
    "util.nest": ["cfnb.framework.nest"],
    "ops.gradients_impl": ["cfnb.gradients"],
    "ops.gradients": ["cfnb.gradients"],
    "ops.gradient_checker_v2": ["tools.tf_suite_shim.gradient_checker"],
    "ops.gradient_checker": ["tools.tf_suite_shim.gradient_checker"],
    "ops.while_loop": ["cfnb.ops.while_loop"],
    "ops.variable_v1": ["tools.tf_suite_shim.aliases", "cfnb.ops.variables"],
    "ops.resource_variable_ops": ["tools.tf_suite_shim.aliases", "cfnb.ops.variables"],
    "ops.array_ops": ["cfnb.ops.array_ops", "tools.tf_suite_shim.aliases"],
    "ops.control_flow_util": ["cfnb.ops.control_flow_util", "tools.tf_suite_shim.aliases"],
    "ops.control_flow_assert": ["cfnb.ops.logging_ops"],
    "ops.control_flow_switch_case": ["cfnb.ops.cond_v2", "cfnb.ops.control_flow_case"],
    "ops.init_ops": ["cfnb.ops.variables"],
    "ops.nn_ops": ["cfnb.nn"],
    "ops.tensor_array_grad": ["cfnb.gradients.tensor_array_grad"],
    "ops.control_flow_util_v2": ["cfnb.ops.control_flow_util"],
    "client.session": ["tools.tf_suite_shim.aliases", "cfnb.runtime.session"],
    "ops.math_ops": ["cfnb.ops.math_ops", "tools.tf_suite_shim.aliases"],
    "ops.gen_control_flow_ops": ["tools.tf_suite_shim.aliases", "cfnb.ops.control_flow_ops"],
    "core.framework.graph_pb2": ["cfnb.graph_def"],
    "core.protobuf.config_pb2": ["cfnb.runtime.session", "cfnb.runtime.config_options", "cfnb.runtime.gpu_options"],
}

# Where a name is looked up when the module's own cfnb counterparts lack it: the package root, then
# every op module (TensorFlow's gen_* wrappers and helpers live in several of cfnb's modules).
_FALLBACK = ["cfnb", "cfnb.ops.array_ops", "cfnb.ops.math_ops", "cfnb.ops.control_flow_ops",
             "cfnb.ops.array_ops_stack", "cfnb.ops.slicing_ops", "cfnb.ops.state_ops", "cfnb.ops.data_flow_ops",
             "cfnb.ops.tensor_array_ops", "cfnb.ops.list_ops", "cfnb.ops.logging_ops", "cfnb.ops.functional_ops",
             "cfnb.ops.variables", "cfnb.ops.variable_scope", "cfnb.ops.tensor_array_kernels",
             "cfnb.ops.tf_graph_ops", "cfnb.ops.linalg_ops", "cfnb.ops.complex_ops", "cfnb.ops.arg_reductions",
             "cfnb.framework.ops", "cfnb.framework.tensor_util"]


# Modules that are only packages here: an attribute is a submodule (`from tensorflow.python.ops import
# map_fn` is the module, not cfnb's function of that name).
_PACKAGES = {"tensorflow", "tensorflow.python", "tensorflow.core", "tensorflow.core.protobuf",
             "tensorflow.core.framework",
             "tensorflow.python.data", "tensorflow.python.data.experimental", "tensorflow.python.data.experimental.ops"}
_PACKAGE_DIRS = ("client", "compiler", "data", "eager", "framework", "grappler", "module", "ops", "ops.ragged",
                 "platform", "saved_model", "training", "util", "data.ops")
_PACKAGES |= {"tensorflow.python." + d for d in _PACKAGE_DIRS}


class MissingSurface(AttributeError):
    """A TensorFlow name cfnb does not provide: the test needs something outside cfnb's surface."""


def _missing(qualified):
    """A name cfnb lacks. Listed in `scope.OUT_OF_SCOPE_NAMES`: a stand-in whose use skips the test as out
    of scope (using it, not naming it: test files name such ops in module-level decorators). Otherwise
    an error naming it, so the test fails at its own line."""
    from .scope import out_of_scope_stand_in
    stand_in = out_of_scope_stand_in(qualified)
    if stand_in is None:
        raise MissingSurface(f"cfnb has no {qualified}")
    return stand_in


def _has_fallback(tf_name):
    """Only TensorFlow's op and framework modules may find a name anywhere in cfnb; ragged and sparse
    tensors, eager, training, data must not pick up a cfnb name of the same spelling (`constant`)."""
    return tf_name.startswith(("ops.", "framework.")) and not tf_name.startswith(("ops.ragged", "framework.sparse"))


def _cfnb_counterparts(tf_name):
    """cfnb modules that stand for `tensorflow.python.<tf_name>` (the explicit table, then the same path
    under cfnb: `ops.cond_v2` -> `cfnb.ops.cond_v2`)."""
    names = list(_EXPLICIT.get(tf_name, []))
    if tf_name.startswith(("ops.", "framework.")):
        names.append("cfnb." + tf_name)
        if tf_name.startswith("ops.gen_"):
            names.append("cfnb.ops." + tf_name[len("ops.gen_"):])
    modules = []
    for name in names:
        try:
            modules.append(importlib.import_module(name))
        except ImportError:
            continue
    return modules


class ForwardingModule(types.ModuleType):
    """A `tensorflow...` module whose attributes are cfnb's (see the module docstring)."""

    def __init__(self, name, sources, fallback):
        super().__init__(name)
        self.__path__ = []  # a package, so `tensorflow.python.ops.ragged.x` imports too
        self._sources, self._fallback = sources, fallback

    @property
    def ENABLE_CONTROL_FLOW_V2(self):  # noqa: N802 - `control_flow_util.ENABLE_CONTROL_FLOW_V2`, a global in TF
        return toggles.control_flow_v2_enabled()

    @ENABLE_CONTROL_FLOW_V2.setter
    def ENABLE_CONTROL_FLOW_V2(self, value):  # noqa: N802
        (toggles.enable_control_flow_v2 if value else toggles.disable_control_flow_v2)()

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if self.__name__ in _PACKAGES:
            return importlib.import_module(f"{self.__name__}.{attr}")
        fallback = [importlib.import_module(n) for n in _FALLBACK] if self._fallback else []
        for module in self._sources + fallback:
            if hasattr(module, attr):
                value = getattr(module, attr)
                setattr(self, attr, value)
                return value
        return _missing(f"{self.__name__}.{attr}")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "tensorflow" or fullname.startswith("tensorflow."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        tf_name = spec.name.removeprefix("tensorflow").removeprefix(".").removeprefix("python.")
        return ForwardingModule(spec.name, _cfnb_counterparts(tf_name) if tf_name else [], _has_fallback(tf_name))

    def exec_module(self, module):
        pass


def install():
    """Answer `tensorflow...` imports with cfnb (idempotent)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
