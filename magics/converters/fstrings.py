"""An f-string is formatted when the graph runs: `f"x = {x}"` -> `__cf.fstring(['x = ', (x, -1, '')], line)`,
each `{...}` as (value, conversion, format spec) (operators/printing.py: printed by a print op)."""
import ast

from .templates import located, replace_as_expression
from .tree import Transformer


class FStrings(Transformer):
    def visit_JoinedStr(self, node):  # noqa: N802 - ast's names
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                spec = ast.unparse(value.format_spec)[2:-1] if value.format_spec is not None else ""
                parts.append(ast.Tuple([self.visit(value.value), ast.Constant(value.conversion),
                                        ast.Constant(spec)], ast.Load()))
            else:
                parts.append(value)
        return located(replace_as_expression("__cf.fstring(parts, line)", parts=ast.List(parts, ast.Load()),
                                             line=node.lineno), node)


def convert(tree, ctx):
    return FStrings().visit(tree)
