"""What a call in the cell means when its arguments are tensors (`__cf.call`; AutoGraph's `py_builtins.py`).

  * builtins: `abs` (Abs), `min`/`max` of two or more values (Minimum/Maximum), `len` (the static
    leading dimension, else Shape), `float()`/`int()` (Cast; `int` truncates toward zero as
    Python does), `round` (Round: half to even, as Python), `range` (a loop's range), `bool`,
    `str` and the rest are refused on tensors, with the line and what to write instead;
  * `math.sqrt/exp/log/log1p/log2/log10/sin/cos/tanh/floor/ceil/fabs/pow/hypot` become graph ops
    (`math.pi`, `math.e` are numbers anyway); other `math` functions are refused;
  * numpy functions reach the tensors' own dispatch (`__array_ufunc__`/`__array_function__`);
    the ops they build are remembered as numpy's (values.py: plain Python would hold a numpy
    value there), and a refusal (`UnsupportedNumpyError`) is reported against the line.
"""
import builtins
import math

import numpy as np

import cfnb
from cfnb.framework import dtype_rules
from cfnb.ops import numpy_functions
from cfnb.ops.string_format import string_length

from ..errors import CellError
from . import python_calls
from .accumulators import Accumulator, ProbeList
from .iteration import Counter, Parallel, TensorRange
from .printing import to_string
from .tensors import constant, tensors_in


def _has_tensor(args, kwargs=None):
    return bool(tensors_in(list(args) + list((kwargs or {}).values())))


_MATH = {
    "sqrt": lambda x: cfnb.sqrt(x), "exp": lambda x: cfnb.exp(x), "log": None, "log1p": lambda x: cfnb.log1p(x),
    "log2": lambda x: cfnb.log(x) / math.log(2.0), "log10": lambda x: cfnb.log(x) / math.log(10.0),
    "sin": lambda x: cfnb.sin(x), "cos": lambda x: cfnb.cos(x), "tanh": lambda x: cfnb.tanh(x),
    "fabs": lambda x: cfnb.abs(x), "pow": lambda x, y: cfnb.pow(x, y),
    "hypot": lambda x, y: cfnb.sqrt(x * x + y * y),
    "floor": lambda x: cfnb.cast(cfnb.floor(x), cfnb.int64),
    "ceil": lambda x: cfnb.cast(-cfnb.floor(-x), cfnb.int64),
}


def _math_log(x, base=None):
    return cfnb.log(x) if base is None else cfnb.log(x) / cfnb.log(cfnb.cast(base, x.dtype) if isinstance(
        base, cfnb.Tensor) else math.log(base))


_MATH["log"] = _math_log


def call_stmt(cell, line, fn, *args, **kwargs):
    """A call on a line of its own (its result unused): one that changes things outside the graph runs on every
    iteration (python_calls.py)."""
    return call(cell, line, fn, *args, __statement=True, **kwargs)


