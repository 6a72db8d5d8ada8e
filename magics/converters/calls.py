"""Calls go through `__cf`, as AutoGraph's call_trees converter routes them through `ag__.converted_call`:

    f(a, b)         ->  __cf.call(line, f, a, b)      (operators/py_builtins.py: what a builtin, a `math`
                                                       function or a numpy function means on graph values)
    f(a, b)         ->  __cf.call_stmt(line, f, a, b) (a call on a line of its own: one that changes things
                                                       outside the graph runs on every iteration,
                                                       operators/python_calls.py)
    print(a, b)     ->  __cf.print_(line, a, b)       (operators/printing.py: a print op)
"""
import ast

from .templates import located, replace_as_expression
from .tree import Transformer


def is_cf_call(node):
    """A call of the converted code's own runtime (`__cf.name(...)`): left as it is."""
    func = node.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "__cf"


class Calls(Transformer):
    def visit_Expr(self, node):  # noqa: N802 - ast's names
        statement = isinstance(node.value, ast.Call) and not is_cf_call(node.value)
        node = self.generic_visit(node)
        if statement and isinstance(node.value, ast.Call) and node.value.func.attr == "call":
            node.value.func.attr = "call_stmt"
        return node

    def visit_Call(self, node):  # noqa: N802
        node = self.generic_visit(node)
        if is_cf_call(node):
            return node
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            call = replace_as_expression("__cf.print_(line)", line=node.lineno)
        else:
            call = replace_as_expression("__cf.call(line, func)", line=node.lineno, func=node.func)
        call.args += node.args
        call.keywords = node.keywords
        return located(call, node)


def convert(tree, ctx):
    return Calls().visit(tree)
