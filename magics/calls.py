"""What a call in the cell means when its arguments are tensors (`__cf.call`, `__cf.print_`, ...).

  * builtins: `abs` (Abs), `min`/`max` of two or more values (Minimum/Maximum), `len` (the static
    leading dimension, else Shape), `float()`/`int()` (Cast; `int` truncates toward zero as
    Python does), `round` (Round: half to even, as Python), `range` (a loop's range), `bool`,
    `str` and the rest are refused on tensors, with the line and what to write instead;
  * `math.sqrt/exp/log/log1p/log2/log10/sin/cos/tanh/floor/ceil/fabs/pow/hypot` become graph ops
    (`math.pi`, `math.e` are numbers anyway); other `math` functions are refused;
  * numpy functions reach the tensors' own dispatch (`__array_ufunc__`/`__array_function__`);
    the ops they build are remembered as numpy's (values.py: plain Python would hold a numpy
    value there), and a refusal (`UnsupportedNumpyError`) is reported against the line;
  * `print(...)` becomes a print op (`cfnb.print`, Python's formatting) that runs when the graph
    runs, on every iteration inside a loop, in program order (runtime.py orders them);
  * `xs.append(v)` appends to a Python list, or writes the next item of the list's TensorArray
    inside a loop (lists.py); `a[i]` indexes a notebook array or a Python list by a tensor.
"""
import builtins
import math
import sys

import numpy as np

import cfnb
from cfnb.framework import dtype_rules

from .errors import CellError
from .lists import Accumulator


def tensors_in(values):
    return [v for v in cfnb.nest.flatten(list(values)) if isinstance(v, cfnb.Tensor)]


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


class FString:
    """An f-string with graph values in it: formatted when the graph runs (by a print op)."""

    def __init__(self, parts):
        self.parts = parts   # strings, and (value, conversion, spec) for each {...}

    def pieces(self, line):
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value, _conversion, spec = part
            if isinstance(value, cfnb.Tensor):
                if spec:
                    raise CellError(line, f"the format '{{...:{spec}}}' of a graph value cannot be applied while the "
                                          f"graph runs: print the value as it is, or round(...) it first")
                out.append(value)
            else:
                out.append(format(value, spec))
        return out

    def python(self, line):
        """The string itself, when no graph value is in it; else refused outside print."""
        pieces = self.pieces(line)
        if any(isinstance(p, cfnb.Tensor) for p in pieces):
            raise CellError(line, "an f-string with a graph value can only be printed (its text exists only when "
                                  "the graph runs)")
        return "".join(pieces)


