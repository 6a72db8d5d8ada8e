"""Strict execution of functional ops: `If` and `While` as calls of their function graphs.

This is how TensorFlow runs them when they are not lowered (XLA, the single-threaded executor):
an If evaluates its predicate, then calls one branch with all its inputs; a While calls cond,
then body, until cond is false. Each FuncGraph is compiled once (like any graph: pruned, frames,
static schedule when possible) and cached for the session.

A run's deadline (`RunOptions.timeout_in_ms`, `ConfigProto.operation_timeout_in_ms`) and its cancellation
(`Session.close()` from another thread) reach the calls through `step`, the run's StepCancellation
(cancellation.py): a While checks it before every iteration and, under a deadline, function bodies run on the
executor, which checks it between node firings, so an endless strict loop stops with TensorFlow's
DeadlineExceededError or CancelledError as the lowered one does.
"""
import numpy as np

from ..framework import errors
from ..passes.output_liveness import needed_loop_vars
from .executor import Executor
from .fastpath.schedule import compile_static
from .graph_compiler import compile_graph


class FunctionRuntime:
    def __init__(self, make_kernel, fuse=False):
        self._make_kernel = make_kernel
        self._fuse = fuse  # item assignments in place (slice_update.py)
        self._compiled = {}
        self.step = None  # the StepCancellation of the run under way; set by Session.run

    def runner(self, func_graph, outputs=None):
        """A callable running `func_graph` on a list of argument values (compiled once). `outputs`
        (indices) restricts it to those outputs, pruning what only the others need."""
        key = (func_graph, outputs)
        entry = self._compiled.get(key)
        if entry is None or entry[0] != func_graph.version:
            fetches = func_graph.outputs if outputs is None else [func_graph.outputs[k] for k in outputs]
            exe = compile_graph(func_graph, fetches, [], func_graph.inputs, self._make_kernel, fuse=self._fuse)
            static = compile_static(exe)
            entry = (func_graph.version, static.call if static is not None else None, Executor(exe))
            self._compiled[key] = entry
        _, static_call, executor = entry
        step = self.step
        if (step is None or step.deadline is None) and static_call is not None:
            return static_call
        return lambda args: executor.run(args, deadline=step and step.deadline, cancellation=step)

    def check_deadline(self, op):
        """Raise TensorFlow's DeadlineExceededError once the run's deadline has passed, CancelledError once the run
        was cancelled."""
        if self.step is not None:
            self.step.check(op)

    def call(self, func_graph, args):
        """Run a function graph on `args` and return its outputs (TensorFlow's
        `FunctionLibraryRuntime::Run`); each function is compiled once, on first call."""
        return self.runner(func_graph)(list(args))

    def if_kernel(self, op):
        """The kernel of a strict If (TensorFlow's `IfOp` in functional_ops.cc): call one branch
        function on the inputs. Its predicate must be a scalar at run time."""
        then_graph, else_graph = op.get_attr("then_branch"), op.get_attr("else_branch")

        def if_(pred, *args):
            if np.ndim(pred) != 0:
                raise errors.InvalidArgumentError(None, op, f"The predicate of If must be a scalar, but it has shape "
                                                            f"{list(np.shape(pred))}")
            return tuple(self.call(then_graph if pred else else_graph, args))
        return if_

    def case_kernel(self, op):
        """The kernel of a strict Case (TensorFlow's `CaseOp`): call branch `index`; an index out
        of range calls the last branch, the default, as TensorFlow does."""
        branches = op.get_attr("branches")

        def case(index, *args):
            k = int(index)
            return tuple(self.call(branches[k if 0 <= k < len(branches) else -1], args))
        return case

    def while_kernel(self, op):
        """The kernel of a strict While (TensorFlow's `WhileOp`): call cond, then body, until cond
        is false."""
        return _WhileKernel(self, op, range(len(op.outputs)))


class _WhileKernel:
    """A strict While: call cond, then body, until cond is false. A compiled graph specialises it
    (`for_outputs`) to the loop variables its fetches need: the others keep their input values and
    the body never computes them (output_liveness.py), so unfetched gradient accumulators stay empty."""

    def __init__(self, runtime, op, loop_vars):
        self.runtime, self.op = runtime, op
        self.loop_vars = tuple(sorted(loop_vars))

    def for_outputs(self, ports):
        return _WhileKernel(self.runtime, self.op, needed_loop_vars(self.op, sorted(ports)))

    def __call__(self, *args):
        runtime, op = self.runtime, self.op
        cond = runtime.runner(op.get_attr("cond"))
        n = len(op.outputs)
        subset = None if len(self.loop_vars) == n else self.loop_vars
        body = runtime.runner(op.get_attr("body"), subset)
        args = list(args)
        while _loop_pred(op, cond(args)[0]):
            runtime.check_deadline(op)
            if subset is None:
                args = body(args)
            else:
                for k, value in zip(subset, body(args)):
                    args[k] = value
        return tuple(args)


def _loop_pred(op, pred):
    """The While's cond result as a Python bool; like the lowered loop's Switch, refuse a non-scalar."""
    if np.ndim(pred) != 0:
        raise errors.InvalidArgumentError(None, op, f"The second input must be a scalar, but it has shape "
                                                    f"{list(np.shape(pred))} (the cond function of While)")
    return bool(pred)
