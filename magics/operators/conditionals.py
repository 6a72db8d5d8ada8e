"""`if` on a graph value, and `x if c else y`: a `cond` (AutoGraph's `if_stmt` and `if_exp`;
converters/if_statements.py and conditions.py make the calls).

Both branches are traced once in a scratch graph first (probing.py), to learn which names each assigns; then
`cfnb.cond` builds the two branch functions. A name that may be undefined after the branch (a `Maybe`) leaves
the cond with its flag beside it; prints in a branch run in order with the rest of the cell.
"""
import re

import cfnb
from cfnb.framework import dtype_rules

from ..errors import CellError
from .accumulators import Accumulator, flows_in, rebuild_flows
from .effects import done, effect_done, tie
from .logical import is_tensor, is_weak, truth
from .loops import _defined_part, _entering, _short
from .names import display_name, flat_names, name_outputs, new_op
from .objects import latest, shared_groups
from .probing import probe
from .tensors import value
from .variables import Maybe, Undefined, UndefinedRead


def if_stmt(cell, test, then_fn, else_fn, values, names, line):
    """`if test: then_fn(*values) else: else_fn(*values)`: a cond when `test` is a graph value; returns the
    values of `names` after it."""
    if not is_tensor(test):
        return then_fn(*values) if test else else_fn(*values)
    values = [_entering(v, line) for v in values]
    shared_groups(cell, values, [None] * len(values))  # so names outside the `if` see what its branches change
    values = [latest(cell, v) for v in values]
    if cell.probing:
        return _probe_if(cell, then_fn, else_fn, values)
    try:
        then_out, else_out = probe(cell, then_fn, values), probe(cell, else_fn, values)
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
    values = [value(cell, v) for v in values]
    branches = _Branches(cell, values, keep, maybes, line)
    graph = cfnb.get_default_graph()
    seen = len(graph._ops)
    out_names = [n for k in keep for n in flat_names(names[k], values[k]) +
                 ([f".defined_{display_name(names[k])}"] if k in maybes else [])]
    cell.depth += 1
    try:
        outs = cfnb.cond(truth(test), branches.branch(then_fn), branches.branch(else_fn), strict=True)
    except (ValueError, TypeError) as e:
        raise CellError(line, _mismatch(e, out_names) or _short(e)) from None
    finally:
        cell.depth -= 1
    name_outputs(new_op(graph, seen, ("If", "StatelessIf")), out_names or [".printed"])
    if branches.effects:
        op = (outs[0] if outs else None)
        effect_done(cell, op.op if op is not None else None)
    outs = [dtype_rules.mark_weak(t) if w and isinstance(t, cfnb.Tensor) else t
            for t, w in zip(outs, branches.weak or [])]
    result, position = list(then_out), 0
    for k in keep:
        original = values[k] if isinstance(values[k], Accumulator) else then_out[k]
        result[k] = rebuild_flows([original], [outs[position]])[0] if position < len(outs) else original
        if k in maybes:
            name = next(v.name for v in (then_out[k], else_out[k]) if isinstance(v, Maybe))
            result[k] = Maybe(name, result[k], outs[position + 1], Undefined(name))
        position += 2 if k in maybes else 1
    _share_after(cell, result, keep, branches.ends)
    return tuple(result)


_MISMATCH = re.compile(r"Received (\w+) from 'true_fn' and (\w+) from 'false_fn' \(output #(\d+)\)")


def _mismatch(error, out_names):
    """cond's "Outputs of 'true_fn' and 'false_fn' must have the same type(s)" in the cell's words: the name,
    its type in each branch, and what to write instead (None: another error)."""
    found = _MISMATCH.search(str(error))
    if found is None or int(found[3]) >= len(out_names) or out_names[int(found[3])].startswith("."):
        return None
    name, then_type, else_type = out_names[int(found[3])], found[1], found[2]
    return (f"'{name}' is {_kind(then_type)} after the `if` branch and {_kind(else_type)} after the `else` branch: "
            f"a graph value has one type after an `if` on a graph value. Give '{name}' the same type on both paths "
            f"(e.g. a float before the `if`: `{name} = 0.0`, or `float(...)` in the branch)")


def _kind(dtype):
    return "an int" if dtype.startswith("int") else "a float" if dtype.startswith("float") else f"a {dtype}"


class _Branches:
    """The two branch functions of one `if` as cond traces them: the names kept (a Maybe's flag beside it),
    which stay Python numbers in both (weak), the object each name holds at the end, and the prints."""

    def __init__(self, cell, values, keep, maybes, line):
        self.cell, self.values, self.keep, self.maybes, self.line = cell, values, keep, maybes, line
        self.effects, self.weak, self.ends = [], None, []

    def outputs(self, returned):
        cell, outs = self.cell, []
        self.ends.append([cell.boxes.of(r) for r in returned])
        returned = [latest(cell, r) for r in returned]
        for k in self.keep:
            outs.append(value(cell, _defined_part(returned[k], self.line)))
            if k in self.maybes:
                outs.append(returned[k].defined if isinstance(returned[k], Maybe) else cfnb.constant(True))
        here = [is_weak(o) for o in outs]
        self.weak = here if self.weak is None else [w and h for w, h in zip(self.weak, here)]
        return outs

    def branch(self, fn):
        def run():
            cell = self.cell
            cell.effects.append([])
            snapshot = cell.boxes.snapshot()
            try:
                outs = self.outputs(fn(*self.values))
            finally:
                cell.boxes.restore(snapshot)
                scope = cell.effects.pop()
            flat = flows_in(outs)
            if scope:
                self.effects.append(scope)
                flat = tie(flat, scope[-1])
                if not flat:
                    flat = [done(scope[-1])]
            elif self.effects and not flat:
                flat = [cfnb.constant(True)]
            return flat
        return run


def _share_after(cell, result, keep, ends):
    """A name that holds a version of the same object at the end of both branches holds its new version after
    the cond (and names that share it share the one value)."""
    first = {}
    for k in keep:
        box = ends[0][k] if len(ends) == 2 and ends[0][k] is ends[1][k] else None
        if box is None or isinstance(result[k], Maybe):
            continue
        if id(box) in first:
            result[k] = result[first[id(box)]]
        else:
            first[id(box)] = k
            cell.boxes.add(box, result[k])


def _probe_if(cell, then_fn, else_fn, values):
    """While probing: both branches run once, no cond is built; each name takes the first
    defined value (its dtype and shape are all a probe needs)."""
    returned = []
    for fn in (then_fn, else_fn):
        snapshot = cell.boxes.snapshot()
        try:
            returned.append([latest(cell, r) for r in fn(*values)])
        except UndefinedRead as e:  # this branch reads a name not defined yet: what the other one makes
            returned.append(e)
        finally:
            cell.boxes.restore(snapshot)
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
        out.append(value(cell, a) if isinstance(a, (bool, int, float)) else a)
    return tuple(out)


def if_exp(cell, test, then, orelse, line):
    """`then() if test else orelse()`: a cond when `test` is a tensor."""
    if not is_tensor(test):
        return then() if test else orelse()
    weak = []

    def branch(fn):
        def run():
            out = value(cell, fn())
            weak.append(is_weak(out))
            return out
        return run
    out = cfnb.cond(truth(test), branch(then), branch(orelse))
    return dtype_rules.mark_weak(out) if all(weak) and isinstance(out, cfnb.Tensor) else out
