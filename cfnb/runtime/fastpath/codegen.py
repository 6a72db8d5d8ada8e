"""The static schedule's code generator: one Python function per while frame (see schedule.py).

Each node becomes one line of its frame's function (or none: identities are read through), in an order that
respects the frame's edges (frame_graph.py). What a node becomes is decided by one emitter per node kind, chosen
from a table (`EMITTERS`, and `OP_EMITTERS` by op type for the ordinary ops that need one), as TensorFlow picks a
kernel from its registry and tinygrad a rewrite from its pattern table. A node whose input may be dead gets a test
that makes it dead without running its kernel. Kernels that are Python operators on numpy scalars are written
inline (inline_kernels.py), well-formed conds become an `if`/`else` (cond_to_if.py), and element-wise ops whose
input dies with them may write into it (buffer_forwarding.py). A line that calls a kernel ends with `# @<node id>`,
which is how a failure is located: nothing is recorded while all goes well.
"""
import textwrap
from functools import partial

import numpy as np

from ...framework import errors
from ...ops import int_overflow
from .. import slice_update
from ..graph_compiler import ENTER, EXIT, FEED, MERGE, NEXT, NORMAL, RETVAL, ROOT, SWITCH, TRIGGER
from . import buffer_forwarding, cond_to_if, inline_kernels
from .frame_graph import FrameGraph
from .loop_form import NotStatic, analyse_loop

# How wide a `def` line of the generated source may be: printed (`StaticSchedule.source`, chapter 04), it fits a
# notebook's output and the course site's page.
SOURCE_WIDTH = 76


class _Dead:
    __slots__ = ()

    def __repr__(self):
        return "DEAD"


DEAD = _Dead()
LIVE = True


