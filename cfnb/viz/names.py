"""The student's names on a drawing: which Python variable a primitive carries, which nodes a gradient added,
and what a history stack holds.

A loop variable's Enter, Merge, Switch, NextIteration and Exit carry one value; the drawing says which, so that a
learner sees `x` on `while/Merge_1`. Names come, in this order, from
  * `_cfnb_var_name` on the primitive itself: lowering (`passes/lowering.py`) and the v1 rebuild
    (`passes/to_v1.py`) copy it from the `_cfnb_var_names` of a `While` the `%%whileloop` magic built (one
    name per loop input; names starting with "." are the magic's internal flags) and from an `If`'s
    `_cfnb_out_names`;
  * the op a value comes from: a notebook value enters as an op named after its Python name with
    `_cfnb_source = "notebook"`; an op the user named (`tf.constant(2.0, name="x")`) gives its name;
    an Identity, Switch or Enter passes its input's name on;
  * else the loop variable's position (`loop var 1`).
A gradient op is named after the forward op it differentiates, as TensorFlow names it
(`gradients/while/Exit_grad/b_exit` is the gradient of `while/Exit`, so `grad x`), and a history stack after
the value pushed onto it (`stack of x`). cfnb-specific: TensorFlow draws none of this (TensorBoard shows op
names only).
"""
import re

from ..framework.func_graph import functions_of

VAR_NAME, VAR_NAMES, OUT_NAMES, SOURCE = "_cfnb_var_name", "_cfnb_var_names", "_cfnb_out_names", "_cfnb_source"
FUNCTIONAL = ("While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase")
PASS_THROUGH = ("Identity", "Switch", "Enter", "RefEnter", "RefSwitch", "Exit")
STACKS = ("StackV2", "StackPushV2", "StackPopV2")
LISTS = ("EmptyTensorList", "TensorListReserve", "TensorListPushBack", "TensorListPopBack")
# Names TensorFlow's builders give when the user gives none: such an op does not name a variable.
_DEFAULT_NAMES = {"add", "sub", "mul", "truediv", "div", "floordiv", "mod", "pow", "neg", "zeros", "ones",
                  "zeros_like", "ones_like", "range", "strided_slice", "read", "cond", "while", "output", "input",
                  "value", "stack", "concat", "reshape", "fill", "cast", "identity", "placeholder",
                  "transpose", "matmul", "maximum", "minimum", "square", "sqrt", "tanh", "sigmoid", "exp", "log",
                  "sin", "cos", "abs", "sign", "equal", "less", "greater", "logicaland", "logicalnot", "select"}
# TensorFlow's names for the loop machinery, said the way the lessons say them.
_MACHINERY = {"f_count": "counter", "b_count": "counter", "loop_counter": "counter", "grad_counter": "counter",
              "counter": "counter", "maximum_iterations": "maximum_iterations", "total_iters": "iterations"}
_GRAD = re.compile(r"^(.*)_grad(_\d+)?$")


def short_name(name):
    """`while/mul/Enter` -> `Enter`; the last component of an op name."""
    return name.rsplit("/", 1)[-1]


def _base(name):
    return re.sub(r"_\d+$", "", short_name(name))


def user_named(op):
    """Whether the op's name is one a user gave (`x`), not a builder's default (`Const_2`, `mul`, `Placeholder`)."""
    base = _base(op.name)
    if "/" in op.name and base in ("x", "y") and op.type == "Const":
        return False  # a binary op's constant operand: `Less/y`
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", op.type).lower()
    return base.lower() not in _DEFAULT_NAMES | {op.type.lower(), snake} and not base.startswith("Const")


def is_gradient(op, in_gradient=False):
    """Whether `op` was added by `gradients()`: a `gradients` name scope (TensorFlow's), or inside a gradient
    function (`in_gradient`)."""
    return in_gradient or any(p == "gradients" or p.startswith("gradients_") for p in op.name.split("/"))


def forward_name(name):
    """The forward op a gradient op differentiates, from TensorFlow's naming: `gradients/while/Exit_grad/b_exit`
    -> `while/Exit`; None when the name says nothing."""
    parts = name.split("/")
    if "gradients" not in parts:
        return None
    parts = parts[parts.index("gradients") + 1:]
    for k in range(len(parts) - 1, -1, -1):
        m = _GRAD.match(parts[k])
        if m:
            return "/".join(parts[:k] + [m.group(1)])
    return None


def shown(name):
    """A name as drawn: the magic's internal flags (`.counter`) without their dot."""
    return name[1:] if name and name.startswith(".") else name


