"""Graph, Operation and Tensor: the data structure every other layer reads or rewrites.

The naming rules are TensorFlow's (`ops.py::Graph.unique_name`, `name_scope`): an op made by
`x + 1` inside `while_loop` is `while/add`, its constant `while/add/y`, a second one `while/add_1`.
Names come from counters, never from `id()`, so graphs, their text form and their drawings are
the same on every run.

When an op is created inside a control-flow context (a `cond` branch or a `while_loop` body),
the context gets to rewrite its inputs (`_control_flow_post_processing`): that is where a
captured tensor is routed through a Switch or a constant Enter, exactly as in TensorFlow.
"""
import contextlib
import numbers
import threading

import numpy as np

from . import dtype_rules as _rules
from . import dtypes as _dtypes
from .dtype_rules import NUMPY_RULES, TENSORFLOW_RULES
from .feed_fetch import FeedFetchRules
from .registry import get_op_def
from .tensor_shape import as_shape


class Tensor:
    """One output of an Operation: `op`, `value_index`, `dtype`, static `shape`."""

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "__weakref__")
    # numpy defers to the Tensor's reflected operators: `np.float64(1.) + t` is `t.__radd__(...)`.
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype, shape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = as_shape(shape)
        self._consumers = []

    op = property(lambda self: self._op)
    value_index = property(lambda self: self._value_index)
    dtype = property(lambda self: self._dtype)
    graph = property(lambda self: self._op.graph)
    device = property(lambda self: self._op.device)

    @property
    def name(self):
        return f"{self._op.name}:{self._value_index}"

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(shape)

    def consumers(self):
        return list(self._consumers)

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        """TensorFlow's `str(t)`: `Tensor("a:0", shape=(), dtype=float32)`; an unknown shape and an
        empty device are left out."""
        shape = f", shape={self._shape}" if self._shape.ndims is not None else ""
        device = f", device={self.device}" if self.device else ""
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name}{device})'

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed in Graph execution. "
                        "Use `cfnb.cond` for a branch on a tensor, or `cfnb.while_loop` for a loop.")

    def __iter__(self):
        # As TensorFlow in graph mode: a symbolic tensor has no elements to loop over in Python yet.
        from . import errors
        raise errors.OperatorNotAllowedInGraphError(
            f"Iterating over a symbolic `tf.Tensor` is not allowed: {self.name} has no value until the graph "
            f"runs. Unstack it (`tf.unstack`) when its first dimension is static, or loop in the graph "
            f"(`tf.while_loop`, `tf.map_fn`).")

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Use cfnb.size or "
                        f"cfnb.shape.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array: run it "
                                  f"in a Session first.")

    def eval(self, feed_dict=None, session=None):
        from ..runtime.session import get_default_session
        session = session or get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: no default session is registered.")
        return session.run(self, feed_dict)

    # Operator overloads are installed by cfnb.ops.math_ops (it owns the ops they build).


class Operation:
    """A node: `type`, `name`, data `inputs`, `control_inputs`, `outputs`, attributes, device."""

    def __init__(self, graph, op_type, name, inputs, attrs, device):
        self._graph = graph
        self._type = op_type
        self._name = name
        self._inputs = list(inputs)
        self._control_inputs = []
        self._control_outputs = []
        self._attrs = dict(attrs or {})
        self._device = device or ""
        self._id = graph._next_id()
        self._control_flow_context = graph._control_flow_context
        self._op_def = get_op_def(op_type)
        for t in self._inputs:
            t._consumers.append(self)
        self._outputs = [Tensor(self, i, dt, sh) for i, (dt, sh) in enumerate(self._op_def.infer(self))]

    graph = property(lambda self: self._graph)
    type = property(lambda self: self._type)
    name = property(lambda self: self._name)
    device = property(lambda self: self._device)
    outputs = property(lambda self: list(self._outputs))
    inputs = property(lambda self: tuple(self._inputs))
    control_inputs = property(lambda self: list(self._control_inputs))
    node_def = property(lambda self: self)

    @property
    def attr(self):
        return self._attrs

    def get_attr(self, name):
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.") from None

    def _set_attr(self, name, value):
        self._attrs[name] = value

    def colocation_groups(self):
        """`[b"loc:@name"]`: the op's own group, or the one `colocate_with` gave it."""
        return list(self._attrs.get("_class", [b"loc:@" + self._name.encode()]))

    def _update_input(self, index, tensor):
        """Rewire input `index` (TensorFlow's `_update_input`: how a loop's back edge is closed)."""
        old = self._inputs[index]
        old._consumers.remove(self)
        self._inputs[index] = tensor
        tensor._consumers.append(self)
        self._graph._version += 1

    def _add_control_input(self, op):
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            op._control_outputs.append(self)
            self._graph._version += 1

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    def _remove_all_control_inputs(self):
        for op in self._control_inputs:
            op._control_outputs.remove(self)
        self._control_inputs = []

    def _control_flow_post_processing(self):
        from ..ops import control_flow_util
        for t in self._inputs:
            control_flow_util.check_input_from_valid_context(self, t.op)
        if self._control_flow_context is not None:
            self._control_flow_context.AddOp(self)

    def run(self, feed_dict=None, session=None):
        from ..runtime.session import get_default_session
        (session or get_default_session()).run(self, feed_dict)

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"


