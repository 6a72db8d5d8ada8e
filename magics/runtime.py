"""`__cf`: what the transformed cell calls to build its graph (the cell's control flow).

Values stay Python (or numpy) until they must be tensors, as in AutoGraph: `x = 2.0` keeps the
float, `v = x * x` is computed by Python. A value becomes a tensor when it enters a loop or a cond
(a loop variable, a branch output), when a tensor meets it, or when `--grad` names it. So the
straight-line code around the loops computes what plain Python computes, and each `while` and
tensor-`if` becomes graph control flow.

Builtins, `math` and numpy calls, printing and list appends are in calls.py, `and`/`or`/`not` and
conditional expressions in conditions.py, what a `for` walks in
iteration.py (mixins of Runtime).
"""
import numpy as np

import cfnb
from cfnb.framework import dtype_rules
from cfnb.framework.func_graph import FuncGraph
from cfnb.ops.numpy_rules import PYTHON_INT_ATTR

from .calls import Calls, FString, tensors_in
from .conditions import Conditions, is_python_number, is_weak, truth
from .errors import CellError
from .items import ItemAssignment
from .iteration import ForLoops
from .lists import Accumulator, accumulator_for, flows_in, rebuild_flows
from .variables import Maybe, Undefined, UndefinedRead, describe, ld


