"""Graph and Operation (Tensor is `tensor.py`): the data structure every other layer reads or rewrites.

The naming rules are TensorFlow's (`ops.py::Graph.unique_name`, `name_scope`): an op made by
`x + 1` inside `while_loop` is `while/add`, its constant `while/add/y`, a second one `while/add_1`.
Names come from counters, never from `id()`, so graphs, their text form and their drawings are
the same on every run.

When an op is created inside a control-flow context (a `cond` branch or a `while_loop` body),
the context gets to rewrite its inputs (`_control_flow_post_processing`): that is where a
captured tensor is routed through a Switch or a constant Enter, exactly as in TensorFlow.
"""
import contextlib
import threading

from . import build_journal
from . import dtype_rules as _rules
from .default_session import run_using_default_session
from .device_spec import device_string, parse_device
from .dtype_rules import TENSORFLOW_RULES
from .feed_fetch import FeedFetchRules
from .graph_text import graph_to_text
from .registry import get_op_def

# Tensor and the conversion registry live in their own modules (as in TensorFlow 2.x); ops.Tensor and
# ops.convert_to_tensor are still how the layers above name them.
from .tensor import Tensor
from .tensor_conversion_registry import (
    convert_n_to_tensor,  # noqa: F401 - re-exported
    convert_to_tensor,  # noqa: F401 - re-exported
    register_tensor_conversion_function,
)


def appended(edges, item):
    """`edges` with `item` appended, made a list on the first one (an op's control edges start as the empty tuple,
    which costs the garbage collector nothing: graphs are cyclic, so every op's containers are walked)."""
    if edges:
        edges.append(item)
        return edges
    return [item]


class Operation:
    """A node: `type`, `name`, data `inputs`, `control_inputs`, `outputs`, attributes, device."""

    # What a graph rewrite may change in place (a failed gradients() call puts it back: build_journal.py).
    _JOURNAL_FIELDS = ("_inputs", "_outputs", "_attrs", "_control_inputs", "_control_outputs", "_control_flow_context")

    def __init__(self, graph, op_type, name, inputs, attrs, device, output_specs=None):
        """A node as `Graph.create_op` makes it (TensorFlow's `Operation.__init__`, built from a NodeDef): it
        takes the graph's current control-flow context, registers itself as a consumer of each input, and
        its output tensors' dtypes and shapes come from the op's registered shape function (or, for a copy of
        an op, `output_specs`: the original's [(dtype, shape)], already inferred)."""
        self._graph = graph
        self._type = op_type
        self._name = name
        self._inputs = list(inputs)
        # An op's control edges start as the empty tuple and become a list with their first edge (`appended`):
        # most ops have none, and an empty tuple, unlike an empty list, is no object for the garbage collector.
        self._control_inputs = ()
        self._control_outputs = ()
        self._attrs = dict(attrs or {})
        self._device = device or ""
        graph._counter += 1  # the op's id: its place in the graph's creation order
        self._id = graph._counter
        self._control_flow_context = graph._control_flow_context
        self._op_def = get_op_def(op_type)
        for t in self._inputs:
            t._consumers.append(self)
        specs = self._op_def.infer(self) if output_specs is None else output_specs
        self._outputs = [Tensor(self, i, dt, sh) for i, (dt, sh) in enumerate(specs)]

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
        """The op's attributes by name (a NodeDef's `attr` map), the live dict."""
        return self._attrs

    def get_attr(self, name):
        """One attribute's value (TensorFlow's `Operation.get_attr`): e.g. an Enter's `frame_name`, a
        While's `body` function; a missing one is a ValueError, as in TensorFlow."""
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.") from None

    def _set_attr(self, name, value):
        build_journal.note(self)
        self._attrs[name] = value

    def colocation_groups(self):
        """`[b"loc:@name"]`: the op's own group, or the one `colocate_with` gave it."""
        return list(self._attrs.get("_class", [b"loc:@" + self._name.encode()]))

    def _update_input(self, index, tensor):
        """Rewire input `index` (TensorFlow's `_update_input`: how a loop's back edge is closed)."""
        old = self._inputs[index]
        for changed in (self, old, tensor):
            build_journal.note(changed)
        old._consumers.remove(self)
        self._inputs[index] = tensor
        tensor._consumers.append(self)
        self._graph._version += 1

    def _add_control_input(self, op):
        if op not in self._control_inputs:
            build_journal.note(self)
            build_journal.note(op)
            self._control_inputs = appended(self._control_inputs, op)
            op._control_outputs = appended(op._control_outputs, self)
            self._graph._version += 1

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    def _remove_all_control_inputs(self):
        build_journal.note(self)
        for op in self._control_inputs:
            build_journal.note(op)
            op._control_outputs.remove(self)
        self._control_inputs = ()
        self._graph._version += 1

    def _control_flow_post_processing(self):
        """TensorFlow's `Operation._control_flow_post_processing`: check each input comes from a
        context this op may read (the op layer registers the check, `control_flow_util`), then let
        the op's own context rewrite it (`AddOp`)."""
        for check in _input_context_checks:
            for t in self._inputs:
                check(self, t.op)
        if self._control_flow_context is not None:
            self._control_flow_context.AddOp(self)

    def run(self, feed_dict=None, session=None):
        """Run this op in `session` or the default one (TensorFlow's `Operation.run`)."""
        run_using_default_session(self, feed_dict, self.graph, session)

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"