def call(cell, line, fn, *args, __statement=False, **kwargs):
    """`f(args)` in the cell (converters/calls.py): Python's own call on Python values, a graph op on graph
    values (a builtin, a `math` function, a numpy function or method), refused with the line where it has none."""
    try:
        if fn is range:
            return _range(cell, line, args)
        if fn in (builtins.enumerate, builtins.zip) and any(_walks_in_graph(a) for a in args):
            return _parallel(fn, args, kwargs)
        if fn is len:
            return _len(cell, line, *args)
        if any(isinstance(a, Accumulator) for a in args) and (fn in _OVER_ITEMS or _is_numpy(fn)):
            # sum(xs), max(xs), np.mean(xs) of a list grown in a loop: over its items as one array
            args = tuple(a.as_tensor() if isinstance(a, Accumulator) else a for a in args)
            if fn is builtins.sum:
                return cfnb.reduce_sum(args[0]) + (args[1] if len(args) > 1 else 0)
        if getattr(fn, "__name__", None) in _IN_PLACE and isinstance(getattr(fn, "__self__", None), np.ndarray) \
                and (cell.depth or _has_tensor(args, kwargs)):
            raise CellError(line, f"a.{fn.__name__}(...) changes an array in place, which a graph value cannot do in a "
                                  f"loop: {_IN_PLACE[fn.__name__]}")
        if isinstance(getattr(fn, "__self__", None), cfnb.Tensor):
            return _numpy_call(cell, line, fn, args, kwargs)  # t.sum(), t.reshape(...): ndarray's methods
        if isinstance(getattr(fn, "__self__", None), np.ndarray) and _has_tensor(args, kwargs):
            return _array_method(cell, line, fn, args, kwargs)
        if cell.depth and _is_random(fn):
            raise CellError(line, f"{_name_of(fn)}(...) in a loop would be drawn once, when the graph is built, "
                                  f"not on every iteration: draw all the numbers before the loop "
                                  f"(e.g. r = np.random.rand(n)) and read r[i] in it")
        if cell.depth or _has_tensor(args, kwargs):
            reason = python_calls.effect_of_call(fn, __statement)
            if reason and __statement:
                return python_calls.run_every_time(cell, line, fn, args, kwargs)
            if reason:
                name = getattr(fn, "__name__", "this function")
                raise CellError(line, f"{name}(...) {reason}, so in a graph it would run once, while the graph is "
                                      f"built, not {'on every iteration' if cell.depth else 'when it runs'}. Call it "
                                      f"on a line of its own (`{name}(...)`: it then runs on every iteration, with "
                                      f"the values), and compute the value you need in the cell")
            if python_calls.is_notebook_function(fn):
                with python_calls.arrays_of_graph_values(lambda items, *a, **k: _array_of(cell, line, items, *a, **k)):
                    return fn(*args, **kwargs)
        if not _has_tensor(args, kwargs) and not any(isinstance(a, Accumulator) for a in args):
            out = fn(*args, **kwargs)
            if isinstance(out, np.generic) and _is_numpy(fn) and out.dtype.kind in "biuf":
                out = constant(cell, out)  # a numpy scalar: plain Python keeps it numpy wherever it goes
            return out
        builtin = _BUILTINS.get(fn)
        if builtin is not None:
            return builtin(cell, line, *args, **kwargs)
        if getattr(fn, "__module__", None) == "math" or fn in _MATH_FUNCTIONS:
            return _math(cell, line, fn, args, kwargs)
        if fn in (np.array, np.asarray) and args and isinstance(args[0], (list, tuple)):
            return _array_of(cell, line, args[0], *args[1:], **kwargs)
        if _is_numpy(fn):
            return _numpy_call(cell, line, fn, args, kwargs)
        return fn(*args, **kwargs)
    except CellError:
        raise
    except (TypeError, ValueError) as e:
        if type(e).__name__ == "UnsupportedNumpyError":
            raise CellError(line, str(e), kind="UnsupportedNumpyError") from None
        raise

def _numpy_call(cell, line, fn, args, kwargs):
    owner = getattr(fn, "__self__", None)
    graphs = {t.graph for t in tensors_in(list(args) + list(kwargs.values()) + [owner])}
    counts = {g: len(g._ops) for g in graphs}
    out = fn(*args, **kwargs)
    for g, n in counts.items():
        cell.numpy_ops.update(g._ops[n:])
    if fn in _PYTHON_RESULTS and isinstance(out, cfnb.Tensor):
        cell.python_ops.add(out.op)  # np.allclose and np.array_equal answer with a Python bool
    return out


_PYTHON_RESULTS = (np.allclose, np.array_equal)
_IN_PLACE = {"fill": "write a = np.full_like(a, value)", "sort": "write a = np.sort(a) before the loop",
             "put": "set items with a[k] = v", "itemset": "set items with a[k] = v",
             "resize": "make it its final size before the loop", "partition": "use np.sort(a) before the loop"}

def _array_method(cell, line, fn, args, kwargs):
    """`X.dot(t)`, `X.reshape(n, 1)` on a notebook ndarray with a tensor argument: ndarray's C
    method would ask the tensor for its value, so the method of the tensor `constant(X)` (the
    same ndarray methods, numpy_dispatch.py) builds the op instead."""
    name = getattr(fn, "__name__", "?")
    method = getattr(cfnb.Tensor, name, None)
    if method is None or name.startswith("_"):
        raise CellError(line, f"the array method .{name}(...) has no graph form with a loop value as its "
                              f"argument: compute it before the loop, or use numpy functions on the array")
    return _numpy_call(cell, line, getattr(constant(cell, fn.__self__), name), args, kwargs)

