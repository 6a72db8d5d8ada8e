"""swap_memory: history accumulators moved to host memory while the forward loop runs, and back for backprop.

TensorFlow's `StackPushV2` (stack_ops.cc, `StackPushOp::ComputeAsync`) does this when the stack lives on a
GPU and the push has `swap_memory=True`: it allocates a host tensor, starts the device-to-host copy on the
device's copy stream (`CopyDeviceTensorToCPU`), and when the copy is done pushes the host tensor, so the
device tensor is freed as soon as nothing else holds it. `StackPopV2` copies a swapped element back
(`CopyCPUTensorToDevice`) before returning it. TensorFlow copies back only on demand; cfnb also
prefetches: a pop starts bringing back the next few elements the backprop loop will pop, on the same
copy thread, when they fit under the device's limit. cfnb does the same for the TensorList accumulators of
functional (v2) loops, which TensorFlow never swapped (`TensorListPushBack` with `_swap_memory`).

The copy thread plays the copy stream (`CopyStream`): one per Session, first-in first-out, so a swap-in queued
after a swap-out of the same tensor finds the host copy ready. A GPU's copy engine runs beside its compute
engine; in one Python process the copy thread shares the interpreter with the executor, and handing it over
(waking the thread, the executor waiting to take the interpreter back after each numpy kernel) costs more than a
small copy: a 32 KB memcpy takes ~5 us, a thread switch tens of microseconds on a busy machine. So a value of at
most `SYNC_COPY_BYTES` is copied by the kernel that pushes or pops it, in the executor's own thread, as a CUDA
copy that small is as good as done when issued; only larger copies, which numpy makes without holding the
interpreter, go to the copy thread and overlap the executor's work. It wakes once per `COPY_BATCH` of them (or
when the executor waits for one). Either way the timeline is the same: the host holds the history, the device
buffer is freed once copied, and pops bring values back (prefetching ahead). Values are copied bit for bit
(`backends.to_host`, `backends.to_device`), so swapped runs give exactly the unswapped values.
"""
import threading
from collections import deque

import numpy as np

from . import backends

PREFETCH_DEPTH = 2   # how many elements a pop brings back ahead of need
COPY_BATCH = 4       # queued copies that wake the copy thread
SYNC_COPY_BYTES = 1 << 20  # values up to this size are copied in the kernel's thread, not on the copy stream


class CopyStream:
    """A device's copy stream: `submit(fn, *args)` queues a copy and returns its ticket, `wait(ticket)` returns
    once that copy is done, `result(ticket)` is what it returned. Copies run in order on one thread."""

    IDLE_SECONDS = 1.0  # the thread ends after this long with nothing to copy; the next copy starts another

    def __init__(self, name="cfnb copy stream"):
        self._name = name
        self._queue = deque()
        self._cv = threading.Condition()
        self._issued = self._done = self._waiting = 0
        self._results, self._errors = {}, {}
        self._closed = False
        self._thread = None

    def submit(self, fn, *args, keep=False):
        """Queue `fn(*args)`; its result is kept for `result` when `keep`."""
        with self._cv:
            self._issued += 1
            self._queue.append((self._issued, fn, args, keep))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            if len(self._queue) >= COPY_BATCH or self._waiting:
                self._cv.notify_all()
            return self._issued

    def wait(self, ticket):
        """Block until copy `ticket` is done, waking the copy thread to do what is queued now; a copy that failed
        raises its error here, in the thread that needs the value (as a CUDA stream's error surfaces at sync)."""
        with self._cv:
            while self._done < ticket:
                self._waiting += 1
                self._cv.notify_all()  # the copy thread does what is queued now, not after COPY_BATCH more
                self._cv.wait()
                self._waiting -= 1
            error = self._errors.pop(ticket, None)
        if error is not None:
            raise error

    def result(self, ticket):
        """What copy `ticket` returned, once done."""
        self.wait(ticket)
        with self._cv:
            return self._results.pop(ticket, None)

    def close(self):
        """Stop the copy thread once the queue is empty."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()

    def _run(self):
        while True:
            with self._cv:
                while not self._closed and (not self._queue or len(self._queue) < COPY_BATCH and not self._waiting):
                    if not self._cv.wait(self.IDLE_SECONDS):
                        break  # a while with no batch: copy what is queued, or end when nothing is
                if not self._queue:
                    self._thread = None
                    return
                batch = list(self._queue)
                self._queue.clear()
            done, errors = {}, {}
            for ticket, fn, args, keep in batch:
                try:
                    value = fn(*args)
                    if keep:
                        done[ticket] = value
                except Exception as e:  # noqa: BLE001 - raised again in the thread that waits for the copy
                    errors[ticket] = e
            with self._cv:
                self._results.update(done)
                self._errors.update(errors)
                self._done = batch[-1][0]
                self._cv.notify_all()


class HostBufferPool:
    """The host buffers swapped-out values are copied into, each kept for the next value of its shape and dtype.

    TensorFlow copies a swapped tensor into pinned host memory from `cuda_host_bfc`, a BFCAllocator over
    `GpuHostAllocator` that keeps the memory it grew to. A fresh numpy buffer per push would be fresh pages from the
    OS, and mapping 32 KB costs ~10x copying it (page faults; the history of one run is ~100 MB). A buffer is counted
    on the host allocator from `take` to `give_back`, so the host timeline is the one fresh buffers give."""

    def __init__(self, allocator):
        self._allocator = allocator
        self._free = {}  # (shape, dtype) -> buffers given back
        self._lock = threading.Lock()

    def take(self, like, what):
        """A host buffer of `like`'s shape and dtype, counted as `what`'s swap-out."""
        key = (like.shape, like.dtype)
        with self._lock:
            free = self._free.get(key)
            buffer = free.pop() if free else None
        if buffer is None:
            buffer = np.empty(like.shape, like.dtype)
        self._allocator.hold(buffer, what, kind="swap_out")
        return buffer

    def give_back(self, buffer):
        """`buffer` is free: its bytes leave the host's count, and the next `take` of its shape reuses it."""
        self._allocator.let_go(buffer)
        with self._lock:
            self._free.setdefault((buffer.shape, buffer.dtype), []).append(buffer)


