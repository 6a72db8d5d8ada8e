"""Auto-packing: a (nested) list holding Tensors converts to one Tensor through `Pack`.

TensorFlow registers this conversion in array_ops (`_autopacking_conversion_function`): wherever a
Tensor is expected, `[x, y, 3.0]` becomes `packed = Pack(x, y, Const(3.0))`, the Python numbers taking
the Tensors' dtype. So `tf.Assert(c, [x, [y, x]])`, `tf.reduce_sum([a, b])` or
`tf.convert_to_tensor([t1, t2])` work. A list without Tensors stays a constant. A requested dtype
other than the first Tensor's casts the Tensors (`tf.constant(1.5) + [tf.constant(2)]` is [3.5]).
"""
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph, register_tensor_conversion_function
from .array_ops import cast, constant

# What TensorFlow's `isinstance(elem, core.Tensor)` finds in a list: a Tensor, and what registers as
# one (a resource Variable, ops/variables.py).
_TENSOR_LIKE = (Tensor,)


def register_tensor_like(cls):
    """Objects of `cls` count as tensors inside a list (TensorFlow: `cls` subclasses `core.Tensor`)."""
    global _TENSOR_LIKE
    _TENSOR_LIKE = (*_TENSOR_LIKE, cls)


def _get_dtype_from_nested_lists(list_or_tuple):
    """The dtype of the first tensor in the (nested) list, depth first, or None: TensorFlow's
    `_get_dtype_from_nested_lists`. It is the list's dtype when none is asked for."""
    for elem in list_or_tuple:
        if isinstance(elem, _TENSOR_LIKE):
            return elem.dtype
        if isinstance(elem, (list, tuple)):
            dtype = _get_dtype_from_nested_lists(elem)
            if dtype is not None:
                return dtype
    return None


def _cast_nested_seqs_to_dtype(list_or_tuple, dtype):
    """Every tensor of the (nested) list cast to `dtype` (TensorFlow's `_cast_nested_seqs_to_dtype`,
    mapped over the list's structure); Python values stay as they are."""
    def cast_one(elem):
        if isinstance(elem, _TENSOR_LIKE):
            return elem if elem.dtype == dtype else cast(elem, dtype)
        if isinstance(elem, (list, tuple)):
            return type(elem)(cast_one(e) for e in elem)
        return elem
    return cast_one(list_or_tuple)


def _autopacking_helper(list_or_tuple, dtype, name):
    """TensorFlow's `_autopacking_helper`: Pack the elements, each tensor already `dtype` (another is a
    TypeError), each sublist holding a tensor packed in its own scope (named by its index), and
    each other value a constant of `dtype` named by its index. A sublist without tensors comes back
    as a list, for the caller to make one constant of."""
    must_pack = False
    converted = []
    with get_default_graph().name_scope(name) as scope:
        for i, elem in enumerate(list_or_tuple):
            if isinstance(elem, _TENSOR_LIKE):
                if elem.dtype != dtype:
                    raise TypeError(f"Cannot convert a list containing a tensor of dtype {elem.dtype} to {dtype} "
                                    f"(Tensor is: {elem!r})")
                converted.append(elem)
                must_pack = True
            elif isinstance(elem, (list, tuple)):
                packed = _autopacking_helper(elem, dtype, str(i))
                must_pack = must_pack or isinstance(packed, Tensor)
                converted.append(packed)
            else:
                converted.append(elem)
        if not must_pack:
            return converted
        tensors = [convert_to_tensor(elem) if isinstance(elem, _TENSOR_LIKE)
                   else constant(elem, dtype=dtype, name=str(i)) for i, elem in enumerate(converted)]
        return get_default_graph().create_op("Pack", tensors, {"axis": 0, "N": len(tensors)}, name=scope).outputs[0]


def _autopacking_conversion_function(value, dtype=None, name=None):
    """TensorFlow's `_autopacking_conversion_function`: a list without tensors is declined (it becomes a
    constant); otherwise the list's dtype is the requested one or, without a request, its first
    tensor's. When a dtype other than the first tensor's is requested, every tensor is cast to it
    first, so `convert_to_tensor([int_t, 2], dtype=tf.float32)` and `TensorArray(tf.float32, 1).write(0,
    [int_t])` work. Without that cast (no dtype asked for, or the first tensor's) a tensor of
    another dtype is a TypeError: `[int_t, float_t]` does not convert, `[[float_t], [int_t]]` with
    dtype float32 neither."""
    inferred = _get_dtype_from_nested_lists(value)
    if inferred is None:
        return NotImplemented
    if dtype is None:
        dtype = inferred
    elif dtype != inferred:
        value = _cast_nested_seqs_to_dtype(value, dtype)
    return _autopacking_helper(value, dtype, name or "packed")


# Before the Python-value conversion (priority 200), as TensorFlow registers it (99).
register_tensor_conversion_function((list, tuple), _autopacking_conversion_function, priority=99)
