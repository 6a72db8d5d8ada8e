"""`while test: body` becomes two functions over the *loop variables* and a call of `__cf.while_stmt`, as
AutoGraph's control_flow converter emits `ag__.while_stmt`:

    def __cond_N(i, s):
        return i < n
    def __body_N(i, s):
        BODY
        return (i, s)
    (i, s) = __cf.while_stmt(__cond_N, __body_N, __cf.values(locals(), ('i', 's')), ('i', 's'), iteration,
                             written_first, line)

The loop variables are the names the body assigns (every name of the student's counts as live after the
loop, since a later cell may read it; a hidden name only where it is live: analysis.handed_on). Those the
body surely writes before it reads them (`written_first`: a `for` target, a temporary) need no value before
the loop. `iteration` is what a `for` walks (`__iter_N`, None for a `while`). A number the loop only reads is
made a constant before it, at the cell's top level (a loop invariant: a constant Enter), by `__cf.invariant`.
operators/loops.py builds the while_loop.
"""
import ast

from ..errors import CellError
from .analysis import LoadCounts, exposed, handed_on, is_hidden, loads
from .templates import located, replace
from .tree import StatementTransformer


class WhileLoops(StatementTransformer):
    def __init__(self, ctx, counts):
        self.ctx = ctx
        self.counts = counts
        self.nesting = 0  # > 0 inside a loop body or a branch (their names are a nested function's)

    def visit_If(self, node):  # noqa: N802 - ast's names
        return self._nested(node)

    def _nested(self, node):
        self.nesting += 1
        try:
            return self.generic_visit(node)
        finally:
            self.nesting -= 1

    def visit_While(self, node):  # noqa: N802
        """A `while` as a call of `while_stmt` (AutoGraph's control_flow converter): its test and body become
        functions of the loop variables (the names the body hands on), the names only read become loop invariants,
        and a condition that reads nothing the body changes is refused, naming its line."""
        live, surely_written = exposed(node.body)
        live_in = loads(node.test) | live
        names = sorted(handed_on(node.body, node, self.counts, live_in))
        written_first = tuple(n for n in names if n not in live_in and n in surely_written)
        invariants = [] if self.nesting else sorted(
            n for n in loads(node.test) | {m for s in node.body for m in loads(s)}
            if n in self.ctx.cell_names and n not in names and not is_hidden(n))
        node = self._nested(node)
        if not loads(node.test) & set(names):
            raise CellError(node.lineno, "the loop's condition reads nothing the body changes, so once true it would "
                                         "never become false: update a name the condition reads in the body, or "
                                         "`break` out of it")
        n = self.ctx.new_number()
        captures = [stmt for name in invariants for stmt in replace(
            "try:\n    name = __cf.invariant(name, label)\nexcept NameError:\n    pass", name=name,
            label=ast.Constant(name))]
        return located(captures + replace(
            """
            def cond(names):
                return test
            def body(names):
                statements
                return values
            targets = __cf.while_stmt(cond, body, __cf.values(locals(), labels), labels, iteration, written_first, line)
            """, cond=f"__cond_{n}", body=f"__body_{n}", names=names, test=node.test, statements=node.body,
            values=_names_tuple(names), targets=_names_tuple(names), labels=tuple(names),
            iteration=self.ctx.iterations.get(node, ast.Constant(None)), written_first=written_first,
            line=node.lineno), node)


def _names_tuple(names):
    return ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load())


def convert(tree, ctx):
    return WhileLoops(ctx, LoadCounts(tree)).visit(tree)
