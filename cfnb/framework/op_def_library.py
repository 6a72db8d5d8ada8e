"""`apply_op`: how a Python wrapper such as `cfnb.add(x, 1.0)` becomes an Operation.

As in TensorFlow's `op_def_library.apply_op`: open a name scope named after the op, convert the
Python inputs inside it (so the constant for `1.0` is named `add/y`), check that inputs sharing a
type attribute agree, then create the op with the scope's name.
"""
from . import dtypes as _dtypes
from .dtype_rules import NUMPY_RULES
from .ops import Tensor, convert_to_tensor, get_default_graph

# numpy's promotion builds Cast ops, so it belongs to the op layer: cfnb.ops.numpy_rules registers
# itself here for Graph.dtype_rules == "numpy"; TensorFlow's rules need no policy.
_promotion_policies = {}


def register_promotion_policy(rules, policy):
    """`policy` (a module or object with `promote_inputs`, `index_input`, `UFUNCS`, `mark_result`)
    decides the input dtypes of ops built in a graph whose `dtype_rules` is `rules`."""
    _promotion_policies[rules] = policy


def _promotion_policy(rules):
    if rules == NUMPY_RULES and rules not in _promotion_policies:
        raise RuntimeError("numpy's dtype rules need cfnb.ops.numpy_rules: import cfnb")
    return _promotion_policies.get(rules)


def apply_op(op_type, inputs, attrs=None, name=None, default_name=None, same_type=None, dtypes=None,
             graph=None, allowed=None):
    """Create an op of `op_type`.

    inputs:     list of (arg_name, value) pairs; values may be Tensors or Python/numpy values.
    same_type:  arg names that share one type attribute `T` (binary math ops). As in TensorFlow,
                the first of them fixes `T` (a Python 1 is int32), later ones are converted to `T`
                (a numpy value is cast, a Python value that cannot be `T` is a TypeError naming the
                parameter), and a Tensor of any other dtype is a TypeError.
    dtypes:     {arg_name: DType} for inputs with a fixed type (e.g. a bool predicate).
    allowed:    the DTypes `T` may take (TensorFlow's allowed values of the type attribute).
    """
    g = graph or _graph_of(inputs)
    same = set(same_type or ())
    fixed = {arg: _dtypes.as_dtype(dt) for arg, dt in (dtypes or {}).items()}
    numpy_rules = _promotion_policy(g.dtype_rules)
    with g.as_default(), g.name_scope(name or default_name or op_type) as scope:
        if numpy_rules is not None and same:
            inputs = numpy_rules.promote_inputs(op_type, inputs, same)
        t_dtype = t_arg = None
        converted = []
        for arg, value in inputs:
            if arg in fixed:
                t = _convert_to(value, fixed[arg], arg, op_type)
                if numpy_rules is not None:
                    t = numpy_rules.index_input(t, fixed[arg])
                if t.dtype != fixed[arg]:
                    raise TypeError(f"Input '{arg}' of '{op_type}' Op has type {t.dtype.name} that does not "
                                    f"match expected type of {fixed[arg].name}.")
            elif arg in same and t_dtype is not None:
                t = _convert_to(value, t_dtype, arg, op_type)
                if t.dtype != t_dtype:
                    raise TypeError(f"Input '{arg}' of '{op_type}' Op has type {t.dtype.name} that does not "
                                    f"match type {t_dtype.name} of argument '{t_arg}'.")
            else:
                t = convert_to_tensor(value, name=arg)
                if arg in same:
                    t_dtype, t_arg = t.dtype, arg
                    # Under numpy's rules an op numpy has a ufunc for takes the dtypes numpy's loop takes
                    # (np.floor of an int64 is an int64): its kernel is that ufunc.
                    if allowed is not None and t_dtype not in allowed and not (
                            numpy_rules is not None and op_type in numpy_rules.UFUNCS and t_dtype.is_numeric):
                        raise TypeError(f"Value passed to parameter '{arg}' has DataType {t_dtype.name} not in "
                                        f"list of allowed values: {', '.join(d.name for d in allowed)}")
            converted.append(t)
        op = g.create_op(op_type, converted, attrs, name=scope)
        if numpy_rules is not None:  # Python numbers in, a Python number out (weak scalars, numpy_rules.py)
            numpy_rules.mark_result(op, [t for (arg, _), t in zip(inputs, converted) if arg in same] or converted)
        return op


def _convert_to(value, dtype, arg, op_type):
    """Convert an input of fixed type as TensorFlow does: a Python value that cannot be `dtype` is a
    TypeError naming the parameter; a Tensor of another dtype comes back for the caller to report."""
    try:
        return convert_to_tensor(value, dtype=dtype, name=arg)
    except TypeError as e:
        raise TypeError(f"Expected {dtype.name} passed to parameter '{arg}' of op '{op_type}', got {value!r} of "
                        f"type '{type(value).__name__}' instead. Error: {e}") from None
    except ValueError:
        return convert_to_tensor(value, name=arg)


def _graph_of(inputs):
    """The graph the op goes in: the inputs' graph, or the default graph when that is a function
    nested inside it (the function then captures the outer inputs)."""
    default = get_default_graph()
    if default.building_function:
        return default  # as TensorFlow: inside a function, ops go in the function (it captures inputs)
    for _, v in inputs:
        if isinstance(v, Tensor):
            return default if _encloses(v.graph, default) else v.graph
    return default


def _encloses(outer, graph):
    while graph is not None:
        if graph is outer:
            return True
        graph = getattr(graph, "outer_graph", None)
    return False
