"""TensorLists: the accumulators of functional While gradients (TensorFlow's list_ops.py).

A TensorList is a value (dtype `variant`): pushing returns a new list and leaves the old one as it
was. cfnb stores it as a persistent linked list, so push and pop are O(1) and several gradient
loops can pop the same forward accumulator independently.
"""
import numpy as np

from ..framework import dtypes, errors, op_kernel_context
from ..framework.op_def_library import apply_op
from ..framework.ops import Tensor
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape, as_shape
from .array_ops import constant

_xp = op_kernel_context.device_module  # the array module of the kernel's device


class TensorList:
    """An immutable list of tensors, in one of two shapes: a linked node (`push` and `pop` are O(1), as
    the accumulators of loop gradients need) or a tuple of items (indexing is O(1), as TensorArrays
    need). Each converts to the other on demand, and the conversion is cached."""

    __slots__ = ("_head", "_rest", "length", "element_shape", "element_dtype", "_items")

    def __init__(self, head, rest, length, element_shape, element_dtype, items=None):
        self._head, self._rest, self.length = head, rest, length
        self.element_shape, self.element_dtype = element_shape, element_dtype
        self._items = items

    def push(self, value):
        """A new list with `value` appended, sharing this one as its tail: O(1), so a loop that pushes every iteration
        (a v2 gradient accumulator) copies nothing, as TensorFlow's TensorListPushBack avoids a copy when it holds
        the only reference."""
        return TensorList(value, self, self.length + 1, self.element_shape, self.element_dtype)

    def zeros_like(self):
        """A list of zeros of this one's length and element shapes (TensorFlow's TensorListZerosLike,
        the ZerosLike of a loop's accumulator)."""
        out = TensorList(None, None, 0, self.element_shape, self.element_dtype, items=())
        for v in self.to_list():
            # a list of lists (an outer loop's accumulator of an inner one's): zeros all the way down
            out = out.push(None if v is None else v.zeros_like() if isinstance(v, TensorList) else np.zeros_like(v))
        return out

    @property
    def head(self):
        """The last element: what a PopBack returns."""
        return self._head if self._items is None else self._items[-1]

    @property
    def rest(self):
        """The list without its last element: what a PopBack leaves."""
        if self._rest is None and self._items is not None:
            self._rest = TensorList.from_items(self._items[:-1], self.element_shape, self.element_dtype)
        return self._rest

    def to_list(self):
        """The elements in order, as a Python list (computed once from the chain of pushes)."""
        if self._items is None:
            out, node = [], self
            while node.length and node._items is None:
                out.append(node._head)
                node = node._rest
            self._items = (node._items if node.length else ()) + tuple(out[::-1])
        return list(self._items)

    @classmethod
    def from_items(cls, items, element_shape, element_dtype):
        """A list holding `items` (what TensorListFromTensor, Reserve and SetItem build)."""
        items = tuple(items)
        return cls(None, None, len(items), element_shape, element_dtype, items=items)

    def item(self, op, index, element_shape=None):
        """Element `index`; one reserved but never set reads as zeros of the element shape, which comes from the
        op's `element_shape` input, the list's, or another element (TensorFlow's TensorListGetItem)."""
        items = self.to_list()
        if not 0 <= index < len(items):
            raise errors.InvalidArgumentError(op, op, f"Trying to access element {index} in a list with "
                                                      f"{len(items)} elements.")
        value = items[index]
        if value is None:
            shape = _first_known(element_shape, self.element_shape)
            if shape is not None:
                return _xp().zeros(shape, dtype=self.element_dtype)
            known = next((v for v in items if v is not None), None)
            if known is not None:
                return _xp().zeros_like(known)
            raise errors.InvalidArgumentError(op, op, f"Trying to read an uninitialized tensor (element {index}) but "
                                                      f"element_shape is not fully defined and no list element is "
                                                      f"set.")
        return op_kernel_context.swap_in(value)  # a swapped accumulator read by index comes back too

    def __add__(self, other):
        """Element-wise sum (gradients of a list add up like this); an unset element counts as zero."""
        a, b = self.to_list(), other.to_list()
        n = max(len(a), len(b))
        a, b = a + [None] * (n - len(a)), b + [None] * (n - len(b))
        items = [x if y is None else y if x is None else x + y for x, y in zip(a, b)]
        return TensorList.from_items(items, self.element_shape, self.element_dtype)

    @property
    def nbytes(self):
        """The bytes its elements hold: what device memory accounting charges for an accumulator."""
        return sum(np.asarray(v).nbytes for v in self.to_list())

    def __repr__(self):
        return f"<TensorList of {self.length} {np.dtype(self.element_dtype).name}>"