class _ControlDependencies:
    """One `control_dependencies` block: its control inputs and the ops created inside it."""

    def __init__(self, control_inputs):
        self.control_inputs = control_inputs
        self.seen = set()


class Graph(FeedFetchRules):
    """A dataflow graph: operations, unique names, scopes, and the function library."""

    def __init__(self):
        self._ops = []
        self._ops_by_name = {}
        self._names_in_use = {}
        self._name_stack = ""
        self._control_dependencies_stack = []
        self._device_stack = []  # (merged fields, their device string) per open scope, innermost last
        self._merged_devices = {}  # (enclosing device, requested device) -> device string (_scoped_device)
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

    # --- reading -----------------------------------------------------------------------
    def get_operations(self):
        """Every op of the graph in creation order (TensorFlow's `Graph.get_operations`), a copy, so a caller
        may add ops while it iterates."""
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
        """The tensor named `"<op>:<index>"` (TensorFlow's `Graph.get_tensor_by_name`), with
        TensorFlow's errors: an op's name is a ValueError, a missing op or output a KeyError."""
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
        """A fetch or feed as the Tensor or Operation it names (TensorFlow's `Graph.as_graph_element`):
        a tensor name, an op name, a Tensor, an Operation, or an object that knows its graph element (a Variable)."""
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
        """A number that grows with every op added: a Session's cached executors are rebuilt when it
        changes (TensorFlow's `Graph.version`)."""
        return self._version

    def as_text(self, **kwargs):
        """The graph as text, one op a line (`graph_text.graph_to_text`): what golden tests compare."""
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
        """The current name scope, without a trailing slash (TensorFlow's `Graph.get_name_scope`)."""
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
        """`None` clears the enclosing devices; a string is merged field by field into them. The merged fields and
        their canonical string are computed once per scope, not once per op made in it."""
        fields = {} if device_name is None else {**self._device_fields(), **parse_device(str(device_name))}
        self._device_stack.append((fields, device_string(fields)))
        try:
            yield
        finally:
            self._device_stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Ops created inside go where `op` goes (TensorFlow's `Graph.colocate_with`): the enclosing
        device scopes are set aside, `op`'s requested device applies (or, when it has none, that of an enclosing
        colocation's op), and each new op records the group in
        its `_class` attr (`b"loc:@name"`, as TensorFlow writes it), which the placer (runtime/placer.py)
        keeps together."""
        if op is not None and not isinstance(op, Operation):
            op = op.op  # a Tensor or a variable
        old_devices, old_colocation = self._device_stack, self._colocation_stack
        if ignore_existing:
            self._colocation_stack = []
        self._colocation_stack = self._colocation_stack + ([op] if op is not None else [])
        # The device of the innermost colocated op that has one (Graph._create_op_helper's `is_device_set`).
        device = next((o.device for o in reversed(self._colocation_stack) if o.device), "")
        fields = parse_device(device) if op is not None and device else {}
        self._device_stack = [(fields, device_string(fields))]
        try:
            yield
        finally:
            self._device_stack, self._colocation_stack = old_devices, old_colocation

    def _scoped_device(self, device_name):
        """The device an op made in `with self.device(device_name)` gets (its request merged over the enclosing
        scopes), without opening the scope: what a copy of an op with that request is placed on. Cached per
        (enclosing device, request), as a graph copy asks for the same few over and over."""
        key = (self._current_device(), device_name)
        device = self._merged_devices.get(key)
        if device is None:
            device = self._merged_devices[key] = device_string({**self._device_fields(), **parse_device(device_name)})
        return device

    def _device_fields(self):
        return self._device_stack[-1][0] if self._device_stack else {}

    def _current_device(self):
        """The device string of the innermost scope (TensorFlow's `_apply_device_functions`, merged once per scope)."""
        return self._device_stack[-1][1] if self._device_stack else ""

    def _get_control_flow_context(self):
        return self._control_flow_context

    def _set_control_flow_context(self, ctx):
        self._control_flow_context = ctx

    @contextlib.contextmanager
    def as_default(self):
        """Make this the default graph for the `with` block (TensorFlow's `Graph.as_default`): ops built in
        the block go into it. Graphs nest as a stack."""
        _default_graph_stack.append(self)
        try:
            yield self
        finally:
            _default_graph_stack.pop()

    # --- collections ------------------------------------------------------------------
    def add_to_collection(self, name, value):
        """Append `value` to the named collection (TensorFlow's `Graph.add_to_collection`), e.g. the
        variables `global_variables_initializer` initializes."""
        self._collections.setdefault(name, []).append(value)

    def get_collection(self, name, scope=None):
        """A copy of the named collection, filtered by name prefix when `scope` is given (TensorFlow's
        `Graph.get_collection`)."""
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        return [i for i in items if getattr(i, "name", "").startswith(scope)]

    def get_collection_ref(self, name):
        """The named collection itself, for in-place changes (TensorFlow's
        `Graph.get_collection_ref`)."""
        return self._collections.setdefault(name, [])

    # --- the function library (functional If/While bodies) ---------------------------------
    def _add_function(self, func_graph):
        self._functions[func_graph.name] = func_graph

    @property
    def functions(self):
        """The graph's function library: name to FuncGraph, the bodies and branches of its functional While
        and If ops (TensorFlow keeps them in the GraphDef's `library`)."""
        return dict(self._functions)

    # --- creating ops -----------------------------------------------------------------------
    def create_op(self, op_type, inputs, attrs=None, name=None, compute_device=True):
        """Create an op of `op_type` reading `inputs` (TensorFlow's `Graph._create_op_internal`). Its name is
        `name` made unique in the graph, or the op type made unique; a name ending in "/" (a name scope's own
        name) is taken as it is. It is placed by the current device scope, then `_add_op` registers it."""
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError(f"Input to {op_type} must be a Tensor, got {t!r}")
            if t._op._graph is not self:
                raise ValueError(f"Tensor {t.name} must be from the same graph as the op '{name}' being "
                                 f"created (graphs are {t.graph!r} and {self!r}).")
        if name is None:
            name = self.unique_name(op_type)
        elif name.endswith("/"):
            name = name[:-1]
        else:
            name = self.unique_name(name)
        op = Operation(self, op_type, name, inputs, attrs, self._current_device() if compute_device else "")
        return self._add_op(op, inputs)

    def _create_op_copy(self, op, inputs, name, device):
        """A copy of `op` (of another graph) reading `inputs`, named exactly `name` (already reserved), on `device`:
        its attrs, output dtypes and shapes are `op`'s, not inferred again, as TensorFlow's `CopyGraph` copies a
        NodeDef with its shapes. Lowering and the optimizer copy most of the ops they make this way."""
        copy = Operation(self, op._type, name, inputs, op._attrs, device,
                         [(t._dtype, t._shape) for t in op._outputs])
        return self._add_op(copy, inputs)

    def _add_op(self, op, inputs):
        """Register a new op: its colocation group, its name, the enclosing control dependencies, and its
        control-flow context's post-processing (TensorFlow's `_create_op_helper`)."""
        name = op._name
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


# --- what the layers above lend the framework -----------------------------------------------
# Each is registered at import time by the layer that owns it, so the framework never imports
# upward (as TensorFlow's tensor_conversion_registry and register_dense_tensor_like_type do).
_graph_def_exporter = []     # cfnb.graph_def: Graph.as_graph_def
_input_context_checks = []   # cfnb.ops.control_flow_util: may this op read that input?


def register_graph_def_exporter(fn):
    """`fn(graph, add_shapes=False) -> GraphDef`, called by `Graph.as_graph_def`."""
    _graph_def_exporter[:] = [fn]


def register_input_context_check(fn):
    """`fn(op, input_op)`, raising ValueError when `op` may not read `input_op`'s output
    (TensorFlow's `control_flow_util.CheckInputFromValidContext`), called for every new op."""
    if fn not in _input_context_checks:
        _input_context_checks.append(fn)


def _refuse_operation(op, dtype=None, name=None):
    raise TypeError(f"Can't convert Operation '{op.name}' to Tensor (target dtype={dtype}, name={name!r}, "
                    f"as_ref=False)")


# --- the default graph ----------------------------------------------------------------------
_default_graph_stack = []
_global_default_graph = [Graph()]


def get_default_graph():
    """The graph new ops go into (TensorFlow's `tf.compat.v1.get_default_graph`): the innermost
    `Graph.as_default`, else the global default graph."""
    return _default_graph_stack[-1] if _default_graph_stack else _global_default_graph[0]


def reset_default_graph():
    """Replace the global default graph by an empty one (TensorFlow's `reset_default_graph`),
    refused inside a `with graph.as_default()`, with TensorFlow's message."""
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
    """`tf.control_dependencies`: the default graph's `Graph.control_dependencies`."""
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name):
    """`tf.device`: the default graph's `Graph.device`."""
    return get_default_graph().device(device_name)


def colocate_with(op, ignore_existing=False):
    """`tf.compat.v1.colocate_with(op)` on the default graph."""
    return get_default_graph().colocate_with(op, ignore_existing)


register_tensor_conversion_function(Operation, _refuse_operation)
