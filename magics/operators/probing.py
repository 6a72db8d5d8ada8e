"""Tracing a body or a branch once in a scratch graph, only to learn what its names become (their dtypes and
shapes, which are Python numbers, which lists grow), before the real while_loop or cond is built."""
import cfnb
from cfnb.framework import dtype_rules
from cfnb.framework.func_graph import FuncGraph

from ..errors import CellError
from .accumulators import Accumulator, ProbeList
from .logical import is_weak
from .variables import Maybe, Undefined, UndefinedRead


def probe(cell, fn, values, weak=None):
    """Call a branch/body function in a scratch graph, to see what it assigns."""
    cell.depth += 1
    cell.probing += 1
    snapshot = cell.boxes.snapshot()  # what the probe changes of the cell's objects is forgotten
    try:
        # A function graph, so names from outside the loop (captured) can be read while probing.
        with FuncGraph("probe", cfnb.get_default_graph()).as_default():
            probes = [placeholder_like(v, w) for v, w in zip(values, weak or [is_weak(v) for v in values])]
            return traced(fn, probes)
    finally:
        cell.boxes.restore(snapshot)
        cell.depth -= 1
        cell.probing -= 1


def placeholder_like(v, weak=False):
    if isinstance(v, Maybe):
        return Maybe(v.name, placeholder_like(v.value, weak), cfnb.placeholder(cfnb.bool, []), v.fallback)
    if isinstance(v, Undefined):
        return v
    if isinstance(v, list):
        return ProbeList(v)  # its length is known only when the graph runs
    if isinstance(v, Accumulator):
        return v.probe_list()
    if not isinstance(v, cfnb.Tensor):
        return v
    ph = cfnb.placeholder(v.dtype, v.shape)
    return dtype_rules.mark_weak(ph) if weak else ph


def traced(fn, values):
    """Call a branch/body function; reading an undefined name becomes a clear error."""
    try:
        return fn(*values)
    except (TypeError, AttributeError) as e:
        if isinstance(e, CellError):
            raise
        for v in values:
            if isinstance(v, Undefined) and f"'{v.name}'" in str(e):
                raise UndefinedRead(f"'{v.name}' is used before it is given a value") from None
        if "Undefined" in str(e):
            name = next((v.name for v in values if isinstance(v, Undefined)), "?")
            raise UndefinedRead(f"'{name}' is used before it is given a value") from None
        raise
