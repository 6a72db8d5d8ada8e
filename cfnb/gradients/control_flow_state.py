"""GradLoopState and ControlFlowState: the bookkeeping behind gradients of v1 while loops.

For every forward loop on the path from xs to ys, `GradLoopState` builds
  * a forward counter loop in the forward frame (`f_count`): how many iterations ran;
  * the gradient loop's WhileContext, whose predicate is a backprop counter (`b_count`) counting
    that number down, so the gradient loop runs exactly as often as the forward loop;
  * history stacks: any forward value the gradient needs is pushed (`StackPushV2`) every forward
    iteration and popped (`StackPopV2`) in the matching gradient iteration, in reverse order.
    Control edges order the pushes by iteration and the pops likewise, so this stays correct
    when iterations run in parallel. Loop invariants and constants are not stacked.
A nested loop's trip count is itself a value of the outer loop, so it is stacked in the outer
loop, and every outer gradient iteration replays the right inner count.
Names and structure follow TensorFlow's `control_flow_state.py` so the graphs read side by side.
"""
from ..framework import dtypes
from ..framework.ops import get_default_graph
from ..ops import array_ops, control_flow_ops, control_flow_util, data_flow_ops, variables, while_context


class GradLoopState:
    def __init__(self, forward_ctxt, outer_grad_state):
        """The state for one forward loop's gradient (TensorFlow's `_GradLoopState.__init__`): a counter loop
        added to the forward frame, and the gradient loop's WhileContext whose predicate counts that many
        iterations down. For a nested loop the trip count is a value of the outer loop, so it goes on the
        outer loop's history stack and the gradient loop is built inside the outer gradient loop."""
        self._outer_grad_state = outer_grad_state
        self._forward_context = forward_ctxt
        self._forward_sync = None
        self._grad_sync = None
        self.history_map = {}
        self.switch_map = {}
        self.unused_exits = []
        self.deferred_exits = []
        self.forward_loop_exits = list(forward_ctxt.loop_exits)
        self.pending_exits_count = len(forward_ctxt.loop_exits)
        outer_forward_ctxt = outer_grad_state.forward_context if outer_grad_state else forward_ctxt.outer_context

        # The forward loop counter.
        if outer_forward_ctxt:
            outer_forward_ctxt.Enter()
        cnt, forward_index = forward_ctxt.AddForwardLoopCounter(outer_grad_state)
        if outer_forward_ctxt:
            outer_forward_ctxt.Exit()
        self._forward_index = forward_index

        # The gradient loop and its counter.
        if outer_grad_state:
            # A nested loop: remember the trip count of every execution of this inner loop.
            outer_forward_ctxt.AddName(cnt.name)
            history_cnt = outer_grad_state.AddForwardAccumulator(cnt)
            outer_grad_ctxt = outer_grad_state.grad_context
            outer_grad_ctxt.Enter()
            self._grad_context = while_context.WhileContext(
                maximum_iterations=forward_ctxt.maximum_iterations,
                parallel_iterations=forward_ctxt.parallel_iterations, back_prop=forward_ctxt.back_prop,
                swap_memory=forward_ctxt.swap_memory, name=forward_ctxt.name, grad_state=self)
            real_cnt = outer_grad_state.AddBackpropAccumulatedValue(history_cnt, cnt)
            self._grad_index = self._grad_context.AddBackpropLoopCounter(real_cnt, outer_grad_state)
            outer_grad_ctxt.Exit()
        else:
            if outer_forward_ctxt:
                outer_forward_ctxt.Enter()
            self._grad_context = while_context.WhileContext(
                maximum_iterations=forward_ctxt.maximum_iterations,
                parallel_iterations=forward_ctxt.parallel_iterations, back_prop=forward_ctxt.back_prop,
                swap_memory=forward_ctxt.swap_memory, name=forward_ctxt.name, grad_state=self)
            self._grad_index = self._grad_context.AddBackpropLoopCounter(cnt, outer_grad_state)
            if outer_forward_ctxt:
                outer_forward_ctxt.Exit()

    outer_grad_state = property(lambda self: self._outer_grad_state)
    forward_context = property(lambda self: self._forward_context)
    forward_index = property(lambda self: self._forward_index)
    grad_context = property(lambda self: self._grad_context)
    grad_index = property(lambda self: self._grad_index)

    @property
    def forward_sync(self):
        """A ControlTrigger that keeps pushes made inside a cond in iteration order."""
        if self._forward_sync is None:
            g = get_default_graph()
            with g.control_dependencies(None):
                self._forward_sync = control_flow_ops.control_trigger(name="f_sync")
            self._forward_sync._control_flow_context = self._forward_context
            self._forward_index.op._add_control_input(self._forward_sync)
        return self._forward_sync

    @property
    def grad_sync(self):
        """A ControlTrigger that keeps the pops of one gradient iteration before the next."""
        if self._grad_sync is None:
            g = get_default_graph()
            with g.control_dependencies(None):
                self._grad_sync = control_flow_ops.control_trigger(name="b_sync")
            self._grad_sync._control_flow_context = self._grad_context
            self._grad_index.op._add_control_input(self._grad_sync)
            if self._grad_context.outer_context:
                self._grad_context.outer_context.AddInnerOp(self._grad_sync)
        return self._grad_sync

    def AddForwardAccumulator(self, value, dead_branch=False):  # noqa: N802
        """A stack that receives `value` in every forward iteration (pushed in iteration order)."""
        g = get_default_graph()
        curr_ctxt = g._get_control_flow_context()
        with g.control_dependencies(None):
            if curr_ctxt:
                curr_ctxt.Enter()
            with g.colocate_with(value.op):  # the stack lives where the value is computed, as in TensorFlow
                max_size = array_ops.constant(-1, dtypes.int32)
                acc = data_flow_ops.stack_v2(max_size=max_size, elem_type=value.dtype, name="f_acc")
            if curr_ctxt:
                curr_ctxt.Exit()
            enter_acc = self.forward_context.AddValue(acc)
            swap_enabled = self.forward_context.swap_memory
            value_ctxt = control_flow_util.GetOutputContext(value.op)
            if value_ctxt is self.forward_context:
                self.forward_context.Enter()
                push = data_flow_ops.stack_push_v2(enter_acc, value, swap_memory=swap_enabled)
                self.forward_context.Exit()
                self.forward_index.op._add_control_input(push.op)
            else:
                if not isinstance(value_ctxt, control_flow_ops.CondContext):
                    raise TypeError(f"value_ctxt is not a CondContext: {value_ctxt}")
                if dead_branch:
                    value_ctxt.outer_context.Enter()
                    push = data_flow_ops.stack_push_v2(enter_acc, value, swap_memory=swap_enabled)
                    value_ctxt.outer_context.Exit()
                    push.op._control_flow_context = value_ctxt
                else:
                    value_ctxt.Enter()
                    push = data_flow_ops.stack_push_v2(enter_acc, value, swap_memory=swap_enabled)
                    value_ctxt.Exit()
                self.forward_sync._add_control_input(push.op)
            add_op = self.forward_index.op.inputs[0].op
            push.op._add_control_input(add_op)
            return acc

    def AddBackpropAccumulatedValue(self, history_value, value, dead_branch=False):  # noqa: N802
        """Pop `value`'s history in the gradient loop (guarded by the cond predicate's history when
        the value lives in a cond branch)."""
        history_ctxt = history_value.op._control_flow_context
        cond_ctxt = None
        value_ctxt = value.op._control_flow_context
        while value_ctxt and value_ctxt is not history_ctxt:
            if isinstance(value_ctxt, control_flow_ops.CondContext):
                cond_ctxt = value_ctxt
                break
            value_ctxt = value_ctxt.outer_context
        g = get_default_graph()
        with g.control_dependencies(None):
            self.grad_context.Enter()
            if cond_ctxt:
                grad_state = self
                pred = None
                while pred is None and grad_state:
                    pred = grad_state.history_map.get(cond_ctxt.pred.name)
                    grad_state = grad_state.outer_grad_state
                if pred is None:
                    pred = cond_ctxt.pred
                branch = (1 - cond_ctxt.branch) if dead_branch else cond_ctxt.branch
                history_value = control_flow_ops.switch(history_value, pred)[branch]
            pop = data_flow_ops.stack_pop_v2(history_value, value.dtype)
            pop.set_shape(value.shape)
            self.grad_context.Exit()
        if self.grad_context.parallel_iterations > 1:
            self.grad_sync._add_control_input(pop.op)
        return pop

    def GetRealValue(self, value):  # noqa: N802
        """The value the gradient loop should use for forward tensor `value`: a loop invariant as
        is, a constant cloned, anything else popped from its history stack."""
        real_value = self.history_map.get(value.name)
        if real_value is None:
            cur_value = value
            cur_grad_state = self
            history_value = None
            while True:
                enter_op = control_flow_util.GetLoopConstantEnter(cur_value)
                if enter_op:
                    cur_value = enter_op.inputs[0]
                    cur_grad_state = cur_grad_state.outer_grad_state
                    if cur_grad_state is None:
                        real_value = self._grad_context.AddValue(cur_value)
                        break
                elif cur_value.op.type == "Const":
                    real_value = array_ops.constant(cur_value.op.get_attr("value"), dtype=cur_value.dtype)
                    break
                else:
                    self._grad_context.Exit()
                    history_value = cur_grad_state.AddForwardAccumulator(cur_value)
                    self._grad_context.Enter()
                    break
            if real_value is None:
                real_value = cur_grad_state.AddBackpropAccumulatedValue(history_value, cur_value)
                if cur_grad_state is not self:
                    real_value = self._grad_context.AddValue(real_value)
            self.history_map[value.name] = real_value
        return real_value


