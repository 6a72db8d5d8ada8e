"""The notebook layer: the `%%whileloop` cell magic (registered by `%load_ext cfnb`).

A cell of ordinary Python `while`/`if` code becomes a cfnb graph (see compiler.py), is built both
ways (functional and lowered), runs once with a full trace, and leaves every name it assigned in
the notebook with its final value (numpy: ints stay integer, Python floats become float32 as in
TensorFlow). The result object (`_loop`, or `--as NAME`) holds the graphs, values, gradients,
trace and the explorer widget. Nothing in `cfnb/` imports this package.
"""
import ast
from types import SimpleNamespace

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

import cfnb

from .compiler import CellError, Runtime, _Undefined, builtins_for_cells, compile_cell
from .result import WhileLoopResult

TRACE_LIMIT = 200_000  # firings recorded per run; a longer run is still computed in full


def _is_explicit(source):
    """The other cell form: it defines `cond` and `body` and assigns `loop_vars`."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    defs = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assigned = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return {"cond", "body"} <= defs and "loop_vars" in assigned


def _parse_grads(specs):
    out = []
    for spec in specs:
        if ":" not in spec:
            raise UsageError(f"--grad {spec}: write it as OUT:IN (or OUT:IN1,IN2), e.g. --grad y:x")
        target, sources = spec.split(":", 1)
        out.append((target.strip(), [s.strip() for s in sources.split(",") if s.strip()]))
    return out


def build(source, namespace, options, filename, version):
    """Build the cell's graph with control flow `version` (1 or 2). Returns (graph, values, grads)."""
    explicit = _is_explicit(source)
    code, assigned = compile_cell(source, filename, explicit)
    graph = cfnb.Graph()
    toggle = cfnb.enable_control_flow_v2 if version == 2 else cfnb.disable_control_flow_v2
    was_v2 = cfnb.control_flow_v2_enabled()
    toggle()
    try:
        with graph.as_default():
            runtime = Runtime(options, graph)
            env = {**builtins_for_cells(), **namespace}
            if explicit:
                exec(code, env)  # noqa: S102 - the user's own cell
                loop_vars = env["loop_vars"]
                result = cfnb.while_loop(env["cond"], env["body"], loop_vars,
                                         parallel_iterations=options.parallel_iterations,
                                         maximum_iterations=options.maximum_iterations,
                                         swap_memory=options.swap_memory, return_same_structure=True)
                values = {n: env[n] for n in assigned if n in env and n != "loop_vars"}
                values["loop_vars"] = cfnb.nest.pack_sequence_as(loop_vars, cfnb.nest.flatten(result))
                runtime.first["loop_vars"] = cfnb.nest.flatten(result)[0]
            else:
                exec(code, env)  # noqa: S102 - the transformed cell
                out = env["__cfnb_cell__"](namespace, runtime, tuple(assigned))
                values = {n: v for n, v in zip(assigned, out) if not isinstance(v, _Undefined)}
            grads = {}
            for target, sources in options.grads:
                grads.update(_gradients(target, sources, values, runtime))
    finally:
        (cfnb.enable_control_flow_v2 if was_v2 else cfnb.disable_control_flow_v2)()
    return graph, values, grads, runtime.flags


def _gradients(target, sources, values, runtime):
    if target not in values or not isinstance(values[target], cfnb.Tensor):
        raise CellError(0, f"--grad {target}:...: the cell does not compute a tensor named '{target}'")
    y = values[target]
    if not y.dtype.is_floating:
        raise CellError(0, f"--grad {target}:...: '{target}' is {y.dtype.name}; only float values have gradients")
    xs = []
    for s in sources:
        if s not in runtime.first:
            raise CellError(0, f"--grad {target}:{s}: '{s}' is not a value the cell assigns or reads from the notebook")
        xs.append(runtime.first[s])
    results = cfnb.gradients(y, xs)
    return {f"d{target}/d{s}": (g if g is not None else cfnb.zeros_like(x)) for s, g, x in zip(sources, results, xs)}


