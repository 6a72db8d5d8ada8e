"""Stacks: `StackV2`, `StackPushV2`, `StackPopV2` — the history accumulators of v1 loop gradients.

The forward loop pushes a value every iteration; the gradient loop pops them in reverse. A stack
lives for one run (the handle is created when StackV2 fires). `swap_memory=True` is TensorFlow's
permission to move pushed tensors from GPU to host memory: on a GPU device the push stores a handle whose
value is copied to the host (in the push itself when small, else on the copy stream), and the pop brings it back
(runtime/swap.py, through framework/op_kernel_context.py); on a CPU device values stay where they are.
"""
import numpy as np

from ..framework import dtypes, errors, op_kernel_context
from ..framework.op_def_library import apply_op
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape


class StackState:
    """The run-time stack behind a handle, with the bytes it holds (for memory accounting)."""

    __slots__ = ("name", "elements", "bytes", "max_size", "memory", "swaps")

    def __init__(self, name, max_size, memory):
        self.name = name
        self.elements = []
        self.bytes = 0
        self.max_size = max_size
        self.memory = memory
        self.swaps = False  # a push asked for swap_memory: pops bring values back and prefetch

    def push(self, op, value, swap):
        """The StackPushV2 kernel's work (TensorFlow's `StackPushOp`): append, swapped to host memory when the push
        asks; a push past `max_size` is an error, as in TensorFlow."""
        if 0 <= self.max_size <= len(self.elements):
            raise errors.InvalidArgumentError(op, op, f"Stack[{self.name}] overflowed its max_size "
                                                      f"({self.max_size})")
        self.bytes += value.nbytes if type(value) is np.ndarray else np.asarray(value).nbytes
        if swap:
            self.swaps = True
            value = op_kernel_context.swap_out(self.name, value)
        self.elements.append(value)
        if self.memory is not None:
            self.memory.record(self.name, self.bytes, swap)

    def pop(self, op):
        """The StackPopV2 kernel's work (TensorFlow's `StackPopOp`): the last value pushed, swapped back in if it was
        swapped out, and the next two pops prefetched; popping an empty stack is an error."""
        if not self.elements:
            raise errors.InvalidArgumentError(op, op, f"Stack[{self.name}] is empty.")
        value = self.elements.pop()
        if self.swaps:
            value = op_kernel_context.swap_in(value)
            op_kernel_context.prefetch(self.elements[:-3:-1])  # the next two pops (StackPopV2 copies on demand)
        self.bytes -= value.nbytes if type(value) is np.ndarray else np.asarray(value).nbytes
        if self.memory is not None:
            self.memory.record(self.name, self.bytes, False)
        return value


def _stack_kernel(op, state):
    name = op.name
    return lambda max_size: StackState(name, int(max_size), state.memory)


def _push_kernel(op, state):
    swap = op.get_attr("swap_memory")

    def push(handle, value):
        handle.push(op, value, swap)
        return value
    return push


def _pop_kernel(op, state):
    return lambda handle: handle.pop(op)


register_op("StackV2", lambda op: [(dtypes.resource, TensorShape([2]))], _stack_kernel, stateful=True)
register_op("StackPushV2", lambda op: [(op._inputs[1].dtype, op._inputs[1].shape)], _push_kernel, stateful=True)
register_op("StackPopV2", lambda op: [(op.get_attr("elem_type"), TensorShape(None))], _pop_kernel, stateful=True)


def stack_v2(max_size, elem_type, stack_name="", name=None):
    """A StackV2 op (TensorFlow's `gen_data_flow_ops.stack_v2`): the handle of a stack, how v1 loop gradients keep a
    forward value per iteration (control_flow_state.py)."""
    return apply_op("StackV2", [("max_size", max_size)], {"elem_type": dtypes.as_dtype(elem_type),
                                                          "stack_name": stack_name},
                    name=name, default_name="StackV2", dtypes={"max_size": dtypes.int32}).outputs[0]


def stack_push_v2(handle, elem, swap_memory=False, name=None):
    """A StackPushV2 op (`gen_data_flow_ops.stack_push_v2`): pushes `elem` and outputs it, so the forward loop's control
    edges can order the pushes."""
    return apply_op("StackPushV2", [("handle", handle), ("elem", elem)], {"swap_memory": bool(swap_memory)},
                    name=name, default_name="StackPushV2").outputs[0]


def stack_pop_v2(handle, elem_type, name=None):
    """A StackPopV2 op (`gen_data_flow_ops.stack_pop_v2`): the gradient loop's matching pop."""
    return apply_op("StackPopV2", [("handle", handle)], {"elem_type": dtypes.as_dtype(elem_type)}, name=name,
                    default_name="StackPopV2").outputs[0]
