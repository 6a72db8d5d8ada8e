"""Gradients of the primitives (TensorFlow's control_flow_grad.py): each becomes its mirror image.

    forward          gradient
    Exit       ->    Enter of the gradient loop ("b_exit")
    Switch     ->    Merge ("b_switch" for a loop Switch; its NextIteration is added on the second visit)
    Merge      ->    Switch (on the gradient loop's pivot, or on the cond's predicate)
    Enter      ->    Exit (a loop variable) or a running-sum accumulator loop (a loop invariant)
    NextIteration -> identity (the gradient's NextIteration is made by the Switch's gradient)
"""
from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices
from ..framework.ops import convert_to_tensor, get_default_graph
from ..framework.registry import RegisterGradient
from ..ops import control_flow_util, math_ops
from ..ops.control_flow_ops import CondContext, enter, exit, merge, switch
from ..ops.while_context import WhileContext, _AddNextAndBackEdge

SECOND_ORDER_WHILE = ("Second-order gradient for while loops not supported. (cfnb: the lowered form cannot "
                      "differentiate a gradient loop; build the loop with cfnb.enable_control_flow_v2() to get "
                      "higher-order gradients from functional While ops.)")


def _dense(grads):
    """Loop gradients are dense: an IndexedSlices stays sparse only through a cond's Switch and Merge."""
    return [convert_to_tensor(g) if isinstance(g, IndexedSlices) else g for g in grads]


@RegisterGradient("Switch")
def _switch_grad(op, *grad):
    """The gradient of a Switch is a Merge of its two outputs' gradients (TensorFlow's `_SwitchGrad`).

    In a cond only the taken branch sends a gradient, so merging the two sides gives it back. In a loop the
    Switch is visited twice: first from the Exit side, where a Merge is made whose back edge does not exist
    yet (kept in `grad_state.switch_map`), then from the body side, which closes that back edge with a
    NextIteration: the gradient loop's Merge is built from the forward loop's Switch."""
    op_ctxt = op._control_flow_context
    grad_ctxt = get_default_graph()._get_control_flow_context()
    if not isinstance(op_ctxt, CondContext):
        grad = _dense(grad)
    if isinstance(op_ctxt, WhileContext):
        merge_grad = grad_ctxt.grad_state.switch_map.get(op)
        if merge_grad is not None:
            # Second visit, from the body side: close the gradient loop's back edge.
            if grad[1] is not None:
                _AddNextAndBackEdge(merge_grad, grad[1])
            return None, None
        if grad[0] is not None:
            # First visit, from the Exit side: a Merge whose second input is patched later.
            merge_grad = merge([grad[0], grad[0]], name="b_switch")[0]
            grad_ctxt.grad_state.switch_map[op] = merge_grad
            return merge_grad, None
        return None, None
    if isinstance(op_ctxt, CondContext):
        zero_grad = grad[1 - op_ctxt.branch]
        if zero_grad is None:
            # A variable's handle has no gradient on the other side (its reads are not there): as
            # TensorFlow does, merge the taken side's gradient with itself.
            if op.inputs[0].dtype == dtypes.resource and grad[op_ctxt.branch] is not None:
                return merge([grad[op_ctxt.branch]] * 2, name="cond_resource_grad")[0], None
            return None, None
        return merge(list(grad), name="cond_grad")[0], None
    false_grad = switch(grad[0], op.inputs[1])[0]
    true_grad = switch(grad[1], op.inputs[1])[1]
    return merge([false_grad, true_grad])[0], None


@RegisterGradient("Merge")
def _merge_grad(op, grad, _):
    """The gradient of a Merge is a Switch on the same predicate (TensorFlow's `_MergeGrad`): the gradient goes
    back only to the input that produced the value.

    In a while loop the predicate is the gradient loop's pivot (loop again or exit); in a cond it is the cond's
    predicate, which for a cond inside a loop must be this iteration's value, so it is pushed on a stack in the
    forward loop and popped in the gradient loop. A Merge outside any context switches on `value_index`."""
    op_ctxt = control_flow_util.GetOutputContext(op.inputs[0].op)
    grad_ctxt = get_default_graph()._get_control_flow_context()
    if not isinstance(op_ctxt, CondContext):
        (grad,) = _dense([grad])
    if isinstance(op_ctxt, WhileContext):
        return switch(grad, grad_ctxt.pivot)
    if isinstance(op_ctxt, CondContext):
        pred = op_ctxt.pred
        if grad_ctxt and grad_ctxt.grad_state:
            # A cond inside a loop: the gradient needs this iteration's predicate, so the
            # predicate is pushed on a stack in the forward loop and popped here.
            grad_state = grad_ctxt.grad_state
            real_pred = grad_state.history_map.get(pred.name)
            if real_pred is None:
                grad_ctxt = grad_state.grad_context
                grad_ctxt.Exit()
                history_pred = grad_state.AddForwardAccumulator(pred)
                grad_ctxt.Enter()
                real_pred = grad_state.AddBackpropAccumulatedValue(history_pred, pred)
                grad_state.history_map[pred.name] = real_pred
            pred = real_pred
        return switch(grad, pred, name="cond_grad")
    num_inputs = len(op.inputs)
    conds = [math_ops.equal(op.outputs[1], i) for i in range(num_inputs)]
    return [switch(grad, conds[i])[1] for i in range(num_inputs)]


@RegisterGradient("Exit")
def _exit_grad(op, grad):
    """The gradient of an Exit is an Enter into the gradient loop's frame (TensorFlow's `_ExitGrad`): the
    backward loop starts where the forward loop ended. Recorded in `loop_enters` so that the gradient
    loop's Merges can be built; a gradient of a gradient loop (second order) is refused, as in v1 TensorFlow."""
    op_ctxt = op._control_flow_context
    grad_ctxt = get_default_graph()._get_control_flow_context()
    if not grad_ctxt.back_prop:
        return None
    if op_ctxt.grad_state:
        raise TypeError(SECOND_ORDER_WHILE)
    grad_ctxt.AddName(grad.name)
    grad_ctxt.Enter()
    result = enter(grad, grad_ctxt.name, is_constant=False, parallel_iterations=grad_ctxt.parallel_iterations,
                   name="b_exit")
    grad_ctxt.loop_enters.append(result)
    grad_ctxt.Exit()
    return result


@RegisterGradient("NextIteration")
def _next_iteration_grad(_, grad):
    return grad


@RegisterGradient("Enter")
def _enter_grad(op, grad):
    """The gradient of an Enter is an Exit from the gradient loop (TensorFlow's `_EnterGrad`). A loop invariant
    (`is_constant` Enter) is read in every iteration, so its gradient is the sum over iterations: an
    accumulator added by `AddBackpropAccumulator` instead of an Exit."""
    grad_ctxt = get_default_graph()._get_control_flow_context()
    if grad_ctxt is None or not grad_ctxt.back_prop or grad_ctxt.grad_state is None:
        return grad
    if op.get_attr("is_constant"):
        return grad_ctxt.AddBackpropAccumulator(op, grad)
    result = exit(grad)
    grad_ctxt.loop_exits.append(result)
    grad_ctxt.ExitResult([result])
    return result


@RegisterGradient("LoopCond")
def _loop_cond_grad(_, grad):
    return None


# History stacks (StackV2, StackPushV2, StackPopV2) and ControlTrigger have no gradient registered, as in
# TensorFlow: no gradient ever reaches them (tests/test_gradient_table.py).
