"""Variables as TensorFlow 2's `tf.compat.v1` builds them in graph mode: resource variables.

`get_variable("v", ...)` emits `v` (VarHandleOp), `v/Initializer/...`, `v/Assign`
(AssignVariableOp) and `v/Read/ReadVariableOp`; values live in the Session, so two Sessions on
one graph hold separate values, as in TensorFlow.
"""
import contextlib

import numpy as np

from ..framework import dtypes, errors, op_kernel_context
from ..framework.op_def_library import apply_op
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph, register_tensor_conversion_function
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape, as_shape
from . import array_ops, autopacking
from .control_flow_ops import group

GLOBAL_VARIABLES = "variables"
TRAINABLE_VARIABLES = "trainable_variables"


def _var_handle_kernel(op, state):
    handle = op.name
    return lambda: handle


def _read_kernel(op, state):
    values = state.variables

    def read(handle):
        try:
            return values[handle]
        except KeyError:
            raise errors.FailedPreconditionError(
                op, op, f"Could not find variable {handle}. This could mean that the variable has been deleted "
                        f"or was never initialized: run cfnb.global_variables_initializer() first.") from None
    return read


def _assign_kernel(op, state):
    values = state.variables
    # The variable's buffer lives on the variable's device (the array module of the kernel's device).
    def stored(value):
        if np.ndim(value) == 0 and op_kernel_context.array_module(value) is np:
            return np.array(value, copy=True)[()]
        return op_kernel_context.device_module().array(value, copy=True)
    return lambda handle, value: values.__setitem__(handle, stored(value))


def _update_kernel(fn):
    """AssignAddVariableOp / AssignSubVariableOp: a new value from the old one (never in place, so a
    value fetched before stays as it was)."""
    def make(op, state):
        values = state.variables
        read = _read_kernel(op, state)

        def update(handle, delta):
            old = read(handle)
            new = op_kernel_context.device_module().asarray(fn(old, delta), dtype=op_kernel_context.dtype_of(old))
            values[handle] = new[()] if new.ndim == 0 else new
        return update
    return make


def _is_initialized_kernel(op, state):
    return lambda handle: np.bool_(handle in state.variables)


register_op("VarHandleOp", lambda op: [(dtypes.resource, TensorShape([]))], _var_handle_kernel, stateful=True)
register_op("ReadVariableOp", lambda op: [(op.get_attr("dtype"), op.get_attr("shape"))], _read_kernel,
            stateful=True)
register_op("AssignVariableOp", lambda op: [], _assign_kernel, stateful=True)
register_op("AssignAddVariableOp", lambda op: [], _update_kernel(np.add), stateful=True)
register_op("AssignSubVariableOp", lambda op: [], _update_kernel(np.subtract), stateful=True)
register_op("VarIsInitializedOp", lambda op: [(dtypes.bool_, TensorShape([]))], _is_initialized_kernel,
            stateful=True)


@contextlib.contextmanager
def _init_scope():
    """TensorFlow's `ops.init_scope()` as variable creation uses it: a variable made while a function graph
    (a v2 loop body, a branch) is being built is made in the outermost graph, under the name scope in force,
    and the function reads it through a captured handle; created inside, it would be renamed by inlining and
    never initialized (map_fn_test.testMap_Scoped)."""
    g = outer = get_default_graph()
    while getattr(outer, "outer_graph", None) is not None:
        outer = outer.outer_graph
    if outer is g:
        yield g
        return
    stack = g._name_stack
    with outer.as_default(), outer.control_dependencies(None), outer.name_scope(stack + "/" if stack else None):
        yield outer


