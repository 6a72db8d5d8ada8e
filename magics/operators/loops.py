"""`while` as a graph loop (AutoGraph's `while_stmt`; converters/while_loops.py makes the call).

The body is traced once in a scratch graph (probing.py) to learn what each loop variable becomes: the dtype
and shape of a name first assigned in the loop, whether a Python number stays one (weak, as numpy's NEP 50),
what a list grows by (a TensorArray). Then `cfnb.while_loop` builds the loop with control flow v2; the
lowered form is rebuilt from it (cfnb/passes/to_v1.py). Whether the loop surely runs, and which names may be
undefined after it, decides which names carry a "defined" flag (variables.Maybe).
"""
from typing import NamedTuple

import numpy as np

import cfnb
from cfnb.framework import dtype_rules
from cfnb.framework.func_graph import FuncGraph

from ..errors import CellError
from .accumulators import Accumulator, flows_in
from .dict_items import DictItems
from .effects import effect_done, tie
from .iteration import ParallelIteration, RangeIteration
from .lists import accumulator_for
from .logical import is_python_number, is_weak, truth
from .names import display_name, flat_names, name_inputs, new_op
from .objects import check_same_sharing, latest, shared_groups
from .probing import probe, traced
from .tensors import value
from .variables import Maybe, Undefined, UndefinedRead, describe


class LoopInfo(NamedTuple):
    """What messages say about one loop of the cell (errors at run time, the live line): iterations count from 0,
    and a `for` over a range also names its counter's value: "iteration 3 (i = 3) of the loop at line 2 (`for i`)"
    (the explorer's traces and captions count the same way)."""

    line: int
    label: str | None
    counter: tuple | None  # (name, start, step): the counter's value in iteration n is start + n * step

    def iteration(self, n):
        if self.counter is None:
            return f"iteration {n:,}"
        name, start, step = self.counter
        return f"iteration {n:,} ({name} = {start + n * step})"

    def name(self):
        return f"the loop at line {self.line}" + (f" (`for {self.label}`)" if self.label else "")


def _loop_info(iteration, line):
    if iteration is None:
        return LoopInfo(line, None, None)
    walk = iteration.parts[0] if isinstance(iteration, ParallelIteration) else iteration
    name = iteration.label.split(",")[0].strip("() ")
    counter = (name, walk.start, walk.step) if isinstance(walk, RangeIteration) and \
        all(isinstance(v, int) for v in (walk.start, walk.step)) and name.isidentifier() else None
    return LoopInfo(line, iteration.label, counter)


def while_stmt(cell, cond_fn, body_fn, values, names, iteration, written_first, line):
    """`while cond_fn(*values): values = body_fn(*values)` as a while_loop; returns the names' values after it.
    `iteration` is what a `for` walks (iteration.py), None for a `while`."""
    if iteration is not None and iteration.unrolled:
        return _unrolled(cell, cond_fn, body_fn, values, iteration, line)
    if cell.probing:
        return traced(body_fn, [latest(cell, v) for v in values])
    label = iteration.label if iteration is not None else None
    old = [_entering(v, line) for v in values]
    shared = shared_groups(cell, old, names)  # names that share an array, a list or a dict (objects.py)
    old = [latest(cell, v) for v in old]
    items = DictItems(old, names, written_first, line)  # a dict's items are loop variables of their own
    old, names, written_first = items.values, items.flat_names, items.written_first
    cond_fn, body_fn = items.cond(cond_fn), items.body(body_fn)
    loop, initial, runs = _plan(cell, cond_fn, body_fn, old, names, written_first, line)
    loop.shared, loop.runs = shared, runs
    options = cell.options
    graph = cfnb.get_default_graph()
    seen = len(graph._ops)
    cell.depth += 1
    try:
        result = cfnb.while_loop(loop.cond(cond_fn), loop.body(body_fn), initial,
                                 parallel_iterations=options.parallel_iterations,
                                 maximum_iterations=options.maximum_iterations, swap_memory=options.swap_memory,
                                 return_same_structure=True)
    except UndefinedRead as e:
        raise CellError(line, str(e)) from None
    except (ValueError, TypeError) as e:
        if isinstance(e, CellError) or _raised_in_cell(e, line):
            raise  # the body's own code failed: its line is reported (errors.from_python_error)
        raise CellError(line, _name_loop_vars(_short(e), names)) from None
    finally:
        cell.depth -= 1
    first_out = next(t for t in flows_in(result)).op
    while_op = first_out
    while while_op.type == "Identity":  # while_v2 hands each output on through an Identity
        while_op = while_op.inputs[0].op
    cell.loops[while_op] = _loop_info(iteration, line)
    flags = [f".defined_{display_name(names[k])}" for k in loop.keys]
    name_inputs(new_op(graph, seen, ("While", "StatelessWhile")),
                [n for k, v in enumerate(initial[:len(names)]) for n in flat_names(names[k], v)] + flags)
    if loop.effects or runs is False:
        # The loop's first output stands for it: the While op itself is not fetchable (TensorFlow's while_v2
        # prevents fetching it), and running its output runs the loop (one that never runs is still drawn).
        effect_done(cell, first_out)
    if runs is False:  # its first test is false in Python: every name keeps its value, as in plain Python
        return tuple(values)
    outs = loop.share_after(list(loop.outputs(result)))
    if cell.depth == 0 and options.maximum_iterations is not None:  # stopped with its condition still true
        cell.cut.append((loop.cond(cond_fn)(*result), line, label))
    return items.after(cell, outs)


