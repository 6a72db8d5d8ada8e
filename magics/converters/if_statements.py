"""`if test: a else: b` becomes two branch functions over the names either branch assigns, and a call of
`__cf.if_stmt` (AutoGraph's control_flow converter, `ag__.if_stmt`):

    def __then_N(x):
        A
        return (x,)
    def __else_N(x):
        B
        return (x,)
    (x,) = __cf.if_stmt(test, __then_N, __else_N, __cf.values(locals(), ('x',)), ('x',), line)

operators/conditionals.py builds a cond when `test` is a graph value, and calls one branch when it is Python's.
"""
import ast

from .analysis import LoadCounts, handed_on
from .templates import located, replace
from .tree import StatementTransformer
from .while_loops import _names_tuple


class IfStatements(StatementTransformer):
    def __init__(self, ctx, counts):
        self.ctx = ctx
        self.counts = counts

    def visit_If(self, node):  # noqa: N802 - ast's names
        names = sorted(handed_on(node.body + node.orelse, node, self.counts))
        node = self.generic_visit(node)
        n = self.ctx.new_number()
        template = """
            def then(names):
                body
                return values
            def orelse(names):
                orelse_body
                return values
            """ + ("targets = " if names else "") + \
            "__cf.if_stmt(test, then, orelse, __cf.values(locals(), labels), labels, line)"
        return located(replace(template, then=f"__then_{n}", orelse=f"__else_{n}", names=names, body=node.body,
                               orelse_body=node.orelse or [ast.Pass()], values=_names_tuple(names),
                               targets=_names_tuple(names), test=node.test, labels=tuple(names), line=node.lineno),
                       node)


def convert(tree, ctx):
    return IfStatements(ctx, LoadCounts(tree)).visit(tree)
