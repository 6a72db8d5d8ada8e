"""`__cf.at(line)` before every statement, so every op built knows its cell line (errors name it, drawings
show it): operators/lines.py gives the ops built since the last mark the statement's line."""
import ast

from .templates import located, replace


def mark(stmts):
    out = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list) and not isinstance(stmt, ast.FunctionDef):
                setattr(stmt, field, mark(getattr(stmt, field)))
        out += located(replace("__cf.at(line)", line=stmt.lineno), stmt) + [stmt]
    return out


def convert(tree, ctx):
    tree.body = mark(tree.body)
    return tree
