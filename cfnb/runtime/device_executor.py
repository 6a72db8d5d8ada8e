"""One device's executor in a partitioned run: the single-device executor plus transfers, a pool and cancellation.

runtime/multi_device.py runs one of these per device, each in its own thread. They differ from the executor of
a single-device run (executor.py) in four ways, each a hook of `ExecutorState`:
  * `_Send` and `_Recv` run even when their token is dead, so deadness crosses devices (`ExecutorState::Process`,
    `is_transfer_node`); a Recv whose value has not arrived is parked, its token still outstanding, and comes back
    when the rendezvous delivers it (runtime/rendezvous.py);
  * an expensive kernel may run on the device's inter-op worker pool (runtime/inter_op.py, TensorFlow's
    `ScheduleReady`), its token outstanding until the result is back, and the trace records when it ran there;
  * when its ready queue is empty the device waits for a Send or a pooled kernel instead of ending;
  * every 1024 firings it also stops when another device failed or the run was interrupted (`StartAbort`).
"""
from ..framework import errors
from . import executor_errors
from .executor import PENDING, Executor, ExecutorState
from .graph_compiler import NORMAL, SEND


class DeviceExecutor(Executor):
    """The executor of one device's partition; `transfers` is the rendezvous Endpoint of the run under way."""

    def __init__(self, exe):
        super().__init__(exe)
        self.transfers = None

    def new_state(self, feed_values, trace=None, deadline=None):
        return DeviceExecutorState(self.exe, feed_values, trace, deadline, self.transfers)


class DeviceExecutorState(ExecutorState):
    """One device's run: transfers through `endpoint`, kernels maybe on `endpoint.pool`."""

    def __init__(self, exe, feed_values, trace, deadline, endpoint):
        super().__init__(exe, feed_values, trace, deadline)
        self.transfers = endpoint
        self.pool = endpoint.pool  # the device's inter-op workers, or None
        self.times = None  # (start, end) of the firing just computed when it ran on a worker

    def process(self, item, frame, it, is_dead):
        self.times = None
        if item.kind >= SEND:  # a transfer node runs even when dead
            done = self.transfers.transfer((item, frame, it, is_dead))
            if done is None:
                return PENDING  # a Recv waiting for its Send: the token stays outstanding
            outputs, dead = done
            return None if dead else outputs
        if self.pool is not None and item.kind == NORMAL and not is_dead:
            return self._process_pooled(item, frame, it)
        return super().process(item, frame, it, is_dead)

    def _process_pooled(self, item, frame, it):
        """ScheduleReady: an expensive kernel may go to the inter-op pool (inter_op.py)."""
        args = it.inputs[item.input_start:item.input_start + item.num_inputs]
        try:
            out, self.times = self.pool.run((item, frame, it, False), args, self.ready)
        except errors.OpError as e:
            raise executor_errors.located(e, item, frame, it) from None
        except Exception as e:  # noqa: BLE001 - every kernel failure names its node
            raise executor_errors.located(errors.InvalidArgumentError(None, item.op, f"{type(e).__name__}: {e}"),
                                          item, frame, it) from e
        if out is self.pool.SUBMITTED:
            return PENDING  # on a worker: the token stays outstanding until its result is back
        return out if item.multi_output else (out,)

    def wait_for_ready(self):
        return self.transfers.wait(self, self.deadline)

    def check_in(self, item):
        super().check_in(item)
        self.transfers.check_aborted()  # another device failed, or the run was interrupted

    def record(self, item, frame, it, outputs):
        self.trace.record(item, frame, it.iter_num, outputs is None, outputs, self.times)
