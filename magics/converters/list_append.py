"""`xs.append(v)` rebinds `xs`, as AutoGraph's lists converter does, so a list grown in a loop is one of the
loop's variables:

    xs.append(v)    ->    xs = __cf.append(xs, v, line)

(operators/lists.py: a Python list outside a loop, a TensorArray inside one.)
"""
import ast

from .templates import located, replace
from .tree import StatementTransformer


def is_append(node):
    """Is `node` the statement `name.append(value)`?"""
    call = node.value if isinstance(node, ast.Expr) else None
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords)


class ListAppends(StatementTransformer):
    def visit_Expr(self, node):  # noqa: N802 - ast's names
        if not is_append(node):
            return node
        name = node.value.func.value.id
        return located(replace("target = __cf.append(target, item, line)", target=name, item=node.value.args[0],
                               line=node.lineno), node)


def convert(tree, ctx):
    return ListAppends().visit(tree)
