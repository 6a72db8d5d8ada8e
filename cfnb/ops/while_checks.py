"""What `while_loop` checks of the loop it builds, shared by both forms, with TensorFlow's messages.

A loop is well-formed when its shape invariants have the structure of its loop variables and admit their initial
shapes, and when one pass of the body gives back the structure of the loop variables with each one's dtype
unchanged and its shape within the invariant. Control flow v1 checks this while `WhileContext._BuildLoop` wires
the body's results into the NextIterations (TensorFlow's `_EnforceShapeInvariant`); control flow v2 while it
builds the body function (`while_v2._check_shapes_compat`, `_check_num_inputs_outputs`). Each message names the
loop and the variable, and says how to fix it.

The predicate `cond` returns and the `maximum_iterations` bound are checked here too, with one set of messages,
and the two places TensorFlow's forms differ are arguments: v1's LoopCond demands a scalar where v2 squeezes a
one-element predicate, and v2's While op counts in int32 where v1 counts in the bound's own integer type.
"""
import numpy as np

from ..framework import dtypes, nest
from ..framework.ops import convert_to_tensor
from ..framework.tensor_shape import as_shape


def maximum_iterations(label, value, int32_only):
    """The `maximum_iterations` argument as a scalar integer tensor (TensorFlow's `while_loop` converts it with
    `ops.convert_to_tensor` and demands a scalar).

    TensorFlow's v1 also takes a float bound and counts in floats (2.5 runs three iterations), and its v2 refuses
    anything but int32 (so an int64 bound fails there, a Python float with "Expected int32"). cfnb refuses a
    non-integer bound in both forms, and an int64 one in v2 (`int32_only`) as TensorFlow does, since casting it
    could wrap a large bound to a small one. A Python int is an int32 there, as TensorFlow converts it, even
    where a caller converts Python ints to int64 by default (the `%%whileloop` magic, after numpy)."""
    if int32_only and isinstance(value, int) and not isinstance(value, bool):
        if not -2**31 <= value < 2**31:
            raise ValueError(f"while_loop '{label}': 'maximum_iterations' is {value}, outside the range of the "
                             f"While op's int32 counter")
        value = convert_to_tensor(value, dtype=dtypes.int32, name="maximum_iterations")
    bound = convert_to_tensor(value, name="maximum_iterations")
    if bound.shape.ndims != 0:
        raise ValueError(f"while_loop '{label}': 'maximum_iterations' must be a scalar. Received shape: "
                         f"{bound.shape}")
    if not bound.dtype.is_integer:
        raise TypeError(f"while_loop '{label}': 'maximum_iterations' must be an integer, got {bound.dtype.name}")
    if int32_only and bound.dtype != dtypes.int32:
        raise TypeError(f"while_loop '{label}': 'maximum_iterations' must be an int32 with control flow v2 (the "
                        f"While op counts its iterations in int32), got {bound.dtype.name}; cast it with "
                        f"cfnb.cast(..., cfnb.int32)")
    return bound


def cond_predicate(label, pred, squeeze):
    """What `cond` returned, as the loop's predicate: a boolean tensor, never a Python bool (a loop that would
    never, or always, run), and a scalar, the input of v1's LoopCond (TensorFlow's `LoopCond` op demands a
    scalar bool). With `squeeze` (v2) a predicate of one element is also taken: the caller reshapes it to a
    scalar, as TensorFlow's `while_v2._build_cond` does."""
    if isinstance(pred, (bool, np.bool_)):
        raise TypeError(f"while_loop '{label}': `cond` returned the Python bool {pred}; it must return a boolean "
                        f"tensor computed from the loop variables.")
    pred = convert_to_tensor(pred)
    if pred.dtype != dtypes.bool_:
        raise TypeError(f"while_loop '{label}': `cond` must return a boolean tensor, but returned {pred.name} of "
                        f"dtype {pred.dtype.name}. Compare it, e.g. `x > 0`, or cast it with cfnb.cast(..., "
                        f"cfnb.bool).")
    if pred.shape.ndims not in (None, 0) and not (squeeze and pred.shape.num_elements() == 1):
        raise ValueError(f"while_loop '{label}': `cond` must return a scalar, but returned {pred.name} of shape "
                         f"{pred.shape}. Reduce it first, e.g. with cfnb.reduce_all or cfnb.reduce_any.")
    return pred


