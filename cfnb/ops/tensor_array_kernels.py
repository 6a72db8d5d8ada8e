"""The run-time side of a v1 TensorArray: the object a handle points at, and the kernels of the TensorArray ops.

TensorFlow keeps a TensorArray as a resource in the step's container (tensor_array.h) and its ops' kernels in
tensor_array_ops.cc; the same split here: `TensorArrayState` is the resource (its elements, size, element shape and
gradient arrays), the kernels read and write it, and the shape functions say what the graph knows statically.
tensor_array_ops.py builds the ops (TensorFlow's `_GraphTensorArray`).
"""
import itertools

import numpy as np

from ..framework import dtypes, errors, op_kernel_context
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape

_xp = op_kernel_context.device_module  # the array module of the kernel's device


class TensorArrayState:
    """The run-time object a TensorArray handle points at (one per execution of TensorArrayV3)."""

    __slots__ = ("name", "dtype", "size", "dynamic_size", "clear_after_read", "element_shape", "values", "read",
                 "accumulate", "grads", "identical_element_shapes", "marked_size")

    def __init__(self, name, dtype, size, dynamic_size, clear_after_read, element_shape, accumulate=False,
                 identical_element_shapes=False):
        self.name = name
        self.dtype = dtype
        self.size = int(size)
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.element_shape = element_shape
        self.values = [None] * self.size
        self.read = [False] * self.size
        self.accumulate = accumulate  # a gradient TensorArray: writes to one index add up
        self.grads = {}               # gradient TensorArrays, by gradient source
        # infer_shape: the first write fixes the element shape, so unwritten elements read as zeros of it
        # (TensorFlow's identical_element_shapes and TensorArray::LockedWriteOrAggregate)
        self.identical_element_shapes = identical_element_shapes
        # The size a split left (TensorArray::SetMarkedSize; -1 before any): a gradient array takes its forward
        # array's when it is created, and concatenates that many elements (PackOrConcatSize), not its own size.
        self.marked_size = -1

    def _check_index(self, op, index, writing):
        if index < 0 or (index >= self.size and not (writing and self.dynamic_size)):
            what = "write to index {} but array is not resizeable and" if writing else "read from index {} but array"
            raise errors.InvalidArgumentError(op, op, f"TensorArray {self.name}: Tried to {what.format(index)} size "
                                                      f"is: {self.size}")
        if index >= self.size:
            grow = index + 1 - self.size
            self.values.extend([None] * grow)
            self.read.extend([False] * grow)
            self.size = index + 1

    def write(self, op, index, value):
        """The TensorArrayWriteV3 kernel's work (TensorFlow's `TensorArray::Write`): each index is written once, a
        second write is TensorFlow's error; a gradient TensorArray (`accumulate`) adds instead, as gradients of a
        value read twice add up."""
        index = int(index)
        self._check_index(op, index, True)
        if self.values[index] is not None and self.accumulate:
            value = _xp().asarray(value)
            if value.shape != self.values[index].shape:
                raise errors.InvalidArgumentError(op, op, f"TensorArray {self.name}: Could not aggregate to "
                                                          f"TensorArray index {index} because the existing shape is "
                                                          f"{_debug_shape(self.values[index])} but the new input "
                                                          f"shape is {_debug_shape(value)}.")
            self.values[index] = self.values[index] + value
            return
        if self.values[index] is not None:
            raise errors.InvalidArgumentError(op, op, f"TensorArray {self.name}: Could not write to TensorArray index "
                                                      f"{index} because it has already been written to.")
        value = _xp().asarray(value)
        if self.dtype == np.object_ and value.dtype.kind in "SU":
            # a string element: numpy bytes/str arrays hold what a tf.string tensor holds as an object array
            value = dtypes.as_bytes_value(value.astype(object))
        if self.dtype is not None and value.dtype != self.dtype:
            raise errors.InvalidArgumentError(op, op, f"TensorArray dtype is {self.dtype} but Op is trying to write "
                                                      f"dtype {value.dtype}.")
        if self.element_shape is not None and not TensorShape(value.shape).is_compatible_with(self.element_shape):
            raise errors.InvalidArgumentError(op, op, f"Could not write to TensorArray index {index} because the "
                                                      f"value shape is {list(value.shape)} which is incompatible "
                                                      f"with the TensorArray's inferred element shape: "
                                                      f"{self.element_shape}.")
        self.values[index] = value
        if self.identical_element_shapes and (self.element_shape is None or not self.element_shape.is_fully_defined()):
            self.element_shape = TensorShape(value.shape)

    def read_at(self, op, index):
        """The TensorArrayReadV3 kernel's work (TensorFlow's `TensorArray::Read`): reading an element never written
        is an error, except in a gradient TensorArray, where it is zeros of the element shape (no gradient flowed
        there)."""
        index = int(index)
        self._check_index(op, index, False)
        value = self.values[index]
        if value is None and self.accumulate:
            # A gradient TensorArray: an element no gradient was written to has gradient zero.
            known = next((v for v in self.values if v is not None), None)
            if known is not None:
                return _xp().zeros_like(known)
            if self.element_shape is not None and self.element_shape.is_fully_defined():
                return _xp().zeros(self.element_shape.as_list(), dtype=self.dtype)
        if value is None:
            if self.read[index]:
                raise errors.InvalidArgumentError(
                    op, op, f"TensorArray {self.name}: Could not read index {index} twice because it was cleared "
                            f"after a previous read (perhaps try setting clear_after_read = false?)")
            if self.element_shape is not None and self.element_shape.is_fully_defined():
                # TensorFlow reads zeros there, and (clear_after_read) counts it as read
                self.read[index] = self.clear_after_read
                return _xp().zeros(self.element_shape.as_list(), dtype=self.dtype)
            raise errors.InvalidArgumentError(op, op, f"TensorArray {self.name}: Could not read from TensorArray "
                                                      f"index {index}: it was never written, and the element shape "
                                                      f"is not fully defined ({self.element_shape or '<unknown>'}) "
                                                      f"to read zeros. Set the TensorArray's element_shape.")
        if self.clear_after_read:
            self.values[index] = None
            self.read[index] = True
        return value[()] if value.ndim == 0 else value


