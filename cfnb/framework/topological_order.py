"""One topological order for every pass that walks a graph inputs first, while loops included.

A graph with a while loop is not acyclic: the loop's back edge, NextIteration -> Merge, runs from the end of the body
to its start. TensorFlow orders such a graph by not letting a Merge wait for its NextIteration input
(`GraphConstructor::InitFromEdges` in graph_constructor.cc, `ValidateGraphHasNoCycle` in graph_execution_state);
any other cycle is an error. Every place in cfnb that needs "inputs before consumers" asks here: the importer
(graph_def/importer.py), the lowering and its v1 rebuild (passes/lowering.py, passes/to_v1.py), the cycle check of the
compiler (runtime/graph_compiler.py), the partitions (runtime/multi_device.py) and the static schedule's code
generator (runtime/fastpath/frame_graph.py), which orders the units of one frame the same way.

The walk is Kahn's algorithm with a heap of positions, so it costs O(E + N log N) and ties keep the given order:
a graph cfnb built comes back in creation order, and every pass sees the same order. Nodes already in such an order
(most graphs, and every copy) come back as they are after one pass over the edges, without the heap.
"""
import heapq

_MERGES = frozenset({"Merge", "RefMerge"})
_NEXT_ITERATIONS = frozenset({"NextIteration", "RefNextIteration"})


def is_back_edge(src_type, dst_type):
    """True for a loop's back edge, the one edge a topological order may skip: NextIteration -> Merge."""
    return dst_type in _MERGES and src_type in _NEXT_ITERATIONS


def topological_order(nodes, inputs_of, check=None):
    """`(order, unordered)`: `nodes` with every node after the nodes it waits for, ties in the given order, and the
    nodes no order can place (on a cycle, or behind one), in the given order.

    `inputs_of(node)` iterates what `node` waits for; a node not in `nodes` is ignored, one listed twice is waited
    for twice. `check()`, when given, is called every 1024 nodes (a run's deadline or cancellation)."""
    position = {n: k for k, n in enumerate(nodes)}
    position_of = position.get
    if _in_order(nodes, inputs_of, position_of, check):  # most graphs are built (and every copy is made) inputs first
        return list(nodes), []
    pending = [0] * len(nodes)
    consumers = [[] for _ in nodes]
    for k, n in enumerate(nodes):
        if check is not None and k and not k & 1023:
            check()
        waits = 0
        for src in inputs_of(n):
            j = position_of(src)
            if j is not None:
                waits += 1
                consumers[j].append(k)
        pending[k] = waits
    ready = [k for k, p in enumerate(pending) if not p]  # increasing: already a heap
    order = []
    while ready:
        k = heapq.heappop(ready)
        order.append(nodes[k])
        if check is not None and not len(order) & 1023:
            check()
        for c in consumers[k]:
            pending[c] -= 1
            if not pending[c]:
                heapq.heappush(ready, c)
    unordered = [n for n, p in zip(nodes, pending) if p] if len(order) < len(nodes) else []
    return order, unordered


def _in_order(nodes, inputs_of, position_of, check):
    """Whether every node already comes after what it waits for, so the walk would give `nodes` back as they are:
    found without the walk's pending counts and consumer lists (a list per node, which the garbage collector would
    then walk too)."""
    for k, n in enumerate(nodes):
        if check is not None and k and not k & 1023:
            check()
        for src in inputs_of(n):
            j = position_of(src)
            if j is not None and j >= k:
                return False
    return True


def op_inputs(op, feeds=frozenset()):
    """What Operation `op` waits for: the producers of its inputs (a fed tensor waits for nothing; a Merge does not
    wait for its NextIteration) and its control inputs."""
    if op._type in _MERGES:  # is_back_edge, tested once per op rather than once per input (op_order is hot)
        srcs = [t._op for t in op._inputs if t not in feeds and t._op._type not in _NEXT_ITERATIONS]
    else:
        srcs = [t._op for t in op._inputs if t not in feeds]
    srcs += op._control_inputs
    return srcs


def op_order(ops, feeds=frozenset(), check=None):
    """`(order, unordered)` of Operations, loop-aware (see `topological_order`)."""
    return topological_order(ops, lambda op: op_inputs(op, feeds), check)