class Calls:
    """The call half of `__cf` (mixed into runtime.Runtime)."""

    # --- calls ---------------------------------------------------------------------------------
    def call(self, line, fn, *args, **kwargs):
        args = tuple(a.python(line) if isinstance(a, FString) else a for a in args)
        try:
            if fn is range:
                return self._range(line, args)
            if fn is len:
                return self._len(line, *args)
            if any(isinstance(a, Accumulator) for a in args) and (fn in _OVER_ITEMS or _is_numpy(fn)):
                # sum(xs), max(xs), np.mean(xs) of a list grown in a loop: over its items as one array
                args = tuple(a.as_tensor() if isinstance(a, Accumulator) else a for a in args)
                if fn is builtins.sum:
                    return cfnb.reduce_sum(args[0]) + (args[1] if len(args) > 1 else 0)
            if isinstance(getattr(fn, "__self__", None), cfnb.Tensor):
                return self._numpy_call(line, fn, args, kwargs)  # t.sum(), t.reshape(...): ndarray's methods
            if isinstance(getattr(fn, "__self__", None), np.ndarray) and _has_tensor(args, kwargs):
                return self._array_method(line, fn, args, kwargs)
            if self.depth and _is_random(fn):
                raise CellError(line, f"{_name_of(fn)}(...) in a loop would be drawn once, when the graph is built, "
                                      f"not on every iteration: draw all the numbers before the loop "
                                      f"(e.g. r = np.random.rand(n)) and read r[i] in it")
            if not _has_tensor(args, kwargs) and not any(isinstance(a, Accumulator) for a in args):
                out = fn(*args, **kwargs)
                if isinstance(out, np.generic) and _is_numpy(fn) and out.dtype.kind in "biuf":
                    out = self.constant(out)  # a numpy scalar: plain Python keeps it numpy wherever it goes
                return out
            builtin = _BUILTINS.get(fn)
            if builtin is not None:
                return builtin(self, line, *args, **kwargs)
            if getattr(fn, "__module__", None) == "math" or fn in _MATH_FUNCTIONS:
                return self._math(line, fn, args, kwargs)
            if fn in (np.array, np.asarray) and args and isinstance(args[0], (list, tuple)):
                return self._array_of(line, args[0], *args[1:], **kwargs)
            if _is_numpy(fn):
                return self._numpy_call(line, fn, args, kwargs)
            return fn(*args, **kwargs)
        except CellError:
            raise
        except (TypeError, ValueError) as e:
            if type(e).__name__ == "UnsupportedNumpyError":
                raise CellError(line, str(e), kind="UnsupportedNumpyError") from None
            raise

    def _numpy_call(self, line, fn, args, kwargs):
        owner = getattr(fn, "__self__", None)
        graphs = {t.graph for t in tensors_in(list(args) + list(kwargs.values()) + [owner])}
        counts = {g: len(g._ops) for g in graphs}
        out = fn(*args, **kwargs)
        for g, n in counts.items():
            self.numpy_ops.update(g._ops[n:])
        return out

    def _array_method(self, line, fn, args, kwargs):
        """`X.dot(t)`, `X.reshape(n, 1)` on a notebook ndarray with a tensor argument: ndarray's C
        method would ask the tensor for its value, so the method of the tensor `constant(X)` (the
        same ndarray methods, numpy_dispatch.py) builds the op instead."""
        name = getattr(fn, "__name__", "?")
        method = getattr(cfnb.Tensor, name, None)
        if method is None or name.startswith("_"):
            raise CellError(line, f"the array method .{name}(...) has no graph form with a loop value as its "
                                  f"argument: compute it before the loop, or use numpy functions on the array")
        return self._numpy_call(line, getattr(self.constant(fn.__self__), name), args, kwargs)

    def _array_of(self, line, items, dtype=None):
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
        self.numpy_ops.add(out.op)  # an ndarray in plain Python
        return out

    def _math(self, line, fn, args, kwargs):
        name = getattr(fn, "__name__", "?")
        impl = _MATH.get(name)
        if impl is None:
            raise CellError(line, f"math.{name} has no graph form: use numpy's np.{name}(...) if it has one, or "
                                  f"compute it before the loop")
        args = [cfnb.cast(a, cfnb.float64 if self.options.dtypes == "numpy" else cfnb.float32)
                if isinstance(a, cfnb.Tensor) and not a.dtype.is_floating else a for a in args]
        out = impl(*args, **kwargs)
        self.python_ops.add(out.op)  # math's functions return Python numbers
        return dtype_rules.mark_weak(out)

    def _range(self, line, args):
        from .iteration import _Range
        if not 1 <= len(args) <= 3:
            raise CellError(line, f"range expected 1 to 3 arguments, got {len(args)}")
        if not _has_tensor(args):
            return range(*args)
        for a in args:
            if isinstance(a, cfnb.Tensor) and not a.dtype.is_integer:
                raise CellError(line, f"range(...) needs integers, got a {a.dtype.name} value: use int(...)")
        return _Range(self, args)

    def _len(self, line, *args):
        (x,) = args
        if isinstance(x, Accumulator):
            return x.length()
        if isinstance(x, cfnb.Tensor):
            if x.shape.ndims == 0:
                raise CellError(line, "len() of a 0-d value (a number)")
            if x.shape.ndims is not None and x.shape.as_list()[0] is not None:
                return x.shape.as_list()[0]
            return dtype_rules.mark_weak(cfnb.shape(x, out_type=cfnb.int64)[0])
        return len(x)

    # --- print -------------------------------------------------------------------------------
    def print_(self, line, *args, sep=" ", end="\n", file=None, flush=False):
        pieces = []
        for k, a in enumerate(args):
            if k:
                pieces.append(sep)
            if isinstance(a, FString):
                pieces.extend(a.pieces(line))
            elif isinstance(a, Accumulator):
                raise CellError(line, "print of a list grown in a loop: print it after the cell, or print its "
                                      "items as they are appended")
            else:
                pieces.append(a)
        if not any(isinstance(p, cfnb.Tensor) for p in pieces) and self.depth == 0 and not self.probing:
            pieces = [str(p) for p in pieces]
        if self.probing:
            return None
        stream = file if file is not None else sys.stdout
        op = cfnb.print(*pieces, output_stream=stream, sep="", end=end, formatter="python", summarize=-1)
        self._effect(op)
        return None

    # --- lists and subscripts ----------------------------------------------------------------------
    def append(self, target, item, line):
        if isinstance(item, FString):
            item = item.python(line)
        if isinstance(target, Accumulator):
            if self.probing:
                return target.probe_list() + [item]
            return target.append(self.value(item))
        if isinstance(target, list):
            return target + [item]
        raise CellError(line, f".append on a {type(target).__name__}: only a Python list can be appended to")

    def getitem(self, value, index, line):
        if isinstance(value, Accumulator):
            raise CellError(line, "indexing a list grown in a loop: read it after the cell (or keep the values in "
                                  "an array)")
        if isinstance(value, (list, tuple, np.ndarray)) and _has_tensor(_index_parts(index)):
            if isinstance(value, (list, tuple)) and not all(isinstance(x, (int, float, bool)) for x in value):
                raise CellError(line, "a list indexed by a graph value must hold numbers only")
            python = isinstance(value, (list, tuple)) and not any(isinstance(x, bool) for x in value)
            item = self.constant(value)[index]
            return dtype_rules.mark_weak(item) if python and not isinstance(index, slice) else item
        return value[index]

    @staticmethod
    def slice_(start, stop, step):
        return slice(start, stop, step)

    def fstring(self, parts, line):
        parts = [p if isinstance(p, str) else p for p in parts]
        return FString(parts)