def run_cell(source, namespace, options, filename="<whileloop>"):
    """Build the cell both ways, run the chosen form with a trace; returns (result, namespace updates)."""
    version = 2 if options.form == "functional" else 1
    graph, values, grads, flags = build(source, namespace, options, filename, version)
    functional = graph if version == 2 else build(source, namespace, options, filename, 2)[0]
    tensors = {k: v for k, v in values.items() if isinstance(v, cfnb.Tensor) or _has_tensors(v)}
    fetches = {"values": tensors, "grads": grads, "flags": flags}
    session = cfnb.Session(graph=graph)
    meta = cfnb.RunMetadata()
    options_ = cfnb.RunOptions(trace_level=cfnb.RunOptions.FULL_TRACE)
    fetched = session.run(fetches, options=options_, run_metadata=meta)
    lowered = session._lowered[1].graph if version == 2 and session._lowered else graph
    updates = {}
    for name, value in values.items():
        if name in flags and not fetched["flags"][name]:
            continue  # first assigned in a loop that ran zero times: left undefined, as in Python
        updates[name] = fetched["values"][name] if name in tensors else value
    if meta.trace is not None and len(meta.trace.firings) > TRACE_LIMIT:
        del meta.trace.firings[TRACE_LIMIT:]
    result = WhileLoopResult(options.form, graph, functional, lowered, updates, fetched["grads"], meta.trace,
                             meta.memory)
    return result, updates


def _has_tensors(v):
    return isinstance(v, (list, tuple, dict)) and any(isinstance(x, cfnb.Tensor) for x in cfnb.nest.flatten(v))


@magics_class
class WhileLoopMagics(Magics):
    @magic_arguments()
    @argument("--grad", action="append", default=[], metavar="OUT:IN[,IN...]",
              help="also compute d OUT / d IN (repeatable); results in grads['dOUT/dIN'] of the result object")
    @argument("--form", choices=["functional", "lowered"], default="lowered",
              help="which control flow builds the graph that runs: lowered (v1 primitives, the default) or "
                   "functional (If/While ops, lowered when run); both views are always available")
    @argument("--parallel-iterations", type=int, default=10, help="while_loop's parallel_iterations (default 10)")
    @argument("--maximum-iterations", type=int, default=None, help="while_loop's maximum_iterations")
    @argument("--swap-memory", action="store_true", help="while_loop's swap_memory")
    @argument("--as", dest="as_name", default="_loop", metavar="NAME",
              help="bind the result object (graphs, values, grads, trace, explorer()) to NAME (default _loop)")
    @argument("--no-display", action="store_true", help="do not display the explorer")
    @cell_magic
    def whileloop(self, line, cell):
        """Compile this cell's Python `while`/`if` code into a cfnb graph (like TensorFlow's AutoGraph),
        run it, and show it: each `while` becomes a while_loop and each `if` a cond over tensors.
        Every name the cell assigns holds its final value afterwards. A cell may instead define
        `cond`, `body` and `loop_vars`, which are passed to while_loop."""
        args = parse_argstring(self.whileloop, line)
        if args.parallel_iterations < 1:
            raise UsageError("--parallel-iterations must be a positive integer")
        options = SimpleNamespace(form=args.form, parallel_iterations=args.parallel_iterations,
                                  maximum_iterations=args.maximum_iterations, swap_memory=args.swap_memory,
                                  grads=_parse_grads(args.grad))
        source = self.shell.transform_cell(cell)
        filename = self.shell.compile.cache(source)
        try:
            result, updates = run_cell(source, self.shell.user_ns, options, filename)
        except CellError as e:
            raise UsageError(f"%%whileloop, {e}") from None
        except cfnb.errors.OpError as e:
            raise UsageError(f"%%whileloop: the graph failed while running: {e}") from None
        self.shell.user_ns.update(updates)
        self.shell.user_ns[args.as_name] = result
        return None if args.no_display else result


def load_ipython_extension(ipython):
    ipython.register_magics(WhileLoopMagics)
