"""`for` becomes a `while` over a hidden counter (the `for` half of AutoGraph's control_flow converter):

    for TARGET in ITER:                      __iter_N = __cf.for_iter(ITER, 'TARGET', line)
        BODY                          ->     __k_N = 0
    else:                                    while __k_N < __iter_N.length:
        ORELSE                                   TARGET = __cf.for_item(__iter_N, __k_N, line)
                                                 __k_N = __k_N + 1
                                                 BODY
                                             else:
                                                 ORELSE

so TARGET is an ordinary name the body assigns: it holds the last item after the loop, and a loop that runs
zero times leaves it as it was (operators/iteration.py: what `for_iter` walks and `for_item` reads).
The context remembers which `while` walks which `__iter_N` (while_loops.py passes it on: a Python list's loop
is unrolled, and the target names the loop in messages, "the loop at line 2 (for i)").
"""
import ast

from .templates import located, replace
from .tree import StatementTransformer


class ForLoops(StatementTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_For(self, node):  # noqa: N802 - ast's names
        """A `for` as a `while` over an index (AutoGraph's `for_stmt` over a tensor or a list): `for_iter` checks the
        iterable once, `for_item` reads item `counter`; the `else` runs when the loop ends without a `break`."""
        node = self.generic_visit(node)  # nested loops first
        n = self.ctx.new_number()
        label = ast.unparse(node.target)
        stmts = located(replace(
            """
            iterable = __cf.for_iter(items, label, line)
            counter = 0
            while counter < iterable.length:
                target = __cf.for_item(iterable, counter, line)
                counter = counter + 1
                body
            else:
                orelse
            """, iterable=f"__iter_{n}", counter=f"__k_{n}", items=node.iter, label=ast.Constant(label),
            line=node.lineno, target=node.target, body=node.body, orelse=node.orelse or [ast.Pass()]), node)
        loop = stmts[-1]
        if not node.orelse:
            loop.orelse = []
        self.ctx.iterations[loop] = f"__iter_{n}"
        return stmts


def convert(tree, ctx):
    return ForLoops(ctx).visit(tree)
