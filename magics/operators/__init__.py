"""`__cf`: the operators the converted cell calls while its Python runs once, building the cell's graph
(AutoGraph's `ag__`, `tensorflow/python/autograph/operators/`).

Each operator is a function `op(cell, ...)` of one module, `cell` being the one CellState the whole cell shares
(state.py); `bind` makes `__cf` by binding it. The table says which converter emits which call:

  at                              lines.py         every statement (converters/lines.py)
  ld, assign, values, from_namespace, invariant    variables.py     reads, assignments, a loop's or a branch's
                                                                    state, the notebook's names (converters/
                                                                    variables.py, assignments.py, cell_function.py)
  while_stmt                      loops.py         converters/while_loops.py
  if_stmt, if_exp                 conditionals.py  converters/if_statements.py, conditions.py
  and_, or_, not_, eq, ne         logical.py       converters/conditions.py
  for_iter, for_item              iteration.py     converters/for_loops.py
  call, call_stmt                 py_builtins.py   converters/calls.py (call_stmt: a call on a line of its own)
  print_, fstring                 printing.py      converters/calls.py, fstrings.py
  getitem, setitem, slice_        slices.py        converters/subscripts.py, item_assignment.py
  inplace                         augmented.py     converters/assignments.py (x += v)
  append                          lists.py         converters/list_append.py
"""
import functools
from types import SimpleNamespace

from . import augmented, conditionals, iteration, lines, lists, logical, loops, printing, py_builtins, slices, variables
from .state import CellState

OPERATORS = {
    "at": lines.at,
    "ld": variables.ld, "assign": variables.assign, "values": variables.values,
    "from_namespace": variables.from_namespace, "invariant": variables.invariant,
    "while_stmt": loops.while_stmt,
    "if_stmt": conditionals.if_stmt,
    "if_exp": conditionals.if_exp, "and_": logical.and_, "or_": logical.or_, "not_": logical.not_, "eq": logical.eq,
    "ne": logical.ne,
    "for_iter": iteration.for_iter, "for_item": iteration.for_item,
    "call": py_builtins.call, "call_stmt": py_builtins.call_stmt,
    "print_": printing.print_, "fstring": printing.fstring,
    "getitem": slices.getitem, "setitem": slices.setitem, "slice_": slices.slice_,
    "append": lists.append,
    "inplace": augmented.inplace,
}


def bind(cell):
    """`__cf` for one cell: every operator with `cell` bound."""
    return SimpleNamespace(**{name: functools.partial(op, cell) for name, op in OPERATORS.items()})


__all__ = ["CellState", "OPERATORS", "bind"]
