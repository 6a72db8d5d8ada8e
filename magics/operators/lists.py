"""`xs.append(v)`: a Python list outside a loop, the next item of the list's TensorArray inside one
(converters/list_append.py makes the call; accumulators.py is the TensorArray a loop carries)."""
import cfnb

from ..errors import CellError
from .accumulators import Accumulator
from .logical import is_weak
from .objects import changed, latest
from .tensors import constant, value


def append(cell, target, item, line):
    """`xs = __cf.append(xs, item, line)` (converters/list_append.py): a new Python list outside a loop, the next
    item of the list's TensorArray inside one (only the list's items are traced while probing a body)."""
    original, target = target, latest(cell, target)
    if isinstance(target, Accumulator):
        if cell.probing:
            return changed(cell, original, target.probe_list() + [item], None)
        return changed(cell, original, target.append(value(cell, item)), None)
    if isinstance(target, list):
        return changed(cell, original, target + [item], None)
    raise CellError(line, f".append on a {type(target).__name__}: only a Python list can be appended to")


def accumulator_for(cell, before, probed, name, line):
    """The loop variable for list `before`, given what one traced iteration made of it."""
    if not isinstance(probed, list):
        raise CellError(line, f"'{name}' is a list before the loop, but the loop makes it a "
                              f"{type(probed).__name__}: a list can change in a loop only by .append")
    if len(probed) <= len(before):
        raise CellError(line, f"'{name}' is a list the loop changes other than by .append: in a graph loop a list "
                              f"can only grow with .append (or make it an array before the loop)")
    item = probed[len(before)]
    with cfnb.Graph().as_default():
        t = item if isinstance(item, cfnb.Tensor) else constant(cell, item)
    if not t.shape.is_fully_defined():
        raise CellError(line, f"'{name}'.append(...): the items have a shape known only at run time")
    ta = cfnb.TensorArray(t.dtype, size=0, dynamic_size=True, element_shape=t.shape)
    for k, old in enumerate(before):  # the items the list held before the loop come first
        try:
            ta = ta.write(k, cfnb.cast(value(cell, old), t.dtype))
        except (TypeError, ValueError):
            raise CellError(line, f"'{name}' holds items of another kind than those the loop appends to it: a list "
                                  f"grown in a graph loop holds one kind of item (one dtype and shape)") from None
    weak = is_weak(item) and all(is_weak(old) for old in before)
    return Accumulator(list(before), ta, weak)
