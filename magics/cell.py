"""A cell from source to values: convert it (converters/), run its Python once to build its graph
(operators/), run the graph on the fast path, and hand back what plain Python would leave (values.py).

The cell's Python runs **once**, building the functional form (control flow v2: `While`/`If` ops). The lowered
form with TensorFlow's v1 machinery (`--form lowered`, the default: WhileContext, GradLoopState and history
stacks for gradients) is rebuilt from it without running the cell again (cfnb/passes/to_v1.py); `--form
functional` runs the functional graph, which the session lowers (LowerFunctionalOpsPass). Either way, a print or
an append outside a loop happens once.

The run takes the fast path (the static schedule). The trace the explorer steps through is recorded on demand by
a second, traced run of the same graph, which stops after TRACE_LIMIT firings (its prints silenced), so a long or
endless loop costs no memory for it. While a run lasts more than a second, a live line shows each running loop's
iteration (progress.py).
"""
import ast
import contextlib
import io
import re
import warnings

from IPython.core.error import UsageError

import cfnb
from cfnb.passes.pruning import needed_ops
from cfnb.passes.to_v1 import rebuild_v1

from . import values as values_lib
from .converters import compile_cell
from .errors import CellError, from_python_error
from .operators import CellState, bind, objects
from .operators.lines import finish_lines
from .operators.objects import latest
from .operators.variables import Maybe, Undefined
from .progress import Progress
from .result import WhileLoopResult

_last_plan = None  # the last cell's _Plan (what it fetched), for tests of its graph
TRACE_LIMIT = 20_000  # firings the explorer's trace records; a longer run is still computed in full


class CellInterrupted(KeyboardInterrupt):
    """The interrupt button stopped the cell: no name of the notebook was changed."""

    def _render_traceback_(self):
        return [f"KeyboardInterrupt: {self}"]


def _is_explicit(source):
    """The other cell form: it defines `cond` and `body` and assigns `loop_vars`."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    defs = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assigned = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return {"cond", "body"} <= defs and "loop_vars" in assigned


def parse_grads(specs):
    out = []
    for spec in specs:
        if ":" not in spec:
            raise UsageError(f"--grad {spec}: write it as OUT:IN (or OUT:IN1,IN2), e.g. --grad y:x")
        target, sources = spec.split(":", 1)
        out.append((target.strip(), [s.strip() for s in sources.split(",") if s.strip()]))
    return out


def _new_graph(rules):
    graph = cfnb.Graph()
    graph.dtype_rules = rules  # "numpy" or "tensorflow"; the functions of the graph inherit it
    return graph


def build(source, namespace, options, filename):
    """Run the cell's Python once, building its functional graph. Returns (graph, values, cell state)."""
    explicit = _is_explicit(source)
    code, assigned = compile_cell(source, filename, explicit, notebook=set(namespace))
    graph = _new_graph(options.dtypes)
    was_v2 = cfnb.control_flow_v2_enabled()
    cfnb.enable_control_flow_v2()
    try:
        with graph.as_default():
            cell = CellState(options, graph, notebook_names=namespace)
            env = {**builtins_for_cells(), **namespace}
            try:
                if explicit:
                    values = _explicit(code, env, assigned, options, cell)
                else:
                    exec(code, env)  # noqa: S102 - the converted cell
                    out = env["__cfnb_cell__"](namespace, bind(cell), tuple(assigned))
                    values = _hand_back(dict(zip(assigned, out)), cell)
            except CellError:
                raise
            except Exception as e:  # noqa: BLE001 - the cell's own Python failed: show its line
                raise from_python_error(e, filename) from None
            finish_lines(cell)
    finally:
        (cfnb.enable_control_flow_v2 if was_v2 else cfnb.disable_control_flow_v2)()
    return graph, values, cell


