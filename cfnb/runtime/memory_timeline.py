"""`RunMetadata.memory_timeline`: each device's memory over one run (TensorFlow's `StepStats` memory stats,
`AllocatorMemoryUsed`: allocator name, peak bytes, live bytes, allocation records).

One `DeviceMemoryRecord` per device and one for the host: the events of the run (time, bytes in use
after it, the change, its kind and op: alloc, free, push, pop, swap_out, swap_in, prefetch), the peak,
the limit and the bytes swapped out. `cfnb.viz.plot_memory(timeline)` draws it.
"""
from .allocator import MemoryEvent


class DeviceMemoryRecord:
    """One device's memory over a run: device, allocator_name, limit, peak_bytes, swapped_out_bytes and events (the
    MemoryEvents in order). The allocator records events as flat fields, which the garbage collector need not track;
    they become MemoryEvents when first read."""

    __slots__ = ("device", "allocator_name", "limit", "peak_bytes", "swapped_out_bytes", "_recorded", "_events")

    def __init__(self, device, allocator_name, limit, peak_bytes, swapped_out_bytes, events):
        self.device, self.allocator_name, self.limit = device, allocator_name, limit
        self.peak_bytes, self.swapped_out_bytes = peak_bytes, swapped_out_bytes
        self._recorded, self._events = tuple(events), None

    @property
    def events(self):
        """The run's MemoryEvents (time, bytes, delta, kind, what) in order."""
        if self._events is None:
            fields = iter(self._recorded)  # flat, five fields an event (Allocator._event)
            self._events, self._recorded = tuple(map(MemoryEvent._make, zip(*[fields] * 5))), None
        return self._events

    def count(self, kind):
        """How many events of `kind` ("alloc", "free", "swap_out", ...) the device recorded."""
        return sum(1 for e in self.events if e.kind == kind)

    def backprop_start(self):
        """Time of the first pop of a history value (the gradient loop begins), or None."""
        return next((e.time for e in self.events if e.kind in ("pop", "swap_in")), None)

    def __repr__(self):
        return (f"DeviceMemoryRecord(device={self.device!r}, allocator_name={self.allocator_name!r}, "
                f"limit={self.limit}, peak_bytes={self.peak_bytes}, swapped_out_bytes={self.swapped_out_bytes}, "
                f"{len(self.events)} events)")


class MemoryTimeline:
    def __init__(self, allocators):
        self.devices = {}
        for device, a in allocators.items():
            with a._lock:
                self.devices[device] = DeviceMemoryRecord(device, a.name, a.limit, a.peak, a.swapped_out_bytes,
                                                          a.events)

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