class Variable:
    """A resource variable: a handle op, an initializer (`v/Assign`) and reads."""

    def __init__(self, initial_value=None, trainable=True, name=None, dtype=None, shape=None,
                 _initializer_fn=None):
        with _init_scope() as g:
            self._build(g, initial_value, name, dtype, shape, _initializer_fn)
        self._trainable = trainable
        g.add_to_collection(GLOBAL_VARIABLES, self)
        if trainable:
            g.add_to_collection(TRAINABLE_VARIABLES, self)

    def _build(self, g, initial_value, name, dtype, shape, _initializer_fn):
        with g.name_scope(name or "Variable") as scope:
            self._name = scope[:-1]
            with g.name_scope("Initializer"):
                if _initializer_fn is not None:
                    init = _initializer_fn()
                else:
                    if callable(initial_value):
                        initial_value = initial_value()
                    init = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            self._dtype = init.dtype
            self._shape = as_shape(shape) if shape is not None else init.shape
            with g.control_dependencies(None):
                self._handle = g.create_op("VarHandleOp", [], {"dtype": self._dtype, "shape": self._shape},
                                           name=scope).outputs[0]
            with g.name_scope("IsInitialized"):
                self._is_initialized_op = apply_op("VarIsInitializedOp", [("resource", self._handle)]).outputs[0]
            self._initializer_op = apply_op("AssignVariableOp", [("resource", self._handle), ("value", init)],
                                            name="Assign")
            self._initial_value = init
            with g.name_scope("Read"):
                self._graph_element = self._read()

    name = property(lambda self: self._name + ":0")
    op = property(lambda self: self._handle.op)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    handle = property(lambda self: self._handle)
    initializer = property(lambda self: self._initializer_op)
    initial_value = property(lambda self: self._initial_value)
    graph = property(lambda self: self._handle.graph)
    trainable = property(lambda self: self._trainable)

    def get_shape(self):
        """The variable's static shape (TensorFlow's `ResourceVariable.get_shape`)."""
        return self._shape

    def _read(self):
        return apply_op("ReadVariableOp", [("resource", self._handle)], {"dtype": self._dtype, "shape": self._shape},
                        default_name="ReadVariableOp").outputs[0]

    def value(self):
        """A ReadVariableOp of the variable (TensorFlow's `ResourceVariable.value`): each use reads it anew, so in a
        loop it sees the latest assignment."""
        return self._read()

    def read_value(self):
        """TensorFlow's: a read in a `Read` scope, then an Identity of it."""
        with self.graph.name_scope("Read"):
            value = self._read()
        return array_ops.identity(value)

    def _as_graph_element(self):
        return self._graph_element

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """An AssignVariableOp; with `read_value` (TensorFlow's default) the variable as it is after
        the assignment comes back, so fetching it gives the new value."""
        return self._update("AssignVariableOp", value, name, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """An AssignAddVariableOp (TensorFlow's `ResourceVariable.assign_add`); with `read_value` the variable after the
        update comes back, as `assign` does."""
        return self._update("AssignAddVariableOp", delta, name, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """An AssignSubVariableOp (TensorFlow's `ResourceVariable.assign_sub`); with `read_value` the variable after the
        update comes back."""
        return self._update("AssignSubVariableOp", delta, name, read_value)

    def _update(self, op_type, value, name, read_value):
        # As in TensorFlow, the value is converted before the op's scope opens: a list becomes `Const`.
        value = convert_to_tensor(value, dtype=self._dtype)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Cannot assign value to variable ' {self.name}': Shape mismatch.The variable shape "
                             f"{self._shape}, and the assigned value shape {value.shape} are incompatible.")
        op = apply_op(op_type, [("resource", self._handle), ("value", value)], {"dtype": self._dtype}, name=name,
                      default_name=op_type)
        return _UnreadVariable(self, op) if read_value else op

    def eval(self, session=None):
        """The variable's value in `session` or the default session (TensorFlow's `Variable.eval`)."""
        return self._graph_element.eval(session=session)

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self._shape} dtype={self._dtype.name}>"


class _UnreadVariable(Variable):
    """What `assign` returns (TensorFlow's _UnreadVariable): the variable after the update `op`. Every
    read of it, including the one `Session.run` fetches, waits for the update."""

    def __init__(self, variable, op):
        self._handle, self._dtype, self._shape = variable._handle, variable._dtype, variable._shape
        self._initializer_op, self._initial_value = variable._initializer_op, variable._initial_value
        self._trainable = variable._trainable
        self._parent_op = op
        self._graph_element = self._read()

    name = property(lambda self: self._parent_op.name)
    op = property(lambda self: self._parent_op)

    # The graph being built, not the handle's: inside a cond_v2 branch or a while_v2 body the update and its
    # reads live in the function while the handle stays outside.
    def _read(self):
        with get_default_graph().control_dependencies([self._parent_op]):
            return super()._read()

    def _update(self, op_type, value, name, read_value):
        with get_default_graph().control_dependencies([self._parent_op]):
            return super()._update(op_type, value, name, read_value)


def _install_variable_operators():
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "radd", "rsub", "rmul",
                 "rtruediv", "rfloordiv", "rmod", "rpow", "rmatmul", "lt", "le", "gt", "ge", "neg", "abs",
                 "getitem", "and", "or", "invert"):
        dunder = f"__{name}__"
        method = getattr(Tensor, dunder)
        setattr(Variable, dunder, (lambda m: lambda self, *a: m(self.value(), *a))(method))


_install_variable_operators()


def _dense_var_to_tensor(var, dtype=None, name=None):
    """A Variable converts to its value (TensorFlow's `BaseResourceVariable._dense_var_to_tensor`); a
    request for another dtype is refused, never a silent Variable of the wrong dtype."""
    if dtype is not None and dtypes.as_dtype(dtype) != var.dtype:
        raise ValueError(f"Incompatible type conversion requested to type {dtypes.as_dtype(dtype).name} for "
                         f"`tf.Variable of type {var.dtype.name}. (Variable: {var})")
    return var.value()


