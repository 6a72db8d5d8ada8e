"""The five primitives and the two v1 builders made of them (TensorFlow's `control_flow_ops.py`).

Primitives: Switch, Merge, Enter, Exit, NextIteration (+ LoopCond, ControlTrigger). Their kernels
are identities; what makes them control flow is how the executor propagates their outputs
(`cfnb/runtime/executor.py`).

Builders: `cond` (a CondContext per branch: every tensor a branch uses from outside goes through a
Switch on the predicate; one Merge per output) and `while_loop` (a WhileContext: per loop var
Enter -> Merge -> cond -> LoopCond -> Switch -> Identity -> body -> NextIteration, and Exit on the
Switch's false side; a tensor captured from outside enters through one constant Enter). Both are
written to emit the same nodes, with the same names, as `tf.compat.v1` does.
"""
import numpy as np

from ..framework import dtypes, nest
from ..framework.ops import Operation, Tensor, convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape, as_shape
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
    g = get_default_graph()
    with g.name_scope(name or "Switch") as scope:
        data = convert_to_tensor(data, name="data")
        pred = convert_to_tensor(pred, name="pred")
        op = g.create_op("Switch", [data, pred], name=scope)
    return op.outputs[0], op.outputs[1]


def merge(inputs, name=None):
    """`(output, value_index)`: forwards whichever input arrives live first."""
    g = get_default_graph()
    inputs = [convert_to_tensor(t) for t in inputs]
    op = g.create_op("Merge", inputs, {"N": len(inputs)}, name=name or "Merge")
    return op.outputs[0], op.outputs[1]


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
    return get_default_graph().create_op("Exit", [convert_to_tensor(data)], name=name or "Exit").outputs[0]


def next_iteration(data, name=None):
    return get_default_graph().create_op("NextIteration", [convert_to_tensor(data)],
                                         name=name or "NextIteration").outputs[0]


def loop_cond(input, name=None):
    return get_default_graph().create_op("LoopCond", [convert_to_tensor(input)], name=name or "LoopCond").outputs[0]


def control_trigger(name=None):
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
    g = get_default_graph()
    with g.name_scope(name or "control_dependency") as scope:
        with g.control_dependencies(dependencies):
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
        return False

    def IsCondContext(self):  # noqa: N802
        return False

    def GetWhileContext(self):  # noqa: N802
        return self._outer_context.GetWhileContext() if self._outer_context else None

    def GetControlPivot(self):  # noqa: N802
        return None

    def AddInnerOp(self, op):  # noqa: N802
        if self._outer_context:
            self._outer_context.AddInnerOp(op)

    def Enter(self):  # noqa: N802
        graph = get_default_graph()
        self._context_stack.append(graph._get_control_flow_context())
        graph._set_control_flow_context(self)

    def Exit(self):  # noqa: N802
        get_default_graph()._set_control_flow_context(self._context_stack.pop())

    def ExitResult(self, result):  # noqa: N802
        """Make the results known to the outer context (they are used there)."""
        if self._outer_context:
            for x in nest.flatten(result):
                self._outer_context.AddName(x.name)

    def AddName(self, name):  # noqa: N802
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
            ctxt._values.update(t.name for t in op.outputs)
            ctxt = ctxt._outer_context
        if self._outer_context:
            self._outer_context.AddInnerOp(op)

    def _ProcessOutputTensor(self, val):  # noqa: N802
        """A branch output that was made outside the branch (`lambda: x`) still needs a Switch."""
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
        original_result = fn()
        if original_result is None:
            return None, None
        # An Operation result (a no_op, a group) stands for the branch's pivot, run after it, as
        # TensorFlow's _BuildCondTensor arranges: the cond then yields the predicate's value.
        original_result = nest.map_structure(
            lambda v: with_dependencies([v], self._pivot) if isinstance(v, Operation) else v, original_result)
        flat = [_to_flow_tensor(v) for v in nest.flatten(original_result)]
        result = [self._ProcessOutputTensor(v) for v in flat]
        return original_result, result


