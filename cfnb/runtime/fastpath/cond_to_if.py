"""A well-formed cond in the static schedule: a Python `if`/`else` that runs only the taken branch.

`cond` (TensorFlow's `CondContext.BuildCondBranch`, and `LowerIfOp` for a functional If) builds a
Switch per value a branch reads, all on one predicate; each branch's ops hang off one side of the
Switches; a Merge per output joins the two sides. On the executor the untaken side's ops receive
dead tokens: none of them runs (neither kernels nor stateful ops nor prints), and each Merge
forwards the taken side's value. That is exactly

    if pred:   <true branch's ops>;  merge = true value
    else:      <false branch's ops>; merge = false value

so for a cond of that shape the generated code says so, instead of producing and testing a dead
token per Switch output and per branch op (codegen.py's general rule). What makes a cond
well-formed, and so compiled this way:

- its Switches read one predicate (one tensor) and have no control edges;
- every op reached from a Switch side (through data and control edges, through nested loops) is
  reached from that side only, is an ordinary op, a nested Switch or Merge of its side, or a nested
  loop, and feeds only ops of the same side or the cond's Merges;
- each of the cond's Merges has two data inputs, one from each side, no control inputs, and nobody
  reads its `value_index`;
- nothing the cond reads is computed from its own Merges.

Switches on one predicate that share no branch op are separate conds (two `if`s in a row). Anything
else (a branch value read past its Merge, a Merge joining a branch with an outside value) keeps the
general rule, which is always right. A dead predicate makes every Merge dead; a dead value entering
a Switch is dead on the taken side, where the general rule handles it, as the executor does.
"""
from ..graph_compiler import ENTER, EXIT, MERGE, NEXT, NORMAL, SWITCH

ALIAS_TYPES = {"Identity", "LoopCond", "StopGradient", "Snapshot", "PreventGradient"}  # value-preserving


class Cond:
    """One cond: its predicate edge, Switches, the node ids of each side and its Merges."""

    __slots__ = ("pred", "switches", "sides", "child_frames", "merges")

    def __init__(self, pred, switches, sides, child_frames, merges):
        self.pred = pred                    # (src id, port)
        self.switches = switches            # NodeItems
        self.sides = sides                  # {0: set of node ids, 1: ...} (child-frame Enters included)
        self.child_frames = child_frames    # {child frame name: side}
        self.merges = merges                # [(Merge NodeItem, {side: (src id, port)})]

    def members(self):
        """The ids of every node the `if`/`else` replaces: its Switches, both sides and its Merges."""
        ids = {sw.id for sw in self.switches} | self.sides[0] | self.sides[1]
        return ids | {m.id for m, _ in self.merges}


def find_conds(graph, frame_nodes, structural):
    """The well-formed conds among `frame_nodes` (NodeItems of one frame, or of one branch), outermost
    only: a cond nested in another's branch is found when that branch is emitted."""
    groups = {}
    for it in frame_nodes:
        if it.kind == SWITCH and it.id not in structural and it.op is not None and it.num_outputs == 2:
            groups.setdefault(_value_source(graph, it.in_edges[1]), []).append(it)
    found = []
    for pred, switches in groups.items():
        for component in _components(graph, switches):
            cond = _grow(graph, pred, component)
            if cond is not None:
                found.append(cond)
    found.sort(key=lambda c: -len(c.members()))
    taken, conds = set(), []
    for cond in found:
        members = cond.members()
        if not members & taken:
            conds.append(cond)
            taken |= members
    return conds


def _value_source(graph, edge):
    """The edge through identities: `cond` reads its predicate through `pred_id = Identity(pred)`, and
    its pivot Switch reads `pred` itself; both are one predicate."""
    while True:
        item = graph.items[edge[0]]
        if item.kind != NORMAL or item.op is None or item.op.type not in ALIAS_TYPES or item.control_in:
            return edge
        edge = item.in_edges[0]


def _components(graph, switches):
    """Switches on one predicate, grouped by whether their branches touch (one cond or two)."""
    reach = {sw.id: _reached(graph, sw) for sw in switches}
    parent = {sw.id: sw.id for sw in switches}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a in switches:
        for b in switches:
            if a.id < b.id and reach[a.id] & reach[b.id]:
                parent[find(a.id)] = find(b.id)
    groups = {}
    for sw in switches:
        groups.setdefault(find(sw.id), []).append(sw)
    return list(groups.values())


def _reached(graph, switch):
    """Node ids reached forward from a Switch's outputs. A Merge is passed when all its inputs come from
    one side (a cond nested in that side) and is where the walk stops otherwise (a cond's own Merge)."""
    side_of, pending = {}, set()
    stack = [(dst, port) for dst, _slot, port in graph.consumers[switch.id]]
    while True:
        while stack:
            nid, side = stack.pop()
            if nid in side_of:
                if side_of[nid] != side:
                    side_of[nid] = "both"
                continue
            side_of[nid] = side
            if graph.items[nid].kind == MERGE:
                pending.add(nid)
            else:
                stack.extend((d, side) for d in _successors(graph, nid))
        for nid in sorted(pending):
            sides = {port if src == switch.id else side_of.get(src) for src, port in graph.items[nid].in_edges}
            if len(sides) == 1 and sides <= {0, 1}:
                pending.discard(nid)
                side = sides.pop()
                stack.extend((d, side) for d in _successors(graph, nid))
        if not stack:
            return set(side_of)