register_tensor_conversion_function(Variable, _dense_var_to_tensor)
autopacking.register_tensor_like(Variable)  # a list holding a Variable packs, as in TensorFlow


# --- initializers (tf.compat.v1.*_initializer) ------------------------------------------------
class _Initializer:
    def __call__(self, shape, dtype):
        raise NotImplementedError


class zeros_initializer(_Initializer):  # noqa: N801 - TensorFlow's name
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtype

    def __call__(self, shape, dtype=None):
        return array_ops.zeros(shape, dtype=dtype or self.dtype, name="zeros")


class ones_initializer(_Initializer):  # noqa: N801
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtype

    def __call__(self, shape, dtype=None):
        return array_ops.ones(shape, dtype=dtype or self.dtype, name="ones")


class constant_initializer(_Initializer):  # noqa: N801
    def __init__(self, value=0, dtype=dtypes.float32):
        self.value = value
        self.dtype = dtype

    def __call__(self, shape, dtype=None):
        return array_ops.constant(self.value, dtype=dtype or self.dtype, shape=shape, name="Const")


class random_normal_initializer(_Initializer):  # noqa: N801
    """Deterministic given `seed` (numpy's generator, not TensorFlow's Philox stream)."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, dtype

    def __call__(self, shape, dtype=None):
        dtype = dtypes.as_dtype(dtype or self.dtype)
        rng = np.random.default_rng(self.seed)
        value = rng.normal(self.mean, self.stddev, size=shape).astype(dtype.as_numpy_dtype)
        return array_ops.constant(value, dtype=dtype, name="random_normal")


def variable_spec(handle):
    """(shape list, dtype) of the variable behind a resource handle, or None when it does not lead to
    one: followed back through Switch/Identity/Enter and out through function captures to its
    VarHandleOp. Gradients use it for zeros shaped like a variable (TensorFlow reads the handle's
    shape and dtype from its handle data)."""
    while True:
        op = handle.op
        while op.type in ("Switch", "Identity", "Enter"):
            handle = op.inputs[0]
            op = handle.op
        if op.type == "VarHandleOp":
            shape = op.get_attr("shape")
            return (shape.as_list(), op.get_attr("dtype")) if shape.is_fully_defined() else None
        external = {ph: ext for ext, ph in getattr(handle.graph, "captures", ())}.get(handle)
        if external is None:
            return None
        handle = external


def get_variable(name, shape=None, dtype=dtypes.float32, initializer=None, trainable=True):
    """A new variable named `name` under the current name scope; a second one of that name raises.
    `cfnb.get_variable` is variable_scope.get_variable, which adds variable scopes and reuse."""
    g = get_default_graph()
    full = (g.get_name_scope() + "/" + name) if g.get_name_scope() else name
    for v in g.get_collection(GLOBAL_VARIABLES):
        if v._name == full:
            raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set reuse=True?")
    dtype = dtypes.as_dtype(dtype)
    if initializer is None:
        initializer = zeros_initializer() if not dtype.is_floating else random_normal_initializer(seed=0)
    if isinstance(initializer, _Initializer):
        if shape is None:
            raise ValueError(f"The shape of variable {name} must be fully defined to use an initializer.")
        init_fn = lambda: initializer(list(shape), dtype)  # noqa: E731
        return Variable(name=name, dtype=dtype, shape=shape, trainable=trainable, _initializer_fn=init_fn)
    return Variable(initial_value=initializer, name=name, dtype=dtype, shape=shape, trainable=trainable)


def global_variables(scope=None):
    """The variables of the default graph's GLOBAL_VARIABLES collection (`tf.compat.v1.global_variables`), filtered by
    name prefix `scope`."""
    return get_default_graph().get_collection(GLOBAL_VARIABLES, scope)


def trainable_variables(scope=None):
    """The default graph's trainable variables (`tf.compat.v1.trainable_variables`): what an optimizer differentiates by
    default."""
    return get_default_graph().get_collection(TRAINABLE_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """One NoOp that runs the initializers of `var_list` (`tf.compat.v1.variables_initializer`)."""
    return group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer():
    """`tf.compat.v1.global_variables_initializer`: run it before reading any variable, as in TensorFlow; reading an
    uninitialized variable is TensorFlow's FailedPreconditionError."""
    return variables_initializer(global_variables())


def assign(ref, value, name=None):
    """`tf.compat.v1.assign`: `ref.assign(value)`."""
    return ref.assign(value, name=name)
