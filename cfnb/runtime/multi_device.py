"""Running a graph placed on several devices: one partition, one executor and one thread per device.

This is TensorFlow's DirectSession for local devices (direct_session.cc, `CreateGraphs`, `RunInternal`):
the placed graph is partitioned (passes/partition.py), each partition becomes a graph of its own with
its own executor, and all executors start together, exchanging tensors through one rendezvous per run
(runtime/rendezvous.py). Feeds enter through `_Arg` nodes and fetches leave through `_Retval` nodes
of the client device's partition, TensorFlow's call frame.

The devices are simulated: each is a Python thread, so two devices overlap in time whenever one waits
(for a Recv, or inside numpy, which releases the GIL) while the other computes. The static schedule
(fastpath/schedule.py) never runs a partition: partitions always go to the tagged-token executor, which
knows how to park a Recv. With `inter_op_parallelism_threads` > 0 each CPU device's executor hands its expensive
kernels (matrix products, large element-wise ops) to a worker pool of its own, TensorFlow's inter-op parallelism
(runtime/inter_op.py), so that its control flow and transfers go on while a kernel computes.
"""
import threading
import warnings

from ..framework import errors
from ..framework.ops import Graph, Operation
from ..framework.topological_order import topological_order
from ..ops.sendrecv_ops import TRANSFER_TYPES
from ..passes.partition import partition
from .device_executor import DeviceExecutor
from .graph_compiler import compile_graph
from .inter_op import InterOp
from .rendezvous import Rendezvous

_MISSING = object()


def warn_strict_function_devices(ops, placement, devices):
    """Strict functional ops (`lower_functional_ops=False`) are single-device calls: an If/While runs its
    functions on its own device, as TensorFlow's FunctionLibraryRuntime did before multi-device functions.
    Say so when a function asks for another device, rather than silently ignoring the request."""
    for op in ops:
        functions = _functions_of(op)
        asked = set()
        while functions:
            f = functions.pop()
            for inner in f.get_operations():
                found = devices.matching(inner.device) if inner.device else []
                if found and found[0] != placement[op]:
                    asked.add(found[0])
                functions.extend(_functions_of(inner))
        if asked:
            warnings.warn(f"{op.type} '{op.name}' runs its functions on {placement[op]} as one strict call "
                          f"(lower_functional_ops=False): the devices its functions ask for "
                          f"({', '.join(sorted(asked))}) are not used. Lower it (the default) to place each of its "
                          f"ops.", stacklevel=4)


def _functions_of(op):
    return [v for value in op._attrs.values() for v in (value if isinstance(value, list) else [value])
            if hasattr(v, "get_operations")]


class _CallFrame:
    """The feeds and fetches of the run under way (TensorFlow's FunctionCallFrame)."""

    def __init__(self):
        self.args = []
        self.results = []


def partition_graphs(ops, placement, feeds, fetches, targets, devices):
    """The partitions of one run as [GraphDef] in device order, plus the targets and control loops."""
    parts, target_names, loops = partition(ops, placement, feeds, fetches, targets, devices.default,
                                           devices.incarnation.get)
    order = {name: k for k, name in enumerate(devices)}
    return [parts[d] for d in sorted(parts, key=lambda d: order.get(d, len(order)))], target_names, loops


def graph_from_partition(gdef):
    """Build a cfnb Graph holding one partition's nodes (names, types, attrs and devices kept)."""
    g = Graph()
    nodes = {n.name: n for n in gdef.node}
    made = {}

    def tensor(ref):
        name, _, port = ref.partition(":")
        return made[name]._outputs[int(port) if port else 0]

    # Inputs first, by the framework's topological order over data inputs; a Merge waits only for its first input
    # (its others may be back edges from NextIteration, or a _Recv of one), and is patched once everything exists.
    def waits_for(name):
        data = [r for r in nodes[name].input if not r.startswith("^")]
        return [r.partition(":")[0] for r in (data[:1] if nodes[name].op in ("Merge", "RefMerge") else data)]
    order, unordered = topological_order([n.name for n in gdef.node], waits_for)
    if unordered:
        raise errors.InternalError(None, None, f"Partition of {gdef.device} has a cycle through {unordered[:5]}")
    fixups = []
    for name in order:
        n = nodes[name]
        data = [r for r in n.input if not r.startswith("^")]
        inputs = []
        for k, ref in enumerate(data):
            if ref.partition(":")[0] in made:
                inputs.append(tensor(ref))
            else:
                inputs.append(inputs[0])
                fixups.append((name, k, ref))
        attrs = {k: v for k, v in n.attr.items() if k != "_shape"}
        op = Operation(g, n.op, n.name, inputs, attrs, n.device)
        if n.source is not None:
            for t, src in zip(op._outputs, n.source._outputs):
                t._shape = src.shape
        elif n.attr.get("_shape") is not None:
            op._outputs[0]._shape = n.attr["_shape"]
        g._ops.append(op)
        g._ops_by_name[name] = op
        g._names_in_use[name.lower()] = 1
        made[name] = op
    for name, k, ref in fixups:
        made[name]._update_input(k, tensor(ref))
    for n in gdef.node:
        for ref in n.input:
            if ref.startswith("^"):
                made[n.name]._add_control_input(made[ref[1:]])
    return g


