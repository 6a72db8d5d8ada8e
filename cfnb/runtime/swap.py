"""swap_memory: history accumulators moved to host memory while the forward loop runs, and back for backprop.

TensorFlow's `StackPushV2` (stack_ops.cc, `StackPushOp::ComputeAsync`) does this when the stack lives on a
GPU and the push has `swap_memory=True`: it allocates a host tensor, starts the device-to-host copy on the
device's copy stream (`CopyDeviceTensorToCPU`), and when the copy is done pushes the host tensor, so the
device tensor is freed as soon as nothing else holds it. `StackPopV2` copies a swapped element back
(`CopyCPUTensorToDevice`) before returning it. TensorFlow copies back only on demand; cfnb also
prefetches: a pop starts bringing back the next few elements the backprop loop will pop, on the same
copy thread, when they fit under the device's limit. cfnb does the same for the TensorList accumulators of
functional (v2) loops, which TensorFlow never swapped (`TensorListPushBack` with `_swap_memory`).

The copy thread plays the copy stream: one per Session, first-in first-out, so a swap-in queued after a
swap-out of the same tensor finds the host copy ready. Values are copied bit for bit (`backends.to_host`,
`backends.to_device`), so swapped runs give exactly the unswapped values.
"""
from . import backends

PREFETCH_DEPTH = 2   # how many elements a pop brings back ahead of need


class SwappedTensor:
    """A pushed value on its way to, or in, host memory. It holds the device copy only until the copy is
    done (the device buffer is then freed once the executor drops its own reference)."""

    is_swapped = True  # what cfnb.framework.op_kernel_context recognizes
    __slots__ = ("_memory", "_device", "_what", "_device_value", "_host", "_out", "_in", "nbytes")

    def __init__(self, memory, device, value, what):
        self._memory, self._device, self._what = memory, device, what
        self._device_value = value
        self._host = None
        self._in = None
        self.nbytes = getattr(value, "nbytes", 0)
        memory.allocator(device).note("push", what)
        self._out = memory.copier.submit(self._copy_out)

    def _copy_out(self):
        host = backends.to_host(self._device_value)
        self._memory.host.register(host, self._what, kind="swap_out")
        self._memory.allocator(self._device).note("swap_out", self._what, self.nbytes)
        self._host = host
        self._device_value = None  # the device copy is no longer the stack's

    def wait_copied(self):
        """Block until the device-to-host copy has finished (the swap-out's event, as TensorFlow's stack swap waits on
        its copy stream)."""
        self._out.result()

    def prefetch(self):
        """Start bringing the value back to the device (no-op when already under way)."""
        if self._in is None:
            self._in = self._memory.copier.submit(self._copy_in, True)

    def _copy_in(self, optional):
        self._out.result()
        alloc = self._memory.allocator(self._device)
        if optional and not alloc.fits(self.nbytes):
            return None  # no room now: the pop will copy it when it needs it
        value = backends.to_device(self._host, self._device)
        alloc.register(value, self._what, kind="prefetch" if optional else "swap_in")
        return value

    def swap_in(self):
        """The value, back on the device (the pop's output)."""
        pending, self._in = self._in, None  # the future must not keep the device copy alive
        value = pending.result() if pending is not None else None
        if value is None:
            self._out.result()
            value = backends.to_device(self._host, self._device)
            self._memory.allocator(self._device).register(value, self._what, kind="swap_in")
        self._memory.allocator(self._device).note("pop", self._what)
        return value  # the host copy stays: a v2 accumulator list may be popped by more than one gradient

    def __array__(self, dtype=None, copy=None):
        self._out.result()
        return self._host if dtype is None else self._host.astype(dtype)
