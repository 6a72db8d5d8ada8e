"""The five primitives and the contexts that place ops in a cond branch or a loop body (TensorFlow's
`control_flow_ops.py`).

Primitives: Switch, Merge, Enter, Exit, NextIteration (+ LoopCond, ControlTrigger). Their kernels
are identities; what makes them control flow is how the executor propagates their outputs
(`cfnb/runtime/executor.py`).

Contexts: a `ControlFlowContext` is what an op learns about the cond branch or loop body it is
built in (`op._control_flow_context`). `CondContext` routes every tensor a branch uses from
outside through a Switch on the predicate. Its sibling `WhileContext` is in `while_context.py`, and
the two builders made of them are `cond.py` and `while_loop.py`, as TensorFlow 2.x split its own
`control_flow_ops.py` (`cond.py`, `while_loop.py`).
"""
import numpy as np

from ..framework import build_journal, dtypes, nest
from ..framework.indexed_slices import IndexedSlices
from ..framework.ops import Operation, Tensor, convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops
from . import control_flow_util as util
from .array_ops import identity

# ---------------------------------------------------------------------------------------------
# primitives


def _check_pred(op, pred):
    if pred.dtype != dtypes.bool_:
        raise TypeError(f"Input 'pred' of 'Switch' Op has type {pred.dtype.name} that does not match expected "
                        f"type of bool.")
    if pred.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {pred.shape.ndims} for '{op.name}' (op: 'Switch') "
                         f"with input shapes: {op._inputs[0].shape}, {pred.shape}.")


def _switch_infer(op):
    data, pred = op._inputs
    _check_pred(op, pred)
    return [(data.dtype, data.shape), (data.dtype, data.shape)]


def _merge_infer(op):
    xs = op._inputs
    shape = xs[0].shape
    for x in xs[1:]:
        if x.dtype != xs[0].dtype:
            raise TypeError(f"Merge '{op.name}': all inputs must have the same dtype, got {xs[0].dtype.name} "
                            f"and {x.dtype.name}.")
        shape = shape.most_specific_compatible_shape(x.shape)
    return [(xs[0].dtype, shape), (dtypes.int32, TensorShape([]))]


def _loop_cond_infer(op):
    x = op._inputs[0]
    if x.dtype != dtypes.bool_:
        raise TypeError(f"Input 'input' of 'LoopCond' Op has type {x.dtype.name} that does not match expected "
                        f"type of bool.")
    if x.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {x.shape.ndims} for '{op.name}' (op: 'LoopCond') "
                         f"with input shapes: {x.shape}.")
    return [(dtypes.bool_, TensorShape([]))]


def _identity_kernel(op):
    return lambda x: x


# The executor special-cases Switch and Merge; these kernels document what they compute.
register_op("Switch", _switch_infer, lambda op: lambda data, pred: (None, data) if pred else (data, None),
            multi_output=True)
register_op("Merge", _merge_infer,
            lambda op: lambda *xs: next((x, np.int32(k)) for k, x in enumerate(xs) if x is not None),
            multi_output=True)
register_op("Enter", lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], _identity_kernel)
register_op("Exit", lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], _identity_kernel)
register_op("NextIteration", lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], _identity_kernel)
register_op("LoopCond", _loop_cond_infer, _identity_kernel)
register_op("ControlTrigger", lambda op: [], lambda op: lambda *a: None)


def switch(data, pred, name=None):
    """`(output_false, output_true)`: `data` goes to output 1 if `pred`, else to output 0; the
    other output is a dead tensor."""
    if isinstance(data, IndexedSlices):
        return _switch_indexed_slices(data, pred, name)
    g = get_default_graph()
    with g.name_scope(name or "Switch") as scope:
        data = convert_to_tensor(data, name="data")
        pred = convert_to_tensor(pred, name="pred")
        op = g.create_op("Switch", [data, pred], name=scope)
    return op.outputs[0], op.outputs[1]


