"""Turn a cell of ordinary Python into a cfnb graph, the way TensorFlow's AutoGraph does.

First desugar.py rewrites `for`, `break`, `continue` and loop `else` into `while` and `if`. Then the
cell becomes one function. Inside it:
  * `name = expr` becomes `name = __cf.assign('name', expr, line)`: numbers and numpy arrays turn
    into constants, so every `while`/`if` in the cell tests a tensor and becomes graph control flow;
  * every call `f(...)` becomes `__cf.call(line, f, ...)` (calls.py decides what a builtin, a
    `math` function or a numpy function means on tensors), `print(...)` becomes `__cf.print_`
    (a print op), `xs.append(v)` becomes `xs = __cf.append(xs, v, line)` and `a[i]` becomes
    `__cf.getitem(a, i, line)` (a Python list indexed by a tensor);
  * `while test: body` becomes a cond function and a body function over the *loop variables* (the
    names the body assigns: every name the cell assigns may be read by a later cell, so all count
    as live after the loop), passed to `__cf.while_stmt`, which calls `cfnb.while_loop`;
  * `if test: a else: b` becomes two branch functions over the names either branch assigns,
    passed to `__cf.if_stmt`, which calls `cfnb.cond` (or plain Python when `test` is a bool);
  * each statement starts with `__cf.at(line)`, so every op built knows its cell line (errors).
Unlike AutoGraph, a name first assigned inside a loop body (an inner loop's counter) is allowed:
its dtype and shape are found by tracing the body once, it enters the loop as zeros, and a boolean
loop variable records whether it was ever assigned, so a loop that runs zero times leaves the name
undefined, as Python would.
"""
import ast

from .desugar import desugar
from .errors import CellError
from .items import index_expr, rewrite_item_assignments


def _stored_names(nodes, hidden=True):
    """Names assigned in `nodes`, in order; `xs.append(v)` assigns `xs` (it becomes `xs = ...`)."""
    names = []
    for node in nodes:
        for n in ast.walk(node):
            name = None
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                name = n.id
            elif _is_append(n):
                name = n.value.func.value.id
            if name is not None and name not in names and (hidden or not name.startswith("__")):
                names.append(name)
    return names


def _is_append(node):
    call = node.value if isinstance(node, ast.Expr) else None
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords)


def _block_names(stmts, loop):
    """The names a loop body or an if's branches assign and must hand on: the hidden counters and
    flags of loops nested in it are local to it (desugar.py)."""
    nested = set()
    for stmt in stmts:
        for n in ast.walk(stmt):
            if isinstance(n, ast.While):
                nested |= getattr(n, "_cfnb_own", set())
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id.startswith("__iter_")
                                                 for t in n.targets):
                nested |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    own = getattr(loop, "_cfnb_own", set()) if loop is not None else set()
    return [n for n in _stored_names(stmts) if n not in nested or n in own]


def _loads(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _exposed(stmts):
    """(names read before they are surely written in `stmts`, names surely written): AutoGraph's
    live-in, conservatively (a loop body may not run; an `if` writes what both branches write)."""
    exposed, written = set(), set()
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            e1, w1 = _exposed(stmt.body)
            e2, w2 = _exposed(stmt.orelse)
            exposed |= (_loads(stmt.test) | e1 | e2) - written
            written |= w1 & w2
        elif isinstance(stmt, ast.While):
            e, _ = _exposed(stmt.body)
            exposed |= (_loads(stmt.test) | e) - written
        else:
            reads = _loads(stmt)
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) or _is_append(stmt):
                reads |= set(_stored_names([stmt]))
            exposed |= reads - written
            written |= set(_stored_names([stmt]))
    return exposed, written


def _read_names(tree):
    return sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)})


_UNSUPPORTED = {
    ast.Return: "`return` is not supported in a %%whileloop cell: assign the result to a name instead",
    ast.Global: "`global` is not supported in a %%whileloop cell",
    ast.Nonlocal: "`nonlocal` is not supported in a %%whileloop cell",
    ast.Yield: "generators are not supported in a %%whileloop cell",
    ast.Try: "`try` is not supported in a %%whileloop cell: a graph cannot catch errors",
    ast.With: "`with` is not supported in a %%whileloop cell",
}