class _ControlDependencies:
    """One `control_dependencies` block: its control inputs and the ops created inside it."""

    def __init__(self, control_inputs):
        self.control_inputs = control_inputs
        self.seen = set()


def _parse_device(spec):
    """A device string as TensorFlow's DeviceSpec reads it: `/job:w/task:1/cpu:0` ->
    {job: w, task: 1, device: (CPU, 0)}; `cpu:0`, `/CPU:0` and `/device:cpu:0` are all CPU 0."""
    fields = {}
    for part in spec.split("/"):
        y = part.split(":")
        if y[0] in ("job", "replica", "task") and len(y) == 2:
            fields[y[0]] = y[1]
        elif y[0].upper() in ("CPU", "GPU", "TPU") and len(y) <= 2:
            fields["device_type"] = y[0].upper()
            fields["device_index"] = y[1] if len(y) == 2 else "*"
        elif y[0] == "device" and len(y) == 3:
            fields["device_type"] = y[1].upper() if y[1].upper() in ("CPU", "GPU", "TPU") else y[1]
            fields["device_index"] = y[2]
        elif part:
            raise ValueError(f"Unknown attribute '{y[0]}' is encountered while parsing the device spec: '{spec}'.")
    if fields.get("device_index") == "*":
        del fields["device_index"]  # an unspecified index does not override an enclosing one
    return fields


def _device_string(fields):
    """TensorFlow's canonical form: `/job:w/replica:0/task:1/device:CPU:0`."""
    out = "".join(f"/{k}:{fields[k]}" for k in ("job", "replica", "task") if k in fields)
    if "device_type" in fields:
        out += f"/device:{fields['device_type']}:{fields.get('device_index', '*')}"
    return out