def merge(inputs, name=None):
    """`(output, value_index)`: forwards whichever input arrives live first."""
    if any(isinstance(t, IndexedSlices) for t in inputs):
        return _merge_indexed_slices(inputs, name)
    g = get_default_graph()
    inputs = [convert_to_tensor(t) for t in inputs]
    op = g.create_op("Merge", inputs, {"N": len(inputs)}, name=name or "Merge")
    return op.outputs[0], op.outputs[1]


def _switch_indexed_slices(data, pred, name):
    """An IndexedSlices is switched component by component, as TensorFlow's `switch` does."""
    with get_default_graph().name_scope(name or "Switch"):
        parts = [switch(t, pred, name=n) if t is not None else (None, None)
                 for t, n in ((data.values, None), (data.indices, "indices"), (data.dense_shape, "dense_shape"))]
    return tuple(IndexedSlices(*(p[k] for p in parts)) for k in (0, 1))


def _merge_indexed_slices(inputs, name):
    """IndexedSlices inputs (a dense one taken as all its rows) merge component by component (TensorFlow's
    `merge`): values, then indices and dense_shape."""
    with get_default_graph().name_scope(name or "Merge") as scope:
        slices = [t if isinstance(t, IndexedSlices) else as_indexed_slices(convert_to_tensor(t)) for t in inputs]
        values, chosen = merge([s.values for s in slices], name=scope)
        indices, _ = merge([s.indices for s in slices], name="indices")
        shapes = [s.dense_shape for s in slices]
        dense_shape = merge(shapes, name="dense_shape")[0] if all(d is not None for d in shapes) else None
    return IndexedSlices(values, indices, dense_shape), chosen


def as_indexed_slices(t):
    """A dense tensor as the IndexedSlices of all its rows (TensorFlow's `_as_indexed_slices`)."""
    dense_shape = array_ops.shape(t)
    return IndexedSlices(t, array_ops.range(0, dense_shape[0]), dense_shape)


def enter(data, frame_name, is_constant=False, parallel_iterations=10, use_input_shape=True, name=None):
    """Move `data` into child frame `frame_name` (a constant Enter is replayed into every iteration)."""
    g = get_default_graph()
    data = convert_to_tensor(data)
    op = g.create_op("Enter", [data], {"frame_name": frame_name, "is_constant": bool(is_constant),
                                       "parallel_iterations": int(parallel_iterations)}, name=name or "Enter")
    if not use_input_shape:
        op._outputs[0]._shape = TensorShape(None)
    return op.outputs[0]


def exit(data, name=None):  # noqa: A001 - TensorFlow's name
    """An Exit node (TensorFlow's `control_flow_ops.exit`): makes a loop variable's last value available to the
    frame outside. Only a live token reaches it: the one that arrives when the loop's predicate is false."""
    return get_default_graph().create_op("Exit", [convert_to_tensor(data)], name=name or "Exit").outputs[0]


def next_iteration(data, name=None):
    """A NextIteration node (TensorFlow's `control_flow_ops._NextIteration`): the back edge of a loop; its
    token goes into the next iteration of the same frame, to the loop Merge's second input."""
    return get_default_graph().create_op("NextIteration", [convert_to_tensor(data)],
                                         name=name or "NextIteration").outputs[0]


def loop_cond(input, name=None):
    """A LoopCond node (gen_control_flow_ops' `loop_cond`): the loop's predicate, marked so that the executor
    and the partitioner know which boolean decides whether the frame runs another iteration."""
    return get_default_graph().create_op("LoopCond", [convert_to_tensor(input)], name=name or "LoopCond").outputs[0]


def control_trigger(name=None):
    """A ControlTrigger (TensorFlow's `control_flow_ops.control_trigger`): a NoOp that runs even when its
    control inputs are dead, so that something can wait on a branch that may not have run."""
    return get_default_graph().create_op("ControlTrigger", [], name=name or "ControlTrigger")


