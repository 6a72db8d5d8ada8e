"""What a running kernel may ask of its device (a sliver of TensorFlow's `OpKernelContext`).

A kernel in cfnb/ops is a plain function of its inputs; what it needs of its device it asks through this module:
the array module to compute with (`device_module`, `array_module`, `module_of`), a value's dtype or its host copy
without an implicit device-to-host conversion, which cupy refuses (`dtype_of`, `on_host`), and, for the history
accumulators that swap to host memory (`StackPushV2`, `TensorListPushBack` with swapping), `swap_out`/`swap_in`.
The runtime installs the device of the kernel running on each thread (runtime/device_memory.py); without one (no
GPU devices) every call here is numpy's or the identity, so the ops layer never imports the runtime.
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
    are in host memory (on a real GPU every value that is not a cupy array; on a simulated one, int32 and string
    values: TensorFlow's `HostMemory`, so a Reshape or a Pack of shapes runs on the host); else the module of the
    kernel's device. On a CPU it is numpy at once (Reshape, Pack and Select ask on every call)."""
    module = device_module()
    if module is np:
        return np
    found = _device_array_module(values)
    if found is not None:
        return found
    if getattr(module, "__name__", "") == "cupy" or all(
            is_host_memory_dtype(getattr(v, "dtype", None)) for v in values):
        return np
    return module


def is_host_memory_dtype(dtype):
    """int32, strings and objects: what a GPU kernel keeps in host memory (TensorFlow's `HostMemory` registrations;
    cupy holds no strings). The runtime's backends place values by the same rule."""
    return dtype is not None and (dtype == np.int32 or np.dtype(dtype).kind in "SUO")


def array_module(*values):
    """The array module to build a kernel's new arrays with: that of its inputs, as `cupy.get_array_module`
    answers (cupy for a cupy array, the tagged module of the strict test backend, else numpy). A kernel that
    makes an array from a shape (`zeros`, `full`, `array`) asks here, so its output lands on its device."""
    return _device_array_module(values) or np


def _device_array_module(values):
    """The module of the first device array among `values` (the strict backend's tagged module, cupy), else None."""
    for v in values:
        if hasattr(v, "__cfnb_array_module__"):
            return v.__cfnb_array_module__()
        if type(v).__module__.split(".")[0] == "cupy":
            import cupy
            return cupy
    return None
