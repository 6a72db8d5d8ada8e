"""Variable updates as functions: `assign`, `assign_add`, `assign_sub`, `scatter_update`, `scatter_add`.

tf.compat.v1's state_ops spell `v.assign_add(x)` as `tf.assign_add(v, x)`. On resource variables each
returns the variable as it is after the update (fetching it gives the new value), as TensorFlow's
`_UnreadVariable` does. The scatter ops write rows `indices` of the variable (`ResourceScatterUpdate`,
`ResourceScatterAdd`).
"""
import numpy as np

from ..framework.op_def_library import apply_op
from ..framework.ops import convert_to_tensor
from ..framework.registry import register_op
from .variables import _read_kernel, _UnreadVariable


def _scatter_kernel(update):
    def make(op, state):
        values = state.variables
        read = _read_kernel(op, state)

        def scatter(handle, indices, updates):
            new = np.array(read(handle), copy=True)
            update(new, np.asarray(indices), np.asarray(updates, dtype=new.dtype))
            values[handle] = new
        return scatter
    return make


def _set_rows(a, i, u):
    a[i] = u


register_op("ResourceScatterUpdate", lambda op: [], _scatter_kernel(_set_rows), stateful=True)
register_op("ResourceScatterAdd", lambda op: [], _scatter_kernel(np.add.at), stateful=True)


def assign(ref, value, use_locking=None, name=None, validate_shape=True):
    """`tf.compat.v1.assign`: `ref.assign(value)`."""
    return ref.assign(value, name=name)


def assign_add(ref, value, use_locking=None, name=None):
    """`tf.compat.v1.assign_add`: `ref.assign_add(value)`."""
    return ref.assign_add(value, name=name)


def assign_sub(ref, value, use_locking=None, name=None):
    """`tf.compat.v1.assign_sub`: `ref.assign_sub(value)`."""
    return ref.assign_sub(value, name=name)


def _scatter(op_type, ref, indices, updates, name):
    indices = convert_to_tensor(indices)
    if not indices.dtype.is_integer:
        raise TypeError(f"{op_type}: indices must be integers, got {indices.dtype.name}")
    updates = convert_to_tensor(updates, dtype=ref.dtype)
    op = apply_op(op_type, [("resource", ref.handle), ("indices", indices), ("updates", updates)],
                  {"dtype": ref.dtype}, name=name, default_name=op_type)
    return _UnreadVariable(ref, op)


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """`ref[indices] = updates`, row by row (`tf.compat.v1.scatter_update`)."""
    return _scatter("ResourceScatterUpdate", ref, indices, updates, name)


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """`ref[indices] += updates`, duplicates adding up (`tf.compat.v1.scatter_add`)."""
    return _scatter("ResourceScatterAdd", ref, indices, updates, name)