def group(*inputs, name=None):
    """A NoOp that runs after all `inputs`."""
    g = get_default_graph()
    ops = []
    for x in nest.flatten(list(inputs)):
        if x is None:
            continue
        ops.append(x.op if isinstance(x, Tensor) else x)
    with g.control_dependencies(ops):
        return g.create_op("NoOp", [], name=name or "group_deps")


def with_dependencies(dependencies, output_tensor, name=None):
    """`output_tensor` passed through an Identity that runs only after `dependencies` (TensorFlow's
    `control_flow_ops.with_dependencies`): the way to order a value after side effects in graph mode; an IndexedSlices
    gates its values. The Identity is colocated with `output_tensor` (its device, not the enclosing scope's), as
    TensorFlow's is."""
    g = get_default_graph()
    with g.name_scope(name or "control_dependency") as scope:
        if not isinstance(output_tensor, IndexedSlices) and not hasattr(output_tensor, "op"):
            output_tensor = convert_to_tensor(output_tensor)  # a Python value: its Const is what is colocated with
        with g.colocate_with(output_tensor.values if isinstance(output_tensor, IndexedSlices) else output_tensor), \
                g.control_dependencies(dependencies):
            if isinstance(output_tensor, IndexedSlices):
                return IndexedSlices(identity(output_tensor.values, name=scope), output_tensor.indices,
                                     output_tensor.dense_shape)
            output_tensor = convert_to_tensor(output_tensor)
            return identity(output_tensor, name=scope)


def tuple_(tensors, name=None, control_inputs=None):
    """`tf.tuple`: the tensors, each gated on all of them having been computed."""
    g = get_default_graph()
    with g.name_scope(name or "tuple"):
        gating = group(*[t for t in tensors if t is not None], *(control_inputs or []), name="group_deps")
        return [None if t is None else with_dependencies([gating], t) for t in tensors]


# ---------------------------------------------------------------------------------------------
# contexts


class ControlFlowContext:
    """What a `cond` branch or a `while_loop` body knows while its ops are being built.

    `AddOp` is called for every op created inside the context; `AddValue` maps a tensor from
    outside to the tensor to use inside (a Switch output for a cond, a constant Enter for a loop).
    """

    def __init__(self):
        self._outer_context = get_default_graph()._get_control_flow_context()
        self._context_stack = []
        self._values = set()
        self._external_values = {}

    outer_context = property(lambda self: self._outer_context)

    def IsWhileContext(self):  # noqa: N802
        """Whether this is a loop's context (TensorFlow's `IsWhileContext`): the
        executor-facing rules (Enter, pivots, stacks) differ for loops and conds."""
        return False

    def IsCondContext(self):  # noqa: N802
        """Whether this is a cond branch's context (TensorFlow's `IsCondContext`)."""
        return False

    def GetWhileContext(self):  # noqa: N802
        """The innermost loop this context is in, or None (TensorFlow's
        `GetWhileContext`): a cond inside a loop answers with the loop, so its values are stacked per iteration."""
        return self._outer_context.GetWhileContext() if self._outer_context else None

    def GetControlPivot(self):  # noqa: N802
        """The tensor every op of the context hangs on when it has no input of its own
        (TensorFlow's `GetControlPivot`): a branch's pivot or a loop's pivot; None outside control flow."""
        return None

    def AddInnerOp(self, op):  # noqa: N802
        """Tell the enclosing contexts about an op created in a nested one (TensorFlow's
        `AddInnerOp`): a loop must know every op inside it, however deeply nested, to find its external inputs."""
        if self._outer_context:
            self._outer_context.AddInnerOp(op)

    def Enter(self):  # noqa: N802
        """Make this the graph's current control-flow context (TensorFlow's
        `ControlFlowContext.Enter`): every op created until `Exit` is added to it by `Graph.create_op`."""
        build_journal.note(self)  # a gradient adds to a forward context: a failed one is undone (build_journal.py)
        graph = get_default_graph()
        self._context_stack.append(graph._get_control_flow_context())
        graph._set_control_flow_context(self)

    def Exit(self):  # noqa: N802
        """Restore the context that was current before `Enter` (TensorFlow's
        `ControlFlowContext.Exit`)."""
        build_journal.note(self)
        get_default_graph()._set_control_flow_context(self._context_stack.pop())

    def ExitResult(self, result):  # noqa: N802
        """Make the results known to the outer context (they are used there)."""
        if self._outer_context:
            for x in nest.flatten(result):
                self._outer_context.AddName(x.name)

    def AddName(self, name):  # noqa: N802
        """Record a tensor name as already available in this context (TensorFlow's
        `AddName`), so that `AddValue` does not wrap it in another Switch or Enter."""
        build_journal.note(self)
        self._values.add(name)

    def _RemoveExternalControlEdges(self, op):  # noqa: N802
        """Split control inputs into those in this loop and those from outside it."""
        while_ctxt = self.GetWhileContext()
        if while_ctxt is None:
            return op.control_inputs, []
        internal, external = [], []
        for x in op.control_inputs:
            ctxt = util.GetOutputContext(x)
            if ctxt is not None and ctxt.GetWhileContext() is while_ctxt:
                internal.append(x)
            else:
                external.append(x)
        if len(internal) != len(op.control_inputs):
            op._remove_all_control_inputs()
            op._add_control_inputs(internal)
        return internal, external


