"""The rendezvous: where a `_Send` leaves a tensor and the matching `_Recv` picks it up.

TensorFlow's `IntraProcessRendezvous` (rendezvous_mgr.cc) in miniature. A key names the edge
(`send_device;incarnation;recv_device;tensor_name`, the attrs partitioning gave the pair) and the frame
instance and iteration the tokens run in (`GetRendezvousKey(key_prefix, frame_iter)`), so the values of
different iterations, and of different outer iterations of a nested loop, never collide. A Send arrives
with its deadness: a dead Send makes a dead Recv, which is how a Recv on an untaken branch, or in the last
(false) iteration of a loop, completes and lets the run end.

Each device's executor talks to the rendezvous through its `Endpoint`. A Recv whose value is not there
yet is parked; the Send that provides it puts the token back in the receiving device's inbox. When every
device is waiting and no inbox holds anything, no Send can ever come: the run is stuck, and instead of
hanging the rendezvous raises, naming each waiting Recv, its device, frame and iteration. A device whose kernels
are still computing on its inter-op workers (runtime/inter_op.py) is not idle: their results come back through
the same wait, in the endpoint's `completed` list. A device that
fails aborts the others (TensorFlow's `StartAbort`), and waits honour the run's deadline.
"""
import threading
import time

from ..framework import errors
from .devices import short_name
from .graph_compiler import SEND


class Rendezvous:
    def __init__(self, num_devices):
        self._cond = threading.Condition()
        self._table = {}       # key -> (value, is_dead): sent, not yet received
        self._waiting = {}     # key -> (endpoint, token): a parked Recv
        self._endpoints = []
        self._busy = num_devices
        self.error = None
        self.sends = 0

    def endpoint(self, device):
        """A device's end of the rendezvous: its executor sends and receives through it, and the
        rendezvous counts it to know when every device is blocked."""
        ep = Endpoint(self, device)
        self._endpoints.append(ep)
        return ep

    def send(self, key, value, is_dead):
        """Deliver a `_Send`'s value and deadness (TensorFlow's `Rendezvous::Send`): to a Recv already parked
        on the key, else into the table until it comes. A key sent twice in one run is an internal error."""
        with self._cond:
            if self.error is not None:
                raise _cancelled(self.error)
            self.sends += 1
            waiter = self._waiting.pop(key, None)
            if waiter is not None:
                endpoint, token = waiter
                endpoint.inbox.append((token, value, is_dead))
                self._cond.notify_all()
            elif key in self._table:
                raise errors.InternalError(None, None, f"Send of {key[0][3]} ({_where(key)}) happened twice.")
            else:
                self._table[key] = (value, is_dead)

    def recv(self, key, endpoint, token):
        """(value, is_dead) when the Send already happened; otherwise park the token and return None."""
        with self._cond:
            got = self._table.pop(key, None)
            if got is None:
                self._waiting[key] = (endpoint, token)
            return got

    def complete(self, endpoint, token, result):
        """An inter-op worker finished the kernel of `token` (runtime/inter_op.py): wake its device's executor."""
        with self._cond:
            endpoint.completed.append((token, result))
            self._cond.notify_all()

    def wait(self, endpoint, deadline):
        """Block until a parked Recv of `endpoint` is satisfied or one of its pooled kernels is done; raise if
        neither ever can be. A device with kernels in flight is not idle: no stuck run while one computes."""
        with self._cond:
            self._busy -= 1
            try:
                while not endpoint.inbox and not endpoint.completed:
                    if self.error is not None:
                        raise _cancelled(self.error)
                    if self._busy == 0 and not any(ep.inbox or ep.completed or ep.in_flight for ep in self._endpoints):
                        self.error = self._stuck_error()
                        self._cond.notify_all()
                        raise self.error
                    timeout = None
                    if deadline is not None:
                        timeout = deadline - time.monotonic()
                        if timeout <= 0:
                            self.error = errors.DeadlineExceededError(
                                None, None, "Timed out waiting for a _Recv (RunOptions.timeout_in_ms); waiting: "
                                            + self._waiting_text())
                            self._cond.notify_all()
                            raise self.error
                    self._cond.wait(timeout if timeout is None else min(timeout, 0.5))
            finally:
                self._busy += 1
            arrivals, endpoint.inbox = endpoint.inbox, []
            completions, endpoint.completed = endpoint.completed, []
            endpoint.in_flight -= len(completions)
            return arrivals, completions

    def finished(self):
        """One device's executor ran out of work."""
        with self._cond:
            self._busy -= 1
            self._cond.notify_all()

    def abort(self, error):
        """Fail the run on every device (TensorFlow's `Rendezvous::StartAbort`): parked and later Sends and
        Recvs raise `error`, so that each device's executor stops at its next transfer."""
        with self._cond:
            if self.error is None:
                self.error = error
            self._cond.notify_all()

    def _waiting_text(self):
        rows = [f"{ep.in_flight} kernel(s) still computing on {short_name(ep.device)}'s inter-op workers"
                for ep in self._endpoints if ep.in_flight]
        for key, (endpoint, token) in sorted(self._waiting.items(), key=lambda kv: (kv[1][0].device, kv[1][1][0].name)):
            item = token[0]
            rows.append(f"{item.name} on {short_name(endpoint.device)} ({_where(key)}) waits for "
                        f"{key[0][3]} from {short_name(key[0][0])}")
        return "; ".join(rows) if rows else "(no Recv is parked)"

    def _stuck_error(self):
        return errors.InvalidArgumentError(
            None, None, "The partitioned run cannot make progress: every device is waiting and no _Send can "
                        "satisfy these _Recv nodes: " + self._waiting_text() + ".")


