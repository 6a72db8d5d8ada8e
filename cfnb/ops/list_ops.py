"""TensorLists: the accumulators of functional While gradients (TensorFlow's list_ops.py).

A TensorList is a value (dtype `variant`): pushing returns a new list and leaves the old one as it
was. cfnb stores it as a persistent linked list, so push and pop are O(1) and several gradient
loops can pop the same forward accumulator independently.
"""
import numpy as np

from ..framework import dtypes, errors
from ..framework.op_def_library import apply_op
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape, as_shape


class TensorList:
    __slots__ = ("head", "rest", "length", "element_shape", "element_dtype")

    def __init__(self, head, rest, length, element_shape, element_dtype):
        self.head, self.rest, self.length = head, rest, length
        self.element_shape, self.element_dtype = element_shape, element_dtype

    def push(self, value):
        return TensorList(value, self, self.length + 1, self.element_shape, self.element_dtype)

    def to_list(self):
        out, node = [], self
        while node.length:
            out.append(node.head)
            node = node.rest
        return out[::-1]

    @property
    def nbytes(self):
        return sum(np.asarray(v).nbytes for v in self.to_list())

    def __repr__(self):
        return f"<TensorList of {self.length} {np.dtype(self.element_dtype).name}>"


def empty(element_shape, element_dtype):
    return TensorList(None, None, 0, element_shape, element_dtype)


def _empty_kernel(op):
    dt = op.get_attr("element_dtype").as_numpy_dtype
    return lambda element_shape, max_num_elements: empty(element_shape, dt)


def _push_kernel(op):
    return lambda handle, tensor: handle.push(tensor)


def _pop_kernel(op):
    def pop_back(handle, element_shape):
        if handle.length == 0:
            shape = np.asarray(element_shape).reshape(-1)
            if shape.size and (shape >= 0).all():
                return handle, np.zeros(tuple(int(d) for d in shape), dtype=handle.element_dtype)
            raise errors.InvalidArgumentError(op, op, "Trying to pop from an empty list.")
        return handle.rest, handle.head
    return pop_back


def _variant(op):
    return [(dtypes.variant, TensorShape([]))]


register_op("EmptyTensorList", _variant, _empty_kernel)
register_op("TensorListPushBack", _variant, _push_kernel)
register_op("TensorListPopBack", lambda op: [(dtypes.variant, TensorShape([])),
                                             (op.get_attr("element_dtype"), op.get_attr("element_shape_static"))],
            _pop_kernel, multi_output=True)
register_op("TensorListLength", lambda op: [(dtypes.int32, TensorShape([]))],
            lambda op: lambda handle: np.int32(handle.length))


def _shape_tensor(shape):
    shape = as_shape(shape)
    if shape.ndims is None:
        return np.int32(-1)
    return np.array([-1 if d is None else d for d in shape.as_list()], np.int32)


def empty_tensor_list(element_shape, element_dtype, max_num_elements=None, name=None):
    from .array_ops import constant
    shape_value = _shape_tensor(element_shape)
    return apply_op("EmptyTensorList", [("element_shape", constant(shape_value, dtypes.int32)),
                                        ("max_num_elements", -1 if max_num_elements is None else max_num_elements)],
                    {"element_dtype": dtypes.as_dtype(element_dtype), "element_shape_static": as_shape(element_shape)},
                    name=name, default_name="EmptyTensorList", dtypes={"max_num_elements": dtypes.int32}).outputs[0]


def tensor_list_push_back(input_handle, tensor, name=None):
    return apply_op("TensorListPushBack", [("input_handle", input_handle), ("tensor", tensor)],
                    {"element_dtype": tensor.dtype, "element_shape_static": tensor.shape}, name=name,
                    default_name="TensorListPushBack").outputs[0]


def tensor_list_pop_back(input_handle, element_dtype, element_shape=None, name=None):
    from .array_ops import constant
    shape = as_shape(element_shape) if element_shape is not None else TensorShape(None)
    outputs = apply_op("TensorListPopBack", [("input_handle", input_handle),
                                             ("element_shape", constant(_shape_tensor(shape), dtypes.int32))],
                       {"element_dtype": dtypes.as_dtype(element_dtype), "element_shape_static": shape}, name=name,
                       default_name="TensorListPopBack").outputs
    return outputs[0], outputs[1]