def known_shape(element_shape):
    """An element_shape tensor value (-1 for an unknown rank or dimension) as a tuple when fully known, else None."""
    if element_shape is None:
        return None
    shape = np.asarray(element_shape)
    if shape.ndim == 0 or (shape < 0).any():
        return None
    return tuple(int(d) for d in shape)


def _first_known(*element_shapes):
    return next((s for s in map(known_shape, element_shapes) if s is not None), None)


def empty(element_shape, element_dtype):
    """The empty list of an element dtype and shape: the run-time value of EmptyTensorList."""
    return TensorList(None, None, 0, element_shape, element_dtype, items=())


def _empty_kernel(op):
    dt = op.get_attr("element_dtype").as_numpy_dtype
    return lambda element_shape, max_num_elements: empty(element_shape, dt)


def _push_kernel(op):
    if op._attrs.get("_swap_memory"):  # a v2 loop's accumulator with while_loop(..., swap_memory=True)
        what = op.name
        return lambda handle, tensor: handle.push(op_kernel_context.swap_out(what, tensor))
    return lambda handle, tensor: handle.push(tensor)


def _pop_kernel(op):
    def pop_back(handle, element_shape):
        if handle.length == 0:
            shape = np.asarray(element_shape).reshape(-1)
            if shape.size and (shape >= 0).all():
                return handle, _xp().zeros(tuple(int(d) for d in shape), dtype=handle.element_dtype)
            raise errors.InvalidArgumentError(op, op, "Trying to pop from an empty list.")
        rest = handle.rest
        value = op_kernel_context.swap_in(handle.head)
        if rest.length and rest._items is None:  # the next two pops (a swapped accumulator is a linked list)
            op_kernel_context.prefetch([rest._head] + ([rest._rest._head] if rest.length > 1 and
                                                       rest._rest._items is None else []))
        return rest, value
    return pop_back


def _variant(op):
    return [(dtypes.variant, TensorShape([]))]


register_op("EmptyTensorList", _variant, _empty_kernel)
register_op("TensorListElementShape", lambda op: [(dtypes.int32, TensorShape([None]))],
            lambda op: lambda handle: np.asarray(handle.element_shape, np.int32).reshape(-1))
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
    """An EmptyTensorList op (gen_list_ops.empty_tensor_list): while_v2 starts each gradient accumulator as one, outside
    the loop, with `max_num_elements` the loop's `maximum_iterations`."""
    shape_value = _shape_tensor(element_shape)
    return apply_op("EmptyTensorList", [("element_shape", constant(shape_value, dtypes.int32)),
                                        ("max_num_elements", -1 if max_num_elements is None else max_num_elements)],
                    {"element_dtype": dtypes.as_dtype(element_dtype), "element_shape_static": as_shape(element_shape)},
                    name=name, default_name="EmptyTensorList", dtypes={"max_num_elements": dtypes.int32}).outputs[0]


def tensor_list_push_back(input_handle, tensor, name=None, swap_memory=False):
    """A TensorListPushBack op (gen_list_ops.tensor_list_push_back): in a forward While body, how a value the gradient
    needs is kept per iteration. `swap_memory` (cfnb's attr) moves it to host memory on a GPU."""
    attrs = {"element_dtype": tensor.dtype, "element_shape_static": tensor.shape}
    if swap_memory:  # cfnb's own: swap this accumulator to host memory on a GPU (runtime/swap.py)
        attrs["_swap_memory"] = True
    return apply_op("TensorListPushBack", [("input_handle", input_handle), ("tensor", tensor)], attrs, name=name,
                    default_name="TensorListPushBack").outputs[0]