def check_supported(tree, explicit):
    for stmt in tree.body:
        nested = [n for s in ast.iter_child_nodes(stmt) for n in ast.walk(s)]
        deleted = next((n for n in nested if isinstance(n, ast.Delete)), None)
        if deleted is not None:
            raise CellError(deleted.lineno, "`del` inside a loop or an `if` has no graph form: a name exists on every "
                                            "path of a graph. Delete it after the loop, at the cell's top level")
    for node in ast.walk(tree):
        message = _UNSUPPORTED.get(type(node))
        if message:
            raise CellError(node.lineno, message)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not explicit:
            raise CellError(node.lineno, "define functions in another cell, or use the explicit form: a cell that "
                                         "defines `cond`, `body` and `loop_vars`")
        if isinstance(node, ast.For) and not isinstance(node.target, ast.Name):
            target = ast.unparse(node.target).strip("()")
            raise CellError(node.lineno, f"`for {target} in ...`: loop over one name and unpack in the body (`for "
                                         f"row in pairs:` then `a, b = row[0], row[1]`; for enumerate(xs): `for i in "
                                         f"range(len(xs)):` then `x = xs[i]`)")
        if isinstance(node, ast.AsyncFor):
            raise CellError(node.lineno, "`async for` is not supported in a %%whileloop cell")
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            raise CellError(node.lineno, "comprehensions are not supported in a %%whileloop cell: write a `for` loop "
                                         "with `list.append`")
        if isinstance(node, ast.Lambda):
            raise CellError(node.lineno, "`lambda` is not supported in a %%whileloop cell: define functions in "
                                         "another cell")


