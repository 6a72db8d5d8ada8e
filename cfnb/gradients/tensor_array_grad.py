"""Gradients through TensorArrays (TensorFlow's tensor_array_grad.py): a gradient TensorArray.

Every TensorArray can have a gradient TensorArray of the same size, found by (handle, source):
`TensorArrayGradV3` returns the same one each time it runs in a step, which is what lets every
iteration of a gradient loop write into one array. A read's gradient writes into it, a write's
gradient reads from it; several gradient writes to one index add up.
"""
from ..framework import dtypes, errors
from ..framework.ops import get_default_graph
from ..framework.registry import NotDifferentiable, RegisterGradient, register_op
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops
from ..ops.tensor_array_kernels import TensorArrayState
from ..ops.tensor_array_ops import TensorArray
from .gradients_util import current_gradient_scope


def _grad_kernel(op, state):
    source = op.get_attr("source")

    def tensor_array_grad(handle, flow):
        if handle.accumulate:
            # A gradient array lives in TensorFlow's `_tensor_array_grads` container, and TensorArrayGradV3
            # takes only arrays of `_tensor_arrays`: a second derivative through a v1 TensorArray is refused.
            raise errors.InvalidArgumentError(op, op, f"Wrong input container. _tensor_array_grads{handle.name}")
        grads = handle.grads
        if source not in grads:
            # The forward array's element shape as it stands when the gradient starts (TensorArrayGradOp): what its
            # writes and gathers have set, nothing if none ran.
            grads[source] = TensorArrayState(f"{handle.name}@{source}", handle.dtype, handle.size, True, False,
                                             handle.element_shape, accumulate=True)
            grads[source].marked_size = handle.marked_size  # TensorArrayGradOp passes the forward MarkedSize on
        return grads[source], flow
    return tensor_array_grad


register_op("TensorArrayGradV3", lambda op: [(dtypes.resource, TensorShape([2])), (dtypes.float32, TensorShape([]))],
            _grad_kernel, stateful=True, multi_output=True)


def _grad_source(t):
    """The `gradients...` name scope a gradient was built in: one gradient TensorArray per call."""
    scope = current_gradient_scope()
    if scope is not None:
        return scope
    name = t.op.name
    parts = name.split("/")
    for k, part in enumerate(parts):
        if part.startswith("gradients"):
            return "/".join(parts[: k + 1])
    return "gradients"


def _grad_ta(op, flow, source):
    """TensorArray.grad(source, flow) of the array `op` works on, through a new TensorArray object around its handle,
    as TensorFlow's gradient functions make one: the gradient array learns its element shape from its own writes
    (and, when it runs, from the forward array's), not from what the forward writes taught the graph."""
    return TensorArray(op.get_attr("dtype"), handle=op.inputs[0], flow=flow).grad(source, flow)


@RegisterGradient("TensorArrayReadV3")
def _read_grad(op, grad):
    g = _grad_ta(op, op.inputs[2], _grad_source(grad))
    return [None, None, g.write(op.inputs[1], grad).flow]


@RegisterGradient("TensorArrayWriteV3")
def _write_grad(op, flow):
    g_flow = _write_barrier(op, flow)
    g = _grad_ta(op, g_flow, _grad_source(flow))
    return [None, None, g.read(op.inputs[1]), g_flow]


@RegisterGradient("TensorArrayGatherV3")
def _gather_grad(op, grad):
    g = _grad_ta(op, op.inputs[2], _grad_source(grad))
    return [None, None, g.scatter(op.inputs[1], grad).flow]


@RegisterGradient("TensorArrayScatterV3")
def _scatter_grad(op, flow):
    g_flow = _write_barrier(op, flow)
    g = _grad_ta(op, g_flow, _grad_source(flow))
    return [None, None, g.gather(op.inputs[1]), g_flow]


def _write_barrier(op, flow):
    """The gradient array is read only after the forward write has happened."""
    flow_out = array_ops.identity(op.outputs[0], name="flow_out")
    with get_default_graph().control_dependencies([flow_out]):
        return array_ops.identity(flow, name="write_barrier")


for _type in ("TensorArrayV3", "TensorArrayGradV3", "TensorArraySizeV3", "TensorArrayCloseV3"):
    NotDifferentiable(_type)


@RegisterGradient("TensorArrayConcatV3")
def _concat_grad(op, grad, _lengths_grad):
    g = _grad_ta(op, op.inputs[1], _grad_source(grad))
    return [None, g.split(grad, op.outputs[1]).flow]


@RegisterGradient("TensorArraySplitV3")
def _split_grad(op, flow):
    g_flow = _write_barrier(op, flow)
    g = _grad_ta(op, g_flow, _grad_source(flow))
    return [None, g.concat(), None, g_flow]
