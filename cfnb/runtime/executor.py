"""The tagged-token executor: TensorFlow's `ExecutorState` and `PropagatorState`, in Python, rule for rule.

Start with docs/tiny_executor.py: the same rules on one page, without the bookkeeping that makes them
fast. This module is what runs every graph the static schedule (fastpath/) does not, and every traced run.

A token is a node ready to fire, tagged with the frame instance and iteration its inputs arrived in: the
tuple `(item, frame, iteration, is_dead)`, TensorFlow's `TaggedNode` (an exact tuple, not a NamedTuple:
one is made and taken apart per firing, which CPython does on its fast path only for an exact tuple; a
NamedTuple token cost a third more per firing). Frames are instances of a loop: one per (parent frame, parent
iteration, frame name), so every outer iteration of a nested loop gets a fresh inner frame. Each
iteration of a frame has its own input slots and pending/dead counts (`IterationState`).

A run pops tokens from a FIFO ready queue. Each firing is two steps, as in TensorFlow:
`ExecutorState.process` computes the node (`ExecutorState::Process`), and
`ExecutorState.propagate_outputs` delivers its outputs and queues the successors that became ready
(`PropagatorState::PropagateOutputs`). The rules, with the TensorFlow function each one mirrors:
  * a node runs when its pending count reaches 0 and is dead iff any input was dead; a dead node
    skips its kernel and all its outputs are dead (`ExecutorState::Process`);
  * a Merge runs on its first live input, and is dead only when every input is dead (or the
    dead input came from an Enter) (`ActivateNodesSlowPathInternal`);
  * Switch forwards its data to output 1 if the predicate is true, else to output 0; the other
    output is dead (`SwitchOp`);
  * Enter starts or finds the child frame; a constant Enter is a loop invariant, replayed into
    every iteration, present and future (`FrameState::AddLoopInv`, `ActivateLoopInvs`);
  * Exit delivers a live value to the parent frame; a dead Exit is remembered only when it comes
    from the frame's newest iteration and is delivered when the frame is done (`DeleteFrame`);
  * NextIteration carries a live value into iteration i+1, starting it unless
    `parallel_iterations` iterations are already in flight, in which case it waits in
    `next_iter_roots`; a dead NextIteration stops the deadness (`PropagateOutputs`);
  * an iteration is done when nothing in it is outstanding and the one before it is done; a
    frame is done when all its inputs have arrived and no iteration is outstanding
    (`IsIterationDone`, `CleanupIterations`, `IsFrameDone`).
The run ends when no token is left. A fetch that never received a value is then reported with
the nodes that were still waiting for inputs: a stuck graph raises, it never hangs.

What this module leaves to others: a partitioned run's transfers, its inter-op pool and its cancellation
(device_executor.py, a subclass of `ExecutorState`), the record of a traced run (trace.py), and the
explanation of a run that went wrong (executor_errors.py). A graph with an item assignment that may write
into its input (slice_update.py) has its input slots emptied after each firing (TensorFlow's `ClearInputs`).
"""
import time
from collections import deque

import numpy as np

from ..framework import errors
from . import executor_errors
from .graph_compiler import CONTROL, ENTER, EXIT, FEED, MERGE, NEXT, NORMAL, RETVAL, SWITCH, TRIGGER

_MISSING = object()
PENDING = object()  # what `process` returns for a node that is not done yet (a Recv waiting for its Send)


class IterationState:
    """Input slots and pending/dead counts of one iteration of one frame instance."""

    __slots__ = ("iter_num", "inputs", "pending", "dead", "outstanding_ops", "outstanding_frame_count")

    def __init__(self, iter_num, info):
        self.iter_num = iter_num
        self.inputs = [None] * info.total_inputs
        self.pending = info.pending_template.copy()
        self.dead = [0] * len(info.pending_template)
        self.outstanding_ops = 0
        self.outstanding_frame_count = 0