class _Transformer(ast.NodeTransformer):
    def __init__(self, local_names=(), cell_names=()):
        self.counter = 0
        self.local_names = set(local_names)  # the cell function's own names (assigned, or read from the notebook)
        self.cell_names = {n for n in cell_names if not n.startswith("__")}  # the names the cell assigns
        self.nesting = 0  # > 0 inside a loop body or branch (they become nested functions)

    def _new(self, prefix):
        self.counter += 1
        return f"__{prefix}_{self.counter}"

    def _call(self, func, args, line):
        return ast.Call(func=ast.Attribute(value=ast.Name("__cf", ast.Load()), attr=func, ctx=ast.Load()),
                        args=args + [ast.Constant(line)], keywords=[])

    def _state(self, names):
        return ast.Call(func=ast.Attribute(value=ast.Name("__cf", ast.Load()), attr="state", ctx=ast.Load()),
                        args=[ast.Call(ast.Name("locals", ast.Load()), [], []),
                              ast.Tuple([ast.Constant(n) for n in names], ast.Load())], keywords=[])

    @staticmethod
    def _targets(names):
        return ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())

    @staticmethod
    def _returns(names):
        return ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load()))

    def _function(self, name, params, body):
        args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], kwonlyargs=[], kw_defaults=[],
                             defaults=[])
        return ast.FunctionDef(name=name, args=args, body=body or [ast.Pass()], decorator_list=[], returns=None)

    def _nested_visit(self, node):
        self.nesting += 1
        try:
            return self.generic_visit(node)
        finally:
            self.nesting -= 1

    # --- names --------------------------------------------------------------------------------
    def visit_Name(self, node):  # noqa: N802 - ast's names
        """A read of a name the cell assigns: `__cf.ld(x, 'x', line)` (it may be undefined on some path)."""
        if isinstance(node.ctx, ast.Load) and node.id in self.cell_names:
            return ast.copy_location(self._call("ld", [node, ast.Constant(node.id)], node.lineno), node)
        return node

    # --- calls and subscripts -------------------------------------------------------------------
    def visit_Call(self, node):  # noqa: N802 - ast's names
        node = self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "__cf":
            return node  # our own runtime
        if isinstance(func, ast.Name) and func.id == "print":
            return ast.copy_location(ast.Call(self._attr("print_"), [ast.Constant(node.lineno)] + node.args,
                                              node.keywords), node)
        return ast.copy_location(ast.Call(self._attr("call"), [ast.Constant(node.lineno), func] + node.args,
                                          node.keywords), node)

    def visit_Subscript(self, node):  # noqa: N802
        node = self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        return ast.copy_location(self._call("getitem", [node.value, index_expr(node.slice)], node.lineno), node)

    def visit_JoinedStr(self, node):  # noqa: N802
        """An f-string: its parts are formatted when the graph runs (`__cf.fstring`)."""
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                spec = ast.unparse(value.format_spec)[2:-1] if value.format_spec is not None else ""
                parts.append(ast.Tuple([self.visit(value.value), ast.Constant(value.conversion),
                                        ast.Constant(spec)], ast.Load()))
            else:
                parts.append(value)
        return ast.copy_location(self._call("fstring", [ast.List(parts, ast.Load())], node.lineno), node)

    def _attr(self, name):
        return ast.Attribute(value=ast.Name("__cf", ast.Load()), attr=name, ctx=ast.Load())

    # --- statements ---------------------------------------------------------------------------
    def visit_Expr(self, node):  # noqa: N802
        """`xs.append(v)` rebinds `xs`, so a list grown in a loop is one of its loop variables."""
        call = node.value
        if _is_append(node):
            name = call.func.value.id
            value = self.visit(call.args[0])
            return ast.copy_location(ast.Assign([ast.Name(name, ast.Store())],
                                                self._call("append", [ast.Name(name, ast.Load()), value],
                                                           node.lineno)), node)
        return self.generic_visit(node)

    def visit_Assign(self, node):  # noqa: N802
        node = self.generic_visit(node)
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        label = names[0] if len(names) == 1 else ",".join(_stored_names(node.targets))
        node.value = self._call("assign", [ast.Constant(label), node.value], node.lineno)
        return node

    def visit_AugAssign(self, node):  # noqa: N802
        node = self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        value = ast.BinOp(self.visit_Name(ast.copy_location(ast.Name(node.target.id, ast.Load()), node)), node.op,
                          node.value)
        return ast.copy_location(ast.Assign([ast.Name(node.target.id, ast.Store())],
                                            self._call("assign", [ast.Constant(node.target.id), value],
                                                       node.lineno)), node)

    def visit_For(self, node):  # noqa: N802
        node = self.generic_visit(node)
        node.iter = self._call("for_iter", [node.iter], node.lineno)
        return node

    def visit_While(self, node):  # noqa: N802
        label = getattr(node, "_cfnb_for", None)
        names = sorted(_block_names(node.body, node))
        exposed, surely_written = _exposed(node.body)
        live_in = _loads(node.test) | exposed
        # Numbers the loop only reads become constants outside it (a loop invariant: a constant Enter).
        # (At the cell's top level only: inside a body, rebinding a name would make it local there.)
        invariants = sorted(n for n in (_loads(node.test) | {m for s in node.body for m in _loads(s)})
                            if n in self.local_names and n not in names and not n.startswith("__")) \
            if not self.nesting else []
        # Only a name the body surely writes before reading it may enter undefined: one written on some
        # paths only (in an `if`, or in an inner loop that may not run) carries its value across iterations.
        written_first = tuple(n for n in names if n not in live_in and n in surely_written)
        node = self._nested_visit(node)
        read = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if not read & set(names):
            raise CellError(node.lineno, "the loop's condition reads nothing the body changes, so once true it would "
                                         "never become false: update a name the condition reads in the body, or "
                                         "`break` out of it")
        cond, body = self._new("cond"), self._new("body")
        cond_fn = self._function(cond, names, [ast.Return(node.test)])
        body_fn = self._function(body, names, node.body + [self._returns(names)])
        call = self._call("while_stmt", [ast.Name(cond, ast.Load()), ast.Name(body, ast.Load()), self._state(names),
                                         ast.Tuple([ast.Constant(n) for n in names], ast.Load()),
                                         ast.Constant(label), ast.Constant(written_first)], node.lineno)
        assign = ast.Assign([self._targets(names)], call)
        captures = [ast.parse(f"try:\n    {n} = __cf.invariant({n})\nexcept NameError:\n    pass").body[0]
                    for n in invariants]
        return [ast.copy_location(n, node) for n in captures + [cond_fn, body_fn, assign]]

    def visit_If(self, node):  # noqa: N802
        names = sorted(_block_names(node.body + node.orelse, None))
        node = self._nested_visit(node)
        then, orelse = self._new("then"), self._new("else")
        then_fn = self._function(then, names, node.body + [self._returns(names)])
        else_fn = self._function(orelse, names, (node.orelse or []) + [self._returns(names)])
        call = self._call("if_stmt", [node.test, ast.Name(then, ast.Load()), ast.Name(orelse, ast.Load()),
                                      self._state(names)], node.lineno)
        if not names:
            return [ast.copy_location(n, node) for n in (then_fn, else_fn, ast.Expr(call))]
        assign = ast.Assign([self._targets(names)], call)
        return [ast.copy_location(n, node) for n in (then_fn, else_fn, assign)]

    def visit_IfExp(self, node):  # noqa: N802
        node = self.generic_visit(node)
        lam = lambda body: ast.Lambda(ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],  # noqa
                                                    defaults=[]), body)
        return ast.copy_location(self._call("if_exp", [node.test, lam(node.body), lam(node.orelse)],
                                            node.lineno), node)

    def visit_BoolOp(self, node):  # noqa: N802
        node = self.generic_visit(node)
        func = "and_" if isinstance(node.op, ast.And) else "or_"
        return ast.copy_location(self._call(func, [ast.List(node.values, ast.Load())], node.lineno), node)

    def visit_Compare(self, node):  # noqa: N802
        """`a == b` and `a != b` are identity tests on graph tensors: make them ops. A chain
        `a < b < c` becomes `a < b and b < c`."""
        node = self.generic_visit(node)
        names = {ast.Eq: "eq", ast.NotEq: "ne"}
        if len(node.ops) == 1 and type(node.ops[0]) not in names:
            return node
        parts, left = [], node.left
        for op, right in zip(node.ops, node.comparators):
            if type(op) in names:
                parts.append(self._call(names[type(op)], [left, right], node.lineno))
            else:
                parts.append(ast.Compare(left, [op], [right]))
            left = right
        if len(parts) == 1:
            return ast.copy_location(parts[0], node)
        return ast.copy_location(self._call("and_", [ast.List(parts, ast.Load())], node.lineno), node)

    def visit_UnaryOp(self, node):  # noqa: N802
        node = self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(self._call("not_", [node.operand], node.lineno), node)
        return node


