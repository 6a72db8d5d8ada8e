"""Conditions: `and`, `or`, `not`, `==`, `!=`, chained comparisons and `x if c else y`, as AutoGraph's
logical_expressions and conditional_expressions converters:

    a and b        ->  __cf.and_([a, b], line)
    not a          ->  __cf.not_(a, line)
    a == b         ->  __cf.eq(a, b, line)        (== and != on graph values are ops, not identity tests)
    a < b < c      ->  __cf.and_([a < b, b < c], line)
    x if c else y  ->  __cf.if_exp(c, lambda: x, lambda: y, line)   (a cond when c is a graph value)

(operators/logical.py decides: Python's operators on Python values, graph ops once a graph value is in.)
"""
import ast
import copy

from .templates import located, replace_as_expression
from .tree import Transformer


class Conditions(Transformer):
    def visit_BoolOp(self, node):  # noqa: N802 - ast's names
        node = self.generic_visit(node)
        func = "and_" if isinstance(node.op, ast.And) else "or_"
        return located(replace_as_expression(f"__cf.{func}(values, line)", values=ast.List(node.values, ast.Load()),
                                             line=node.lineno), node)

    def visit_UnaryOp(self, node):  # noqa: N802
        node = self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return located(replace_as_expression("__cf.not_(value, line)", value=node.operand, line=node.lineno), node)

    def visit_Compare(self, node):  # noqa: N802
        node = self.generic_visit(node)
        names = {ast.Eq: "eq", ast.NotEq: "ne"}
        if len(node.ops) == 1 and type(node.ops[0]) not in names:
            return node
        parts, left = [], node.left
        for k, (op, right) in enumerate(zip(node.ops, node.comparators)):
            right_here = copy.deepcopy(right) if k + 1 < len(node.ops) else right  # `b` of `a < b < c` is read twice
            if type(op) in names:
                parts.append(replace_as_expression(f"__cf.{names[type(op)]}(a, b, line)", a=left, b=right_here,
                                                   line=node.lineno))
            else:
                parts.append(ast.Compare(left, [op], [right_here]))
            left = right
        if len(parts) == 1:
            return located(parts[0], node)
        return located(replace_as_expression("__cf.and_(values, line)", values=ast.List(parts, ast.Load()),
                                             line=node.lineno), node)

    def visit_IfExp(self, node):  # noqa: N802
        node = self.generic_visit(node)
        return located(replace_as_expression("__cf.if_exp(test, lambda: body, lambda: orelse, line)",
                                             test=node.test, body=node.body, orelse=node.orelse, line=node.lineno),
                       node)


def convert(tree, ctx):
    return Conditions().visit(tree)