class ControlFlowState:
    """Maps each forward loop context to its GradLoopState during one `gradients()` call."""

    def __init__(self):
        self._map = {}

    def get_grad_state(self, op, before):
        """The GradLoopState of the loop `op` is in, or None (TensorFlow's
        `ControlFlowState.GetGradState`). With `before`, an Exit counts as outside its loop: its gradient is built
        before the gradient loop is entered."""
        if before and control_flow_util.IsLoopExit(op):
            forward_ctxt = op._control_flow_context.outer_context
            if forward_ctxt:
                forward_ctxt = forward_ctxt.GetWhileContext()
        else:
            forward_ctxt = control_flow_util.GetWhileContext(op)
        return self._map.get(forward_ctxt) if forward_ctxt else None

    def process_unused_loop_exits(self, pending, to_ops_set):
        """Loop Exits that no path to the ys uses still need a gradient, zeros,
        for the gradient loop to get all its inputs (TensorFlow's `ProcessUnusedLoopExits`). Returns the Exits to
        seed once every Exit of their loop has been reached; marks the loops' Enters as still pending."""
        loop_exits = []
        for grad_state in self._map.values():
            for y in grad_state.forward_loop_exits:
                if pending[y.op] == 0:
                    grad_state.pending_exits_count -= 1
                    if y.op not in to_ops_set:
                        grad_state.unused_exits.append(y)
                    if grad_state.pending_exits_count == 0:
                        loop_exits.extend(grad_state.unused_exits)
            for y in grad_state.forward_context.loop_enters:
                if pending[y.op] == 0:
                    pending[y.op] = 1
        return loop_exits

    def enter_grad_while_context(self, op, before):
        """Enter the gradient loop of `op`'s loop, if any, before building `op`'s
        gradient (TensorFlow's `EnterGradWhileContext`)."""
        grad_state = self.get_grad_state(op, before)
        if grad_state:
            grad_state.grad_context.Enter()

    def exit_grad_while_context(self, op, before):
        """Leave the gradient loop entered by `enter_grad_while_context`
        (TensorFlow's `ExitGradWhileContext`)."""
        grad_state = self.get_grad_state(op, before)
        if grad_state:
            grad_state.grad_context.Exit()

    def add_while_context(self, op, between_op_list, between_ops):
        """Make the GradLoopState of `op`'s loop on first sight (TensorFlow's
        `ControlFlowState.AddWhileContext`), and add all the loop's Exits to the ops between xs and ys: the gradient
        loop needs a gradient for every loop variable, used or not."""
        forward_ctxt = control_flow_util.GetWhileContext(op)
        grad_state = self._map.get(forward_ctxt)
        if grad_state is None:
            outer_forward_ctxt = forward_ctxt.outer_context
            if outer_forward_ctxt:
                outer_forward_ctxt = outer_forward_ctxt.GetWhileContext()
            outer_grad_state = self._map.get(outer_forward_ctxt) if outer_forward_ctxt else None
            grad_state = GradLoopState(forward_ctxt, outer_grad_state)
            self._map[forward_ctxt] = grad_state
            for loop_exit in grad_state.forward_loop_exits:
                if loop_exit.op not in between_ops:
                    between_ops.add(loop_exit.op)
                    between_op_list.append(loop_exit.op)

    def zeros_like_for_exit(self, val):
        """A zero gradient for an Exit whose output is unused while a sibling Exit has a real one."""
        val_shape = val.shape
        forward_ctxt = val.op._control_flow_context
        outer_forward_ctxt = forward_ctxt.outer_context
        if outer_forward_ctxt:
            outer_forward_ctxt = outer_forward_ctxt.GetWhileContext()
        outer_grad_state = self._map.get(outer_forward_ctxt) if outer_forward_ctxt else None
        if outer_grad_state:
            if val_shape.is_fully_defined():
                outer_grad_state.grad_context.Enter()
                result = array_ops.zeros(val_shape.as_list(), val.dtype)
                outer_grad_state.grad_context.Exit()
            else:
                forward_ctxt.outer_context.Enter()
                shape = array_ops.shape(val)
                forward_ctxt.outer_context.Exit()
                history_shape = outer_grad_state.AddForwardAccumulator(shape)
                outer_grad_ctxt = outer_grad_state.grad_context
                outer_grad_ctxt.Enter()
                real_shape = outer_grad_state.AddBackpropAccumulatedValue(history_shape, shape)
                result = array_ops.zeros(real_shape, val.dtype)
                outer_grad_ctxt.Exit()
        elif val_shape.is_fully_defined():
            result = array_ops.zeros(val_shape.as_list(), val.dtype)
        else:
            result = array_ops.zeros_like(val)
        return result

    def zeros_like(self, op, index):
        """A zero gradient for output `index` of `op`, built in the gradient loop when `op` is in a
        differentiated loop (shapes that are not static are stacked, like any other value)."""
        if control_flow_util.IsLoopSwitch(op):
            return None
        dead_branch = control_flow_util.IsSwitch(op)
        forward_ctxt = control_flow_util.GetWhileContext(op)
        grad_state = self._map.get(forward_ctxt)
        if grad_state is None:
            return zeros_like(op, index)
        op_ctxt = op._control_flow_context
        val = op.outputs[index]
        shape = val.shape
        if shape.is_fully_defined():
            result = array_ops.constant(0, shape=shape.as_list(), dtype=val.dtype)
            if dead_branch:
                pred = grad_state.history_map.get(op_ctxt.pred.name)
                result = control_flow_ops.switch(result, pred)[1 - op_ctxt.branch]
        else:
            if dead_branch:
                pred, branch = op_ctxt.pred, op_ctxt.branch
                op_ctxt.outer_context.Enter()
                val = control_flow_ops.switch(op.inputs[0], pred)[1 - branch]
                zeros_shape = array_ops.shape(val)
                op_ctxt.outer_context.Exit()
                val.op._control_flow_context = op_ctxt
                zeros_shape.op._control_flow_context = op_ctxt
            else:
                op_ctxt.Enter()
                zeros_shape = array_ops.shape(val)
                op_ctxt.Exit()
            grad_state.grad_context.Exit()
            history_zeros_shape = grad_state.AddForwardAccumulator(zeros_shape, dead_branch=dead_branch)
            grad_state.grad_context.Enter()
            shape = grad_state.AddBackpropAccumulatedValue(history_zeros_shape, zeros_shape, dead_branch)
            result = array_ops.zeros(shape, val.dtype)
        return result

    def post_processing(self):
        """A loop var whose next value does not depend on its current one gets zero gradient for
        iterations after the first (its b_switch Merge had the same input twice)."""
        for grad_state in self._map.values():
            for b_merge in grad_state.switch_map.values():
                if b_merge.op.inputs[0] is b_merge.op.inputs[1]:
                    dtype = b_merge.op.inputs[0].dtype
                    shape = b_merge.op.inputs[0].shape
                    if shape.is_fully_defined():
                        grad_state.grad_context.Enter()
                        grad_val = array_ops.constant(0, dtype=dtype, shape=shape.as_list())
                        next_grad_val = control_flow_ops.next_iteration(grad_val)
                        grad_state.grad_context.Exit()
                    else:
                        outer_grad_ctxt = grad_state.grad_context.outer_context
                        if outer_grad_ctxt:
                            outer_grad_ctxt.Enter()
                        enter_grad = b_merge.op.inputs[0].op.inputs[0]
                        grad_val = array_ops.zeros_like(enter_grad)
                        if outer_grad_ctxt:
                            outer_grad_ctxt.Exit()
                        grad_state.grad_context.Enter()
                        next_grad_val = control_flow_ops.next_iteration(grad_val)
                        grad_state.grad_context.Exit()
                    b_merge.op._update_input(1, next_grad_val)


