"""Names that may not be defined yet: AutoGraph's `Undefined` and `ld` (`operators/variables.py`), with
Python's own NameError when a path of the graph reads one.

Plain Python decides at run time whether a name exists: after `for i in range(n)` with `n == 0`, `i`
is whatever it was before the loop (or undefined). A graph has one value per name, so a name that a
loop (or a branch) may or may not assign is a `Maybe`: the value the loop made, a boolean tensor that
says whether it exists, and what the name held before (its `fallback`). Every read of a cell name
goes through `ld`:

  * the value is defined on every path: it is returned as it is;
  * a `Maybe` whose fallback is undefined: the read waits on an `Assert` that raises Python's text
    (`NameError: name 'i' is not defined`) when the graph runs down a path where it is undefined;
  * a `Maybe` whose fallback is a number of another Python type (`s = 0` before, floats after): the
    loop carried the old value cast to the loop's dtype, so the read is that value; only the value
    handed back to the notebook takes the fallback's exact type (`readable`);
  * a `Maybe` whose fallback a graph cannot hold in the same tensor (a string, another shape or dtype):
    the read is refused at its line (the value handed back to the notebook is still exact).
"""
import numpy as np

import cfnb
from cfnb.framework import dtype_rules
from cfnb.ops.numpy_rules import PYTHON_INT_ATTR

from ..errors import CellError
from .objects import latest
from .tensors import constant, value


class Undefined:
    """The value of a name that has not been assigned yet (AutoGraph's `Undefined`)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<undefined {self.name}>"


class Maybe:
    """A name that holds `value` where `defined` (a bool tensor) is true, else `fallback`."""

    __slots__ = ("name", "value", "defined", "fallback", "readable", "line")

    def __init__(self, name, value, defined, fallback, readable=False, line=0):
        self.name, self.value, self.defined, self.fallback = name, value, defined, fallback
        self.readable = readable  # reads see `value` (the fallback differs only in its Python type)
        self.line = line          # the loop that made it (for messages)

    def __repr__(self):
        return f"<{self.name}: defined when the graph says so>"


class UndefinedRead(Exception):
    """A traced function read an undefined name (raised while probing a body's types)."""


def ld(cell, value, name, line):
    """A read of cell name `name` (AutoGraph's `ag__.ld`)."""
    if isinstance(value, Undefined):
        if cell.probing:
            raise UndefinedRead(f"'{name}' is used before it is given a value")
        raise NameError(f"name '{name}' is not defined")
    if not isinstance(value, Maybe):
        return latest(cell, value)
    if value.readable or cell.probing:
        return latest(cell, value.value)
    if not isinstance(value.fallback, Undefined):
        raise CellError(line, f"'{name}' holds {describe(value.fallback)} before the loop at line {value.line} and "
                              f"{describe(value.value)} after it when the loop runs: a graph value has one type and "
                              f"shape, so a later line cannot read it. Give '{name}' a value of the loop's type before "
                              f"the loop, or use another name in the loop")
    check = cfnb.Assert(value.defined, [f"NameError: name '{name}' is not defined"], name=f"defined_{name}")
    cell.op_line[check] = line
    with cfnb.control_dependencies([check]):
        out = cfnb.identity(value.value)
    return dtype_rules.mark_weak(out) if dtype_rules.is_weak(value.value) else out


def assign(cell, name, v, line):
    """`name = v`: the value itself (Python stays Python), recorded for --grad."""
    if name.startswith("__k_") and isinstance(v, cfnb.Tensor):
        v.op._attrs.pop(PYTHON_INT_ATTR, None)  # a `for` loop's own counter stays below its length
    if name in cell.grad_names and cell.depth == 0 and not isinstance(v, cfnb.Tensor):
        v = value(cell, v)  # --grad differentiates with respect to this very tensor
    if isinstance(v, cfnb.Tensor) and name not in cell.first and v.graph is cell.graph and cell.depth == 0:
        cell.first[name] = v
    return v


def from_namespace(cell, ns, name, assigned):
    """A notebook value the cell reads (and, if `assigned`, may rebind). An array becomes a constant, a list or
    a dict a copy, each a version of the notebook's own object (objects.py): the notebook's object changes
    only after the cell has run, in place, as plain Python changes it."""
    original = ns[name]
    box = cell.boxes.of(original)
    if box is not None:  # another notebook name for the same object
        v = box.latest
    elif isinstance(original, np.ndarray) and original.ndim > 0 or isinstance(original, (list, dict)):
        v = _notebook_constant(cell, original, name) if isinstance(original, np.ndarray) else type(original)(original)
        cell.boxes.new(original, v, name)
    elif isinstance(original, np.generic) or (name in cell.grad_names and isinstance(original, (int, float))):
        v = _notebook_constant(cell, original, name)
    else:
        v = original
        cell.from_notebook[name] = original  # a Python value: a constant named after it if a loop reads it
    if isinstance(v, cfnb.Tensor):
        cell.notebook.setdefault(name, v)
    return v


def invariant(cell, v, name):
    """A number a loop reads but does not change: a constant made before the loop (named after the notebook's
    name when it is the notebook's value)."""
    if isinstance(v, (int, float, np.generic)) and not cell.probing:
        if cell.from_notebook.get(name, _NOTHING) is v:
            return _notebook_constant(cell, v, name)
        return constant(cell, v)
    return v


_NOTHING = object()


def _notebook_constant(cell, value, name):
    """A notebook value the cell reads, as an op named after its Python name (`x0`), marked as the notebook's
    (`_cfnb_source`), so a drawing shows it as a named input, never as a stray constant."""
    t = constant(cell, value, name=name)
    t.op._set_attr("_cfnb_source", "notebook")
    return t


def values(cell, local_vars, names):
    """The values of `names` now (a loop's or a branch's state; AutoGraph's get_state): Undefined where unbound."""
    return tuple(local_vars.get(n, Undefined(n)) for n in names)


def describe(v):
    """`an int`, `a float64 array of shape (3,)`, `a str`: what a student calls a value's type."""
    if isinstance(v, cfnb.Tensor):
        if v.shape.ndims != 0:
            return f"a {v.dtype.name} array of shape {tuple(v.shape.as_list())}"
        if dtype_rules.is_weak(v):
            return "an int" if v.dtype.is_integer else "a float" if v.dtype.is_floating else "a bool"
        return f"a {v.dtype.name} number"
    if getattr(v, "shape", ()):
        return f"a {v.dtype} array of shape {v.shape}"
    name = type(v).__name__
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"
