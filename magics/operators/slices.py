"""Reading and setting items: `__cf.getitem(a, i, line)` and `__cf.setitem(a, k, v, line)` (AutoGraph's
`operators/slices.py`; converters/subscripts.py and converters/item_assignment.py make the calls).

`getitem` indexes a Python list or a notebook array by a graph value (a constant of it, indexed). `setitem`
changes a numpy array in place when nothing in it is a graph value (plain Python, aliases and all); otherwise it
builds the new array (numpy_functions.setitem: the value cast to a's dtype, as numpy's assignment casts).
"""
import numpy as np

import cfnb
from cfnb.framework import dtype_rules
from cfnb.ops import numpy_functions

from ..errors import CellError
from .accumulators import Accumulator, ProbeList
from .logical import is_weak
from .objects import changed, latest
from .tensors import constant, tensors_in
from .variables import UndefinedRead


def getitem(cell, value, index, line):
    """`value[index]`: a list grown in a loop reads its TensorArray; a Python list or a notebook array indexed by
    a graph value becomes a constant (or a stack of its items) first."""
    if isinstance(value, (Accumulator, ProbeList)) and isinstance(index, (slice, tuple)):
        raise CellError(line, "slicing a list grown in a loop has no graph form: read its items one at a time "
                              "(xs[i], xs[-1]), or slice it after the loop")
    if isinstance(value, Accumulator):
        if isinstance(index, (slice, tuple)):
            raise CellError(line, "slicing a list grown in a loop has no graph form: read its items one at a time "
                                  "(xs[i], xs[-1]), or slice it after the loop")
        return value.read(index)
    if isinstance(value, ProbeList) and not isinstance(index, (slice, tuple)):
        if not value:
            raise UndefinedRead("a list read before anything is appended to it")  # this path: the other one's types
        last = value[-1]  # (a probe needs the item's type only)
        return constant(cell, last) if not isinstance(last, cfnb.Tensor) and isinstance(last, (int, float)) \
            and tensors_in(index_parts(index)) else last
    if isinstance(value, (list, tuple, np.ndarray)) and tensors_in(index_parts(index)):
        if isinstance(value, np.ndarray) or all(isinstance(x, (int, float, bool)) for x in value):
            python = isinstance(value, (list, tuple)) and not any(isinstance(x, bool) for x in value)
            item = constant(cell, value)[index]
            return dtype_rules.mark_weak(item) if python and not isinstance(index, slice) else item
        try:
            stacked = cfnb.stack([x if isinstance(x, cfnb.Tensor) else constant(cell, x) for x in value])
        except (TypeError, ValueError):
            raise CellError(line, "a list indexed by a graph value must hold numbers or arrays of one shape") from None
        item = stacked[index]
        return dtype_rules.mark_weak(item) if all(is_weak(x) for x in value) else item
    return value[index]


def slice_(cell, start, stop, step):
    return slice(start, stop, step)


def index_parts(index):
    """The parts of an index, the bounds of its slices included (`X[:2 * n]`)."""
    parts = []
    for k in index if isinstance(index, tuple) else (index,):
        parts.extend((k.start, k.stop, k.step) if isinstance(k, slice) else (k,))
    return parts


def setitem(cell, target, key, value, line):
    """`target[key] = value`: the new version of target's object (objects.py), or the object changed in place
    when nothing is a graph value."""
    original, target = target, latest(cell, target)
    view = cell.views.get(id(original))
    if view is not None and view[0] is original:
        label, loop_line = view[1], view[2]
        raise CellError(line, f"'{label}' is a row of the array the `for` at line {loop_line} walks, and the cell "
                              f"sets its items: plain numpy would change that array too, which a graph value cannot. "
                              f"Loop over an index and set the array's items (`for k in range(len(M)):` and "
                              f"`M[k, j] = v`), or copy the row first (`{label} = {label}.copy()`)")
    symbolic = bool(tensors_in(index_parts(key) + [value])) or isinstance(target, cfnb.Tensor)
    if isinstance(target, Accumulator) or isinstance(target, list) and (cell.depth or symbolic):
        raise CellError(line, "a list changed by item assignment in a loop: in a graph loop a list can only "
                              "grow with .append; use an array (`a = np.zeros(n)`, then `a[i] = v`)")
    if not symbolic:
        target[key] = value  # plain Python: in place (a Python error here is the cell's own)
        return original
    if isinstance(target, dict):  # a new version of the dict (loops carry its items: dict_items.py)
        if tensors_in(index_parts(key)):
            raise CellError(line, "a dict key that is a graph value has no graph form: keys are fixed while the "
                                  "graph is built (use an array indexed by the value instead)")
        new = dict(target)
        new[key] = value
        return changed(cell, original, new, None)
    if not isinstance(target, (cfnb.Tensor, np.ndarray)):
        raise CellError(line, f"item assignment to a {type(target).__name__} with a loop value: only an array "
                              f"or a dict can change its items in a loop")
    if not _basic(key):
        raise CellError(line, "fancy indices (a list, an array or a mask) in `a[...] = v` have no graph form: "
                              "write `a = np.where(mask, v, a)` (a mask of the items to set)")
    if isinstance(target, np.ndarray):
        target = constant(cell, target)
    try:
        out = numpy_functions.setitem(target, key, value)
    except ValueError as e:
        raise CellError(line, str(e), kind="ValueError") from None
    cell.numpy_ops.add(out.op)  # an array's items: plain Python has a numpy array here
    return changed(cell, original, out, None)


def _basic(key):
    parts = key if isinstance(key, tuple) else (key,)
    for k in parts:
        if isinstance(k, slice):
            bounds = (k.start, k.stop, k.step)
        else:
            bounds = (k,)
        for b in bounds:
            if b is None or b is Ellipsis or isinstance(b, (int, np.integer)) and not isinstance(b, bool):
                continue
            if isinstance(b, cfnb.Tensor) and b.dtype.is_integer and b.shape.ndims == 0:
                continue
            return False
    return True
