"""TensorFlow's executor in a hundred-odd lines: the rules and nothing else. Start reading here.

A token is (value, is_dead, tag), its tag a frame instance and an iteration. A node fires once per tag, when its
inputs with that tag are in: an ordinary node when all are, dead if one is (a dead node skips its kernel); a Merge
on its first live input, dead only when all are (or a dead one comes from an Enter). Switch sends its value to one
output and a dead token to the other. Enter moves a token into a child frame, one instance per (parent frame,
iteration); a constant Enter reaches every iteration. NextIteration moves a token to iteration i+1, which waits
while `parallel_iterations` iterations are running; a dead one goes nowhere, and that ends the loop. A live Exit
moves its token out to the parent frame; the last iteration's dead Exits leave when the frame is done.
cfnb/runtime/executor.py runs the same rules fast; tests/test_tiny_executor.py requires both to fire the same
nodes in the same order with the same values.
"""
from collections import deque

import numpy as np

from cfnb.framework.registry import get_op_def
from cfnb.passes.pruning import needed_ops

# The control-flow primitives' kernels: a tuple of outputs, None for a dead one.
KERNELS = {"Switch": lambda x, pred: (None, x) if pred else (x, None),
           "Merge": lambda *xs: next((x, np.int32(k)) for k, x in enumerate(xs) if x is not None),
           "Enter": lambda x: (x,), "Exit": lambda x: (x,), "NextIteration": lambda x: (x,), "ControlTrigger": tuple}


class Frame:
    """One instance of a loop's frame: made by the first Enter of a parent frame's iteration."""

    def __init__(self, name, parent, parent_iter, enters, parallel):
        self.name, self.parent, self.parent_iter = name, parent, parent_iter
        self.path = () if parent is None else parent.path + ((name, parent_iter),)
        self.enters = enters  # how many Enters into it are still to fire
        self.parallel = parallel  # parallel_iterations: how many iterations may run at once
        self.iters = {0: Iteration()}  # the iterations not yet done
        self.newest = 0  # the newest iteration started
        self.children = {}  # (iteration, frame name) -> Frame
        self.invariants = []  # the constant Enters' tokens, sent again into each new iteration
        self.waiting = []  # NextIterations' tokens held back by parallel_iterations
        self.dead_exits = []  # the newest iteration's dead Exits: sent to the parent when the frame is done


class Iteration:
    """One iteration of a frame instance: the tokens each node has received in it, and what it owes (the firings
    it has queued and the child frames it has made) before it can be done."""

    def __init__(self):
        self.inputs = {}  # node -> Inputs
        self.owed = 0


class Inputs:
    """The tokens one node has received in one iteration."""

    def __init__(self, node):
        self.values = [None] * len(node.inputs)
        self.merge = node.type == "Merge"
        self.dead, self.live = 0, False  # how many dead tokens came; whether a Merge has its live one
        self.pending = len(node.control_inputs) + (0 if self.merge else len(node.inputs))

    def add(self, slot, value, dead, from_enter):
        """A token on input `slot` (None: a control edge): None while the node waits, else whether it is dead."""
        if not self.merge:  # an ordinary node waits for every edge, and is dead if one was
            self.pending, self.dead = self.pending - 1, self.dead + dead
            if slot is not None and not dead:
                self.values[slot] = value
            return None if self.pending else self.dead > 0
        if slot is None:  # a Merge waits for its control edges and its first live input
            self.pending -= 1
        elif self.live:
            return None  # an input after the live one changes nothing
        elif dead:
            self.dead += 1
        else:
            self.values[slot], self.live = value, True
        if self.pending:
            return None
        if self.live:
            return False
        if self.dead == len(self.values) or (slot is not None and from_enter):
            return True  # dead when every input is, or at once on a dead token from an Enter
        return None


