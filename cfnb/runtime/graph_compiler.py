"""Turn (graph, fetches, feeds, targets) into an `ExecutableGraph` the executor can run quickly.

This is TensorFlow's `ImmutableExecutorState` in miniature: prune to what the fetches need, give
every node an integer id, precompute its out-edges and initial pending count, and assign every
node to a frame with TensorFlow's BFS (`BuildControlFlowInfo`): an Enter's successors are in the
child frame named by its `frame_name`, an Exit's successors in the parent frame. The Enter itself
is activated in the parent frame and the Exit in the child, exactly as in TensorFlow's executor.
Compiling once per (fetches, feeds, targets) is what keeps `Session.run` in a loop cheap.
"""
from collections import deque
from typing import NamedTuple

from ..framework import errors
from ..framework.registry import get_op_def
from ..framework.topological_order import op_order
from ..passes.output_liveness import live_outputs
from ..passes.pruning import needed_ops
from . import slice_update

# Node kinds: the executor dispatches on these small ints in its inner loop.
# SEND and RECV (transfer nodes) come last: the executor tests `kind >= SEND` once per firing.
NORMAL, SWITCH, MERGE, ENTER, EXIT, NEXT, FEED, RETVAL, TRIGGER, SEND, RECV = range(11)
KIND_NAMES = ["op", "Switch", "Merge", "Enter", "Exit", "NextIteration", "feed", "retval", "ControlTrigger",
              "_Send", "_Recv"]
_KIND_OF_TYPE = {"Switch": SWITCH, "RefSwitch": SWITCH, "Merge": MERGE, "RefMerge": MERGE, "Enter": ENTER,
                 "RefEnter": ENTER, "Exit": EXIT, "RefExit": EXIT, "NextIteration": NEXT,
                 "RefNextIteration": NEXT, "ControlTrigger": TRIGGER, "_Send": SEND, "_Recv": RECV,
                 "_HostRecv": RECV}
ROOT = ""
CONTROL = -1  # the source port of a control edge


class OutEdge(NamedTuple):
    """An edge as the executor follows it, from its source (TensorFlow's `EdgeInfo` and `ControlEdgeInfo`)."""

    src_port: int       # the source's output, or CONTROL
    dst: "NodeItem"     # the consumer
    input_slot: int     # where the value lands in an iteration's input slots (the consumer's `input_start` +
    #                     its input index); -1 for a control edge
    pending_id: int     # the consumer's pending and dead counts in an iteration
    dst_is_merge: bool  # a Merge counts its inputs its own way


class NodeItem:
    """Everything the executor needs about one node, precomputed (TensorFlow's `NodeItem`)."""

    __slots__ = ("id", "op", "name", "kind", "kernel", "num_inputs", "input_start", "out_edges",
                 "merge_or_trigger_consumer", "pending_init", "frame", "frame_name", "is_constant",
                 "parallel_iterations", "num_outputs", "multi_output", "retval_index", "feed_index", "pending_id",
                 "in_edges", "control_in", "reachable")

    def __init__(self, id, op, name, kind):
        self.id = id
        self.op = op
        self.name = name
        self.kind = kind
        self.kernel = None
        self.num_inputs = 0
        self.input_start = 0
        self.out_edges = []      # OutEdges: the data edges, then the control edges
        self.merge_or_trigger_consumer = False  # a consumer counts its inputs its own way (executor.activate)
        self.pending_init = 0
        self.frame = None        # FrameInfo this node is activated in
        self.frame_name = ROOT   # for Enter: the child frame it enters
        self.is_constant = False
        self.parallel_iterations = 10
        self.num_outputs = 0
        self.multi_output = False
        self.retval_index = -1
        self.feed_index = -1
        self.pending_id = 0
        # (src_id, src_port) per data input slot, and the control sources' ids: the empty tuple for a node with
        # none (a root, a feed), one object fewer per node for the garbage collector
        self.in_edges = ()
        self.control_in = ()
        self.reachable = True

    def __repr__(self):
        return f"<NodeItem {self.id} {self.name} {KIND_NAMES[self.kind]}>"


class FrameInfo:
    """Static facts about one frame name: its nodes, input-slot layout, pending-count template."""

    __slots__ = ("name", "parent_name", "nodes", "total_inputs", "pending_template", "num_enters",
                 "parallel_iterations", "depth")

    def __init__(self, name, parent_name):
        self.name = name
        self.parent_name = parent_name
        self.nodes = []
        self.total_inputs = 0
        self.pending_template = None
        self.num_enters = 0
        self.parallel_iterations = 1
        self.depth = 0


class ExecutableGraph:
    def __init__(self, items, frames, roots, fetch_names, feed_tensors):
        self.items = items
        self.frames = frames
        self.roots = roots
        self.fetch_names = fetch_names
        self.feed_tensors = feed_tensors
        self.root_frame = frames[ROOT]
        # Whether the executor empties a node's input slots once it has fired (TensorFlow's ClearInputs), which
        # a kernel that writes into its input needs (slice_update.py); otherwise an iteration keeps them.
        self.clears_inputs = False
        self.needed_ops = [item.op for item in items if item.op is not None]  # the graph's, before any fusion