class Names:
    """The student's name of every op of one graph (or function body) that carries a named value.

    `arg_names` names the function arguments (Placeholder ops) when the graph is a function body called by a
    functional op; `in_gradient` marks every op as a gradient op (a gradient function's body)."""

    def __init__(self, ops, arg_names=None, in_gradient=False):
        self.ops = list(ops)
        self.by_name = {op.name: op for op in self.ops}
        self.arg_names = dict(arg_names or {})
        self.in_gradient = in_gradient
        self.consumers = {op: [] for op in self.ops}
        for op in self.ops:
            for t in op.inputs:
                self.consumers.setdefault(t.op, []).append(op)
        self._var = {}
        self._name_loop_columns()

    # --- loop columns ---------------------------------------------------------------------------
    def _name_loop_columns(self):
        position = {}
        for op in self.ops:
            if op.type != "Enter" or op.get_attr("is_constant"):
                continue
            frame = op.get_attr("frame_name")
            k = position[frame] = position.get(frame, -1) + 1
            name = self._column_name(op, k)
            for member in self.column(op):
                self._var.setdefault(member, name)

    def _column_name(self, enter, k):
        if VAR_NAME in enter.attr:
            return enter.get_attr(VAR_NAME)
        if is_gradient(enter, self.in_gradient):
            fwd = self.forward_value(enter)
            if fwd:
                return f"grad {fwd}"
        src = enter.inputs[0].op
        if src.type in ("EmptyTensorList", "TensorListReserve", "StackV2"):
            return self.history_name(src)
        return self.tensor_name(enter.inputs[0]) or _MACHINERY.get(_base(src.name)) or f"loop var {k}"

    def column(self, enter):
        """One loop variable's primitives, found from its Enter: Merge, NextIteration, Switch, Exit and the
        Identity reading Switch:1 (WhileContext's and lower_while_op.cc's shape). Empty for a constant Enter."""
        merge = next((c for c in self.consumers.get(enter, []) if c.type == "Merge"), None)
        if merge is None or len(merge.inputs) != 2:
            return [enter]
        members = [enter, merge, merge.inputs[1].op]
        for sw in (c for c in self.consumers.get(merge, []) if c.type == "Switch" and c.inputs[0].op is merge):
            members.append(sw)
            for c in self.consumers.get(sw, []):
                if c.type == "Exit" or (c.type == "Identity" and c.inputs[0] is sw.outputs[1]
                                        and "Func" not in c.name.split("/")):
                    members.append(c)
        return members

    # --- names --------------------------------------------------------------------------------
    def var_name(self, op):
        """The name of the loop variable whose primitive `op` is (None for other ops)."""
        if VAR_NAME in op.attr:
            return op.get_attr(VAR_NAME)
        return self._var.get(op)

    def tensor_name(self, t, depth=0):
        """The student's name of the value `t` holds, or None."""
        op = t.op
        if depth > 20:
            return None
        if self.var_name(op):
            return self.var_name(op)
        if op in self.arg_names:
            return self.arg_names[op]
        if op.type in LISTS[:2]:
            return self.history_name(op)
        if SOURCE in op.attr or (op.type not in PASS_THROUGH and user_named(op) and not (
                is_gradient(op, self.in_gradient) and _base(op.name) not in _MACHINERY)):
            return _MACHINERY.get(_base(op.name), short_name(op.name))
        if op.type in PASS_THROUGH and op.inputs:
            return self.tensor_name(op.inputs[0], depth + 1)
        if op.type in ("While", "StatelessWhile"):  # output k carries loop input k (0: the final counter)
            given = out_names(op, self)[t.value_index]
            if t.value_index < 2:
                return ("iterations", "maximum_iterations")[t.value_index]
            return given or self.tensor_name(op.inputs[t.value_index], depth + 1)
        if op.type in ("If", "StatelessIf"):
            return out_names(op, self)[t.value_index]
        return None

    def forward_value(self, op):
        """For a gradient op, the name of the forward value it is the gradient of (None if unknown)."""
        fwd = self.by_name.get(forward_name(op.name) or "")
        if fwd is None:
            return None
        return self.var_name(fwd) or (self.tensor_name(fwd.outputs[0]) if fwd.outputs else None)

    def history_name(self, op):
        """`stack of x`: a history stack or TensorList accumulator, named after the value pushed onto it (in a
        v1 loop, or in the body of the functional While the accumulator is a loop input of)."""
        pushed = None
        for c in self._handle_users(op):
            if c.type in ("StackPushV2", "TensorListPushBack") and pushed is None:
                pushed = self.tensor_name(c.inputs[1]) or short_name(c.inputs[1].op.name)
            elif c.type in ("While", "StatelessWhile") and pushed is None:
                pushed = self._pushed_in_body(c, op)
        kind = "stack" if op.type == "StackV2" else "list"
        return f"{kind} of {pushed}" if pushed else f"{kind} ({short_name(op.name)})"

    def _pushed_in_body(self, loop, op):
        body = loop.get_attr("body")
        args = arg_names(loop, self, with_lists=False).get(body, {})
        inner = Names(body.get_operations(), args)
        for k, t in enumerate(loop.inputs):
            if t.op is op:
                for c in inner.consumers.get(body.inputs[k].op, []):
                    if c.type == "TensorListPushBack":
                        return inner.tensor_name(c.inputs[1]) or short_name(c.inputs[1].op.name)
        return None

    def _handle_users(self, op, depth=0):
        """The ops that use a stack's or list's handle, through Enter/Switch/Identity/Merge (and loop columns)."""
        found = []
        for c in self.consumers.get(op, []):
            if c.type in PASS_THROUGH + ("Merge",) and depth < 12:
                found += self._handle_users(c, depth + 1)
            else:
                found.append(c)
        return found

    def stack_of(self, op):
        """For a stack or list op (the StackV2, a push, a pop), the StackV2/accumulator it works on."""
        if op.type in ("StackV2", "EmptyTensorList", "TensorListReserve"):
            return op
        t = op.inputs[0] if op.inputs else None
        depth = 0
        while t is not None and t.op.type in PASS_THROUGH + ("Merge",) and t.op.inputs and depth < 12:
            t, depth = t.op.inputs[0], depth + 1
        return t.op if t is not None and t.op.type in ("StackV2", "EmptyTensorList", "TensorListReserve") else None

    def label(self, op):
        """The student's name for `op` where one is known: `x`, `grad x`, `stack of x`, `push x`; else None."""
        if op.type in STACKS + LISTS:
            stack = self.stack_of(op)
            if stack is not None and stack.type != "TensorListReserve":
                held = self.history_name(stack)
                if op is stack:
                    return held
                what = held.split(" of ", 1)[-1] if " of " in held else held
                return ("push " if "Push" in op.type else "pop ") + what
            if op.type == "TensorListPushBack":
                return f"push {self.tensor_name(op.inputs[1]) or short_name(op.inputs[1].op.name)}"
            if op.type == "TensorListPopBack":
                held = self.tensor_name(op.inputs[0]) or ""
                return "pop " + (held.split(" of ", 1)[-1] if " of " in held else held or "value")
        name = self.var_name(op)
        if name is None and op.type == "Switch" and op.inputs and not is_gradient(op, self.in_gradient):
            name = self.tensor_name(op.inputs[0])  # a cond's Switch: the value it routes
        if name is None and SOURCE in op.attr:
            name = short_name(op.name)
        if name is None and is_gradient(op, self.in_gradient) and op.type in ("Enter", "Merge", "Switch", "Exit",
                                                                               "NextIteration"):
            fwd = self.forward_value(op)
            name = f"grad {fwd}" if fwd else None
        return name