class TinyExecutor:
    """Runs the graph that computes `fetches`, one node at a time, by the rules above."""

    def __init__(self, fetches, feeds, kernel_of):
        """`fetches`: tensors; `feeds`: {tensor: value}; `kernel_of(op)`: the op's kernel, a function of its inputs."""
        self.fetches, needed = list(fetches), needed_ops(fetches, [], set(feeds))
        ops = [op for op in self.fetches[0].graph.get_operations() if op in needed]
        self.kernels = {t: lambda v=v: (v,) for t, v in feeds.items()}  # a fed tensor is a node that fires it
        for op in ops:
            kernel = KERNELS.get(op.type) or kernel_of(op)
            multi = op.type in KERNELS or get_op_def(op.type).multi_output
            self.kernels[op] = kernel if multi else lambda *xs, kernel=kernel: (kernel(*xs),)
        self.outs = {n: [] for n in self.kernels}  # node -> [(output port or None for control, consumer, slot)]
        for dst in ops:
            for slot, t in enumerate(dst.inputs):
                self.outs[t if t in feeds else t.op].append((t.value_index, dst, slot))
        for dst in ops:
            for c in dst.control_inputs:
                self.outs[c.outputs[0] if c.outputs and c.outputs[0] in feeds else c].append((None, dst, None))
        self.roots = [n for n in ops if not n.inputs and not n.control_inputs] + list(feeds)
        self.enters = [op.get_attr("frame_name") for op in ops if op.type == "Enter"]

    def run(self):
        """Fire ready nodes, first in first out, until none is left. Returns the fetched values and the trace:
        [(node name, frame path, iteration, outputs or None when dead)]."""
        self.root, self.results, self.trace = Frame("", None, None, 0, 1), {}, []
        self.ready = deque((n, self.root, 0, False) for n in self.roots)
        self.root.iters[0].owed = len(self.ready)
        with np.errstate(all="ignore"):
            while self.ready:
                self.fire(*self.ready.popleft())
        return [self.results.get(t) for t in self.fetches], self.trace

    def fire(self, node, frame, i, dead):
        """Compute one node and send its tokens on: Enter, Exit and NextIteration change their tag."""
        inputs = frame.iters[i].inputs.pop(node, None)
        outputs = None if dead else self.kernels[node](*(inputs.values if inputs else []))
        self.trace.append((node.name, frame.path, i, outputs))
        kind = getattr(node, "type", "feed")
        if kind == "Enter":
            self.enter(node, frame, i, outputs)
        elif kind == "Exit" and outputs is not None:
            self.send(node, frame.parent, frame.parent_iter, outputs, check=True)
        elif kind == "Exit" and i == frame.newest:
            frame.dead_exits.append(node)  # sent when the frame is done
        elif kind == "NextIteration" and outputs is not None:
            if i == frame.newest and len(frame.iters) == frame.parallel:
                frame.waiting.append((node, outputs))  # `parallel_iterations` are running: wait for one to end
            else:
                self.send(node, frame, i + 1 if i < frame.newest else self.next_iteration(frame), outputs, True)
        elif kind not in ("Exit", "NextIteration"):  # a dead Exit of an older iteration, a dead NextIteration: gone
            self.send(node, frame, i, outputs)
        frame.iters[i].owed -= 1
        self.done(frame, i)

    def enter(self, node, frame, i, outputs):
        """Into the child frame of (frame, i), made by its first Enter: iteration 0, or every iteration (constant)."""
        name, constant, parallel = (node.get_attr(a) for a in ("frame_name", "is_constant", "parallel_iterations"))
        if (i, name) not in frame.children:
            frame.children[i, name] = Frame(name, frame, i, self.enters.count(name), parallel)
            frame.iters[i].owed += 1  # the iteration owes the child frame's end
        child = frame.children[i, name]
        child.invariants += [(node, outputs)] if constant else []
        for j in list(child.iters) if constant else [0]:
            self.send(node, child, j, outputs, check=True)
        child.enters -= 1
        self.done(child, 0)

    def send(self, src, frame, i, outputs, check=False):
        """Tokens from `src` to its consumers in iteration `i` of `frame`; queue each consumer now ready."""
        from_enter = getattr(src, "type", "") == "Enter"
        for port, dst, slot in self.outs[src]:
            value = None if outputs is None or port is None else outputs[port]
            dead = outputs is None if port is None else value is None
            dst_dead = frame.iters[i].inputs.setdefault(dst, Inputs(dst)).add(slot, value, dead, from_enter)
            if dst_dead is not None:
                self.ready.append((dst, frame, i, dst_dead and dst.type != "ControlTrigger"))
                frame.iters[i].owed += 1
        if outputs is not None and frame is self.root:
            self.results.update({t: outputs[t.value_index] for t in self.fetches if t is src or t.op is src})
        if check:
            self.done(frame, i)

    def next_iteration(self, frame):
        """Start iteration newest+1: the NextIterations that waited for it, and the loop invariants."""
        frame.newest += 1
        frame.iters[frame.newest] = Iteration()
        frame.dead_exits = []  # only the newest iteration's dead Exits leave the frame
        waiting, frame.waiting = frame.waiting, []
        for node, outputs in waiting + frame.invariants:
            self.send(node, frame, frame.newest, outputs)
        return frame.newest

    def done(self, frame, i):
        """If iteration `i` owes nothing, delete it and the finished ones after it, in order. A frame whose Enters
        have all fired and whose iterations are all gone is done: its dead Exits go to the parent."""
        while i in frame.iters and frame.iters[i].owed == 0 and (i - 1 not in frame.iters if i else not frame.enters):
            del frame.iters[i]
            if frame.waiting:
                self.next_iteration(frame)
            i += 1
        if frame.enters or frame.iters or frame.parent is None:
            return
        for node in frame.dead_exits:
            self.send(node, frame.parent, frame.parent_iter, None)
        del frame.parent.children[frame.parent_iter, frame.name]
        frame.parent.iters[frame.parent_iter].owed -= 1
        self.done(frame.parent, frame.parent_iter)
