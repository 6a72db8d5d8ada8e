"""Device memory accounting: a BFC-style allocator's bytes in use, limit, peak and timeline.

TensorFlow's GPU allocator (`BFCAllocator`, bfc_allocator.cc) hands out buffers rounded up to multiples of
256 bytes (`RoundedBytes`, `kMinAllocationSize`) and refuses an allocation that would exceed its limit
(`GPUOptions...VirtualDevices.memory_limit_mb`); the kernel then fails with ResourceExhaustedError
("OOM when allocating tensor with shape[...] and type float on ... by allocator GPU_0_bfc").
A buffer is returned when the last reference to its tensor goes away (`TensorBuffer` is reference
counted; the executor drops its references as soon as the consumers ran).

cfnb's arrays are Python objects, reference counted by Python itself, so the allocator lets Python do the
counting: a kernel's output buffer is registered when the kernel makes it and released by a
weak reference's callback when its last reference (a slot of the executor, a stack, a TensorList) is dropped.
Views count once, through the array that owns the memory.
"""
import threading
import time
import weakref
from functools import partial
from typing import NamedTuple

import numpy as np

from ..framework import errors

K_MIN_ALLOCATION_SIZE = 256  # bfc_allocator.h


def rounded_bytes(nbytes):
    """`BFCAllocator::RoundedBytes`: up to a multiple of 256, at least 256."""
    return max(K_MIN_ALLOCATION_SIZE, -(-int(nbytes) // K_MIN_ALLOCATION_SIZE) * K_MIN_ALLOCATION_SIZE)


_TYPE_NAMES = {"float32": "float", "float64": "double", "int32": "int", "int64": "int64", "bool": "bool",
               "float16": "half", "complex64": "complex64", "complex128": "complex128", "uint8": "uint8",
               "int8": "int8", "int16": "int16"}


def owner_of(array):
    """The array that owns the memory a view points into."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class MemoryEvent(NamedTuple):
    time: float      # seconds since the run started
    bytes: int       # bytes in use after the event
    delta: int       # bytes allocated (+) or freed (-)
    kind: str        # "alloc", "free", "swap_out", "swap_in", "prefetch", "push", "pop"
    what: str        # the op (or stack/list) the event belongs to


class Allocator:
    """The memory of one device (or of the host): `bytes_in_use`, `limit` (None = unlimited), `peak`, and
    the events of the run under way."""

    def __init__(self, name, device, limit=None):
        self.name = name          # TensorFlow's allocator name: GPU_0_bfc, cpu
        self.device = device
        self.limit = limit
        self.bytes_in_use = 0
        self.peak = 0
        self.swapped_out_bytes = 0
        self.events = []          # flat: time, bytes, delta, kind, what of each MemoryEvent in turn
        self._live = {}           # id(owner array) -> (rounded bytes, weak reference to it)
        self._lock = threading.Lock()
        self._t0 = time.perf_counter()

    def start_run(self):
        """Start a run's record: its events and swap counter from zero, and its peak from what is still allocated
        (TensorFlow's allocator stats are per device, a run's RunMetadata shows the run's own)."""
        with self._lock:
            self.events = []
            self.peak = self.bytes_in_use
            self.swapped_out_bytes = 0
            self._t0 = time.perf_counter()

    def _event(self, delta, kind, what):
        # five fields appended flat, not one object per event: a run records ~40k events, and as tracked objects
        # (NamedTuples) they made the garbage collector run full collections; MemoryTimeline names the fields
        self.events.extend((time.perf_counter() - self._t0, self.bytes_in_use, delta, kind, what))

    def fits(self, nbytes):
        """Whether `nbytes` more (rounded as the BFC allocator rounds) stay within the device's memory limit: a
        prefetch of a swapped-out value asks first, and waits for its pop when there is no room."""
        return self.limit is None or self.bytes_in_use + rounded_bytes(nbytes) <= self.limit

    def register(self, array, op=None, kind="alloc"):
        """Count `array`'s buffer on this device until its last reference goes; ResourceExhaustedError when
        it does not fit under the limit. Arrays already counted (an op passing its input through) are free."""
        if not isinstance(array, np.ndarray):
            return array
        owner = owner_of(array)
        key = id(owner)
        with self._lock:
            if key in self._live:
                return array
            size = rounded_bytes(owner.nbytes)
            if self.limit is not None and self.bytes_in_use + size > self.limit:
                raise self._oom(array, size, op)
            # a plain weak reference with a callback, ~3x cheaper than weakref.finalize: every kernel output pays it
            self._live[key] = (size, weakref.ref(owner, partial(self._release, key)))
            self.bytes_in_use += size
            self.peak = max(self.peak, self.bytes_in_use)
            self._event(size, kind, getattr(op, "name", op) or "")
        return array

    def hold(self, buffer, what, kind="alloc"):
        """Count `buffer` until `let_go(buffer)`, not until Python frees it: a buffer of a pool that outlives the
        value it holds (swapping's host buffers, runtime/swap.py). The host has no limit; a device's is enforced."""
        size = rounded_bytes(buffer.nbytes)
        with self._lock:
            if self.limit is not None and self.bytes_in_use + size > self.limit:
                raise self._oom(buffer, size, what)
            self._live[id(buffer)] = (size, None)
            self.bytes_in_use += size
            self.peak = max(self.peak, self.bytes_in_use)
            self._event(size, kind, what)

    def let_go(self, buffer):
        """The end of a `hold`: the buffer's bytes are free (back in its pool)."""
        self._release(id(buffer))

    def _release(self, key, _ref=None):
        with self._lock:
            size = self._live.pop(key, (0,))[0]
            if size:
                self.bytes_in_use -= size
                self._event(-size, "free", "")

    def note(self, kind, what, nbytes=0):
        """Mark a push, pop or copy on the timeline without changing the bytes in use."""
        with self._lock:
            if kind == "swap_out":
                self.swapped_out_bytes += nbytes
            self._event(0, kind, what)

    def _oom(self, array, size, op):
        shape = ",".join(str(d) for d in array.shape)
        dtype = _TYPE_NAMES.get(array.dtype.name, array.dtype.name)
        name = op if isinstance(op, str) else getattr(op, "name", None)
        where = f" [[{{{{node {name}}}}}]]" if name else ""
        return errors.ResourceExhaustedError(
            None, op if not isinstance(op, str) else None,
            f"OOM when allocating tensor with shape[{shape}] and type {dtype} on {self.device} by allocator "
            f"{self.name}: {name or 'the allocation'} needs {size} bytes (rounded from {array.nbytes}), "
            f"{self.bytes_in_use} bytes in use, limit {self.limit} bytes.{where}\n"
            f"Hint: the loop's history accumulators hold one tensor per iteration; while_loop(..., "
            f"swap_memory=True) moves them to host memory.")