def _op_in_context(op, ctxt):
    return util.IsContainingContext(op._control_flow_context, ctxt)


def _to_flow_tensor(v):
    """A TensorArray travels through control flow as its scalar `flow` tensor."""
    if hasattr(v, "_flow_for_control_flow"):
        return v._flow_for_control_flow()
    if isinstance(v, Operation):
        raise TypeError(f"A branch or loop body returned the Operation '{v.name}'; return tensors (wrap it "
                        f"with cfnb.control_dependencies and cfnb.identity).")
    return convert_to_tensor(v)


def _from_flow_tensor(original, flow):
    if hasattr(original, "_with_new_flow"):
        return original._with_new_flow(flow)
    return flow


def _unpack_if_singleton(res):
    if isinstance(res, (list, tuple)) and len(res) == 1:
        return res[0]
    return res




def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """`true_fn()` if `pred` else `false_fn()`, built with Switch/Merge (control flow v1) or as one
    `If` op (control flow v2). The predicate must be a scalar boolean tensor. `fn1`/`fn2` are the
    deprecated names of `true_fn`/`false_fn`, accepted as tf.compat.v1.cond accepts them."""
    from . import cond_v2, control_flow_v2_toggles
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    if true_fn is None or not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if false_fn is None or not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if isinstance(pred, (bool, np.bool_)):
        raise TypeError("'pred' must not be a Python bool. A cond on a Python value is an ordinary `if`; "
                        "use a boolean tensor (e.g. cfnb.constant(True)) to build a cond.")
    g = get_default_graph()
    if control_flow_v2_toggles.control_flow_v2_enabled() or g.building_function:
        return cond_v2.cond_v2(pred, true_fn, false_fn, strict=strict, name=name)
    with g.name_scope(name or "cond") as scope:
        label = scope[:-1]
        pred = convert_to_tensor(pred, name="pred")
        _check_cond_pred(pred, label)
        p_2, p_1 = switch(pred, pred)
        pivot_1 = identity(p_1, name="switch_t")
        pivot_2 = identity(p_2, name="switch_f")
        pred = identity(pred, name="pred_id")
        for t in (p_1, pivot_1, pivot_2, pred):  # inside the cond, as TensorFlow marks them
            g.prevent_fetching(t.op)

        context_t = CondContext(pred, pivot_1, branch=1)
        try:
            context_t.Enter()
            orig_res_t, res_t = context_t.BuildCondBranch(true_fn)
            if orig_res_t is None:
                raise ValueError(f"cond '{label}': 'true_fn' must have a return value.")
            context_t.ExitResult(res_t)
        finally:
            context_t.Exit()
        context_f = CondContext(pred, pivot_2, branch=0)
        try:
            context_f.Enter()
            orig_res_f, res_f = context_f.BuildCondBranch(false_fn)
            if orig_res_f is None:
                raise ValueError(f"cond '{label}': 'false_fn' must have a return value.")
            context_f.ExitResult(res_f)
        finally:
            context_f.Exit()

        if not strict:
            orig_res_t = _unpack_if_singleton(orig_res_t)
            orig_res_f = _unpack_if_singleton(orig_res_f)
        try:
            nest.assert_same_structure(orig_res_t, orig_res_f)
        except ValueError as e:
            raise ValueError(f"cond '{label}': true_fn and false_fn must return the same structure.\n{e}") from None
        for i, (x, y) in enumerate(zip(res_t, res_f)):
            if x.dtype != y.dtype:
                raise ValueError(f"cond '{label}': Outputs of 'true_fn' and 'false_fn' must have the same type(s). "
                                 f"Received {x.dtype.name} from 'true_fn' and {y.dtype.name} from 'false_fn' "
                                 f"(output #{i}).")
        merges = [merge([f, t])[0] for f, t in zip(res_f, res_t)]
        flat_orig = nest.flatten(orig_res_t)
        merges = [_from_flow_tensor(o, m) for o, m in zip(flat_orig, merges)]
        merges = nest.pack_sequence_as(orig_res_t, merges)
        if not strict:
            merges = _unpack_if_singleton(merges)
        return merges


