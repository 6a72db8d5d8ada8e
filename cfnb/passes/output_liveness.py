"""Which outputs of a functional `While` a run really uses, so a strict run accumulates only those.

Once `tf.gradients` has differentiated a v2 loop, its `While` op carries extra loop variables: the
TensorList accumulators that record each iteration's intermediates for the gradient loop. Lowered,
such an accumulator is an Enter/Merge/Switch/NextIteration chain that pruning removes when nothing
on the way to the fetches reads its Exit. Run strictly (`ConfigProto(lower_functional_ops=False)`), a
`While` is one kernel: it would call the whole body, pushing onto every list, even when only the
forward value is fetched. TensorFlow's function optimizer prunes unused outputs of functional ops
(grappler's `PruneFunctionBody` / "while loop unused outputs" rewrite) for the same reason.

`live_outputs` walks back from the fetches and records, per op, the output ports something needs.
For a `While`, `needed_loop_vars` closes those ports over the loop: the cond's inputs are needed,
and so is every loop variable the body needs to compute a needed one. Only the needed inputs of a
`While` are live; a gradient loop that never reads an accumulator leaves the forward loop's
accumulator output dead, so the forward loop need not fill it. A loop variable whose body
computation is stateful is always needed: a body's side effects happen whatever is fetched.
"""
from ..framework.registry import get_op_def
from ..framework.topological_order import op_order
from .pruning import needed_ops

WHILE_TYPES = ("While", "StatelessWhile")


def _inputs_used(func_graph, outputs):
    """Indices of `func_graph.inputs` that `outputs` depend on, and whether a stateful op is on the way."""
    ops = needed_ops(outputs, [], set())
    index = {ph.op: k for k, ph in enumerate(func_graph.inputs)}
    used = {index[op] for op in ops if op in index}
    stateful = any(get_op_def(op.type).stateful for op in ops)
    return used, stateful


def body_dependencies(body):
    """`_inputs_used(body, [out])` for every output of `body`, as [(used, stateful)], from one walk of the body in
    topological order (each op's inputs as a bit mask, the union of its producers'), not one walk per loop variable:
    a gradient's While carries an accumulator per intermediate, and a walk each made the rule quadratic. A body the
    walk cannot order (a cycle, an input from outside it) gets one walk per output."""
    def one_walk_each():
        return [_inputs_used(body, [t]) for t in body.outputs]

    index = {ph.op: k for k, ph in enumerate(body.inputs)}
    order, unordered = op_order(body.get_operations())
    if unordered:
        return one_walk_each()
    masks = {}  # op -> (bit mask of the inputs it depends on, whether a stateful op is on the way)
    for op in order:
        mask, stateful = 1 << index[op] if op in index else 0, get_op_def(op._type).stateful
        for src in (*[t._op for t in op._inputs], *op._control_inputs):
            if src not in masks:
                return one_walk_each()
            mask |= masks[src][0]
            stateful = stateful or masks[src][1]
        masks[op] = (mask, stateful)
    if any(t._op not in masks for t in body.outputs):
        return one_walk_each()
    return [({k for k in range(mask.bit_length()) if mask >> k & 1}, stateful)
            for mask, stateful in (masks[t._op] for t in body.outputs)]


def needed_loop_vars(while_op, live_ports, dependencies=None):
    """The loop variables a `While` must carry for outputs `live_ports` (a sorted list). `dependencies`: the body's
    `body_dependencies`, when the caller has them already."""
    cond, body = while_op.get_attr("cond"), while_op.get_attr("body")
    deps = []
    for k, (used, stateful) in enumerate(dependencies or body_dependencies(body)):
        deps.append(used)
        if stateful:
            live_ports = set(live_ports) | {k}
    needed = set(live_ports) | _inputs_used(cond, cond.outputs)[0]
    work = list(needed)
    while work:
        k = work.pop()
        for j in deps[k]:
            if j not in needed:
                needed.add(j)
                work.append(j)
    return sorted(needed)


def live_outputs(ops, fetch_tensors, target_ops, feed_set):
    """{op: set of output ports some op of the run reads} over `ops` (the pruned graph). Every op that is not a
    While runs and reads all its inputs, even one that feeds only a loop variable some While leaves dead (pruning
    keeps every input of a While): the outputs it reads are live, else it would read a value never computed. An op
    reached as a target or through a control edge needs all its outputs."""
    op_set = set(ops)
    live = {op: set() for op in ops}
    active = set()
    needed_vars, body_deps = {}, {}
    work = []

    def use(t):
        if t not in feed_set and t.op in op_set and t.value_index not in live[t.op]:
            live[t.op].add(t.value_index)
            work.append(t.op)

    def activate(op):
        if op in op_set and op not in active:
            active.add(op)
            live[op].update(range(len(op._outputs)))
            work.append(op)

    for t in fetch_tensors:
        use(t)
    for op in target_ops:
        activate(op)
    work.extend(op for op in ops if op.type not in WHILE_TYPES)
    while work:
        op = work.pop()
        for c in op._control_inputs:
            activate(c)
        if op.type in WHILE_TYPES and op not in active:
            if op not in body_deps:  # the body does not change while this walk runs: one walk of it per While
                body_deps[op] = body_dependencies(op.get_attr("body"))
            vars_now = needed_loop_vars(op, live[op], body_deps[op])
            if needed_vars.get(op) == vars_now:
                continue
            needed_vars[op] = vars_now
            for k in vars_now:
                use(op._inputs[k])
        else:
            for t in op._inputs:
                use(t)
    return live
