"""What the executor says when a run goes wrong: the failing node, its frame and iteration; a fetch that never got a
value, with the nodes that were still waiting.

TensorFlow appends `[[{{node while/add}}]]` to a kernel's error (`errors::AttachDef`), and reports a fetch that
never received a value as "Retval[0] does not have value". cfnb says the same and adds the frame and iteration,
and, since its executor never hangs, what was stuck: the nodes that had received some of their inputs but not all
when nothing could run any more (TensorFlow's `DumpIterationState` lists the same nodes in its log).
"""
from ..framework import errors
from ..framework.registry import get_op_def
from .graph_compiler import FEED, MERGE, RETVAL


def frame_text(frame, it):
    """Where a token was: "the root frame", or the frame's name, its parent iterations and the iteration."""
    if not frame.path:
        return "the root frame"
    return f"frame '{frame.info.name}' (parent iterations {[i for _, i in frame.path]}), iteration {it.iter_num}"


def located(error, item, frame, it):
    """`error` with the node, its type, frame and iteration appended."""
    where = f"[[node {item.name} ({item.op.type if item.op is not None else item.name}) in {frame_text(frame, it)}]]"
    error.message = f"{error.message}\n  {where}"
    error.op = item.op
    error.args = (error.message,)
    return error


def missing_fetch(executor, state, missing):
    """The error for fetches (indices `missing`) that the run of `state` never computed live."""
    exe = executor.exe
    names = [exe.fetch_names[k] for k in missing]
    waiting = waiting_nodes(state.root)
    stateless = not any(item.op is not None and get_op_def(item.op.type).stateful for item in exe.items)
    if not waiting and stateless:
        # Finished iterations are deleted with what they held; replay the run (it has no side effects)
        # recording the nodes that an iteration left waiting.
        replay = executor.new_state(state.feed_values)
        replay.diagnose = []
        try:
            replay.run()
        except errors.InvalidArgumentError:
            pass
        waiting = replay.diagnose
    msg = f"Retval[{missing[0]}] does not have value: the fetch '{names[0]}' was never computed live."
    if waiting:
        msg += (" These nodes were still waiting for inputs when nothing could run any more: "
                + ", ".join(waiting[:12]) + ("" if len(waiting) <= 12 else f" (and {len(waiting) - 12} more)") + ".")
    else:
        msg += (" It was dead: it lies on the untaken side of a Switch (for example a cond branch that was "
                "not taken), so it carries no value.")
    return errors.InvalidArgumentError(None, None, msg)


def waiting_nodes(root):
    """Nodes that received some inputs but not all, in any live frame/iteration."""
    out = []
    stack = [root]
    while stack:
        frame = stack.pop()
        for it in frame.iterations.values():
            out.extend(waiting_in(frame, it))
        stack.extend(frame.children.values())
    return out


def waiting_in(frame, it):
    """The nodes of one iteration that received some of their inputs but not all."""
    out = []
    for item in frame.info.nodes:
        p = it.pending[item.pending_id]
        if 0 < p < item.pending_init and item.kind not in (RETVAL, FEED, MERGE):
            where = f"frame '{frame.info.name}', " if frame.path else ""
            out.append(f"{item.name} ({where}iteration {it.iter_num})")
    return out