def _hand_back(values, cell):
    """The values to fetch for the notebook: a name that may be undefined (variables.Maybe) is fetched
    with its flag, and takes its value before the loop (or stays undefined) where the flag is false."""
    out = {}
    for name, v in values.items():
        if isinstance(v, Maybe):
            cell.flags[name] = v.defined
            if not isinstance(v.fallback, Undefined):
                cell.fallback[name] = v.fallback
            v = v.value
        box = cell.boxes.of(v)
        if box is not None and box.origin is not None:
            cell.origins[name] = box  # a Python object: the notebook gets that very object, changed in place
        if not isinstance(v, Undefined):
            out[name] = latest(cell, v)
        elif name in cell.notebook_names:
            cell.deleted.append(name)  # `del name`: plain Python leaves the notebook without it
    return out


def _explicit(code, env, assigned, options, cell):
    exec(code, env)  # noqa: S102 - the user's own cell
    loop_vars = env["loop_vars"]
    result = cfnb.while_loop(env["cond"], env["body"], loop_vars, parallel_iterations=options.parallel_iterations,
                             maximum_iterations=options.maximum_iterations, swap_memory=options.swap_memory,
                             return_same_structure=True)
    values = {n: env[n] for n in assigned if n in env and n != "loop_vars"}
    values["loop_vars"] = cfnb.nest.pack_sequence_as(loop_vars, cfnb.nest.flatten(result))
    cell.first["loop_vars"] = cfnb.nest.flatten(result)[0]
    return values


def _gradients(target, sources, values, cell, tmap):
    if target not in values or not isinstance(values[target], cfnb.Tensor):
        raise CellError(0, f"--grad {target}:...: the cell does not compute a tensor named '{target}'")
    y = tmap(values[target])
    if not y.dtype.is_floating:
        raise CellError(0, f"--grad {target}:...: '{target}' is {y.dtype.name}; only float values have gradients")
    xs = []
    for s in sources:
        x = cell.first.get(s, cell.notebook.get(s))
        if x is None:
            raise CellError(0, f"--grad {target}:{s}: '{s}' is not a value the cell assigns or reads from the notebook")
        xs.append(tmap(x))
    results = cfnb.gradients(y, xs)
    return {f"d{target}/d{s}": (g if g is not None else cfnb.zeros_like(x)) for s, g, x in zip(sources, results, xs)}


class _Plan:
    """What one run of the cell fetches, in the graph that runs."""

    def __init__(self, graph, values, cell, options):
        self.functional = graph
        self.values = values
        self.cell = cell
        self.objects = [box for box in cell.boxes.all() if box.origin is not None]  # written back after the run
        with graph.as_default():  # (a list grown in a loop makes its stack op here)
            self.leaves = {name: values_lib.leaves(v) for name, v in values.items()}
            self.object_leaves = [values_lib.leaves(box.latest) for box in self.objects]
        _prune(graph, [t for ts in list(self.leaves.values()) + self.object_leaves for t in ts] +
               list(cell.flags.values()) + [t for v in cell.fallback.values() for t in values_lib.leaves(v)] +
               [t for t, _line, _label in cell.cut] + [cell.first.get(s, cell.notebook.get(s)) for _t, ss in
                                                          options.grads for s in ss],
               cell.top_effects)
        # Under TensorFlow's rules the values stay numpy (float32, int32), as a session returns them.
        self.numpy = values_lib.numpy_tensors(graph, cell.numpy_ops, cell.python_ops) \
            if options.dtypes == "numpy" else values_lib.EVERYTHING
        if options.form == "lowered":
            rebuilt = rebuild_v1(graph)
            self.graph, self._tensors, self._ops = rebuilt.graph, rebuilt.tensor_map, rebuilt.op_map
            self._as_op = rebuilt.as_op
            self.frames, self._origin, self._names = rebuilt.frames, rebuilt.origin, None
        else:
            self.graph, self._tensors, self._ops = graph, None, None
            self.frames, self._names = _lowered_names(graph)
            self._origin = None
        v2 = options.form == "functional"
        was_v2 = cfnb.control_flow_v2_enabled()
        (cfnb.enable_control_flow_v2 if v2 else cfnb.disable_control_flow_v2)()
        try:
            with self.graph.as_default():
                self.grads = {}
                for target, sources in options.grads:
                    self.grads.update(_gradients(target, sources, values, cell, self.tensor))
        finally:
            (cfnb.enable_control_flow_v2 if was_v2 else cfnb.disable_control_flow_v2)()
        self.fetches = {
            "leaves": {n: [self.tensor(t) for t in ts] for n, ts in self.leaves.items()},
            "grads": self.grads,
            "flags": {n: self.tensor(t) for n, t in cell.flags.items()},
            "fallback": {n: [self.tensor(t) for t in values_lib.leaves(v)] for n, v in cell.fallback.items()},
            "cut": [self.tensor(t) for t, _line, _label in cell.cut],
            "effects": [self.op(op) for op in cell.top_effects],
            "objects": [[self.tensor(t) for t in ts] for ts in self.object_leaves],
        }

    def tensor(self, t):
        return t if self._tensors is None else self._tensors[t]

    def op(self, op):
        if self._ops is None:
            return op
        if op not in self._ops and op.outputs and op.outputs[0] in self._tensors:  # a loop's output Identity
            return self._tensors[op.outputs[0]].op
        return self._as_op(self._ops[op])

    def source_op(self, node):
        """The op of the cell's graph (or one of its functions) that a node of the run stands for."""
        if self._origin is not None:
            return self._origin.get(node)
        return self._names.get(node.name)

    def loop_of(self, frame):
        """(line, label) of the cell's loop that runs as while frame `frame`."""
        return self.cell.loops.get(self.frames.get(frame))


