"""`cond`: `true_fn()` if `pred` else `false_fn()`, as a Switch/Merge diamond (TensorFlow's `ops/cond.py`).

Control flow v1 builds the diamond the whitepaper draws: the predicate is switched on itself to
make one pivot per branch (`switch_t`, `switch_f`), each branch is built in its own `CondContext`
(which routes every outside tensor it reads through a Switch on the predicate), and one Merge per
output joins the branch that ran. Under control flow v2, or inside a function body, the same call
builds one functional `If` op instead (`cond_v2.py`).
"""
import numpy as np

from ..framework import dtypes, nest
from ..framework.indexed_slices import IndexedSlices
from ..framework.ops import convert_to_tensor, get_default_graph
from . import cond_v2, control_flow_v2_toggles, math_ops
from .array_ops import identity
from .control_flow_ops import CondContext, check_cond_pred, from_flow_tensor, merge, switch, unpack_if_singleton


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """`true_fn()` if `pred` else `false_fn()`, built with Switch/Merge (control flow v1) or as one
    `If` op (control flow v2). The predicate must be a scalar boolean tensor. `fn1`/`fn2` are the
    deprecated names of `true_fn`/`false_fn`, accepted as tf.compat.v1.cond accepts them."""
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    if true_fn is None or not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if false_fn is None or not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if isinstance(pred, (bool, np.bool_)):
        raise TypeError("'pred' must not be a Python bool. A cond on a Python value is an ordinary `if`; "
                        "use a boolean tensor (e.g. cfnb.constant(True)) to build a cond.")
    g = get_default_graph()
    if control_flow_v2_toggles.control_flow_v2_enabled() or g.building_function:
        return cond_v2.cond_v2(pred, true_fn, false_fn, strict=strict, name=name)
    with g.name_scope(name or "cond") as scope:
        label = scope[:-1]
        pred = convert_to_tensor(pred, name="pred")
        check_cond_pred(pred, label)
        p_2, p_1 = switch(pred, pred)
        pivot_1 = identity(p_1, name="switch_t")
        pivot_2 = identity(p_2, name="switch_f")
        pred = identity(pred, name="pred_id")
        for t in (p_1, pivot_1, pivot_2, pred):  # inside the cond, as TensorFlow marks them
            g.prevent_fetching(t.op)

        orig_res_t, res_t = _build_branch(true_fn, CondContext(pred, pivot_1, branch=1), label, "true_fn")
        orig_res_f, res_f = _build_branch(false_fn, CondContext(pred, pivot_2, branch=0), label, "false_fn")

        if not strict:
            orig_res_t = unpack_if_singleton(orig_res_t)
            orig_res_f = unpack_if_singleton(orig_res_f)
        orig_res_t, res_t, orig_res_f, res_f = _match_structures(label, orig_res_t, res_t, orig_res_f, res_f)
        for i, (x, y) in enumerate(zip(res_t, res_f)):
            if x.dtype != y.dtype:
                raise ValueError(f"cond '{label}': Outputs of 'true_fn' and 'false_fn' must have the same type(s). "
                                 f"Received {x.dtype.name} from 'true_fn' and {y.dtype.name} from 'false_fn' "
                                 f"(output #{i}).")
        merges = [merge([f, t])[0] for f, t in zip(res_f, res_t)]
        flat_orig = nest.flatten(orig_res_t, expand_composites=True)
        merges = [from_flow_tensor(o, m) for o, m in zip(flat_orig, merges)]
        merges = nest.pack_sequence_as(orig_res_t, merges, expand_composites=True)
        if not strict:
            merges = unpack_if_singleton(merges)
        return merges


def _build_branch(fn, context, label, which):
    """(fn's own result, its tensors as the branch outputs): `fn` called inside its CondContext."""
    try:
        context.Enter()
        original, result = context.BuildCondBranch(fn)
        if original is None:
            raise ValueError(f"cond '{label}': '{which}' must have a return value.")
        context.ExitResult(result)
    finally:
        context.Exit()
    return original, result


def _match_structures(label, orig_res_t, res_t, orig_res_f, res_f):
    """The branches' results, checked to have one structure. IndexedSlices whose indices differ in dtype (int32
    and int64) are both cast to int64 first, as TensorFlow's cond does (`_cast_indexed_slice_indices`)."""
    try:
        nest.assert_same_structure(orig_res_t, orig_res_f, expand_composites=True)
        return orig_res_t, res_t, orig_res_f, res_f
    except (TypeError, ValueError):
        pass
    packed = [nest.pack_sequence_as(o, r, expand_composites=True) for o, r in ((orig_res_t, res_t),
                                                                                (orig_res_f, res_f))]
    for pair in ((orig_res_t, orig_res_f), packed):
        if nest.is_nested(pair[0]) == nest.is_nested(pair[1]):
            pair = (nest.flatten(pair[0]), nest.flatten(pair[1]))
            for a, b in zip(*pair):
                _cast_indexed_slice_indices(a, b)
    try:
        nest.assert_same_structure(orig_res_t, orig_res_f, expand_composites=True)
    except ValueError as e:
        raise ValueError(f"cond '{label}': true_fn and false_fn must return the same structure.\n{e}") from None
    except TypeError as e:
        raise TypeError(f"cond '{label}': Incompatible return types of 'true_fn' and 'false_fn': {e}") from None
    return (orig_res_t, nest.flatten(packed[0], expand_composites=True),
            orig_res_f, nest.flatten(packed[1], expand_composites=True))


def _cast_indexed_slice_indices(a, b):
    """Two IndexedSlices with int32 and int64 indices: both cast to int64, in place (TensorFlow's
    `cond._cast_indexed_slice_indices`)."""
    if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices) and a.indices.dtype != b.indices.dtype:
        a._indices = math_ops.cast(a.indices, dtypes.int64)
        b._indices = math_ops.cast(b.indices, dtypes.int64)
