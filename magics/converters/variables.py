"""Reads of the cell's names go through `__cf.ld` (AutoGraph's variables converter, `ag__.ld`), because a
name may be undefined on some path of the graph (operators/variables.py raises Python's NameError there):

    y = x + 1       ->  y = __cf.ld(x, 'x', line) + 1
"""
import ast

from .templates import located, replace_as_expression
from .tree import Transformer


class Variables(Transformer):
    def __init__(self, names):
        self.names = names  # the names the cell assigns or reads from the notebook (an array there may change)

    def visit_Name(self, node):  # noqa: N802 - ast's names
        if not isinstance(node.ctx, ast.Load) or node.id not in self.names:
            return node
        return located(replace_as_expression("__cf.ld(name, label, line)", name=node.id, label=ast.Constant(node.id),
                                             line=node.lineno), node)


def convert(tree, ctx):
    return Variables(ctx.cell_names).visit(tree)