def _array_of(cell, line, items, dtype=None):
    """`np.array([a, b])` of loop values: np.stack of the items (nested lists stack again), in the dtype
    numpy's array constructor finds (Python numbers as int64/float64: not weak here, as in numpy)."""
    flat = cfnb.nest.flatten(list(items))
    if dtype is None:
        dtype = np.result_type(*[np.dtype(v.dtype.as_numpy_dtype) if isinstance(v, cfnb.Tensor)
                                 else np.asarray(v).dtype for v in flat])
    dtype = cfnb.as_dtype(np.dtype(dtype))

    def build(x):
        if isinstance(x, (list, tuple)):
            return cfnb.stack([build(v) for v in x])
        return cfnb.cast(x, dtype) if isinstance(x, cfnb.Tensor) else cfnb.constant(x, dtype=dtype)
    out = build(list(items))
    cell.numpy_ops.add(out.op)  # an ndarray in plain Python
    return out

def _math(cell, line, fn, args, kwargs):
    name = getattr(fn, "__name__", "?")
    impl = _MATH.get(name)
    if impl is None:
        raise CellError(line, f"math.{name} has no graph form: use numpy's np.{name}(...) if it has one, or "
                              f"compute it before the loop")
    args = [cfnb.cast(a, cfnb.float64 if cell.options.dtypes == "numpy" else cfnb.float32)
            if isinstance(a, cfnb.Tensor) and not a.dtype.is_floating else a for a in args]
    out = impl(*args, **kwargs)
    cell.python_ops.add(out.op)  # math's functions return Python numbers
    return dtype_rules.mark_weak(out)

def _range(cell, line, args):
    if not 1 <= len(args) <= 3:
        raise CellError(line, f"range expected 1 to 3 arguments, got {len(args)}")
    if not _has_tensor(args):
        return range(*args)
    for a in args:
        if isinstance(a, cfnb.Tensor) and not a.dtype.is_integer:
            raise CellError(line, f"range(...) needs integers, got a {a.dtype.name} value: use int(...)")
    return TensorRange(args)

def _walks_in_graph(value):
    """Can a graph loop walk `value` (a range, an array, a tensor, a list of numbers)?"""
    return isinstance(value, (range, TensorRange, np.ndarray, cfnb.Tensor, Parallel)) or \
        isinstance(value, list) and value and all(isinstance(x, (int, float, bool)) for x in value)


def _parallel(fn, args, kwargs):
    """`enumerate(xs)` and `zip(a, b)` for a `for` (operators/iteration.py): walked by one graph counter."""
    if fn is builtins.enumerate:
        (iterable,) = args
        return Parallel([Counter(kwargs.get("start", 0)), iterable], lambda: enumerate(iterable, **kwargs))
    return Parallel(list(args), lambda: zip(*args, **kwargs))


def _len(cell, line, *args):
    (x,) = args
    if isinstance(x, Accumulator):
        return x.length()
    if isinstance(x, ProbeList):
        return dtype_rules.mark_weak(cfnb.placeholder(cfnb.int64, []))
    if isinstance(x, cfnb.Tensor) and x.dtype == cfnb.string:
        out = cfnb.cast(string_length(x), cfnb.int64)
        cell.python_ops.add(out.op)  # a Python int
        return dtype_rules.mark_weak(out)
    if isinstance(x, cfnb.Tensor):
        if x.shape.ndims == 0:
            raise CellError(line, "len() of a 0-d value (a number)")
        if x.shape.ndims is not None and x.shape.as_list()[0] is not None:
            return x.shape.as_list()[0]
        return dtype_rules.mark_weak(cfnb.shape(x, out_type=cfnb.int64)[0])
    return len(x)


# --- builtins on tensors --------------------------------------------------------------------------
def _abs(cell, line, x):
    return cfnb.abs(x)