def _check_cond_pred(pred, label):
    if pred.dtype != dtypes.bool_:
        raise TypeError(f"cond '{label}': the predicate {pred.name} must be a boolean tensor, but has dtype "
                        f"{pred.dtype.name} (TensorFlow: Input 'pred' of 'Switch' Op has type {pred.dtype.name} "
                        f"that does not match expected type of bool).")
    if pred.shape.ndims not in (None, 0):
        raise ValueError(f"cond '{label}': the predicate {pred.name} must be a scalar, but has shape {pred.shape} "
                         f"(TensorFlow: Shape must be rank 0 but is rank {pred.shape.ndims} for '{label}/Switch'). "
                         f"Reduce it first, e.g. with cfnb.reduce_all or cfnb.reduce_any.")


# ---------------------------------------------------------------------------------------------
# while_loop


class WhileContext(ControlFlowContext):
    """The loop being built: frame name, pivots, and the map from outside tensors to their Enters."""

    def __init__(self, maximum_iterations=None, parallel_iterations=10, back_prop=True, swap_memory=False,
                 name="while_context", grad_state=None):
        super().__init__()
        self._name = get_default_graph().unique_name(name)
        self._maximum_iterations = maximum_iterations
        self._parallel_iterations = parallel_iterations
        self._back_prop = back_prop
        self._swap_memory = swap_memory
        self._pivot_for_pred = None
        self._pivot_for_body = None
        self._pivot = None
        self._loop_exits = []
        self._loop_enters = []
        self._grad_state = grad_state
        self._graph = get_default_graph()
        self.label = self._name.rsplit("/", 1)[0]  # the loop's name scope, used in error messages

    name = property(lambda self: self._name)
    maximum_iterations = property(lambda self: self._maximum_iterations)
    parallel_iterations = property(lambda self: self._parallel_iterations)
    back_prop = property(lambda self: self._back_prop)
    swap_memory = property(lambda self: self._swap_memory)
    pivot = property(lambda self: self._pivot)
    loop_exits = property(lambda self: self._loop_exits)
    loop_enters = property(lambda self: self._loop_enters)
    grad_state = property(lambda self: self._grad_state)

    def IsWhileContext(self):  # noqa: N802
        return True

    def GetWhileContext(self):  # noqa: N802
        return self

    def GetControlPivot(self):  # noqa: N802
        return self._pivot_for_body if self._pivot_for_body is not None else self._pivot_for_pred

    def AddValue(self, val):  # noqa: N802
        """A tensor from outside the loop enters through one constant Enter (cached)."""
        result = val
        new_value = val.name not in self._values and val.op._control_flow_context is not self
        if new_value:
            self._values.add(val.name)
            grad_ctxt = get_default_graph()._get_control_flow_context()
            if grad_ctxt:
                grad_ctxt = grad_ctxt.GetWhileContext()
                if grad_ctxt is not None and grad_ctxt.grad_state:
                    forward_ctxt = util.GetWhileContext(val.op)
                    if util.IsLoopExit(val.op):
                        forward_ctxt = forward_ctxt.outer_context
                        if forward_ctxt:
                            forward_ctxt = forward_ctxt.GetWhileContext()
                    if forward_ctxt is grad_ctxt.grad_state.forward_context:
                        real_val = grad_ctxt.grad_state.GetRealValue(val)
                        self._external_values[val.name] = real_val
                        return real_val
            if self._outer_context is not None:
                result = self._outer_context.AddValue(val)
            g = get_default_graph()
            with g.control_dependencies(None):
                enter_t = enter(result, self._name, is_constant=True, parallel_iterations=self._parallel_iterations)
                if self._outer_context:
                    self._outer_context.AddInnerOp(enter_t.op)
            self._FixControlInputsAndContext([enter_t])
            self._values.add(enter_t.name)
            self._external_values[val.name] = enter_t
            result = enter_t
        else:
            actual_val = self._external_values.get(val.name)
            if actual_val is not None:
                result = actual_val
        return result

    def AddOp(self, op):  # noqa: N802
        if op.type in ("Shape", "Size", "Rank"):
            # In a gradient loop, the shape of a forward value is computed in the forward loop, so
            # only the small result is stacked (TensorFlow's WhileContext.AddOp).
            grad_ctxt = get_default_graph()._get_control_flow_context()
            if grad_ctxt:
                grad_ctxt = grad_ctxt.GetWhileContext()
                if grad_ctxt is not None and grad_ctxt.grad_state:
                    op_input_forward_ctxt = util.GetWhileContext(op.inputs[0].op)
                    if op_input_forward_ctxt is grad_ctxt.grad_state.forward_context:
                        op_input_ctxt = op.inputs[0].op._control_flow_context
                        op._control_flow_context = op_input_ctxt
                        op_input_ctxt._AddOpInternal(op)
                        return
        self._AddOpInternal(op)

    def _AddOpInternal(self, op):  # noqa: N802
        if not op.inputs:
            internal, external = self._RemoveExternalControlEdges(op)
            if not internal:
                op._add_control_input(self.GetControlPivot().op)
        else:
            for index, x in enumerate(op.inputs):
                real_x = self.AddValue(x)
                if real_x is not x:
                    op._update_input(index, real_x)
            _, external = self._RemoveExternalControlEdges(op)
            self._MaybeAddControlDependency(op)
        self._values.update(t.name for t in op.outputs)
        if external:
            # Pull control inputs from outside the loop in as data, through an Identity in the loop.
            g = get_default_graph()
            with g.control_dependencies(None):
                self.Enter()
                external = [identity(x.outputs[0]).op for x in external if x.outputs]
                self.Exit()
            op._add_control_inputs(external)
        if self._outer_context:
            self._outer_context.AddInnerOp(op)

    def _MaybeAddControlDependency(self, op):  # noqa: N802
        """An op fed only by loop invariants would fire once for all iterations: pin it to the pivot."""
        if op.control_inputs:
            return
        if all(util.IsLoopConstantEnter(x.op) for x in op.inputs):
            op._add_control_input(self.GetControlPivot().op)

    def AddInnerOp(self, op):  # noqa: N802
        if self._outer_context:
            self._outer_context.AddInnerOp(op)

    def _FixControlInputsAndContext(self, enters):  # noqa: N802
        """Enters are built outside every `control_dependencies` block; give each the control inputs of the
        enclosing blocks that live in an ancestor context of this loop (not beyond the enclosing loop), so that
        the whole loop waits for them (TensorFlow's WhileContext._FixControlInputsAndContext)."""
        g = get_default_graph()
        outer_while = self._outer_context.GetWhileContext() if self._outer_context is not None else None
        for e in enters:
            control_inputs = g._control_dependencies_for_inputs({e.op.inputs[0].op})
            keep = []
            for c in control_inputs:
                c_ctxt, ctxt = util.GetOutputContext(c), self._outer_context
                while ctxt is not c_ctxt and ctxt is not None and ctxt is not outer_while:
                    ctxt = ctxt.outer_context
                if ctxt is c_ctxt:
                    keep.append(c)
            e.op._control_flow_context = self
            e.op._add_control_inputs([c for c in keep if c not in e.op.control_inputs])
            g._record_op_seen_by_control_dependencies(e.op)

    # --- what GradLoopState adds to loops (gradients of v1 while loops) ---------------------
    def AddForwardLoopCounter(self, outer_grad_state):  # noqa: N802
        """A counter in this (forward) loop: `f_count`, 0, 1, ..., exiting with the trip count.
        Returns (total iterations, the counter's NextIteration, which orders the stack pushes)."""
        from .array_ops import constant
        from .math_ops import add
        n = constant(0, dtypes.int32, name="f_count")
        if outer_grad_state is not None:
            # Pushes of the i-th execution of an inner loop come before those of the (i+1)-th.
            outer_add_op = outer_grad_state.forward_index.op.inputs[0].op
            n.op._add_control_input(outer_add_op)
        self.Enter()
        self.AddName(n.name)
        enter_n = enter(n, self._name, is_constant=False, parallel_iterations=self._parallel_iterations,
                        name="f_count")
        self._loop_enters.append(enter_n)
        merge_n = merge([enter_n, enter_n])[0]
        switch_n = switch(merge_n, self._pivot)
        index = add(switch_n[1], 1)
        next_n = next_iteration(index)
        merge_n.op._update_input(1, next_n)
        total_iterations = exit(switch_n[0], name="f_count")
        self._loop_exits.append(total_iterations)
        self.ExitResult([total_iterations])
        self.Exit()
        return total_iterations, next_n

    def AddBackpropLoopCounter(self, count, outer_grad_state):  # noqa: N802
        """This (gradient) loop's predicate: `b_count` counts `count` down to 0, so the gradient
        loop runs exactly as many iterations as the forward loop did."""
        from .array_ops import constant
        from .math_ops import greater_equal, subtract
        one = constant(1, dtypes.int32, name="b_count")
        self.Enter()
        self.AddName(count.name)
        enter_count = enter(count, self._name, is_constant=False, parallel_iterations=self._parallel_iterations,
                            name="b_count")
        self._loop_enters.append(enter_count)
        merge_count = merge([enter_count, enter_count])[0]
        self._pivot_for_pred = merge_count
        pred = greater_equal(merge_count, one)
        self._pivot = loop_cond(pred, name="b_count")
        switch_count = switch(merge_count, self._pivot)
        index = subtract(switch_count[1], one)
        self._pivot_for_body = index
        next_count = next_iteration(index)
        merge_count.op._update_input(1, next_count)
        final_zero = exit(switch_count[0], name="b_count")
        self._loop_exits.append(final_zero)
        if outer_grad_state is not None:
            # Pops of the i-th execution of an inner loop come before those of the (i+1)-th.
            outer_grad_state.grad_sync._add_control_input(final_zero.op)
        self.ExitResult([final_zero])
        self.Exit()
        return next_count

    def AddBackpropAccumulator(self, op, grad):  # noqa: N802
        """The gradient of a loop invariant (a constant Enter): the sum of its gradients over all
        iterations, as a running-sum loop variable `b_acc` of the gradient loop."""
        from .array_ops import constant, fill, shape
        from .math_ops import add
        self.Exit()
        grad_shape = grad.shape
        if grad_shape.is_fully_defined():
            if self.outer_context:
                self.outer_context.Enter()
            acc = constant(0, grad.dtype, shape=grad_shape.as_list(), name="b_acc")
            if self.outer_context:
                self.outer_context.Exit()
        else:
            value = op.inputs[0]
            if isinstance(self.outer_context, WhileContext) and self.outer_context.grad_state is not None:
                forward_ctxt = self.grad_state.forward_context
                forward_ctxt.outer_context.Enter()
                zeros_shape = shape(value)
                forward_ctxt.outer_context.Exit()
                outer_grad_state = self.grad_state.outer_grad_state
                history_zeros_shape = outer_grad_state.AddForwardAccumulator(zeros_shape)
                self.outer_context.Enter()
                real_shape = outer_grad_state.AddBackpropAccumulatedValue(history_zeros_shape, zeros_shape)
                acc = fill(real_shape, constant(0, dtype=grad.dtype))
                self.outer_context.Exit()
            else:
                if self.outer_context:
                    self.outer_context.Enter()
                acc = fill(shape(value), constant(0, dtype=grad.dtype))
                if self.outer_context:
                    self.outer_context.Exit()
        self.Enter()
        self.AddName(acc.name)
        enter_acc = enter(acc, self._name, is_constant=False, parallel_iterations=self._parallel_iterations,
                          name="b_acc")
        self._loop_enters.append(enter_acc)
        merge_acc = merge([enter_acc, enter_acc], name="b_acc")[0]
        switch_acc_false, switch_acc_true = switch(merge_acc, self._pivot)
        add_acc = add(switch_acc_true, grad)
        next_acc = next_iteration(add_acc)
        merge_acc.op._update_input(1, next_acc)
        result_acc = exit(switch_acc_false, name="b_acc")
        self._loop_exits.append(result_acc)
        self.ExitResult([result_acc])
        return result_acc

    # --- building --------------------------------------------------------------------------
    def BuildLoop(self, pred, body, loop_vars, shape_invariants, return_same_structure=False):  # noqa: N802
        flat_orig_loop_vars = nest.flatten(loop_vars)
        flat_loop_vars = [_to_flow_tensor(v) for v in flat_orig_loop_vars]
        if shape_invariants is not None:
            try:
                nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
            except ValueError as e:
                raise ValueError(f"while_loop '{self.label}': `shape_invariants` must have the structure of "
                                 f"`loop_vars`.\n{e}") from None
            flat_invariants = [None if s is None else as_shape(s) for s in nest.flatten(shape_invariants)]
        else:
            flat_invariants = None
        try:
            self.Enter()
            original_body_result, exit_vars = self._BuildLoop(pred, body, loop_vars, flat_orig_loop_vars,
                                                              flat_loop_vars, flat_invariants)
        finally:
            self.Exit()
        flat_result = nest.flatten(original_body_result)
        exit_vars_with_tas = [_from_flow_tensor(o, e) for o, e in zip(flat_result, exit_vars)]
        packed_exit_vars = nest.pack_sequence_as(original_body_result, exit_vars_with_tas)
        if return_same_structure:
            return packed_exit_vars
        return packed_exit_vars[0] if len(exit_vars) == 1 else packed_exit_vars

    def _BuildLoop(self, pred, body, loop_vars, flat_orig_loop_vars, flat_loop_vars, invariants):  # noqa: N802
        g = get_default_graph()
        # Known values are first the loop vars themselves (so outer contexts route them), then
        # only the Enters (TensorFlow's `_InitializeValues`, which replaces the set).
        self._values = {x.name for x in flat_loop_vars}
        real_vars = flat_loop_vars
        if self._outer_context:
            real_vars = [self._outer_context.AddValue(x) for x in flat_loop_vars]
        with g.control_dependencies(None):
            enter_vars = [enter(x, self._name, is_constant=False, parallel_iterations=self._parallel_iterations,
                                use_input_shape=invariants is None) for x in real_vars]
            if self._outer_context:
                for x in enter_vars:
                    self._outer_context.AddInnerOp(x.op)
        outer = self._outer_context
        control_pivot = None
        while outer is not None and control_pivot is None:
            control_pivot = outer.GetControlPivot()
            outer = outer.outer_context
        if control_pivot is not None:
            for var in enter_vars:
                if util.IsLoopConstantEnter(var.op.inputs[0].op):
                    var.op._control_flow_context = self
                    var.op._add_control_input(control_pivot.op)
        self._SetShapeInvariants(real_vars, enter_vars, invariants)
        self._FixControlInputsAndContext(enter_vars)
        self._values = {x.name for x in enter_vars}
        self._loop_enters = enter_vars

        merge_vars = [merge([x, x])[0] for x in enter_vars]
        self._pivot_for_pred = merge_vars[0]
        packed_vars = nest.pack_sequence_as(
            loop_vars, [_from_flow_tensor(o, m) for o, m in zip(flat_orig_loop_vars, merge_vars)])
        args = list(packed_vars) if _is_arg_list(loop_vars) else [packed_vars]
        c = pred(*args)
        if isinstance(c, (bool, np.bool_)):
            raise TypeError(f"while_loop '{self.label}': `cond` returned the Python bool {c}; it must return a "
                            f"boolean tensor computed from the loop variables.")
        c = convert_to_tensor(c)
        if c.dtype != dtypes.bool_:
            raise TypeError(f"while_loop '{self.label}': `cond` must return a boolean tensor, but returned "
                            f"{c.name} of dtype {c.dtype.name} (TensorFlow: Input 'input' of 'LoopCond' Op has "
                            f"type {c.dtype.name} that does not match expected type of bool).")
        if c.shape.ndims not in (None, 0):
            raise ValueError(f"while_loop '{self.label}': `cond` must return a scalar, but returned {c.name} of "
                             f"shape {c.shape}. Reduce it first, e.g. with cfnb.reduce_all or cfnb.reduce_any.")
        self._pivot = loop_cond(c, name="LoopCond")
        switch_vars = [switch(x, self._pivot) for x in merge_vars]

        vars_for_body = [identity(x[1]) for x in switch_vars]
        self._pivot_for_body = vars_for_body[0]
        packed_vars_for_body = nest.pack_sequence_as(
            loop_vars, [_from_flow_tensor(o, v) for o, v in zip(flat_orig_loop_vars, vars_for_body)])
        args = list(packed_vars_for_body) if _is_arg_list(loop_vars) else [packed_vars_for_body]
        body_result = body(*args)
        if body_result is None:
            raise ValueError(f"while_loop '{self.label}': `body` returned None; it must return the new values "
                             f"of the loop variables.")
        if not nest.is_nested(body_result):
            body_result = [body_result]
        try:
            nest.assert_same_structure(list(packed_vars_for_body) if _is_arg_list(loop_vars)
                                       else [packed_vars_for_body],
                                       list(body_result))
        except ValueError as e:
            raise ValueError(f"while_loop '{self.label}': `body` must return the structure of `loop_vars`.\n{e}"
                             ) from None
        original_body_result = body_result
        result = [_to_flow_tensor(v) for v in nest.flatten(body_result)]
        if len(merge_vars) != len(result):
            raise ValueError(f"Number of inputs and outputs of 'body' are different: {len(merge_vars)}, "
                             f"{len(result)}")
        for i, (m, v) in enumerate(zip(merge_vars, result)):
            self._check_body_output(i, m, v, real_vars[i])
        for m, v in zip(merge_vars, result):
            _AddNextAndBackEdge(m, v)
        exit_vars = [exit(x[0]) for x in switch_vars]
        self._loop_exits = exit_vars
        self.ExitResult(exit_vars)
        return original_body_result, exit_vars

    def _SetShapeInvariants(self, input_vars, enter_vars, invariants):  # noqa: N802
        if invariants is None:
            return
        for inp, var, shape in zip(input_vars, enter_vars, invariants):
            if shape is None:
                continue
            if not _shape_less_than_or_equal(inp.shape, shape):
                raise ValueError(f"while_loop '{self.label}': The shape invariant specified for {inp.name} is not "
                                 f"compatible with the initial shape of the loop variable. It enters the loop "
                                 f"with shape {inp.shape}, but the specified shape invariant is {shape}.")
            var._shape = shape

    def _check_body_output(self, i, merge_var, next_var, input_t):
        if next_var.dtype != merge_var.dtype:
            raise TypeError(f"while_loop '{self.label}': Loop var {input_t.name} (loop variable #{i}) enters the "
                            f"loop with type {merge_var.dtype} but has type {next_var.dtype} after 1 iteration. "
                            f"{input_t.name} type should remain constant; add a cfnb.cast in the body.")
        if not _shape_less_than_or_equal(next_var.shape, merge_var.shape):
            allowed = merge_var.shape.most_specific_compatible_shape(next_var.shape)
            raise ValueError(f"while_loop '{self.label}': Input tensor '{input_t.name}' (loop variable #{i}) enters "
                             f"the loop with shape {input_t.shape}, but has shape {next_var.shape} after one "
                             f"iteration. To allow the shape to vary across iterations, use the `shape_invariants` "
                             f"argument of tf.while_loop to specify a less-specific shape, e.g. "
                             f"{allowed!r} for this variable.")


