"""What a running kernel may ask of its device (a sliver of TensorFlow's `OpKernelContext`).

A kernel in cfnb/ops is a plain function of its inputs; the few that need their device — the history
accumulators that swap to host memory (`StackPushV2`, `TensorListPushBack` with swapping) — ask through
this module. The runtime installs the device of the kernel running on each thread
(runtime/device_memory.py); without one (no GPU devices) every call here is the identity, so the ops
layer never imports the runtime.
"""
import threading

_tls = threading.local()


def set_device(device_memory, device):
    """Called by the runtime before a kernel runs on `device` (on the executor's thread)."""
    _tls.ctx = (device_memory, device)


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
