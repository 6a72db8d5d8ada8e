"""Which number rules a graph follows: TensorFlow's (the default) or numpy's (`Graph.dtype_rules`).

TensorFlow makes a Python float a float32 and a Python int an int32, and refuses mixed dtypes;
numpy makes them float64 and int64 and promotes. `import cfnb as tf` programs follow TensorFlow's
rules; the `%%whileloop` magic builds its graphs under numpy's, so a cell computes what plain
Python and numpy compute. This module holds the two names, the one place where numpy's rule for a
Python value's dtype lives (`numpy_dtype_of`), and `forced_dtype_rules`, which `gradients()`
uses to build under TensorFlow's rules whatever the graph's (gradient functions are written for
them; the forward graph already holds explicit Casts). How ops promote mixed dtypes under numpy's
rules is an op concern: cfnb/ops/numpy_rules.py.
"""
import contextlib
import weakref

import numpy as np

from . import dtypes as _dtypes

TENSORFLOW_RULES, NUMPY_RULES = "tensorflow", "numpy"
ALL_RULES = (TENSORFLOW_RULES, NUMPY_RULES)
_forced = []
_weak = weakref.WeakSet()


@contextlib.contextmanager
def forced_dtype_rules(rules):
    """Every graph follows `rules` inside the block."""
    _forced.append(rules)
    try:
        yield
    finally:
        _forced.pop()


def forced():
    """The rules forced on every graph now, or None."""
    return _forced[-1] if _forced else None


def check(rules):
    """`rules` if it names a known set of dtype rules ("tensorflow" or "numpy"), else a ValueError
    naming both: a typo must not silently fall back to TensorFlow's rules."""
    if rules not in ALL_RULES:
        raise ValueError(f"dtype_rules must be {TENSORFLOW_RULES!r} or {NUMPY_RULES!r}, got {rules!r}")
    return rules


def numpy_dtype_of(value, elements):
    """The DType numpy gives a Python value (`np.asarray(value).dtype`): int -> int64, float ->
    float64, a list its common type. `elements(value)` yields its scalars (refusing tensors)."""
    for v in elements(value):
        if isinstance(v, int) and not isinstance(v, bool) and not -(2 ** 63) <= v < 2 ** 63:
            raise OverflowError(f"Python integer {v} out of bounds for int64")
    try:
        npd = np.asarray(value).dtype
    except (TypeError, ValueError) as e:
        raise TypeError(f"Failed to convert object of type {type(value).__name__} to Tensor: {e}") from None
    if npd.kind in "US":
        return _dtypes.string
    try:
        return _dtypes.as_dtype(npd)
    except TypeError:
        raise TypeError(f"Failed to convert object of type {type(value).__name__} to Tensor: numpy makes it "
                        f"{npd}, which cfnb does not have. Contents: {value!r}") from None


def mark_weak(tensor):
    """Record that `tensor` holds what plain Python holds as a Python int or float (a `range` counter,
    `n + 1` of Python numbers): under numpy's rules it promotes as a *weak* scalar (NEP 50), as the
    Python number would: `float32_array * 0.5 + i` stays float32 (ops/numpy_rules.py)."""
    _weak.add(tensor)
    return tensor


def is_weak(tensor):
    """Is `tensor` marked as a Python number (`mark_weak`)? A function graph's placeholder for a
    captured tensor carries its mark (FuncGraph.capture)."""
    return tensor in _weak