class FrameState:
    """One instance of a frame: its live iterations, loop invariants, deferred NextIterations."""

    __slots__ = ("info", "parent_frame", "parent_iter", "max_parallel", "iteration_count",
                 "num_outstanding_iterations", "iterations", "next_iter_roots", "inv_values", "dead_exits",
                 "num_pending_inputs", "children", "path")

    def __init__(self, info, parent_frame, parent_iter):
        self.info = info
        self.parent_frame = parent_frame
        self.parent_iter = parent_iter
        self.max_parallel = max(1, info.parallel_iterations)
        self.iteration_count = 0
        self.num_outstanding_iterations = 1
        self.iterations = {0: IterationState(0, info)}
        self.next_iter_roots = []
        self.inv_values = []
        self.dead_exits = []
        self.num_pending_inputs = info.num_enters
        self.children = {}
        # The frame's address, for traces and errors: ((frame name, parent iteration), ...).
        self.path = () if parent_frame is None else parent_frame.path + ((info.name, parent_iter.iter_num),)


class Executor:
    """Runs one ExecutableGraph (graph_compiler.py). Stateless between runs: each `run` makes the state of
    that run, as TensorFlow's `ExecutorImpl` makes an `ExecutorState` per step."""

    def __init__(self, exe):
        self.exe = exe
        self.steps = 0  # node firings of the last run

    def run(self, feed_values, trace=None, deadline=None, cancellation=None):
        """The fetched values; `trace` (trace.py) records every firing, `deadline` (time.monotonic()) stops it, and
        so does `cancellation` (the run's StepCancellation: Session.close() from another thread)."""
        state = self.new_state(feed_values, trace, deadline)
        state.cancellation = cancellation
        try:
            state.run()
        finally:
            self.steps = state.steps
        return state.fetched(self)

    def new_state(self, feed_values, trace=None, deadline=None):
        """The state of one run (TensorFlow's `ExecutorState`), its roots in the ready queue."""
        return ExecutorState(self.exe, feed_values, trace, deadline)