def _mark_lines(stmts):
    """`__cf.at(line)` before every statement, recursively."""
    out = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list) and not isinstance(stmt, ast.FunctionDef):
                setattr(stmt, field, _mark_lines(getattr(stmt, field)))
        mark = ast.Expr(ast.Call(ast.Attribute(ast.Name("__cf", ast.Load()), "at", ast.Load()),
                                 [ast.Constant(stmt.lineno)], []))
        out += [ast.copy_location(mark, stmt), stmt]
    return out


def compile_cell(source, filename, explicit=False, notebook=()):
    """(code object of `def __cfnb_cell__(__ns, __cf, __names)`, names the cell assigns).

    The function starts with a prologue: a name the cell assigns or reads that the notebook already
    holds starts from the notebook's value (`__cf.from_namespace`: a number or array becomes a
    constant)."""
    tree = ast.parse(source, filename=filename)
    if not explicit:  # the explicit form is plain Python: its functions are passed to while_loop as they are
        check_supported(tree, explicit)
    if explicit:
        return compile(tree, filename, "exec"), _stored_names(tree.body)
    rewrite_item_assignments(tree)  # a[k] = v -> a = __cf.setitem(a, k, v, line): `a` is assigned
    read = _read_names(tree)
    desugar(tree)
    assigned = _stored_names(tree.body, hidden=False)
    local_names = set(assigned) | {n for n in read if n in notebook}
    body = _Transformer(local_names, assigned).visit(ast.Module(_mark_lines(tree.body), [])).body
    lines = [f"if '{n}' in __ns: {n} = __cf.from_namespace(__ns, '{n}', True)" for n in assigned]
    lines += [f"{n} = __cf.from_namespace(__ns, '{n}', False)" for n in read if n in notebook and n not in assigned]
    prologue = ast.parse("\n".join(lines) or "pass").body
    result = ast.parse("return __cf.state(locals(), __names)").body
    fn = ast.FunctionDef(name="__cfnb_cell__", args=ast.arguments(
        posonlyargs=[], args=[ast.arg("__ns"), ast.arg("__cf"), ast.arg("__names")], kwonlyargs=[], kw_defaults=[],
        defaults=[]), body=prologue + body + result, decorator_list=[], returns=None)
    module = ast.Module(body=[fn], type_ignores=[])
    ast.fix_missing_locations(module)
    return compile(module, filename, "exec"), assigned
