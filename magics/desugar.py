"""Python's loop statements rewritten into the two the graph builder knows: `while` and `if`.

AutoGraph's converters, in the same order (`converters/continue_statements.py`,
`break_statements.py`, and the `for` half of `control_flow.py`):

  * `for TARGET in ITER: BODY else: ORELSE` becomes a `while` over a hidden counter:

        __iter_N = __cf.for_iter(ITER, 'TARGET', line)    # range(...), an array or a tensor
        __k_N = 0
        while __k_N < __iter_N.length:
            TARGET = __cf.for_item(__iter_N, __k_N, line) # start + k * step, or ITER[k]
            __k_N = __k_N + 1
            BODY
        else: ORELSE

    so TARGET is an ordinary name the body assigns: it holds the last item after the loop, and
    stays undefined after a loop that ran zero times (if it was undefined before), as in Python.
  * `if c: continue` in the body's own block becomes `if not c:` around the rest of the body; any
    other `continue` becomes `__cont_N = True`; the statements after it in its block (and after every
    enclosing `if` that may continue) are guarded by `if not __cont_N:`; the flag is reset at the top
    of each iteration.
  * `break` becomes `__brk_N = True` with the same guards, and the loop's test becomes
    `not __brk_N and (test)`, so the loop stops before another iteration, with every name as the
    breaking iteration left it.
  * `else:` of a loop runs when the loop was not broken: `if not __brk_N: ORELSE` after the loop
    (and plainly after it when the loop has no `break`), which is Python's rule.

The result is plain Python again (hidden names start with `__`); the graph builder (compiler.py)
then turns each `while` into a while_loop and each `if` into a cond. Each loop's hidden names are
listed on it (`_cfnb_own`): they are loop variables of that loop only; an enclosing loop or `if`
sets them up afresh each time (they are local to it, as AutoGraph's liveness would find).
"""
import ast


def _name(id_, store=False):
    return ast.Name(id_, ast.Store() if store else ast.Load())


def _assign(id_, value, node):
    return ast.copy_location(ast.Assign([_name(id_, True)], value), node)


def _cf(attr, args, line):
    return ast.Call(ast.Attribute(_name("__cf"), attr, ast.Load()), args + [ast.Constant(line)], [])


def _jumps(stmts, kinds):
    """Does a `break`/`continue` of this loop (not of a nested one) occur in `stmts`?"""
    for stmt in stmts:
        for node in _walk_same_loop(stmt):
            if isinstance(node, kinds):
                return True
    return False


def _walk_same_loop(node):
    yield node
    if isinstance(node, (ast.While, ast.For)):
        return  # its break/continue belong to it; only its else clause is ours
    for child in ast.iter_child_nodes(node):
        yield from _walk_same_loop(child)


def _early_continues(stmts):
    """`if c: continue` in the body's own block (not nested) is `if not c: <the rest>`: no flag, one
    cond less per iteration. (Nested in another `if`, the statements after that `if` would run too,
    so those take the flag.)"""
    for k, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], ast.Continue):
            rest = _early_continues(stmts[k + 1:])
            guard = ast.If(ast.UnaryOp(ast.Not(), stmt.test), rest, []) if rest else ast.Expr(stmt.test)
            return stmts[:k] + [ast.copy_location(guard, stmt)]
    return stmts


class Desugar(ast.NodeTransformer):
    def __init__(self):
        self.counter = 0

    def _new(self):
        self.counter += 1
        return self.counter

    # `for` -> `while` over a counter --------------------------------------------------------------
    def visit_For(self, node):  # noqa: N802 - ast's names
        n = self._new()
        it, k = f"__iter_{n}", f"__k_{n}"
        target = ast.unparse(node.target)
        setup = [_assign(it, _cf("for_iter", [node.iter, ast.Constant(target)], node.lineno), node),
                 _assign(k, ast.Constant(0), node)]
        item = ast.copy_location(ast.Assign([node.target], _cf("for_item", [_name(it), _name(k)], node.lineno)),
                                 node)
        step = _assign(k, ast.BinOp(_name(k), ast.Add(), ast.Constant(1)), node)
        test = ast.Compare(_name(k), [ast.Lt()], [ast.Attribute(_name(it), "length", ast.Load())])
        loop = ast.copy_location(ast.While(test, [item, step] + node.body, node.orelse), node)
        loop._cfnb_for = target  # the error messages name the loop by its variable
        loop._cfnb_own = {it, k}
        return setup + self._visit_loop(loop)

    def visit_While(self, node):  # noqa: N802
        return self._visit_loop(node)

    # break / continue -----------------------------------------------------------------------------
    def _visit_loop(self, node):
        node.body = _early_continues(node.body)
        has_break, has_continue = _jumps(node.body, ast.Break), _jumps(node.body, ast.Continue)
        before, after = [], []
        node._cfnb_own = getattr(node, "_cfnb_own", set())
        if has_break or has_continue:
            n = self._new()
            brk, cont = f"__brk_{n}", f"__cont_{n}"
            flags = ([brk] if has_break else []) + ([cont] if has_continue else [])
            node._cfnb_own |= set(flags)
            node.body = self._guard(node.body, brk, cont, flags)
            if has_continue:
                before.append(_assign(cont, ast.Constant(False), node))
                skip = 2 if hasattr(node, "_cfnb_for") else 0  # the item and counter run on every iteration
                node.body[skip:skip] = [_assign(cont, ast.Constant(False), node)]
            if has_break:
                before.append(_assign(brk, ast.Constant(False), node))
                node.test = ast.BoolOp(ast.And(), [ast.UnaryOp(ast.Not(), _name(brk)), node.test])
                if node.orelse:
                    after.append(ast.copy_location(ast.If(ast.UnaryOp(ast.Not(), _name(brk)), node.orelse, []),
                                                   node))
                    node.orelse = []
        if node.orelse:
            after, node.orelse = node.orelse, []
        # Nested loops (in the body and in what follows) get their own flags.
        node.body = self._visit_block(node.body)
        return before + [node] + self._visit_block(after)

    def _visit_block(self, stmts):
        out = []
        for stmt in stmts:
            new = self.visit(stmt)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def _guard(self, stmts, brk, cont, flags):
        out = []
        for k, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Break):
                out.append(_assign(brk, ast.Constant(True), stmt))
                return out
            if isinstance(stmt, ast.Continue):
                out.append(_assign(cont, ast.Constant(True), stmt))
                return out
            jumps = isinstance(stmt, ast.If) and _jumps([stmt], (ast.Break, ast.Continue))
            if isinstance(stmt, ast.If):
                stmt.body = self._guard(stmt.body, brk, cont, flags) or [ast.Pass()]
                stmt.orelse = self._guard(stmt.orelse, brk, cont, flags)
            out.append(stmt)
            rest = stmts[k + 1:]
            if rest and jumps:
                test = ast.UnaryOp(ast.Not(), _name(flags[0])) if len(flags) == 1 else \
                    ast.UnaryOp(ast.Not(), ast.BoolOp(ast.Or(), [_name(f) for f in flags]))
                out.append(ast.copy_location(ast.If(test, self._guard(rest, brk, cont, flags), []), rest[0]))
                return out
        return out


def desugar(tree):
    """Rewrite `tree` (a Module) in place: no `for`, `break`, `continue` or loop `else` remain."""
    tree.body = Desugar()._visit_block(tree.body)
    ast.fix_missing_locations(tree)
    return tree
