"""The memory of a Session's devices: one allocator per device and one for the host, the kernel wrapper
that counts every output a kernel makes, the copies a Recv makes, and swapping's copy stream and host buffer pool.

Active when the Session has GPU devices (`ConfigProto(device_count={"GPU": 1})` or virtual devices in
`GPUOptions`). On a machine without a GPU (no cupy, or no device) a GPU is *simulated*: its arrays are numpy
arrays in host memory, but it has its own allocator, limit and timeline, so a memory-limited GPU behaves
as a real one would (TensorFlow's `GPUOptions.Experimental.VirtualDevices(memory_limit_mb=[...])`).
"""
import threading
import warnings
from collections import deque

import numpy as np

from ..framework import op_kernel_context
from ..framework.registry import get_op_def
from . import backends
from .allocator import Allocator
from .devices import parse
from .gpu_options import gpu_memory_limits
from .memory_timeline import MemoryTimeline
from .swap import CopyStream, HostBufferPool, SwappedTensor

MAX_COPIES_IN_FLIGHT = 8


class SimulatedDeviceWarning(UserWarning):
    """A GPU device is simulated on the host (no GPU, or no cupy, on this machine)."""


class DeviceMemory:
    def __init__(self, devices, gpu_options=None):
        limits = gpu_memory_limits(gpu_options)
        self.allocators = {}
        self.host = Allocator("cpu", "host")
        for name in devices:
            fields = parse(name)
            if fields.get("device_type") == "GPU":
                k = int(fields["device_index"])
                self.allocators[name] = Allocator(f"GPU_{k}_bfc", name, limits[k] if k < len(limits) else None)
            else:
                self.allocators[name] = self.host
        self._gpus = frozenset(d for d, a in self.allocators.items() if a is not self.host)  # where pushes swap
        self._inflight, self._inflight_lock = deque(), threading.Lock()
        self.copier = CopyStream()
        self.host_pool = HostBufferPool(self.host)
        self.simulated = not backends.has_gpu()

    @classmethod
    def for_session(cls, devices, gpu_options):
        """The memory of a Session's devices when it has a GPU, else None (no accounting on a CPU-only session). Without
        cupy the GPUs are simulated, with a warning that says their limits."""
        gpus = [d for d in devices if parse(d).get("device_type") == "GPU"]
        if not gpus:
            return None
        memory = cls(devices, gpu_options)
        if memory.simulated:
            limits = ", ".join(f"{a.device.rsplit('/', 1)[-1]} limit "
                               f"{'none' if a.limit is None else f'{a.limit >> 20} MiB'}"
                               for a in memory.gpu_allocators())
            warnings.warn(f"No GPU on this machine (cupy or a device is missing): GPU devices are simulated on the "
                          f"host with their own memory accounting ({limits}).", SimulatedDeviceWarning, stacklevel=3)
        return memory

    def close(self):
        """Stop the copy thread once its queued copies are done (Session.close)."""
        self.copier.close()

    def allocator(self, device):
        """The allocator of `device` (the host's for a device without its own)."""
        return self.allocators.get(device, self.host)

    def gpu_allocators(self):
        """The GPUs' allocators."""
        return [a for a in self.allocators.values() if a is not self.host]

    def start_run(self):
        """Start every allocator's record for a new run."""
        for a in {id(a): a for a in [self.host, *self.allocators.values()]}.values():
            a.start_run()

    def wrap_kernel(self, op, kernel):
        """Count the outputs of `kernel` on the allocator of the device `op` runs on."""
        device = op.device
        if kernel is None or device not in self.allocators:
            return kernel
        alloc = self.allocators[device]
        ctx = (self, device)
        multi = get_op_def(op.type).multi_output
        register = alloc.register
        if op.type in ("Const", "HostConst") and backends.is_gpu(device):
            # A constant's tensor is copied into the device's memory once, when its kernel is made
            # (TensorFlow's ConstantOp: `MakeTensorFromProto` on the op's device).
            host = kernel()
            value = register(backends.to_device(host, device), op)
            return lambda: value
        check = backends.is_strict() and backends.is_gpu(device)

        def run(*args):
            op_kernel_context.set_device(*ctx)
            out = kernel(*args)
            for value in (out if multi else (out,)):
                if check:
                    _check_on_device(op, device, value)
                register(value, op)
            return out
        return run

    def array_module(self, device):
        """The array module kernels on `device` compute with: cupy on a real GPU, the strict simulated module under
        strict simulation, numpy otherwise."""
        if backends.is_strict() and backends.is_gpu(device):
            return backends.strict.module(device)
        return backends.array_module(device)

    def swap_out(self, device, what, value):
        """A swapping push on `device`: a SwappedTensor on a GPU (the copy starts now), else the value."""
        if device not in self._gpus or not hasattr(value, "nbytes"):
            return value
        swapped = SwappedTensor(self, device, value, what)
        if swapped.synchronous:
            return swapped  # copied already
        # TensorFlow's push is an async kernel that completes when its copy is done, so the forward loop
        # cannot run ahead of the copy stream by more than a few pushes; here: at most MAX_COPIES_IN_FLIGHT.
        with self._inflight_lock:
            self._inflight.append(swapped)
            waiting = [self._inflight.popleft() for _ in range(len(self._inflight) - MAX_COPIES_IN_FLIGHT)]
        for w in waiting:
            w.wait_copied()
        return swapped

    def copy_in(self, device):
        """What a `_Recv` on `device` does with a value from another device: copy it into this device's memory."""
        alloc = self.allocator(device)

        def recv(value):
            value = backends.to_device(value, device) if backends.is_gpu(device) else backends.to_host(value)
            return alloc.register(value, "_Recv", kind="alloc")
        return recv

    def timeline(self):
        """The run's memory timeline per device (`RunMetadata.memory_timeline`), for the course's memory plots."""
        return MemoryTimeline({a.device: a for a in [*self.gpu_allocators(), self.host]})


def _check_on_device(op, device, value):
    """The strict backend's rule: a kernel on a device returns arrays of that device (rank-0 and int32 host
    arrays pass: strict.is_host_memory)."""
    if isinstance(value, np.ndarray) and not backends.strict.is_host_memory(value) and \
            not (isinstance(value, backends.strict.DeviceArray) and value.device == device):
        raise backends.strict.DeviceMixingError(
            f"{op.type} kernel '{op.name}' on {device} returned a host numpy array of shape {value.shape}: it fell "
            f"back to host numpy instead of its device's array module")