def shape_less_than_or_equal(shape1, shape2):
    """Whether `shape2` admits `shape1`: unknown rank admits all, else the same rank and each known dimension equal."""
    if shape2.ndims is None:
        return True
    if shape1.ndims != shape2.ndims:
        return False
    return all(d2 is None or d1 == d2 for d1, d2 in zip(shape1.as_list(), shape2.as_list()))


def flat_shape_invariants(label, loop_vars, shape_invariants):
    """One TensorShape (or None: the variable's own shape) per flat loop variable; `shape_invariants` must have the
    structure of `loop_vars` (TensorFlow's `nest.assert_same_structure(loop_vars, shape_invariants)`)."""
    try:
        nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
    except (ValueError, TypeError) as e:
        raise type(e)(f"while_loop '{label}': `shape_invariants` must have the structure of `loop_vars`.\n{e}") \
            from None
    flat = []
    for var, shape in zip(nest.flatten(loop_vars), nest.flatten(shape_invariants)):
        shape = None if shape is None else as_shape(shape)
        if hasattr(var, "_component_shapes"):  # an IndexedSlices: its invariant is its dense shape
            flat.extend(var._component_shapes(shape) if shape is not None else [None] * len(var._to_components()))
        else:
            flat.append(shape)
    return flat


def check_initial_shapes(label, tensors, invariants):
    """Each loop variable enters with a shape its invariant admits."""
    for t, shape in zip(tensors, invariants):
        if shape is not None and not shape_less_than_or_equal(t.shape, shape):
            raise ValueError(f"while_loop '{label}': The shape invariant specified for {t.name} is not compatible "
                             f"with the initial shape of the loop variable. It enters the loop with shape {t.shape}, "
                             f"but the specified shape invariant is {shape}.")


def body_result(label, result, expected):
    """The body's result as a list with the structure of `expected` (the loop variables as the body received them,
    in a list): a single value is wrapped, None and any other structure are refused."""
    if result is None:
        raise ValueError(f"while_loop '{label}': `body` returned None; it must return the new values of the loop "
                         f"variables.")
    if not nest.is_nested(result):
        result = [result]
    try:
        nest.assert_same_structure(list(expected), list(result), expand_composites=True)
    except (ValueError, TypeError) as e:
        raise ValueError(f"while_loop '{label}': `body` must return the structure of `loop_vars`.\n{e}") from None
    return result


def check_body_output(label, i, input_t, loop_shape, out):
    """Loop variable #i, which entered as `input_t` with the loop's shape `loop_shape` (its invariant, or its
    own shape), comes out of the body as `out`: the same dtype, a shape the loop's shape admits."""
    if out.dtype != input_t.dtype:
        raise TypeError(f"while_loop '{label}': Loop var {input_t.name} (loop variable #{i}) enters the loop with "
                        f"type {input_t.dtype} but has type {out.dtype} after 1 iteration. {input_t.name} type "
                        f"should remain constant; add a cfnb.cast in the body.")
    if not shape_less_than_or_equal(out.shape, loop_shape):
        allowed = loop_shape.most_specific_compatible_shape(out.shape)
        raise ValueError(f"while_loop '{label}': Input tensor '{input_t.name}' (loop variable #{i}) enters the loop "
                         f"with shape {input_t.shape}, but has shape {out.shape} after one iteration. To allow the "
                         f"shape to vary across iterations, use the `shape_invariants` argument of tf.while_loop to "
                         f"specify a less-specific shape. For this variable {allowed!r} would do.")