def _prune(graph, fetches, effects):
    """Only this cell's graph: every op has a path to something the run fetches or to a side effect. (Tracing a
    body twice, converting a value that a later line did not need, leaves ops nothing reads.)"""
    keep = needed_ops([t for t in fetches if isinstance(t, cfnb.Tensor)], effects, set())
    for op in [op for op in graph.get_operations() if op not in keep]:
        for t in op.inputs:
            if op in t._consumers:
                t._consumers.remove(op)
        for c in op.control_inputs:
            if op in c._control_outputs:
                c._control_outputs.remove(op)
        graph._ops.remove(op)
        graph._ops_by_name.pop(op.name, None)
    graph._version += 1


def _lowered_names(graph):
    """For a functional graph that the session lowers: the lowered name of every op of the graph
    and its functions, and the frame name of every While (lower_functional_ops' naming)."""
    frames, names = {}, {}

    def walk(g, prefix):
        for op in g.get_operations():
            name = prefix + op.name
            names[name] = op
            if op.type in ("While", "StatelessWhile"):
                frames[name] = op
                walk(op.get_attr("cond"), name + "/cond/")
                walk(op.get_attr("body"), name + "/body/")
            elif op.type in ("If", "StatelessIf"):
                walk(op.get_attr("then_branch"), name + "/then/")
                walk(op.get_attr("else_branch"), name + "/else/")

    walk(graph, "")
    return frames, names


def run_cell(source, namespace, options, filename="<whileloop>", notebook=False):
    """Build the cell once, run it on the fast path; returns (result, namespace updates)."""
    global _last_plan
    graph, values, cell = build(source, namespace, options, filename)
    plan = _last_plan = _Plan(graph, values, cell, options)
    session = cfnb.Session(graph=plan.graph)
    try:
        with Progress(session, lambda running: _describe(running, plan), notebook):
            fetched = session.run(plan.fetches)
    except KeyboardInterrupt:
        raise CellInterrupted("the cell was stopped; no name of the notebook changed") from None
    except cfnb.errors.OpError as e:
        raise _run_time_error(e, plan) from None
    updates = {}
    for name, value in values.items():
        if name in cell.flags and not fetched["flags"][name]:
            if name in cell.fallback:  # a loop that ran zero times leaves the value before it
                updates[name] = values_lib.rebuild(cell.fallback[name], iter(fetched["fallback"][name]),
                                                   plan.numpy)
            continue  # first assigned in a loop that ran zero times: left undefined, as in Python
        updates[name] = values_lib.rebuild(value, iter(fetched["leaves"][name]), plan.numpy)
    _write_back(plan, fetched, updates)
    for cut, (_t, line, label) in zip(fetched["cut"], cell.cut):
        if cut:  # a warning about the cell, at the cell's line (never a line of magics/)
            what = f"`for {label}`" if label else "`while`"
            warnings.warn_explicit(f"%%whileloop: the loop at line {line} ({what}) was stopped by "
                                   f"--maximum-iterations {options.maximum_iterations} before its condition became "
                                   f"false", UserWarning, filename, line)
    grads = {k: values_lib.as_plain(v, options.dtypes != "numpy") for k, v in fetched["grads"].items()}
    lowered = session._lowered[1].graph if session._lowered is not None else plan.graph
    result = WhileLoopResult(options.form, plan.graph, graph, lowered, updates, grads,
                             lambda: _traced_run(plan))
    result.deleted = list(cell.deleted)
    if options.swap_memory:
        result.memory_runner = lambda: _memory_run(plan)
    return result, updates