def compile_graph(graph, fetch_tensors, target_ops, feed_tensors, make_kernel, fuse=False, check=None):
    """Build the ExecutableGraph. `make_kernel(op)` returns the bound kernel for an op. With `fuse`, an item
    assignment `a[k] = v` runs as one slice update that may write into `a` (slice_update.py). `check()`, when
    given, is called between the phases and every 1024 nodes within them (a run's deadline and cancellation:
    runtime/cancellation.py), so a deadline stops a big graph's compile too."""
    check = check or (lambda: None)
    feed_set = set(feed_tensors)
    needed = needed_ops(fetch_tensors, target_ops, feed_set)
    ops = [op for op in graph._ops if op in needed]  # creation order: deterministic ids
    _check_no_cycle(ops, feed_set, check)
    needed_in_order = ops
    updates = slice_update.find(ops) if fuse else {}
    if updates:  # what only the item assignments read runs no more
        needed = needed_ops(fetch_tensors, target_ops, feed_set, lambda op: slice_update.inputs_of(op, updates))
        ops = [op for op in ops if op in needed]

    check()
    items, item_of_op, feed_item_of = _make_items(ops, feed_tensors, fetch_tensors, updates)
    check()
    _connect(ops, items, item_of_op, feed_item_of, fetch_tensors, updates)
    check()

    # Pending counts (TensorFlow's GetMaxPendingCounts): a Merge waits for its control edges and
    # one live data input (bit 0); every other node for all its in-edges.
    for item in items:
        n_ctrl = len(item.control_in)
        item.pending_init = 1 + 2 * n_ctrl if item.kind == MERGE else len(item.in_edges) + n_ctrl

    frames = _build_control_flow_info(items)
    check()

    # Input-slot and pending-count layout per frame (an iteration allocates these once).
    for frame in frames.values():
        offset = 0
        for k, item in enumerate(frame.nodes):
            item.input_start = offset
            item.pending_id = k
            offset += item.num_inputs
        frame.total_inputs = offset
        frame.pending_template = [item.pending_init for item in frame.nodes]
    _add_out_edges(items)
    check()
    _bind_kernels(items, ops, fetch_tensors, target_ops, feed_set, make_kernel, updates, check)

    roots = [item.id for item in items if not item.in_edges and not item.control_in]
    exe = ExecutableGraph(items, frames, roots, [t.name for t in fetch_tensors], list(feed_tensors))
    exe.clears_inputs = bool(updates)
    exe.needed_ops = needed_in_order
    return exe


def _make_items(ops, feed_tensors, fetch_tensors, updates):
    """One NodeItem per op, then one feed node per fed tensor (its consumers read the fed value instead of the
    producer's), then one retval node per fetch (TensorFlow's _Retval: it fires with the fetched value)."""
    items = []
    item_of_op = {}
    for op in ops:
        item = NodeItem(len(items), op, op._name, _KIND_OF_TYPE.get(op._type, NORMAL))
        item.num_inputs = len(slice_update.inputs_of(op, updates))
        item.num_outputs = len(op._outputs)
        item.multi_output = get_op_def(op._type).multi_output
        if item.kind == ENTER:
            item.frame_name = op.get_attr("frame_name")
            item.is_constant = op.get_attr("is_constant")
            item.parallel_iterations = op.get_attr("parallel_iterations")
        items.append(item)
        item_of_op[op] = item
    feed_item_of = {}
    for k, t in enumerate(feed_tensors):
        item = NodeItem(len(items), None, f"_feed/{t.name}", FEED)
        item.num_outputs = 1
        item.feed_index = k
        items.append(item)
        feed_item_of[t] = item
    for k, t in enumerate(fetch_tensors):
        item = NodeItem(len(items), None, f"_retval/{t.name}", RETVAL)
        item.num_inputs = 1
        item.retval_index = k
        items.append(item)
    return items, item_of_op, feed_item_of


def _connect(ops, items, item_of_op, feed_item_of, fetch_tensors, updates):
    """Each item's `in_edges` ((source id, port) per data input slot) and `control_in` (source ids); a fed tensor's
    consumers (and the control edges from a fed op) read its feed node."""

    def source_of(t):
        if t in feed_item_of:
            return feed_item_of[t].id, 0
        return item_of_op[t._op].id, t._value_index

    for op in ops:
        dst = item_of_op[op]
        inputs = slice_update.inputs_of(op, updates)
        if inputs:
            dst.in_edges = [source_of(t) for t in inputs]
        if op._control_inputs:
            sources = []
            for c in op._control_inputs:
                if c in item_of_op:
                    sources.append(item_of_op[c].id)
                elif c._outputs and c._outputs[0] in feed_item_of:
                    sources.append(feed_item_of[c._outputs[0]].id)
            dst.control_in = sources or ()
    first_retval = len(items) - len(fetch_tensors)
    for k, t in enumerate(fetch_tensors):
        items[first_retval + k].in_edges = [source_of(t)]


