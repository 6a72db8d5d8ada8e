"""`map_fn`: fn applied to every slice of (a nested structure of) tensors, in a while_loop over TensorArrays.

Mirrors TensorFlow's map_fn.py: `elems` may be any nest of tensors with one shared first dimension; each
iteration reads slice i of every one, packs them back into `elems`' structure for `fn`, and writes the flattened
result into one TensorArray per output. The output structure is `dtype` / `fn_output_signature` when given,
otherwise that of `elems` (so a fn that changes the structure needs one, as in TensorFlow).
"""
from ..framework import dtypes, nest
from ..framework.ops import convert_to_tensor, get_default_graph
from ..framework.tensor_shape import TensorShape
from . import array_ops
from .tensor_array_ops import TensorArray
from .while_loop import while_loop


def flat_elems(elems, what):
    """`elems` flattened into tensors, refusing what TensorFlow refuses: no tensor at all, or a scalar first."""
    flat = nest.flatten(elems)
    if not flat:
        raise ValueError(f"{what}: elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems!r}, "
                         f"which does not contain any Tensors.")
    flat = [convert_to_tensor(e, name="elem") for e in flat]
    if flat[0].shape.ndims == 0:
        raise ValueError(f"{what}: Elements in elems must be 1+ dimensional Tensors, not scalars (a Python list is "
                         f"a nest of its items here, as in TensorFlow; convert it with tf.constant first)")
    return flat


def static_length(flat, what):
    """The first dimension every tensor of `flat` shares, None where unknown (TensorFlow's n_static)."""
    n = None
    for t in flat:
        d = t.shape[0]
        if n is not None and d is not None and n != d:
            raise ValueError(f"{what}: Dimensions {n} and {d} are not compatible (the tensors of elems must have "
                             f"the same first dimension)")
        n = n if n is not None else d
    return n


def set_length(results, n_static):
    """Give every stacked result TensorFlow's static shape [n_static] + element shape."""
    for r in results:
        r.set_shape(TensorShape([n_static]).concatenate(r.shape[1:]))


def _spec(signature):
    """(dtype, element shape) of one leaf of fn_output_signature: a DType or a TensorSpec-like object."""
    if hasattr(signature, "dtype") and hasattr(signature, "shape"):
        return dtypes.as_dtype(signature.dtype), TensorShape(signature.shape)
    return dtypes.as_dtype(signature), None


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """[fn(elems[0]), fn(elems[1]), ...] stacked, for every output of fn (TensorFlow's map_fn)."""
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        raise TypeError(f"The provided function {getattr(fn, '__name__', fn)} is not callable.fn must be callable.")
    g = get_default_graph()
    with g.name_scope(name or "map"):
        flat = flat_elems(elems, "map_fn")
        n_static = static_length(flat, "map_fn")
        n = n_static if n_static is not None else array_ops.shape(flat[0])[0]
        elems_tas = [TensorArray(t.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(t) for t in flat]
        if fn_output_signature is None:
            specs = [(t.dtype, None) for t in flat]
            out_structure = elems
        else:
            specs = [_spec(s) for s in nest.flatten(fn_output_signature)]
            out_structure = fn_output_signature
        result_tas = [TensorArray(d, size=n, dynamic_size=False, infer_shape=infer_shape, element_shape=shape)
                      for d, shape in specs]

        def compute(i, tas):
            value = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_tas])
            result = fn(value)
            nest.assert_same_structure(out_structure, result)
            return i + 1, [ta.write(i, r) for ta, r in zip(tas, nest.flatten(result))]

        _, tas = while_loop(lambda i, _: i < n, compute, (array_ops.constant(0), result_tas),
                            parallel_iterations=parallel_iterations or 10, back_prop=back_prop,
                            swap_memory=swap_memory, maximum_iterations=n)
        results = [ta.stack() for ta in tas]
        set_length(results, n_static)
        return nest.pack_sequence_as(out_structure, results)