class Graph(FeedFetchRules):
    """A dataflow graph: operations, unique names, scopes, and the function library."""

    def __init__(self):
        self._ops = []
        self._ops_by_name = {}
        self._names_in_use = {}
        self._name_stack = ""
        self._control_dependencies_stack = []
        self._device_stack = []
        self._colocation_stack = []
        self._control_flow_context = None
        self._collections = {}
        self._functions = {}
        self._counter = 0
        self._version = 0
        self._lock = threading.Lock()
        self.building_function = False
        self.outer_graph = None
        self._dtype_rules = TENSORFLOW_RULES

    @property
    def dtype_rules(self):
        """How Python values become tensors and how mixed dtypes combine in this graph:
        "tensorflow" (the default, TensorFlow's: 1.5 is float32, mixed dtypes are a TypeError) or
        "numpy" (Python's and numpy's: 1.5 is float64, mixed dtypes promote as numpy 2 does, through
        visible Cast ops; see cfnb/ops/numpy_rules.py). Functions built inside take the value of
        the graph that encloses them. While `gradients()` builds, every graph follows TensorFlow's
        rules: gradient functions are written for them, and the forward graph already holds the casts."""
        return _rules.forced() or self._dtype_rules

    @dtype_rules.setter
    def dtype_rules(self, rules):
        self._dtype_rules = _rules.check(rules)

    def _next_id(self):
        self._counter += 1
        return self._counter

    # --- reading -----------------------------------------------------------------------
    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        """TensorFlow's errors: a Tensor name is a ValueError, a missing op a KeyError."""
        if ":" in name:
            raise ValueError(f"Name '{name}' appears to refer to a Tensor, not a Operation.")
        try:
            return self._ops_by_name[name]
        except KeyError:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name):
        if ":" not in name:
            what = "refers to an Operation" if name in self._ops_by_name else "looks like an (invalid) Operation name"
            raise ValueError(f"The name '{name}' {what}, not a Tensor. "
                             f"Tensor names must be of the form \"<op_name>:<output_index>\".")
        op_name, index = name.rsplit(":", 1)
        op = self._ops_by_name.get(op_name)
        if op is None:
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The operation, "
                           f"'{op_name}', does not exist in the graph.")
        try:
            return op.outputs[int(index)]
        except IndexError:
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The operation, "
                           f"'{op_name}', exists but only has {len(op.outputs)} outputs.") from None

    def as_graph_element(self, obj):
        if isinstance(obj, (Tensor, Operation)):
            if obj.graph is not self:
                raise ValueError(f"{obj} is not an element of this graph.")
            return obj
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else self.get_operation_by_name(obj)
        if hasattr(obj, "_as_graph_element"):
            return self.as_graph_element(obj._as_graph_element())
        raise TypeError(f"Can not convert a {type(obj).__name__} into a Tensor or Operation.")

    @property
    def version(self):
        return self._version

    def as_text(self, **kwargs):
        from ..viz.text import graph_to_text
        return graph_to_text(self, **kwargs)

    def __str__(self):
        return self.as_text()

    def as_graph_def(self, from_version=None, add_shapes=False):
        """TensorFlow's `GraphDef` protobuf of this graph (cfnb.graph_def.export; needs the tensorboard extra)."""
        if not _graph_def_exporter:
            raise ImportError("no GraphDef exporter is registered: import cfnb (cfnb.graph_def registers it)")
        return _graph_def_exporter[0](self, add_shapes=add_shapes)

    # --- names ---------------------------------------------------------------------------
    def get_name_scope(self):
        return self._name_stack

    def unique_name(self, name, mark_as_used=True):
        """TensorFlow's rule: `name`, then `name_1`, `name_2`, ... (case-insensitively unique)."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        name_key = name.lower()
        i = self._names_in_use.get(name_key, 0)
        if mark_as_used:
            self._names_in_use[name_key] = i + 1
        if i > 0:
            base_name_key = name_key
            while name_key in self._names_in_use:
                name_key = f"{base_name_key}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[name_key] = 1
            name = f"{name}_{i - 1}"
        return name

    @contextlib.contextmanager
    def name_scope(self, name):
        """`with g.name_scope("while") as scope:` -> "while/" (or "while_1/" when taken).

        A name ending in "/" re-enters that exact scope; "" or None returns to the root.
        """
        old = self._name_stack
        if not name:
            new_stack = ""
        elif name.endswith("/"):
            new_stack = name[:-1]
        else:
            new_stack = self.unique_name(name)
        self._name_stack = new_stack
        try:
            yield (new_stack + "/") if new_stack else ""
        finally:
            self._name_stack = old

    # --- control dependencies, devices, contexts -------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside get control edges from `control_inputs`; None clears the stack
        (and, like TensorFlow, leaves any control-flow context for the duration).

        As in TensorFlow, an op already named by an enclosing block is not repeated, and each block
        records the ops created inside it (see `_control_dependencies_for_inputs`)."""
        if control_inputs is None:
            old_stack, old_ctx = self._control_dependencies_stack, self._control_flow_context
            self._control_dependencies_stack = [_ControlDependencies([])]
            self._control_flow_context = None
            try:
                yield
            finally:
                self._control_dependencies_stack = old_stack
                self._control_flow_context = old_ctx
            return
        current = {c for frame in self._control_dependencies_stack for c in frame.control_inputs}
        ops = []
        for c in control_inputs:
            if hasattr(c, "_handle") and hasattr(c, "op"):
                c = c.op  # a variable, as in TensorFlow: its op; for what `assign` returns, the assignment
            elif hasattr(c, "_as_graph_element"):
                c = c._as_graph_element()
            c = c.op if isinstance(c, Tensor) else c
            if not isinstance(c, Operation):
                raise TypeError(f"Control input must be an Operation or a Tensor: {c!r}")
            if c not in current:
                ops.append(c)
                current.add(c)
        self._control_dependencies_stack.append(_ControlDependencies(ops))
        try:
            yield
        finally:
            self._control_dependencies_stack.pop()

    def _control_dependencies_for_inputs(self, input_ops):
        """TensorFlow's rule: a block adds nothing when an input op was itself created inside that
        block (the input already carries the edges), nor an op that is already a data input."""
        ret = []
        for frame in self._control_dependencies_stack:
            if not any(op in frame.seen for op in input_ops):
                ret.extend(c for c in frame.control_inputs if c not in input_ops)
        return ret

    def _record_op_seen_by_control_dependencies(self, op):
        """Count `op` as created inside every open `control_dependencies` block (a loop's Enter, which takes
        the blocks' control inputs itself, so the ops it feeds do not repeat them)."""
        for frame in self._control_dependencies_stack:
            frame.seen.add(op)

    @contextlib.contextmanager
    def device(self, device_name):
        """`None` clears the enclosing devices; a string is merged field by field into them."""
        self._device_stack.append(None if device_name is None else _parse_device(str(device_name)))
        try:
            yield
        finally:
            self._device_stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Ops created inside go where `op` goes (TensorFlow's `Graph.colocate_with`): the enclosing
        device scopes are set aside, `op`'s requested device applies, and each new op records the group in
        its `_class` attr (`b"loc:@name"`, as TensorFlow writes it), which the placer (runtime/placer.py)
        keeps together."""
        if op is not None and not isinstance(op, Operation):
            op = op.op  # a Tensor or a variable
        old_devices, old_colocation = self._device_stack, self._colocation_stack
        self._device_stack = [None] if op is None else [None, _parse_device(op.device) if op.device else {}]
        if ignore_existing:
            self._colocation_stack = []
        self._colocation_stack = self._colocation_stack + ([op] if op is not None else [])
        try:
            yield
        finally:
            self._device_stack, self._colocation_stack = old_devices, old_colocation

    def _current_device(self):
        fields = {}
        for spec in self._device_stack:
            fields = {} if spec is None else {**fields, **spec}
        return _device_string(fields)

    def _get_control_flow_context(self):
        return self._control_flow_context

    def _set_control_flow_context(self, ctx):
        self._control_flow_context = ctx

    @contextlib.contextmanager
    def as_default(self):
        _default_graph_stack.append(self)
        try:
            yield self
        finally:
            _default_graph_stack.pop()

    # --- collections ------------------------------------------------------------------
    def add_to_collection(self, name, value):
        self._collections.setdefault(name, []).append(value)

    def get_collection(self, name, scope=None):
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        return [i for i in items if getattr(i, "name", "").startswith(scope)]

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    # --- the function library (functional If/While bodies) ---------------------------------
    def _add_function(self, func_graph):
        self._functions[func_graph.name] = func_graph

    @property
    def functions(self):
        return dict(self._functions)

    # --- creating ops -----------------------------------------------------------------------
    def create_op(self, op_type, inputs, attrs=None, name=None, compute_device=True):
        """Create an op named exactly `name` (made unique), run control-flow post-processing."""
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError(f"Input to {op_type} must be a Tensor, got {t!r}")
            if t.graph is not self:
                raise ValueError(f"Tensor {t.name} must be from the same graph as the op '{name}' being "
                                 f"created (graphs are {t.graph!r} and {self!r}).")
        if name is None:
            name = self.unique_name(op_type)
        elif name.endswith("/"):
            name = name[:-1]
        else:
            name = self.unique_name(name)
        op = Operation(self, op_type, name, inputs, attrs, self._current_device() if compute_device else "")
        if self._colocation_stack:
            group = self._colocation_stack[-1]
            op._attrs["_class"] = list(group._attrs.get("_class", [b"loc:@" + group.name.encode()]))
        self._ops.append(op)
        self._ops_by_name[name] = op
        self._version += 1
        # Control dependencies from the enclosing `control_dependencies` blocks, minus those
        # already implied by a data input (TensorFlow's `_control_dependencies_for_inputs`).
        if self._control_dependencies_stack:
            op._add_control_inputs(self._control_dependencies_for_inputs({t.op for t in inputs}))
            for frame in self._control_dependencies_stack:
                frame.seen.add(op)
        op._control_flow_post_processing()
        return op

    def __repr__(self):
        return f"<cfnb.Graph with {len(self._ops)} ops>"


# --- the GraphDef exporter -------------------------------------------------------------------
# cfnb.graph_def (a layer above) registers it at import time, so framework never imports upward.
_graph_def_exporter = []


def register_graph_def_exporter(fn):
    """`fn(graph, add_shapes=False) -> GraphDef`, called by `Graph.as_graph_def`."""
    _graph_def_exporter[:] = [fn]


# --- the default graph ----------------------------------------------------------------------
_default_graph_stack = []
_global_default_graph = [Graph()]


def get_default_graph():
    return _default_graph_stack[-1] if _default_graph_stack else _global_default_graph[0]


def reset_default_graph():
    if _default_graph_stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
                             "cleared graph, exit the nesting and create a new graph.")
    _global_default_graph[0] = Graph()


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """`tf.compat.v1.name_scope(name, default_name, values)` on the default graph."""
    g = get_default_graph()
    if values:
        for v in values:
            if isinstance(v, Tensor):
                g = v.graph
                break
    with g.name_scope(name if name is not None else default_name) as scope:
        yield scope


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name):
    return get_default_graph().device(device_name)


def colocate_with(op, ignore_existing=False):
    """`tf.compat.v1.colocate_with(op)` on the default graph."""
    return get_default_graph().colocate_with(op, ignore_existing)


# --- converting Python values ------------------------------------------------------------
_tensor_conversion_functions = []


def register_tensor_conversion_function(cls, fn):
    """`fn(value, dtype, name) -> Tensor` for objects of `cls` (Variables, TensorArrays, ...)."""
    _tensor_conversion_functions.append((cls, fn))


def infer_dtype(value, rules=TENSORFLOW_RULES):
    """The dtype TensorFlow gives a Python/numpy value: float -> float32, int -> int32.

    Under numpy's rules (`Graph.dtype_rules == "numpy"`) it is the dtype numpy gives it
    (`np.asarray(value).dtype`): float -> float64, int -> int64."""
    if rules == NUMPY_RULES and not isinstance(value, (str, bytes, np.ndarray, np.generic)):
        return _rules.numpy_dtype_of(value, _elements)
    if isinstance(value, np.ndarray | np.generic):
        return _dtypes.as_dtype(value.dtype)
    if isinstance(value, bool):
        return _dtypes.bool_
    if isinstance(value, int):
        return _dtypes.int32 if -(2 ** 31) <= value < 2 ** 31 else _dtypes.int64
    if isinstance(value, float):
        return _dtypes.float32
    if isinstance(value, complex):
        return _dtypes.complex128
    if isinstance(value, str):
        return _dtypes.string
    if isinstance(value, (list, tuple)):
        if any(isinstance(v, Tensor) for v in value):
            raise TypeError("A list holding Tensors cannot become a constant: use cfnb.stack.")
        kinds = {infer_dtype(v) for v in value}
        for candidate in (_dtypes.complex128, _dtypes.complex64, _dtypes.float64, _dtypes.float32, _dtypes.float16,
                          _dtypes.int64, _dtypes.int32):
            if candidate in kinds:
                return candidate
        return kinds.pop() if kinds else _dtypes.float32
    raise TypeError(f"Failed to convert object of type {type(value).__name__} to Tensor. Contents: {value!r}. "
                    f"Consider casting elements to a supported type.")


def _check_value_fits(value, dtype):
    """TensorFlow's check of a Python value against a requested dtype (`_AssertCompatible`): an
    integer type takes ints (and bools) only, so 1.0 is refused as an int32 (`Expected int32, but got
    1.0 of type 'float'.`); a float type takes any real number; bool takes bools only."""
    if dtype.is_integer:
        ok = (numbers.Integral, np.integer)
    elif dtype.is_floating:
        ok = (numbers.Real, np.integer, np.floating)
    elif dtype.is_bool:
        ok = (bool, np.bool_)
    else:
        return
    for v in _elements(value):
        if not isinstance(v, ok):
            raise TypeError(f"Expected {dtype.name}, but got {v} of type '{type(v).__name__}'.")


def _elements(value):
    """The scalars of a (nested) Python list; a Tensor among them is refused as `infer_dtype` does."""
    if isinstance(value, Tensor):
        raise TypeError("A list holding Tensors cannot become a constant: use cfnb.stack.")
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _elements(v)
    elif isinstance(value, np.ndarray):
        yield from value.reshape(-1)
    else:
        yield value


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None, preferred_dtype=None):
    """A Tensor from a Tensor, a Python/numpy value (as a Const), a Variable or a TensorArray.

    `dtype_hint` is TensorFlow's preferred dtype: the value is converted to it when it can be (a
    numpy value is cast, a Python value must fit), and keeps its own dtype otherwise."""
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    for cls, fn in _tensor_conversion_functions:
        if isinstance(value, cls):
            result = fn(value, dtype, name)
            if result is not NotImplemented:  # a function may decline (auto-packing a list without Tensors)
                return result
    if isinstance(value, Operation):
        raise TypeError(f"Can't convert Operation '{value.name}' to Tensor (target dtype="
                        f"{dtype}, name={name!r}, as_ref=False)")
    from ..ops.array_ops import constant
    hint = dtype_hint or preferred_dtype
    if dtype is None and hint is not None:
        try:
            return constant(value, dtype=hint, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return constant(value, dtype=dtype, name=name or "Const")


def convert_n_to_tensor(values, dtype=None, name=None):
    return [convert_to_tensor(v, dtype=dtype, name=name) for v in values]
