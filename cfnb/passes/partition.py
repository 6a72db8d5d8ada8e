"""Graph partitioning: one subgraph per device, `_Send`/`_Recv` on every cross-device edge, and the control
loops that let a while loop run on several devices (TensorFlow's graph_partition.cc, step for step).

`partition(ops, placement, ...)` takes the ops a run needs, the device of each (runtime/placer.py), the fed
and fetched tensors, and returns one list of `NodeDef`s per device (what `RunMetadata.partition_graphs`
shows; runtime/multi_device.py builds a graph from each and runs them at once). Feeds and fetches become
`_Arg`/`_Retval` nodes on the client device, as in TensorFlow's DirectSession, so a fetch computed on
another device reaches the client through a Send/Recv pair.

`AddControlFlow` runs first:
  1. every node gets its frame (`BuildControlFlowInfo`);
  2. `OptimizeControlFlowColocation`: a Switch goes to its data input's device, an Exit to its input's,
     an Enter and a NextIteration to their first data consumer's (a DFS from the roots, pre-order);
  3. for every cross-device edge inside a loop frame F (the source's output frame is the destination's
     input frame, and not the root), the destination device gets a control loop for F unless it has
     one: `_cloop` Enter(dummy) -> Merge -> Switch(merge, F's LoopCond) -> NextIteration -> Merge. The
     predicate edge into that Switch crosses devices too, so the frame leader (the device holding the
     LoopCond) sends "continue or stop" to every participant each iteration. For a nested frame the
     parent's control loop Merge feeds the child's Enter, up to a dummy Const in the root frame; a
     device with no edge inside an inner frame gets no control loop for it;
  4. each such edge's destination gets a control edge from its device's control-loop Merge.
`Partition` then splits every cross-device edge into `_Send` (source device) and `_Recv` (destination),
one pair per (tensor, destination device), moves the control-loop edge onto the Recv (so the Recv of
iteration i waits for the local control loop to reach iteration i), and sends a control edge as a dummy
empty Const plus an Identity on the receiver.
"""
from collections import deque

import numpy as np

from ..framework import dtypes, errors

ROOT = ""
_ENTER, _EXIT = ("Enter", "RefEnter"), ("Exit", "RefExit")
_NEXT = ("NextIteration", "RefNextIteration")
_SWITCH, _MERGE = ("Switch", "RefSwitch"), ("Merge", "RefMerge")
CONTROL_LOOP_PREFIX = "_cloop"


class NodeDef:
    """A node of a partition graph, with TensorFlow's field names: `.name`, `.op`, `.input` (`"x"`,
    `"x:1"`, `"^x"` for a control input), `.device`, `.attr`. `.source` is the graph op it copies (None for
    nodes partitioning added)."""

    __slots__ = ("name", "op", "input", "device", "attr", "source")

    def __init__(self, name, op, device, attr=None, source=None):
        self.name = name
        self.op = op
        self.input = []
        self.device = device
        self.attr = dict(attr or {})
        self.source = source

    def __repr__(self):
        return f"<NodeDef {self.name} = {self.op}({', '.join(self.input)}) on {self.device}>"


class GraphDef:
    """One device's partition: `.node` (a list of NodeDefs) and `.device`."""

    def __init__(self, device):
        self.device = device
        self.node = []

    def __repr__(self):
        return f"<partition of {self.device}: {len(self.node)} nodes>"


class _Node:
    """A node of the graph being partitioned: data inputs as (node, port), control inputs (duplicates
    allowed: TensorFlow adds one control-loop edge per remote input), its device, and the dtypes of
    its outputs (for Recvs)."""

    __slots__ = ("id", "name", "op", "attr", "device", "inputs", "control", "out_dtypes", "out_shapes", "source")

    def __init__(self, id, name, op, attr, device, out_dtypes, out_shapes=None, source=None):
        self.id = id
        self.name = name
        self.op = op
        self.attr = attr
        self.device = device
        self.inputs = []
        self.control = []
        self.out_dtypes = out_dtypes
        self.out_shapes = out_shapes or [None] * len(out_dtypes)
        self.source = source