def tensor_list_pop_back(input_handle, element_dtype, element_shape=None, name=None):
    """A TensorListPopBack op (gen_list_ops.tensor_list_pop_back): the gradient While pops, in reverse, what the forward
    While pushed. Returns (the list without its last element, that element)."""
    shape = as_shape(element_shape) if element_shape is not None else TensorShape(None)
    outputs = apply_op("TensorListPopBack", [("input_handle", input_handle),
                                             ("element_shape", constant(_shape_tensor(shape), dtypes.int32))],
                       {"element_dtype": dtypes.as_dtype(element_dtype), "element_shape_static": shape}, name=name,
                       default_name="TensorListPopBack").outputs
    return outputs[0], outputs[1]


# --- the ops TensorArray uses in functional graphs (TensorFlow's _GraphTensorArrayV2) -------------------
def _reserve_kernel(op):
    dt = op.get_attr("element_dtype").as_numpy_dtype
    return lambda element_shape, n: TensorList.from_items([None] * int(n), element_shape, dt)


def _set_item_kernel(op):
    resize = op.get_attr("resize_if_index_out_of_bounds")

    def set_item(handle, index, item):
        items, index = handle.to_list(), int(index)
        if resize and index >= len(items):
            items.extend([None] * (index + 1 - len(items)))
        if not 0 <= index < len(items):
            raise errors.InvalidArgumentError(op, op, f"Trying to modify element {index} in a list with "
                                                      f"{len(items)} elements.")
        items[index] = _xp().asarray(item)
        return TensorList.from_items(items, handle.element_shape, handle.element_dtype)
    return set_item


def _resize_kernel(op):
    def resize(handle, size):
        items, size = handle.to_list(), int(size)
        items = items[:size] + [None] * (size - len(items))
        return TensorList.from_items(items, handle.element_shape, handle.element_dtype)
    return resize


def _stack_kernel(op):
    def stack(handle, element_shape):
        items = [handle.item(op, k, element_shape) for k in range(handle.length)]
        if not items:
            shape = _first_known(element_shape, handle.element_shape)
            if shape is None:
                raise errors.InvalidArgumentError(op, op, f"Tried to stack elements of an empty list with "
                                                          f"non-fully-defined element_shape: "
                                                          f"{_shape_text(element_shape)}")
            return _xp().zeros((0,) + shape, dtype=handle.element_dtype)
        return _xp().stack(items)
    return stack


def _from_tensor_kernel(op):
    return lambda tensor, element_shape: TensorList.from_items(list(_xp().asarray(tensor)), element_shape,
                                                               _xp().asarray(tensor).dtype)


def _gather_kernel(op):
    def gather(handle, indices, element_shape):
        items = [handle.item(op, int(k), element_shape) for k in np.reshape(indices, -1)]
        if items:
            return _xp().stack(items)
        shape = _first_known(element_shape, handle.element_shape)  # gathering nothing: [0] + the element shape
        if shape is None:
            raise errors.InvalidArgumentError(op, op, f"Tried to gather 0 elements from a list with "
                                                      f"non-fully-defined element_shape: {_shape_text(element_shape)}")
        return _xp().zeros((0,) + shape, dtype=handle.element_dtype)
    return gather


def _scatter_kernel(op):
    def scatter(handle, tensor, indices):
        items = handle.to_list()
        for k, v in zip(np.reshape(indices, -1), _xp().asarray(tensor)):
            k = int(k)
            if k >= len(items):
                items.extend([None] * (k + 1 - len(items)))
            items[k] = v
        return TensorList.from_items(items, handle.element_shape, handle.element_dtype)
    return scatter


def _element_infer(op):
    return [(op.get_attr("element_dtype"), op.get_attr("element_shape_static"))]


def _stacked_infer(op):
    shape = op.get_attr("element_shape_static")
    n = op.attr.get("num_elements", -1)
    return [(op.get_attr("element_dtype"), TensorShape([None if n < 0 else n]).concatenate(shape))]


register_op("TensorListReserve", _variant, _reserve_kernel)
register_op("TensorListSetItem", _variant, _set_item_kernel)
register_op("TensorListGetItem", _element_infer,
            lambda op: lambda handle, index, shape: handle.item(op, int(index), shape))
