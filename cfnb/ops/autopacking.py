"""Auto-packing: a (nested) list holding Tensors converts to one Tensor through `Pack`.

TensorFlow registers this conversion in array_ops (`_autopacking_conversion_function`): wherever a
Tensor is expected, `[x, y, 3.0]` becomes `packed = Pack(x, y, Const(3.0))`, the Python numbers taking
the Tensors' dtype. So `tf.Assert(c, [x, [y, x]])`, `tf.reduce_sum([a, b])` or
`tf.convert_to_tensor([t1, t2])` work. A list without Tensors stays a constant.
"""
from ..framework.ops import Tensor, get_default_graph, register_tensor_conversion_function
from .array_ops import constant
from .array_ops_stack import stack


def _holds_tensor(value):
    return any(isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and _holds_tensor(v)) for v in value)


def _first_dtype(value):
    for v in value:
        if isinstance(v, Tensor):
            return v.dtype
        if isinstance(v, (list, tuple)):
            dt = _first_dtype(v)
            if dt is not None:
                return dt
    return None


def _pack(value, dtype, name):
    elems = []
    for v in value:
        if isinstance(v, Tensor):
            if v.dtype != dtype:
                raise TypeError(f"Cannot convert a list containing a tensor of dtype {v.dtype.name} to {dtype.name} "
                                f"(Tensor is: {v!r})")
            elems.append(v)
        elif isinstance(v, (list, tuple)):
            elems.append(_pack(v, dtype, name) if _holds_tensor(v) else constant(v, dtype=dtype))
        else:
            elems.append(constant(v, dtype=dtype))
    return stack(elems, name=name)


def _autopacking_conversion_function(value, dtype, name):
    if not _holds_tensor(value):
        return NotImplemented
    inner = _first_dtype(value)
    if dtype is not None and dtype != inner:
        raise TypeError(f"Cannot convert a list containing a tensor of dtype {inner.name} to {dtype.name}")
    with get_default_graph().name_scope(name or "packed") as scope:
        return _pack(value, inner, scope)


register_tensor_conversion_function((list, tuple), _autopacking_conversion_function)
