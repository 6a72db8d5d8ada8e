"""The placer: give every op a device of the Session (TensorFlow's `Placer::Run`, placer.cc).

The rules, for the cases the course uses, in the order TensorFlow applies them:
  * colocation groups (`ColocationGraph`): ops that `colocate_with` put together (the `_class` attr,
    `loc:@name`) and ops joined by a resource edge (a stack and its pushes and pops, a variable's
    handle and its reads and assignments) are one group and get one device;
  * a group's device is the device its members asked for with `tf.device`, matched against the
    Session's devices (`DeviceSet.resolve`); two members asking for different devices is TensorFlow's
    "Cannot colocate nodes" error, unless `allow_soft_placement` lets the first request win; across a
    resource edge the consumer gives way instead (a history stack built beside its forward value and
    pushed and popped by ops a gradient's device scope asked elsewhere: `_resource_requests`);
  * an op that asked for nothing goes where heuristics put it: a generator (no inputs, one output
    edge) with its only consumer ("Heuristic A"), an Identity with its input ("Heuristic B"), and
    everything else on the default device (the first GPU, else the first CPU).
Control-flow ops are placed like any op here; graph partitioning then moves Switch, Exit, Enter and
NextIteration next to their data (`OptimizeControlFlowColocation`, passes/partition.py).
"""
from ..framework import dtypes, errors
from .devices import canonical, parse

_IDENTITY_LIKE = {"Identity", "Shape", "Size", "Rank"}


class _Groups:
    """Union-find over ops (TensorFlow's ColocationGraph members)."""

    def __init__(self, ops):
        self.parent = {op: op for op in ops}

    def find(self, op):
        root = op
        while self.parent[root] is not root:
            root = self.parent[root]
        while self.parent[op] is not root:
            self.parent[op], op = root, self.parent[op]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra


def colocation_groups(ops):
    """Groups of ops that must share a device: `_class` attrs and resource edges."""
    groups = _Groups(ops)
    by_name = {op.name: op for op in ops}
    for op in ops:
        for loc in op._attrs.get("_class", ()):
            other = by_name.get(loc[len("loc:@"):] if isinstance(loc, str) else loc.decode()[len("loc:@"):])
            if other is not None:
                groups.union(other, op)
        for t in op._inputs:
            if t.dtype == dtypes.resource and t.op in groups.parent:
                groups.union(t.op, op)
    return groups


def _resource_requests(ops):
    """{op: the device it asks for} after TensorFlow's ColocateResourceAndRefEdges (colocation_graph.cc): ops
    joined by a resource edge are one group, and where the producer's side and the consumer's asked for
    incompatible devices, the consumer's request is overridden by the producer's
    (Member::EnsureCompatibilityAcrossResourceEdge) rather than refused. Requests are merged later (`place`)."""
    groups = _Groups(ops)
    request = {op: op.device for op in ops if op.device}  # by group root
    for op in ops:
        for t in op._inputs:
            if t.dtype != dtypes.resource or t.op not in groups.parent:
                continue
            src, dst = groups.find(t.op), groups.find(op)
            if src is dst:
                continue
            wanted = request.pop(src, None) or request.pop(dst, None)
            request.pop(dst, None)
            groups.union(src, dst)
            if wanted:
                request[groups.find(src)] = wanted
    out = {}
    for op in ops:
        if op.device:
            wanted = request.get(groups.find(op), op.device)
            out[op] = op.device if _compatible(op.device, wanted) else wanted
    return out


def place(ops, devices, allow_soft_placement=False, log_device_placement=False):
    """{op: full device name} for `ops` (a whole graph, as TensorFlow places the whole graph)."""
    groups = colocation_groups(ops)
    consumers = {op: [] for op in ops}
    for op in ops:
        for t in op._inputs:
            if t.op in consumers:
                consumers[t.op].append(op)
        for c in op._control_inputs:
            if c in consumers:
                consumers[c].append(op)

    def is_generator(op):
        return not op._inputs and len(op._outputs) == 1 and len(consumers[op]) == 1

    group_device = {}
    requested = {}
    asks = _resource_requests(ops)
    # Requests are read in graph order, generators last (TensorFlow places them in a second pass, so an
    # impossible request is reported on the op that consumes a generator).
    for op in [op for op in ops if not is_generator(op)] + [op for op in ops if is_generator(op)]:
        if op in asks:
            root = groups.find(op)
            prev = requested.get(root)
            if prev is None:
                requested[root] = (op, asks[op])
            elif not _compatible(prev[1], asks[op]) and not allow_soft_placement:
                raise errors.InvalidArgumentError(
                    None, op, f"Cannot colocate nodes {{{{colocation_node {prev[0].name}}}}} and {{{{colocation_node "
                              f"{op.name}}}}}: Cannot merge devices with incompatible ids: '{canonical(prev[1])}' and "
                              f"'{canonical(asks[op])}'")
    for root, (op, spec) in requested.items():
        group_device[root] = devices.resolve(op.name, spec, allow_soft_placement)

    placement = {}
    default = next((d for d in devices if parse(d).get("device_type") == "GPU"), devices.default)
    deferred = []
    for op in ops:
        root = groups.find(op)
        if is_generator(op):
            deferred.append(op)  # Heuristic A: a generator goes with its consumer (second pass)
            continue
        if root in group_device:
            placement[op] = group_device[root]
        elif op.type in _IDENTITY_LIKE and op._inputs and op._inputs[0].op in placement:
            placement[op] = placement[op._inputs[0].op]  # Heuristic B
        else:
            placement[op] = default
        group_device[root] = placement[op]
    for op in deferred:
        root = groups.find(op)
        consumer = consumers[op][0]
        placement[op] = group_device.get(root) or placement.get(consumer, default)
        group_device[root] = placement[op]
    if log_device_placement:  # in the order TensorFlow assigns them: generators last
        for op in [op for op in ops if op not in deferred] + deferred:
            print(f"{op.name}: ({op.type}): {placement[op]}")
    return placement


def _compatible(a, b):
    fa, fb = parse(a), parse(b)
    return all(fa[k] == fb[k] for k in fa.keys() & fb.keys())