def _add_out_edges(items):
    """Each source's OutEdges in consumer order: its data edges, then its control edges (the executor's order)."""
    for dst in items:
        is_merge, counts_own_way = dst.kind == MERGE, dst.kind in (MERGE, TRIGGER)
        start, pending_id = dst.input_start, dst.pending_id
        for slot, (src, port) in enumerate(dst.in_edges):
            items[src].out_edges.append(OutEdge(port, dst, start + slot, pending_id, is_merge))
            items[src].merge_or_trigger_consumer |= counts_own_way
    for dst in items:
        if dst.control_in:
            counts_own_way = dst.kind in (MERGE, TRIGGER)
            edge = OutEdge(CONTROL, dst, -1, dst.pending_id, dst.kind == MERGE)
            for src in dst.control_in:
                items[src].out_edges.append(edge)
                items[src].merge_or_trigger_consumer |= counts_own_way


def _bind_kernels(items, ops, fetch_tensors, target_ops, feed_set, make_kernel, updates, check):
    """Each op's kernel, made once; a strict While computes only the loop variables the run needs
    (output_liveness.py); an item assignment's SelectV2 runs as a slice update, in place when the executor hands it
    its target's last reference."""
    live = None
    for item in items:
        if not item.id & 1023:
            check()
        if item.op in updates:
            item.kernel = slice_update.slice_update_kernel(updates[item.op], slice_update.LONE_IN_SLOT)
        elif item.op is not None:
            item.kernel = make_kernel(item.op)
            if hasattr(item.kernel, "for_outputs"):
                if live is None:
                    live = live_outputs(ops, fetch_tensors, target_ops, feed_set)
                item.kernel = item.kernel.for_outputs(live[item.op])


def _check_no_cycle(ops, feed_set, check=None):
    """Refuse a cycle that is not a loop's back edge (TensorFlow's `ValidateGraphHasNoCycle`): the loop-aware
    topological order (framework/topological_order.py) must place every node."""
    _, unordered = op_order(ops, feed_set, check)
    if unordered:
        in_cycle = [op.name for op in unordered][:3]
        raise errors.InvalidArgumentError(None, None, f"Graph is invalid, contains a cycle with {len(unordered)} "
                                                      f"nodes, including: {', '.join(in_cycle)}")


def _build_control_flow_info(items):
    """Assign every node the frame it is activated in, by BFS from the roots (TensorFlow's
    `BuildControlFlowInfo`), refusing a node fed from two frames."""
    n = len(items)
    out_nodes = [[] for _ in range(n)]
    for dst in items:
        for src, _ in dst.in_edges:
            out_nodes[src].append(dst.id)
        for src in dst.control_in:
            out_nodes[src].append(dst.id)
    frame_of = [None] * n
    parent_of = {ROOT: None}
    reached_from = [None] * n
    ready = deque()
    for item in items:
        if not item.in_edges and not item.control_in:
            frame_of[item.id] = ROOT
            ready.append(item.id)
    visited = [f is not None for f in frame_of]
    while ready:
        cur = ready.popleft()
        item = items[cur]
        frame_name = frame_of[cur]
        if item.kind == ENTER:
            child = item.frame_name
            if child in parent_of and parent_of[child] != frame_name:
                raise errors.InvalidArgumentError(
                    None, item.op, f"Frame '{child}' is entered from two frames: '{parent_of[child]}' and "
                                   f"'{frame_name}' (node {item.name}).")
            parent_of[child] = frame_name
            out_frame = child
        elif item.kind == EXIT:
            if frame_name == ROOT:
                raise errors.InvalidArgumentError(None, item.op, f"Invalid Exit op {item.name}: Cannot find a "
                                                                 f"corresponding Enter op.")
            out_frame = parent_of[frame_name]
        else:
            out_frame = frame_name
        for dst in out_nodes[cur]:
            if not visited[dst]:
                visited[dst] = True
                frame_of[dst] = out_frame
                reached_from[dst] = cur
                ready.append(dst)
            elif frame_of[dst] != out_frame:
                other = items[reached_from[dst]] if reached_from[dst] is not None else items[dst]
                raise errors.InvalidArgumentError(
                    None, items[dst].op,
                    f"{{{{node {items[dst].name}}}}} has inputs from different frames. The input "
                    f"{{{{node {item.name}}}}} is in frame '{out_frame}'. The input {{{{node {other.name}}}}} "
                    f"is in frame '{frame_of[dst]}'.")
    frames = {}

    def frame_info(name):
        if name not in frames:
            parent = parent_of.get(name)
            frames[name] = FrameInfo(name, parent)
            if parent is not None:
                frames[name].depth = frame_info(parent).depth + 1
        return frames[name]

    frame_info(ROOT)
    for item in items:
        if frame_of[item.id] is None:
            continue  # unreachable (e.g. waits on a cycle with no entry): never runs
        info = frame_info(frame_of[item.id])
        item.frame = info
        info.nodes.append(item)
        if item.kind == ENTER:
            child = frame_info(item.frame_name)
            child.num_enters += 1
            child.parallel_iterations = item.parallel_iterations
    for item in items:
        if item.frame is None:  # never reachable; keep it in the root layout so it is reported
            item.frame = frames[ROOT]
            item.reachable = False
            frames[ROOT].nodes.append(item)
    return frames