def _unrolled(cell, cond_fn, body_fn, values, iteration, line):
    """A `for` over a Python iterable, as AutoGraph runs one: in Python while the graph is built, one copy of the
    body per item. Each copy's ops carry `_cfnb_unrolled` ("for W (line 3): item 0 of 2"), for drawings."""
    values = list(values)
    for k in range(iteration.length + 1):
        test = cond_fn(*values)
        if isinstance(test, cfnb.Tensor):
            raise CellError(line, f"a `for {iteration.label}` over a Python list runs once per item while the graph "
                                  f"is built, so it cannot stop on a value the graph computes (a `break` under an `if` "
                                  f"on a loop value): loop over an array or a range instead, or move the `break`'s "
                                  f"test to a `while` loop")
        if not test:
            break
        graph = cfnb.get_default_graph()
        seen = len(graph._ops)
        values = list(body_fn(*values))
        if not cell.probing:
            copy = f"for {iteration.label} (line {line}): item {k} of {iteration.length}"
            for op in graph._ops[seen:]:
                op._set_attr("_cfnb_unrolled", copy)
    return tuple(values)


def _plan(cell, cond_fn, body_fn, old, names, written_first, line):
    """(the _Loop, its initial loop variables, whether it surely runs): what each name enters the loop as."""
    # A name the body writes before it reads it (a `for` target, a temporary) is not live into the
    # loop, and one holding what no loop can carry (a string...) must be rebound by the body: both are
    # traced as if undefined (their old value does not matter to the body).
    values = [v if isinstance(v, (Undefined, Maybe)) else Undefined(names[k])
              if names[k] in written_first or not _carriable(v) else value(cell, v) for k, v in enumerate(old)]
    fresh = [k for k, v in enumerate(values) if isinstance(v, Undefined)]
    lists = [k for k, v in enumerate(values) if isinstance(v, list)]
    # A Python number is weak, as in numpy: `s = 0` then `s += 0.5` in the loop makes s a float, and
    # `v * 0.5 + i` of a float32 v stays float32. It stays weak while the body keeps it a Python number.
    weak = [is_weak(v.value if isinstance(v, Maybe) else v) for v in values]
    entered = list(values)
    outs = None
    if fresh or lists or any(weak):
        values, weak, outs = _initial_values(cell, body_fn, values, fresh, lists, names, line, weak)
    first = {k for k, name in enumerate(names) if name in written_first}
    runs = _runs(cell, cond_fn, old)
    tracked = _track(cell, old, entered, values, outs, fresh, first, runs, weak)
    loop = _Loop(cell, names, line, weak, tracked)
    return loop, list(values) + [tracked[k][0] for k in loop.keys], runs


