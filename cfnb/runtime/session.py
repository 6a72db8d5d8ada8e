"""`Session`: run the part of a graph that the fetches need (tf.compat.v1.Session).

`run(fetches, feed_dict)` accepts nested fetches (lists, tuples, dicts, namedtuples; an Operation
fetches as None), checks feeds against their placeholders, compiles the pruned graph once per
(fetches, feeds, targets) and hands it to the tagged-token executor. Variables hold their values
in the Session, as in TensorFlow.

Tracing: `run(..., options=RunOptions(trace_level=RunOptions.FULL_TRACE), run_metadata=meta)` fills
`meta.trace` with every firing (node, frame, iteration, live/dead, value summary).

Devices: `ConfigProto(device_count={"CPU": 2})` gives the Session two CPU devices (devices.py). Ops are
placed (placer.py); when a run's ops land on more than one device, the graph is partitioned and each
device runs its partition in its own thread (multi_device.py). `RunOptions(output_partition_graphs=True)`
returns the partitions in `RunMetadata.partition_graphs`.
"""
import functools
import threading

import numpy as np

from ..framework import default_session, dtypes, errors, nest
from ..framework.default_session import get_default_session  # noqa: F401 - cfnb.get_default_session
from ..framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from ..framework.ops import Operation, Tensor, get_default_graph
from ..framework.registry import get_op_def
from ..passes.lowering import has_functional_ops, lower_functional_ops
from ..passes.meta_optimizer import optimize
from ..passes.pruning import needed_ops
from .cancellation import StepCancellation
from .config_options import GraphOptions
from .device_memory import DeviceMemory
from .devices import DeviceSet
from .executor import Executor
from .fastpath.schedule import compile_static
from .function_runtime import FunctionRuntime
from .gpu_options import device_count_with_gpus
from .graph_compiler import ROOT, compile_graph
from .inter_op import pool_threads
from .memory import MemoryLog
from .multi_device import MultiDeviceExecutor, partition_graphs, warn_strict_function_devices
from .placer import place
from .trace import Trace, TraceLimitReached


class RunOptions:
    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3

    def __init__(self, trace_level=0, timeout_in_ms=0, output_partition_graphs=False, trace_limit=None):
        self.trace_level = trace_level
        self.timeout_in_ms = timeout_in_ms
        self.output_partition_graphs = output_partition_graphs
        # cfnb's own: record at most this many firings; the run stops with TraceLimitReached there
        # (run_metadata still receives the trace so far).
        self.trace_limit = trace_limit


class RunMetadata:
    """Filled by a traced run: `trace` (a cfnb Trace), `step_stats` (the same firings) and `memory`
    (a MemoryLog: bytes held by each history stack over the run, and the peak); with
    `RunOptions(output_partition_graphs=True)`, `partition_graphs`: one GraphDef-like object per device,
    whose `.node` entries have `.name`, `.op`, `.input` and `.device` as in TensorFlow; and, from any run,
    `static_schedule`: the precompiled schedule that ran, whose `.source` is its generated code (None when the
    tagged-token executor ran the graph)."""

    def __init__(self):
        self.trace = None
        self.step_stats = None
        self.memory = None
        self.partition_graphs = []
        self.memory_timeline = None  # cfnb's own: per-device memory over the run, when the Session has GPUs
        # cfnb's own: the precompiled schedule that ran (fastpath/schedule.py; its `.source` is the generated
        # code), or None when the tagged-token executor did
        self.static_schedule = None


class ConfigProto:
    """The settings cfnb reads: `operation_timeout_in_ms` (0 = none), `lower_functional_ops` (False
    runs If/While as strict function calls), and TensorFlow's device settings: `device_count`
    ({"CPU": 2} for two CPU devices), `allow_soft_placement`, `log_device_placement`, and
    `inter_op_parallelism_threads`, the size of the worker pool of each CPU device of a partitioned run
    (runtime/inter_op.py; 0, the default, and negative numbers run every kernel on the device's own thread)."""

    def __init__(self, operation_timeout_in_ms=0, lower_functional_ops=True, static_schedule=True, device_count=None,
                 allow_soft_placement=False, log_device_placement=False, graph_options=None, **unused):
        self.device_count = dict(device_count or {})
        self.allow_soft_placement = allow_soft_placement
        self.log_device_placement = log_device_placement
        self.operation_timeout_in_ms = operation_timeout_in_ms
        # Kept and readable, with no effect here: GraphOptions (config_options.py), allow_soft_placement, ...
        self.graph_options = graph_options if graph_options is not None else GraphOptions()
        for key, value in unused.items():
            setattr(self, key, value)
        self.lower_functional_ops = lower_functional_ops
        # cfnb's own switch: run well-formed loops through the precompiled schedule when no
        # trace or timeout is asked for (see runtime/fastpath/schedule.py); False always interprets.
        self.static_schedule = static_schedule


