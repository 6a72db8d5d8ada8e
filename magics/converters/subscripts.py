"""Reading an item: `a[i]` -> `__cf.getitem(a, i, line)` (AutoGraph's slices converter, `get_item`), so a
Python list or a notebook array can be indexed by a loop value (operators/slices.py)."""
import ast

from .item_assignment import index_expr
from .templates import located, replace_as_expression
from .tree import Transformer


class Subscripts(Transformer):
    def visit_Subscript(self, node):  # noqa: N802 - ast's names
        node = self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        return located(replace_as_expression("__cf.getitem(value, index, line)", value=node.value,
                                             index=index_expr(node.slice), line=node.lineno), node)


def convert(tree, ctx):
    return Subscripts().visit(tree)
