"""What the cell leaves in the notebook: the values plain Python would leave, of the same types.

Plain Python holds a Python `int`/`float`/`bool` where only Python numbers went into a value, and a
numpy scalar or array where a numpy value or function did (`0.1 * n` is a float; `xs[i]` of an
array is a numpy.float64; `np.sqrt(2.0)` is a numpy.float64). The graph computes both in int64 and
float64 (the numpy dtype rules), so the types are decided here: a tensor is *numpy* when an op
made by a numpy function or method, or a constant made from a numpy value, lies upstream of it
(through loops and conds: a loop variable is numpy when its initial value or the body's result
is), and a 0-d result that is not numpy becomes a Python number. A list grown in a loop becomes a
Python list of its items, typed the same way.
"""
import numpy as np

import cfnb

from .operators.accumulators import Accumulator

_WHILE = ("While", "StatelessWhile")
_IF = ("If", "StatelessIf")
_PYTHON_ALWAYS = ("Shape", "Size", "Rank", "TensorListLength")  # len(...) is a Python int


def _function_graphs(graph, seen):
    for op in graph.get_operations():
        for attr in ("body", "cond", "then_branch", "else_branch"):
            try:
                g = op.get_attr(attr)
            except (KeyError, ValueError, AttributeError):
                continue
            if hasattr(g, "get_operations") and g not in seen:
                seen.append(g)
                _function_graphs(g, seen)
    return seen


def numpy_tensors(graph, numpy_ops, python_ops=()):
    """The set of tensors (of `graph` and its functions) that plain Python would hold as numpy."""
    graphs = [graph] + _function_graphs(graph, [])
    found = set()

    def mark(t):
        if t not in found:
            found.add(t)
            return True
        return False

    changed = True
    while changed:
        changed = False
        for g in graphs:
            for op in g.get_operations():
                if op.type in _WHILE:
                    body, cond = op.get_attr("body"), op.get_attr("cond")
                    for j, t in enumerate(op.inputs):
                        if t in found or (j < len(body.outputs) and body.outputs[j] in found):
                            for x in (body.inputs[j], cond.inputs[j], op.outputs[j]):
                                changed |= mark(x)
                elif op.type in _IF:
                    branches = (op.get_attr("then_branch"), op.get_attr("else_branch"))
                    for j, t in enumerate(op.inputs[1:]):
                        if t in found:
                            for b in branches:
                                changed |= mark(b.inputs[j])
                    for k, out in enumerate(op.outputs):
                        if any(b.outputs[k] in found for b in branches):
                            changed |= mark(out)
                elif op.type not in _PYTHON_ALWAYS and op not in python_ops and \
                        (op in numpy_ops or any(t in found for t in op.inputs)):
                    for out in op.outputs:
                        changed |= mark(out)
    return found


class _Everything:
    def __contains__(self, item):
        return True


EVERYTHING = _Everything()


def as_plain(value, is_numpy):
    """A fetched value as plain Python would hold it (numpy's 0-d results are scalars, as numpy's are; a string,
    bytes in the graph as in TensorFlow, is Python's str)."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "OSU":
        value = value[()]
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode()
    if not isinstance(value, (np.generic, np.ndarray)) or np.ndim(value) != 0:
        return value
    return value[()] if is_numpy else np.asarray(value).item()


def leaves(value):
    """The tensors to fetch for a name's value, in order (none: it is a plain Python value)."""
    if isinstance(value, cfnb.Tensor):
        return [value]
    if isinstance(value, Accumulator):
        return [t for v in value.prefix for t in leaves(v)] + [value.stacked()]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in leaves(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in leaves(v)]
    return []


def rebuild(value, fetched, numpy_set):
    """The notebook's value for a name; `fetched` iterates over the fetched values of its leaves."""
    if isinstance(value, cfnb.Tensor):
        return as_plain(next(fetched), value in numpy_set)
    if isinstance(value, Accumulator):
        prefix = [rebuild(v, fetched, numpy_set) for v in value.prefix]
        items, is_numpy = next(fetched), value.stacked() in numpy_set
        return prefix + [as_plain(items[k], is_numpy) for k in range(len(prefix), len(items))]
    if isinstance(value, (list, tuple)):
        out = [rebuild(v, fetched, numpy_set) for v in value]
        return tuple(out) if isinstance(value, tuple) else out
    if isinstance(value, dict):
        return {k: rebuild(v, fetched, numpy_set) for k, v in value.items()}
    return value
