"""The converted cell is one function, `__cfnb_cell__(__ns, __cf, __names)`: its prologue takes the notebook's
values, its body is the converted cell, and it returns the value of every name the cell assigns.

    def __cfnb_cell__(__ns, __cf, __names):
        if 'x' in __ns: x = __cf.from_namespace(__ns, 'x', True)    # assigned by the cell, held by the notebook
        n = __cf.from_namespace(__ns, 'n', False)                   # only read from the notebook
        BODY
        return __cf.values(locals(), __names)
"""
import ast

from .templates import located, replace

_TOP = ast.Pass(lineno=1, col_offset=0, end_lineno=1, end_col_offset=0)  # where the function's own lines stand


def wrap(body, ctx):
    prologue = []
    for name in ctx.assigned:
        prologue += replace("if label in __ns:\n    name = __cf.from_namespace(__ns, label, True)", name=name,
                            label=ast.Constant(name))
    for name in ctx.read:
        if name in ctx.notebook and name not in ctx.assigned:
            prologue += replace("name = __cf.from_namespace(__ns, label, False)", name=name, label=ast.Constant(name))
    function = replace("""
        def __cfnb_cell__(__ns, __cf, __names):
            prologue
            body
            return __cf.values(locals(), __names)
        """, prologue=prologue, body=body)
    return ast.Module(body=located(function, _TOP), type_ignores=[])
