"""A precompiled schedule for well-formed loops: the fast path when no trace is asked for.

The tagged-token executor (executor.py) decides at run time, token by token, what may run. For a
loop built by `while_loop` that decision has the same answer every iteration, so it can be made
once, when the graph is compiled. codegen.py turns each while frame into a Python function
(generated source, one line per node) that runs the frame's iterations one after another:

    merges <- Enter values
    loop:  cond part (nodes not downstream of the loop Switches), LoopCond
           if the predicate is false: return the merges through the Exits
           body (nodes downstream of the Switches' true side); merges <- NextIteration values

Dead tensors keep their meaning: a value may be the `DEAD` sentinel; Switches inside the body
(conds) produce it, a node with a dead input is dead without running its kernel, a Merge takes
its live input, and a frame entered with dead inputs returns dead Exits (a loop in an untaken
branch). A well-formed cond (Switches on one predicate, two branches, Merges) becomes a Python
`if`/`else` that runs only the taken branch (cond_to_if.py), which is what the dead tokens of the
untaken branch amount to. Nested loops are calls of the inner frame's function from the outer
frame's code, once per outer iteration, as an inner frame instance is created per outer iteration
by the executor.

Running iterations in order is one of the schedules the executor's rules allow (it is
`parallel_iterations=1`), so for the same graph both paths compute the same values; the tests
check that they do. Graphs the generator does not recognise (hand-built frames without a LoopCond,
Exits that are not fed by a loop Switch, ...) simply keep using the executor.

This module is the run-time half: it runs the generated code and, when a kernel fails, names the
node from the failing line of the generated code (each kernel line carries its node id in a
comment, so the generated code spends nothing on bookkeeping while nothing fails).
"""
import functools
import itertools
import types

import numpy as np

from ...framework import errors
from ...ops import int_overflow
from ..graph_compiler import ROOT
from .codegen import DEAD, LIVE, Codegen
from .loop_form import NotStatic

__all__ = ["DEAD", "LIVE", "StaticSchedule", "compile_static"]

_serial = itertools.count()


class StaticSchedule:
    """`run(feed_values) -> fetched values`, executing the generated code.

    `source` is that code, a str to print and read: `run_root(feeds)` for the root frame and one `frame_<k>`
    function per while frame, called by its parent once per parent iteration, whose `while True:` loop runs
    the cond part, returns the Exits' values when the predicate is false, then runs the body. Variables are
    named after node ids (`v12`: node 12's output, `m3`: a loop Merge's, `p5`: an Enter's, `x8`: an Exit's,
    `c7`: a constant, `k9`: a kernel), and every line that calls a kernel ends with `# @<node id>`, which is
    how a failure is reported at its node. `Session.run(..., run_metadata=meta)` hands the schedule that ran back in
    `meta.static_schedule`.

    `forwarded` names the element-wise ops allowed to write their result into an input's buffer
    (node name -> input indices; see buffer_forwarding.py)."""

    def __init__(self, exe, source, namespace, forwarded, filename, line_nodes):
        self.exe = exe
        self.source = source
        self.forwarded = forwarded or {}
        self._run = namespace["run_root"]
        self._namespace = namespace
        self._filename = filename
        self._line_nodes = line_nodes

    def call(self, feed_values):
        """Run as a function call inside a run already under way: no float-error context of its own,
        no dead-result checks (a function's outputs are live); errors still name their node."""
        try:
            return self._run(feed_values)
        except errors.OpError as e:
            raise self._locate(e) from None
        except Exception as e:  # noqa: BLE001 - every kernel failure names its node
            raise self._locate(errors.InvalidArgumentError(None, None, f"{type(e).__name__}: {e}"), e) from e

    def progress(self):
        """[(frame name, iteration), ...] of the loops running now, outermost first. Safe to call
        from another thread while `run` is under way (a progress display reads it)."""
        frames = list(self._namespace["_frames"])
        iters = list(self._namespace["_iters"])
        return list(zip(frames, iters[len(iters) - len(frames):])) if frames else []

    def run(self, feed_values, cancellation=None):
        """Run the generated code and return the fetched values (the fast path's `Executor.run`; a kernel's error
        names its graph node). A loop tests `_cancelled` once per iteration: `cancellation` (the run's
        StepCancellation) sets it when `Session.close()` cancels the run, and the loop raises its CancelledError."""
        namespace = self._namespace
        del namespace["_frames"][:]
        del namespace["_iters"][:]
        namespace["_cancelled"] = None
        token = None if cancellation is None else \
            cancellation.register_callback(lambda: namespace.__setitem__("_cancelled", cancellation))
        try:
            with np.errstate(all="ignore", over="call", call=int_overflow.overflow_call):
                results = self._run(feed_values)
        except errors.OpError as e:
            raise self._locate(e) from None
        except Exception as e:  # noqa: BLE001 - every kernel failure names its node
            raise self._locate(errors.InvalidArgumentError(None, None, f"{type(e).__name__}: {e}"), e) from e
        finally:
            if token is not None:
                cancellation.deregister_callback(token)
        for k, v in enumerate(results):
            if v is DEAD:
                raise errors.InvalidArgumentError(
                    None, None, f"Retval[{k}] does not have value: the fetch '{self.exe.fetch_names[k]}' was never "
                                f"computed live. It was dead: it lies on the untaken side of a Switch (for example a "
                                f"cond branch that was not taken), so it carries no value.")
        return list(results)

    def _locate(self, error, cause=None):
        """`error` with the failing node, its frame and iteration appended, as the executor reports them.
        The node is the one tagged on the innermost line of this schedule's code in the traceback."""
        node_id = None
        tb = (cause if cause is not None else error).__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self._filename:
                node_id = self._line_nodes.get(tb.tb_lineno)
            tb = tb.tb_next
        iters = self._namespace["_iters"]
        item = self.exe.items[node_id] if node_id is not None else None
        if item is not None:
            frame = item.frame.name
            iteration = iters[-1] if iters else 0
            place = "the root frame" if frame == ROOT else f"frame '{frame}', iteration {iteration}"
            error.message = f"{error.message}\n  [[node {item.name} ({item.op.type if item.op else ''}) in {place}]]"
            error.args = (error.message,)
            error.op = item.op
        return error


def compile_static(exe, check=None):
    """A StaticSchedule for `exe`, or None when its shape is one the executor must run. `check()`, when given, is
    called every 1024 nodes generated and before Python compiles the source (a run's deadline and cancellation)."""
    try:
        source, namespace, forwarded = Codegen(exe, check).build()
    except NotStatic:
        return None
    if check is not None:
        check()
    filename = f"<cfnb static schedule {next(_serial)}>"
    exec(_named(_compiled(source), filename), namespace)  # noqa: S102 - our own generated code
    line_nodes = {n: int(line.rsplit("# @", 1)[1]) for n, line in enumerate(source.split("\n"), start=1)
                  if "# @" in line}
    namespace["_line_nodes"] = line_nodes  # int_overflow.overflow_call finds the running node by its line
    return StaticSchedule(exe, source, namespace, forwarded, filename, line_nodes)


@functools.lru_cache(maxsize=64)
def _compiled(source):
    """Python's code for generated `source`. The same graph run on several paths or in several Sessions generates the
    same source, and `compile` is the costliest step of making a schedule: the code, which depends on nothing but
    the text, is made once (a str cannot change under the cache)."""
    return compile(source, "<cfnb static schedule>", "exec")


def _named(code, filename):
    """`code` (and the functions defined in it) under `filename`: each schedule's own name, by which `_locate`
    finds its lines in a traceback."""
    consts = tuple(_named(c, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)
