"""Code templates: converters write the code they emit as Python source, not as hand-built AST nodes.

AutoGraph's `pyct/templates.py` (`templates.replace`) in small: a template is Python source whose placeholder
names are replaced by the converter's pieces, so a converter reads like the code it makes:

    replace("target = __cf.setitem(target, key, value, line)",
            target="a", key=index_node, value=value_node, line=3)

A replacement is a name (str), an expression (an AST node), a list of statements (where the placeholder
stands alone as a statement, or as a function body), a list of names (a function's parameters), or a
constant (int, bool, None, tuple of str). Names are put in the context the template gives them (a Store
target stays a target). A replacement node is used as it is (not copied): pass a copy where a template uses it
twice. The template's own nodes carry no position; `located` gives them the student's line.
"""
import ast
import functools
import pickle
import textwrap

from .tree import Transformer, children, walk


class _Replacer(Transformer):
    def __init__(self, replacements):
        self.replacements = replacements

    def _node(self, value, ctx):
        if isinstance(value, str):
            return ast.Name(value, ctx)
        if isinstance(value, ast.AST):
            return _with_context(value, ctx)
        if isinstance(value, tuple):
            return ast.Tuple([ast.Constant(v) for v in value], ast.Load())
        return ast.Constant(value)

    def visit_Name(self, node):  # noqa: N802 - ast's names
        if node.id not in self.replacements:
            return node
        return self._node(self.replacements[node.id], node.ctx)  # a piece keeps its own position

    def visit_Expr(self, node):  # noqa: N802
        if isinstance(node.value, ast.Name) and isinstance(self.replacements.get(node.value.id), list):
            return list(self.replacements[node.value.id])  # a block of statements
        return self.generic_visit(node)

    def visit_FunctionDef(self, node):  # noqa: N802
        node = self.generic_visit(node)
        node.name = self.replacements.get(node.name, node.name)
        params = []
        for arg in node.args.args:
            value = self.replacements.get(arg.arg, arg.arg)
            params += [ast.arg(p) for p in value] if isinstance(value, list) else [ast.arg(value)]
        node.args.args = params
        if not node.body:
            node.body = [ast.Pass()]
        return node


def _with_context(node, ctx):
    """`node` as a target (Store) or a value (Load): a Name, Tuple or List, recursively."""
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        node.ctx = ctx
    elif isinstance(node, (ast.Tuple, ast.List)):
        node.ctx = ctx
        for element in node.elts:
            _with_context(element, ctx)
    return node


def replace(template, **replacements):
    """The statements of `template` with its placeholders replaced (a list of AST statements)."""
    tree = pickle.loads(_parsed(template))
    body = []
    for stmt in tree.body:
        new = _Replacer(replacements).visit(stmt)
        body.extend(new if isinstance(new, list) else [new])
    return body


def replace_as_expression(template, **replacements):
    """The expression `template` with its placeholders replaced (one AST expression)."""
    (stmt,) = replace(template, **replacements)
    return stmt.value


_POSITION = ("lineno", "end_lineno", "col_offset", "end_col_offset")


@functools.lru_cache(maxsize=512)
def _parsed(template):
    """`template` parsed, without positions, and pickled: each use unpickles a fresh tree of its own, in a third of
    the time that parsing it again takes (a cell's conversion fills in some fifty templates)."""
    tree = ast.parse(textwrap.dedent(template))
    for node in walk(tree):
        for attr in _POSITION:
            if hasattr(node, attr):
                delattr(node, attr)
    return pickle.dumps(tree)


def located(nodes, where):
    """`nodes` (a node or a list) where the template's own nodes take the position of `where` (the student's
    statement they stand for), so an error in them is reported at the student's line. A piece put into a template
    already has its position, and so has everything under it (the student's parsed code, or an earlier
    converter's located output): the walk stops there."""
    position = [getattr(where, attr, None) or (1 if attr == "lineno" else 0) for attr in _POSITION]
    todo = list(nodes) if isinstance(nodes, list) else [nodes]
    while todo:
        n = todo.pop()
        if "lineno" in n._attributes:
            if "lineno" in n.__dict__:
                continue  # a piece
            for attr, value in zip(_POSITION, position):
                setattr(n, attr, value)
        children(n, todo)
    return nodes