class _SessionState:
    """What kernels of stateful ops may touch: variable values, the memory log of a traced run, and
    the runtime that calls functions for strict If/While."""

    def __init__(self):
        self.variables = {}
        self.memory = None
        self.functions = None
        self.device_memory = None


def _indexed_slices_value(value):
    """A fetched IndexedSlices comes back as an IndexedSlicesValue of its parts' values (TensorFlow's session.py
    registers the same expansion for IndexedSlices fetches)."""
    if isinstance(value, IndexedSlices):
        return IndexedSlicesValue(value.values, value.indices, value.dense_shape)
    return value


class Session:
    def __init__(self, target="", graph=None, config=None):
        self._graph = graph or get_default_graph()
        self._config = config or ConfigProto()
        self._state = _SessionState()
        self._cache = {}
        self._lowered = None
        self._placed = None
        gpu_options = getattr(self._config, "gpu_options", None)
        self._devices = DeviceSet(device_count_with_gpus(self._config.device_count, gpu_options))
        # GPU devices get allocators, limits and swapping (device_memory.py); None without GPUs.
        self._memory = self._state.device_memory = DeviceMemory.for_session(self._devices, gpu_options)
        self._state.functions = FunctionRuntime(self._make_kernel, fuse=self._memory is None)
        self._closed = False
        self._context_managers = []
        self._running = None  # the static schedule of the run under way (for progress())
        self._steps = set()   # the StepCancellation of every run under way, which close() cancels
        self._steps_changed = threading.Condition()

    graph = property(lambda self: self._graph)

    # --- context management -----------------------------------------------------------
    def __enter__(self):
        """`with sess:` makes the session and its graph the defaults (TensorFlow's `Session.__enter__`);
        it is not re-entrant: a second `with sess:` inside the first is refused."""
        if self._context_managers:
            raise RuntimeError("Session context managers are not re-entrant. Use `Session.as_default()` if you "
                               "want to enter a session multiple times.")
        graph_cm, session_cm = self._graph.as_default(), self.as_default()
        self._context_managers = [graph_cm, session_cm]
        graph_cm.__enter__()
        return session_cm.__enter__()

    def __exit__(self, *exc):
        graph_cm, session_cm = self._context_managers
        session_cm.__exit__(*exc)
        graph_cm.__exit__(*exc)
        self._context_managers = []
        self.close()
        return False

    def as_default(self):
        """This session is the default inside the block (TensorFlow's `ops.default_session`)."""
        return default_session.default_session(self)

    def close(self):
        """Close the session (TensorFlow's `DirectSession::Close`): runs under way on other threads are cancelled
        and raise CancelledError; close returns once they have stopped, so no run outlives its session."""
        with self._steps_changed:
            self._closed = True
            running = list(self._steps)
        for step in running:
            step.start_cancel("Execution was cancelled: the session was closed while this run was under way "
                              "(Session.close() from another thread).")
        me = threading.get_ident()
        with self._steps_changed:
            while any(step.thread != me for step in self._steps):
                self._steps_changed.wait()
        self._cache.clear()
        if self._memory is not None:
            self._memory.close()

    # --- running ------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Run what `fetches` need (TensorFlow's `BaseSession.run`): the fetch structure comes back with values
        in place of tensors. The deadline (`RunOptions.timeout_in_ms`, else `operation_timeout_in_ms`) counts
        from here, so pruning, lowering and compiling spend it too; `close()` from another thread cancels the run
        (runtime/cancellation.py)."""
        timeout = (options.timeout_in_ms if options is not None and options.timeout_in_ms else
                   self._config.operation_timeout_in_ms)
        step = StepCancellation.for_timeout(timeout)
        with self._steps_changed:
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            self._steps.add(step)
        try:
            return self._run(step, fetches, feed_dict, options, run_metadata)
        finally:
            with self._steps_changed:
                self._steps.discard(step)
                self._steps_changed.notify_all()

    def _run(self, step, fetches, feed_dict, options, run_metadata):
        flat_fetches, targets, rebuild = self._flatten_fetches(fetches)
        feed_tensors, feed_values = self._prepare_feeds(feed_dict)
        compiling = functools.partial(step.check, where=" (the deadline passed while the graph was pruned, lowered and "
                                                        "compiled)")
        trace = Trace(limit=getattr(options, "trace_limit", None)) \
            if options is not None and options.trace_level >= RunOptions.FULL_TRACE else None
        executor = self._executor(flat_fetches, targets, feed_tensors, compiling, traced=trace is not None)
        compiling()
        static = executor.static if trace is None and step.deadline is None else None
        self._state.memory = MemoryLog(self._graph) if trace is not None else None
        self._running = static
        self._state.functions.step = step
        if self._memory is not None:
            self._memory.start_run()
        try:
            if static is not None:
                values = static.run(feed_values, step)
            else:
                values = executor.run(feed_values, trace=trace, deadline=step.deadline, cancellation=step)
        except TraceLimitReached:
            if run_metadata is not None:  # the trace so far, for a viewer
                run_metadata.trace, run_metadata.step_stats = trace, trace.firings
                run_metadata.memory = self._state.memory
            raise
        finally:
            self._running = None
            memory, self._state.memory = self._state.memory, None
            self._state.functions.step = None
        if run_metadata is not None:
            run_metadata.static_schedule = static
        if run_metadata is not None and trace is not None:
            run_metadata.trace = trace
            run_metadata.step_stats = trace.firings
            run_metadata.memory = memory
        if run_metadata is not None and self._memory is not None:
            run_metadata.memory_timeline = self._memory.timeline()
        if run_metadata is not None and options is not None and getattr(options, "output_partition_graphs", False):
            run_metadata.partition_graphs = self._partition_graphs(executor)
        return rebuild(values)

    def progress(self):
        """cfnb's own: [(frame name, iteration), ...] of the loops the run under way is in (another
        thread may ask; empty when no run is under way or it runs on the traced executor)."""
        running = self._running
        return running.progress() if running is not None else []

    def _executor(self, fetch_tensors, targets, feed_tensors, check=None, traced=False):
        """The executor of (fetches, targets, feeds), compiled once and cached until the graph changes (TensorFlow's
        `DirectSession::GetOrCreateExecutors`): pruned, optimized, compiled, placed, and partitioned when its ops need
        more than one device. `check()` (the run's deadline and cancellation) is asked between and inside the
        phases."""
        key = (tuple(fetch_tensors), tuple(targets), tuple(feed_tensors), traced)
        cached = self._cache.get(key)
        if cached is not None and cached[0] == self._graph.version:
            return cached[1]
        check = check or (lambda: None)
        self._check_runnable(fetch_tensors, targets, feed_tensors)
        check()
        graph, fetch_tensors, targets, feed_tensors = self._runnable(fetch_tensors, targets, feed_tensors)
        check()
        graph, fetch_tensors, targets, feed_tensors = self._optimized(graph, fetch_tensors, targets, feed_tensors,
                                                                      traced)
        check()
        placement = self._placement(graph)
        # An item assignment runs in place (slice_update.py) on one plain device (not where devices count memory
        # kernel by kernel, nor where a partition needs every op).
        exe = compile_graph(graph, fetch_tensors, targets, feed_tensors, self._make_kernel,
                            fuse=self._memory is None and placement is None, check=check)
        for item in exe.items:
            if item.retval_index >= 0 and item.frame.name != ROOT:
                name = exe.fetch_names[item.retval_index]
                raise ValueError(f"Cannot fetch '{name}': it is inside the while loop frame '{item.frame.name}', "
                                 f"where it has one value per iteration. Fetch the loop's outputs (its Exit "
                                 f"tensors), or collect per-iteration values in a TensorArray.")
        needed = exe.needed_ops
        devices = {placement[op] for op in needed} | {self._devices.default} if placement else ()
        if placement and not self._config.lower_functional_ops:
            warn_strict_function_devices(needed, placement, self._devices)
        check()
        if len(devices) > 1:
            parts = partition_graphs(needed, placement, feed_tensors, fetch_tensors, targets, self._devices)[0]
            executor = MultiDeviceExecutor(parts, [t.name for t in fetch_tensors], self._make_kernel,
                                           pool_threads(self._config))
            if self._memory is not None:
                executor.copy_in = self._memory.copy_in
        else:
            executor = Executor(exe)
            executor.static = compile_static(exe, check) if self._config.static_schedule else None
            executor.plan = (needed, fetch_tensors, feed_tensors, targets)
        self._cache[key] = (self._graph.version, executor)
        return executor

    # --- devices ----------------------------------------------------------------------------
    def _placement(self, graph):
        """{op: device} for the runnable graph, or None when every op trivially runs on the one default
        device (no op asks for a device, no GPU is declared, nothing is logged)."""
        cfg = self._config
        ops = graph.get_operations()
        if not cfg.log_device_placement and not any(op.device for op in ops) and \
                not any("GPU" in d for d in self._devices):
            return None
        if self._placed is None or self._placed[0] is not graph or self._placed[1] != graph.version:
            self._placed = (graph, graph.version, place(ops, self._devices, cfg.allow_soft_placement,
                                                        cfg.log_device_placement))
        return self._placed[2]

    def _partition_graphs(self, executor):
        if isinstance(executor, MultiDeviceExecutor):
            return executor.partition_graphs
        needed, fetches, feeds, targets = executor.plan
        device = self._devices.default
        return partition_graphs(needed, {op: device for op in needed}, feeds, fetches, targets, self._devices)[0]

    def _runnable(self, fetches, targets, feeds):
        """The graph to execute: the user's, or its lowered copy when it holds functional If/While
        ops and `lower_functional_ops` is on (TensorFlow's LowerFunctionalOpsPass)."""
        if not self._config.lower_functional_ops or not has_functional_ops(self._graph):
            return self._graph, fetches, targets, feeds
        if self._lowered is None or self._lowered[0] != self._graph.version:
            self._lowered = (self._graph.version, lower_functional_ops(self._graph))
        low = self._lowered[1]
        return (low.graph, [low.tensor_map[t] for t in fetches], [low.op_map[o] for o in targets],
                [low.tensor_map[t] for t in feeds])

    def _optimized(self, graph, fetches, targets, feeds, traced):
        """The runnable graph as the optimization passes rewrite it (passes/meta_optimizer.py, Grappler's
        MetaOptimizer; `graph_options.rewrite_options` switches them), when the run stays on one device: a
        partitioned run keeps the graph as built. The device's memory limit (a GPU's, None for an unlimited one)
        goes to the passes, which decline what would raise its peak."""
        placement = self._placement(graph)
        devices = {placement[op] for op in needed_ops(fetches, targets, set(feeds))} if placement else set()
        if len(devices) > 1:
            return graph, fetches, targets, feeds
        limits = [self._memory.allocator(d).limit for d in devices] if self._memory is not None else []
        opt = optimize(graph, fetches, feeds, targets, self._config.graph_options.rewrite_options, traced,
                       memory_limit=min((x for x in limits if x is not None), default=None))
        return opt.graph, [opt.tensor(t) for t in fetches], [opt.op(o) for o in targets], [opt.tensor(t) for t in feeds]

    def _make_kernel(self, op):
        op_def = get_op_def(op.type)
        if op_def.kernel is None:
            if op.type == "Placeholder":
                return None
            raise errors.UnimplementedError(None, op, f"No kernel for op type {op.type} ({op.name}).")
        kernel = op_def.kernel(op, self._state) if op_def.needs_state else op_def.kernel(op)
        return self._memory.wrap_kernel(op, kernel) if self._memory is not None else kernel

    def _check_runnable(self, fetch_tensors, targets, feed_tensors):
        fed = set(feed_tensors)
        for t in feed_tensors:
            ctxt = t.op._control_flow_context
            if ctxt is not None and ctxt.GetWhileContext() is not None and t.op.type != "Exit":
                raise ValueError(f"Tensor {t.name} may not be fed: it is inside the while loop "
                                 f"'{ctxt.GetWhileContext().name}'.")
        for op in needed_ops(fetch_tensors, targets, fed):
            if op.type == "Placeholder" and op.outputs[0] not in fed:
                shape = op.get_attr("shape")
                shape_text = "<unknown>" if shape.ndims is None else str([d if d is not None else -1
                                                                          for d in shape.as_list()])
                raise errors.InvalidArgumentError(
                    None, op, f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                              f"{op.get_attr('dtype').name} and shape {shape_text}")

    # --- fetches and feeds -------------------------------------------------------------------
    def _as_element(self, f):
        g = self._graph
        if isinstance(f, str):
            try:
                f = g.as_graph_element(f)
            except (KeyError, ValueError) as e:  # TensorFlow reports a bad fetch name as a ValueError
                raise ValueError(f"Argument `fetch` = {f} cannot be interpreted as a Tensor. ({e})") from None
        elif hasattr(f, "_as_graph_element"):
            f = f._as_graph_element()
        # TensorFlow's texts (session.py's _ElementFetchMapper, ops.py's _as_graph_element_locked).
        if isinstance(f, (Tensor, Operation)):
            if f.graph is not g:
                raise ValueError(f"Argument `fetch` = {f!r} cannot be interpreted as a Tensor. ({type(f).__name__} "
                                 f"{f!r} is not an element of this graph.)")
            if not g.is_fetchable(f):
                raise ValueError(f"Operation {(f.op if isinstance(f, Tensor) else f).name!r} has been marked as not "
                                 f"fetchable. Typically this happens when it is defined in another function or code "
                                 f"block. Use return values, explicit Python locals or TensorFlow collections to "
                                 f"access it.")
            return f
        raise TypeError(f"Argument `fetch` = {f!r} has invalid type \"{type(f).__name__}\" must be a string or Tensor. "
                        f"(Can not convert a {type(f).__name__} into a Tensor or Operation.)")

    def _flatten_fetches(self, fetches):
        if fetches is None:
            raise TypeError('Argument `fetch` = None has invalid type "NoneType". Cannot be None')
        leaves = nest.flatten(fetches, expand_composites=True)  # an IndexedSlices is fetched as its parts
        elements = [self._as_element(f) for f in leaves]
        tensors, targets, slots = [], [], []
        index = {}
        for e in elements:
            if isinstance(e, Operation):
                targets.append(e)
                slots.append(None)
            else:
                if e not in index:
                    index[e] = len(tensors)
                    tensors.append(e)
                slots.append(index[e])

        has_slices = any(isinstance(f, IndexedSlices) for f in nest.flatten(fetches))

        def rebuild(values):
            flat = [None if s is None else values[s] for s in slots]
            if not has_slices:
                return nest.pack_sequence_as(fetches, flat) if nest.is_nested(fetches) else flat[0]
            return nest.map_structure(_indexed_slices_value, nest.pack_sequence_as(fetches, flat, True))

        return tensors, targets, rebuild

    def _prepare_feeds(self, feed_dict):
        tensors, values = [], []
        for key, value in (feed_dict or {}).items():
            if isinstance(key, str):
                try:
                    key = self._graph.as_graph_element(key)
                except (KeyError, ValueError) as e:
                    raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e.args[0]}") from None
            t = self._as_element(key) if not isinstance(key, Tensor) else key
            if isinstance(t, Operation):
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: Can not convert an Operation into a "
                                f"Tensor ({t.name}).")
            if t.graph is not self._graph:
                raise ValueError(f"Cannot feed {t.name}: it is not an element of this session's graph.")
            if not self._graph.is_feedable(t):
                raise ValueError(f"Tensor {t.name} may not be fed.")
            tensors.append(t)
            values.append(_check_feed(t, value))
        return tensors, values