class _Loop:
    """One loop of the cell as the while_loop sees it: the names' values, then one "defined" flag per tracked
    name (`tracked`: {k: (initial flag, readable, fallback)}, from `_track`)."""

    def __init__(self, cell, names, line, weak, tracked):
        self.cell, self.names, self.line, self.weak, self.tracked = cell, names, line, weak, tracked
        self.keys = sorted(tracked)
        self.n = len(names)
        self.effects = False  # does the body print?
        self.shared = []      # objects shared by names at the loop's start: [(box, positions)]
        self.runs = None      # does the loop surely run once?
        self.ends = {}        # position -> the box its value belongs to at the end of the body

    def marked(self, vs):
        """Python numbers stay weak (their placeholders and outputs say so)."""
        for v, w in zip(vs, self.weak):
            if w and isinstance(v, cfnb.Tensor):
                dtype_rules.mark_weak(v)
        return vs

    def unflat(self, vs):
        """The names' values for the body: a name that may be undefined in this iteration is a Maybe."""
        ins = list(vs[:self.n])
        for j, k in enumerate(self.keys):
            if self.tracked[k][2] is None:  # its reads are checked
                ins[k] = Maybe(self.names[k], vs[k], vs[self.n + j], Undefined(self.names[k]))
        return ins

    def cond(self, cond_fn):
        return lambda *vs: truth(value(self.cell, cond_fn(*self.unflat(self.marked(vs)))))

    def enter(self, ins):
        """Names that share an object at the loop's start share its placeholder: its latest version in the body."""
        for box, positions in self.shared:
            for k in positions[1:]:
                ins[k] = ins[positions[0]]
            self.cell.boxes.add(box, ins[positions[0]])
        return ins

    def leave(self, returned):
        """The names' values at the end of an iteration: the latest version of each object (checked: names that
        shared an object at the start still do; an object changed in the body is still named by one of them)."""
        cell, line = self.cell, self.line
        check_same_sharing(self.shared, returned, cell, self.names, line)
        self.ends = {k: cell.boxes.of(r) for k, r in enumerate(returned) if cell.boxes.of(r) is not None}
        for box, positions in self.shared:
            if box.latest is not self.entered[id(box)] and all(self.ends.get(k) is not box for k in positions):
                raise CellError(line, f"'{self.names[positions[0]]}' is changed in place and then given another "
                                      f"array in the loop body: a graph loop cannot carry the changed array with "
                                      f"no name for it. Change it through the name that keeps it, or copy it first")
        return [latest(cell, r) for r in returned]

    def share_after(self, outs):
        """After the loop, names that share an object in every iteration share one value of it (its latest)."""
        cell = self.cell
        for box, positions in self.shared:
            kept = [k for k in positions if self.ends.get(k) is box]
            for k in kept:
                outs[k] = outs[kept[0]]
            if kept:
                cell.boxes.add(box, _defined_part(outs[kept[0]], self.line))
        inner = {}
        for k, box in self.ends.items():
            if all(box is not b for b, _p in self.shared):
                inner.setdefault(id(box), []).append(k)
        for positions in inner.values():  # an array the body makes, named twice (x = x_new) in a loop that runs
            if self.runs and len(positions) > 1 and not any(isinstance(outs[k], Maybe) for k in positions):
                for k in positions[1:]:
                    outs[k] = outs[positions[0]]
        return tuple(outs)

    def body(self, body_fn):
        def body(*vs):
            cell, line = self.cell, self.line
            self.marked(vs)
            cell.effects.append([])
            snapshot = cell.boxes.snapshot()
            try:
                ins = self.enter(self.unflat(vs))
                self.entered = {id(box): box.latest for box, _p in self.shared}
                returned = self.leave(body_fn(*ins))
            finally:
                cell.boxes.restore(snapshot)
                scope = cell.effects.pop()
            out = [value(cell, _defined_part(v, line)) for v in returned]
            for k, (before, after) in enumerate(zip(vs[:self.n], out)):
                if isinstance(before, Accumulator) != isinstance(after, Accumulator):
                    raise CellError(line, f"'{self.names[k]}' is a list grown with .append in the loop: only "
                                          f".append may change it there")
            out += [returned[k].defined if isinstance(returned[k], Maybe) else cfnb.constant(True)
                    for k in self.keys]
            if scope:
                self.effects = True
                out = tie(out, scope[-1])
            return out
        return body

    def outputs(self, result):
        """The names' values after the loop: a tracked name is a Maybe of its value and flag."""
        outs = self.marked(list(result[:self.n]))
        for j, k in enumerate(self.keys):
            readable, fallback = self.tracked[k][1], self.tracked[k][2]
            fallback = fallback if fallback is not None else Undefined(self.names[k])
            outs[k] = Maybe(self.names[k], outs[k], result[self.n + j], fallback, readable=readable, line=self.line)
        return tuple(outs)


