"""A cell of ordinary Python, converted into code that builds a cfnb graph: AutoGraph's converters, one
module per construct, each a pass over the cell's AST that writes its code from a template (templates.py).

First `unsupported.check` refuses, with its line, what a graph cannot hold. Then the passes run in this order
(`CONVERTERS`), each seeing the code the earlier ones made:

  item_assignment   a[k] = v           ->  a = __cf.setitem(a, k, v, line)
  list_append       xs.append(v)       ->  xs = __cf.append(xs, v, line)
  for_loops         for x in xs: ...   ->  a `while` over a hidden counter
  break_continue    break / continue / a loop's else  ->  `if`s over hidden flags
  conditions        and, or, not, ==, !=, a < b < c, x if c else y  ->  __cf.and_(...), __cf.if_exp(...)
  fstrings          f"..{x}.."         ->  __cf.fstring([...], line)
  subscripts        a[i]               ->  __cf.getitem(a, i, line)
  calls             f(x), print(x)     ->  __cf.call(line, f, x), __cf.print_(line, x)
  assignments       x = e, x += e      ->  x = __cf.assign('x', e, line)
  variables         a read of x        ->  __cf.ld(x, 'x', line)
  lines             __cf.at(line) before every statement
  while_loops       while: ...         ->  cond and body functions, __cf.while_stmt(...)
  if_statements     if: ... else: ...  ->  two branch functions, __cf.if_stmt(...)

and last `cell_function` wraps the whole cell into `def __cfnb_cell__(__ns, __cf, __names): ...` (in
`_converted`, after `convert`).

`__cf` is the cell's runtime (operators/): each `__cf.name` is one of its operators. The converters share
what they know through the converted code and one Context (context.py).
"""
import ast
import functools
import re
import types
import warnings

from ..errors import CellError  # noqa: F401 - re-exported for the converters' callers
from . import (
    assignments,
    break_continue,
    calls,
    cell_function,
    conditions,
    for_loops,
    fstrings,
    if_statements,
    item_assignment,
    lines,
    list_append,
    subscripts,
    unsupported,
    variables,
    while_loops,
)
from .analysis import read_names, stored_names
from .context import Context

CONVERTERS = [item_assignment, list_append, for_loops, break_continue, conditions, fstrings, subscripts, calls,
              assignments, variables, lines, while_loops, if_statements]


def convert(tree, ctx, until=None):
    """Run the converters over `tree` (a Module) in order, up to and including `until` (for the tests of one
    converter's output); the context learns the cell's names as it goes."""
    unsupported.check(tree)
    ctx.read = read_names(tree)
    for converter in CONVERTERS:
        tree = converter.convert(tree, ctx)
        if converter is for_loops:  # every name the cell assigns is known once the loops are written out
            ctx.assigned = stored_names(tree.body, hidden=False)
        if converter is until:
            break
    return tree


def compile_cell(source, filename, explicit=False, notebook=()):
    """(code object defining `__cfnb_cell__`, names the cell assigns). The explicit form (a cell that defines
    `cond`, `body` and `loop_vars`) is plain Python: it is compiled as it is.

    Converting is a pure function of the source and of which names it mentions the notebook holds, so a cell run
    again is not converted again (a cache of its code, as Python's own `linecache`/import caches keep compiled
    code; no value of the notebook is in it: they are read when the cell's code runs). Only the filename differs
    between runs (IPython's `<ipython-input-N-...>` counts executions): the cached code takes the new one."""
    mentioned = frozenset(_IDENTIFIER.findall(source)).intersection(notebook)
    try:
        code, assigned, warned = _converted(source, bool(explicit), mentioned)
    except SyntaxError as e:
        if e.filename == _CACHED_AS:
            e.filename = filename
        raise
    for message, category, where, line in warned:  # Python's compile warnings (`x is 1`), on every run as before
        warnings.warn_explicit(message, category, filename if where == _CACHED_AS else where, line)
    return _with_filename(code, filename), list(assigned)


_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_CACHED_AS = "<cfnb cached cell>"


@functools.lru_cache(maxsize=128)
def _converted(source, explicit, notebook):
    """(code, names assigned, warnings issued while converting: (message, category, filename, line))."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tree = ast.parse(source, filename=_CACHED_AS)
        if explicit:
            code, assigned = compile(tree, _CACHED_AS, "exec"), stored_names(tree.body)
        else:
            ctx = Context(filename=_CACHED_AS, notebook=notebook)
            tree = convert(tree, ctx)
            code, assigned = compile(cell_function.wrap(tree.body, ctx), _CACHED_AS, "exec"), ctx.assigned
    return code, tuple(assigned), tuple((w.message, w.category, w.filename, w.lineno) for w in caught)


def _with_filename(code, filename):
    """`code` and the functions it defines, compiled under `filename` (where a traceback points)."""
    consts = tuple(_with_filename(c, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)
