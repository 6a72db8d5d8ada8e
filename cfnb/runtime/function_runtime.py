"""Strict execution of functional ops: `If` and `While` as calls of their function graphs.

This is how TensorFlow runs them when they are not lowered (XLA, the single-threaded executor):
an If evaluates its predicate, then calls one branch with all its inputs; a While calls cond,
then body, until cond is false. Each FuncGraph is compiled once (like any graph: pruned, frames,
static schedule when possible) and cached for the session.
"""
import numpy as np

from ..framework import errors
from .executor import Executor
from .graph_compiler import compile_graph
from .static_schedule import compile_static


class FunctionRuntime:
    def __init__(self, make_kernel):
        self._make_kernel = make_kernel
        self._compiled = {}

    def runner(self, func_graph):
        """A callable running `func_graph` on a list of argument values (compiled once)."""
        entry = self._compiled.get(func_graph)
        if entry is None or entry[0] != func_graph.version:
            exe = compile_graph(func_graph, func_graph.outputs, [], func_graph.inputs, self._make_kernel)
            static = compile_static(exe)
            entry = (func_graph.version, static.call if static is not None else Executor(exe).run)
            self._compiled[func_graph] = entry
        return entry[1]

    def call(self, func_graph, args):
        return self.runner(func_graph)(list(args))

    def if_kernel(self, op):
        then_graph, else_graph = op.get_attr("then_branch"), op.get_attr("else_branch")

        def if_(pred, *args):
            if np.ndim(pred) != 0:
                raise errors.InvalidArgumentError(None, op, f"The predicate of If must be a scalar, but it has shape "
                                                            f"{list(np.shape(pred))}")
            return tuple(self.call(then_graph if pred else else_graph, args))
        return if_

    def case_kernel(self, op):
        branches = op.get_attr("branches")

        def case(index, *args):
            k = int(index)
            return tuple(self.call(branches[k if 0 <= k < len(branches) else -1], args))
        return case

    def while_kernel(self, op):
        cond_graph, body_graph = op.get_attr("cond"), op.get_attr("body")

        def while_(*args):
            cond, body = self.runner(cond_graph), self.runner(body_graph)
            args = list(args)
            while cond(args)[0]:
                args = body(args)
            return tuple(args)
        return while_
