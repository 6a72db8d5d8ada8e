"""WhileContext: the loop being built, and everything the gradient later asks of it.

TensorFlow keeps `WhileContext` in `control_flow_ops.py` beside `CondContext`; it has its own module
here because it is the largest idea in control flow v1. `BuildLoop` makes one
Enter -> Merge -> Switch -> NextIteration -> Exit chain per loop variable (`_BuildLoop`), `AddValue`
gives every tensor captured from outside its one constant Enter, and the `Add*Loop*` methods build
what `gradients/control_flow_state.py` (GradLoopState) needs: the forward iteration counter, the
backprop loop's counter and the gradient accumulators of loop invariants.
"""

from ..framework import build_journal, dtypes, nest
from ..framework.indexed_slices import IndexedSlices
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from . import array_ops, while_checks
from . import control_flow_util as util
from .array_ops import constant, fill, identity
from .control_flow_ops import (
    ControlFlowContext,
    enter,
    exit,  # noqa: A004 - TensorFlow's name for the primitive
    from_flow_tensor,
    loop_cond,
    merge,
    next_iteration,
    switch,
    to_flow_tensor,
)
from .math_ops import add, greater_equal, subtract


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
        build_journal.note(self)  # a gradient adds to a forward loop: a failed one is undone (build_journal.py)
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
        """Called by `Graph.create_op` for each op built in the loop (TensorFlow's `WhileContext.AddOp`). A
        Shape, Size or Rank of a forward value built in a gradient loop goes into the forward loop instead, so that
        only its small result is stacked, not the value itself."""
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
        """Put an op into the loop (TensorFlow's `WhileContext._AddOpInternal`): every input from outside goes
        through `AddValue` (an Enter), an op with no inputs gets a control edge from the pivot so that it runs
        once per iteration, and control inputs from outside come in as data through an Identity in the loop."""
        build_journal.note(self)
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
                zeros_shape = array_ops.shape(value)
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
                acc = fill(array_ops.shape(value), constant(0, dtype=grad.dtype))
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
        """Build the loop in this context and return its Exits, packed as `loop_vars` (TensorFlow's
        `WhileContext.BuildLoop`): TensorArrays travel as their flow tensors and are rebuilt around the Exits."""
        flat_orig_loop_vars = nest.flatten(loop_vars, expand_composites=True)
        flat_loop_vars = [to_flow_tensor(v) for v in flat_orig_loop_vars]
        flat_invariants = None if shape_invariants is None else \
            while_checks.flat_shape_invariants(self.label, loop_vars, shape_invariants)
        try:
            self.Enter()
            original_body_result, exit_vars = self._BuildLoop(pred, body, loop_vars, flat_orig_loop_vars,
                                                              flat_loop_vars, flat_invariants)
        finally:
            self.Exit()
        flat_result = nest.flatten(original_body_result, expand_composites=True)
        exit_vars_with_tas = [from_flow_tensor(o, e) for o, e in zip(flat_result, exit_vars)]
        packed_exit_vars = nest.pack_sequence_as(original_body_result, exit_vars_with_tas, expand_composites=True)
        if return_same_structure:
            return packed_exit_vars
        return packed_exit_vars[0] if len(exit_vars) == 1 else packed_exit_vars

    def _BuildLoop(self, pred, body, loop_vars, flat_orig_loop_vars, flat_loop_vars, invariants):  # noqa: N802
        """Per loop variable Enter -> Merge -> Switch -> Identity -> (body) -> NextIteration, Exit on the Switch's
        false side; the cond on the Merges, its LoopCond the predicate of every Switch (TensorFlow's
        `WhileContext._BuildLoop`). Returns (the body's result as it returned it, the Exits)."""
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
            loop_vars, [from_flow_tensor(o, m) for o, m in zip(flat_orig_loop_vars, merge_vars)], True)
        args = list(packed_vars) if is_arg_list(loop_vars) else [packed_vars]
        c = while_checks.cond_predicate(self.label, pred(*args), squeeze=False)
        self._pivot = loop_cond(c, name="LoopCond")
        switch_vars = [switch(x, self._pivot) for x in merge_vars]

        vars_for_body = [identity(x[1]) for x in switch_vars]
        self._pivot_for_body = vars_for_body[0]
        packed_vars_for_body = nest.pack_sequence_as(
            loop_vars, [from_flow_tensor(o, v) for o, v in zip(flat_orig_loop_vars, vars_for_body)], True)
        args = list(packed_vars_for_body) if is_arg_list(loop_vars) else [packed_vars_for_body]
        original_body_result = while_checks.body_result(self.label, body(*args), args)
        result = [to_flow_tensor(v) for v in nest.flatten(original_body_result, expand_composites=True)]
        for i, (m, v) in enumerate(zip(merge_vars, result)):  # TensorFlow's _EnforceShapeInvariant
            while_checks.check_body_output(self.label, i, real_vars[i], m.shape, v)
        for m, v in zip(merge_vars, result):
            _AddNextAndBackEdge(m, v)
        exit_vars = [exit(x[0]) for x in switch_vars]
        self._loop_exits = exit_vars
        self.ExitResult(exit_vars)
        return original_body_result, exit_vars

    def _SetShapeInvariants(self, input_vars, enter_vars, invariants):  # noqa: N802
        """Each Enter takes its variable's shape invariant, which must admit the shape the variable enters with."""
        if invariants is None:
            return
        while_checks.check_initial_shapes(self.label, input_vars, invariants)
        for var, shape in zip(enter_vars, invariants):
            if shape is not None:
                var._shape = shape


def is_arg_list(loop_vars):
    """`cond`/`body` take the loop vars as separate arguments when loop_vars is a list or tuple."""
    return isinstance(loop_vars, (list, tuple)) and not hasattr(type(loop_vars), "_fields")


def _AddNextAndBackEdge(m, v):  # noqa: N802
    """NextIteration(v) closes the cycle: it becomes the Merge's second input."""
    v = convert_to_tensor(v)
    v = next_iteration(v)
    m.op._update_input(1, v)
    return v


def convert_loop_vars(loop_vars):
    """Loop variables as tensors, leaving TensorArrays and tensors as they are (TensorFlow's
    `while_loop` converts with `ops.convert_to_tensor` the same way before building the loop)."""
    def conv(v):
        if hasattr(v, "_flow_for_control_flow") or isinstance(v, (Tensor, IndexedSlices)):
            return v
        return convert_to_tensor(v)
    return nest.map_structure(conv, loop_vars)
