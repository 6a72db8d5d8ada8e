"""`walk` and `Transformer`: the standard library's `ast.walk` and `ast.NodeTransformer`, with the same results,
faster; and `StatementTransformer`, which visits statements only.

A cell's conversion walks its tree many times: once per converter (each a Transformer), and each time a converter
asks which names a block reads and writes. The standard library's versions go through `ast.iter_child_nodes` and
`ast.iter_fields`, generators per node; these read each node's fields in one loop. Converters of statements skip the
expressions, most of a tree. (Positions need no walk of their own: every converter gives what it makes the student's
position as it makes it, templates.located.) Measured on the Euler and sieve cells of
benchmarks/magic_item_assignment.py: 8.3 and 11.1 ms of CPU with `ast`'s walks and a position fix after each converter,
5.0 and 7.2 ms now; the same trees (tests/test_converters.py).
"""
import ast
from collections import deque

_AST = ast.AST


def children(node, into):
    """Append `node`'s child nodes to `into`, in `ast.iter_child_nodes`' order."""
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, _AST):
            into.append(value)
        elif type(value) is list:
            into.extend(v for v in value if isinstance(v, _AST))


def walk(node):
    """Every node of the tree under `node`, breadth first, in `ast.walk`'s order (names are found in that order)."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        children(node, todo)
        yield node


class Transformer(ast.NodeTransformer):
    """`ast.NodeTransformer` with the same results, its `generic_visit` reading each node's fields in one loop. Every
    converter is one: a cell's conversion walks its tree once per converter."""

    def visit(self, node):
        visitor = getattr(self, "visit_" + node.__class__.__name__, None)
        return self.generic_visit(node) if visitor is None else visitor(node)

    def visit_Constant(self, node):  # noqa: N802 - ast's names; NodeVisitor's looks for the long-gone visit_Num
        return node

    def generic_visit(self, node):
        for name in node._fields:
            old = getattr(node, name, _MISSING)
            if type(old) is list:
                if old:
                    old[:] = self._visited_list(old)
            elif isinstance(old, _AST):
                new = self.visit(old)
                if new is None:
                    delattr(node, name)
                else:
                    setattr(node, name, new)
        return node

    def _visited_list(self, values):
        out = []
        for value in values:
            if isinstance(value, _AST):
                value = self.visit(value)
                if value is None:
                    continue
                if not isinstance(value, _AST):
                    out.extend(value)  # a visitor may return a list of statements
                    continue
            out.append(value)
        return out


_MISSING = object()


class StatementTransformer(Transformer):
    """A Transformer for a converter of statements (`while`, `for`, `if`, `a[k] = v`, `xs.append(v)`): it visits
    statements and the blocks inside them, never an expression (a cell's expressions hold no statement: lambdas
    and comprehensions are refused, and the converters' own functions are statements). Most of a tree is
    expressions, so these converters walk a fraction of it."""

    def generic_visit(self, node):
        for name in _BLOCKS:
            old = getattr(node, name, None)
            if type(old) is list and old:
                old[:] = self._visited_list(old)
        return node


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
