"""Turn a cell of ordinary Python into a cfnb graph, the way TensorFlow's AutoGraph does.

The cell becomes one function. Inside it:
  * `name = expr` becomes `name = __cf.assign('name', expr, line)`: numbers and numpy arrays turn
    into constants, so every `while`/`if` in the cell tests a tensor and becomes graph control flow;
  * `while test: body` becomes a cond function and a body function over the *loop variables* (the
    names the body assigns: every name the cell assigns may be read by a later cell, so all count
    as live after the loop), passed to `__cf.while_stmt`, which calls `cfnb.while_loop`;
  * `if test: a else: b` becomes two branch functions over the names either branch assigns,
    passed to `__cf.if_stmt`, which calls `cfnb.cond` (or plain Python when `test` is a bool).
Unlike AutoGraph, a name first assigned inside a loop body (an inner loop's counter) is allowed:
its dtype and shape are found by tracing the body once, it enters the loop as zeros, and a boolean
loop variable records whether it was ever assigned, so a loop that runs zero times leaves the name
undefined, as Python would.
"""
import ast
import builtins
import re

import numpy as np

import cfnb
from cfnb.framework.func_graph import FuncGraph


class CellError(Exception):
    """A problem in the student's cell, reported against its line."""

    def __init__(self, line, message):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message