register_op("TensorListResize", _variant, _resize_kernel)
register_op("TensorListStack", _stacked_infer, _stack_kernel)
register_op("TensorListFromTensor", _variant, _from_tensor_kernel)
register_op("TensorListGather", lambda op: [(op.get_attr("element_dtype"), TensorShape(
    [op._inputs[1].shape[0] if op._inputs[1].shape.ndims else None]).concatenate(op.get_attr("element_shape_static")))],
    _gather_kernel)
register_op("TensorListScatterIntoExistingList", _variant, _scatter_kernel)


def _attrs(element_dtype, element_shape):
    known = element_shape is not None and not isinstance(element_shape, Tensor)
    return {"element_dtype": dtypes.as_dtype(element_dtype),
            "element_shape_static": as_shape(element_shape) if known else TensorShape(None)}


def _shape_const(element_shape):
    """The element shape as an int32 tensor input (-1 for unknown dims); a tensor is used as it is."""
    if isinstance(element_shape, Tensor):
        return element_shape
    return constant(_shape_tensor(element_shape if element_shape is not None else TensorShape(None)), dtypes.int32)


def tensor_list_reserve(element_shape, num_elements, element_dtype, name=None):
    """A TensorListReserve op (gen_list_ops.tensor_list_reserve): a list of `num_elements` unset elements, as a v2
    TensorArray of fixed size starts."""
    return apply_op("TensorListReserve", [("element_shape", _shape_const(element_shape)),
                                          ("num_elements", num_elements)], _attrs(element_dtype, element_shape),
                    name=name, default_name="TensorListReserve", dtypes={"num_elements": dtypes.int32}).outputs[0]


def tensor_list_set_item(handle, index, item, resize_if_index_out_of_bounds=False, name=None):
    """A TensorListSetItem op (gen_list_ops.tensor_list_set_item): a v2 TensorArray's `write`."""
    return apply_op("TensorListSetItem", [("input_handle", handle), ("index", index), ("item", item)],
                    {**_attrs(item.dtype, item.shape), "resize_if_index_out_of_bounds": resize_if_index_out_of_bounds},
                    name=name, default_name="TensorListSetItem", dtypes={"index": dtypes.int32}).outputs[0]


def tensor_list_resize(handle, size, name=None):
    """The list cut or padded (with unset elements) to `size`: what undoes a resizing SetItem in its gradient."""
    return apply_op("TensorListResize", [("input_handle", handle), ("size", size)], {}, name=name,
                    default_name="TensorListResize", dtypes={"size": dtypes.int32}).outputs[0]


def tensor_list_get_item(handle, index, element_dtype, element_shape=None, name=None):
    """A TensorListGetItem op (gen_list_ops.tensor_list_get_item): a v2 TensorArray's `read`."""
    return apply_op("TensorListGetItem", [("input_handle", handle), ("index", index),
                                          ("element_shape", _shape_const(element_shape))],
                    _attrs(element_dtype, element_shape), name=name, default_name="TensorListGetItem",
                    dtypes={"index": dtypes.int32}).outputs[0]


def tensor_list_stack(handle, element_dtype, element_shape=None, num_elements=-1, name=None):
    """The list as one tensor; `num_elements` (when known) gives the result's static first dimension."""
    return apply_op("TensorListStack", [("input_handle", handle), ("element_shape", _shape_const(element_shape))],
                    {**_attrs(element_dtype, element_shape), "num_elements": int(num_elements)}, name=name,
                    default_name="TensorListStack").outputs[0]


def tensor_list_from_tensor(tensor, element_shape=None, name=None):
    """A TensorListFromTensor op (gen_list_ops.tensor_list_from_tensor): a tensor's rows as a list, a v2 TensorArray's
    `unstack`."""
    shape = element_shape if element_shape is not None else tensor.shape[1:]
    return apply_op("TensorListFromTensor", [("tensor", tensor), ("element_shape", _shape_const(shape))],
                    _attrs(tensor.dtype, shape), name=name, default_name="TensorListFromTensor").outputs[0]