def _runs(cell, cond_fn, old):
    """Does the loop surely run at least once (True), never (False), or is that known only when the
    graph runs (None)? The first test, on the values before the loop, when Python computes it (a `for`
    over range(10) or an array: AutoGraph evaluates a loop's first test too)."""
    cell.probing += 1
    try:
        with FuncGraph("first_test", cfnb.get_default_graph()).as_default():
            test = cond_fn(*old)
    except Exception:  # noqa: BLE001 - it reads a value only the graph has: known at run time
        return None
    finally:
        cell.probing -= 1
    return bool(test) if isinstance(test, (bool, np.bool_)) else None

def _track(cell, old, entered, initial, probed, fresh, first, runs, weak):
    """The names whose value after the loop depends on whether it ran: {k: (initial flag, readable,
    fallback)}. Each gets a boolean loop variable, and is a `Maybe` after the loop (variables.py).
    A loop that surely runs once (`runs`) tracks only the names it may read before they are defined.

    * undefined before the loop (or a `Maybe` already): the flag says whether it is defined, and reads
      are checked (fallback None: undefined);
    * written first by the body but defined before: the loop carries the old value when it has the
      loop's dtype and shape (cast losslessly, from a Python number), so a zero-trip loop leaves it, as
      Python does; at the cell's top level the flag gives the notebook the old value's exact type. A
      value of another type or shape cannot be carried: reads after the loop are refused;
    * a Python number carried with another dtype (`s = 0`, then `s += 0.5`) or that the body makes a numpy
      scalar (`t = 0.0`, then `t += xs[j]`: not `weak` after the body): top level only, for its type.
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
            carried = _carry_old(cell, v, probed[k])
            if carried is not None:
                initial[k] = carried
                if cell.depth == 0:
                    tracked[k] = (cfnb.constant(False), True, v)
            else:
                tracked[k] = (cfnb.constant(False), False, v)
        elif cell.depth == 0 and is_python_number(v) and isinstance(initial[k], cfnb.Tensor) and \
                isinstance(entered[k], cfnb.Tensor) and (initial[k].dtype != entered[k].dtype or not weak[k]):
            tracked[k] = (cfnb.constant(False), True, v)
    return tracked

def _carry_old(cell, v, out):
    """The old value of a name the body writes first, as the loop's initial value: same shape, and
    the body's dtype or one it takes without loss (None: it cannot enter the loop)."""
    out = out.value if isinstance(out, Maybe) else out
    if not _carriable(v) or isinstance(v, (list, tuple, Accumulator)) or not isinstance(out, cfnb.Tensor):
        return None
    t = value(cell, v)
    if not isinstance(t, cfnb.Tensor) or t.shape.as_list() != out.shape.as_list():
        return None
    if t.dtype != out.dtype and not _lossless(t.dtype, out.dtype, is_python_number(v)):
        return None
    carried = cfnb.identity(cfnb.cast(t, out.dtype) if t.dtype != out.dtype else t)
    cell.python_ops.add(carried.op)  # its type after the loop is the body's (values.py)
    return dtype_rules.mark_weak(carried) if dtype_rules.is_weak(out) else carried

def _initial_values(cell, body_fn, values, undefined, lists, names, line, weak):
    """Trace the body once, in a scratch graph, to learn the dtype and shape of names it assigns
    for the first time (they enter the loop as zeros of that dtype and shape) and of the items
    it appends to lists (which become TensorArrays); and which Python numbers stay Python numbers
    through the body (weak: `s = 0` then `s += x` of a float32 x is a numpy float32, and s enters the
    loop as a float32). Traced again until that is settled (a name is weak only while every name it
    is computed from is). Returns (initial values, weak flags, what the trace made of each name)."""
    values, weak = list(values), list(weak)
    for _ in range(len(values) + 1):
        try:
            outs = probe(cell, body_fn, values, weak)
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
        out = value(cell, out) if not isinstance(out, cfnb.Tensor) else out
        if isinstance(out, cfnb.Tensor) and not out.shape.is_fully_defined():
            raise CellError(line, f"'{values[k].name}' is first assigned inside the loop with a shape known only "
                                  f"at run time: give it a value before the loop")
        outs[k] = out
        initial[k] = cfnb.zeros(out.shape.as_list(), out.dtype)
    for k in lists:
        initial[k] = accumulator_for(cell, values[k], outs[k], names[k], line)
    return initial, weak, outs


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
    return isinstance(v, (cfnb.Tensor, Undefined, Accumulator, list, tuple, bool, int, float, str, np.ndarray,
                          np.generic)) or hasattr(v, "_flow_for_control_flow")


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
