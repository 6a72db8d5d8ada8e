"""The engine's layers import downward only, no module imports itself back through others, and no module or
function is too long to read (500 lines of code besides docstrings, and 80 lines).

The layers are TensorFlow's: the framework (Graph, Operation, Tensor, the registries) knows no op;
ops build graphs; gradients and passes rewrite them; the runtime runs them; the GraphDef bridge and the
drawings read them; the package root gathers the public API, and the notebook layer (`magics/`) sits
on top. A layer that needs something from above is lent it at import time through a registry
(`framework/tensor_conversion_registry.py`, `ops.register_input_context_check`,
`op_def_library.register_promotion_policy`, `ops.register_graph_def_exporter`), never by importing
upward. This test reads every `import` statement, including those inside functions, with `ast`.
"""
import ast
import functools
import pathlib

import pytest
from source_trees import parsed, statements

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Rank of each cfnb subpackage: a module may import its own package or a lower rank, never a higher one.
# Siblings of one rank (gradients and passes; graph_def and viz) do not import each other.
RANKS = {"framework": 0, "ops": 1, "gradients": 2, "passes": 2, "runtime": 3, "graph_def": 4, "viz": 4,
         "<root>": 5, "magics": 6}
# `%load_ext cfnb` is IPython calling cfnb.load_ipython_extension: the one place cfnb reaches the magics.
ALLOWED_UPWARD = {("cfnb", "magics")}
ENGINE_MUST_NOT_IMPORT = ("IPython", "ipywidgets", "ipykernel")


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(importer, is_package, node):
    """The absolute names an import statement in module `importer` refers to (modules or packages)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    if node.level:
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module
    return [f"{target}.{a.name}" for a in node.names] + [target]


def _modules():
    """{module name: path} of every module of cfnb/ and magics/."""
    return {_module_name(path): path for top in ("cfnb", "magics") for path in sorted((ROOT / top).rglob("*.py"))}


@functools.cache
def _imports():
    """{module: {imported module}} for every module of cfnb/ and magics/, imports in functions included: parsed on
    first use, not as pytest collects this file (every xdist worker collects every file)."""
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        targets = set()
        for node in statements(parsed(path)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for t in _resolve(name, path.name == "__init__.py", node):
                    # `from . import x` names module x; `from .m import f` names module m.
                    if t in modules:
                        targets.add(t)
                    elif t.split(".")[0] in ENGINE_MUST_NOT_IMPORT:
                        targets.add(t.split(".")[0])
        graph[name] = targets - {name}
    return graph


ENGINE_MODULES = sorted(m for m in _modules() if m.startswith("cfnb"))


def _layer(module):
    parts = module.split(".")
    if parts[0] == "magics":
        return "magics"
    return parts[1] if len(parts) > 1 and parts[1] in RANKS else "<root>"


def _owner(module):
    """The package whose modules may import each other freely: cfnb.ops, cfnb.runtime, ..., or magics."""
    parts = module.split(".")
    return "magics" if parts[0] == "magics" else ".".join(parts[:2]) if _layer(module) != "<root>" else "cfnb"


def test_the_walk_sees_the_whole_engine():
    graph = _imports()
    assert len([m for m in graph if m.startswith("cfnb")]) > 60 and sorted(graph) == sorted(_modules())
    assert "cfnb.ops.array_ops" in graph["cfnb.ops.while_context"]
    assert "cfnb.framework.ops" in graph["cfnb.runtime.session"]


@pytest.mark.parametrize("module", ENGINE_MODULES)
def test_imports_point_down(module):
    upward = []
    for target in sorted(_imports()[module]):
        if target in ENGINE_MUST_NOT_IMPORT:
            upward.append(f"{target} (the engine never imports the notebook stack)")
            continue
        if (module, target.split(".")[0]) in ALLOWED_UPWARD or _owner(target) == _owner(module):
            continue
        if target == "cfnb" or RANKS[_layer(target)] >= RANKS[_layer(module)]:
            upward.append(f"{target} ({_layer(target)} is not below {_layer(module)})")
    assert not upward, f"{module} imports upward or sideways: {upward}"


def _cycles(graph):
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_no_import_cycles():
    # A package's __init__ importing its own modules is how a package is built, not a cycle.
    graph = {m: {t for t in ts if not (t == _owner(m) or (m.endswith("__init__") and t.startswith(m)))}
             for m, ts in _imports().items()}
    graph = {m: {t for t in ts if not m.startswith(t + ".") and not t.startswith(m + ".")
                 and (m, t.split(".")[0]) not in ALLOWED_UPWARD} for m, ts in graph.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _docstring_lines(tree):
    """How many lines the docstrings of a module, its classes and functions take."""
    nodes = [tree] + [n for n in statements(tree)
                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return sum(n.body[0].end_lineno - n.body[0].lineno + 1 for n in nodes if ast.get_docstring(n) is not None)


def _module_lines(path):
    """A module's length without its docstrings: what a docstring says (why, and which TensorFlow function a rule
    mirrors, as tests/test_docstrings.py requires) is reading help, not more code to read."""
    return len(path.read_text().splitlines()) - _docstring_lines(parsed(path))


def test_no_module_of_the_engine_or_the_magic_is_past_500_lines():
    sizes = {str(p.relative_to(ROOT)): _module_lines(p)
             for top in ("cfnb", "magics") for p in (ROOT / top).rglob("*.py")}
    assert {p: n for p, n in sizes.items() if n > 500} == {}


def test_module_lines_leave_out_docstrings_only():
    tree = ast.parse('"""Module.\n\ntwo lines more."""\ndef f():\n    """One."""\n    return 1\n')
    assert _docstring_lines(tree) == 4


MAX_FUNCTION_LINES = 80
# Functions over the limit, each with the reason it still is. An entry whose function shrank below the limit (or
# went) fails the test too, so the list only gets shorter.
LONG_FUNCTIONS = {}


def _functions(path):
    """(dotted name, lines) of every function and method in a module, nested ones included."""
    out = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + child.name, child.end_lineno - child.lineno + 1))
                walk(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
    walk(parsed(path), "")
    return out


def test_no_function_of_the_engine_or_the_magic_is_past_80_lines():
    modules = [p for top in ("cfnb", "magics") for p in sorted((ROOT / top).rglob("*.py"))]
    long = {f"{p.relative_to(ROOT)}::{name}": n for p in modules for name, n in _functions(p) if n > MAX_FUNCTION_LINES}
    unexplained = {name: n for name, n in long.items() if name not in LONG_FUNCTIONS}
    assert not unexplained, f"functions over {MAX_FUNCTION_LINES} lines: {unexplained}"
    shrunk = sorted(set(LONG_FUNCTIONS) - set(long))
    assert not shrunk, f"no longer over {MAX_FUNCTION_LINES} lines (or gone): remove {shrunk} from LONG_FUNCTIONS"


def test_the_function_length_check_sees_nested_functions_and_methods(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("class A:\n    def f(self):\n        def g():\n            pass\n        return g\n")
    assert _functions(module) == [("A.f", 4), ("A.f.g", 2)]


def test_the_statement_walk_finds_what_ast_walk_finds():
    """source_trees.statements skips expressions: every import, function and class ast.walk finds, it finds."""
    tree = ast.parse("import a\nclass C:\n    def f(self):\n        try:\n            import b\n        except E:\n"
                     "            from c import d\n        finally:\n            def g(): pass\n"
                     "match x:\n    case 1:\n        import e\n    case _:\n        if y:\n            import f\n"
                     "        else:\n            async def h(): pass\n")
    kinds = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    found = [n for n in statements(tree) if isinstance(n, kinds)]
    assert len(found) == 9 and {id(n) for n in found} == {id(n) for n in ast.walk(tree) if isinstance(n, kinds)}
