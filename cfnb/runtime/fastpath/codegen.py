"""The static schedule's code generator: one Python function per while frame (see schedule.py).

Each node becomes one line of the frame's function (or none: identities are read through), in an
order that respects the frame's edges; a node whose input may be dead gets a test that makes it
dead without running its kernel. Kernels that are Python operators on numpy scalars are written
inline (inline_kernels.py), well-formed conds become an `if`/`else` (cond_to_if.py), and element-wise
ops whose input dies with them may write into it (buffer_forwarding.py). A line that calls a kernel
ends with `# @<node id>`, which is how a failure is located: nothing is recorded while all goes well.
"""
import numpy as np

from ...framework import errors
from ...framework.topological_order import topological_order
from ...ops import int_overflow
from ..graph_compiler import ENTER, EXIT, FEED, MERGE, NEXT, NORMAL, RETVAL, ROOT, SWITCH, TRIGGER
from . import buffer_forwarding, cond_to_if, inline_kernels
from .loop_form import NotStatic, analyse_loop


class _Dead:
    __slots__ = ()

    def __repr__(self):
        return "DEAD"


DEAD = _Dead()
LIVE = True
_ALIAS_TYPES = cond_to_if.ALIAS_TYPES


class Codegen:
    def __init__(self, exe):
        self.exe = exe
        self.items = exe.items
        self.consumers = [[] for _ in exe.items]      # (dst_id, slot) for data
        self.control_consumers = [[] for _ in exe.items]
        for item in exe.items:
            for slot, (src, port) in enumerate(item.in_edges):
                self.consumers[src].append((item.id, slot, port))
            for src in item.control_in:
                self.control_consumers[src].append(item.id)
        self.enters_of = {}
        for item in exe.items:
            if not item.reachable:
                raise NotStatic("unreachable node")
            if item.kind == ENTER:
                self.enters_of.setdefault(item.frame_name, []).append(item)
        self.children_of = {}
        for name, info in exe.frames.items():
            if name != ROOT:
                self.children_of.setdefault(info.parent_name, []).append(name)
        self.namespace = {"DEAD": DEAD, "LIVE": LIVE, "np": np, "_iters": [], "_frames": [],
                          "_stuck": _stuck, "_pred_error": _pred_error, "_python_int_nodes": {}, "_cancelled": None}
        self.lines = []
        self.maybe_dead = {}     # (node_id, port) -> bool
        self.ref = {}            # (node_id, port) -> expression
        self.frame_fn = {}
        self.forward_sites = {}  # kernel name -> (ufunc, input refs, node name): ops that may forward an input
        self.forwarded = {}      # node name -> indices of the inputs whose buffer it may reuse
        self.frame_index = {name: k for k, name in enumerate(sorted(exe.frames))}

    # --- helpers ------------------------------------------------------------------------
    def emit(self, indent, line):
        self.lines.append("    " * indent + line)

    def set_ref(self, node_id, port, expr, dead):
        self.ref[(node_id, port)] = expr
        self.maybe_dead[(node_id, port)] = dead

    def input_refs(self, item):
        refs = [self.ref[(src, port)] for src, port in item.in_edges]
        dead = [self.maybe_dead[(src, port)] for src, port in item.in_edges]
        return refs, dead

    def liveness_ref(self, node_id):
        """The expression that is DEAD iff the node was dead (for control edges)."""
        return self.ref[(node_id, "live")], self.maybe_dead[(node_id, "live")]

    def dead_test(self, item):
        refs, dead = self.input_refs(item)
        tests = [f"{r} is DEAD" for r, d in zip(refs, dead) if d]
        for src in item.control_in:
            r, d = self.liveness_ref(src)
            if d:
                tests.append(f"{r} is DEAD")
        return refs, " or ".join(dict.fromkeys(tests))

    # --- frame analysis -------------------------------------------------------------------
    def exits_of(self, name):
        return [it for it in self.exe.frames[name].nodes if it.kind == EXIT]

    def units_of(self, name):
        """The frame's schedulable units: its own nodes and one unit per child frame, and the unit
        owning each node id (a child frame's unit owns its Exits, the values it hands out)."""
        info = self.exe.frames[name]
        units = {}
        owner = {}
        for it in info.nodes:
            if it.kind == ENTER:
                key = ("frame", it.frame_name)
            else:
                key = ("node", it.id)
            units.setdefault(key, []).append(it)
            owner[it.id] = key
        for child in self.children_of.get(name, []):
            for ex in self.exits_of(child):
                owner[ex.id] = ("frame", child)
        return units, owner

    def fold_conds(self, units, owner, structural):
        """Make each well-formed cond among the units one unit of its own (cond_to_if.py)."""
        nodes = [it for key, members in units.items() if key[0] == "node" for it in members]
        for cond in cond_to_if.find_conds(self, nodes, structural):
            members = cond.members()
            if not members <= owner.keys():
                continue
            key = ("cond", len(self.conds))
            self.conds[key] = cond
            for nid in members:
                old = owner[nid]
                if old in units:
                    units[key] = units.get(key, []) + units.pop(old)
            for nid in list(owner):
                if owner[nid] in units or owner[nid] == key:
                    continue
                owner[nid] = key  # a nested loop's Exits: their unit went into the cond
            for nid in members:
                owner[nid] = key

    def unit_deps(self, key, members, owner):
        """Units (of the same frame) that `key` depends on, through data and control edges."""
        deps = set()
        for it in members:
            for s in [s for s, _ in it.in_edges] + list(it.control_in):
                if s in owner and owner[s] != key:
                    deps.add(owner[s])
        return deps

    def toposort(self, keys, deps):
        """`keys` ordered after their `deps` (ties in the given order), by the framework's topological order."""
        order, unordered = topological_order(keys, lambda k: deps.get(k, ()))
        if unordered:
            raise NotStatic("cycle within one iteration")
        return order

    # --- emitting -------------------------------------------------------------------------
    def emit_unit(self, key, members, indent, defaults):
        if key[0] == "cond":
            cond_to_if.emit_cond(self, self.conds[key], indent, defaults)
            return
        if key[0] == "frame":
            self.emit_child_call(key[1], members, indent)
            return
        (item,) = members
        self.emit_node(item, indent, defaults)

    def emit_child_call(self, child, enters, indent):
        args = []
        any_dead = False
        for e in enters:
            src, port = e.in_edges[0]
            args.append(self.ref[(src, port)])
            any_dead = any_dead or self.maybe_dead[(src, port)]
            for c in e.control_in:
                r, d = self.liveness_ref(c)
                any_dead = any_dead or d
                # A control input on an Enter that is dead makes the Enter dead.
                if d:
                    args[-1] = f"(DEAD if {r} is DEAD else {args[-1]})"
        # The frame function returns dead Exits when any input is dead: right for a loop in an untaken branch
        # (its loop variables die with the rest), wrong when only a loop invariant may die while a loop variable
        # is surely live (TensorFlow's graph of tf.hessians through a cond): then only that invariant's
        # consumers die, which the executor does token by token.
        loop_var = [any(self.items[d].kind == MERGE for d, _s, _p in self.consumers[e.id]) for e in enters]
        surely_live = [not self.maybe_dead[e.in_edges[0]] for e in enters]
        if any(lv and live for lv, live in zip(loop_var, surely_live)) and \
                any(not lv and not live for lv, live in zip(loop_var, surely_live)):
            raise NotStatic(f"frame {child}: a loop invariant may be dead while a loop variable is live")
        exits = [it for it in self.exe.frames[child].nodes if it.kind == EXIT]
        fn = self.frame_fn[child]
        outs = [f"x{ex.id}" for ex in exits]
        target = (", ".join(outs) + ("," if len(outs) == 1 else "")) if outs else "_"
        self.emit(indent, f"{target} = {fn}({', '.join(args)})")
        child_dead = any_dead or self.child_pred_dead[child]
        for ex in exits:
            self.set_ref(ex.id, 0, f"x{ex.id}", child_dead)
            self.set_ref(ex.id, "live", f"x{ex.id}", child_dead)

    def emit_node(self, item, indent, defaults):
        op = item.op
        kind = item.kind
        nid = item.id
        if kind == FEED:
            self.emit(indent, f"v{nid} = feeds[{item.feed_index}]")
            self.set_ref(nid, 0, f"v{nid}", False)
            self.set_ref(nid, "live", f"v{nid}", False)
            return
        if kind == RETVAL:
            src, port = item.in_edges[0]
            self.retvals[item.retval_index] = self.ref[(src, port)]
            return
        if kind == TRIGGER:
            self.set_ref(nid, "live", "LIVE", False)
            return
        refs, test = self.dead_test(item)
        # A control input that can never be dead orders nothing here (the schedule is already in order): the
        # inliner's Identities under an input_control_node (passes/lowering.py) cost no line.
        controls_live = not any(self.liveness_ref(src)[1] for src in item.control_in)
        if kind in (NEXT, EXIT) or (kind == NORMAL and op.type in _ALIAS_TYPES and controls_live):
            # Identities: no code, consumers read the input directly.
            src, port = item.in_edges[0]
            self.set_ref(nid, 0, refs[0], self.maybe_dead[(src, port)])
            self.set_ref(nid, "live", refs[0], self.maybe_dead[(src, port)])
            return
        if kind == NORMAL and op.type == "NoOp":
            # Nothing to compute: only its liveness, which control edges read (a NoOp is dead iff an input is).
            if test:
                self.emit(indent, f"l{nid} = DEAD if {test} else LIVE")
            self.set_ref(nid, "live", f"l{nid}" if test else "LIVE", bool(test))
            return
        if kind == NORMAL and op.type == "Const" and not test:
            defaults[f"c{nid}"] = op.get_attr("value")
            self.set_ref(nid, 0, f"c{nid}", False)
            self.set_ref(nid, "live", f"c{nid}", False)
            return
        if kind == SWITCH:
            self.emit(indent, f"_p = {refs[1]}")
            if op._inputs[1].shape.ndims != 0:  # TensorFlow's SwitchOp refuses a non-scalar predicate
                self.emit(indent, f"if _p is not DEAD and np.ndim(_p) != 0: _pred_error(_p)  # @{nid}")
            if test:
                self.emit(indent, f"if {test}:")
                self.emit(indent + 1, f"v{nid}_0 = v{nid}_1 = DEAD")
                self.emit(indent, "elif _p:")
            else:
                self.emit(indent, "if _p:")
            self.emit(indent + 1, f"v{nid}_0, v{nid}_1 = DEAD, {refs[0]}")
            self.emit(indent, "else:")
            self.emit(indent + 1, f"v{nid}_0, v{nid}_1 = {refs[0]}, DEAD")
            self.set_ref(nid, 0, f"v{nid}_0", True)
            self.set_ref(nid, 1, f"v{nid}_1", True)
            self.set_ref(nid, "live", refs[0], self.maybe_dead[item.in_edges[0]])
            return
        if kind == MERGE and len(refs) == 2 and not any(port == 1 for _, _, port in self.consumers[nid]):
            # A cond's two-way Merge whose value_index nobody reads: the first live input, inline.
            self.emit(indent, f"v{nid}_0 = {refs[0]} if {refs[0]} is not DEAD else {refs[1]}")
            all_dead = all(self.maybe_dead[e] for e in item.in_edges)
            self.set_ref(nid, 0, f"v{nid}_0", all_dead)
            self.set_ref(nid, "live", f"v{nid}_0", all_dead)
            return
        if kind == MERGE:
            # The first live input wins, as the first live edge does in TensorFlow's executor.
            self.emit(indent, f"_live = [_k for _k, _v in enumerate(({', '.join(refs)},)) if _v is not DEAD]")
            self.emit(indent, f"v{nid}_0 = ({', '.join(refs)},)[_live[0]] if _live else DEAD")
            self.emit(indent, f"v{nid}_1 = np.int32(_live[0]) if _live else DEAD")
            all_dead = all(self.maybe_dead[e] for e in item.in_edges) and bool(item.in_edges)
            self.set_ref(nid, 0, f"v{nid}_0", all_dead)
            self.set_ref(nid, 1, f"v{nid}_1", all_dead)
            self.set_ref(nid, "live", f"v{nid}_0", all_dead)
            return
        if kind == NORMAL and op.type == "Const":
            defaults[f"c{nid}"] = op.get_attr("value")
            self.emit(indent, f"v{nid} = DEAD if {test} else c{nid}")
            self.set_ref(nid, 0, f"v{nid}", True)
            self.set_ref(nid, "live", f"v{nid}", True)
            return
        if kind == NORMAL and op.type in _ALIAS_TYPES:
            self.emit(indent, f"v{nid} = DEAD if {test} else {refs[0]}" if test else f"v{nid} = {refs[0]}")
            self.set_ref(nid, 0, f"v{nid}", bool(test))
            self.set_ref(nid, "live", f"v{nid}", bool(test))
            return
        if kind != NORMAL:
            raise NotStatic(f"node kind of {item.name}")
        # An ordinary kernel call.
        defaults[f"k{nid}"] = item.kernel
        if getattr(item.kernel, "unchecked", None) is not None and op.type in int_overflow.SCALAR_REPORTED:
            # Python-int arithmetic: numpy reports the overflow (overflow_call), so the plain kernel runs.
            defaults[f"k{nid}"] = item.kernel.unchecked
            self.namespace["_python_int_nodes"][nid] = (op.type, tuple(refs))
        ufunc = buffer_forwarding.UFUNCS.get(op.type)
        # A rank-0 result is a numpy scalar, never a buffer: not worth a run-time check.
        if (ufunc is not None and len(refs) == 2 and item.num_outputs == 1 and not item.multi_output
                and op.outputs[0].shape.ndims != 0):
            self.forward_sites[f"k{nid}"] = (ufunc, refs, item.name)
        call = f"k{nid}({', '.join(refs)})"
        if f"k{nid}" not in self.forward_sites and item.num_outputs == 1 and not item.multi_output:
            constants = {r: defaults[r] for r in refs if r.startswith("c") and r in defaults}
            call = inline_kernels.inline_expression(item, refs, f"k{nid}", constants, defaults) or call
        n_out = item.num_outputs
        if item.multi_output:
            targets = [f"v{nid}_{p}" for p in range(n_out)]
            assign = (", ".join(targets) + ("," if n_out == 1 else "")) if n_out else "_"
        else:
            targets = [f"v{nid}"] if n_out else []
            assign = targets[0] if n_out else "_"
        live_var = f"v{nid}" if not item.multi_output and n_out else f"l{nid}"
        if test:
            self.emit(indent, f"if {test}:")
            self.emit(indent + 1, " = ".join(targets + ([live_var] if live_var not in targets else [])) + " = DEAD")
            self.emit(indent, "else:")
            body_indent = indent + 1
        else:
            body_indent = indent
        self.emit(body_indent, f"{assign} = {call}  # @{nid}")
        if live_var not in targets:
            self.emit(body_indent, f"{live_var} = LIVE")
        switch_n = op.type == "_SwitchN"  # an N-way Switch: its kernel leaves the untaken outputs empty
        for t in targets if switch_n else ():
            self.emit(body_indent, f"{t} = DEAD if {t} is None else {t}")
        for p, t in enumerate(targets):
            self.set_ref(nid, p, t, bool(test) or switch_n)
        self.set_ref(nid, "live", live_var, bool(test))

    # --- frames ---------------------------------------------------------------------------
    def emit_frame(self, name):
        """Emit the function for frame `name` (children first); with its conds compiled as `if`/`else`
        when the frame's order allows, else with the general rule for them."""
        for child in sorted(self.children_of.get(name, [])):
            self.emit_frame(child)
        start = len(self.lines)
        try:
            self.emit_own_frame(name, True)
        except NotStatic:
            del self.lines[start:]
            self.emit_own_frame(name, False)

    def emit_own_frame(self, name, with_conds):
        self.with_conds = with_conds
        units, owner = self.units_of(name)
        defaults = {}
        fn = f"frame_{self.frame_index[name]}"
        self.frame_fn[name] = fn
        if name == ROOT:
            self.retvals = [None] * len(self.exe.fetch_names)
            body = []
            start = len(self.lines)
            if self.with_conds:
                self.fold_conds(units, owner, set())
            keys = list(units)
            deps = {k: self.unit_deps(k, units[k], owner) for k in keys}
            for key in self.toposort(keys, deps):
                self.emit_unit(key, units[key], 1, defaults)
            body = self.lines[start:]
            del self.lines[start:]
            returns = "".join(r + ", " for r in self.retvals)
            self.emit_def("run_root", ["feeds"], defaults, body + [f"    return ({returns})"])
            return
        enters = self.enters_of[name]
        pivot, merges, switches, exits = analyse_loop(self.exe, self.consumers, self.control_consumers, name)
        for e in enters:
            self.set_ref(e.id, 0, f"p{e.id}", False)
            self.set_ref(e.id, "live", f"p{e.id}", False)
        merge_of_switch = {sw.id: sw.in_edges[0][0] for sw in switches}
        for m in merges:
            self.set_ref(m.id, 0, f"m{m.id}", False)
            self.set_ref(m.id, "live", f"m{m.id}", False)
        for sw in switches:
            self.set_ref(sw.id, 1, f"m{merge_of_switch[sw.id]}", False)
            self.set_ref(sw.id, "live", f"m{merge_of_switch[sw.id]}", False)
        # Units downstream of the loop Switches' true side form the body.
        switch_ids = {sw.id for sw in switches}
        structural = switch_ids | {m.id for m in merges} | {ex.id for ex in exits}
        if self.with_conds:
            self.fold_conds(units, owner, structural)
        body_units = set()
        frontier = [dst for sw in switches for dst, _slot, port in self.consumers[sw.id] if port == 1]
        while frontier:
            nid = frontier.pop()
            if nid not in owner or nid in structural:
                continue
            key = owner[nid]
            if key in body_units:
                continue
            body_units.add(key)
            for it in units[key]:
                if it.kind == ENTER:  # a nested loop: what reads its Exits
                    for ex in self.exits_of(it.frame_name):
                        frontier.extend(d for d, _s, _p in self.consumers[ex.id])
                        frontier.extend(self.control_consumers[ex.id])
                    continue
                frontier.extend(d for d, _s, _p in self.consumers[it.id] if self.items[d].kind != MERGE
                                or it.kind != NEXT)
                frontier.extend(self.control_consumers[it.id])
        keys = [k for k in units if not (k[0] == "node" and k[1] in structural)]
        deps = {k: self.unit_deps(k, units[k], owner) for k in keys}
        for k in keys:
            deps[k] = {d for d in deps[k] if not (d[0] == "node" and d[1] in structural)}
        pre_keys = [k for k in keys if k not in body_units]
        body_keys = [k for k in keys if k in body_units]
        for k in pre_keys:
            if deps[k] & body_units:
                raise NotStatic("the loop condition depends on the body within one iteration")
        pre_order = self.toposort(pre_keys, deps)
        body_order = self.toposort(body_keys, {k: deps[k] - set(pre_keys) for k in body_keys})
        slot = len(self.lines)
        for key in pre_order:
            self.emit_unit(key, units[key], 2, defaults)
        pre_lines = self.lines[slot:]
        del self.lines[slot:]
        pred_ref, pred_dead = self.ref[(pivot.id, 0)], self.maybe_dead[(pivot.id, 0)]
        self.child_pred_dead[name] = pred_dead
        for key in body_order:
            self.emit_unit(key, units[key], 2, defaults)
        body_lines = self.lines[slot:]
        del self.lines[slot:]
        exit_refs = [f"m{merge_of_switch[ex.in_edges[0][0]]}" for ex in exits]
        next_refs, next_dead = [], []
        for m in merges:
            nxt = self.items[m.in_edges[1][0]]
            src, port = nxt.in_edges[0]
            next_refs.append(self.ref[(src, port)])
            next_dead.append(self.maybe_dead[(src, port)])
        params = [f"p{e.id}" for e in enters]
        ret_dead = "(" + "DEAD, " * len(exits) + ")"
        code = []
        if params:
            code.append(f"    if {' or '.join(p + ' is DEAD' for p in params)}:")
            code.append(f"        return {ret_dead}")
        for m in merges:
            code.append(f"    m{m.id} = p{m.in_edges[0][0]}")
        code.append("    _iters.append(0)")
        code.append(f"    _frames.append({name!r})")
        code.append("    while True:")
        code.extend(pre_lines)
        if pred_dead:
            code.append(f"        if {pred_ref} is DEAD:")
            code.append("            _iters.pop()")
            code.append("            _frames.pop()")
            code.append(f"            return {ret_dead}")
        if pivot.op._inputs[0].shape.ndims != 0:
            code.append(f"        if np.ndim({pred_ref}) != 0: _pred_error({pred_ref})  # @{pivot.id}")
        code.append(f"        if not {pred_ref}:")
        code.append("            _iters.pop()")
        code.append("            _frames.pop()")
        code.append(f"            return ({''.join(r + ', ' for r in exit_refs)})")
        code.extend(body_lines)
        for m, r, d in zip(merges, next_refs, next_dead):
            if d:
                code.append(f"        if {r} is DEAD:")
                code.append(f"            _stuck()  # @{m.in_edges[1][0]}")
        if merges:
            code.append(f"        {', '.join(f'm{m.id}' for m in merges)}, = {', '.join(next_refs)},")
        code.append("        _iters[-1] += 1")
        code.append("        if _cancelled: _cancelled.check()  # Session.close() (schedule.py)")
        self.emit_def(fn, params, defaults, code)

    def emit_def(self, fn, params, defaults, body):
        body = buffer_forwarding.forward_dead_inputs(body, defaults, self.forward_sites, self.forwarded)
        names = sorted(defaults)
        for n in names:
            self.namespace[f"{fn}__{n}"] = defaults[n]
        sig = ", ".join(params + [f"{n}={fn}__{n}" for n in names])
        self.lines.append(f"def {fn}({sig}):")
        self.lines.extend(body)
        self.lines.append("")

    def build(self):
        """(source, namespace it runs in, forwarded ops) of the whole schedule."""
        self.child_pred_dead = {}
        self.conds = {}
        self.emit_frame(ROOT)
        return "\n".join(self.lines), self.namespace, self.forwarded


def _stuck():
    raise errors.InternalError(None, None, "A loop's NextIteration was dead while its predicate was true: the next "
                                           "iteration could never start.")


def _pred_error(p):
    """TensorFlow's SwitchOp check: a predicate must be a scalar (reported at the Switch or LoopCond,
    whose id the calling line carries)."""
    raise errors.InvalidArgumentError(None, None, f"The second input must be a scalar, but it has shape "
                                                  f"{list(np.shape(p))}")