class SwappedTensor:
    """A pushed value on its way to, or in, host memory. It holds the device copy only until the copy is
    done (the device buffer is then freed once the executor drops its own reference). A value of at most
    `SYNC_COPY_BYTES` is copied at once, in the pushing kernel's thread (`synchronous`); a larger one on the
    copy stream."""

    is_swapped = True  # what cfnb.framework.op_kernel_context recognizes
    __slots__ = ("_memory", "_device", "_alloc", "_what", "_device_value", "_host", "_pooled", "_out", "_in",
                 "nbytes", "synchronous")

    def __init__(self, memory, device, value, what):
        self._memory, self._device, self._what = memory, device, what
        self._alloc = alloc = memory.allocator(device)
        self._device_value = value
        self._host = None
        self._pooled = False  # whether _host is a buffer of the host pool (given back when this value goes)
        self._in = None  # the swap-in under way: a copy-stream ticket, or (value,) when copied synchronously
        self.nbytes = getattr(value, "nbytes", 0)
        alloc.note("push", what)
        self.synchronous = self.nbytes <= SYNC_COPY_BYTES  # copied in the kernel's thread, not on the copy stream
        if self.synchronous:
            self._out = None
            self._copy_out()
        else:
            self._out = memory.copier.submit(self._copy_out)  # a ticket of the copy stream

    def _copy_out(self):
        value = self._device_value
        if backends.is_array(value):
            host = backends.to_host(value, out=self._memory.host_pool.take(value, self._what))
            self._pooled = True
        else:
            host = self._memory.host.register(backends.to_host(value), self._what, kind="swap_out")
        self._alloc.note("swap_out", self._what, self.nbytes)
        self._host = host
        self._device_value = None  # the device copy is no longer the stack's

    def __del__(self):
        if self._pooled:  # nothing else holds the buffer (__array__ hands out copies): the pool may reuse it
            self._memory.host_pool.give_back(self._host)

    def wait_copied(self):
        """Block until the device-to-host copy has finished (the swap-out's event, as TensorFlow's stack swap waits on
        its copy stream); a synchronous copy is done already."""
        if self._out is not None:
            self._memory.copier.wait(self._out)

    def prefetch(self):
        """Start bringing the value back to the device (no-op when already under way or done)."""
        if self._in is None:
            if self.synchronous:
                self._in = (self._copy_in(True),)
            else:
                self._in = self._memory.copier.submit(self._copy_in, True, keep=True)

    def _copy_in(self, optional):
        # queued after this tensor's swap-out on the same stream (or made after it): the host copy is there
        alloc = self._alloc
        if optional and not alloc.fits(self.nbytes):
            return None  # no room now: the pop will copy it when it needs it
        value = backends.to_device(self._host, self._device)
        alloc.register(value, self._what, kind="prefetch" if optional else "swap_in")
        return value

    def swap_in(self):
        """The value, back on the device (the pop's output)."""
        pending, self._in = self._in, None
        if pending is None:
            value = None
        elif type(pending) is tuple:
            value = pending[0]
        else:
            value = self._memory.copier.result(pending)
        if value is None:
            self.wait_copied()
            value = self._copy_in(False)
        self._alloc.note("pop", self._what)
        return value  # the host copy stays: a v2 accumulator list may be popped by more than one gradient

    def __array__(self, dtype=None, copy=None):
        """A copy of the host value: the pooled buffer stays this value's alone."""
        self.wait_copied()
        return np.array(self._host, dtype=dtype, copy=True)
