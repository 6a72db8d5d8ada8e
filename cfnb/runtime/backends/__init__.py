"""Array backends: the array module a device computes with, and the only two ways to move an array.

TensorFlow's kernels are registered per device type and allocate through their device's allocator; a
tensor moves between devices only in `_Send`/`_Recv` (the rendezvous copies it with
`CopyTensor::ViaDMA`) and in `swap_memory` copies (`DeviceContext::CopyDeviceTensorToCPU` and back).
cfnb mirrors the rule: `array_module(device)` is numpy for a CPU device and for a *simulated* GPU
(a machine without cupy or without a GPU), cupy for a real GPU; `to_device` and `to_host` are the
explicit copies that Recv and swapping use. `get_array_module(*arrays)` answers like
`cupy.get_array_module`: the module of the arrays a kernel was given.
"""
import contextlib
import ctypes
import functools

import numpy as np

from ...framework import op_kernel_context
from . import strict

_simulation = {"strict": False}  # tests: simulated GPUs hold strict.DeviceArray instead of plain numpy


@functools.lru_cache(maxsize=1)
def cupy_module():
    """cupy when it is installed and sees a GPU (`pip install -e .[gpu]`), else None."""
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        return cupy
    except Exception:  # noqa: BLE001 - no cupy, no driver, no device: all mean "no GPU here"
        return None


@contextlib.contextmanager
def strict_simulation():
    """Within: a simulated GPU's arrays are `strict.DeviceArray`s, and device kernels are checked
    (device_memory.py), so a kernel that falls back to host numpy fails instead of passing silently."""
    was, _simulation["strict"] = _simulation["strict"], True
    try:
        yield
    finally:
        _simulation["strict"] = was


def is_strict():
    """Whether GPU kernels run under the strict simulated backend (tests: proves no kernel falls back to host numpy on a
    GPU)."""
    return _simulation["strict"]


def has_gpu():
    """Whether cupy and a CUDA device are available: GPU devices are real then, simulated otherwise."""
    return not _simulation["strict"] and cupy_module() is not None  # a strict simulation simulates every GPU


def is_gpu(device):
    """Whether a device name names a GPU (`.../device:GPU:0`, `/gpu:1`)."""
    return "GPU" in (device or "").upper().rsplit("/", 1)[-1]


def array_module(device):
    """numpy, or cupy for a GPU device when a real GPU is present."""
    if is_gpu(device) and has_gpu():
        return cupy_module()
    return np


def get_array_module(*arrays):
    """The module of the given arrays (cupy.get_array_module's rule): cupy if any is a cupy array."""
    cp = cupy_module()
    if cp is not None:
        return cp.get_array_module(*arrays)
    return np


def is_array(value):
    """Whether `value` is an array with a buffer (numpy or cupy), not a Python or numpy scalar."""
    cp = cupy_module()
    return isinstance(value, np.ndarray) or (cp is not None and isinstance(value, cp.ndarray))


def to_host(value, out=None):
    """A host (numpy) copy of `value`: the device-to-host copy of swapping and of a Recv on the CPU; into `out` when
    given (a host buffer of `value`'s shape and dtype that swapping reuses, runtime/swap.py's HostBufferPool)."""
    cp = cupy_module()
    if cp is not None and isinstance(value, cp.ndarray):
        if out is None:
            return cp.asnumpy(value)
        value = cp.ascontiguousarray(value)  # (out is a C-contiguous pooled buffer of value's shape and dtype)
        value.data.copy_to_host(ctypes.c_void_p(out.ctypes.data), value.nbytes)
        return out
    if not isinstance(value, np.ndarray):
        return value  # Python and numpy scalars are immutable values, not buffers
    if out is None:
        return np.array(value, copy=True)
    np.copyto(out, value if type(value) is np.ndarray else value.view(np.ndarray))  # a strict DeviceArray: untagged
    return out


def to_device(value, device):
    """A copy of `value` in `device`'s memory: the host-to-device copy of a Recv and of a swap-in. On a real GPU,
    int32 and string values stay in host memory, as TensorFlow's GPU kernels take them (`HostMemory`: shapes, sizes,
    axes, loop counters; cupy holds no strings), which is the rule the strict backend simulates (strict.py)."""
    xp = array_module(device)
    if xp is np:
        if not isinstance(value, np.ndarray):
            return value
        copy = np.array(value, copy=True)
        return strict.on_device(copy, device) if _simulation["strict"] and is_gpu(device) else copy
    if isinstance(value, (np.ndarray, np.generic)) and op_kernel_context.is_host_memory_dtype(value.dtype):
        return value.copy()
    if isinstance(value, (str, bytes)):
        return value
    return xp.asarray(value)


def in_host_memory(value):
    """A GPU kernel's output as TensorFlow places it: an int32 cupy array moves to host memory (`HostMemory`)."""
    cp = cupy_module()
    if cp is not None and isinstance(value, cp.ndarray) and value.dtype == np.int32:
        return value.get()
    return value
