"""What a `for` walks (`__cf.for_iter`, `__cf.for_item`; converters/for_loops.py makes the loop).

A graph loop walks what has a length and an item for each counter value:

  * `range(start, stop, step)`: Python's length with Python ints; with tensor bounds the length is computed in
    the graph, Python's formula `max(0, -((start - stop) // step))` (negative steps too);
  * an array, a tensor or a list of numbers, along its leading axis (the static leading dimension when known,
    else `shape(t)[0]` at run time), the item `t[k]`;
  * `enumerate(...)` and `zip(...)` of those: one counter for all, the item a tuple (`for i, x in
    enumerate(xs)`), `zip` as long as its shortest part.

Any other Python iterable (a list of arrays `for W in layers:`, a list of lists, a dict, a string) is walked as
AutoGraph walks a Python iterable: the loop is *unrolled* while the graph is built, one copy of the body per item
(loops.py runs it in Python; each copy's ops carry the attr `_cfnb_unrolled`, so a drawing can say so).
"""
import builtins

import numpy as np

import cfnb
from cfnb.framework import dtype_rules

from ..errors import CellError
from .tensors import constant


class Iteration:
    """What one `for` walks: `length` (a Python int or a tensor), and `item(k)` for counter value k."""

    unrolled = False

    def __init__(self, label, length):
        self.label, self.length = label, length


class RangeIteration(Iteration):
    def __init__(self, label, length, start=0, step=1):
        super().__init__(label, length)
        self.start, self.step = start, step

    def item(self, k):
        start, step = self.start, self.step
        if _is_python_int(start) and _is_python_int(step) and start == 0 and step == 1:
            return k
        return start + k * step


class ArrayIteration(Iteration):
    def __init__(self, label, length, array, python_items=False):
        super().__init__(label, length)
        self.array, self.python_items = array, python_items  # a list of Python numbers: each item is one

    def item(self, k):
        item = self.array[k]
        return dtype_rules.mark_weak(item) if self.python_items else item


class ParallelIteration(Iteration):
    """`zip(a, b)` or `enumerate(a)`: its parts walked by one counter, as long as the shortest."""

    def __init__(self, label, parts):
        lengths = [p.length for p in parts if p.length is not None]  # enumerate's count has none
        length = lengths[0]
        for other in lengths[1:]:
            length = builtins.min(length, other) if not _any_tensor([length, other]) else cfnb.minimum(length, other)
        super().__init__(label, length)
        self.parts = parts

    def item(self, k):
        return tuple(p.item(k) for p in self.parts)


class UnrolledIteration(Iteration):
    """A Python iterable's items, one copy of the loop body each (loops.py)."""

    unrolled = True

    def __init__(self, label, items):
        super().__init__(label, len(items))
        self.items = items

    def item(self, k):
        return self.items[k]


class Parallel:
    """What `zip(...)` or `enumerate(...)` of ranges, arrays or tensors returns in a cell (py_builtins.py)."""

    def __init__(self, parts, python):
        self.parts, self.python = parts, python  # python(): the same call on Python values, for an unrolled loop


class Counter:
    """enumerate's count: start, start + 1, ... as long as what it counts."""

    def __init__(self, start):
        self.start = start


def for_iter(cell, iterable, target, line):
    """What `for target in iterable` walks (converters/for_loops.py)."""
    graph_loop = _graph_iteration(cell, iterable, target, line)
    if graph_loop is not None:
        return graph_loop
    if isinstance(iterable, Parallel):
        iterable = iterable.python()
    try:
        items = list(iterable)
    except TypeError:
        raise CellError(line, f"`for {target} in ...`: a {type(iterable).__name__} is not iterable") from None
    return UnrolledIteration(target, items)


def _graph_iteration(cell, iterable, target, line):
    """A graph loop's Iteration for `iterable`, or None when it is a Python iterable to unroll."""
    if isinstance(iterable, range):
        return RangeIteration(target, len(iterable), iterable.start, iterable.step)
    if isinstance(iterable, TensorRange):
        return iterable.iteration(target)
    if isinstance(iterable, Counter):
        return RangeIteration(target, None, iterable.start, 1)
    if isinstance(iterable, Parallel):
        parts = [_graph_iteration(cell, p, target, line) for p in iterable.parts]
        return ParallelIteration(target, parts) if all(p is not None for p in parts) else None
    python_items = False
    if isinstance(iterable, list) and iterable and all(_is_number(x) for x in iterable):
        python_items = not any(isinstance(x, bool) for x in iterable)
        iterable = constant(cell, iterable)
    if isinstance(iterable, (np.ndarray, cfnb.Tensor)):
        t = iterable if isinstance(iterable, cfnb.Tensor) else constant(cell, iterable)
        if t.shape.ndims == 0:
            raise CellError(line, f"`for {target} in ...`: a 0-d value has nothing to iterate over")
        first = t.shape.as_list()[0] if t.shape.ndims is not None else None
        length = first if first is not None else cfnb.shape(t, out_type=cfnb.int64)[0]
        return ArrayIteration(target, length, t, python_items)
    return None


def for_item(cell, iteration, k, line):
    """The item of iteration `k`: start + k * step, the array's row k, or a tuple of those (zip, enumerate).
    A row of an array is a view of it: setting its items is refused (operators/slices.py)."""
    item = iteration.item(k)
    for part, value in _rows(iteration, item):
        cell.views[id(value)] = (value, part.label, line)
    return item


def _rows(iteration, item):
    if isinstance(iteration, ArrayIteration) and isinstance(item, cfnb.Tensor) and item.shape.ndims:
        yield iteration, item
    elif isinstance(iteration, ParallelIteration):
        for part, value in zip(iteration.parts, item):
            yield from _rows(part, value)


class TensorRange:
    """`range(...)` with tensor bounds: its length is computed in the graph (Python's formula)."""

    def __init__(self, args):
        if len(args) == 1:
            args = (0, args[0], 1)
        elif len(args) == 2:
            args = (args[0], args[1], 1)
        self.start, self.stop, self.step = args

    def iteration(self, label):
        start, stop, step = self.start, self.stop, self.step
        length = cfnb.maximum(-((start - stop) // step), 0 * step)
        return RangeIteration(label, length, start, step)


def _is_python_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return isinstance(v, (int, float, bool))


def _any_tensor(values):
    return any(isinstance(v, cfnb.Tensor) for v in values)
