"""`apply_op`: how a Python wrapper such as `cfnb.add(x, 1.0)` becomes an Operation.

As in TensorFlow's `op_def_library.apply_op`: open a name scope named after the op, convert the
Python inputs inside it (so the constant for `1.0` is named `add/y`), check that inputs sharing a
type attribute agree, then create the op with the scope's name.
"""
from . import dtypes as _dtypes
from .ops import Tensor, convert_to_tensor, get_default_graph


def apply_op(op_type, inputs, attrs=None, name=None, default_name=None, same_type=None, dtypes=None,
             graph=None):
    """Create an op of `op_type`.

    inputs:     list of (arg_name, value) pairs; values may be Tensors or Python/numpy values.
    same_type:  arg names that share one type attribute `T` (binary math ops); a Python value among
                them takes the dtype of the first Tensor, and two Tensors must agree.
    dtypes:     {arg_name: DType} for inputs with a fixed type (e.g. a bool predicate).
    """
    g = graph or _graph_of(inputs)
    same = set(same_type or ())
    with g.as_default(), g.name_scope(name or default_name or op_type) as scope:
        t_dtype = None
        for arg, value in inputs:
            if arg in same and isinstance(value, Tensor) or (arg in same and hasattr(value, "_as_tensor")):
                t_dtype = convert_to_tensor(value).dtype
                break
        converted = []
        first_arg = None
        for arg, value in inputs:
            want = (dtypes or {}).get(arg)
            if arg in same:
                t = convert_to_tensor(value, name=arg, dtype_hint=t_dtype)
                if t_dtype is None:
                    t_dtype, first_arg = t.dtype, arg
                elif t.dtype != t_dtype:
                    first_arg = first_arg or next(a for a, _ in inputs if a in same)
                    raise TypeError(f"Input '{arg}' of '{op_type}' Op has type {t.dtype.name} that does not "
                                    f"match type {t_dtype.name} of argument '{first_arg}'.")
                first_arg = first_arg or arg
            else:
                t = convert_to_tensor(value, name=arg, dtype_hint=want)
                if want is not None and t.dtype != _dtypes.as_dtype(want):
                    raise TypeError(f"Input '{arg}' of '{op_type}' Op has type {t.dtype.name} that does not "
                                    f"match expected type of {_dtypes.as_dtype(want).name}.")
            converted.append(t)
        return g.create_op(op_type, converted, attrs, name=scope)


def _graph_of(inputs):
    for _, v in inputs:
        if isinstance(v, Tensor):
            return v.graph
    return get_default_graph()