class Runtime(Calls, Conditions, ForLoops, ItemAssignment):
    """`__cf` in the transformed cell: assignments, loops and conds, recorded for the result."""

    def __init__(self, options, graph):
        self.options = options
        self.graph = graph      # the graph being built (tracing also happens in function graphs)
        self.depth = 0          # how many loop bodies / branches we are inside
        self.probing = 0        # > 0 while a body is traced once only to learn its names' types
        self.first = {}         # name -> the tensor of the cell's first top-level assignment (for --grad)
        self.notebook = {}      # name -> the tensor made from the notebook's value (for --grad)
        self.flags = {}         # name -> boolean tensor: is its value defined at the end of the cell (a Maybe)
        self.fallback = {}      # name -> its value where that flag is false, if it had one
        self.python_ops = set() # ops whose result plain Python holds as a Python number (float(), math.*)
        self.loops = {}         # While op -> (line, the loop's label: its `for` variable or None)
        self.op_line = {}       # op -> the cell line that built it
        self.numpy_ops = set()  # ops whose result plain Python would hold as numpy (see values.py)
        self._marks = {}        # graph -> (ops seen, current line)
        self.effects = [[]]     # per trace scope: the print ops (and effectful loops/conds) in order
        self.top_effects = []   # the root graph's effect ops: run as targets
        self.grad_names = {s for _target, sources in options.grads for s in sources}
        self.cut = []           # (bool tensor, line, label): a top-level loop stopped by maximum_iterations
        self.deleted = []       # names the cell deletes (`del x`) that the notebook holds
        self.notebook_names = set()

    # --- lines -------------------------------------------------------------------------------
    def at(self, line):
        graph = cfnb.get_default_graph()
        seen, current = self._marks.get(graph, (0, None))
        ops = graph._ops
        if current is not None:
            for op in ops[seen:]:
                self.op_line.setdefault(op, current)
        self._marks[graph] = (len(ops), line)

    def finish_lines(self):
        """Give the ops built after each graph's last statement mark that statement's line."""
        for graph, (seen, current) in list(self._marks.items()):
            if current is not None:
                for op in graph._ops[seen:]:
                    self.op_line.setdefault(op, current)
            self._marks[graph] = (len(graph._ops), current)

    # --- values ------------------------------------------------------------------------------
    def constant(self, v):
        """A constant for a Python or numpy value, in the cell's dtype rules."""
        numpy_value = isinstance(v, (np.ndarray, np.generic))
        if self.options.dtypes == "numpy" and not numpy_value:
            if isinstance(v, bool):
                t = cfnb.constant(v)
            elif isinstance(v, int):
                if not -(2 ** 63) <= v < 2 ** 63:
                    raise OverflowError(f"{v} does not fit in int64: Python's ints are unbounded, but the graph "
                                        f"computes them in int64 (from -2**63 to 2**63 - 1). Use floats for numbers "
                                        f"this large, or keep them smaller.")
                t = cfnb.constant(v, dtype=cfnb.int64)
            elif isinstance(v, float):
                t = cfnb.constant(v, dtype=cfnb.float64)
            else:
                arr = np.asarray(v)
                t = cfnb.constant(arr.astype(np.int64) if arr.dtype.kind == "i" else arr)
        else:
            t = cfnb.constant(v)
        if numpy_value:
            self.numpy_ops.add(t.op)
        elif is_python_number(v):
            dtype_rules.mark_weak(t)  # promotes as the Python number would (weak, NEP 50)
        return t

    def value(self, v):
        """`v` as a tensor where it must be one (a loop variable, a branch output)."""
        if isinstance(v, (cfnb.Tensor, Undefined, Accumulator)) or hasattr(v, "_flow_for_control_flow"):
            return v
        if isinstance(v, tuple):
            return tuple(self.value(x) for x in v)
        if isinstance(v, (bool, int, float, np.ndarray, np.generic)):
            return self.constant(v)
        return v

    def assign(self, name, v, line):
        if isinstance(v, FString):
            v = v.python(line)
        if name.startswith("__k_") and isinstance(v, cfnb.Tensor):
            v.op._attrs.pop(PYTHON_INT_ATTR, None)  # a `for` loop's own counter stays below its length
        if name in self.grad_names and self.depth == 0 and not isinstance(v, cfnb.Tensor):
            v = self.value(v)  # --grad differentiates with respect to this very tensor
        if isinstance(v, cfnb.Tensor) and name not in self.first and v.graph is self.graph and self.depth == 0:
            self.first[name] = v
        return v

    def ld(self, value, name, line):
        return ld(self, value, name, line)

    def from_namespace(self, ns, name, assigned):
        """A notebook value the cell reads (and, if `assigned`, may rebind)."""
        v = ns[name]
        if isinstance(v, (np.ndarray, np.generic)) or (name in self.grad_names and isinstance(v, (int, float))):
            v = self.constant(v)
        if isinstance(v, list):
            v = list(v)  # the cell's appends make a new list, as rebinding does
        if isinstance(v, cfnb.Tensor):
            self.notebook[name] = v
        return v

    def invariant(self, v):
        """A number a loop reads but does not change: a constant made before the loop."""
        if isinstance(v, (int, float, np.generic)) and not self.probing:
            return self.constant(v)
        return v

    @staticmethod
    def state(local_vars, names):
        return tuple(local_vars.get(n, Undefined(n)) for n in names)

    # --- if ----------------------------------------------------------------------------------
    def if_stmt(self, test, then_fn, else_fn, values, line):
        if not self._is_tensor(test):
            return then_fn(*values) if test else else_fn(*values)
        values = [_entering(v, line) for v in values]
        if self.probing:
            return self._probe_if(then_fn, else_fn, values)
        try:
            then_out, else_out = self._probe(then_fn, values), self._probe(else_fn, values)
        except UndefinedRead as e:
            raise CellError(line, str(e)) from None
        for a, b in zip(then_out, else_out):
            if isinstance(a, Undefined) != isinstance(b, Undefined):
                missing = "else" if isinstance(b, Undefined) else "if"
                raise CellError(line, f"'{a.name if isinstance(a, Undefined) else b.name}' is given a value in one "
                                      f"branch only: give it a value in the {missing} branch too, or before the `if`")
        keep = [k for k, a in enumerate(then_out) if not isinstance(a, Undefined)]
        # A name that may be undefined in one branch (a `Maybe`) leaves the cond with its flag beside it.
        maybes = {k for k in keep if isinstance(then_out[k], Maybe) or isinstance(else_out[k], Maybe)}
        values = [self.value(v) for v in values]
        effects, weak = [], None

        def branch(fn):
            def run():
                nonlocal weak
                self.effects.append([])
                try:
                    returned = fn(*values)
                    outs = []
                    for k in keep:
                        outs.append(self.value(_defined_part(returned[k], line)))
                        if k in maybes:
                            outs.append(returned[k].defined if isinstance(returned[k], Maybe) else cfnb.constant(True))
                    here = [is_weak(o) for o in outs]
                    weak = here if weak is None else [w and h for w, h in zip(weak, here)]
                finally:
                    scope = self.effects.pop()
                flat = flows_in(outs)
                if scope:
                    effects.append(scope)
                    flat = self._tie(flat, scope[-1])
                    if not flat:
                        flat = [self._done(scope[-1])]
                elif effects and not flat:
                    flat = [cfnb.constant(True)]
                return flat
            return run

        self.depth += 1
        try:
            outs = cfnb.cond(truth(test), branch(then_fn), branch(else_fn), strict=True)
        except (ValueError, TypeError) as e:
            raise CellError(line, _short(e)) from None
        finally:
            self.depth -= 1
        if effects:
            op = (outs[0] if outs else None)
            self._effect_done(op.op if op is not None else None)
        outs = [dtype_rules.mark_weak(t) if w and isinstance(t, cfnb.Tensor) else t
                for t, w in zip(outs, weak or [])]
        result, position = list(then_out), 0
        for k in keep:
            original = values[k] if isinstance(values[k], Accumulator) else then_out[k]
            result[k] = rebuild_flows([original], [outs[position]])[0] if position < len(outs) else original
            if k in maybes:
                name = next(v.name for v in (then_out[k], else_out[k]) if isinstance(v, Maybe))
                result[k] = Maybe(name, result[k], outs[position + 1], Undefined(name))
            position += 2 if k in maybes else 1
        return tuple(result)

    def _probe_if(self, then_fn, else_fn, values):
        """While probing: both branches run once, no cond is built; each name takes the first
        defined value (its dtype and shape are all a probe needs)."""
        returned = []
        for fn in (then_fn, else_fn):
            try:
                returned.append(fn(*values))
            except UndefinedRead as e:  # this branch reads a name not defined yet: what the other one makes
                returned.append(e)
        if all(isinstance(r, UndefinedRead) for r in returned):
            raise returned[0]
        then_out, else_out = [r if not isinstance(r, UndefinedRead) else returned[1 - k] for k, r in
                              enumerate(returned)]
        out = []
        for a, b in zip(then_out, else_out):
            if isinstance(a, Undefined):
                a = b
            elif isinstance(a, list) and isinstance(b, list) and len(b) > len(a):
                a = b
            # A number set in a branch is a tensor after the cond: later `if`s on it are conds too.
            out.append(self.value(a) if isinstance(a, (bool, int, float)) else a)
        return tuple(out)

    def _probe(self, fn, values, weak=None):
        """Call a branch/body function in a scratch graph, to see what it assigns."""
        self.depth += 1
        self.probing += 1
        try:
            # A function graph, so names from outside the loop (captured) can be read while probing.
            with FuncGraph("probe", cfnb.get_default_graph()).as_default():
                probes = [_placeholder_like(v, w) for v, w in zip(values, weak or [is_weak(v) for v in values])]
                return _traced(fn, probes)
        finally:
            self.depth -= 1
            self.probing -= 1

    # --- while -------------------------------------------------------------------------------
    def while_stmt(self, cond_fn, body_fn, values, names, label, written_first, line):
        if self.probing:
            return _traced(body_fn, list(values))
        before = values
        old = [_entering(v, line) for v in values]
        # A name the body writes before it reads it (a `for` target, a temporary) is not live into the
        # loop, and one holding what no loop can carry (a string...) must be rebound by the body: both are
        # traced as if undefined (their old value does not matter to the body).
        values = [v if isinstance(v, (Undefined, Maybe)) else Undefined(names[k])
                  if names[k] in written_first or not _carriable(v) else self.value(v) for k, v in enumerate(old)]
        fresh = [k for k, v in enumerate(values) if isinstance(v, Undefined)]
        lists = [k for k, v in enumerate(values) if isinstance(v, list)]
        # A Python number is weak, as in numpy: `s = 0` then `s += 0.5` in the loop makes s a float, and
        # `v * 0.5 + i` of a float32 v stays float32. It stays weak while the body keeps it a Python number.
        weak = [is_weak(v.value if isinstance(v, Maybe) else v) for v in values]
        entered = list(values)
        outs = None
        if fresh or lists or any(weak):
            values, weak, outs = self._initial_values(body_fn, values, fresh, lists, names, line, weak)
        first = {k for k, name in enumerate(names) if name in written_first}
        runs = self._runs(cond_fn, old)
        tracked = self._track(old, entered, values, outs, fresh, first, runs)
        keys = sorted(tracked)
        n = len(values)
        scope_holder = []

        def marked(vs):
            for v, w in zip(vs, weak):
                if w and isinstance(v, cfnb.Tensor):
                    dtype_rules.mark_weak(v)
            return vs

        def unflat(vs):
            ins = list(vs[:n])
            for j, k in enumerate(keys):
                if tracked[k][2] is None:  # may be undefined in this iteration: reads are checked
                    ins[k] = Maybe(names[k], vs[k], vs[n + j], Undefined(names[k]))
            return ins

        def cond(*vs):
            return truth(self.value(cond_fn(*unflat(marked(vs)))))

        def body(*vs):
            marked(vs)
            self.effects.append([])
            try:
                returned = body_fn(*unflat(vs))
            finally:
                scope = self.effects.pop()
            out = [self.value(_defined_part(v, line)) for v in returned]
            for k, (before, after) in enumerate(zip(vs[:n], out)):
                if isinstance(before, Accumulator) != isinstance(after, Accumulator):
                    raise CellError(line, f"'{names[k]}' is a list grown with .append in the loop: only .append "
                                          f"may change it there")
            out += [returned[k].defined if isinstance(returned[k], Maybe) else cfnb.constant(True) for k in keys]
            if scope:
                scope_holder.append(scope)
                out = self._tie(out, scope[-1])
            return out

        flags = [tracked[k][0] for k in keys]
        options = self.options
        self.depth += 1
        try:
            result = cfnb.while_loop(cond, body, list(values) + flags, parallel_iterations=options.parallel_iterations,
                                     maximum_iterations=options.maximum_iterations, swap_memory=options.swap_memory,
                                     return_same_structure=True)
        except UndefinedRead as e:
            raise CellError(line, str(e)) from None
        except (ValueError, TypeError) as e:
            if isinstance(e, CellError) or _raised_in_cell(e, line):
                raise  # the body's own code failed: its line is reported (errors.from_python_error)
            raise CellError(line, _name_loop_vars(_short(e), names)) from None
        finally:
            self.depth -= 1
        first_out = next(t for t in flows_in(result)).op
        while_op = first_out
        while while_op.type == "Identity":  # while_v2 hands each output on through an Identity
            while_op = while_op.inputs[0].op
        self.loops[while_op] = (line, label)
        if scope_holder:
            # The loop's first output stands for it: the While op itself is not fetchable (TensorFlow's
            # while_v2 prevents fetching it), and running its output runs the loop.
            self._effect_done(first_out)
        if runs is False:  # its first test is false in Python: every name keeps its value, as in plain Python
            if not scope_holder:
                self._effect_done(first_out)  # (the loop is still built, drawn and run)
            return tuple(before)
        outs = marked(list(result[:n]))
        if self.depth == 0 and options.maximum_iterations is not None:  # stopped with its condition still true
            self.cut.append((cond(*outs, *result[n:]), line, label))
        for j, k in enumerate(keys):
            fallback = tracked[k][2] if tracked[k][2] is not None else Undefined(names[k])
            outs[k] = Maybe(names[k], outs[k], result[n + j], fallback, readable=tracked[k][1], line=line)
        return tuple(outs)

    def _runs(self, cond_fn, old):
        """Does the loop surely run at least once (True), never (False), or is that known only when the
        graph runs (None)? The first test, on the values before the loop, when Python computes it (a `for`
        over range(10) or an array: AutoGraph evaluates a loop's first test too)."""
        self.probing += 1
        try:
            with FuncGraph("first_test", cfnb.get_default_graph()).as_default():
                test = cond_fn(*old)
        except Exception:  # noqa: BLE001 - it reads a value only the graph has: known at run time
            return None
        finally:
            self.probing -= 1
        return bool(test) if isinstance(test, (bool, np.bool_)) else None

    def _track(self, old, entered, initial, probed, fresh, first, runs):
        """The names whose value after the loop depends on whether it ran: {k: (initial flag, readable,
        fallback)}. Each gets a boolean loop variable, and is a `Maybe` after the loop (variables.py).
        A loop that surely runs once (`runs`) tracks only the names it may read before they are defined.

        * undefined before the loop (or a `Maybe` already): the flag says whether it is defined, and reads
          are checked (fallback None: undefined);
        * written first by the body but defined before: the loop carries the old value when it has the
          loop's dtype and shape (cast losslessly, from a Python number), so a zero-trip loop leaves it, as
          Python does; at the cell's top level the flag gives the notebook the old value's exact type. A
          value of another type or shape cannot be carried: reads after the loop are refused;
        * a Python number carried with another dtype (`s = 0`, then `s += 0.5`): top level only, for its type.
        """
        tracked = {}
        for k, v in enumerate(old):
            if isinstance(v, Maybe):
                initial[k] = v.value
            if runs and (k in first or not isinstance(v, (Undefined, Maybe))):
                continue
            if isinstance(v, Maybe):
                tracked[k] = (v.defined, False, None)
            elif isinstance(v, Undefined):
                tracked[k] = (cfnb.constant(False), False, None)
            elif k in fresh:
                carried = self._carry_old(v, probed[k])
                if carried is not None:
                    initial[k] = carried
                    if self.depth == 0:
                        tracked[k] = (cfnb.constant(False), True, v)
                else:
                    tracked[k] = (cfnb.constant(False), False, v)
            elif self.depth == 0 and is_python_number(v) and isinstance(initial[k], cfnb.Tensor) and \
                    isinstance(entered[k], cfnb.Tensor) and initial[k].dtype != entered[k].dtype:
                tracked[k] = (cfnb.constant(False), True, v)
        return tracked

    def _carry_old(self, v, out):
        """The old value of a name the body writes first, as the loop's initial value: same shape, and
        the body's dtype or one it takes without loss (None: it cannot enter the loop)."""
        out = out.value if isinstance(out, Maybe) else out
        if not _carriable(v) or isinstance(v, (list, tuple, Accumulator)) or not isinstance(out, cfnb.Tensor):
            return None
        t = self.value(v)
        if not isinstance(t, cfnb.Tensor) or t.shape.as_list() != out.shape.as_list():
            return None
        if t.dtype != out.dtype and not _lossless(t.dtype, out.dtype, is_python_number(v)):
            return None
        carried = cfnb.identity(cfnb.cast(t, out.dtype) if t.dtype != out.dtype else t)
        self.python_ops.add(carried.op)  # its type after the loop is the body's (values.py)
        return dtype_rules.mark_weak(carried) if dtype_rules.is_weak(out) else carried

    def _initial_values(self, body_fn, values, undefined, lists, names, line, weak):
        """Trace the body once, in a scratch graph, to learn the dtype and shape of names it assigns
        for the first time (they enter the loop as zeros of that dtype and shape) and of the items
        it appends to lists (which become TensorArrays); and which Python numbers stay Python numbers
        through the body (weak: `s = 0` then `s += x` of a float32 x is a numpy float32, and s enters the
        loop as a float32). Traced again until that is settled (a name is weak only while every name it
        is computed from is). Returns (initial values, weak flags, what the trace made of each name)."""
        values, weak = list(values), list(weak)
        for _ in range(len(values) + 1):
            try:
                outs = self._probe(body_fn, values, weak)
            except UndefinedRead as e:
                raise CellError(line, f"{e}: give it a value before the loop") from None
            outs = [o.value if isinstance(o, Maybe) else o for o in outs]
            settled = [is_weak(out) if isinstance(values[k], Undefined) else weak[k] and is_weak(out)
                       for k, out in enumerate(outs)]
            for k, out in enumerate(outs):
                if weak[k] and isinstance(out, cfnb.Tensor) and isinstance(values[k], cfnb.Tensor) \
                        and out.dtype != values[k].dtype \
                        and out.dtype.is_numeric and values[k].dtype.is_numeric:
                    values[k] = cfnb.cast(values[k], out.dtype)  # the Python number takes the body's dtype
                    settled = None  # trace again with it
            if settled is not None and settled == weak:
                break
            weak = settled if settled is not None else weak
        initial = list(values)
        for k in undefined:
            out = outs[k]
            if isinstance(out, Undefined):
                raise CellError(line, f"'{out.name}' is not assigned on every path through the loop body")
            if isinstance(out, list):
                raise CellError(line, f"'{values[k].name}' is a list first made inside the loop: make it before "
                                      f"the loop (`{values[k].name} = []`)")
            out = self.value(out) if not isinstance(out, cfnb.Tensor) else out
            if isinstance(out, cfnb.Tensor) and not out.shape.is_fully_defined():
                raise CellError(line, f"'{values[k].name}' is first assigned inside the loop with a shape known only "
                                      f"at run time: give it a value before the loop")
            outs[k] = out
            initial[k] = cfnb.zeros(out.shape.as_list(), out.dtype)
        for k in lists:
            initial[k] = accumulator_for(self, values[k], outs[k], names[k], line)
        return initial, weak, outs

    # --- effects (print) ---------------------------------------------------------------------
    def _effect(self, op):
        """Order `op` after the scope's previous effect, and record it."""
        scope = self.effects[-1]
        if scope:
            op._add_control_input(scope[-1])
        elif self.depth == 0 and self.top_effects:
            op._add_control_input(self.top_effects[-1])
        scope.append(op)
        if len(self.effects) == 1:
            self.top_effects.append(op)

    def _effect_done(self, op):
        """A loop or cond whose functions print: it is an effect of the enclosing scope."""
        if op is not None:
            self._effect(op)

    @staticmethod
    def _tie(outs, last):
        """Outputs that wait for `last`: a function's prints run before it returns (TensorFlow's
        automatic control dependencies)."""
        tied = []
        with cfnb.control_dependencies([last]):
            for o in outs:
                tied.append(cfnb.identity(o) if isinstance(o, cfnb.Tensor) else o)
        return tied

    @staticmethod
    def _done(last):
        with cfnb.control_dependencies([last]):
            return cfnb.constant(True)