class ExecutorState:
    """One run: the ready queue, the frames and iterations, the fetched values.

    `run` is the loop; `process` and `propagate_outputs` are one firing; `activate` delivers outputs to the
    successors in one iteration of one frame, the only place where a node is queued; the rest is the
    bookkeeping of frames and iterations (TensorFlow's `PropagatorState` and its `FrameState`)."""

    def __init__(self, exe, feed_values, trace=None, deadline=None):
        self.exe = exe
        self.feed_values = feed_values
        self.trace = trace
        self.deadline = deadline
        self.cancellation = None  # a StepCancellation (runtime/cancellation.py), asked with the deadline
        self.results = [_MISSING] * len(exe.fetch_names)
        self.root = FrameState(exe.root_frame, None, None)
        self.root.max_parallel = 1
        it0 = self.root.iterations[0]
        self.ready = deque((exe.items[r], self.root, it0, False) for r in exe.roots)
        it0.outstanding_ops = len(self.ready)
        self.steps = 0
        self.diagnose = None  # a list while re-running to explain a missing fetch (executor_errors.py)
        # The last Enter's child frame and iterations, referenced until the next Enter. In the executor's first
        # form they were locals of its one loop, alive while a device waited for a Recv; a GPU's memory
        # (device_memory.py) counts a buffer until its last reference goes, and chapter 09's numbers were
        # measured with them. Freed sooner, those iterations would lower its peaks (as TensorFlow's would be).
        self.entered = self.entered_iteration = None

    def run(self):
        """Fire ready nodes until none is left (TensorFlow's `ExecutorState::RunAsync` and `Process` loop)."""
        ready, trace = self.ready, self.trace
        process = self.process_and_clear_inputs if self.exe.clears_inputs else self.process
        popleft, propagate = ready.popleft, self.propagate_outputs
        steps = 0
        with np.errstate(all="ignore"):
            while ready or self.wait_for_ready():
                item, frame, it, is_dead = popleft()
                steps += 1
                if not steps & 1023:
                    self.steps = steps
                    self.check_in(item)
                outputs = process(item, frame, it, is_dead)
                if outputs is PENDING:
                    continue
                if trace is not None:
                    self.record(item, frame, it, outputs)
                propagate(item, frame, it, outputs)
        self.steps = steps

    # --- one firing -------------------------------------------------------------------------
    def process(self, item, frame, it, is_dead):
        """Compute one node (`ExecutorState::Process`): its outputs, or None when it is dead. A dead node skips
        its kernel; Enter, Exit and NextIteration pass their input on (their rules are in propagation)."""
        if is_dead:
            return None
        kind = item.kind
        inputs, start = it.inputs, item.input_start
        try:
            if kind == NORMAL:
                out = item.kernel(*inputs[start:start + item.num_inputs])
                return out if item.multi_output else (out,)
            if kind == SWITCH:  # SwitchOp: the data goes to output 1 if the predicate is true, else to output 0
                data, pred = inputs[start], inputs[start + 1]
                if np.ndim(pred) != 0:
                    raise errors.InvalidArgumentError(None, item.op, f"The second input must be a scalar, but it "
                                                                     f"has shape {list(np.shape(pred))}")
                return (None, data) if pred else (data, None)
            if kind == MERGE:  # MergeOp: the live input and its index
                values = inputs[start:start + item.num_inputs]
                k = next(k for k, v in enumerate(values) if v is not None)
                return values[k], np.int32(k)
            if kind == FEED:
                return (self.feed_values[item.feed_index],)
            if kind == RETVAL:
                self._set_result(item, inputs[start])
                return ()
            if kind == TRIGGER:
                return ()
            return (inputs[start],)  # Enter, Exit, NextIteration: identities
        except errors.OpError as e:
            raise executor_errors.located(e, item, frame, it) from None
        except Exception as e:  # noqa: BLE001 - every kernel failure names its node
            raise executor_errors.located(errors.InvalidArgumentError(None, item.op, f"{type(e).__name__}: {e}"),
                                          item, frame, it) from e

    def process_and_clear_inputs(self, item, frame, it, is_dead):
        """`process`, then the node's input slots emptied (TensorFlow's `ClearInputs`): a value in an iteration is
        then held only by the consumers still waiting for it, and a slice update may write into its input when it
        is the last one (slice_update.py). Graphs without one keep their slots until the iteration ends."""
        outputs = self.process(item, frame, it, is_dead)
        if outputs is not PENDING and item.num_inputs:
            start = item.input_start
            it.inputs[start:start + item.num_inputs] = [None] * item.num_inputs
        return outputs

    def propagate_outputs(self, item, frame, it, outputs):
        """Deliver a fired node's outputs (None: dead) and queue what became ready
        (`PropagatorState::PropagateOutputs`). Most nodes feed their own frame and iteration; Enter, Exit and
        NextIteration are how tokens change frame or iteration. Then the firing is no longer outstanding."""
        kind = item.kind
        if kind < ENTER or kind > NEXT:  # every node but Enter, Exit and NextIteration: the same frame and iteration
            it.outstanding_ops += self.activate(frame, it, item, outputs)
        elif kind == ENTER:
            self._enter(frame, it, item, outputs)
        elif kind == EXIT:
            self._exit(frame, it, item, outputs)
        else:
            self._next_iteration(frame, it, item, outputs)
        it.outstanding_ops -= 1
        if it.outstanding_ops == 0:
            self._maybe_frame_done(frame, it)

    def _enter(self, frame, it, item, outputs):
        """Into the child frame of this (frame, iteration): a loop invariant (constant Enter) reaches every
        iteration, present (here) and future (`_increment_iteration`); any other Enter reaches iteration 0."""
        child = self._find_or_create_child_frame(frame, it, item)
        child_it0 = child.iterations.get(0)
        self.entered = (child, child_it0)
        if item.is_constant:
            child.inv_values.append((item, outputs))
            for child_it in list(child.iterations.values()):
                self._activate_adjust(child, child_it, item, outputs)
                self.entered_iteration = child_it
        else:
            self._activate_adjust(child, child_it0, item, outputs)
        child.num_pending_inputs -= 1
        if child.num_pending_inputs == 0 and child_it0 is not None and child_it0.outstanding_ops == 0 \
                and 0 in child.iterations:
            self._maybe_frame_done(child, child.iterations[0])

    def _exit(self, frame, it, item, outputs):
        """A live Exit feeds the parent frame now; a dead one waits for the frame's end (`DeleteFrame`), and
        only the newest iteration's counts: an earlier iteration's dead Exit is the loop going on."""
        if outputs is not None:
            self._activate_adjust(frame.parent_frame, frame.parent_iter, item, outputs)
        elif it.iter_num == frame.iteration_count:
            frame.dead_exits.append(item)

    def _next_iteration(self, frame, it, item, outputs):
        """A live value starts (or joins) iteration i+1, or waits in `next_iter_roots` while
        `parallel_iterations` iterations are in flight; a dead one stops here, which is how a loop ends."""
        if outputs is None:
            return
        if it.iter_num == frame.iteration_count and frame.num_outstanding_iterations == frame.max_parallel:
            frame.next_iter_roots.append((item, outputs))
            return
        if it.iter_num == frame.iteration_count:
            next_it = self._increment_iteration(frame)
        else:
            next_it = frame.iterations[it.iter_num + 1]
        self._activate_adjust(frame, next_it, item, outputs)

    # --- activation: the one place where nodes become ready ----------------------------------
    def activate(self, frame, it, item, outputs):
        """Deliver `item`'s outputs (None: dead) to its successors in iteration `it` of `frame`, queue those now
        ready, and return how many (`FrameState::ActivateNodes`). A node waits for all its in-edges and is dead
        when one was dead; a Merge waits for its control edges and one live input (bit 0 of its count), and is
        dead only when every input is, or when a dead input comes from an Enter (a loop in an untaken branch);
        a ControlTrigger is never dead."""
        pending, dead, inputs = it.pending, it.dead, it.inputs
        ready = self.ready
        activated = 0
        if not item.merge_or_trigger_consumer:  # TensorFlow's ActivateNodesFastPath: every successor counts alike
            for src_port, dst, slot, pid, _ in item.out_edges:
                count = pending[pid] - 1
                pending[pid] = count
                if outputs is None:
                    dead[pid] += 1
                elif src_port != CONTROL:
                    value = outputs[src_port]
                    if value is None:  # a live Switch leaves its untaken output None
                        dead[pid] += 1
                    else:
                        inputs[slot] = value
                if not count:
                    ready.append((dst, frame, it, dead[pid] > 0))
                    activated += 1
            return activated
        for src_port, dst, slot, pid, dst_is_merge in item.out_edges:
            if src_port == CONTROL:  # a control edge carries the node's deadness
                value, edge_dead = None, outputs is None
            else:  # a data edge also carries its output's: a live Switch leaves its untaken output None
                value = None if outputs is None else outputs[src_port]
                edge_dead = value is None
            if not dst_is_merge:
                count = pending[pid] - 1
                pending[pid] = count
                if edge_dead:
                    dead[pid] += 1
                elif src_port != CONTROL:
                    inputs[slot] = value
                if count:
                    continue
                dst_dead = dead[pid] > 0
            elif src_port == CONTROL:
                count = pending[pid] = pending[pid] - 2
                dst_dead = dead[pid] == dst.num_inputs
                if not (count == 0 or (count == 1 and dst_dead)):
                    continue
            elif not edge_dead:
                count = pending[pid]
                if not count & 1:
                    continue  # a later live input: only the first live edge sets the input and fires the Merge
                pending[pid] = count = count & ~1
                inputs[slot] = value
                if count:
                    continue
                dst_dead = False
            else:
                dead[pid] += 1
                dst_dead = dead[pid] == dst.num_inputs or item.kind == ENTER
                if not (pending[pid] == 1 and dst_dead):
                    continue
            ready.append((dst, frame, it, dst_dead and dst.kind != TRIGGER))
            activated += 1
        return activated

    def _activate_adjust(self, frame, it, item, outputs):
        """Activate in another iteration or frame than the firing's own (`AdjustOutstandingOps`)."""
        it.outstanding_ops += self.activate(frame, it, item, outputs)
        if it.outstanding_ops == 0:
            self._maybe_frame_done(frame, it)

    # --- frames and iterations ---------------------------------------------------------------
    def _find_or_create_child_frame(self, frame, it, item):
        """The frame instance an Enter of `frame`'s iteration `it` feeds (TensorFlow's
        `PropagatorState::FindOrCreateChildFrame`): one per (parent iteration, frame name), so each outer iteration
        runs a fresh inner loop. Made by its first Enter, it counts as outstanding in the parent iteration until
        `_maybe_frame_done` deletes it."""
        key = (it.iter_num, item.frame_name)
        child = frame.children.get(key)
        if child is None:
            child = FrameState(self.exe.frames[item.frame_name], frame, it)
            frame.children[key] = child
            it.outstanding_frame_count += 1
        return child

    def _increment_iteration(self, frame):
        """Start iteration `iteration_count + 1`: deferred NextIterations, then loop invariants."""
        frame.iteration_count += 1
        new_it = IterationState(frame.iteration_count, frame.info)
        frame.iterations[frame.iteration_count] = new_it
        frame.num_outstanding_iterations += 1
        frame.dead_exits = []
        roots, frame.next_iter_roots = frame.next_iter_roots, []
        for item, outputs in roots + frame.inv_values:
            new_it.outstanding_ops += self.activate(frame, new_it, item, outputs)
        return new_it

    @staticmethod
    def _is_iteration_done(frame, it):
        """True when iteration `it` of `frame` has nothing left to run and cannot receive more (TensorFlow's
        `FrameState::IsIterationDone`): no outstanding ops or child frames, and for iteration 0 every input from
        the parent frame has arrived; a later iteration only after its predecessor was deleted."""
        if it.outstanding_ops == 0 and it.outstanding_frame_count == 0:
            if it.iter_num == 0:
                return frame.num_pending_inputs == 0
            return (it.iter_num - 1) not in frame.iterations
        return False

    def _cleanup_iterations(self, frame, it):
        """Delete finished iterations in order, starting at `it`, and start the deferred next one where
        `parallel_iterations` held it back (TensorFlow's `PropagatorState::CleanupFramesIterations`). Returns
        whether the whole frame is done: no inputs pending and no iteration outstanding."""
        curr = it.iter_num
        while curr <= frame.iteration_count and curr in frame.iterations and self._is_iteration_done(frame, it):
            if self.diagnose is not None:
                self.diagnose.extend(executor_errors.waiting_in(frame, it))
            del frame.iterations[curr]
            frame.num_outstanding_iterations -= 1
            curr += 1
            if frame.next_iter_roots:
                self._increment_iteration(frame)
            if curr <= frame.iteration_count:
                it = frame.iterations[curr]
        return frame.num_pending_inputs == 0 and frame.num_outstanding_iterations == 0

    def _maybe_frame_done(self, frame, it):
        """An iteration's outstanding count reached 0: clean up, delete finished frames upward."""
        while self._cleanup_iterations(frame, it):
            parent, parent_it = frame.parent_frame, frame.parent_iter
            if parent is None:
                return
            self._delete_frame(frame)
            parent_it.outstanding_frame_count -= 1
            frame, it = parent, parent_it

    def _delete_frame(self, frame):
        """Deliver the dead Exits of the frame's last iteration to the parent (`DeleteFrame`): a dead token of
        each, activated in the parent iteration like any other."""
        parent, parent_it = frame.parent_frame, frame.parent_iter
        for item in frame.dead_exits:
            parent_it.outstanding_ops += self.activate(parent, parent_it, item, None)
        parent.children.pop((parent_it.iter_num, frame.info.name), None)

    # --- hooks a partitioned run fills in (device_executor.py) ------------------------------
    def wait_for_ready(self):
        """The ready queue is empty: wait for work from elsewhere (a Send on another device); False when none
        can come. One device has nothing to wait for."""
        return False

    def check_in(self, item):
        """Every 1024 firings, before `item` fires: stop when the run's deadline has passed
        (`RunOptions.timeout_in_ms`) or the run was cancelled (`Session.close()` from another thread)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise errors.DeadlineExceededError(None, item.op, f"Timed out waiting for notification "
                                                              f"(after {self.steps} node firings)")
        if self.cancellation is not None and self.cancellation.error is not None:
            self.cancellation.check(item.op)

    def record(self, item, frame, it, outputs):
        """One firing into the run's trace (trace.py)."""
        self.trace.record(item, frame, it.iter_num, outputs is None, outputs)

    # --- results -------------------------------------------------------------------------------
    def _set_result(self, item, value):
        if self.results[item.retval_index] is not _MISSING:
            # A fetch computed twice: a NextIteration cycle in the root frame.
            raise errors.InternalError(None, None, f"Retval[{item.retval_index}] has already been set.")
        self.results[item.retval_index] = value

    def fetched(self, executor):
        """The fetched values, or the error that says which fetch never got one and why."""
        missing = [k for k, v in enumerate(self.results) if v is _MISSING or v is None]
        if missing:
            raise executor_errors.missing_fetch(executor, self, missing)
        return self.results