class _Undefined:
    """The value of a name that has not been assigned yet."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<undefined {self.name}>"


def _stored_names(nodes):
    names = []
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in names:
                names.append(n.id)
    return names


_UNSUPPORTED = {
    ast.Break: "`break` cannot end a graph loop: put the stopping test in the `while` condition instead",
    ast.Continue: "`continue` is not supported in a graph loop: guard the rest of the body with an `if`",
    ast.Return: "`return` is not supported in a %%whileloop cell: assign the result to a name instead",
    ast.Global: "`global` is not supported in a %%whileloop cell",
    ast.Nonlocal: "`nonlocal` is not supported in a %%whileloop cell",
    ast.Yield: "generators are not supported in a %%whileloop cell",
    ast.Try: "`try` is not supported in a %%whileloop cell: a graph cannot catch errors",
    ast.With: "`with` is not supported in a %%whileloop cell",
}


def check_supported(tree, explicit):
    for node in ast.walk(tree):
        message = _UNSUPPORTED.get(type(node))
        if message:
            raise CellError(node.lineno, message)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not explicit:
            raise CellError(node.lineno, "define functions in another cell, or use the explicit form: a cell that "
                                         "defines `cond`, `body` and `loop_vars`")
        if isinstance(node, ast.While) and node.orelse:
            raise CellError(node.lineno, "`while ... else` is not supported in a graph loop")


class _Transformer(ast.NodeTransformer):
    def __init__(self):
        self.counter = 0

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

    # --- statements ---------------------------------------------------------------------------
    def visit_Assign(self, node):  # noqa: N802 - ast's names
        node = self.generic_visit(node)
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        label = names[0] if len(names) == 1 else ",".join(_stored_names(node.targets))
        node.value = self._call("assign", [ast.Constant(label), node.value], node.lineno)
        return node

    def visit_AugAssign(self, node):  # noqa: N802
        node = self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        value = ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value)
        return ast.copy_location(ast.Assign([ast.Name(node.target.id, ast.Store())],
                                            self._call("assign", [ast.Constant(node.target.id), value],
                                                       node.lineno)), node)

    def visit_For(self, node):  # noqa: N802
        node = self.generic_visit(node)
        node.iter = self._call("for_iter", [node.iter], node.lineno)
        return node

    def visit_While(self, node):  # noqa: N802
        node = self.generic_visit(node)
        names = sorted(_stored_names(node.body))
        read = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if not read & set(names):
            raise CellError(node.lineno, "the loop's condition reads nothing the body changes, so once true it would "
                                         "never become false: update a name the condition reads in the body")
        cond, body = self._new("cond"), self._new("body")
        cond_fn = self._function(cond, names, [ast.Return(node.test)])
        body_fn = self._function(body, names, node.body + [self._returns(names)])
        call = self._call("while_stmt", [ast.Name(cond, ast.Load()), ast.Name(body, ast.Load()), self._state(names),
                                         ast.Tuple([ast.Constant(n) for n in names], ast.Load())], node.lineno)
        assign = ast.Assign([self._targets(names)], call)
        return [ast.copy_location(n, node) for n in (cond_fn, body_fn, assign)]

    def visit_If(self, node):  # noqa: N802
        node = self.generic_visit(node)
        names = sorted(set(_stored_names(node.body)) | set(_stored_names(node.orelse)))
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


def compile_cell(source, filename, explicit=False):
    """(code object of `def __cfnb_cell__(__ns, __cf)`, names the cell assigns)."""
    tree = ast.parse(source, filename=filename)
    if not explicit:  # the explicit form is plain Python: its functions are passed to while_loop as they are
        check_supported(tree, explicit)
    assigned = _stored_names(tree.body)
    if explicit:
        return compile(tree, filename, "exec"), assigned
    body = _Transformer().visit(tree).body
    # Names the cell assigns that already exist in the notebook start from their notebook value.
    prologue = ast.parse("\n".join(f"if '{n}' in __ns: {n} = __cf.from_namespace(__ns, '{n}', 0)"
                                   for n in assigned) or "pass").body
    result = ast.parse("return __cf.state(locals(), __names)").body
    fn = ast.FunctionDef(name="__cfnb_cell__", args=ast.arguments(
        posonlyargs=[], args=[ast.arg("__ns"), ast.arg("__cf"), ast.arg("__names")], kwonlyargs=[], kw_defaults=[],
        defaults=[]), body=prologue + body + result, decorator_list=[], returns=None)
    module = ast.Module(body=[fn], type_ignores=[])
    ast.fix_missing_locations(module)
    return compile(module, filename, "exec"), assigned


# --- the runtime the transformed cell calls -------------------------------------------------------
class Runtime:
    """`__cf` in the transformed cell: assignments, loops and conds, recorded for the result."""

    def __init__(self, options, graph):
        self.options = options
        self.graph = graph     # the graph being built (tracing also happens in scratch graphs)
        self.depth = 0         # how many loop bodies / branches we are inside
        self.first = {}        # name -> first tensor bound to it (what --grad differentiates against)
        self.flags = {}        # name -> boolean tensor: did a top-level loop ever assign it

    # values
    @staticmethod
    def value(v):
        if isinstance(v, cfnb.Tensor) or isinstance(v, _Undefined):
            return v
        if isinstance(v, tuple):
            return tuple(Runtime.value(x) for x in v)
        if isinstance(v, list) and not any(isinstance(x, cfnb.Tensor) for x in v):
            return cfnb.constant(v)
        if isinstance(v, (bool, int, float, np.ndarray, np.generic)):
            return cfnb.constant(v)
        return v

    def assign(self, name, v, line):
        v = self.value(v)
        if isinstance(v, cfnb.Tensor) and name not in self.first and v.graph is self.graph and self.depth == 0:
            self.first[name] = v
        if self.depth == 0:
            self.flags.pop(name, None)
        return v

    def from_namespace(self, ns, name, line):
        return self.assign(name, ns[name], line)

    @staticmethod
    def state(local_vars, names):
        return tuple(local_vars.get(n, _Undefined(n)) for n in names)

    @staticmethod
    def for_iter(iterable, line):
        if isinstance(iterable, cfnb.Tensor):
            raise CellError(line, "`for` over a tensor is not supported: write it as a `while` loop with an index")
        return iterable

    # conditions
    @staticmethod
    def _is_tensor(v):
        return isinstance(v, cfnb.Tensor)

    def and_(self, values, line):
        result = values[0]
        for v in values[1:]:
            if self._is_tensor(result) or self._is_tensor(v):
                result = cfnb.logical_and(result, v)
            else:
                result = result and v
        return result

    def or_(self, values, line):
        result = values[0]
        for v in values[1:]:
            if self._is_tensor(result) or self._is_tensor(v):
                result = cfnb.logical_or(result, v)
            else:
                result = result or v
        return result

    def eq(self, a, b, line):
        return cfnb.equal(a, b) if self._is_tensor(a) or self._is_tensor(b) else a == b

    def ne(self, a, b, line):
        return cfnb.not_equal(a, b) if self._is_tensor(a) or self._is_tensor(b) else a != b

    def not_(self, v, line):
        return cfnb.logical_not(v) if self._is_tensor(v) else not v

    def if_exp(self, test, then, orelse, line):
        if not self._is_tensor(test):
            return then() if test else orelse()
        return cfnb.cond(test, lambda: self.value(then()), lambda: self.value(orelse()))

    # control flow
    def if_stmt(self, test, then_fn, else_fn, values, line):
        if not self._is_tensor(test):
            return then_fn(*values) if test else else_fn(*values)
        try:
            then_out, else_out = self._probe(then_fn, values), self._probe(else_fn, values)
        except _UndefinedUse as e:
            raise CellError(line, str(e)) from None
        for a, b in zip(then_out, else_out):
            if isinstance(a, _Undefined) != isinstance(b, _Undefined):
                missing = "else" if isinstance(b, _Undefined) else "if"
                raise CellError(line, f"'{a.name if isinstance(a, _Undefined) else b.name}' is given a value in one "
                                      f"branch only: give it a value in the {missing} branch too, or before the `if`")
        keep = [k for k, a in enumerate(then_out) if not isinstance(a, _Undefined)]
        self.depth += 1
        try:
            outs = cfnb.cond(test, lambda: [self.value(then_fn(*values)[k]) for k in keep],
                             lambda: [self.value(else_fn(*values)[k]) for k in keep], strict=True)
        except (ValueError, TypeError) as e:
            raise CellError(line, _short(e)) from None
        finally:
            self.depth -= 1
        result = list(then_out)
        for k, t in zip(keep, outs):
            result[k] = t
        return tuple(result)

    def _probe(self, fn, values):
        """Call a branch/body function in a scratch graph, to see what it assigns."""
        self.depth += 1
        try:
            # A function graph, so names from outside the loop (captured) can be read while probing.
            with FuncGraph("probe", cfnb.get_default_graph()).as_default():
                probes = [v if isinstance(v, _Undefined) else cfnb.placeholder(_t(v).dtype, _t(v).shape)
                          for v in values]
                return _traced(fn, probes)
        finally:
            self.depth -= 1

    def while_stmt(self, cond_fn, body_fn, values, names, line):
        values = [self.value(v) for v in values]
        undefined = [k for k, v in enumerate(values) if isinstance(v, _Undefined)]
        undefined_names = {k: values[k].name for k in undefined}
        if undefined:
            values = self._initial_values_for_undefined(body_fn, values, undefined, line)
        # One boolean loop variable per name first assigned in this loop: did an iteration run?
        flags = [cfnb.constant(False) for _ in undefined]

        def cond(*vs):
            return cond_fn(*vs[:len(values)])

        def body(*vs):
            out = [self.value(v) for v in body_fn(*vs[:len(values)])]
            out += [cfnb.constant(True) for _ in flags]
            return out

        options = self.options
        self.depth += 1
        try:
            result = cfnb.while_loop(cond, body, list(values) + flags, parallel_iterations=options.parallel_iterations,
                                     maximum_iterations=options.maximum_iterations, swap_memory=options.swap_memory,
                                     return_same_structure=True)
        except _UndefinedUse as e:
            raise CellError(line, str(e)) from None
        except (ValueError, TypeError) as e:
            raise CellError(line, _name_loop_vars(_short(e), names)) from None
        finally:
            self.depth -= 1
        outs = list(result[:len(values)])
        if self.depth == 0:
            for k, flag in zip(undefined, result[len(values):]):
                self.flags[undefined_names[k]] = flag
        return tuple(outs)

    def _initial_values_for_undefined(self, body_fn, values, undefined, line):
        """Trace the body once, in a scratch graph, to learn the dtype and shape of names it assigns
        for the first time; they enter the loop as zeros of that dtype and shape."""
        try:
            outs = self._probe(body_fn, values)
        except _UndefinedUse as e:
            raise CellError(line, f"{e}: give it a value before the loop") from None
        initial = list(values)
        for k in undefined:
            out = outs[k]
            if isinstance(out, _Undefined):
                raise CellError(line, f"'{out.name}' is not assigned on every path through the loop body")
            out = cfnb.convert_to_tensor(out) if not isinstance(out, cfnb.Tensor) else out
            if not out.shape.is_fully_defined():
                raise CellError(line, f"'{values[k].name}' is first assigned inside the loop with a shape known only "
                                      f"at run time: give it a value before the loop")
            initial[k] = cfnb.zeros(out.shape.as_list(), out.dtype)
        return initial


class _UndefinedUse(Exception):
    pass


def _t(v):
    return v if isinstance(v, cfnb.Tensor) else cfnb.convert_to_tensor(v)


def _traced(fn, values):
    """Call a branch/body function; reading an undefined name becomes a clear error."""
    try:
        return fn(*values)
    except (TypeError, AttributeError) as e:
        for v in values:
            if isinstance(v, _Undefined) and v.name in str(e):
                raise _UndefinedUse(f"'{v.name}' is used before it is given a value") from None
        if "_Undefined" in str(e):
            name = next((v.name for v in values if isinstance(v, _Undefined)), "?")
            raise _UndefinedUse(f"'{name}' is used before it is given a value") from None
        raise


def _name_loop_vars(message, names):
    """TensorFlow's messages name a loop variable by its tensor; the cell knows it by its name."""
    message = re.sub(r"Loop var \S+ \(loop variable #(\d+)\)", lambda m: f"'{names[int(m.group(1))]}'", message)
    message = re.sub(r"Input tensor '[^']+' \(loop variable #(\d+)\)", lambda m: f"'{names[int(m.group(1))]}'",
                     message)
    message = re.sub(r"<dtype: '(\w+)'>", r"\1", message)
    return message.replace("add a cfnb.cast in the body", "use cast(...) in the body to keep it")


def _short(error):
    text = str(error)
    return text.split("\n\nFirst structure")[0]


def builtins_for_cells():
    """The names a cell can call besides the notebook's: cfnb's ops (tanh, matmul, ...)."""
    names = {k: getattr(cfnb, k) for k in dir(cfnb) if not k.startswith("_")}
    names.update({k: getattr(builtins, k) for k in ("range", "len", "print", "abs", "min", "max", "int", "float")})
    return names
