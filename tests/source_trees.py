"""The engine's and the magic's source files parsed once per test process, for the tests that read the code's shape
(test_layering.py, test_docstrings.py, test_reading_guide.py): each used to parse every module again, test by test
(about a second of CPU per walk over the whole code). The trees are shared: read them, never change them."""
import ast
import functools
import pathlib


def parsed(path):
    """The module at `path` (a pathlib.Path or str) as an `ast.Module`."""
    return _parsed(str(pathlib.Path(path).resolve()))


@functools.cache
def _parsed(path):
    return ast.parse(pathlib.Path(path).read_text(encoding="utf-8"), filename=path)


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def statements(tree):
    """Every statement of `tree`, nested ones included (in function and class bodies, branches, handlers), without
    walking into expressions as `ast.walk` does: imports, functions and classes are statements, and expressions are
    most of a tree (`ast.walk` over the whole code took most of this file's tests' time)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.stmt):
            yield node
        for name in _BLOCKS:
            todo.extend(reversed(getattr(node, name, None) or ()))
