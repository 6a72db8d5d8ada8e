"""Aliases as Python has them: an array, list or dict that two names share sees a change made through either.

A graph value cannot change in place: `a[k] = v` makes a new tensor, which converters/item_assignment.py
binds to `a` (as AutoGraph's `set_item` does). Every other name of the same object must see it too (`result
= x`, then `x[k] = v`), and so must the notebook's names, when the object came from the notebook. So each
mutable object the cell changes gets a `Box`: the object's *versions* (each value it held) all lead to the box,
and the box knows the latest. A read of any name (`ld`) gives the latest version of the object it names, and
at the end the notebook's own object is changed in place (`origin`), so every name that shares it, in the
cell or in earlier cells, sees what plain Python would have left.

Loops and conds carry an object's latest version as a loop variable or a branch output (loops.py,
conditionals.py); names that share an object when a loop starts share it in every iteration. What a graph
cannot hold is refused where it happens: names that share an object before a loop but not after one iteration.
"""
import numpy as np

import cfnb

from ..errors import CellError


class Box:
    """One mutable object of the cell: `origin` (the Python object, or None for an array a graph op made) and
    `latest` (its value now: a tensor, a Python list, a dict, or the origin itself before any change)."""

    __slots__ = ("origin", "latest", "name")

    def __init__(self, origin, latest, name):
        self.origin, self.latest, self.name = origin, latest, name


class Boxes:
    """The cell's boxes, found from any version of their object (by identity)."""

    def __init__(self):
        self._by_id = {}  # id(version) -> (version, box): the version is kept alive so its id stays unique

    def of(self, value):
        """The box of the object `value` is a version of, or None."""
        found = self._by_id.get(id(value))
        return found[1] if found is not None and found[0] is value else None

    def add(self, box, version):
        self._by_id[id(version)] = (version, box)
        box.latest = version

    def new(self, origin, latest, name):
        box = Box(origin, latest, name)
        if origin is not None:
            self._by_id[id(origin)] = (origin, box)
        self.add(box, latest)
        return box

    def all(self):
        return list({id(b): b for _v, b in self._by_id.values()}.values())

    def snapshot(self):
        return {id(b): (b, b.latest) for b in self.all()}

    def restore(self, snapshot):
        """Each box's latest version as it was at `snapshot`; boxes made since (objects a traced body made, one
        per iteration in plain Python) are forgotten."""
        for box, latest in snapshot.values():
            box.latest = latest
        self._by_id = {k: (v, b) for k, (v, b) in self._by_id.items() if id(b) in snapshot}


def is_mutable(value):
    """An object a cell can change in place: an array (not a number), a list, a dict."""
    return isinstance(value, (list, dict)) or isinstance(value, np.ndarray) and value.ndim > 0 or \
        isinstance(value, cfnb.Tensor) and value.shape.ndims != 0


def latest(cell, value):
    """What a name that holds `value` reads: the latest version of its object."""
    box = cell.boxes.of(value)
    return box.latest if box is not None else value


def changed(cell, target, new, name):
    """`target` (a version of an object, or the object itself) now holds `new`: a new version of its box."""
    box = cell.boxes.of(target)
    if box is None:
        box = cell.boxes.new(target if isinstance(target, (np.ndarray, list, dict)) else None, target, name)
    cell.boxes.add(box, new)
    return new


def shared_groups(cell, values, names):
    """[(box, [positions])]: the object each mutable value belongs to (a box is made for one that has none yet,
    so a name outside the loop or the branch that shares it sees what happens to it there)."""
    groups = {}
    for k, v in enumerate(values):
        box = cell.boxes.of(v)
        if box is None and is_mutable(v):
            box = cell.boxes.new(v if isinstance(v, (np.ndarray, list, dict)) else None, v, names[k])
        if box is not None:
            groups.setdefault(id(box), (box, []))[1].append(k)
    return list(groups.values())


def check_same_sharing(groups, returned, cell, names, line):
    """Names that share an object when an iteration starts must share it when it ends (the next iteration
    starts where this one ends): a graph cannot make one name a view of another on some iterations only."""
    for _box, positions in groups:
        ends = {id(cell.boxes.of(returned[k])) for k in positions}
        if len(positions) > 1 and len(ends) > 1:
            together = " and ".join(f"'{names[k]}'" for k in positions)
            raise CellError(line, f"{together} name one array before the loop, but the loop body makes them two: "
                                  f"a graph loop keeps which names share an array the same in every iteration. "
                                  f"Write `{names[positions[-1]]} = {names[positions[0]]}.copy()` before the loop "
                                  f"if they should be two arrays")


def hand_back(cell, values):
    """{name: the box whose object the notebook should get} for names that hold a version of an object that
    came from Python (the notebook, or a list or array the cell's Python made): they get that very object."""
    out = {}
    for name, v in values.items():
        box = cell.boxes.of(v)
        if box is not None and box.origin is not None:
            out[name] = box
    return out


def write_back(box, value):
    """Change `box.origin` in place to hold `value` (after a successful run), as plain Python would have."""
    origin = box.origin
    if isinstance(origin, np.ndarray):
        origin[...] = value
    elif isinstance(origin, list):
        origin[:] = value
    elif isinstance(origin, dict):
        origin.clear()
        origin.update(value)
    return origin
