"""Memory accounting of history stacks: bytes held by each stack over a run, and the peak.

Filled when a run is traced (`RunOptions(trace_level=FULL_TRACE)`) and returned in
`RunMetadata.memory`. An event is recorded at every push and pop, so the timeline shows the forward
loop filling the stacks and the gradient loop draining them.
"""
from typing import NamedTuple


class MemoryEvent(NamedTuple):
    event: int       # running index of push/pop events in this run
    stack: str       # the StackV2 node's name (e.g. gradients/while/mul_grad/Mul_1/f_acc)
    bytes: int       # bytes this stack holds after the event
    total: int       # bytes all stacks hold after the event
    swap: bool       # the push asked for swap_memory (TensorFlow would move it to host memory)


class MemoryLog:
    def __init__(self, graph=None):
        self.graph = graph  # the run's graph, where a drawing finds the value each stack holds (`stack of x`)
        self.events = []
        self._held = {}
        self.peak_bytes = 0
        self.peak_by_stack = {}

    def record(self, stack, nbytes, swap):
        """Record that `stack` now holds `nbytes` (after a push or pop, swapped or not): the running total and the peaks
        per stack are what chapter 09 plots."""
        self._held[stack] = nbytes
        total = sum(self._held.values())
        self.events.append(MemoryEvent(len(self.events), stack, nbytes, total, swap))
        self.peak_bytes = max(self.peak_bytes, total)
        self.peak_by_stack[stack] = max(self.peak_by_stack.get(stack, 0), nbytes)

    def timeline(self, stack=None):
        """The events in order, of one stack or all."""
        return [e for e in self.events if stack is None or e.stack == stack]

    def __repr__(self):
        return f"<MemoryLog: {len(self.events)} events, peak {self.peak_bytes} bytes>"
