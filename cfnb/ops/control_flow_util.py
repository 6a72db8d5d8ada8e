"""Small predicates about control-flow ops and contexts (TensorFlow's `control_flow_util.py`)."""
import logging

from ..framework.ops import register_input_context_check

_log = logging.getLogger(__name__)


def IsSwitch(op):  # noqa: N802 - TensorFlow's names, so the sources read side by side
    """Whether `op` is a Switch (TensorFlow's `control_flow_util.IsSwitch`)."""
    return op.type in ("Switch", "RefSwitch")


def IsMerge(op):  # noqa: N802
    """Whether `op` is a Merge (TensorFlow's `control_flow_util.IsMerge`)."""
    return op.type in ("Merge", "RefMerge")


def IsCondMerge(op):  # noqa: N802
    """A Merge whose every input comes out of a CondContext (TensorFlow's `IsCondMerge`)."""
    if not IsMerge(op) or not op.inputs:
        return False
    return all((ctxt := GetOutputContext(t.op)) is not None and ctxt.IsCondContext() for t in op.inputs)


def IsLoopMerge(op):  # noqa: N802
    """A loop's Merge (Enter and NextIteration in): every Merge that is not a cond's."""
    return IsMerge(op) and not IsCondMerge(op)


def IsLoopEnter(op):  # noqa: N802
    """Whether `op` is an Enter, the entry of a loop frame (TensorFlow's `IsLoopEnter`)."""
    return op.type in ("Enter", "RefEnter")


def IsLoopConstantEnter(op):  # noqa: N802
    """Whether `op` is an Enter of a loop invariant (TensorFlow's `IsLoopConstantEnter`): its
    value is the same in every iteration, so a gradient sums over iterations instead of stacking."""
    return IsLoopEnter(op) and op.get_attr("is_constant")


def IsLoopExit(op):  # noqa: N802
    """Whether `op` is an Exit, a loop's output (TensorFlow's `IsLoopExit`)."""
    return op.type in ("Exit", "RefExit")




def IsLoopSwitch(op):  # noqa: N802
    """A Switch whose predicate is a loop's LoopCond (as opposed to a cond's Switch)."""
    if IsSwitch(op):
        ctxt = op._control_flow_context
        return ctxt is not None and ctxt.IsWhileContext() and not IsCondSwitch(op)
    return False


def IsCondSwitch(op):  # noqa: N802
    """Whether a Switch belongs to a cond rather than a loop (TensorFlow's `IsCondSwitch`): all its
    consumers are in a cond branch. The gradient of a Switch and the partitioner tell the two apart by this."""
    if not IsSwitch(op):
        return False
    if not op.outputs:
        return False
    # A cond Switch's consumers live in a CondContext (or it feeds a Merge of a cond directly).
    is_cond_switch = True
    for o in op.outputs:
        for c in o.consumers():
            ctxt = c._control_flow_context
            if IsLoopEnter(c):
                ctxt = ctxt.outer_context if ctxt is not None else None
            is_cond_switch = is_cond_switch and (ctxt is not None and ctxt.IsCondContext())
    return is_cond_switch


def GetLoopConstantEnter(value):  # noqa: N802
    """The constant Enter `value` comes from, looking through Identity/Switch ops, or None."""
    op = value.op
    while op.type in ("Switch", "RefSwitch", "Identity", "RefIdentity"):
        op = op.inputs[0].op
    return op if IsLoopConstantEnter(op) else None


def GetOutputContext(op):  # noqa: N802
    """The context an op's outputs live in: an Exit's outputs belong to the loop's outer context."""
    ctxt = op._control_flow_context
    if ctxt is not None and IsLoopExit(op):
        ctxt = ctxt.outer_context
    return ctxt


def GetWhileContext(op):  # noqa: N802
    """The innermost loop `op` was built in, or None (TensorFlow's `control_flow_util.GetWhileContext`)."""
    ctxt = op._control_flow_context
    if ctxt:
        ctxt = ctxt.GetWhileContext()
    return ctxt


def GetContainingWhileContext(ctxt, stop_ctxt=None):  # noqa: N802
    """The first loop context at or above `ctxt`, stopping at `stop_ctxt` (TensorFlow's
    `GetContainingWhileContext`)."""
    while ctxt:
        if ctxt.IsWhileContext() or ctxt is stop_ctxt:
            return ctxt
        ctxt = ctxt.outer_context
    return None


def IsContainingContext(ctxt, maybe_containing_ctxt):  # noqa: N802
    """Whether `maybe_containing_ctxt` is `ctxt` or encloses it (TensorFlow's `IsContainingContext`;
    None, the graph's root, contains everything)."""
    while ctxt is not maybe_containing_ctxt:
        if ctxt is None:
            return False
        ctxt = ctxt.outer_context
    return True


def check_input_from_valid_context(op, input_op):
    """Refuse a tensor made inside a loop used outside it, or in another loop (TF's message)."""
    op_ctxt = op._control_flow_context
    input_ctxt = GetOutputContext(input_op)
    if input_ctxt is None or op_ctxt is input_ctxt:
        return
    while_ctxt = GetContainingWhileContext(op_ctxt)
    input_while_ctxt = GetContainingWhileContext(input_ctxt)
    valid = False
    if while_ctxt is None:
        valid = input_while_ctxt is None or IsLoopEnter(op) or IsSwitch(op)
    elif IsContainingContext(while_ctxt, input_while_ctxt):
        valid = True
    elif while_ctxt.grad_state and IsContainingContext(while_ctxt.grad_state.forward_context, input_while_ctxt):
        valid = True
    elif while_ctxt.grad_state and while_ctxt.grad_state.forward_context is input_while_ctxt.outer_context:
        valid = True
    elif input_while_ctxt.grad_state and input_while_ctxt.grad_state.forward_context is while_ctxt:
        valid = True
    elif (input_while_ctxt.grad_state and input_while_ctxt.grad_state.forward_context.grad_state
          and input_while_ctxt.grad_state.forward_context.grad_state.forward_context is while_ctxt):
        valid = True
    if not valid:
        if while_ctxt:
            msg = (f"Cannot use '{input_op.name}' as input to '{op.name}' because they are in different while "
                   f"loops.")
        else:
            msg = (f"Cannot use '{input_op.name}' as input to '{op.name}' because '{input_op.name}' is in a "
                   f"while loop.")
        # TensorFlow's text ends "See info log for more details." (its tests match it): the info log is here.
        _log.info("%s A value computed inside a loop leaves it only through the loop's outputs (its Exit "
                     "nodes). Op context: %s; input context: %s", msg, op_ctxt, input_ctxt)
        raise ValueError(msg + " See info log for more details. A value computed inside a loop leaves it only "
                               "through the loop's outputs (its Exit nodes): return it as a loop variable instead.")


# Every new op's inputs are checked as TensorFlow's Operation._control_flow_post_processing does.
register_input_context_check(check_input_from_valid_context)
