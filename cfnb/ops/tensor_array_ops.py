"""TensorArray, v1 semantics (`tensor_array_ops._GraphTensorArray`).

A TensorArray is a resource handle plus a scalar float `flow` tensor. Every write returns a new
flow, and reads take the latest flow as an input: that data edge is what orders writes before
reads in a dataflow graph. In a `while_loop` only the flow is a loop variable; the Python object
is rebuilt around the flow inside the body (`_with_new_flow`).
"""
import numpy as np

from ..framework import dtypes, errors, op_kernel_context
from ..framework.op_def_library import apply_op
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape, as_shape
from ..framework.tensor_util import constant_value
from . import array_ops, list_ops
from .array_ops import _const_value, constant, identity
from .control_flow_ops import group
from .control_flow_v2_toggles import control_flow_v2_enabled

_xp = op_kernel_context.device_module  # the array module of the kernel's device


class TensorArrayState:
    """The run-time object a TensorArray handle points at (one per execution of TensorArrayV3)."""

    __slots__ = ("name", "dtype", "size", "dynamic_size", "clear_after_read", "element_shape", "values", "read",
                 "accumulate", "grads", "identical_element_shapes")

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

    def _check_index(self, op, index, writing):
        if index < 0 or (index >= self.size and not (writing and self.dynamic_size)):
            verb = "write to" if writing else "read from"
            raise errors.InvalidArgumentError(op, op, f"TensorArray {self.name}: Tried to {verb} index {index} but "
                                                      f"array size is: {self.size}")
        if index >= self.size:
            grow = index + 1 - self.size
            self.values.extend([None] * grow)
            self.read.extend([False] * grow)
            self.size = index + 1

    def write(self, op, index, value):
        index = int(index)
        self._check_index(op, index, True)
        if self.values[index] is not None and self.accumulate:
            self.values[index] = self.values[index] + _xp().asarray(value)
            return
        if self.values[index] is not None:
            raise errors.InvalidArgumentError(op, op, f"TensorArray {self.name}: Could not write to TensorArray index "
                                                      f"{index} because it has already been written to.")
        value = _xp().asarray(value)
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


def _ta_kernel(op, state):
    dt = op.get_attr("dtype").as_numpy_dtype
    dyn, clear, shape = op.get_attr("dynamic_size"), op.get_attr("clear_after_read"), op.get_attr("element_shape")
    name, identical = op.name, op.attr.get("identical_element_shapes", False)
    return lambda size: (TensorArrayState(name, dt, size, dyn, clear, shape, identical_element_shapes=identical),
                         np.float32(0))


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


def _concat_kernel(op, state):
    def concat(handle, flow):
        vals = [_xp().asarray(handle.read_at(op, i)) for i in range(handle.size)]
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


def _split_kernel(op, state):
    def split(handle, value, lengths, flow):
        value = _xp().asarray(value)
        offsets = np.cumsum([0] + [int(n) for n in lengths])
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


def _check_element_shape(ta, shape):
    """A value must fit the element shape, inferred or given (TensorFlow's `_check_element_shape`);
    with `infer_shape` the first write fixes the shape for later ones."""
    if not shape.is_compatible_with(ta._element_shape[0]):
        raise ValueError(f"Inconsistent shapes: saw {shape} but expected {ta._element_shape[0]} ")
    if ta._infer_shape:
        ta._element_shape[0] = ta._element_shape[0].merge_with(shape)