class MultiDeviceExecutor:
    """`run(feed_values, trace, deadline) -> fetched values` over several devices at once."""

    static = None  # the precompiled schedule steps aside: partitions need the executor's parked Recvs
    copy_in = None  # device -> (value -> the value in that device's memory), set when devices count memory

    def __init__(self, partitions, fetch_names, make_kernel, inter_op_threads=0):
        self.fetch_names = list(fetch_names)
        self.partition_graphs = partitions
        self._call = _CallFrame()
        self._lock = threading.Lock()
        self.sends = 0  # _Send firings of the last run
        self.executors = []
        self.inter_op = {}  # device -> its inter_op.InterOp, or None where kernels run on the device's thread
        for gdef in self.partition_graphs:
            g = graph_from_partition(gdef)
            exe = compile_graph(g, [], list(g._ops), [], self._kernel_factory(make_kernel))
            # A GPU kernel ties up little of the host (TensorFlow's OpKernel marks it inexpensive): only CPUs pool.
            pooled = inter_op_threads > 0 and "GPU" not in gdef.device.upper()
            self.inter_op[gdef.device] = InterOp(exe, inter_op_threads) if pooled else None
            self.executors.append((gdef.device, DeviceExecutor(exe)))

    def _kernel_factory(self, make_kernel):
        call = self._call

        def make(op):
            if op.type in TRANSFER_TYPES:
                return None  # the executor runs transfers through its rendezvous endpoint
            if op.type == "_Arg":
                k = op.get_attr("index")
                return lambda: call.args[k]
            if op.type == "_Retval":
                k = op.get_attr("index")

                def retval(x):
                    call.results[k] = x
                return retval
            return make_kernel(op)
        return make

    def run(self, feed_values, trace=None, deadline=None, cancellation=None):
        """Run every partition at once, one thread per device, joined by one rendezvous (TensorFlow's
        `DirectSession::RunInternal` with one executor per partition), and return the fetched values.
        `cancellation` (Session.close() from another thread) aborts the rendezvous, which stops every device as
        Ctrl-C does."""
        with self._lock:  # one run at a time: the call frame and the executors' endpoints are per run
            self._call.args = list(feed_values)
            self._call.results = [_MISSING] * len(self.fetch_names)
            rendezvous = Rendezvous(len(self.executors))
            failures = []
            threads, stopped = [], []
            for device, executor in self.executors:
                executor.transfers = endpoint = rendezvous.endpoint(device)
                if self.copy_in is not None:
                    endpoint.copy_in = self.copy_in(device)
                if self.inter_op[device] is not None:
                    endpoint.pool = self.inter_op[device].pool(endpoint)
                if trace is not None:
                    endpoint.on_resume = trace.resume
                stopped.append(threading.Event())
                threads.append(threading.Thread(target=self._run_device, name=f"cfnb {device}", daemon=True,
                                                args=(executor, rendezvous, trace, deadline, failures, stopped[-1])))
            if trace is not None:
                trace.resume_all()
            self._start_and_wait(threads, stopped, rendezvous, cancellation)
            for t in threads:
                t.join()
            self.sends = rendezvous.sends
            if failures:
                real = [e for e in failures if not isinstance(e, errors.CancelledError)]
                raise (real or failures)[0]
            results = self._call.results
            for k, v in enumerate(results):
                if v is _MISSING or v is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"Retval[{k}] does not have value: the fetch '{self.fetch_names[k]}' was never "
                                    f"computed live. It was dead: it lies on the untaken side of a Switch (for "
                                    f"example a cond branch that was not taken), so it carries no value.")
            return list(results)

    @staticmethod
    def _start_and_wait(threads, stopped, rendezvous, cancellation):
        """Start every device's thread and wait until each has stopped. `cancellation` (Session.close() from
        another thread) and Ctrl-C abort the rendezvous, which stops every device (TensorFlow's StartAbort).

        The caller waits on Events, never inside Thread.join: a KeyboardInterrupt that lands in join can mark a
        still-running thread as stopped (CPython's bpo-45274 handling), and a later join would then return while the
        device still runs. Starting the threads is inside the same guard: a Ctrl-C that lands while the second
        device's thread starts must still stop the first, which would otherwise loop on in the background."""
        begun = []
        token = None
        try:
            for t in threads:
                begun.append(t)  # before start(): a Ctrl-C inside start() may land after the thread began
                t.start()
            token = None if cancellation is None else cancellation.register_callback(
                lambda: rendezvous.abort(errors.CancelledError(None, None, cancellation.error.message)))
            for done in stopped:
                while not done.wait(0.05):
                    pass
        except KeyboardInterrupt:
            # Ctrl-C: cancel the run on every device; each executor sees it at its next transfer or within 1024
            # firings, and its thread ends before the interrupt propagates.
            rendezvous.abort(errors.CancelledError(None, None, "Run interrupted (KeyboardInterrupt)."))
            for t, done in zip(begun, stopped):
                waited = 0.0
                while not done.wait(0.05):
                    waited += 0.05
                    if t.ident is None and waited >= 1.0:
                        break  # the Ctrl-C landed in start() before the thread began: it never will
            for t in begun:
                if t.ident is not None:
                    t.join()
            raise
        finally:
            if token is not None:
                cancellation.deregister_callback(token)

    @staticmethod
    def _run_device(executor, rendezvous, trace, deadline, failures, stopped):
        try:
            executor.run([], trace=trace, deadline=deadline)
        except BaseException as e:  # noqa: BLE001 - reported by the calling thread
            failures.append(e)
            rendezvous.abort(e)
        finally:
            if executor.transfers.pool is not None:
                executor.transfers.pool.close()  # no worker outlives the run (after the kernels they are running)
            rendezvous.finished()
            stopped.set()
