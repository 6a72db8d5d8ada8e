"""What a running kernel may ask of its device (a sliver of TensorFlow's `OpKernelContext`).

A kernel in cfnb/ops is a plain function of its inputs; the few that need their device — the history
accumulators that swap to host memory (`StackPushV2`, `TensorListPushBack` with swapping) — ask through
this module. The runtime installs the device of the kernel running on each thread
(runtime/device_memory.py); without one (no GPU devices) every call here is the identity, so the ops
layer never imports the runtime.
"""
import threading

import numpy as np

_tls = threading.local()


def device_module():
    """The array module of the device the current kernel runs on: numpy on a CPU (and outside the runtime),
    cupy on a real GPU, the strict test backend's tagged module on a simulated GPU under test. Kernels that
    build a new array rather than transform their inputs build it with this module."""
    ctx = getattr(_tls, "ctx", None)
    return np if ctx is None else ctx[2]


def set_device(device_memory, device):
    """Called by the runtime before a kernel runs on `device` (on the executor's thread)."""
    _tls.ctx = (device_memory, device, device_memory.array_module(device))


def swap_out(what, value):
    """What a push with swap_memory stores: a handle whose copy moves to host memory, or the value itself
    when the kernel does not run on a GPU device (TensorFlow swaps only from a GPU)."""
    ctx = getattr(_tls, "ctx", None)
    return value if ctx is None else ctx[0].swap_out(ctx[1], what, value)


def swap_in(element):
    """What a pop returns for a stored element: the value back in device memory."""
    return element.swap_in() if getattr(element, "is_swapped", False) else element


def prefetch(elements):
    """Start bringing back the elements the next pops will return (nearest first)."""
    for element in elements:
        if getattr(element, "is_swapped", False):
            element.prefetch()


def dtype_of(value):
    """`np.asarray(value).dtype` without bringing a device array to the host (a cupy array, which refuses implicit
    conversion, knows its dtype)."""
    dtype = getattr(value, "dtype", None)
    return np.dtype(dtype) if dtype is not None else np.asarray(value).dtype


def on_host(value):
    """`value` read on the host as a numpy array: what a GPU kernel's `HostMemory` inputs are in TensorFlow (a shape,
    reduction axes, a range's bounds). A cupy array is copied (`.get()`); anything else is `np.asarray`."""
    if type(value).__module__.split(".")[0] == "cupy":
        return value.get()
    return np.asarray(value)


def module_of(*values):
    """The module a kernel that transforms `values` computes with: that of a device array among them; numpy when all
    are int32 or string values, which a GPU keeps in host memory (TensorFlow's `HostMemory`: a Reshape or a Pack of
    shapes runs on the host); else the module of the kernel's device."""
    for v in values:
        if hasattr(v, "__cfnb_array_module__"):
            return v.__cfnb_array_module__()
        if type(v).__module__.split(".")[0] == "cupy":
            import cupy
            return cupy
    module = device_module()
    if getattr(module, "__name__", "") == "cupy" or all(_in_host_memory(v) for v in values):
        return np  # on a real GPU a value that is not a cupy array is in host memory
    return module


def _in_host_memory(value):
    dtype = getattr(value, "dtype", None)
    return dtype is not None and (dtype == np.int32 or dtype.kind in "SUO")


def array_module(*values):
    """The array module to build a kernel's new arrays with: that of its inputs, as `cupy.get_array_module`
    answers (cupy for a cupy array, the tagged module of the strict test backend, else numpy). A kernel that
    makes an array from a shape (`zeros`, `full`, `array`) asks here, so its output lands on its device."""
    for v in values:
        if hasattr(v, "__cfnb_array_module__"):
            return v.__cfnb_array_module__()
        if type(v).__module__.split(".")[0] == "cupy":
            import cupy
            return cupy
    return np
