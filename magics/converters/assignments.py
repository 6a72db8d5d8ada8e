"""Assignments tell `__cf` what each name gets (operators/variables.py: `assign` keeps a Python value Python
until a graph needs it, and records the tensor `--grad` differentiates):

    x = expr        ->  x = __cf.assign('x', expr, line)
    x += expr       ->  x = __cf.assign('x', __cf.inplace(x, '+', expr, line), line)

(operators/augmented.py: an array or a list changes in place, as Python's `+=` changes it; a number is rebound.)
"""
import ast

from .analysis import stored_names
from .templates import located, replace
from .tree import Transformer


class Assignments(Transformer):
    def visit_Assign(self, node):  # noqa: N802 - ast's names
        node = self.generic_visit(node)
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        label = names[0] if len(names) == 1 else ",".join(stored_names(node.targets))
        node.value = located(replace("__cf.assign(label, value, line)", label=ast.Constant(label), value=node.value,
                                     line=node.lineno)[0].value, node)
        return node

    def visit_AugAssign(self, node):  # noqa: N802
        node = self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        name = node.target.id
        return located(replace("target = __cf.assign(label, __cf.inplace(target, symbol, value, line), line)",
                               target=name, label=ast.Constant(name), symbol=ast.Constant(_SYMBOLS[type(node.op)]),
                               value=node.value, line=node.lineno), node)


_SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
            ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}


def convert(tree, ctx):
    return Assignments().visit(tree)