def _index_parts(index):
    """The parts of an index, the bounds of its slices included (`X[:2 * n]`)."""
    parts = []
    for k in index if isinstance(index, tuple) else (index,):
        parts.extend((k.start, k.stop, k.step) if isinstance(k, slice) else (k,))
    return parts


# --- builtins on tensors --------------------------------------------------------------------------
def _abs(rt, line, x):
    return cfnb.abs(x)


def _minmax(reduce_fn, pair_fn, name):
    def fn(rt, line, *args, **kwargs):
        if kwargs:
            raise CellError(line, f"{name}(..., {', '.join(kwargs)}=...) on graph values is not supported")
        if len(args) == 1:
            (x,) = args
            if isinstance(x, cfnb.Tensor):
                out = reduce_fn(x)
                rt.numpy_ops.add(out.op)  # max over an array's items: plain Python gives a numpy scalar
                return out
            args = tuple(x)
        result = args[0]
        for a in args[1:]:
            result = pair_fn(result, a)
        return result
    return fn


def _float(rt, line, x=0.0):
    out = cfnb.identity(cfnb.cast(x, cfnb.float64 if rt.options.dtypes == "numpy" else cfnb.float32))
    rt.python_ops.add(out.op)  # float(...) is a Python float whatever went in
    return dtype_rules.mark_weak(out)


def _int(rt, line, x=0):
    if x.dtype.is_floating:
        x = cfnb.sign(x) * cfnb.floor(cfnb.abs(x))  # toward zero, as Python's int()
    out = cfnb.identity(cfnb.cast(x, cfnb.int64 if rt.options.dtypes == "numpy" else cfnb.int32))
    rt.python_ops.add(out.op)
    return dtype_rules.mark_weak(out)


def _round(rt, line, x, ndigits=None):
    if ndigits is not None:
        raise CellError(line, "round(x, ndigits) of a graph value is not supported: use np.round(x, ndigits)")
    out = np.round(x) if hasattr(cfnb.Tensor, "__array_ufunc__") else cfnb.floor(x + 0.5)
    return dtype_rules.mark_weak(cfnb.cast(out, cfnb.int64 if rt.options.dtypes == "numpy" else cfnb.int32))


def _refuse(name, instead):
    def fn(rt, line, *args, **kwargs):
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
    builtins.str: _refuse("str", "print it, or use an f-string inside print(...)"),
    builtins.sum: _refuse("sum", "use np.sum(x), or add in the loop"),
    builtins.list: _refuse("list", "append the items in a loop"),
    builtins.sorted: _refuse("sorted", "use np.sort(x) before the loop"),
    builtins.enumerate: _refuse("enumerate", "loop over an index: for i in range(len(xs)): x = xs[i]"),
    builtins.zip: _refuse("zip", "loop over an index: for i in range(len(xs)): a, b = xs[i], ys[i]"),
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