def _write_back(plan, fetched, updates):
    """The Python objects the cell changed (arrays, lists, dicts of the notebook or of the cell's Python) are
    changed in place, as plain Python changes them, and every name that holds one gets that very object."""
    for box, leaves in zip(plan.objects, fetched["objects"]):
        objects.write_back(box, values_lib.rebuild(box.latest, iter(leaves), plan.numpy))
    for name, box in plan.cell.origins.items():
        if name in updates:
            updates[name] = box.origin


def _describe(running, plan):
    parts = []
    for frame, iteration in running:
        loop = plan.loop_of(frame)
        where = f"loop at line {loop.line}" + (f" (for {loop.label})" if loop.label else "") if loop else frame
        parts.append(f"{where}: {loop.iteration(iteration) if loop else f'iteration {iteration:,}'}")
    return "%%whileloop running: " + " · ".join(parts)


def _traced_run(plan):
    """The first TRACE_LIMIT firings of a traced run (prints silenced: they already happened)."""
    session = cfnb.Session(graph=plan.graph)
    meta = cfnb.RunMetadata()
    options = cfnb.RunOptions(trace_level=cfnb.RunOptions.FULL_TRACE, trace_limit=TRACE_LIMIT)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            session.run(plan.fetches, options=options, run_metadata=meta)
        except Exception:  # noqa: BLE001 - the trace up to where it stopped (limit or error)
            pass
    return meta.trace, meta.memory


def _memory_run(plan):
    """`--swap-memory`: the cell's graph re-run on a (simulated) GPU device, for its memory timeline: where
    the history stacks live, and what swap_memory moved to the host (prints silenced)."""
    meta = cfnb.RunMetadata()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = cfnb.Session(graph=plan.graph, config=cfnb.ConfigProto(device_count={"GPU": 1}))
        session.run(plan.fetches, run_metadata=meta)
    return meta.memory_timeline


def _run_time_error(error, plan):
    """A CellError for an error of the graph while it ran: the op's line, its loop and iteration."""
    message = error.message.split("\n  [[node")[0]
    message = re.sub(r"^assertion failed: \[(\w+Error: .*?)\]", r"\1", message)  # a check the magic built (ld)
    op = plan.source_op(error.op) if error.op is not None else None
    line = plan.cell.op_line.get(op, 0) if op is not None else 0
    where = re.search(r"in frame '(.+?)', iteration (\d+)", error.message)
    if where:
        loop = plan.loop_of(where.group(1))
        if loop is not None:
            message += f" (in {loop.iteration(int(where.group(2)))} of {loop.name()})"
    kind = type(error).__name__
    python_error = re.match(r"(\w+Error): (.*)", message, re.S)
    if python_error:  # a kernel's Python error (IndexError, ZeroDivisionError): the student's name for it
        kind, message = python_error.groups()
    return CellError(line, message, kind=kind)


def builtins_for_cells():
    """The names a cell can call besides the notebook's: cfnb's ops (tanh, matmul, ...)."""
    import builtins
    names = {k: getattr(cfnb, k) for k in dir(cfnb) if not k.startswith("_")}
    names.update({k: getattr(builtins, k) for k in ("range", "len", "print", "abs", "min", "max", "int", "float",
                                                    "round", "bool", "str", "sum", "list")})
    return names
