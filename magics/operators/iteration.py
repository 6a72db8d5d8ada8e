"""What a `for` walks (`__cf.for_iter`, `__cf.for_item`; converters/for_loops.py makes the loop).

`range(start, stop, step)` with Python ints has a Python length; with tensor bounds its length is
computed in the graph, Python's formula `max(0, -((start - stop) // step))` (negative steps too).
An array, a tensor or a list of numbers is walked along its leading axis: the length is the static
leading dimension when known, else `shape(t)[0]` at run time, and the item is `t[k]`.
"""
import numpy as np

import cfnb
from cfnb.framework import dtype_rules

from ..errors import CellError
from .tensors import constant


class _Iteration:
    """What a `for` walks: `range(start, stop, step)` or the leading axis of an array/tensor."""

    def __init__(self, length, start=0, step=1, array=None, python_items=False):
        self.length, self.start, self.step, self.array = length, start, step, array
        self.python_items = python_items  # a list of Python numbers: each item is a Python number


def for_iter(cell, iterable, target, line):
    """What `for target in iterable` walks (converters/for_loops.py)."""
    if isinstance(iterable, range):
        return _Iteration(len(iterable), iterable.start, iterable.step)
    if isinstance(iterable, _Range):
        return iterable.iteration()
    python_items = False
    if isinstance(iterable, list) and iterable and all(isinstance(x, (int, float, bool)) for x in iterable):
        python_items = not any(isinstance(x, bool) for x in iterable)
        iterable = constant(cell, iterable)
    if isinstance(iterable, list) and iterable and all(isinstance(x, cfnb.Tensor) for x in iterable):
        iterable = cfnb.stack(iterable)
    if isinstance(iterable, (np.ndarray, cfnb.Tensor)):
        t = iterable if isinstance(iterable, cfnb.Tensor) else constant(cell, iterable)
        if t.shape.ndims == 0:
            raise CellError(line, f"`for {target} in ...`: a 0-d value has nothing to iterate over")
        first = t.shape.as_list()[0] if t.shape.ndims is not None else None
        length = first if first is not None else cfnb.shape(t, out_type=cfnb.int64)[0]
        return _Iteration(length, array=t, python_items=python_items)
    kind = type(iterable).__name__
    raise CellError(line, f"`for {target} in <{kind}>`: a graph loop walks range(...), a numpy array, a tensor "
                          f"or a list of numbers. For enumerate/zip, loop over an index: "
                          f"`for i in range(len(xs)):` and read `xs[i]`")


def for_item(cell, iteration, k, line):
    """The item of iteration `k`: start + k * step, or the array's row k."""
    if iteration.array is not None:
        item = iteration.array[k]
        return dtype_rules.mark_weak(item) if iteration.python_items else item
    start, step = iteration.start, iteration.step
    if _is_python_int(start) and _is_python_int(step) and start == 0 and step == 1:
        return k
    return start + k * step


class _Range:
    """`range(...)` with tensor bounds: its length is computed in the graph (Python's formula)."""

    def __init__(self, args):
        if len(args) == 1:
            args = (0, args[0], 1)
        elif len(args) == 2:
            args = (args[0], args[1], 1)
        self.start, self.stop, self.step = args

    def iteration(self):
        start, stop, step = self.start, self.stop, self.step
        length = cfnb.maximum(-((start - stop) // step), 0 * step)
        return _Iteration(length, start, step)


def _is_python_int(v):
    return isinstance(v, int) and not isinstance(v, bool)
