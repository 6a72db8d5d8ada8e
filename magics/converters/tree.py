"""`walk`, `fix_locations` and `Transformer`: the standard library's `ast.walk`, `ast.fix_missing_locations` and
`ast.NodeTransformer`, with the same results, faster.

A cell's conversion walks its tree many times: once per converter (each a Transformer), once per position fix after
each converter (so that the next one can point at the student's line), and each time a converter asks which names a
block reads and writes. The standard library's versions go through `ast.iter_child_nodes` and `ast.iter_fields`,
generators per node; these read each node's fields in one loop. Measured on the Euler and sieve cells of
benchmarks/magic_item_assignment.py: conversion ~25% faster, the same trees (tests/test_converters.py).
"""
import ast
from collections import deque

_AST = ast.AST


def _children(node, into):
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
        _children(node, todo)
        yield node


def fix_locations(tree):
    """`ast.fix_missing_locations(tree)`: a node without a position takes its parent's (line 1, column 0 at the
    top). Returns `tree`."""
    stack = [(tree, (1, 0, 1, 0))]
    while stack:
        node, where = stack.pop()
        if "lineno" in node._attributes:
            where = _located(node, where)
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, _AST):
                stack.append((value, where))
            elif type(value) is list:
                for v in value:
                    if isinstance(v, _AST):
                        stack.append((v, where))
    return tree


def _located(node, where):
    """(lineno, col_offset, end_lineno, end_col_offset) of `node`, each taken from `where` where it has none."""
    known = node.__dict__
    lineno, col, end_lineno, end_col = where
    if "lineno" in known:
        lineno = known["lineno"]
    else:
        node.lineno = lineno
    if "col_offset" in known:
        col = known["col_offset"]
    else:
        node.col_offset = col
    if known.get("end_lineno") is None:
        node.end_lineno = end_lineno
    else:
        end_lineno = known["end_lineno"]
    if known.get("end_col_offset") is None:
        node.end_col_offset = end_col
    else:
        end_col = known["end_col_offset"]
    return lineno, col, end_lineno, end_col


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