def _successors(graph, nid):
    """Data and control consumers; a nested loop's Enter leads to the consumers of its Exits."""
    item = graph.items[nid]
    if item.kind == ENTER:
        out = []
        for ex in graph.exits_of(item.frame_name):
            out.extend(d for d, _s, _p in graph.consumers[ex.id])
            out.extend(graph.control_consumers[ex.id])
        return out
    return [d for d, _s, _p in graph.consumers[nid]] + list(graph.control_consumers[nid])


def _grow(graph, pred, switches):
    """The Cond of these Switches, or None when its shape is not the well-formed one."""
    items = graph.items
    if any(sw.control_in or graph.control_consumers[sw.id] for sw in switches):
        return None
    switch_ids = {sw.id for sw in switches}
    side_of, child_frames, pending = {}, {}, set()
    stack = [(dst, port) for sw in switches for dst, _slot, port in graph.consumers[sw.id]]

    def source_side(src, port):
        if src in switch_ids:
            return port
        if items[src].kind == EXIT:
            return child_frames.get(items[src].frame.name)
        return side_of.get(src)

    while True:
        while stack:
            nid, side = stack.pop()
            item = items[nid]
            if item.kind == MERGE:
                pending.add(nid)
                continue
            if item.kind == ENTER:
                child = item.frame_name
                if child_frames.setdefault(child, side) != side:
                    return None
                if nid not in side_of:
                    for enter in graph.enters_of[child]:
                        side_of[enter.id] = side
                    stack.extend((d, side) for d in _successors(graph, nid))
                continue
            if item.kind not in (NORMAL, SWITCH) or item.op is None:
                return None  # a NextIteration, Exit, fetch, ... reads a branch: the general rule
            if nid in side_of:
                if side_of[nid] != side:
                    return None
                continue
            side_of[nid] = side
            stack.extend((d, side) for d in _successors(graph, nid))
        # A Merge all of whose inputs lie on one side is a nested cond's: part of that side.
        inner = []
        for nid in pending:
            merge = items[nid]
            sides = {source_side(s, p) for s, p in merge.in_edges}
            if len(sides) == 1 and None not in sides and not merge.control_in:
                inner.append((nid, sides.pop()))
        if not inner:
            break
        for nid, side in inner:
            pending.discard(nid)
            side_of[nid] = side
            stack.extend((d, side) for d in _successors(graph, nid))
    merges = []
    for nid in sorted(pending):
        merge = items[nid]
        if len(merge.in_edges) != 2 or merge.control_in or any(p == 1 for _d, _s, p in graph.consumers[nid]):
            return None
        by_side = {source_side(s, p): (s, p) for s, p in merge.in_edges}
        if set(by_side) != {0, 1}:
            return None
        merges.append((merge, by_side))
    sides = {0: {n for n, s in side_of.items() if s == 0}, 1: {n for n, s in side_of.items() if s == 1}}
    cond = Cond(pred, sorted(switches, key=lambda sw: sw.id), sides, child_frames, merges)
    # Nothing the cond reads may be computed from its own outputs in the same iteration (two conds in a
    # row on one predicate that share no op are two conds, found as two components).
    downstream, stack = set(), [m.id for m, _ in merges]
    while stack:
        nid = stack.pop()
        if items[nid].kind == NEXT:  # the loop's back edge: the next iteration reads it
            continue
        for d in _successors(graph, nid):
            if d not in downstream:
                downstream.add(d)
                stack.append(d)
    if downstream & cond.members():
        return None
    return cond


def emit_cond(cg, cond, indent, defaults):
    """Emit `if pred: <true side> else: <false side>`, each side ending with the Merges' values. `cg` is the code
    generator (codegen.py), of which this needs four things: the expression of an edge (`value`), binding a
    node's outputs to expressions (`set_ref`), a line (`emit`), and the lines of a group of nodes (`emit_nodes`)."""
    pred_ref, pred_dead = cg.value(cond.pred)
    first = cond.switches[0]
    if any(sw.op.inputs[1].shape.ndims != 0 for sw in cond.switches):  # TensorFlow's SwitchOp check
        guard = f"{pred_ref} is not DEAD and " if pred_dead else ""
        cg.emit(indent, f"if {guard}np.ndim({pred_ref}) != 0: _pred_error({pred_ref})  # @{first.id}")
    outs = [f"v{m.id}_0" for m, _ in cond.merges]
    if pred_dead:
        cg.emit(indent, f"if {pred_ref} is DEAD:")
        cg.emit(indent + 1, f"{' = '.join(outs)} = DEAD" if outs else "pass")
        cg.emit(indent, f"elif {pred_ref}:")
    else:
        cg.emit(indent, f"if {pred_ref}:")
    dead = pred_dead
    for side in (1, 0):
        if side == 0:
            cg.emit(indent, "else:")
        for sw in cond.switches:  # on its own side a Switch is its input, read through
            expr, maybe_dead = cg.value(sw.in_edges[0])
            cg.set_ref(sw.id, side, expr, maybe_dead)
            cg.set_ref(sw.id, "live", expr, maybe_dead)
        children = [c for c, s in cond.child_frames.items() if s == side]
        emitted = cg.emit_nodes(sorted(cond.sides[side]), children, indent + 1, defaults)
        for (_merge, by_side), out in zip(cond.merges, outs):
            cg.emit(indent + 1, f"{out} = {cg.value(by_side[side])[0]}")
            dead = dead or cg.value(by_side[side])[1]
            emitted += 1
        if not emitted:
            cg.emit(indent + 1, "pass")
    for (merge, _), out in zip(cond.merges, outs):
        cg.set_ref(merge.id, 0, out, dead)
        cg.set_ref(merge.id, "live", out, dead)
