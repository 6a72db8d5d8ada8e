"""Pass 2, stack push removal: a history stack that no gradient pops is not filled.

Grappler's `RemoveStackOps` (grappler/optimizers/loop_optimizer.cc, `GetStackPushNodesToConvert`). A v1 loop
gradient pushes the forward values it needs onto history stacks (`StackPushV2`, gradients/control_flow_state.py)
and pops them in the gradient loop. The pushes are control inputs of the forward loop counter, so they run
whenever the loop runs, even when a run fetches only some of the gradients and the pops of a stack were pruned
away with the gradients that needed them (fetch dW_h of an RNN, not dW_x, and the stack of the inputs x_t is
pushed to, T times, and never read). This pass follows each stack's handle through Enter, Switch and Identity
nodes (the ones Grappler traverses); when it reaches pushes and nothing else but pops that nothing reads, it
turns every push into an Identity of the pushed value with a control input from the handle, as Grappler does:
the push's consumers and the counter's control edge stay as they were, and nothing is stored. A push whose value
nothing reads (the usual case: its one edge out is the control edge to the counter) becomes a NoOp instead, so the
value it pushed, if nothing else reads it, is no longer computed.

cfnb goes one step further than Grappler, which leaves a stack alone as soon as a pop has any fanout: a gradient
loop orders its pops with a ControlTrigger (`b_sync`, as TensorFlow's `GradLoopState.grad_sync` does), so a pop
whose value nothing reads any more still has that control edge. Such a pop (reading the stack through its Enter,
not through a cond's Switch) becomes a NoOp with a control input from the handle: it still orders, and pops
nothing, as nothing was pushed.

A v2 loop needs no such pass: its accumulators are loop variables (TensorLists), which pruning removes with
the unused Exit that hands them out.
"""
from ..framework.registry import get_op_def

NAME = "stack_push_removal"
_TRAVERSE = ("Enter", "RefEnter", "Switch", "RefSwitch", "_SwitchN", "Identity", "RefIdentity")


def unread_stack_ops(view, stack):
    """(pushes, pops) of `stack` (a StackV2 op) when no pop's value is read, else ([], [])."""
    pushes, pops, seen, work = [], [], set(), [stack]
    while work:
        op = work.pop()
        for c in view.consumers.get(op, ()):
            if c in seen or c not in view.frame_of:
                continue
            seen.add(c)
            if c.type == "StackPushV2" and c.inputs[0].op is op:
                pushes.append(c)
            elif c.type == "StackPopV2" and op.type == "Enter" and not _read(view, c):
                pops.append(c)
            elif c.type in _TRAVERSE:
                work.append(c)
            elif c.type != "StackCloseV2":
                return [], []  # a pop that is read, or something unexpected: leave the stack alone
    return pushes, pops


def _read(view, op):
    return any(c in view.frame_of for c in op.outputs[0].consumers())


def to_identity(push):
    """Turn `push` into `Identity(value, ^handle)` in place (Grappler's `push_node->set_op("Identity")`). A handle
    from a cond's Switch is read through an Identity of it, as `ConstantFolding::AddControlDependency` does: a
    control edge from a Switch itself would not say which side was taken."""
    handle, value = push._inputs
    handle._consumers.remove(push)
    push._inputs = [value]
    push._type = "Identity"
    push._op_def = get_op_def("Identity")
    push._attrs.pop("swap_memory", None)
    push.graph._version += 1  # an edit (a FrameView made before it is out of date)
    if handle.op.type == "Switch":
        with push.graph.as_default():
            handle = push.graph.create_op("Identity", [handle], name=f"{push.name}/handle").outputs[0]
    push._add_control_input(handle.op)


def to_no_op(op):
    """Turn an unread pop or push into `NoOp(^handle)` in place: it keeps its control edges, and pops or pushes
    nothing. A push whose value nothing reads needs no Identity of it: the value (a forward loop's TensorArray read,
    say) is then computed for nothing, and is pruned."""
    handle = op._inputs[0]
    for x in op._inputs:
        x._consumers.remove(op)
    op._inputs, op._outputs = [], []
    op._type = "NoOp"
    op._op_def = get_op_def("NoOp")
    op._attrs = {}
    op.graph._version += 1
    op._add_control_input(handle.op)


def has_work(look):
    """True when `run` would empty a stack: one has pushes and no pop that is read (read-only)."""
    view = look.view()
    return any(unread_stack_ops(view, op)[0] for op in view.ops if op.type == "StackV2")


def run(rewrite):
    """Rewrite the copy in place; returns [(stack name, [push and pop names])]."""
    view = rewrite.view()
    done = []
    for op in view.ops:
        if op.type == "StackV2":
            pushes, pops = unread_stack_ops(view, op)
            if not pushes:
                continue
            for push in pushes:
                (to_identity if _read(view, push) or push.inputs[0].op.type == "Switch" else to_no_op)(push)
            for pop in pops:
                to_no_op(pop)
            done.append((op.name, [p.name for p in pushes + pops]))
    return done