def _check_feed(t, value):
    if isinstance(value, Tensor):
        raise TypeError(f"The value of a feed cannot be a tf.Tensor object ({value.name}). Acceptable feed values "
                        f"include Python scalars, strings, lists, numpy ndarrays, or TensorHandles.")
    want = t.dtype
    if want in (dtypes.resource, dtypes.variant):
        return value
    if want == dtypes.string:
        value = dtypes.as_bytes_value(value)
    if isinstance(value, int) and not _int_fits(value, want.as_numpy_dtype):
        raise TypeError(f"Type of feed value {value} with type {type(value)} is not compatible with Tensor type "
                        f"{want.as_numpy_dtype}. Try explicitly setting the type of the feed tensor to a larger type "
                        f"(e.g. int64).")
    # Otherwise numpy converts, as in TensorFlow: 2.5 fed to an int32 is 2, 1 fed to a bool True.
    arr = np.asarray(value, dtype=want.as_numpy_dtype)
    if not t.shape.is_compatible_with(arr.shape):
        raise ValueError(f"Cannot feed value of shape {arr.shape} for Tensor {t.name}, which has shape {t.shape}")
    return arr[()] if arr.ndim == 0 else arr


def _int_fits(value, np_dtype):
    """TensorFlow refuses a Python int feed that the tensor's type cannot hold unchanged."""
    if np_dtype is np.object_:
        return True
    try:
        return np_dtype(value) == value
    except OverflowError:
        return False
