"""`scan`, `foldl`, `foldr`: while_loop plus TensorArrays, as TensorFlow's functional_ops.py builds them.

They are here because they are the most common loops people meet without writing `while_loop`
themselves; drawn, they show the TensorArray reads and writes inside an ordinary loop. `elems` and the
accumulator may be nests (tuples, lists, dicts) of tensors: each tensor of `elems` gets its own TensorArray,
and `fn` sees slices and accumulators packed back into the caller's structures. (`map_fn` is in map_fn.py.)
"""
from ..framework import nest
from ..framework.ops import convert_to_tensor, get_default_graph
from . import array_ops
from .map_fn import set_length, static_length
from .tensor_array_ops import TensorArray
from .while_loop import while_loop


def _flat_elems(elems, what):
    """`elems` as flat tensors with their length n (static where known). TensorFlow indexes the first tensor's
    shape without a check, so nothing or a scalar there fails with Python's IndexError: so does cfnb, saying why."""
    flat = [convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
    if not flat:
        raise IndexError(f"{what}: elems must contain at least one tensor, got {elems!r} (TensorFlow: list index "
                         f"out of range)")
    if flat[0].shape.ndims == 0:
        raise IndexError(f"{what}: the tensors of elems must be 1+ dimensional, but {flat[0].name} is a scalar (a "
                         f"Python list is a nest of its items here; TensorFlow: tuple index out of range)")
    n = flat[0].shape[0]
    return flat, (n if n else array_ops.shape(flat[0])[0])


def _fold(fn, elems, initializer, reverse, parallel_iterations, back_prop, swap_memory, name):
    """foldl (reverse=False) or foldr: the last accumulator of a = fn(a, elems[i])."""
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with get_default_graph().name_scope(name):
        flat, n = _flat_elems(elems, name)
        tas = [TensorArray(t.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(t) for t in flat]

        def read(i):
            return nest.pack_sequence_as(elems, [ta.read(i) for ta in tas])

        if reverse:
            i, a = (n - 1, read(n - 1)) if initializer is None else (n, initializer)

            def compute(i, a):
                return [i - 1, fn(a, read(i - 1))]
            keep_going = lambda i, a: i > 0  # noqa: E731
        else:
            i, a = (1, read(0)) if initializer is None else (0, initializer)

            def compute(i, a):
                return [i + 1, fn(a, read(i))]
            keep_going = lambda i, a: i < n  # noqa: E731
        _, a = while_loop(keep_going, compute, [array_ops.constant(i) if isinstance(i, int) else i, a],
                          parallel_iterations=parallel_iterations, back_prop=back_prop, swap_memory=swap_memory,
                          maximum_iterations=n)
        return a


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """fn(...fn(fn(a0, elems[0]), elems[1])...); without an initializer a0 = elems[0] (TensorFlow's foldl)."""
    return _fold(fn, elems, initializer, False, parallel_iterations, back_prop, swap_memory, name or "foldl")


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """fn(...fn(fn(a0, elems[-1]), elems[-2])...); without an initializer a0 = elems[-1] (TensorFlow's foldr)."""
    return _fold(fn, elems, initializer, True, parallel_iterations, back_prop, swap_memory, name or "foldr")


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The running results a_k = fn(a_{k-1}, elems[k]), stacked; without an initializer a_0 = elems[0] (or
    elems[-1] with `reverse`, which walks from last to first). TensorFlow's scan."""
    if not callable(fn):
        raise TypeError("fn must be callable.")
    out_structure = elems if initializer is None else initializer
    with get_default_graph().name_scope(name or "scan"):
        flat, n = _flat_elems(elems, "scan")
        elems_tas = [TensorArray(t.dtype, size=n, dynamic_size=False, element_shape=t.shape[1:], infer_shape=True)
                     .unstack(t) for t in flat]
        if initializer is None:
            a_flat = [ta.read(n - 1 if reverse else 0) for ta in elems_tas]
            start = 1
        else:
            a_flat = [convert_to_tensor(a) for a in nest.flatten(initializer)]
            start = 0
        accs = [TensorArray(a.dtype, size=n, element_shape=a.shape if infer_shape else None, dynamic_size=False,
                            infer_shape=infer_shape) for a in a_flat]
        if initializer is None:
            accs = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs, a_flat)]

        def compute(i, a_flat, tas):
            a_out = fn(nest.pack_sequence_as(out_structure, a_flat),
                       nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_tas]))
            nest.assert_same_structure(out_structure, a_out)
            flat_out = nest.flatten(a_out)
            tas = [ta.write(i, v) for ta, v in zip(tas, flat_out)]
            return (i - 1 if reverse else i + 1), flat_out, tas

        if reverse:
            i0, keep_going = n - 1 - start, (lambda i, _1, _2: i >= 0)
        else:
            i0, keep_going = start, (lambda i, _1, _2: i < n)
        _, _, accs = while_loop(keep_going, compute, (array_ops.constant(i0) if isinstance(i0, int) else i0, a_flat,
                                                      accs), parallel_iterations=parallel_iterations,
                                back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n)
        results = [ta.stack() for ta in accs]
        set_length(results, static_length(flat, "scan"))
        return nest.pack_sequence_as(out_structure, results)
