"""Docstrings: every function the reading guide names, and every public function and public method of a public
class in `cfnb/`, has one (issue 23). What it should say, why the function is there and which TensorFlow function
it mirrors, is for a reader to check; this test checks that there is one to read.

Functions are found with `ast`, never by importing, except to ask whether a method without a docstring of its
own inherits one (`inspect.getdoc`: an override of a documented method, such as `WhileContext.IsWhileContext`,
reads its base's). A property's setter shares the property's docstring. Private names (`_x`) are not public;
the guide's private functions are checked by name.

UNDOCUMENTED would list, per module, how many public functions may lack a docstring and why; it is empty. Its
counts are exact, so a docstring added without lowering an entry fails too.
"""
import ast
import importlib
import inspect
import pathlib

import pytest
from source_trees import parsed
from test_reading_guide import NAMES

ROOT = pathlib.Path(__file__).resolve().parent.parent
CFNB = ROOT / "cfnb"

# {module path: (how many public functions have no docstring, why)}: empty, and to be kept so.
UNDOCUMENTED = {}


def _module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_setter(node):
    return any(isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter") for d in node.decorator_list)


def _inherits_docstring(path, class_name, method):
    cls = getattr(importlib.import_module(_module_name(path)), class_name, None)
    return cls is not None and bool(inspect.getdoc(inspect.getattr_static(cls, method, None)))


def _public_functions(path):
    """[(name, has docstring)] of the module's public functions and public methods of its public classes."""
    tree = parsed(path)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield node.name, ast.get_docstring(node) is not None
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for m in node.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and not m.name.startswith("_") \
                        and not _is_setter(m):
                    documented = ast.get_docstring(m) is not None or _inherits_docstring(path, node.name, m.name)
                    yield f"{node.name}.{m.name}", documented


def _undocumented():
    found = {}
    for path in sorted(CFNB.rglob("*.py")):
        missing = [name for name, documented in _public_functions(path) if not documented]
        if missing:
            found[path.relative_to(ROOT).as_posix()] = missing
    return found


def _definition(path, dotted):
    node = parsed(ROOT / path)
    for part in dotted.split("."):
        node = next(n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    and n.name == part)
    return node


@pytest.mark.parametrize(("path", "name"), NAMES, ids=[f"{p}:{n}" for p, n in NAMES])
def test_every_function_the_reading_guide_names_has_a_docstring(path, name):
    assert ast.get_docstring(_definition(path, name)), f"{path}::{name} is in the reading guide but has no docstring"


def test_public_functions_of_cfnb_have_docstrings():
    found = _undocumented()
    problems = [f"{path}: {len(names)} public functions without a docstring, UNDOCUMENTED says "
                f"{UNDOCUMENTED.get(path, (0,))[0]}: {', '.join(names)}"
                for path, names in found.items() if len(names) != UNDOCUMENTED.get(path, (0,))[0]]
    problems += [f"{path}: UNDOCUMENTED lists {n}, but every public function has a docstring: remove the entry"
                 for path, (n, _) in UNDOCUMENTED.items() if path not in found]
    assert not problems, "\n".join(problems)


def test_every_allowance_has_a_reason():
    assert all(count > 0 and reason.strip() for count, reason in UNDOCUMENTED.values())


def test_the_counter_sees_missing_inherited_and_present_docstrings():
    documented = dict(_public_functions(CFNB / "ops" / "while_context.py"))
    assert documented["WhileContext.AddOp"] is True
    assert documented["WhileContext.IsWhileContext"] is True  # inherits ControlFlowContext's
    assert not _is_setter(ast.parse("@property\ndef f(self): pass").body[0])
    assert _is_setter(ast.parse("@f.setter\ndef f(self, v): pass").body[0])