def _raised_in_cell(error, line):
    """Was `error` raised by the cell's code on another line than `line` (inside a loop body)?"""
    import traceback
    cell_lines = [n for frame, n in traceback.walk_tb(error.__traceback__)
                  if frame.f_code.co_name.startswith("__body") or frame.f_code.co_name.startswith("__cond")]
    return bool(cell_lines) and cell_lines[-1] != line


def _entering(v, line):
    """A value entering a loop or a cond: a number whose Python type only the notebook needs enters as its
    value; one whose old value a graph cannot hold with it is refused (variables.ld says why)."""
    if isinstance(v, Maybe) and (v.readable or not isinstance(v.fallback, Undefined)):
        return _defined_part(v, line)
    return v


def _defined_part(v, line):
    """What a loop or a cond carries for `v` (a `Maybe`'s flag travels beside it)."""
    if not isinstance(v, Maybe):
        return v
    if v.readable or isinstance(v.fallback, Undefined):
        return v.value
    raise CellError(line, f"'{v.name}' holds {describe(v.fallback)} before the loop at line {v.line} and "
                          f"{describe(v.value)} after it when the loop runs: a graph value has one type and shape, "
                          f"so it cannot go on into this {'loop' if line else 'code'}. Give '{v.name}' a value of "
                          f"the loop's type before the loop at line {v.line}, or use another name in that loop")


