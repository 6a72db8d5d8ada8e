"""Which names a block reads and writes: the static analysis the converters share.

A small version of AutoGraph's `pyct/static_analysis` (`activity.py`, `liveness.py`): the names a block
assigns (its *modified* set), the names it reads before it surely assigns them (*live in*, conservatively:
a loop body may not run, an `if` surely writes only what both branches write), and the names read anywhere
in a tree.
"""
import ast

from .tree import walk


def is_hidden(name):
    """A name the converters made (`__k_1`, `__brk_2`, `__cf`), never one of the student's."""
    return name.startswith("__")


def stored_names(nodes, hidden=True):
    """The names assigned (or deleted) in `nodes`, in order of first appearance."""
    names = []
    for node in nodes:
        for n in walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and n.id not in names \
                    and (hidden or not is_hidden(n.id)):
                names.append(n.id)
    return names


def loads(node):
    """The names `node` reads."""
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def read_names(tree):
    return sorted(loads(tree))


def exposed(stmts):
    """(names read before they are surely written in `stmts`, names surely written): live-in, conservatively."""
    live, written = set(), set()
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            e1, w1 = exposed(stmt.body)
            e2, w2 = exposed(stmt.orelse)
            live |= (loads(stmt.test) | e1 | e2) - written
            written |= w1 & w2
        elif isinstance(stmt, ast.While):
            e, _ = exposed(stmt.body)
            live |= (loads(stmt.test) | e) - written
        else:
            reads = loads(stmt)
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                reads |= {stmt.target.id}
            live |= reads - written
            written |= set(stored_names([stmt]))
    return live, written


class LoadCounts:
    """How often each name is read in a tree, to tell a hidden name that lives on after a loop or an `if`
    (read outside it: a `break` flag the loop's `else` reads) from one local to it (a nested loop's counter)."""

    def __init__(self, tree):
        self.total = _counts(tree)

    def read_outside(self, node, name):
        return self.total.get(name, 0) > _counts(node).get(name, 0)


def _counts(tree):
    counts = {}
    for n in walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def handed_on(stmts, node, counts, live_in=()):
    """The names a loop body or an if's branches assign that must leave it (AutoGraph's `_get_block_vars`):
    every name of the student's (a later cell may read any of them), and a hidden name only where it is live
    into the block (`live_in`, a loop's counter) or read outside the statement `node`."""
    return [n for n in stored_names(stmts)
            if not is_hidden(n) or n in live_in or counts.read_outside(node, n)]
