"""TensorArray, v1 semantics (`tensor_array_ops._GraphTensorArray`).

A TensorArray is a resource handle plus a scalar float `flow` tensor. Every write returns a new
flow, and reads take the latest flow as an input: that data edge is what orders writes before
reads in a dataflow graph. In a `while_loop` only the flow is a loop variable; the Python object
is rebuilt around the flow inside the body (`_with_new_flow`).
"""
from ..framework import dtypes
from ..framework.op_def_library import apply_op
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from ..framework.tensor_shape import TensorShape, as_shape
from ..framework.tensor_util import constant_value
from . import array_ops, list_ops, tensor_array_kernels  # noqa: F401 - registers the TensorArray ops
from .array_ops import _const_value, constant, identity
from .control_flow_ops import group
from .control_flow_v2_toggles import control_flow_v2_enabled


def _check_element_shape(ta, shape):
    """A value must fit the element shape, inferred or given (TensorFlow's `_check_element_shape`);
    with `infer_shape` the first write fixes the shape for later ones."""
    if not shape.is_compatible_with(ta._element_shape[0]):
        raise ValueError(f"Inconsistent shapes: saw {shape} but expected {ta._element_shape[0]} ")
    if ta._infer_shape:
        ta._element_shape[0] = ta._element_shape[0].merge_with(shape)


def _split_element_shape(ta, value, lengths):
    """TensorFlow's `split` with `infer_shape`: constant, equal lengths give every element the shape
    [length] + value's other dimensions."""
    if ta._infer_shape and value.shape.ndims is not None:
        clengths = constant_value(lengths)
        if clengths is not None and clengths.size and clengths.max() == clengths.min():
            _check_element_shape(ta, TensorShape([int(clengths[0])]).concatenate(value.shape[1:]))