def _is_arg_list(loop_vars):
    """`cond`/`body` take the loop vars as separate arguments when loop_vars is a list or tuple."""
    return isinstance(loop_vars, (list, tuple)) and not hasattr(type(loop_vars), "_fields")


def _shape_less_than_or_equal(shape1, shape2):
    if shape2.ndims is None:
        return True
    if shape1.ndims != shape2.ndims:
        return False
    return all(d2 is None or d1 == d2 for d1, d2 in zip(shape1.as_list(), shape2.as_list()))


def _AddNextAndBackEdge(m, v):  # noqa: N802
    """NextIteration(v) closes the cycle: it becomes the Merge's second input."""
    v = convert_to_tensor(v)
    v = next_iteration(v)
    m.op._update_input(1, v)
    return v


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """Repeat `body` while `cond` is true (tf.compat.v1.while_loop).

    With control flow v1 this emits Enter/Merge/Switch/NextIteration/Exit per loop variable; with
    control flow v2 a single `While` op whose cond and body are functions.
    """
    from . import control_flow_v2_toggles, while_v2
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if not isinstance(parallel_iterations, (int, np.integer)) or isinstance(parallel_iterations, bool) \
            or parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if loop_vars is None or (nest.is_nested(loop_vars) and not nest.flatten(loop_vars)):
        raise ValueError("'loop_vars' must be provided.")
    g = get_default_graph()
    if control_flow_v2_toggles.control_flow_v2_enabled() or g.building_function:
        return while_v2.while_loop(cond, body, loop_vars, shape_invariants=shape_invariants,
                                   parallel_iterations=parallel_iterations, maximum_iterations=maximum_iterations,
                                   name=name, return_same_structure=return_same_structure, back_prop=back_prop,
                                   swap_memory=swap_memory)
    with g.name_scope(name or "while") as scope:
        label = scope[:-1]
        loop_vars = _convert_loop_vars(loop_vars)
        try_to_pack = _is_arg_list(loop_vars) and len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError(f"while_loop '{label}': 'maximum_iterations' must be a scalar. Received shape: "
                                 f"{maximum_iterations.shape}")
            if not maximum_iterations.dtype.is_integer:
                raise TypeError(f"while_loop '{label}': 'maximum_iterations' must be an integer, got "
                                f"{maximum_iterations.dtype.name}")
            from .array_ops import constant
            from .math_ops import logical_and
            counter = constant(0, dtype=maximum_iterations.dtype, name="iteration_counter")
            orig_cond, orig_body, orig_vars = cond, body, loop_vars
            as_args = _is_arg_list(loop_vars)
            if try_to_pack:
                loop_vars = (counter, loop_vars[0])
                cond = lambda i, lv: logical_and(i < maximum_iterations, orig_cond(lv))  # noqa: E731
                body = lambda i, lv: (i + 1, orig_body(lv))  # noqa: E731
            else:
                def _unpack(lv):
                    return lv if as_args else [lv]

                def _body(i, lv):
                    out = orig_body(*_unpack(lv))
                    # Accept a list where the loop vars are a tuple (and vice versa), as the
                    # user-level check does; TensorFlow's wrapper would fail on that difference.
                    if as_args and isinstance(out, (list, tuple)) and not hasattr(type(out), "_fields"):
                        out = type(orig_vars)(out) if not hasattr(type(orig_vars), "_fields") else out
                    return i + 1, out
                loop_vars = (counter, loop_vars)
                cond = lambda i, lv: logical_and(i < maximum_iterations, orig_cond(*_unpack(lv)))  # noqa: E731
                body = _body
            if shape_invariants is not None:
                shape_invariants = (TensorShape([]), shape_invariants[0] if try_to_pack and isinstance(
                    shape_invariants, (list, tuple)) else shape_invariants)
            try_to_pack = False
        elif try_to_pack and shape_invariants is not None and not nest.is_nested(shape_invariants):
            shape_invariants = [shape_invariants]
        loop_context = WhileContext(maximum_iterations=maximum_iterations, parallel_iterations=parallel_iterations,
                                    back_prop=back_prop, swap_memory=swap_memory)
        if loop_context.outer_context is None:
            g.add_to_collection("while_context", loop_context)
        result = loop_context.BuildLoop(cond, body, loop_vars, shape_invariants, return_same_structure)
        if maximum_iterations is not None:
            return result[1]
        return result


def _convert_loop_vars(loop_vars):
    def conv(v):
        if hasattr(v, "_flow_for_control_flow") or isinstance(v, Tensor):
            return v
        return convert_to_tensor(v)
    return nest.map_structure(conv, loop_vars)