def _lossless(src, dst, python_number):
    """Can a value of dtype `src` be carried as `dst` without changing it? numpy's safe casts (bool ->
    int, int32 -> int64, float32 -> float64), and a Python int -> float64."""
    if not dst.is_numeric or not (src.is_numeric or src.is_bool):
        return False
    return np.can_cast(src.as_numpy_dtype, dst.as_numpy_dtype, casting="safe") or \
        python_number and src.is_integer and dst.is_floating


def _carriable(v):
    return isinstance(v, (cfnb.Tensor, Undefined, Accumulator, list, tuple, bool, int, float, np.ndarray,
                          np.generic)) or hasattr(v, "_flow_for_control_flow")


def _placeholder_like(v, weak=False):
    if isinstance(v, Maybe):
        return Maybe(v.name, _placeholder_like(v.value, weak), cfnb.placeholder(cfnb.bool, []), v.fallback)
    if isinstance(v, Undefined) or isinstance(v, list):
        return v
    if isinstance(v, Accumulator):
        return v.probe_list()
    if not isinstance(v, cfnb.Tensor):
        return v
    ph = cfnb.placeholder(v.dtype, v.shape)
    return dtype_rules.mark_weak(ph) if weak else ph


def _traced(fn, values):
    """Call a branch/body function; reading an undefined name becomes a clear error."""
    try:
        return fn(*values)
    except (TypeError, AttributeError) as e:
        if isinstance(e, CellError):
            raise
        for v in values:
            if isinstance(v, Undefined) and f"'{v.name}'" in str(e):
                raise UndefinedRead(f"'{v.name}' is used before it is given a value") from None
        if "Undefined" in str(e):
            name = next((v.name for v in values if isinstance(v, Undefined)), "?")
            raise UndefinedRead(f"'{name}' is used before it is given a value") from None
        raise


def _name_loop_vars(message, names):
    """TensorFlow's messages name a loop variable by its tensor; the cell knows it by its name."""
    import re
    visible = list(names)
    message = re.sub(r"Loop var \S+ \(loop variable #(\d+)\)", lambda m: f"'{_visible(visible, m)}'", message)
    message = re.sub(r"Input tensor '[^']+' \(loop variable #(\d+)\)", lambda m: f"'{_visible(visible, m)}'",
                     message)
    message = re.sub(r"<dtype: '(\w+)'>", r"\1", message)
    return message.replace("add a cfnb.cast in the body", "use .astype(...) in the body to keep it")


def _visible(names, match):
    k = int(match.group(1))
    name = names[k] if k < len(names) else f"#{k}"
    return name


def _short(error):
    text = str(error)
    return text.split("\n\nFirst structure")[0]


__all__ = ["Runtime", "Undefined", "tensors_in"]