class _Partitioner:
    def __init__(self, incarnation):
        self.nodes = []
        self.counter = 0
        self.incarnation = incarnation

    def new_name(self, prefix):
        """DirectSession's `opts.new_name`: `prefix/_N` with one counter for the whole partitioning."""
        name = f"{prefix}/_{self.counter}"
        self.counter += 1
        return name

    def add(self, name, op, attr, device, out_dtypes, out_shapes=None, source=None):
        node = _Node(len(self.nodes), name, op, attr, device, out_dtypes, out_shapes, source)
        self.nodes.append(node)
        return node

    # --- the graph to partition --------------------------------------------------------------
    def build(self, ops, placement, feeds, fetches, targets, client_device):
        node_of = {}
        arg_of = {}
        for k, t in enumerate(feeds):
            arg_of[t] = self.add(f"_arg_{t.name.replace(':', '_')}_{k}", "_Arg", {"T": t.dtype, "index": k},
                                 client_device, [t.dtype], [t.shape])
        for op in ops:
            node_of[op] = self.add(op.name, op.type, dict(op._attrs), placement[op],
                                   [t.dtype for t in op._outputs], [t.shape for t in op._outputs], op)

        def source(t):
            return (arg_of[t], 0) if t in arg_of else (node_of[t.op], t.value_index)

        for op in ops:
            node = node_of[op]
            node.inputs = [source(t) for t in op._inputs]
            for c in op._control_inputs:
                if c in node_of:
                    node.control.append(node_of[c])
                elif c._outputs and c._outputs[0] in arg_of:
                    node.control.append(arg_of[c._outputs[0]])
        for k, t in enumerate(fetches):
            ret = self.add(f"_retval_{t.name.replace(':', '_')}_{k}", "_Retval", {"T": t.dtype, "index": k},
                           client_device, [])
            ret.inputs = [source(t)]
        self.targets = [node_of[op] for op in targets]

    def edges(self):
        """Every edge as (src, src_port, dst, dst_slot); control edges have port and slot -1. TensorFlow
        numbers edges as the graph is built: by destination, data inputs first."""
        out = []
        for dst in self.nodes:
            out.extend((src, port, dst, slot) for slot, (src, port) in enumerate(dst.inputs))
            out.extend((src, -1, dst, -1) for src in dst.control)
        return out

    # --- AddControlFlow ----------------------------------------------------------------------
    def build_control_flow_info(self):
        """frame[node] (the frame a node is activated in, as the executor sees it: an Enter in the parent
        frame, an Exit in the frame it leaves), parent[frame] and an Enter of each frame
        (BuildControlFlowInfo)."""
        out = {n: [] for n in self.nodes}
        for src, _port, dst, _slot in self.edges():
            out[src].append(dst)
        self.out_nodes = out
        frame = {}
        parent = {ROOT: None}
        self.frame_enter = {}
        queue = deque()
        for n in self.nodes:
            if not n.inputs and not n.control:
                frame[n] = ROOT
                queue.append(n)
        while queue:
            n = queue.popleft()
            f = frame[n]
            if n.op in _ENTER:
                child = n.attr["frame_name"]
                parent[child] = f
                self.frame_enter.setdefault(child, n)
                out_frame = child
            elif n.op in _EXIT:
                out_frame = parent[f]
            else:
                out_frame = f
            for dst in out[n]:
                if dst not in frame:
                    frame[dst] = out_frame
                    queue.append(dst)
        self.frame, self.parent = frame, parent

    def input_frame(self, n):
        """The frame an edge into n is in: the frame n is activated in (for an Enter, the parent frame;
        for an Exit, the frame it leaves). TensorFlow's InputFrame."""
        return self.frame.get(n, ROOT)

    def output_frame(self, n):
        """The frame an edge out of n is in: an Enter's child frame, an Exit's parent frame, otherwise
        n's own (TensorFlow's OutputFrame)."""
        if n.op in _ENTER:
            return n.attr["frame_name"]
        f = self.frame.get(n, ROOT)
        return self.parent[f] if n.op in _EXIT else f

    def optimize_control_flow_colocation(self):
        """Switch with its data input, Exit with its input, Enter/NextIteration with their first data
        consumer; visited in TensorFlow's DFS order (a stack, pre-order, from the input-less nodes)."""
        first_data_consumer = {}
        for src, port, dst, _slot in self.edges():
            if port >= 0:
                first_data_consumer.setdefault(src, dst)
        visited = set()
        stack = [n for n in self.nodes if not n.inputs and not n.control][::-1]
        while stack:
            n = stack.pop()
            if n in visited:
                continue
            visited.add(n)
            if n.op in _SWITCH:
                n.device = n.inputs[0][0].device
            elif n.op in _EXIT:
                n.device = n.inputs[0][0].device
            elif (n.op in _ENTER or n.op in _NEXT) and n in first_data_consumer:
                n.device = first_data_consumer[n].device
            stack.extend(d for d in reversed(self.out_nodes[n]) if d not in visited)

    def add_control_loop(self, frame_name, edge_dst, loop_cond):
        """`_cloop` Enter/Merge/Switch/NextIteration on edge_dst's device (AddControlLoop)."""
        device = edge_dst.device
        enter_name, merge_name, switch_name, next_name = (CONTROL_LOOP_PREFIX + self.new_name(edge_dst.name)
                                                          for _ in range(4))
        parallel = self.frame_enter[frame_name].attr.get("parallel_iterations", 10)
        enter = self.add(enter_name, "Enter", {"frame_name": frame_name, "is_constant": False,
                                               "parallel_iterations": parallel, "T": dtypes.float32},
                         device, [dtypes.float32])
        merge = self.add(merge_name, "Merge", {"N": 2, "T": dtypes.float32}, device, [dtypes.float32, dtypes.int32])
        switch = self.add(switch_name, "Switch", {"T": dtypes.float32}, device, [dtypes.float32, dtypes.float32])
        nxt = self.add(next_name, "NextIteration", {"T": dtypes.float32}, device, [dtypes.float32])
        switch.inputs = [(merge, 0), (loop_cond, 0)]
        nxt.inputs = [(switch, 1)]
        merge.inputs = [(enter, 0), (nxt, 0)]
        for n in (merge, switch, nxt):
            self.frame[n] = frame_name
        self.frame[enter] = self.parent[frame_name]  # an Enter is activated in the parent frame
        self.out_nodes.update({enter: [merge], merge: [switch], switch: [nxt], nxt: [merge]})
        self.out_nodes[loop_cond].append(switch)
        return enter, merge

    def add_control_flow(self):
        """Give every device a loop uses its own copy of the loop's frame (TensorFlow's `graph_partition.cc`,
        `AddControlFlow`): for a cross-device edge inside a loop, a control loop (Enter, Merge, Switch,
        NextIteration on the LoopCond received from the predicate's device) is built on the receiving device, for
        each level of nesting, and the receiving op takes a control edge from it, so it runs once per iteration."""
        self.build_control_flow_info()
        self.optimize_control_flow_colocation()
        loop_cond = {}
        for n in self.nodes:
            if n.op == "LoopCond":
                loop_cond[self.frame[n]] = n
        loops = {}  # (frame, device) -> (enter, merge)
        for src, _port, dst, _slot in self.edges():
            if src.device == dst.device:
                continue
            frame_name = self.output_frame(src)
            if frame_name == ROOT or frame_name != self.input_frame(dst):
                continue
            child_enter = None
            while True:
                if frame_name == ROOT:
                    if child_enter is not None:
                        const = self.add(self.new_name(dst.name), "Const",
                                         {"dtype": dtypes.float32, "value": _EMPTY_FLOAT}, dst.device,
                                         [dtypes.float32])
                        self.frame[const] = ROOT
                        child_enter.inputs = [(const, 0)]
                    break
                key = (frame_name, dst.device)
                if key in loops:
                    if child_enter is not None:
                        child_enter.inputs = [(loops[key][1], 0)]
                    break
                if frame_name not in loop_cond:
                    raise errors.InvalidArgumentError(
                        None, None, f"A cross-device loop must have a pivot predicate: {frame_name}")
                enter, merge = self.add_control_loop(frame_name, dst, loop_cond[frame_name])
                loops[key] = (enter, merge)
                if child_enter is not None:
                    child_enter.inputs = [(merge, 0)]
                frame_name = self.parent[frame_name]
                child_enter = enter
        for src, _port, dst, _slot in self.edges():
            if src.device != dst.device:
                frame_name = self.output_frame(src)
                if frame_name != ROOT and frame_name == self.input_frame(dst):
                    dst.control.append(loops[(frame_name, dst.device)][1])
        self.control_loops = loops

    # --- Partition ----------------------------------------------------------------------------
    def partition(self):
        """Split the graph into one graph per device (TensorFlow's `graph_partition.cc`, `Partition`): each node
        goes to its device's part, and each edge that crosses devices becomes a `_Send` on the source's part and
        a `_Recv` on the destination's part, keyed by one rendezvous name; one Recv serves all consumers of a
        tensor on a device, and a control edge across devices travels as a dummy tensor."""
        parts = {}
        dup_recv = {}
        edge_id = {}
        for k, (src, port, dst, slot) in enumerate(self.edges()):
            edge_id.setdefault((src.id, port, dst.id, slot), k)

        def part(device):
            if device not in parts:
                parts[device] = GraphDef(device)
            return parts[device]

        for dst in self.nodes:
            dst_graph = part(dst.device)
            dst_def = NodeDef(dst.name, dst.op, dst.device, dst.attr, dst.source)
            dst_graph.node.append(dst_def)
            inputs = [(src, port, slot) for slot, (src, port) in enumerate(dst.inputs)]
            control_flow_src, n_control_flow = None, 0
            for src in dst.control:
                if src.op in _MERGE and src.name.startswith(CONTROL_LOOP_PREFIX):
                    control_flow_src = src
                    n_control_flow += 1
                else:
                    inputs.append((src, -1, -1))
            for src, port, slot in inputs:
                if src.device == dst.device:
                    dst_def.input.append(_input_name(src.name, port))
                    continue
                on_host = port >= 0 and dst.op in _SWITCH and slot == 1  # the Switch kernel's HostMemory("pred")
                key = (src.id, port, dst.device, on_host)
                if key in dup_recv:
                    dst_def.input.append(_input_name(dup_recv[key], 0 if port >= 0 else -1))
                    continue
                src_graph = part(src.device)
                tensor_name = f"edge_{edge_id[(src.id, port, dst.id, slot)]}_{src.name}"
                if port < 0:
                    dummy = NodeDef(self.new_name(f"{src.name}/ctrl"), "Const", src.device,
                                    {"dtype": dtypes.float32, "value": _EMPTY_FLOAT})
                    dummy.input.append("^" + src.name)
                    src_graph.node.append(dummy)
                    send_from, dtype = dummy.name, dtypes.float32
                else:
                    send_from, dtype = _input_name(src.name, port), src.out_dtypes[port]
                attrs = {"tensor_name": tensor_name, "send_device": src.device,
                         "send_device_incarnation": self.incarnation(src.device), "recv_device": dst.device,
                         "client_terminated": False, "_src": src.name, "_dst": dst.name}
                send = NodeDef(self.new_name(src.name), "_Send", src.device, {**attrs, "T": dtype})
                send.input.append(send_from)
                src_graph.node.append(send)
                recv = NodeDef(self.new_name(src.name), "_HostRecv" if on_host else "_Recv", dst.device,
                               {**attrs, "tensor_type": dtype})
                recv.attr["_shape"] = src.out_shapes[port] if port >= 0 else None
                dst_graph.node.append(recv)
                if control_flow_src is not None:
                    n_control_flow -= 1
                    recv.input.append("^" + control_flow_src.name)
                consumer = recv
                if port < 0:
                    consumer = NodeDef(self.new_name(src.name), "Identity", dst.device, {"T": dtypes.float32})
                    consumer.input.append(recv.name)
                    dst_graph.node.append(consumer)
                dup_recv[key] = consumer.name
                dst_def.input.append(_input_name(consumer.name, 0 if port >= 0 else -1))
            if control_flow_src is not None:  # control-loop edges no Recv took over stay on dst
                dst_def.input.extend(["^" + control_flow_src.name] * n_control_flow)
        return parts


_EMPTY_FLOAT = np.zeros([0], np.float32)  # the dummy tensor of a control loop or a control edge (EmptyConst)


def _input_name(name, port):
    if port < 0:
        return "^" + name
    return name if port == 0 else f"{name}:{port}"


def partition(ops, placement, feeds=(), fetches=(), targets=(), client_device=None, incarnation=None):
    """Partition the ops a run needs. `placement` maps every op to its full device name; feeds and
    fetches become `_Arg`/`_Retval` nodes on `client_device`. Returns ({device: GraphDef}, targets as
    node names, the control loops added as {(frame, device): (enter name, merge name)})."""
    p = _Partitioner(incarnation or (lambda device: 1))
    client = client_device or next(iter(placement.values()), "")
    p.build(ops, placement, list(feeds), list(fetches), list(targets), client)
    p.add_control_flow()
    parts = p.partition()
    loops = {key: (enter.name, merge.name) for key, (enter, merge) in p.control_loops.items()}
    return parts, [n.name for n in p.targets], loops