def _flow_out(op):
    return [(dtypes.float32, TensorShape([]))]


def _elem(op):
    return op.get_attr("element_shape_holder")[0]


def _debug_shape(value):
    return "[" + ",".join(str(d) for d in value.shape) + "]"  # TensorShape::DebugString


_created = itertools.count()  # TensorArray::tensor_array_counter: every array created gets a name of its own


def _ta_kernel(op, state):
    """TensorArrayV3's kernel: a new array named `tensor_array_name` (the op's name when empty) and a counter, as
    TensorFlow's TensorArrayOp names it, which its error messages quote."""
    dt = op.get_attr("dtype").as_numpy_dtype
    dyn, clear, shape = op.get_attr("dynamic_size"), op.get_attr("clear_after_read"), op.get_attr("element_shape")
    base, identical = op.attr.get("tensor_array_name") or op.name, op.attr.get("identical_element_shapes", False)
    return lambda size: (TensorArrayState(f"{base}_{next(_created)}", dt, size, dyn, clear, shape,
                                          identical_element_shapes=identical), np.float32(0))


register_op("TensorArrayV3", lambda op: [(dtypes.resource, TensorShape([2])), (dtypes.float32, TensorShape([]))],
            _ta_kernel, stateful=True, multi_output=True)


def _write_kernel(op, state):
    def write(handle, index, value, flow):
        handle.write(op, index, value)
        return flow
    return write


def _read_kernel(op, state):
    return lambda handle, index, flow: handle.read_at(op, index)


def _set_element_shape(handle, op, shape):
    """TensorArray::SetElemShape: a gather or concat brings the element shape the graph inferred from the writes
    (its `element_shape` attr), so unwritten elements read as zeros of it even when no write ran."""
    if shape is not None and shape.ndims is not None and handle.element_shape is None:
        handle.element_shape = shape
    elif shape is not None and handle.element_shape is not None and shape.is_compatible_with(handle.element_shape):
        handle.element_shape = handle.element_shape.merge_with(shape)


def _partial_shape_text(shape):
    """A partial shape as TensorFlow's PartialTensorShape::DebugString writes it: `<unknown>`, `[?,2]`."""
    if shape is None or shape.ndims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _gather_kernel(op, state):
    def gather(handle, indices, flow):
        _set_element_shape(handle, op, _elem(op))
        vals = [handle.read_at(op, i) for i in np.reshape(indices, -1)]
        if not vals:
            # TensorFlow packs nothing only into a known element shape: the op's own (`element_shape`, what the
            # graph knew of the array's elements when the gather was built), not the array's
            shape = _elem(op)
            if shape.is_fully_defined():
                return _xp().zeros([0] + shape.as_list(), dtype=handle.dtype)
            raise errors.UnimplementedError(op, op, f"TensorArray has size zero, but element shape "
                                                    f"{_partial_shape_text(_elem(op))} is not fully defined. Currently "
                                                    f"only static shapes are supported when packing zero-size "
                                                    f"TensorArrays.")
        return _xp().stack(vals)
    return gather


def _scatter_kernel(op, state):
    def scatter(handle, indices, value, flow):
        for i, v in zip(np.reshape(indices, -1), _xp().asarray(value)):
            handle.write(op, i, v)
        return flow
    return scatter


def _check_concat_shapes(op, vals):
    """TensorArrayConcatOp's checks: each element at least a vector, all alike past dimension 0."""
    for i, v in enumerate(vals):
        if v.ndim == 0:
            raise errors.InvalidArgumentError(op, op, f"Concat saw a scalar shape at index {i} but requires at least "
                                                      f"vectors.")
        if v.shape[1:] != vals[0].shape[1:]:
            raise errors.InvalidArgumentError(op, op, f"TensorArray has inconsistent shapes.  Index 0 has (excepting "
                                                      f"dimension 0) shape: {list(vals[0].shape[1:])} but index {i} "
                                                      f"has (excepting dimension 0) shape: {list(v.shape[1:])}")