class TensorArray:
    """`tf.TensorArray`: `write`/`read`/`stack`/`unstack`/`gather`/`scatter`/`concat`/`split`.

    With control flow v1 it is a resource handle plus a float `flow` (below); with control flow v2,
    or inside a function, it is a TensorArrayV2, whose flow is a TensorList, as in TensorFlow."""

    def __new__(cls, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                name=None):
        if handle is None and (control_flow_v2_enabled() or get_default_graph().building_function) \
                and (flow is None or flow.dtype == dtypes.variant):
            return TensorArrayV2(dtype, size=size, dynamic_size=dynamic_size, element_shape=element_shape,
                                 flow=flow, infer_shape=infer_shape, name=name)
        return super().__new__(cls)

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        # Shared (one list) between every TensorArray object rebuilt around a new flow, so a shape
        # learnt from a write inside a loop body is known to reads after the loop.
        self._element_shape = [as_shape(element_shape) if element_shape is not None else TensorShape(None)]
        self._size = None
        if handle is not None:
            self._handle, self._flow = handle, flow
            return
        if size is None:
            raise ValueError("Size must be provided if handle is not provided")
        self._size = size
        g = get_default_graph()
        with g.name_scope(name or "TensorArray") as scope:
            op = apply_op("TensorArrayV3", [("size", size)],
                          {"dtype": self._dtype, "element_shape": self._element_shape[0] if element_shape is not None
                           else None, "element_shape_holder": self._element_shape, "dynamic_size": self._dynamic_size,
                           "clear_after_read": self._clear_after_read,
                           "identical_element_shapes": bool(infer_shape),
                           "tensor_array_name": tensor_array_name or ""},
                          name=scope, dtypes={"size": dtypes.int32})
        self._handle, self._flow = op.outputs

    dtype = property(lambda self: self._dtype)
    handle = property(lambda self: self._handle)
    flow = property(lambda self: self._flow)
    element_shape = property(lambda self: self._element_shape[0])

    # --- control-flow protocol: a TensorArray travels as its flow ---------------------------
    def _flow_for_control_flow(self):
        return self._flow

    def _with_new_flow(self, flow):
        ta = TensorArray(self._dtype, handle=self._handle, flow=flow, infer_shape=self._infer_shape,
                         dynamic_size=self._dynamic_size, clear_after_read=self._clear_after_read)
        ta._element_shape, ta._size = self._element_shape, self._size
        return ta

    def _merge_element_shape(self, shape):
        _check_element_shape(self, shape)

    def _attrs(self):
        return {"dtype": self._dtype, "element_shape_holder": self._element_shape}

    # --- operations ----------------------------------------------------------------------------
    def write(self, index, value, name=None):
        with get_default_graph().name_scope(name or "TensorArrayWrite") as scope:
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            if value.dtype != self._dtype:
                raise TypeError(f"TensorArray dtype is {self._dtype.name} but the value written has dtype "
                                f"{value.dtype.name}")
            self._merge_element_shape(value.shape)
            flow = apply_op("TensorArrayWriteV3", [("handle", self._handle), ("index", index), ("value", value),
                                                   ("flow_in", self._flow)], self._attrs(),
                            dtypes={"index": dtypes.int32}).outputs[0]
            del scope
        return self._with_new_flow(flow)

    def read(self, index, name=None):
        return apply_op("TensorArrayReadV3", [("handle", self._handle), ("index", index), ("flow_in", self._flow)],
                        self._attrs(), name=name, default_name="TensorArrayReadV3",
                        dtypes={"index": dtypes.int32}).outputs[0]

    def gather(self, indices, name=None):
        return apply_op("TensorArrayGatherV3", [("handle", self._handle), ("indices", indices),
                                                ("flow_in", self._flow)], self._attrs(), name=name,
                        default_name="TensorArrayGatherV3", dtypes={"indices": dtypes.int32}).outputs[0]

    def stack(self, name=None):
        with get_default_graph().name_scope(name or "TensorArrayStack"):
            value = self.gather(array_ops.range(0, self.size()))
            size = self._size if isinstance(self._size, int) else constant_value(self._size)
            if self._element_shape[0].ndims is not None and not self._dynamic_size and size is not None:
                value.set_shape([int(size)] + self._element_shape[0].as_list())  # _GraphTensorArray.stack
            return value

    def scatter(self, indices, value, name=None):
        with get_default_graph().name_scope(name or "TensorArrayScatter") as scope:
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            if value.shape.ndims:
                self._merge_element_shape(value.shape[1:])
            flow = apply_op("TensorArrayScatterV3", [("handle", self._handle), ("indices", indices),
                                                     ("value", value), ("flow_in", self._flow)], self._attrs(),
                            dtypes={"indices": dtypes.int32}).outputs[0]
            del scope
        return self._with_new_flow(flow)

    def unstack(self, value, name=None):
        with get_default_graph().name_scope(name or "TensorArrayUnstack") as scope:
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            n = value.shape[0] if value.shape.ndims and value.shape[0] is not None else array_ops.shape(value)[0]
            return self.scatter(array_ops.range(0, n), value, name=scope)

    def concat(self, name=None):
        value = apply_op("TensorArrayConcatV3", [("handle", self._handle), ("flow_in", self._flow)], self._attrs(),
                         name=name, default_name="TensorArrayConcatV3").outputs[0]
        shape = self._element_shape[0]
        if self._infer_shape and shape.ndims and shape[0] is not None:
            # TensorFlow's _GraphTensorArray.concat: a constant size times a known first dimension
            size = self._size if isinstance(self._size, int) else constant_value(self._size)
            if size is not None and not self._dynamic_size:
                value.set_shape([int(size) * shape[0]] + shape.as_list()[1:])
        return value

    def split(self, value, lengths, name=None):
        with get_default_graph().name_scope(name or "TensorArraySplit") as scope:
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            flow = apply_op("TensorArraySplitV3", [("handle", self._handle), ("value", value),
                                                   ("lengths", lengths), ("flow_in", self._flow)], self._attrs(),
                            name=scope, dtypes={"lengths": dtypes.int64}).outputs[0]
        return self._with_new_flow(flow)

    def size(self, name=None):
        """The number of elements: a constant when the size is fixed and known (as TensorFlow folds it)."""
        size_op = self._handle.op
        if not self._dynamic_size and size_op.type == "TensorArrayV3":
            known = _const_value(size_op.inputs[0])
            if known is not None:
                return constant(int(known), dtypes.int32, name=name or "Const")
        return apply_op("TensorArraySizeV3", [("handle", self._handle), ("flow_in", self._flow)], name=name,
                        default_name="TensorArraySizeV3").outputs[0]

    def close(self, name=None):
        return apply_op("TensorArrayCloseV3", [("handle", self._handle)], name=name,
                        default_name="TensorArrayCloseV3")

    def identity(self):
        """The same array with its flow through an Identity (a fresh ordering point, TensorArray.identity)."""
        return self._with_new_flow(identity(self._flow))

    def grad(self, source, flow=None, name=None):
        """The gradient TensorArray for `source` (TensorArrayGradV3): same size, one per source per run,
        so every call with the same source reaches the same array; it learns the element shape."""
        flow = self._flow if flow is None else flow
        g = get_default_graph()
        with g.name_scope(name or "TensorArrayGrad"):
            grad_handle, _ = apply_op("TensorArrayGradV3", [("handle", self._handle), ("flow_in", flow)],
                                      {"source": source, "element_shape": self._element_shape[0]}).outputs
            with g.control_dependencies([grad_handle]):
                flow = identity(flow, name="gradient_flow")
        ta = TensorArray(self._dtype, handle=grad_handle, flow=flow, infer_shape=self._infer_shape)
        ta._element_shape = self._element_shape
        return ta

    def __repr__(self):
        return f"<cfnb.TensorArray dtype={self._dtype.name} flow={self._flow.name}>"


