"""Pass 1, loop-invariant node motion: work that is the same in every iteration is done once, before the loop.

Grappler's `LoopInvariantNodeMotionOptimizer` (grappler/optimizers/loop_optimizer.cc), a compiler's LICM. In a
frame, a node whose data inputs are all invariant (constant Enters, constants, loop variables the body hands
back unchanged, other invariant nodes: `FrameView.invariant`) computes the same value every iteration. Such nodes
are moved to the parent frame: their inputs are rewired to the values outside (an Enter's input), and every
consumer left in the loop reads them through a new constant Enter (`HandleInvariantNode`). The innermost loops go
first, so a node can climb out of several loops, one per run of the worklist.

What is moved, and why only that (cfnb is stricter than Grappler, whose pass TensorFlow leaves off by default):
- pure ops (`loop_frames.PURE_OPS`: element-wise math, MatMul, Transpose, Reshape, Cast) on float tensors of
  fully known shapes: they cannot fail, so running one once even when the loop runs zero times changes nothing
  but a little work; stateful ops (a print, a stack push, a random number) never move;
- nodes that run in every iteration (`FrameView.conditional` is False): work inside a cond branch may be what
  the cond guards;
- nodes with no control output (Grappler's `RevertInvariantNodes` keeps those in).
A constant the moved nodes read is moved along when nothing else reads it, else copied (`HandleConst`).
A node left in the loop whose inputs are then all constant Enters gets a control edge from the loop's pivot, as
`WhileContext._MaybeAddControlDependency` gives one when a loop is built: a constant Enter is replayed into every
iteration, so without it the node (a NextIteration fed by a hoisted value, say) would also run in the iteration
the predicate ends, and start another one, forever.
"""
from .graph_edit import Builder
from .loop_frames import pure, source

NAME = "loop_invariant_node_motion"


def hoistable(view, loop):
    """The loop's nodes that move out, in graph order: invariant pure nodes closed under their inputs."""
    frame_ops = [op for op in loop.ops if view.frame_of[op] == loop.name]
    chosen = {op for op in frame_ops if pure(op) and not _control_outputs(view, op) and not view.conditional(op)
              and view.invariant(op.outputs[0], loop)}
    changed = True
    while changed:  # an op whose input comes from a computed invariant left behind stays too
        changed = False
        for op in list(chosen):
            producers = [source(x).op for x in op.inputs]
            if any(p not in chosen and pure(p) and view.frame_of.get(p) == loop.name for p in producers):
                chosen.discard(op)
                changed = True
    return [op for op in view.ops if op in chosen]


def _control_outputs(view, op):
    """The ops of the view that take a control edge from `op` (one that does not run orders nothing)."""
    return [c for c in op._control_outputs if c in view.frame_of]


def move(rewrite, view, loop, ops):
    """Move `ops` (hoistable) to the loop's parent frame; each consumer left inside reads a new constant Enter."""
    moved = set(ops)
    outside = Builder(rewrite, view, loop.parent)
    copies = {}
    for op in ops:
        for k, x in enumerate(op.inputs):
            s = source(x)
            if s.op in moved:
                if x is not s:
                    op._update_input(k, s)
            elif s.op.type == "Const":
                op._update_input(k, _outer_const(outside, view, s, moved, copies))
            else:
                op._update_input(k, view.outer(s, loop))
        op._remove_all_control_inputs()
    inside = Builder(rewrite, view, loop.name)
    for n, op in enumerate(ops):
        out = op.outputs[0]
        readers = [c for c in out.consumers() if c not in moved]
        if not readers:
            continue
        enter = inside.op("Enter", [out], {"frame_name": loop.name, "is_constant": True,
                                           "parallel_iterations": loop.parallel_iterations},
                          name=f"LoopOptimizer/{loop.name}_enter_{n}", device=op.device)
        rewrite.reroute(out, enter, keep=moved | {enter.op})
        for reader in readers:
            if not reader.control_inputs and all(_constant_enter(x) for x in reader.inputs):
                reader._add_control_input(view.merge_or_pivot(loop, reader, inside.anchor()))


def _constant_enter(t):
    op = source(t).op
    return op.type == "Enter" and op.get_attr("is_constant")


def _outer_const(outside, view, const, moved, copies):
    """The constant `const` (inside the loop) as a tensor of the parent frame: moved when only moved nodes read
    it, else a copy (`LoopOptimizer/<name>`)."""
    op = const.op
    if op in copies:
        return copies[op]
    readers = {c for x in op.outputs for c in x.consumers()}
    if readers <= moved:
        op._remove_all_control_inputs()
        if outside.anchor() is not None:
            op._add_control_input(outside.anchor())
        copies[op] = const
    else:
        copies[op] = outside.const(op.get_attr("value"), op.get_attr("dtype"), f"LoopOptimizer/{op.name}")
    return copies[op]


def has_work(look):
    """True when `run` would move something: some loop has a hoistable node (read-only, on the original graph)."""
    view = look.view()
    return any(hoistable(view, loop) for loop in view.loops.values() if loop.loop_cond is not None)


def run(rewrite):
    """Rewrite the copy in place; returns [(frame, [moved node names])] (what the chapter shows)."""
    done = []
    first = rewrite.view()
    order = sorted(first.loops, key=lambda name: _depth(first, name), reverse=True)
    for name in order:
        view = rewrite.view()
        loop = view.loops.get(name)
        if loop is None or loop.loop_cond is None:
            continue
        ops = hoistable(view, loop)
        if ops:
            move(rewrite, view, loop, ops)
            done.append((name, [op.name for op in ops]))
    return done


def _depth(view, name):
    n = 0
    while name:
        name = view.parent_of.get(name) or ""
        n += 1
    return n
