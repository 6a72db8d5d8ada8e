"""`RunMetadata.memory_timeline`: each device's memory over one run (TensorFlow's `StepStats` memory stats,
`AllocatorMemoryUsed`: allocator name, peak bytes, live bytes, allocation records).

One `DeviceMemoryRecord` per device and one for the host: the events of the run (time, bytes in use
after it, the change, its kind and op: alloc, free, push, pop, swap_out, swap_in, prefetch), the peak,
the limit and the bytes swapped out. `cfnb.viz.plot_memory(timeline)` draws it.
"""
from typing import NamedTuple


class DeviceMemoryRecord(NamedTuple):
    device: str
    allocator_name: str
    limit: int | None
    peak_bytes: int
    swapped_out_bytes: int
    events: tuple

    def count(self, kind):
        """How many events of `kind` ("alloc", "free", "swap_out", ...) the device recorded."""
        return sum(1 for e in self.events if e.kind == kind)

    def backprop_start(self):
        """Time of the first pop of a history value (the gradient loop begins), or None."""
        return next((e.time for e in self.events if e.kind in ("pop", "swap_in")), None)


class MemoryTimeline:
    def __init__(self, allocators):
        self.devices = {}
        for device, a in allocators.items():
            with a._lock:
                self.devices[device] = DeviceMemoryRecord(device, a.name, a.limit, a.peak, a.swapped_out_bytes,
                                                          tuple(a.events))

    def peak_bytes(self, device):
        """The most bytes `device` held at once during the run."""
        return self[device].peak_bytes

    def __getitem__(self, device):
        """The record of a device: by full name, or by its short name (`GPU:0`, `host`)."""
        if device in self.devices:
            return self.devices[device]
        for name, record in self.devices.items():
            if name.upper().endswith(device.upper().replace("/DEVICE:", "")):
                return record
        raise KeyError(device)

    def __repr__(self):
        parts = [f"{r.allocator_name}: peak {r.peak_bytes} B" + (f" (limit {r.limit} B)" if r.limit else "")
                 + (f", swapped {r.swapped_out_bytes} B" if r.swapped_out_bytes else "")
                 for r in self.devices.values()]
        return f"<MemoryTimeline {'; '.join(parts)}>"