class Codegen:
    """Generates the static schedule of one ExecutableGraph: `build()` -> (source, namespace, forwarded ops).

    While it emits, `ref[(node id, port)]` is the expression that holds that output in the code so far (a
    variable, a constant's name, or an input read through) and `maybe_dead[(node id, port)]` says whether it may
    hold DEAD; port "live" is the expression that is DEAD iff the node was dead, which control edges read."""

    def __init__(self, exe, check=None):
        self.exe = exe
        self.check = check       # called every 1024 nodes emitted: the run's deadline and cancellation
        self.emitted = 0
        self.graph = FrameGraph(exe)
        self.items = exe.items
        self.namespace = {"DEAD": DEAD, "LIVE": LIVE, "np": np, "_iters": [], "_frames": [],
                          "_stuck": _stuck, "_pred_error": _pred_error, "_python_int_nodes": {}, "_cancelled": None}
        self.lines = []
        self.maybe_dead = {}     # (node_id, port) -> bool
        self.ref = {}            # (node_id, port) -> expression
        self.frame_fn = {}       # frame name -> the name of its generated function
        self.frame_index = {name: k for k, name in enumerate(sorted(exe.frames))}
        self.forward_sites = {}  # kernel name -> (ufunc, input refs, node name): ops that may forward an input
        self.forwarded = {}      # node name -> indices of the inputs whose buffer it may reuse
        self.with_conds = True   # compile well-formed conds as if/else (emit_frame retries a frame without)
        self.conds = {}          # unit key -> cond_to_if.Cond
        self.retvals = [None] * len(exe.fetch_names)  # the expression of each fetch
        self.child_pred_dead = {}  # frame name -> whether its loop predicate may be dead

    def build(self):
        """(source, namespace it runs in, forwarded ops) of the whole schedule."""
        self.emit_frame(ROOT)
        return "\n".join(self.lines), self.namespace, self.forwarded

    # --- the code so far: what cond_to_if.py uses ----------------------------------------------
    def emit(self, indent, line):
        """Append one line of generated code at `indent` levels (four spaces each)."""
        self.lines.append("    " * indent + line)

    def set_ref(self, node_id, port, expr, dead):
        """Record the expression that holds output `port` of node `node_id` from here on, and whether it may be DEAD:
        later nodes read it instead of a token."""
        self.ref[(node_id, port)] = expr
        self.maybe_dead[(node_id, port)] = dead

    def value(self, edge):
        """(expression, may it be DEAD) of a (node id, port) edge."""
        return self.ref[edge], self.maybe_dead[edge]

    def emit_nodes(self, node_ids, child_frames, indent, defaults):
        """Emit the nodes `node_ids` (of one frame) and the `child_frames` they enter, in an order their edges
        allow; returns how many lines that took."""
        start = len(self.lines)
        self.emit_units(*self.graph.group([self.items[n] for n in node_ids], child_frames), indent, defaults)
        return len(self.lines) - start

    # --- inputs -------------------------------------------------------------------------------
    def input_refs(self, item):
        """The expressions holding `item`'s inputs, and for each whether it may be dead."""
        refs = [self.ref[(src, port)] for src, port in item.in_edges]
        dead = [self.maybe_dead[(src, port)] for src, port in item.in_edges]
        return refs, dead

    def liveness_ref(self, node_id):
        """The expression that is DEAD iff the node was dead (for control edges)."""
        return self.ref[(node_id, "live")], self.maybe_dead[(node_id, "live")]

    def dead_test(self, item):
        """`item`'s input expressions, and the Python test that is true when one of its data or control inputs is dead
        ("" when none can be): the executor's "a node with a dead input is dead" rule, decided in the generated code
        instead of with tokens."""
        refs, dead = self.input_refs(item)
        tests = [f"{r} is DEAD" for r, d in zip(refs, dead) if d]
        for src in item.control_in:
            r, d = self.liveness_ref(src)
            if d:
                tests.append(f"{r} is DEAD")
        return refs, " or ".join(dict.fromkeys(tests))

    def controls_live(self, item):
        """A control input that can never be dead orders nothing here (the schedule is already in order): the
        inliner's Identities under an input_control_node (passes/lowering.py) cost no line."""
        return not any(self.liveness_ref(src)[1] for src in item.control_in)

    # --- units: nodes, child frames, conds ---------------------------------------------------------
    def emit_units(self, units, owner, indent, defaults):
        """A frame's (or a cond side's) units in an order their edges allow, its well-formed conds folded first."""
        if self.with_conds:
            self.fold_conds(units, owner, set())
        deps = {k: self.graph.unit_deps(k, units[k], owner) for k in units}
        for key in self.graph.toposort(list(units), deps):
            self.emit_unit(key, units[key], indent, defaults)

    def fold_conds(self, units, owner, structural):
        """Make each well-formed cond among the units one unit of its own (cond_to_if.py)."""
        nodes = [it for key, members in units.items() if key[0] == "node" for it in members]
        for cond in cond_to_if.find_conds(self.graph, nodes, structural):
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

    def emit_unit(self, key, members, indent, defaults):
        """Emit one unit of the frame's order: a cond that became an `if`/`else`, a call of a child loop frame's
        function, or one node."""
        if key[0] == "cond":
            cond_to_if.emit_cond(self, self.conds[key], indent, defaults)
        elif key[0] == "frame":
            self.emit_child_call(key[1], members, indent)
        else:
            (item,) = members
            self.emit_node(item, indent, defaults)

    def emit_child_call(self, child, enters, indent):
        """Call a nested loop's function from its parent frame with the values of its Enters, and bind its Exits'
        results; the whole loop is dead (not called) when an input to it may be dead and is."""
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
        loop_var = [any(self.items[d].kind == MERGE for d, _s, _p in self.graph.consumers[e.id]) for e in enters]
        surely_live = [not self.maybe_dead[e.in_edges[0]] for e in enters]
        if any(lv and live for lv, live in zip(loop_var, surely_live)) and \
                any(not lv and not live for lv, live in zip(loop_var, surely_live)):
            raise NotStatic(f"frame {child}: a loop invariant may be dead while a loop variable is live")
        exits = self.graph.exits_of(child)
        outs = [f"x{ex.id}" for ex in exits]
        target = (", ".join(outs) + ("," if len(outs) == 1 else "")) if outs else "_"
        self.emit(indent, f"{target} = {self.frame_fn[child]}({', '.join(args)})")
        child_dead = any_dead or self.child_pred_dead[child]
        for ex in exits:
            self.set_ref(ex.id, 0, f"x{ex.id}", child_dead)
            self.set_ref(ex.id, "live", f"x{ex.id}", child_dead)

    # --- nodes: one emitter per kind ----------------------------------------------------------------
    def emit_node(self, item, indent, defaults):
        """A node's line(s): the emitter for its op type (`OP_EMITTERS`) or its kind (`EMITTERS`)."""
        self.emitted += 1
        if self.check is not None and not self.emitted & 1023:
            self.check()
        if item.kind == NORMAL:
            emitter = OP_EMITTERS.get(item.op.type, Codegen.emit_kernel_call)
        else:
            emitter = EMITTERS.get(item.kind)
            if emitter is None:
                raise NotStatic(f"node kind of {item.name}")
        emitter(self, item, indent, defaults)

    def emit_feed(self, item, indent, defaults):
        """A fed tensor: read from the `feeds` list, never dead."""
        self.emit(indent, f"v{item.id} = feeds[{item.feed_index}]")
        self.set_ref(item.id, 0, f"v{item.id}", False)
        self.set_ref(item.id, "live", f"v{item.id}", False)

    def emit_retval(self, item, indent, defaults):
        """A fetch: remember which expression holds it, returned at the end of the root frame."""
        self.retvals[item.retval_index] = self.ref[item.in_edges[0]]

    def emit_trigger(self, item, indent, defaults):
        """A ControlTrigger: live whatever its inputs (TensorFlow's ControlTriggerOp runs on dead inputs), so what waits
        on it always runs."""
        self.set_ref(item.id, "live", "LIVE", False)  # a ControlTrigger is never dead

    def emit_read_through(self, item, indent, defaults):
        """Exit, NextIteration and the identities: no code, their consumers read the input itself."""
        expr, dead = self.value(item.in_edges[0])
        self.set_ref(item.id, 0, expr, dead)
        self.set_ref(item.id, "live", expr, dead)

    def emit_alias(self, item, indent, defaults):
        """Identity and its kin: read through, unless a control input may make it dead."""
        if self.controls_live(item):
            return self.emit_read_through(item, indent, defaults)
        refs, test = self.dead_test(item)
        nid = item.id
        self.emit(indent, f"v{nid} = DEAD if {test} else {refs[0]}" if test else f"v{nid} = {refs[0]}")
        self.set_ref(nid, 0, f"v{nid}", bool(test))
        self.set_ref(nid, "live", f"v{nid}", bool(test))

    def emit_noop(self, item, indent, defaults):
        """Nothing to compute: only its liveness, which control edges read (a NoOp is dead iff an input is)."""
        _, test = self.dead_test(item)
        if test:
            self.emit(indent, f"l{item.id} = DEAD if {test} else LIVE")
        self.set_ref(item.id, "live", f"l{item.id}" if test else "LIVE", bool(test))

    def emit_const(self, item, indent, defaults):
        """A default argument of the frame's function, tested for deadness only when a control input may die."""
        _, test = self.dead_test(item)
        nid = item.id
        defaults[f"c{nid}"] = item.op.get_attr("value")
        if not test:
            self.set_ref(nid, 0, f"c{nid}", False)
            self.set_ref(nid, "live", f"c{nid}", False)
            return
        self.emit(indent, f"v{nid} = DEAD if {test} else c{nid}")
        self.set_ref(nid, 0, f"v{nid}", True)
        self.set_ref(nid, "live", f"v{nid}", True)

    def emit_switch(self, item, indent, defaults):
        """A Switch as an `if` on its predicate: the taken output gets the value, the other DEAD, and both are DEAD when
        an input is (TensorFlow's `SwitchOp`); a non-scalar predicate fails as TensorFlow's does."""
        refs, test = self.dead_test(item)
        nid = item.id
        self.emit(indent, f"_p = {refs[1]}")
        if item.op._inputs[1].shape.ndims != 0:  # TensorFlow's SwitchOp refuses a non-scalar predicate
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

    def emit_merge(self, item, indent, defaults):
        """The first live input wins, as the first live edge does in TensorFlow's executor."""
        refs, _ = self.input_refs(item)
        nid = item.id
        all_dead = all(self.maybe_dead[e] for e in item.in_edges) and bool(item.in_edges)
        if len(refs) == 2 and not any(port == 1 for _, _, port in self.graph.consumers[nid]):
            # A cond's two-way Merge whose value_index nobody reads: inline.
            self.emit(indent, f"v{nid}_0 = {refs[0]} if {refs[0]} is not DEAD else {refs[1]}")
        else:
            self.emit(indent, f"_live = [_k for _k, _v in enumerate(({', '.join(refs)},)) if _v is not DEAD]")
            self.emit(indent, f"v{nid}_0 = ({', '.join(refs)},)[_live[0]] if _live else DEAD")
            self.emit(indent, f"v{nid}_1 = np.int32(_live[0]) if _live else DEAD")
            self.set_ref(nid, 1, f"v{nid}_1", all_dead)
        self.set_ref(nid, 0, f"v{nid}_0", all_dead)
        self.set_ref(nid, "live", f"v{nid}_0", all_dead)

    def emit_kernel_call(self, item, indent, defaults):
        """An ordinary op: its kernel called (or written inline), its outputs DEAD instead when an input is."""
        refs, test = self.dead_test(item)
        nid, n_out = item.id, item.num_outputs
        call = self.kernel_expression(item, refs, defaults)
        if item.multi_output:
            targets = [f"v{nid}_{p}" for p in range(n_out)]
            assign = (", ".join(targets) + ("," if n_out == 1 else "")) if n_out else "_"
        else:
            targets = [f"v{nid}"] if n_out else []
            assign = targets[0] if n_out else "_"
        live_var = f"v{nid}" if not item.multi_output and n_out else f"l{nid}"
        body_indent = indent
        if test:
            self.emit(indent, f"if {test}:")
            self.emit(indent + 1, " = ".join(targets + ([live_var] if live_var not in targets else [])) + " = DEAD")
            self.emit(indent, "else:")
            body_indent = indent + 1
        self.emit(body_indent, f"{assign} = {call}  # @{nid}")
        if live_var not in targets:
            self.emit(body_indent, f"{live_var} = LIVE")
        switch_n = item.op.type == "_SwitchN"  # an N-way Switch: its kernel leaves the untaken outputs empty
        for t in targets if switch_n else ():
            self.emit(body_indent, f"{t} = DEAD if {t} is None else {t}")
        for p, t in enumerate(targets):
            self.set_ref(nid, p, t, bool(test) or switch_n)
        self.set_ref(nid, "live", live_var, bool(test))

    def kernel_expression(self, item, refs, defaults):
        """The expression computing an ordinary op: a call of its kernel `k<id>` (bound as a default argument of
        the frame's function), or the same computation written inline (inline_kernels.py)."""
        op, nid = item.op, item.id
        defaults[f"k{nid}"] = item.kernel
        if getattr(item.kernel, "unchecked", None) is not None and op.type in int_overflow.SCALAR_REPORTED:
            # Python-int arithmetic: numpy reports the overflow (overflow_call), so the plain kernel runs.
            defaults[f"k{nid}"] = item.kernel.unchecked
            self.namespace["_python_int_nodes"][nid] = (op.type, tuple(refs))
        ufunc = buffer_forwarding.UFUNCS.get(op.type)
        # A rank-0 result is a numpy scalar, never a buffer: not worth a run-time check.
        if (ufunc is not None and len(refs) == 2 and item.num_outputs == 1 and not item.multi_output
                and op.outputs[0].shape.ndims != 0):
            self.forward_sites[f"k{nid}"] = (partial(buffer_forwarding.forwarding_kernel, ufunc), refs, item.name,
                                             (0, 1))
        if hasattr(item.kernel, "in_place"):  # an item assignment (slice_update.py): in place only when granted
            defaults[f"k{nid}"] = item.kernel.in_place(None)
            self.forward_sites[f"k{nid}"] = (_slice_update_in_place, refs, item.name, (0,))
        call = f"k{nid}({', '.join(refs)})"
        if f"k{nid}" not in self.forward_sites and item.num_outputs == 1 and not item.multi_output:
            constants = {r: defaults[r] for r in refs if r.startswith("c") and r in defaults}
            call = inline_kernels.inline_expression(item, refs, f"k{nid}", constants, defaults,
                                                    defaults[f"k{nid}"]) or call
        return call

    # --- frames -------------------------------------------------------------------------------------
    def emit_frame(self, name):
        """Emit the function for frame `name` (children first); with its conds compiled as `if`/`else`
        when the frame's order allows, else with the general rule for them."""
        for child in sorted(self.graph.children_of.get(name, [])):
            self.emit_frame(child)
        start = len(self.lines)
        try:
            self.emit_own_frame(name, True)
        except NotStatic:
            del self.lines[start:]
            self.emit_own_frame(name, False)

    def emit_own_frame(self, name, with_conds):
        """Emit the function of one frame: the root frame's (which returns the fetches) or a loop's (which iterates
        until its LoopCond is false and returns its Exits)."""
        self.with_conds = with_conds
        self.frame_fn[name] = f"frame_{self.frame_index[name]}"
        if name == ROOT:
            self.emit_root_frame()
        else:
            self.emit_loop_frame(name)

    def emit_root_frame(self):
        """`run_root(feeds)`: the root frame's nodes in order, then the fetches."""
        defaults = {}
        start = len(self.lines)
        self.emit_units(*self.graph.units_of(ROOT), 1, defaults)
        body = self.lines[start:]
        del self.lines[start:]
        returns = "".join(r + ", " for r in self.retvals)
        self.emit_def("run_root", ["feeds"], defaults, body + [f"    return ({returns})"])

    def emit_loop_frame(self, name):
        """`frame_<k>(<the Enters' values>)`: a `while True:` loop, the cond part, the test of the predicate that
        returns the Exits' values, the body, and the NextIterations' values handed to the Merges."""
        units, owner = self.graph.units_of(name)
        defaults = {}
        pivot, merges, switches, exits = analyse_loop(self.graph, name)
        self.bind_loop_values(self.graph.enters_of[name], merges, switches)
        structural = {sw.id for sw in switches} | {m.id for m in merges} | {ex.id for ex in exits}
        if self.with_conds:
            self.fold_conds(units, owner, structural)
        pre_order, body_order = self.order_loop_units(units, owner, switches, structural)
        pre_lines = self.emit_lines(pre_order, units, defaults)
        self.child_pred_dead[name] = self.maybe_dead[(pivot.id, 0)]
        body_lines = self.emit_lines(body_order, units, defaults)
        code = self.loop_function_body(name, pivot, merges, exits, pre_lines, body_lines)
        self.emit_def(self.frame_fn[name], [f"p{e.id}" for e in self.graph.enters_of[name]], defaults, code)

    def bind_loop_values(self, enters, merges, switches):
        """Inside the loop function an Enter's value is its parameter `p<id>`, a loop Merge's the variable
        `m<id>`, which a loop Switch's true side reads through."""
        for e in enters:
            self.set_ref(e.id, 0, f"p{e.id}", False)
            self.set_ref(e.id, "live", f"p{e.id}", False)
        for m in merges:
            self.set_ref(m.id, 0, f"m{m.id}", False)
            self.set_ref(m.id, "live", f"m{m.id}", False)
        for sw in switches:
            self.set_ref(sw.id, 1, f"m{sw.in_edges[0][0]}", False)
            self.set_ref(sw.id, "live", f"m{sw.in_edges[0][0]}", False)

    def order_loop_units(self, units, owner, switches, structural):
        """(cond part, body part) of a loop frame's units, each in an order its edges allow: the body is what
        the loop Switches' true side reaches; the cond part may not depend on it within an iteration."""
        body_units = set()
        frontier = [dst for sw in switches for dst, _slot, port in self.graph.consumers[sw.id] if port == 1]
        while frontier:
            nid = frontier.pop()
            if nid not in owner or nid in structural or owner[nid] in body_units:
                continue
            body_units.add(owner[nid])
            for it in units[owner[nid]]:
                if it.kind == ENTER:  # a nested loop: what reads its Exits
                    for ex in self.graph.exits_of(it.frame_name):
                        frontier.extend(d for d, _s, _p in self.graph.consumers[ex.id])
                        frontier.extend(self.graph.control_consumers[ex.id])
                    continue
                frontier.extend(d for d, _s, _p in self.graph.consumers[it.id] if self.items[d].kind != MERGE
                                or it.kind != NEXT)
                frontier.extend(self.graph.control_consumers[it.id])
        keys = [k for k in units if not (k[0] == "node" and k[1] in structural)]
        deps = {k: {d for d in self.graph.unit_deps(k, units[k], owner) if not (d[0] == "node" and d[1] in structural)}
                for k in keys}
        pre_keys = [k for k in keys if k not in body_units]
        body_keys = [k for k in keys if k in body_units]
        if any(deps[k] & body_units for k in pre_keys):
            raise NotStatic("the loop condition depends on the body within one iteration")
        return (self.graph.toposort(pre_keys, deps),
                self.graph.toposort(body_keys, {k: deps[k] - set(pre_keys) for k in body_keys}))

    def emit_lines(self, keys, units, defaults):
        """The lines of these units, in this order, inside a loop function's `while True:`."""
        start = len(self.lines)
        for key in keys:
            self.emit_unit(key, units[key], 2, defaults)
        lines = self.lines[start:]
        del self.lines[start:]
        return lines

    def loop_function_body(self, name, pivot, merges, exits, pre_lines, body_lines):
        """The body of a loop frame's function around its cond and body lines."""
        enters = self.graph.enters_of[name]
        pred_ref, pred_dead = self.value((pivot.id, 0))
        exit_refs = [f"m{self.items[ex.in_edges[0][0]].in_edges[0][0]}" for ex in exits]
        next_values = [self.value(self.items[m.in_edges[1][0]].in_edges[0]) for m in merges]
        ret_dead = "(" + "DEAD, " * len(exits) + ")"
        stop = ["            _iters.pop()", "            _frames.pop()"]
        code = []
        if enters:
            code += [f"    if {' or '.join(f'p{e.id} is DEAD' for e in enters)}:", f"        return {ret_dead}"]
        code += [f"    m{m.id} = p{m.in_edges[0][0]}" for m in merges]
        code += ["    _iters.append(0)", f"    _frames.append({name!r})", "    while True:", *pre_lines]
        if pred_dead:
            code += [f"        if {pred_ref} is DEAD:", *stop, f"            return {ret_dead}"]
        if pivot.op._inputs[0].shape.ndims != 0:
            code.append(f"        if np.ndim({pred_ref}) != 0: _pred_error({pred_ref})  # @{pivot.id}")
        code += [f"        if not {pred_ref}:", *stop, f"            return ({''.join(r + ', ' for r in exit_refs)})"]
        code += body_lines
        for m, (ref, dead) in zip(merges, next_values):
            if dead:
                code += [f"        if {ref} is DEAD:", f"            _stuck()  # @{m.in_edges[1][0]}"]
        if merges:
            code.append(f"        {', '.join(f'm{m.id}' for m in merges)}, = {', '.join(r for r, _ in next_values)},")
        code.append("        _iters[-1] += 1")
        code.append("        if _cancelled: _cancelled.check()  # Session.close() stops here")
        return code

    def emit_def(self, fn, params, defaults, body):
        """Close a frame's function: its constants bound as default arguments (fast local reads), and dead inputs'
        buffers forwarded to the ops that may overwrite them (buffer_forwarding.py)."""
        body = buffer_forwarding.forward_dead_inputs(body, defaults, self.forward_sites, self.forwarded)
        names = sorted(defaults)
        for n in names:
            self.namespace[f"{fn}__{n}"] = defaults[n]
        sig = ", ".join(params + [f"{n}={fn}__{n}" for n in names])
        head = f"def {fn}("  # a long signature goes on over aligned lines, so the printed source fits a page
        self.lines += textwrap.wrap(f"{head}{sig}):", width=SOURCE_WIDTH, subsequent_indent=" " * len(head),
                                    break_long_words=False, break_on_hyphens=False)
        self.lines.extend(body)
        self.lines.append("")


# The emitter of each node kind, and of the ordinary ops that are not a kernel call.
EMITTERS = {FEED: Codegen.emit_feed, RETVAL: Codegen.emit_retval, TRIGGER: Codegen.emit_trigger,
            NEXT: Codegen.emit_read_through, EXIT: Codegen.emit_read_through, SWITCH: Codegen.emit_switch,
            MERGE: Codegen.emit_merge}
OP_EMITTERS = {"NoOp": Codegen.emit_noop, "Const": Codegen.emit_const,
               **dict.fromkeys(cond_to_if.ALIAS_TYPES, Codegen.emit_alias)}


def _slice_update_in_place(kernel, candidates):
    """The slice update that writes into its target when the generated code hands over its last reference."""
    return kernel.in_place(slice_update.LONE_IN_LOCAL)


def _stuck():
    raise errors.InternalError(None, None, "A loop's NextIteration was dead while its predicate was true: the next "
                                           "iteration could never start.")


def _pred_error(p):
    """TensorFlow's SwitchOp check: a predicate must be a scalar (reported at the Switch or LoopCond,
    whose id the calling line carries)."""
    raise errors.InvalidArgumentError(None, None, f"The second input must be a scalar, but it has shape "
                                                  f"{list(np.shape(p))}")