class TensorArrayV2:
    """A TensorArray in a functional graph (TensorFlow's _GraphTensorArrayV2): no handle, its flow *is*
    the TensorList (a `variant` value), so it crosses function boundaries as an ordinary value and its
    gradients are those of the list ops."""

    def __init__(self, dtype, size=None, dynamic_size=None, element_shape=None, flow=None, infer_shape=True,
                 name=None):
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._size = size
        self._element_shape = [as_shape(element_shape) if element_shape is not None else TensorShape(None)]
        if flow is not None:
            self._flow = flow
            return
        if size is None:
            raise ValueError("Size must be provided if flow is not provided")
        with get_default_graph().name_scope(name or "TensorArrayV2"):
            self._flow = list_ops.tensor_list_reserve(self._element_shape[0], size, self._dtype)

    dtype = property(lambda self: self._dtype)
    flow = property(lambda self: self._flow)
    handle = property(lambda self: None)  # as TensorFlow: legacy code may read it
    element_shape = property(lambda self: self._element_shape[0])

    def _flow_for_control_flow(self):
        return self._flow

    def _with_new_flow(self, flow):
        ta = TensorArrayV2(self._dtype, flow=flow, dynamic_size=self._dynamic_size, infer_shape=self._infer_shape)
        ta._size = self._size
        ta._element_shape = self._element_shape
        return ta

    def _merge_element_shape(self, shape):
        _check_element_shape(self, shape)

    def write(self, index, value, name=None):
        with get_default_graph().name_scope(name or "TensorArrayV2Write"):
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            if value.dtype != self._dtype:
                raise TypeError(f"TensorArray dtype is {self._dtype.name} but the value written has dtype "
                                f"{value.dtype.name}")
            self._merge_element_shape(value.shape)
            flow = list_ops.tensor_list_set_item(self._flow, index, value,
                                                 resize_if_index_out_of_bounds=self._dynamic_size)
        return self._with_new_flow(flow)

    def read(self, index, name=None):
        return list_ops.tensor_list_get_item(self._flow, index, self._dtype, self._element_shape[0], name=name)

    def stack(self, name=None):
        with get_default_graph().name_scope(name or "TensorArrayV2Stack"):
            n = self._size if isinstance(self._size, int) and not self._dynamic_size else -1
            return list_ops.tensor_list_stack(self._flow, self._dtype, self._element_shape[0], num_elements=n)

    def gather(self, indices, name=None):
        return list_ops.tensor_list_gather(self._flow, indices, self._dtype, self._element_shape[0], name=name)

    def unstack(self, value, name=None):
        with get_default_graph().name_scope(name or "TensorArrayUnstack"):
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            if value.shape.ndims:
                self._merge_element_shape(value.shape[1:])
            return self._with_new_flow(list_ops.tensor_list_from_tensor(value, self._element_shape[0]))

    def scatter(self, indices, value, name=None):
        with get_default_graph().name_scope(name or "TensorArrayScatter"):
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            if value.shape.ndims:
                self._merge_element_shape(value.shape[1:])
            return self._with_new_flow(list_ops.tensor_list_scatter(self._flow, value, indices))

    def concat(self, name=None):
        return list_ops.tensor_list_concat(self._flow, self._dtype, self._element_shape[0], name=name)[0]

    def split(self, value, lengths, name=None):
        with get_default_graph().name_scope(name or "TensorArraySplit"):
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            return self._with_new_flow(list_ops.tensor_list_split(value, lengths))

    def identity(self):
        return self._with_new_flow(identity(self._flow))

    def grad(self, source, flow=None, name=None):
        """Not available for a TensorList-backed array, as in TensorFlow (_GraphTensorArrayV2.grad)."""
        raise NotImplementedError()

    def size(self, name=None):
        if not self._dynamic_size and self._size is not None and not isinstance(self._size, Tensor):
            return convert_to_tensor(self._size, dtype=dtypes.int32, name=name or "Const")
        return list_ops.tensor_list_length(self._flow, name=name)

    def close(self, name=None):
        return group(self._flow, name=name)

    def __repr__(self):
        return f"<cfnb.TensorArray (TensorList) dtype={self._dtype.name} flow={self._flow.name}>"
