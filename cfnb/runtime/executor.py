"""The tagged-token executor: TensorFlow's `PropagatorState`, in Python, rule for rule.

A token is `(node, frame, iteration, is_dead)`. Frames are instances of a loop: one per (parent
frame, parent iteration, frame name), so every outer iteration of a nested loop gets a fresh
inner frame. Each iteration of a frame has its own input slots and pending/dead counts.

The rules, with the TensorFlow function each one mirrors:
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

In a partitioned run (runtime/multi_device.py) each device's executor also has transfer nodes:
`_Send` and `_Recv` run even when their token is dead, so deadness crosses devices
(`ExecutorState::Process`, `is_transfer_node`); a Recv whose value has not arrived is parked, its
token still outstanding, and comes back when the rendezvous delivers it (runtime/rendezvous.py).
"""
import time
from collections import deque

import numpy as np

from ..framework import errors
from ..framework.registry import get_op_def
from .graph_compiler import ENTER, EXIT, FEED, MERGE, NEXT, NORMAL, RETVAL, SEND, SWITCH, TRIGGER

_MISSING = object()


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
    """Runs one ExecutableGraph. Stateless between runs; `run` returns the fetched values."""

    def __init__(self, exe):
        self.exe = exe
        self._diagnose = None  # a list while re-running to explain a missing fetch
        self.transfers = None  # a rendezvous Endpoint when this executor runs one device's partition

    def run(self, feed_values, trace=None, deadline=None, cancellation=None):
        """The fetched values. `deadline` (a time.monotonic() value) and `cancellation` (the run's
        StepCancellation: Session.close() from another thread) are checked every 1024 firings."""
        exe = self.exe
        items = exe.items
        results = [_MISSING] * len(exe.fetch_names)
        root = FrameState(exe.root_frame, None, None)
        root.max_parallel = 1
        it0 = root.iterations[0]
        ready = deque((items[r], root, it0, False) for r in exe.roots)
        it0.outstanding_ops = len(exe.roots)
        self._ready = ready
        steps = 0
        popleft = ready.popleft
        pool = self.transfers.pool if self.transfers is not None else None  # a device's inter-op workers

        with np.errstate(all="ignore"):
            while ready or (self.transfers is not None and self.transfers.wait(self, deadline)):
                item, frame, it, dead = popleft()
                kind = item.kind
                times = None  # (start, end) of a firing computed on an inter-op worker
                steps += 1
                if not steps & 1023:
                    if deadline is not None and time.monotonic() > deadline:
                        raise errors.DeadlineExceededError(None, item.op, f"Timed out waiting for notification "
                                                                          f"(after {steps} node firings)")
                    if cancellation is not None and cancellation.error is not None:
                        cancellation.check(item.op)
                    if self.transfers is not None:
                        self.transfers.check_aborted()  # another device failed, or the run was interrupted
                # --- compute -------------------------------------------------------------------
                if kind >= SEND:  # a transfer node runs even when dead
                    done = self.transfers.transfer(item, frame, it, dead)
                    if done is None:
                        continue  # a Recv waiting for its Send: the token stays outstanding
                    outputs, dead = done
                elif dead:
                    outputs = None
                else:
                    start = item.input_start
                    try:
                        if kind == NORMAL:
                            args = it.inputs[start:start + item.num_inputs]
                            if pool is None:
                                out = item.kernel(*args)
                            else:  # ScheduleReady: an expensive kernel may go to the inter-op pool (inter_op.py)
                                out, times = pool.run((item, frame, it, dead), args, ready)
                                if out is pool.SUBMITTED:
                                    continue  # on a worker: the token stays outstanding until its result is back
                            outputs = out if item.multi_output else (out,)
                        elif kind == SWITCH:
                            data, pred = it.inputs[start], it.inputs[start + 1]
                            if np.ndim(pred) != 0:
                                raise errors.InvalidArgumentError(
                                    None, item.op, f"The second input must be a scalar, but it has shape "
                                                   f"{list(np.shape(pred))}")
                            outputs = (None, data) if pred else (data, None)
                        elif kind == MERGE:
                            outputs = self._merge(item, it.inputs[start:start + item.num_inputs])
                        elif kind == FEED:
                            outputs = (feed_values[item.feed_index],)
                        elif kind == RETVAL:
                            if results[item.retval_index] is not _MISSING:
                                # A fetch computed twice: a NextIteration cycle in the root frame.
                                raise errors.InternalError(None, None, f"Retval[{item.retval_index}] has already "
                                                                       f"been set.")
                            results[item.retval_index] = it.inputs[start]
                            outputs = ()
                        elif kind == TRIGGER:
                            outputs = ()
                        else:  # Enter, Exit, NextIteration: identities; the work is in propagation
                            outputs = (it.inputs[start],)
                    except errors.OpError as e:
                        raise self._located(e, item, frame, it) from None
                    except Exception as e:  # noqa: BLE001 - every kernel failure names its node
                        raise self._located(errors.InvalidArgumentError(None, item.op, f"{type(e).__name__}: {e}"),
                                            item, frame, it) from e
                if trace is not None:
                    trace.record(item, frame, it.iter_num, dead, outputs, times)

                # --- propagate (PropagatorState::PropagateOutputs) --------------------------
                if kind == ENTER:
                    child = self._find_or_create_child_frame(frame, it, item)
                    child_it0 = child.iterations.get(0)
                    if item.is_constant:
                        value = None if dead else outputs[0]
                        child.inv_values.append((item, value))
                        for child_it in list(child.iterations.values()):
                            self._activate_adjust(child, child_it, item, (value,), dead)
                    else:
                        self._activate_adjust(child, child_it0, item, outputs, dead)
                    child.num_pending_inputs -= 1
                    if child.num_pending_inputs == 0 and child_it0 is not None and child_it0.outstanding_ops == 0 \
                            and 0 in child.iterations:
                        self._maybe_frame_done(child, child.iterations[0])
                elif kind == EXIT:
                    if dead:
                        if it.iter_num == frame.iteration_count:
                            frame.dead_exits.append(item)
                    else:
                        parent, parent_it = frame.parent_frame, frame.parent_iter
                        self._activate_adjust(parent, parent_it, item, outputs, False)
                elif kind == NEXT:
                    if not dead:
                        if it.iter_num == frame.iteration_count and \
                                frame.num_outstanding_iterations == frame.max_parallel:
                            frame.next_iter_roots.append((item, outputs[0]))
                        else:
                            if it.iter_num == frame.iteration_count:
                                next_it = self._increment_iteration(frame)
                            else:
                                next_it = frame.iterations[it.iter_num + 1]
                            self._activate_adjust(frame, next_it, item, outputs, False)
                else:
                    # The common case: successors in the same frame and iteration.
                    it.outstanding_ops += self._activate(frame, it, item, outputs, dead)
                it.outstanding_ops -= 1
                if it.outstanding_ops == 0:
                    self._maybe_frame_done(frame, it)

        self.steps = steps
        missing = [k for k, v in enumerate(results) if v is _MISSING or v is None]
        if missing:
            raise self._missing_error(missing, root, feed_values)
        return results

    # --- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _merge(item, values):
        k = next(k for k, v in enumerate(values) if v is not None)
        return values[k], np.int32(k)

    def _activate(self, frame, it, item, outputs, is_dead):
        """Deliver `item`'s outputs to its successors in (frame, it); queue those now ready.
        Returns how many became ready (TensorFlow's ActivateNodes)."""
        items = self.exe.items
        pending, dead, inputs = it.pending, it.dead, it.inputs
        ready = self._ready
        activated = 0
        for port, dst, loc, pid, dst_is_merge in item.out_edges:
            value = None if is_dead else outputs[port]
            if dst_is_merge:
                if value is not None:
                    count = pending[pid]
                    if not count & 1:
                        # A later live input: as in TensorFlow, only the first live edge sets the input
                        # and triggers the Merge (the gradient of a variable read in one cond branch
                        # is Merge([g, g])); the rest are dropped.
                        continue
                    pending[pid] = count & ~1
                    dst_ready = count == 1
                    dst_dead = False
                    inputs[loc] = value
                else:
                    dead[pid] += 1
                    dst_item = items[dst]
                    dst_dead = dead[pid] == dst_item.num_inputs or item.kind == ENTER
                    dst_ready = pending[pid] == 1 and dst_dead
            else:
                p = pending[pid] - 1
                pending[pid] = p
                if value is None:
                    dead[pid] += 1
                else:
                    inputs[loc] = value
                dst_ready = p == 0
                dst_dead = dst_ready and dead[pid] > 0
            if dst_ready:
                dst_item = items[dst]
                if dst_item.kind == TRIGGER:
                    dst_dead = False
                ready.append((dst_item, frame, it, dst_dead))
                activated += 1
        for dst, pid, dst_is_merge in item.control_out:
            if dst_is_merge:
                pending[pid] -= 2
                count = pending[pid]
                dst_dead = dead[pid] == items[dst].num_inputs
                dst_ready = count == 0 or (count == 1 and dst_dead)
            else:
                p = pending[pid] - 1
                pending[pid] = p
                if is_dead:
                    dead[pid] += 1
                dst_ready = p == 0
                dst_dead = dst_ready and dead[pid] > 0
            if dst_ready:
                dst_item = items[dst]
                if dst_item.kind == TRIGGER:
                    dst_dead = False
                ready.append((dst_item, frame, it, dst_dead))
                activated += 1
        return activated

    def _activate_adjust(self, frame, it, item, outputs, is_dead):
        """Activate in another iteration or frame (AdjustOutstandingOps)."""
        it.outstanding_ops += self._activate(frame, it, item, outputs, is_dead)
        if it.outstanding_ops == 0:
            self._maybe_frame_done(frame, it)

    def _find_or_create_child_frame(self, frame, it, item):
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
        for item, value in roots:
            new_it.outstanding_ops += self._activate(frame, new_it, item, (value,), False)
        for item, value in frame.inv_values:
            new_it.outstanding_ops += self._activate(frame, new_it, item, (value,), value is None)
        return new_it

    @staticmethod
    def _is_iteration_done(frame, it):
        if it.outstanding_ops == 0 and it.outstanding_frame_count == 0:
            if it.iter_num == 0:
                return frame.num_pending_inputs == 0
            return (it.iter_num - 1) not in frame.iterations
        return False

    def _cleanup_iterations(self, frame, it):
        curr = it.iter_num
        while curr <= frame.iteration_count and curr in frame.iterations and self._is_iteration_done(frame, it):
            if self._diagnose is not None:
                self._diagnose.extend(self._waiting_in(frame, it))
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
        """Deliver the dead Exits of the frame's last iteration to the parent (DeleteFrame)."""
        parent, parent_it = frame.parent_frame, frame.parent_iter
        items = self.exe.items
        for item in frame.dead_exits:
            pending, dead = parent_it.pending, parent_it.dead
            for _port, dst, _loc, pid, dst_is_merge in item.out_edges:
                dst_item = items[dst]
                if dst_is_merge:
                    dead[pid] += 1
                    dst_dead = dead[pid] == dst_item.num_inputs
                    dst_ready = pending[pid] == 1 and dst_dead
                else:
                    dead[pid] += 1
                    pending[pid] -= 1
                    dst_ready, dst_dead = pending[pid] == 0, True
                if dst_ready:
                    self._ready.append((dst_item, parent, parent_it, dst_dead and dst_item.kind != TRIGGER))
                    parent_it.outstanding_ops += 1
            for dst, pid, dst_is_merge in item.control_out:
                dst_item = items[dst]
                if dst_is_merge:
                    pending[pid] -= 2
                    dst_dead = dead[pid] == dst_item.num_inputs
                    dst_ready = pending[pid] == 0 or (pending[pid] == 1 and dst_dead)
                else:
                    dead[pid] += 1
                    pending[pid] -= 1
                    dst_ready, dst_dead = pending[pid] == 0, True
                if dst_ready:
                    self._ready.append((dst_item, parent, parent_it, dst_dead and dst_item.kind != TRIGGER))
                    parent_it.outstanding_ops += 1
        parent.children.pop((parent_it.iter_num, frame.info.name), None)

    # --- errors ----------------------------------------------------------------------------
    @staticmethod
    def _frame_text(frame, it):
        if not frame.path:
            return "the root frame"
        return f"frame '{frame.info.name}' (parent iterations {[i for _, i in frame.path]}), iteration {it.iter_num}"

    def _located(self, error, item, frame, it):
        where = f"[[node {item.name} ({item.op.type if item.op is not None else item.name}) in " \
                f"{self._frame_text(frame, it)}]]"
        error.message = f"{error.message}\n  {where}"
        error.op = item.op
        error.args = (error.message,)
        return error

    def _missing_error(self, missing, root, feed_values):
        names = [self.exe.fetch_names[k] for k in missing]
        waiting = self._waiting_nodes(root)
        stateless = not any(item.op is not None and get_op_def(item.op.type).stateful for item in self.exe.items)
        if not waiting and stateless and self._diagnose is None:
            # Finished iterations are deleted with what they held; replay the run (it has no
            # side effects) recording the nodes that an iteration left waiting.
            self._diagnose = []
            try:
                self.run(feed_values)
            except errors.InvalidArgumentError:
                pass
            waiting, self._diagnose = self._diagnose, None
        msg = (f"Retval[{missing[0]}] does not have value: the fetch '{names[0]}' was never computed "
               f"live.")
        if waiting:
            msg += (" These nodes were still waiting for inputs when nothing could run any more: "
                    + ", ".join(waiting[:12]) + ("" if len(waiting) <= 12 else f" (and {len(waiting) - 12} more)")
                    + ".")
        else:
            msg += (" It was dead: it lies on the untaken side of a Switch (for example a cond branch that was "
                    "not taken), so it carries no value.")
        return errors.InvalidArgumentError(None, None, msg)

    def _waiting_nodes(self, root):
        """Nodes that received some inputs but not all, in any live frame/iteration."""
        out = []
        stack = [root]
        while stack:
            frame = stack.pop()
            for it in frame.iterations.values():
                out.extend(self._waiting_in(frame, it))
            stack.extend(frame.children.values())
        return out

    @staticmethod
    def _waiting_in(frame, it):
        out = []
        for item in frame.info.nodes:
            p = it.pending[item.pending_id]
            if 0 < p < item.pending_init and item.kind not in (RETVAL, FEED, MERGE):
                where = f"frame '{frame.info.name}', " if frame.path else ""
                out.append(f"{item.name} ({where}iteration {it.iter_num})")
        return out