def _lengths_64(lengths):
    """TensorArray.split's `lengths` as the int64 vector the op takes: TensorFlow casts int32 ones
    (`math_ops.cast(lengths, dtypes.int64)` in both TensorArray classes)."""
    lengths = convert_to_tensor(lengths, name="lengths", dtype_hint=dtypes.int64)
    return lengths if lengths.dtype == dtypes.int64 else array_ops.cast(lengths, dtypes.int64)


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
        """Write `value` at `index` (TensorFlow's `_GraphTensorArray.write`): a TensorArrayWriteV3 op whose new flow
        orders this write before later reads. Returns the TensorArray with the new flow (the old one must not be used
        again)."""
        with get_default_graph().name_scope(name or "TensorArrayWrite") as scope:
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            if value.dtype != self._dtype:
                raise TypeError(f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                                f"{value.dtype.name}")  # TensorFlow's kernel text (it fails at run time)
            self._merge_element_shape(value.shape)
            flow = apply_op("TensorArrayWriteV3", [("handle", self._handle), ("index", index), ("value", value),
                                                   ("flow_in", self._flow)], self._attrs(),
                            dtypes={"index": dtypes.int32}).outputs[0]
            del scope
        return self._with_new_flow(flow)

    def read(self, index, name=None):
        """The element at `index` (TensorFlow's `_GraphTensorArray.read`), read after every write that made the current
        flow."""
        return apply_op("TensorArrayReadV3", [("handle", self._handle), ("index", index), ("flow_in", self._flow)],
                        self._attrs(), name=name, default_name="TensorArrayReadV3",
                        dtypes={"index": dtypes.int32}).outputs[0]

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked along a new first dimension (TensorFlow's `_GraphTensorArray.gather`)."""
        return apply_op("TensorArrayGatherV3", [("handle", self._handle), ("indices", indices),
                                                ("flow_in", self._flow)], self._attrs(), name=name,
                        default_name="TensorArrayGatherV3", dtypes={"indices": dtypes.int32}).outputs[0]

    def stack(self, name=None):
        """All elements stacked along a new first dimension (TensorFlow's `_GraphTensorArray.stack`: a gather of
        `range(size)`), with the static shape when the size is a constant."""
        with get_default_graph().name_scope(name or "TensorArrayStack"):
            value = self.gather(array_ops.range(0, self.size()))
            size = self._size if isinstance(self._size, int) else constant_value(self._size)
            if self._element_shape[0].ndims is not None and not self._dynamic_size and size is not None:
                value.set_shape([int(size)] + self._element_shape[0].as_list())  # _GraphTensorArray.stack
            return value

    def scatter(self, indices, value, name=None):
        """Write the rows of `value` at `indices` (TensorFlow's `_GraphTensorArray.scatter`)."""
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
        """Write the rows of `value` at 0, 1, ... (TensorFlow's `_GraphTensorArray.unstack`): how a loop over a tensor's
        rows starts."""
        with get_default_graph().name_scope(name or "TensorArrayUnstack") as scope:
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            n = value.shape[0] if value.shape.ndims and value.shape[0] is not None else array_ops.shape(value)[0]
            return self.scatter(array_ops.range(0, n), value, name=scope)

    def concat(self, name=None):
        """All elements joined along their first dimension (TensorFlow's `_GraphTensorArray.concat`)."""
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
        """Write `value` cut along its first dimension into pieces of `lengths` (TensorFlow's
        `_GraphTensorArray.split`)."""
        with get_default_graph().name_scope(name or "TensorArraySplit") as scope:
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            lengths = _lengths_64(lengths)
            _split_element_shape(self, value, lengths)
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
        """A TensorArrayCloseV3 op: frees the array at run time (TensorFlow's `_GraphTensorArray.close`)."""
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

    def mark_used(self):
        """Nothing to do: TensorFlow wraps a v1 TensorArray that write/unstack return so that it warns when the result
        is dropped, and `mark_used()` silences that warning; cfnb has no such wrapper, so code that calls it runs."""

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
        """As `TensorArray.write`, on a TensorList flow (TensorFlow's `_GraphTensorArrayV2.write`: TensorListSetItem,
        growing the list when the size is dynamic)."""
        with get_default_graph().name_scope(name or "TensorArrayV2Write"):
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            if value.dtype != self._dtype:
                raise TypeError(f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                                f"{value.dtype.name}")  # TensorFlow's kernel text (it fails at run time)
            self._merge_element_shape(value.shape)
            flow = list_ops.tensor_list_set_item(self._flow, index, value,
                                                 resize_if_index_out_of_bounds=self._dynamic_size)
        return self._with_new_flow(flow)

    def read(self, index, name=None):
        """As `TensorArray.read` (TensorFlow's `_GraphTensorArrayV2.read`: TensorListGetItem)."""
        return list_ops.tensor_list_get_item(self._flow, index, self._dtype, self._element_shape[0], name=name)

    def stack(self, name=None):
        """As `TensorArray.stack` (TensorFlow's `_GraphTensorArrayV2.stack`: TensorListStack)."""
        with get_default_graph().name_scope(name or "TensorArrayV2Stack"):
            n = self._size if isinstance(self._size, int) and not self._dynamic_size else -1
            return list_ops.tensor_list_stack(self._flow, self._dtype, self._element_shape[0], num_elements=n)

    def gather(self, indices, name=None):
        """As `TensorArray.gather` (TensorFlow's `_GraphTensorArrayV2.gather`: TensorListGather)."""
        return list_ops.tensor_list_gather(self._flow, indices, self._dtype, self._element_shape[0], name=name)

    def unstack(self, value, name=None):
        """As `TensorArray.unstack` (TensorFlow's `_GraphTensorArrayV2.unstack`: TensorListFromTensor)."""
        with get_default_graph().name_scope(name or "TensorArrayUnstack"):
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            if value.shape.ndims:
                self._merge_element_shape(value.shape[1:])
            return self._with_new_flow(list_ops.tensor_list_from_tensor(value, self._element_shape[0]))

    def scatter(self, indices, value, name=None):
        """As `TensorArray.scatter` (TensorFlow's `_GraphTensorArrayV2.scatter`: TensorListScatterIntoExistingList)."""
        with get_default_graph().name_scope(name or "TensorArrayScatter"):
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            if value.shape.ndims:
                self._merge_element_shape(value.shape[1:])
            return self._with_new_flow(list_ops.tensor_list_scatter(self._flow, value, indices))

    def concat(self, name=None):
        """As `TensorArray.concat` (TensorFlow's `_GraphTensorArrayV2.concat`: TensorListConcatV2)."""
        return list_ops.tensor_list_concat(self._flow, self._dtype, self._element_shape[0], name=name)[0]

    def split(self, value, lengths, name=None):
        """As `TensorArray.split` (TensorFlow's `_GraphTensorArrayV2.split`: TensorListSplit)."""
        with get_default_graph().name_scope(name or "TensorArraySplit"):
            value = convert_to_tensor(value, name="value", dtype_hint=self._dtype)
            lengths = _lengths_64(lengths)
            _split_element_shape(self, value, lengths)
            return self._with_new_flow(list_ops.tensor_list_split(value, lengths))

    def identity(self):
        """The same array on an Identity of its flow (TensorFlow's `_GraphTensorArrayV2.identity`), e.g. to move it
        under control dependencies."""
        return self._with_new_flow(identity(self._flow))

    def grad(self, source, flow=None, name=None):
        """Not available for a TensorList-backed array, as in TensorFlow (_GraphTensorArrayV2.grad)."""
        raise NotImplementedError()

    def size(self, name=None):
        """The number of elements (TensorFlow's `_GraphTensorArrayV2.size`): a constant for a fixed size, else
        TensorListLength."""
        if not self._dynamic_size and self._size is not None and not isinstance(self._size, Tensor):
            return convert_to_tensor(self._size, dtype=dtypes.int32, name=name or "Const")
        return list_ops.tensor_list_length(self._flow, name=name)

    def close(self, name=None):
        """A no-op group on the flow (TensorFlow's `_GraphTensorArrayV2.close`): a TensorList needs no freeing."""
        return group(self._flow, name=name)

    def __repr__(self):
        return f"<cfnb.TensorArray (TensorList) dtype={self._dtype.name} flow={self._flow.name}>"