class CondContext(ControlFlowContext):
    """One branch of a v1 `cond`: ops inside are guarded by the branch's pivot."""

    def __init__(self, pred, pivot, branch, name="cond_text"):
        super().__init__()
        self._name = get_default_graph().unique_name(name)
        self._pred = pred
        self._pivot = pivot
        self._branch = branch
        self._values.add(pred.name)
        self._external_values[pred.name] = pred
        self._values.add(pivot.name)
        pivot.op._control_flow_context = self

    name = property(lambda self: self._name)
    pred = property(lambda self: self._pred)
    pivot = property(lambda self: self._pivot)
    branch = property(lambda self: self._branch)

    def IsCondContext(self):  # noqa: N802
        return True

    def GetControlPivot(self):  # noqa: N802
        return self._pivot

    def AddValue(self, val):  # noqa: N802
        """Bring a tensor from outside the cond into this branch (TensorFlow's `CondContext.AddValue`): a Switch
        on the cond's predicate whose output for this branch stands in for `val`, so that when the branch is
        not taken the value arrives dead and nothing in the branch runs. One Switch per value and branch
        (cached in `_external_values`); a nested cond first asks its outer context."""
        build_journal.note(self)
        if val.name in self._values:
            result = self._external_values.get(val.name)
            return val if result is None else result
        result = val
        self._values.add(val.name)
        if self._outer_context:
            result = self._outer_context.AddValue(val)
            self._values.add(result.name)
            self._external_values[result.name] = result
        g = get_default_graph()
        with g.control_dependencies(None):
            result = switch(result, self._pred)[self._branch]
            if self._outer_context:
                self._outer_context.AddInnerOp(result.op)
        result.op._control_flow_context = self
        self._values.add(result.name)
        self._external_values[val.name] = result
        return result

    def AddOp(self, op):  # noqa: N802
        """Called by `Graph.create_op` for each op built in the branch (TensorFlow's
        `CondContext.AddOp`)."""
        self._AddOpInternal(op)

    def _AddOpInternal(self, op):  # noqa: N802
        """Route each input of `op` into the branch (a Switch per outside tensor); a WhileContext calls this
        directly when it moves a gradient's Shape/Size/Rank next to its forward input in a branch."""
        build_journal.note(self)
        if not op.inputs:
            self._RemoveExternalControlEdges(op)
            if not any(_op_in_context(c, self) for c in op.control_inputs):
                op._add_control_input(self._pivot.op)
        else:
            for index, x in enumerate(op.inputs):
                if op.type == "Merge" and x.op.type == "NextIteration":
                    real_x = x
                else:
                    real_x = self.AddValue(x)
                if real_x is not x:
                    op._update_input(index, real_x)
            self._RemoveExternalControlEdges(op)
        ctxt = self
        while ctxt is not None:
            build_journal.note(ctxt)
            ctxt._values.update(t.name for t in op.outputs)
            ctxt = ctxt._outer_context
        if self._outer_context:
            self._outer_context.AddInnerOp(op)

    def _ProcessOutputTensor(self, val):  # noqa: N802
        """A branch output that was made outside the branch (`lambda: x`) still needs a Switch."""
        build_journal.note(self)
        real_val = val
        if val.name not in self._values:
            self._values.add(val.name)
            if self._outer_context:
                real_val = self._outer_context.AddValue(val)
                self._values.add(real_val.name)
                self._external_values[real_val.name] = real_val
            real_val = switch(real_val, self._pred)[self._branch]
            self._external_values[val.name] = real_val
        else:
            external_val = self._external_values.get(val.name)
            if external_val is not None:
                real_val = external_val
        return real_val

    def BuildCondBranch(self, fn):  # noqa: N802
        """Call the branch function inside this context and route its results out
        (TensorFlow's `CondContext.BuildCondBranch`): every result becomes a tensor of this branch (a value from
        outside gets its Switch), ready for the cond's Merge. Returns the structured and the flat results."""
        original_result = fn()
        if original_result is None:
            return None, None
        # An Operation result (a no_op, a group) stands for the branch's pivot, run after it, as
        # TensorFlow's _BuildCondTensor arranges: the cond then yields the predicate's value.
        original_result = nest.map_structure(
            lambda v: with_dependencies([v], self._pivot) if isinstance(v, Operation) else v, original_result)
        flat = [to_flow_tensor(v) for v in nest.flatten(original_result, expand_composites=True)]
        result = [self._ProcessOutputTensor(v) for v in flat]
        return original_result, result


