"""Execution traces: one record per node firing, cheap enough to leave on in a notebook.

A `Firing` says which node ran, in which frame instance and iteration, whether its token was
live or dead, and a short summary of the value it produced. The executor calls `Trace.record`
only when a trace was asked for, so tracing costs nothing when it is off.
"""
import threading
import time
from typing import NamedTuple

import numpy as np

from .graph_compiler import KIND_NAMES, NORMAL


class Firing(NamedTuple):
    step: int
    node: str          # node name, e.g. "while/Merge"
    op_type: str       # "Merge", "AddV2", ... ("feed"/"retval" for the session's own nodes)
    frame: str         # frame name ("" for the root frame)
    frame_path: tuple  # ((frame name, parent iteration), ...) from the root down
    iteration: int
    live: bool
    value: str         # short summary of output 0 (or of the taken Switch output)
    port: int          # for a Switch: which output carried the value (0 false, 1 true); else 0
    device: str = ""   # the device the node ran on ("" when the graph was not placed)
    start: float = 0.0  # seconds since the trace began: when the device started this firing...
    end: float = 0.0    # ...and when it finished (the device timeline of a partitioned run)

    def __str__(self):
        where = "/".join(f"{name}@{i}" for name, i in self.frame_path) or "root"
        state = "live" if self.live else "dead"
        return f"{self.step:5d}  {self.node:<32} {where:<40} iter {self.iteration:<4} {state}  {self.value}"


def summarize(value, width=40):
    """A short, deterministic text for a value: `3`, `1.5`, `float32[2,3] [0.1 0.2 ...]`."""
    if value is None:
        return "-"
    if hasattr(value, "name") and not isinstance(value, np.ndarray | np.generic):
        return f"<{type(value).__name__} {value.name}>"
    arr = np.asarray(value)
    if arr.dtype == object:
        text = str(value)
    elif arr.ndim == 0:
        v = arr.item()
        text = f"{v:.6g}" if isinstance(v, float) else str(v)
    else:
        body = np.array2string(arr.reshape(-1)[:6], precision=4, separator=" ", threshold=6)
        more = " ..." if arr.size > 6 else ""
        text = f"{arr.dtype.name}{list(arr.shape)} {body[:-1]}{more}]"
    return text if len(text) <= width else text[:width - 3] + "..."


class TraceLimitReached(Exception):
    """Raised by a Trace with a `limit` when it is full: the run stops there (cfnb's own, so that a
    viewer can trace the first N firings of a long or endless loop)."""


class Trace:
    """The list of firings of one run (`trace.firings`), plus lookups the viewer needs. With a
    `limit`, recording the (limit+1)-th firing stops the run (TraceLimitReached); `truncated` says so."""

    def __init__(self, limit=None):
        self.firings = []
        self.limit = limit
        self.truncated = False
        self._lock = threading.Lock()  # a partitioned run records from one thread per device
        self._t0 = time.perf_counter()
        self._last = {}  # thread -> when its previous firing ended

    def resume(self):
        """The calling device starts its next firing now (it was waiting for a Recv, not computing)."""
        self._last[threading.get_ident()] = time.perf_counter() - self._t0

    def resume_all(self):
        """A run starts: every device's first firing starts from now."""
        self._t0 = time.perf_counter()
        self._last = {}

    def record(self, item, frame, iteration, dead, outputs, times=None):
        """One firing; `times` (perf_counter start, end) when it ran on an inter-op worker, not on the device's
        own thread (inter_op.py), whose previous firing then does not mark its start."""
        if self.limit is not None and len(self.firings) >= self.limit:
            self.truncated = True
            raise TraceLimitReached(f"the trace holds its first {self.limit} firings")
        if dead or not outputs:
            value, port = "-", 0
        elif KIND_NAMES[item.kind] == "Switch":
            port = 0 if outputs[0] is not None else 1
            value = summarize(outputs[port])
        else:
            value, port = summarize(outputs[0]), 0
        op_type = item.op.type if item.op is not None else KIND_NAMES[item.kind]
        if item.kind != NORMAL and item.op is None:
            op_type = KIND_NAMES[item.kind]
        if times is None:
            end = time.perf_counter() - self._t0
            tid = threading.get_ident()
            start = self._last.get(tid, 0.0)
            self._last[tid] = end
        else:
            start, end = times[0] - self._t0, times[1] - self._t0
        device = item.op.device if item.op is not None else ""
        with self._lock:
            self.firings.append(Firing(len(self.firings), item.name, op_type, frame.info.name, frame.path, iteration,
                                       not dead, value, port, device, start, end))

    def __len__(self):
        return len(self.firings)

    def __iter__(self):
        return iter(self.firings)

    def __getitem__(self, k):
        return self.firings[k]

    def of_node(self, name):
        """The firings of the node named `name`, in order: one per iteration for a node in a loop."""
        return [f for f in self.firings if f.node == name]

    def as_text(self, limit=None, nodes=None):
        """One line per firing (optionally only those of `nodes`, at most `limit` lines)."""
        rows = [f for f in self.firings if nodes is None or f.node in nodes]
        return "\n".join(str(f) for f in rows[:limit])

    def __repr__(self):
        return f"<cfnb Trace: {len(self.firings)} firings>"
