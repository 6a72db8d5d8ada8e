"""Calls of the notebook's own Python functions (and of Python objects' methods) inside a cell's loops.

The cell's Python runs once, building the graph, so a function called in a loop body runs while the body is
traced (more than once, when the body is probed first), not once per iteration. That is right for a function
that only computes (`def f(x): return x**3 - 2*x - 5`): its ops become part of the body, as AutoGraph traces a
function. It is wrong for one that changes things outside itself (a print, a file write, an append to a list of
the notebook, a random draw): plain Python would do that on every iteration. So each such call is found before
it runs, from the function's source (`side_effect`, through the notebook functions it calls), and:

  * on a line of its own (`log_step(i, x)`), it becomes a `PyFunc` op (TensorFlow's `tf.compat.v1.py_func`)
    that calls the function with the values when the graph runs: on every iteration, in order with the cell's
    prints, with the arguments plain Python would pass (Python numbers, numpy values, strings);
  * where its result is used (`y = noisy(x)`), it is refused with the line and what to write instead: a graph
    cannot use a value that only Python computes on its own schedule.

While a pure notebook function runs, `np.array([a, b])` of graph values builds the array (a stack), as in the
cell itself.
"""
import ast
import contextlib
import functools
import inspect
import textwrap
import types

import numpy as np

import cfnb
from cfnb.framework import dtype_rules

from .accumulators import Accumulator
from .effects import effect

_IMPURE_BUILTINS = {"print": "prints", "open": "opens a file", "input": "reads input", "exec": "runs code",
                    "eval": "runs code"}
_MUTATING = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard",
             "write", "writelines", "sort", "reverse", "fill", "put", "itemset", "resize", "flush", "close", "send"}
_PURE_MODULES = ("numpy", "math", "cmath", "cfnb")


def is_notebook_function(fn):
    """A function the notebook defined (its own code, not a library's)."""
    return isinstance(fn, types.FunctionType) and getattr(fn, "__module__", None) in (None, "__main__")


@functools.lru_cache(maxsize=256)
def _source_tree(code):
    try:
        source = textwrap.dedent(inspect.getsource(code))
        return next(n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.Lambda)))
    except (OSError, TypeError, SyntaxError, StopIteration):
        return None


def side_effect(fn, seen=()):
    """What `fn` changes outside itself ("prints", "appends to 'history', a name outside it"), or None."""
    tree = _source_tree(fn.__code__)
    if tree is None:
        return None
    own = {a.arg for a in tree.args.args} if isinstance(tree, ast.FunctionDef) else set()
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    outside = lambda name: name in own or name not in local  # noqa: E731 - the caller's objects and globals
    for node in ast.walk(tree):
        reason = _effect_of(node, fn, outside, seen)
        if reason:
            return reason
    return None


def _effect_of(node, fn, outside, seen):
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return f"changes the name '{node.names[0]}' outside it"
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            base = _base_name(target) if isinstance(target, (ast.Subscript, ast.Attribute)) else None
            if base is not None and outside(base):
                return f"changes '{base}', an object from outside it"
    if isinstance(node, ast.Call):
        return _call_effect(node, fn, outside, seen)
    return None


def _call_effect(node, fn, outside, seen):
    func = node.func
    if isinstance(func, ast.Name):
        callee = fn.__globals__.get(func.id)
        if func.id in _IMPURE_BUILTINS and not is_notebook_function(callee):  # (IPython lends its own `open`)
            return _IMPURE_BUILTINS[func.id]
        if is_notebook_function(callee) and callee not in seen and callee is not fn:
            inner = side_effect(callee, seen + (fn,))
            return f"calls {func.id}(...), which {inner}" if inner else None
        return None
    if not isinstance(func, ast.Attribute):
        return None
    base = _base_name(func)
    owner = fn.__globals__.get(base) if base is not None else None
    if isinstance(owner, types.ModuleType):
        dotted = ast.unparse(func)
        if not owner.__name__.startswith(_PURE_MODULES) or ".random." in f".{dotted}." or \
                func.attr.startswith(("save", "load")):
            return f"calls {dotted}(...), which works outside the graph"
        return None
    if func.attr in _MUTATING and base is not None and outside(base):
        return f"calls .{func.attr}(...) on '{base}', an object from outside it"
    return None


def _base_name(node):
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def effect_of_call(fn, statement):
    """Why calling `fn` in a loop changes things outside the graph (None when it only computes)."""
    if is_notebook_function(fn):
        return side_effect(fn)
    owner = getattr(fn, "__self__", None)
    if statement and owner is not None and not isinstance(owner, (types.ModuleType, np.ndarray, cfnb.Tensor,
                                                                  list, dict, tuple, str, int, float)):
        return f"is a method of a {type(owner).__name__}, which Python runs outside the graph"
    return None


def run_every_time(cell, line, fn, args, kwargs):
    """`fn(*args, **kwargs)` as a PyFunc op: called with the values whenever the graph runs this line."""
    if cell.probing:
        return None  # (a probe only learns types: nothing runs, nothing is built)
    leaves = [a.as_tensor() if isinstance(a, Accumulator) else a for a in cfnb.nest.flatten([list(args), kwargs])]
    tensors = [x for x in leaves if isinstance(x, cfnb.Tensor)]
    weak = [dtype_rules.is_weak(t) for t in tensors]
    lists = {id(a.as_tensor()) for a in cfnb.nest.flatten([list(args), kwargs]) if isinstance(a, Accumulator)}
    as_list = [id(t) in lists for t in tensors]

    def call(*values):
        values = iter([_plain(v, w, listed) for v, w, listed in zip(values, weak, as_list)])
        plain = [next(values) if isinstance(x, cfnb.Tensor) else x for x in leaves]
        rebuilt_args, rebuilt_kwargs = cfnb.nest.pack_sequence_as([list(args), kwargs], plain)
        fn(*rebuilt_args, **rebuilt_kwargs)

    op = cfnb.py_func(call, tensors, [], name=getattr(fn, "__name__", "call"))
    cell.op_line[op] = line
    effect(cell, op)
    return None


def _plain(value, weak, listed):
    """A value as plain Python would pass it: a Python number, a numpy value, a str, a list's items."""
    if listed:
        return [_plain(v, weak, False) for v in value]
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if weak and isinstance(value, np.generic):
        return value.item()
    return np.array(value) if isinstance(value, np.ndarray) else value


@contextlib.contextmanager
def arrays_of_graph_values(make_array):
    """While a notebook function runs: `np.array([a, b])` / `np.asarray` of a list holding graph values builds
    the array (`make_array(items, *args, **kwargs)`); anything else is numpy's own."""
    original = np.array, np.asarray

    def patched(numpy_fn):
        def array(obj, *args, **kwargs):
            if isinstance(obj, (list, tuple)) and any(isinstance(x, cfnb.Tensor) for x in cfnb.nest.flatten(obj)):
                return make_array(obj, *args, **kwargs)
            return numpy_fn(obj, *args, **kwargs)
        return array
    np.array, np.asarray = patched(original[0]), patched(original[1])
    try:
        yield
    finally:
        np.array, np.asarray = original


