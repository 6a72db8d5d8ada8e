"""Constructs a graph cannot hold, refused with the cell's line and what to write instead."""
import ast

from ..errors import CellError
from .tree import walk

_UNSUPPORTED = {
    ast.Return: "`return` is not supported in a %%whileloop cell: assign the result to a name instead",
    ast.Global: "`global` is not supported in a %%whileloop cell",
    ast.Nonlocal: "`nonlocal` is not supported in a %%whileloop cell",
    ast.Yield: "generators are not supported in a %%whileloop cell",
    ast.Try: "`try` is not supported in a %%whileloop cell: a graph cannot catch errors",
    ast.With: "`with` is not supported in a %%whileloop cell",
    ast.AsyncFor: "`async for` is not supported in a %%whileloop cell",
    ast.ListComp: "comprehensions are not supported in a %%whileloop cell: write a `for` loop with `list.append`",
    ast.SetComp: "comprehensions are not supported in a %%whileloop cell: write a `for` loop with `list.append`",
    ast.DictComp: "comprehensions are not supported in a %%whileloop cell: write a `for` loop with `list.append`",
    ast.GeneratorExp: "comprehensions are not supported in a %%whileloop cell: write a `for` loop with `list.append`",
    ast.Lambda: "`lambda` is not supported in a %%whileloop cell: define functions in another cell",
    ast.FunctionDef: "define functions in another cell, or use the explicit form: a cell that defines `cond`, "
                     "`body` and `loop_vars`",
    ast.AsyncFunctionDef: "define functions in another cell",
}


def check(tree):
    """Raise a CellError at the first construct the magic refuses."""
    for stmt in tree.body:
        nested = [n for s in ast.iter_child_nodes(stmt) for n in walk(s)]
        deleted = next((n for n in nested if isinstance(n, ast.Delete)), None)
        if deleted is not None:
            raise CellError(deleted.lineno, "`del` inside a loop or an `if` has no graph form: a name exists on every "
                                            "path of a graph. Delete it after the loop, at the cell's top level")
    for node in walk(tree):
        message = _UNSUPPORTED.get(type(node))
        if message:
            raise CellError(node.lineno, message)
        if isinstance(node, ast.For) and not _names_only(node.target):
            target = ast.unparse(node.target).strip("()")
            raise CellError(node.lineno, f"`for {target} in ...`: a `for` assigns names (`for x in xs:`, `for i, x in "
                                         f"enumerate(xs):`); set an item or an attribute in the body instead")


def _names_only(target):
    """A `for` target of names: `x`, `i, x`, `(i, (a, b))`."""
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, (ast.Tuple, ast.List)) and all(_names_only(e) for e in target.elts)