def tensor_list_gather(handle, indices, element_dtype, element_shape=None, name=None):
    """A TensorListGather op (gen_list_ops.tensor_list_gather): the elements at `indices`, stacked; a v2 TensorArray's
    `gather`."""
    return apply_op("TensorListGather", [("input_handle", handle), ("indices", indices),
                                         ("element_shape", _shape_const(element_shape))],
                    _attrs(element_dtype, element_shape), name=name, default_name="TensorListGather",
                    dtypes={"indices": dtypes.int32}).outputs[0]


def tensor_list_scatter(handle, tensor, indices, name=None):
    """A TensorListScatterIntoExistingList op (gen_list_ops.tensor_list_scatter): a v2 TensorArray's `scatter`."""
    return apply_op("TensorListScatterIntoExistingList", [("input_handle", handle), ("tensor", tensor),
                                                          ("indices", indices)], _attrs(tensor.dtype, tensor.shape[1:]),
                    name=name, default_name="TensorListScatterIntoExistingList",
                    dtypes={"indices": dtypes.int32}).outputs[0]


def tensor_list_length(handle, name=None):
    """A TensorListLength op (gen_list_ops.tensor_list_length): a v2 TensorArray's dynamic `size`."""
    return apply_op("TensorListLength", [("input_handle", handle)], name=name,
                    default_name="TensorListLength").outputs[0]


def _shape_text(element_shape):
    """An element_shape value (-1 for unknown) as TensorFlow's PartialTensorShape::DebugString: `<unknown>`,
    `[?,2]`."""
    shape = np.asarray(-1 if element_shape is None else element_shape)
    if shape.ndim == 0:
        return "<unknown>"
    return "[" + ",".join("?" if d < 0 else str(int(d)) for d in shape) + "]"


def _known_tail(element_shape):
    """The dimensions after the first, when they are all known (what concatenating an empty list needs)."""
    shape = np.asarray(-1 if element_shape is None else element_shape)
    if shape.ndim == 0 or len(shape) == 0 or (shape[1:] < 0).any():
        return None
    return tuple(int(d) for d in shape[1:])


def _concat_kernel(op):
    def concat(handle, element_shape):
        items = [handle.item(op, k) for k in range(handle.length)]
        for k, v in enumerate(items):  # TensorListConcat's checks, with its messages
            if np.ndim(v) == 0:
                raise errors.InvalidArgumentError(op, op, f"Concat saw a scalar shape at index {k} but requires at "
                                                          f"least vectors.")
            if np.ndim(v) != np.ndim(items[0]):
                raise errors.InvalidArgumentError(op, op, f"Incompatible ranks during merge: {np.ndim(items[0])} "
                                                          f"vs. {np.ndim(v)}")
        lengths = _xp().array([np.shape(v)[0] for v in items], np.int64)
        if items:
            return _xp().concatenate(items), lengths
        # An empty list concatenates to [0] + the element shape's other dimensions (TensorListConcat), which
        # must then be known.
        tail = _known_tail(element_shape)
        tail = _known_tail(handle.element_shape) if tail is None else tail
        if tail is None:
            raise errors.InvalidArgumentError(op, op, f"All except the first dimension must be fully defined when "
                                                      f"concating an empty tensor list. element_shape: "
                                                      f"{_shape_text(element_shape)}")
        return _xp().zeros((0,) + tail, dtype=handle.element_dtype), lengths
    return concat


def _split_kernel(op):
    def split(tensor, element_shape, lengths):
        tensor = _xp().asarray(tensor)
        if np.ndim(lengths) != 1:  # TensorListSplit's checks, with its messages
            raise errors.InvalidArgumentError(op, op, f"Expected lengths to be a vector, received shape: "
                                                      f"{list(np.shape(lengths))}")
        if int(np.sum(lengths)) != tensor.shape[0]:
            raise errors.InvalidArgumentError(op, op, f"Unused values in tensor. Length of tensor: {tensor.shape[0]} "
                                                      f"Values used: {int(np.sum(lengths))}")
        bounds = np.cumsum([0] + [int(n) for n in lengths])
        items = [tensor[bounds[k]:bounds[k + 1]] for k in range(len(lengths))]
        return TensorList.from_items(items, element_shape, tensor.dtype)
    return split