def _concat_kernel(op, state):
    def concat(handle, flow):
        size = handle.marked_size if handle.accumulate and handle.marked_size >= 0 else handle.size
        vals = [_xp().asarray(handle.read_at(op, i)) for i in range(size)]
        _check_concat_shapes(op, vals)
        lengths = _xp().array([v.shape[0] for v in vals], dtype=np.int64)
        if vals:
            return _xp().concatenate(vals), lengths
        # Nothing to concatenate: TensorFlow allocates [0] + element_shape_except0, the element shape the graph
        # inferred without its first dimension, and refuses when that is not fully defined.
        except0 = _elem(op)[1:] if _elem(op).ndims else TensorShape(None)
        if not except0.is_fully_defined():
            raise errors.UnimplementedError(op, op, f"TensorArray has size zero, but element_shape_except0 "
                                                    f"{_partial_shape_text(except0)} is not fully defined. Currently "
                                                    f"only static shapes are supported when concatenating zero-size "
                                                    f"TensorArrays.")
        return _xp().zeros([0] + except0.as_list(), dtype=handle.dtype), lengths
    return concat


def _check_split(op, handle, value, lengths):
    """TensorArraySplitOp's checks, with its messages."""
    if np.ndim(lengths) != 1:
        raise errors.InvalidArgumentError(op, op, f"Expected lengths to be a vector, received shape: "
                                                  f"{list(np.shape(lengths))}")
    if value.ndim == 0:
        raise errors.InvalidArgumentError(op, op, "Expected value to be at least a vector, but received shape: []")
    if int(np.sum(lengths)) != value.shape[0]:
        raise errors.InvalidArgumentError(op, op, f"Expected sum of lengths to be equal to values.shape[0], but sum "
                                                  f"of lengths is {int(np.sum(lengths))} and value's shape is: "
                                                  f"{list(value.shape)}.")
    if len(lengths) != handle.size and not handle.dynamic_size:
        raise errors.InvalidArgumentError(op, op, f"TensorArray's size is not equal to the size of lengths "
                                                  f"({handle.size} vs. {len(lengths)}), and the TensorArray is not "
                                                  f"marked as dynamically resizeable")


def _split_kernel(op, state):
    def split(handle, value, lengths, flow):
        value = _xp().asarray(value)
        _check_split(op, handle, value, lengths)
        offsets = np.cumsum([0] + [int(n) for n in lengths])
        if not handle.accumulate:
            handle.marked_size = len(lengths)  # TensorArraySplitOp's SetMarkedSize
        for i in range(len(lengths)):
            handle.write(op, i, value[offsets[i]:offsets[i + 1]])
        return flow
    return split


register_op("TensorArrayWriteV3", _flow_out, _write_kernel, stateful=True)
register_op("TensorArrayReadV3", lambda op: [(op.get_attr("dtype"), _elem(op))], _read_kernel, stateful=True)


def _created_element_shape(handle):
    """The element shape the array was created with, which TensorFlow's shape functions read from the handle
    (its handle data, passed on by Enter, Switch and Merge); unknown when created without one."""
    while handle.op.type in ("Enter", "Identity", "Switch", "Merge"):
        handle = handle.op.inputs[0]
    shape = handle.op.attr.get("element_shape") if handle.op.type == "TensorArrayV3" else None
    return shape if shape is not None else TensorShape(None)


def _gather_infer(op):
    """TensorFlow's shape function (the indices' shape, then the element shape the handle was created with),
    merged with what `_GraphTensorArray.gather` sets: any length, then the element shape inferred from writes."""
    indices = op._inputs[1]
    shape = TensorShape([indices.shape[0] if indices.shape.ndims else None]).concatenate(
        _created_element_shape(op._inputs[0]))
    if _elem(op).ndims is not None:
        shape = shape.merge_with(TensorShape([None]).concatenate(_elem(op)))
    return [(op.get_attr("dtype"), shape)]


register_op("TensorArrayGatherV3", _gather_infer, _gather_kernel, stateful=True)
register_op("TensorArrayScatterV3", _flow_out, _scatter_kernel, stateful=True)
register_op("TensorArrayConcatV3", lambda op: [(op.get_attr("dtype"), TensorShape([None]).concatenate(
    _elem(op)[1:] if _elem(op).ndims else TensorShape(None))), (dtypes.int64, TensorShape([None]))],
    _concat_kernel, stateful=True, multi_output=True)
register_op("TensorArraySplitV3", _flow_out, _split_kernel, stateful=True)
register_op("TensorArraySizeV3", lambda op: [(dtypes.int32, TensorShape([]))],
            lambda op, state: lambda handle, flow: np.int32(handle.size), stateful=True)
register_op("TensorArrayCloseV3", lambda op: [], lambda op, state: lambda handle: None, stateful=True)