def _minmax(reduce_fn, pair_fn, name):
    def fn(cell, line, *args, **kwargs):
        if kwargs:
            raise CellError(line, f"{name}(..., {', '.join(kwargs)}=...) on graph values is not supported")
        if len(args) == 1:
            (x,) = args
            if isinstance(x, cfnb.Tensor):
                out = reduce_fn(x)
                cell.numpy_ops.add(out.op)  # max over an array's items: plain Python gives a numpy scalar
                return out
            args = tuple(x)
        result = args[0]
        for a in args[1:]:
            result = pair_fn(result, a)
        return result
    return fn


def _float(cell, line, x=0.0):
    out = cfnb.identity(cfnb.cast(x, cfnb.float64 if cell.options.dtypes == "numpy" else cfnb.float32))
    cell.python_ops.add(out.op)  # float(...) is a Python float whatever went in
    return dtype_rules.mark_weak(out)


def _int(cell, line, x=0):
    if x.dtype.is_floating:
        x = cfnb.sign(x) * cfnb.floor(cfnb.abs(x))  # toward zero, as Python's int()
    out = cfnb.identity(cfnb.cast(x, cfnb.int64 if cell.options.dtypes == "numpy" else cfnb.int32))
    cell.python_ops.add(out.op)
    return dtype_rules.mark_weak(out)


def _round(cell, line, x, ndigits=None):
    """Python's round: half to even (TensorFlow's Round), an int; with ndigits, numpy's round of a numpy number
    (Python rounds a Python float by its decimal digits, which a graph does not: refused there)."""
    if ndigits is not None:
        if dtype_rules.is_weak(x) or not x.dtype.is_floating:
            raise CellError(line, "round(x, ndigits) of a Python number computed in the loop has no graph form: "
                                  "round it after the loop, or use np.round(x, ndigits) (numpy's rounding)")
        return numpy_functions.round(x, ndigits)
    out = cfnb.round(x) if x.dtype.is_floating else x
    out = cfnb.identity(cfnb.cast(out, cfnb.int64 if cell.options.dtypes == "numpy" else cfnb.int32))
    cell.python_ops.add(out.op)  # a Python int, as round() gives
    return dtype_rules.mark_weak(out)


def _refuse(name, instead):
    def fn(cell, line, *args, **kwargs):
        raise CellError(line, f"{name}() of a graph value has no graph form: {instead}")
    return fn


_BUILTINS = {
    builtins.abs: _abs,
    builtins.min: _minmax(lambda x: cfnb.reduce_min(x), lambda a, b: cfnb.minimum(a, b), "min"),
    builtins.max: _minmax(lambda x: cfnb.reduce_max(x), lambda a, b: cfnb.maximum(a, b), "max"),
    builtins.float: _float,
    builtins.int: _int,
    builtins.round: _round,
    builtins.bool: _refuse("bool", "compare it instead (x != 0)"),
    builtins.str: lambda cell, line, x: to_string(cell, [x]),
    builtins.sum: _refuse("sum", "use np.sum(x), or add in the loop"),
    builtins.list: _refuse("list", "append the items in a loop"),
    builtins.sorted: _refuse("sorted", "use np.sort(x) before the loop"),
    builtins.isinstance: _refuse("isinstance", "a graph value's type is fixed: check it before the cell"),
}
_OVER_ITEMS = (builtins.sum, builtins.max, builtins.min)
_MATH_FUNCTIONS = {getattr(math, name) for name in dir(math) if callable(getattr(math, name))}


def _is_random(fn):
    module = getattr(fn, "__module__", None) or getattr(type(getattr(fn, "__self__", None)), "__module__", "") or ""
    return module.startswith(("numpy.random", "random")) or type(getattr(fn, "__self__", None)).__name__ in (
        "Generator", "RandomState", "Random")


def _name_of(fn):
    owner = getattr(fn, "__self__", None)
    prefix = "np.random." if owner is not None and type(owner).__name__ in ("RandomState", "Generator") else ""
    return prefix + getattr(fn, "__name__", "this call")


def _is_numpy(fn):
    if isinstance(fn, np.ufunc):
        return True
    module = getattr(fn, "__module__", None) or ""
    if module.startswith("numpy"):
        return True
    owner = getattr(fn, "__self__", None)
    return isinstance(owner, cfnb.Tensor)  # t.sum(), t.reshape(...): ndarray's methods
