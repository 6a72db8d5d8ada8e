"""`tf.compat.v1.variable_scope` and `get_variable`: variables named by scope, shared by `reuse`.

A variable scope prefixes the names `get_variable` gives (`outer/inner/v`) and opens a name scope of
the same name for the ops built inside (`outer/inner/mul`). Unlike a name scope it decides sharing:
`get_variable("v")` creates `v` when the scope does not reuse, returns the existing one when it does
(`reuse=True`), and either as needed with `reuse=tf.AUTO_REUSE`; asking for an existing variable
without reuse, or for a missing one with `reuse=True`, is TensorFlow's ValueError. `get_variable`
ignores name scopes, as in TensorFlow. The scope stack lives in a graph collection, as TensorFlow
keeps its variable store there.
"""
import contextlib

from ..framework import dtypes
from ..framework.ops import Tensor, get_default_graph
from . import variables


class _ReuseMode:
    def __repr__(self):
        return "tf.AUTO_REUSE"


AUTO_REUSE = _ReuseMode()
_STACK = "__variable_scope_stack"


class VariableScope:
    """One level of variable scoping: its full `name`, its `reuse` mode and defaults for new variables."""

    def __init__(self, reuse, name="", initializer=None, dtype=dtypes.float32, name_scope=""):
        self.name = name
        self.reuse = reuse
        self.initializer = initializer
        self.dtype = dtype
        self.original_name_scope = name_scope

    def reuse_variables(self):
        """`scope.reuse_variables()`: from now on `get_variable` in this scope returns existing variables instead of
        creating them (TensorFlow's `VariableScope.reuse_variables`)."""
        self.reuse = True

    def __repr__(self):
        return f"<VariableScope '{self.name}' reuse={self.reuse}>"


def get_variable_scope():
    """`tf.compat.v1.get_variable_scope`: the current variable scope of the default graph (a root scope is made on
    first use)."""
    stack = get_default_graph().get_collection_ref(_STACK)
    if not stack:
        stack.append(VariableScope(False))
    return stack[-1]


def _unique_scope_name(g, base):
    """`base`, `base_1`, ...: the first name no variable scope of this graph has used (default_name)."""
    used = g.__dict__.setdefault("_variable_scope_names", set())
    name, k = base, 0
    while name in used:
        k += 1
        name = f"{base}_{k}"
    return name


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, values=None, initializer=None, regularizer=None,
                   caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                   use_resource=None, constraint=None, auxiliary_name_scope=True):
    """`tf.compat.v1.variable_scope`: a variable scope with its name scope; `reuse` decides whether `get_variable`
    makes or finds variables, as in TensorFlow."""
    g = get_default_graph()
    if values:
        g = next((v.graph for v in values if isinstance(v, Tensor)), g)
    with g.as_default():
        parent = get_variable_scope()
        if isinstance(name_or_scope, VariableScope):
            full, name_scope = name_or_scope.name, name_or_scope.original_name_scope
            # Re-entering a scope keeps its reuse: reuse=False cannot undo it, reuse=True adds it.
            modes = (name_or_scope.reuse, reuse)
            reuse = True if True in modes else AUTO_REUSE if AUTO_REUSE in modes else False
        else:
            if name_or_scope is None:
                if default_name is None:
                    raise TypeError("If default_name is None then name_or_scope is required")
                name = _unique_scope_name(g, (parent.name + "/" if parent.name else "") + default_name)
                name = name.rsplit("/", 1)[-1]
            else:
                name = name_or_scope
            full = f"{parent.name}/{name}" if parent.name else name
            name_scope = name if name_or_scope is not None else default_name  # the name scope uniquifies itself
        g.__dict__.setdefault("_variable_scope_names", set()).add(full)
        if reuse is None or reuse is False:
            reuse = parent.reuse  # a scope inside a reusing scope reuses too
        scope = VariableScope(reuse, full, initializer if initializer is not None else parent.initializer,
                              dtypes.as_dtype(dtype) if dtype is not None else parent.dtype)
        stack = g.get_collection_ref(_STACK)
        with contextlib.ExitStack() as names:
            if auxiliary_name_scope:
                scope.original_name_scope = names.enter_context(g.name_scope(name_scope))
            stack.append(scope)
            try:
                yield scope
            finally:
                stack.pop()


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True, collections=None,
                 caching_device=None, partitioner=None, validate_shape=True, use_resource=None, custom_getter=None,
                 constraint=None, synchronization=None, aggregation=None):
    """The variable `scope/name`: created, or shared according to the current scope's `reuse`."""
    g = get_default_graph()
    scope = get_variable_scope()
    full = f"{scope.name}/{name}" if scope.name else name
    existing = next((v for v in g.get_collection(variables.GLOBAL_VARIABLES) if v._name == full), None)
    if existing is not None:
        if scope.reuse is not True and scope.reuse is not AUTO_REUSE:
            raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set reuse=True or "
                             f"reuse=tf.AUTO_REUSE in VarScope?")
        if shape is not None and not existing.shape.is_compatible_with(shape):
            raise ValueError(f"Trying to share variable {full}, but specified shape {list(shape)} and found shape "
                             f"{existing.shape}.")
        if dtype is not None and dtypes.as_dtype(dtype) != existing.dtype:
            raise ValueError(f"Trying to share variable {full}, but specified dtype {dtypes.as_dtype(dtype).name} and "
                             f"found dtype {existing.dtype.name}.")
        return existing
    if scope.reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with tf.get_variable(). Did you mean to "
                         f"set reuse=tf.AUTO_REUSE in VarScope?")
    with g.name_scope(None):  # get_variable ignores name scopes: the variable's name is its scoped name
        return variables.get_variable(full, shape=shape, dtype=dtype if dtype is not None else scope.dtype,
                                      initializer=initializer if initializer is not None else scope.initializer,
                                      trainable=trainable)