def maybe_create_control_flow_state(between_op_list, between_ops):
    """A ControlFlowState when the differentiated ops include a loop Exit, else None."""
    loop_state = None
    for op in between_op_list:  # grows while we iterate: a loop's other Exits are appended
        if control_flow_util.IsLoopExit(op):
            if loop_state is None:
                loop_state = ControlFlowState()
            loop_state.add_while_context(op, between_op_list, between_ops)
    return loop_state


def zeros_like(op, index):
    """Zeros for output `index` of `op`; for a cond Switch, built only on the branch that needs it.
    A variable's handle gets zeros of the variable's shape and dtype (TensorFlow's
    ZerosLikeOutsideLoop, which reads them with VariableShape; cfnb's variables have static shapes)."""
    val = op.outputs[index]
    variable = variables.variable_spec(val) if val.dtype == dtypes.resource else None
    if getattr(val.op.graph, "is_while_body", False) and val.dtype not in (dtypes.variant, dtypes.resource) \
            and val.shape.is_fully_defined():
        # In a functional loop's body, zeros that read `val` would make the gradient accumulate it
        # (TensorFlow's _ZerosLikeV2 builds a constant there).
        return array_ops.zeros(val.shape.as_list(), val.dtype)
    if not control_flow_util.IsSwitch(op):
        return array_ops.zeros(*variable) if variable else array_ops.zeros_like(val)
    op_ctxt = op._control_flow_context
    if op_ctxt:
        pred, branch = op_ctxt.pred, op_ctxt.branch
        switch_val = control_flow_ops.switch(op.inputs[0], pred)[1 - branch]
        pivot = array_ops.identity(switch_val)
        g = get_default_graph()
        if variable:
            with g.control_dependencies([pivot]):
                return array_ops.zeros(*variable)
        zeros_shape = array_ops.shape(switch_val)
        with g.control_dependencies([pivot]):
            return array_ops.zeros(zeros_shape, val.dtype)
    return array_ops.zeros(*variable) if variable else array_ops.zeros_like(val)