def _op_in_context(op, ctxt):
    return util.IsContainingContext(op._control_flow_context, ctxt)


def to_flow_tensor(v):
    """A TensorArray travels through control flow as its scalar `flow` tensor."""
    if hasattr(v, "_flow_for_control_flow"):
        return v._flow_for_control_flow()
    if isinstance(v, Operation):
        raise TypeError(f"A branch or loop body returned the Operation '{v.name}'; return tensors (wrap it "
                        f"with cfnb.control_dependencies and cfnb.identity).")
    return convert_to_tensor(v)


def from_flow_tensor(original, flow):
    """The value a loop or cond gives back for `original` once its flow went through control flow:
    a TensorArray is rebuilt around its new `flow` (TensorFlow's `_convert_flow_to_tensorarray`), a tensor is
    itself."""
    if hasattr(original, "_with_new_flow"):
        return original._with_new_flow(flow)
    return flow


def unpack_if_singleton(res):
    """A one-element list or tuple as its element (TensorFlow's `_UnpackIfSingleton`): a
    non-strict `cond` returns `x`, not `[x]`, for a branch that returns `[x]`."""
    if isinstance(res, (list, tuple)) and len(res) == 1:
        return res[0]
    return res


def check_cond_pred(pred, label):
    """Refuse a predicate that is not a boolean scalar at build time, naming the cond, with the message
    TensorFlow gives when its Switch is built; a predicate of unknown rank is checked when it runs."""
    if pred.dtype != dtypes.bool_:
        raise TypeError(f"cond '{label}': the predicate {pred.name} must be a boolean tensor, but has dtype "
                        f"{pred.dtype.name} (TensorFlow: Input 'pred' of 'Switch' Op has type {pred.dtype.name} "
                        f"that does not match expected type of bool).")
    if pred.shape.ndims not in (None, 0):
        raise ValueError(f"cond '{label}': the predicate {pred.name} must be a scalar, but has shape {pred.shape} "
                         f"(TensorFlow: Shape must be rank 0 but is rank {pred.shape.ndims} for '{label}/Switch'). "
                         f"Reduce it first, e.g. with cfnb.reduce_all or cfnb.reduce_any.")
