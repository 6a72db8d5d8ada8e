"""`map_fn`, `scan`, `foldl`: while_loop plus TensorArrays, as TensorFlow builds them.

They are here because they are the most common loops people meet without writing `while_loop`
themselves; drawn, they show the TensorArray reads and writes inside an ordinary loop.
"""
from ..framework import dtypes
from ..framework.ops import convert_to_tensor, get_default_graph
from . import array_ops
from .control_flow_ops import while_loop
from .tensor_array_ops import TensorArray


def _length(elems):
    n = elems.shape[0] if elems.shape.ndims else None
    return n if n is not None else array_ops.shape(elems)[0]


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, name=None):
    """[fn(elems[0]), fn(elems[1]), ...] stacked (one tensor in, one tensor out)."""
    g = get_default_graph()
    with g.name_scope(name or "map"):
        elems = convert_to_tensor(elems, name="elems")
        n = _length(elems)
        elems_ta = TensorArray(elems.dtype, size=n).unstack(elems)
        out_dtype = dtypes.as_dtype(dtype) if dtype is not None else elems.dtype
        acc = TensorArray(out_dtype, size=n)
        _, acc = while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, fn(elems_ta.read(i)))), [0, acc],
                            parallel_iterations=parallel_iterations or 10, back_prop=back_prop,
                            swap_memory=swap_memory)
        return acc.stack()


def _first(elems, initializer):
    """(elements as a TensorArray, the first accumulated value, the index to start from)."""
    elems = convert_to_tensor(elems, name="elems")
    n = _length(elems)
    elems_ta = TensorArray(elems.dtype, size=n).unstack(elems)
    if initializer is None:
        return n, elems_ta, elems_ta.read(0), 1
    return n, elems_ta, convert_to_tensor(initializer, dtype_hint=elems.dtype), 0


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """The running results a_k = fn(a_{k-1}, elems[k]), stacked; without an initializer a_0 = elems[0]."""
    g = get_default_graph()
    with g.name_scope(name or "scan"):
        n, elems_ta, a0, start = _first(elems, initializer)
        acc = TensorArray(a0.dtype, size=n)
        if initializer is None:
            acc = acc.write(0, a0)

        def body(i, a, ta):
            a = fn(a, elems_ta.read(i))
            return i + 1, a, ta.write(i, a)

        _, _, acc = while_loop(lambda i, a, ta: i < n, body, [start, a0, acc], parallel_iterations=parallel_iterations,
                               back_prop=back_prop, swap_memory=swap_memory)
        return acc.stack()


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """fn(...fn(fn(a0, elems[0]), elems[1])...): the last result of `scan`."""
    g = get_default_graph()
    with g.name_scope(name or "foldl"):
        n, elems_ta, a0, start = _first(elems, initializer)
        _, a = while_loop(lambda i, a: i < n, lambda i, a: (i + 1, fn(a, elems_ta.read(i))), [start, a0],
                          parallel_iterations=parallel_iterations, back_prop=back_prop, swap_memory=swap_memory)
        return a
