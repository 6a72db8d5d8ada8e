"""When a cell's value becomes a tensor, and which tensor.

Values stay Python (or numpy) until they must be tensors, as in AutoGraph: `x = 2.0` keeps the float,
`v = x * x` is computed by Python. A value becomes a tensor when it enters a loop or a cond (a loop variable, a
branch output), when a tensor meets it, or when `--grad` names it. So the straight-line code around the loops
computes what plain Python computes, and each `while` and tensor-`if` becomes graph control flow.
"""
import numpy as np

import cfnb
from cfnb.framework import dtype_rules

from .accumulators import Accumulator
from .logical import is_python_number


def constant(cell, v, name=None):
    """A constant for a Python or numpy value, in the cell's dtype rules (numpy's: int64 and float64)."""
    numpy_value = isinstance(v, (np.ndarray, np.generic))
    if cell.options.dtypes == "numpy" and not numpy_value:
        if isinstance(v, bool):
            t = cfnb.constant(v, name=name)
        elif isinstance(v, int):
            if not -(2 ** 63) <= v < 2 ** 63:
                raise OverflowError(f"{v} does not fit in int64: Python's ints are unbounded, but the graph "
                                    f"computes them in int64 (from -2**63 to 2**63 - 1). Use floats for numbers "
                                    f"this large, or keep them smaller.")
            t = cfnb.constant(v, dtype=cfnb.int64, name=name)
        elif isinstance(v, float):
            t = cfnb.constant(v, dtype=cfnb.float64, name=name)
        else:
            arr = np.asarray(v)
            t = cfnb.constant(arr.astype(np.int64) if arr.dtype.kind == "i" else arr, name=name)
    else:
        t = cfnb.constant(v, name=name)
    if numpy_value:
        cell.numpy_ops.add(t.op)
    elif is_python_number(v):
        dtype_rules.mark_weak(t)  # promotes as the Python number would (weak, NEP 50)
    return t


def value(cell, v):
    """`v` as a tensor where it must be one (a loop variable, a branch output)."""
    if isinstance(v, (cfnb.Tensor, Accumulator)) or hasattr(v, "_flow_for_control_flow"):
        return v
    if isinstance(v, tuple):
        return tuple(value(cell, x) for x in v)
    if isinstance(v, (bool, int, float, np.ndarray, np.generic)):
        return constant(cell, v)
    return v


def tensors_in(values):
    return [v for v in cfnb.nest.flatten(list(values)) if isinstance(v, cfnb.Tensor)]