def _concat_infer(op):
    shape = op.get_attr("element_shape_static")
    return [(op.get_attr("element_dtype"), TensorShape([None]).concatenate(shape[1:]) if shape.ndims else shape),
            (dtypes.int64, TensorShape([None]))]


register_op("TensorListConcatV2", _concat_infer, _concat_kernel, multi_output=True)
register_op("TensorListSplit", _variant, _split_kernel)


def tensor_list_concat(handle, element_dtype, element_shape=None, name=None):
    """A TensorListConcatV2 op (gen_list_ops.tensor_list_concat_v2): the elements joined along their first dimension,
    and their lengths; a v2 TensorArray's `concat`."""
    return apply_op("TensorListConcatV2", [("input_handle", handle), ("element_shape", _shape_const(element_shape))],
                    _attrs(element_dtype, element_shape), name=name, default_name="TensorListConcatV2").outputs


def tensor_list_split(tensor, lengths, element_shape=None, name=None):
    """A TensorListSplit op (gen_list_ops.tensor_list_split): a tensor cut along its first dimension into `lengths`; a
    v2 TensorArray's `split`."""
    if tensor.shape.ndims == 0:  # TensorListSplit's shape function
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{name or 'TensorListSplit'}' (op: "
                         f"'TensorListSplit') with input shapes: [].")
    return apply_op("TensorListSplit", [("tensor", tensor), ("element_shape", _shape_const(element_shape)),
                                        ("lengths", lengths)], _attrs(tensor.dtype, None), name=name,
                    default_name="TensorListSplit", dtypes={"lengths": dtypes.int64}).outputs[0]


# --- the element dtype of a list, read off the graph ------------------------------------------------------------
_PASS_THROUGH = ("Identity", "Enter", "Exit", "Switch", "Merge", "NextIteration")


def list_element_dtype(t):
    """The element dtype of TensorList `t`, followed back to the op that made the list; None when unknown.

    TensorFlow keeps it as the variant's handle data, which shape inference carries through loops, branches and
    function arguments, and its gradients read it (backprop_util._DTypeFromTensor): a list of integers or booleans,
    such as the accumulator of a loop index or of a cond's predicate, carries no gradient."""
    seen = set()
    while t not in seen:
        seen.add(t)
        op = t.op
        if "element_dtype" in op.attr:
            return op.get_attr("element_dtype")
        if op.type in _PASS_THROUGH:
            t = op.inputs[0]
        elif op.type in ("While", "StatelessWhile"):
            t = op.inputs[t.value_index]
        elif op.type in ("If", "StatelessIf", "Case", "StatelessCase"):
            branch = op.get_attr("then_branch") if "then_branch" in op.attr else op.get_attr("branches")[0]
            t = branch.outputs[t.value_index]
        elif op.type == "Placeholder" and hasattr(op.graph, "captures"):
            t = _argument_source(op.graph, t)
            if t is None:
                return None
        else:
            return None
    return None


def _argument_source(func_graph, placeholder):
    """The outer tensor a function's placeholder stands for: its capture, or the calling op's input."""
    for external, internal in func_graph.captures:
        if internal is placeholder:
            return external
    if not any(placeholder is t for t in func_graph.inputs):
        return None
    k = next(i for i, t in enumerate(func_graph.inputs) if t is placeholder)
    caller = _caller(func_graph)
    if caller is None:
        return None
    offset = 0 if caller.type in ("While", "StatelessWhile") else 1  # an If's or a Case's input 0 picks the branch
    return caller.inputs[k + offset] if k + offset < len(caller.inputs) else None


def _caller(func_graph):
    """The op of the enclosing graph that calls `func_graph` (remembered once found)."""
    caller = getattr(func_graph, "_caller", None)
    if caller is not None and caller in caller.graph._ops_by_name.values():
        return caller
    for op in reversed(func_graph.outer_graph._ops):
        if any(v is func_graph or (isinstance(v, list) and any(f is func_graph for f in v)) for v in op.attr.values()):
            func_graph._caller = op
            return op
    return None