def _where(key):
    path, iteration = key[1], key[2]
    if not path:
        return "root frame"
    return f"frame '{path[-1][0]}' (parent iterations {[i for _, i in path]}), iteration {iteration}"


def _cancelled(error):
    return errors.CancelledError(None, None, f"Run cancelled because another device failed: "
                                             f"{getattr(error, 'message', error)}")


class Endpoint:
    """One device's side of the rendezvous, used by its executor (`DeviceExecutor.transfers`)."""

    def __init__(self, rendezvous, device):
        self.rendezvous = rendezvous
        self.device = device
        self.inbox = []
        self.parked = 0
        self._arrived = {}
        self._keys = {}
        self.on_resume = None
        self.copy_in = None  # a Recv's copy into this device's memory (device_memory.py), when counted
        self.pool = None       # the device's inter-op worker pool of this run (inter_op.py), if any
        self.in_flight = 0     # kernels submitted to the pool and not yet taken back by the executor
        self.completed = []    # (token, result) of pooled kernels that finished, guarded by the rendezvous

    def _edge_key(self, item):
        key = self._keys.get(item.id)
        if key is None:
            a = item.op._attrs
            key = (a["send_device"], a["send_device_incarnation"], a["recv_device"], a["tensor_name"])
            self._keys[item.id] = key
        return key

    def transfer(self, token):
        """Run a `_Send` or `_Recv` (an executor token, `(item, frame, iteration, is_dead)`): (outputs, is_dead), or
        None for a Recv parked until its Send."""
        item, frame, it, dead = token
        key = (self._edge_key(item), frame.path, it.iter_num)
        if item.kind == SEND:
            value = None if dead else it.inputs[item.input_start]
            self.rendezvous.send(key, value, value is None)
            return (), dead
        got = self._arrived.pop((item.id, id(it)), None)
        if got is None:
            got = self.rendezvous.recv(key, self, token)
            if got is None:
                self.parked += 1
                return None
        value, sent_dead = got
        dead = dead or sent_dead
        if not dead and self.copy_in is not None:
            value = self.copy_in(value)
        return (None if dead else (value,)), dead

    def check_aborted(self):
        """Raise when the run was cancelled (a device failed, or Ctrl-C): an executor busy with local work
        asks every so often, since it may never send or receive again (a loop wholly on its device)."""
        error = self.rendezvous.error
        if error is not None:
            raise _cancelled(error) if not isinstance(error, errors.CancelledError) else error

    def wait(self, state, deadline):
        """The executor (the run's `DeviceExecutorState`) ran out of ready nodes: wait for parked Recvs and pooled
        kernels (False when there are none). Each token comes back to the ready queue, where its Recv or kernel
        finds its result."""
        if not self.parked and not self.in_flight:
            return False
        arrivals, completions = self.rendezvous.wait(self, deadline)
        for token, value, is_dead in arrivals:
            self.parked -= 1
            item, _frame, it, _dead = token
            self._arrived[(item.id, id(it))] = (value, is_dead)
            state.ready.append(token)
        for token, result in completions:
            self.pool.results[(token[0].id, id(token[2]))] = result  # (item, frame, iteration, is_dead)
            state.ready.append(token)
        if self.on_resume is not None:
            self.on_resume()  # a trace starts this device's next firing now, not when the wait began
        return True