def arg_names(op, names, with_lists=True):
    """The names of the arguments of each function `op` calls: {function: {Placeholder op: name}}.

    A While's cond and body take its loop inputs (`_cfnb_var_names`, or the inputs' own names, or the
    position); an If's branches take its inputs after the predicate; a Case's too."""
    if not with_lists:  # naming an accumulator from the body that pushes onto it: no recursion into it
        names = Names([], names.arg_names, names.in_gradient)
    count = len(op.inputs)
    given = [n.decode() if isinstance(n, bytes) else n for n in (op.attr.get(VAR_NAMES) or [])]
    if op.type in ("While", "StatelessWhile"):
        if len(given) == count - 2:
            given = [None, None] + given
        inputs = list(op.inputs)
        recovered = [names.tensor_name(t) for t in inputs]
        fallback = ["counter", "maximum_iterations"] + [f"loop var {k}" for k in range(count - 2)]
    else:
        inputs = list(op.inputs[1:])
        recovered = [names.tensor_name(t) for t in inputs]
        fallback = [None] * len(inputs)
    chosen = [(given[k] if k < len(given) and given[k] else None) or recovered[k] or fallback[k]
              for k in range(len(inputs))]
    out = {}
    for fn in functions_of(op):
        out[fn] = {t.op: n for t, n in zip(fn.inputs, chosen) if n}
    return out


def out_names(op, names):
    """The student's names of a functional op's outputs: `_cfnb_out_names` (If), `_cfnb_var_names` (While)."""
    key = OUT_NAMES if op.type not in ("While", "StatelessWhile") else VAR_NAMES
    given = [n.decode() if isinstance(n, bytes) else n for n in (op.attr.get(key) or [])]
    if key == VAR_NAMES and len(given) == len(op.outputs) - 2:
        given = [None, None] + given
    return given + [None] * (len(op.outputs) - len(given))
