"""`break`, `continue` and a loop's `else`, rewritten into `if`s over hidden flags (AutoGraph's
`converters/break_statements.py` and `continue_statements.py`):

  * `if c: continue` in the body's own block becomes `if not c:` around the rest of the body; any other
    `continue` becomes `__cont_N = True`, and the statements after it in its block (and after every
    enclosing `if` that may continue) are guarded by `if not __cont_N:`; the flag is reset at the top of
    each iteration;
  * `break` becomes `__brk_N = True` with the same guards, and the loop's test becomes
    `not __brk_N and (test)`, so the loop stops before another iteration, every name as the breaking
    iteration left it;
  * a loop's `else:` runs when the loop was not broken: `if not __brk_N: ORELSE` after the loop (plainly
    after it when the loop has no `break`), which is Python's rule.
"""
import ast

from .templates import located, replace, replace_as_expression
from .tree import StatementTransformer


def _jumps(stmts, kinds):
    """Does a `break`/`continue` of this loop (not of a nested one) occur in `stmts`?"""
    return any(isinstance(node, kinds) for stmt in stmts for node in _walk_same_loop(stmt))


def _walk_same_loop(node):
    yield node
    if isinstance(node, (ast.While, ast.For)):
        return  # its break/continue belong to it; only its else clause is ours
    for child in ast.iter_child_nodes(node):
        yield from _walk_same_loop(child)


def _early_continues(stmts):
    """`if c: continue` in the body's own block is `if not c: <the rest>`: no flag, one cond less per
    iteration. (Nested in another `if`, the statements after that `if` would run too: those take the flag.)"""
    for k, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], ast.Continue):
            rest = _early_continues(stmts[k + 1:])
            guard = replace("if not test:\n    rest", test=stmt.test, rest=rest)[0] if rest else ast.Expr(stmt.test)
            return stmts[:k] + [located(guard, stmt)]
    return stmts


def _flag(name, value, where):
    return located(replace("flag = value", flag=name, value=value)[0], where)


class BreakContinue(StatementTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_While(self, node):  # noqa: N802 - ast's names
        """Remove `break` and `continue` from a loop (AutoGraph's `break_statements` and `continue_statements`
        converters): a flag per loop, the statements after a jump guarded by it, the loop's test `not brk and
        test`, and its `else` run only when no `break` happened."""
        node.body = _early_continues(node.body)
        has_break, has_continue = _jumps(node.body, ast.Break), _jumps(node.body, ast.Continue)
        before, after = [], []
        if has_break or has_continue:
            n = self.ctx.new_number()
            brk, cont = f"__brk_{n}", f"__cont_{n}"
            flags = ([brk] if has_break else []) + ([cont] if has_continue else [])
            node.body = self._guard(node.body, brk, cont, flags)
            if has_continue:
                before.append(_flag(cont, False, node))
                skip = 2 if node in self.ctx.iterations else 0  # a `for`'s item and counter run on every iteration
                node.body[skip:skip] = [_flag(cont, False, node)]
            if has_break:
                before.append(_flag(brk, False, node))
                node.test = located(replace_as_expression("not flag and test", flag=brk, test=node.test), node)
                if node.orelse:
                    after.append(located(replace("if not flag:\n    orelse", flag=brk, orelse=node.orelse)[0], node))
                    node.orelse = []
        if node.orelse:
            after, node.orelse = node.orelse, []
        node = self.generic_visit(node)  # nested loops get their own flags
        return before + [node] + _flatten(self.visit(s) for s in after)

    def _guard(self, stmts, brk, cont, flags):
        out = []
        for k, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Break):
                return out + [_flag(brk, True, stmt)]
            if isinstance(stmt, ast.Continue):
                return out + [_flag(cont, True, stmt)]
            jumps = isinstance(stmt, ast.If) and _jumps([stmt], (ast.Break, ast.Continue))
            if isinstance(stmt, ast.If):
                stmt.body = self._guard(stmt.body, brk, cont, flags) or [ast.Pass()]
                stmt.orelse = self._guard(stmt.orelse, brk, cont, flags)
            out.append(stmt)
            rest = stmts[k + 1:]
            if rest and jumps:
                test = f"not {flags[0]}" if len(flags) == 1 else f"not ({' or '.join(flags)})"
                guard = replace(f"if {test}:\n    rest", rest=self._guard(rest, brk, cont, flags))[0]
                return out + [located(guard, rest[0])]
        return out


def convert(tree, ctx):
    tree.body = _flatten(BreakContinue(ctx).visit(s) for s in tree.body)
    return tree


def _flatten(results):
    out = []
    for r in results:
        out.extend(r if isinstance(r, list) else [r])
    return out
