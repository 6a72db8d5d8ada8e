"""`while_loop`: repeat `body` while `cond` holds (TensorFlow's `ops/while_loop.py`).

Control flow v1 builds the loop in a `WhileContext` (`while_context.py`); control flow v2, or a
call inside a function body, builds one functional `While` op (`while_v2.py`). `maximum_iterations`
is TensorFlow's rewrite: an iteration counter becomes an extra loop variable and the condition
becomes `i < maximum_iterations and cond(...)`.
"""
import numpy as np

from ..framework import nest
from ..framework.ops import get_default_graph
from ..framework.tensor_shape import TensorShape
from . import control_flow_v2_toggles, while_checks, while_v2
from .array_ops import constant
from .math_ops import logical_and
from .while_context import WhileContext, convert_loop_vars, is_arg_list


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """Repeat `body` while `cond` is true (tf.compat.v1.while_loop).

    With control flow v1 this emits Enter/Merge/Switch/NextIteration/Exit per loop variable; with
    control flow v2 a single `While` op whose cond and body are functions.
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if not isinstance(parallel_iterations, (int, np.integer)) or isinstance(parallel_iterations, bool) \
            or parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if loop_vars is None or (nest.is_nested(loop_vars) and not nest.flatten(loop_vars)):
        raise ValueError("'loop_vars' must be provided.")
    g = get_default_graph()
    if control_flow_v2_toggles.control_flow_v2_enabled() or g.building_function:
        return while_v2.while_loop(cond, body, loop_vars, shape_invariants=shape_invariants,
                                   parallel_iterations=parallel_iterations, maximum_iterations=maximum_iterations,
                                   name=name, return_same_structure=return_same_structure, back_prop=back_prop,
                                   swap_memory=swap_memory)
    with g.name_scope(name or "while") as scope:
        label = scope[:-1]
        loop_vars = convert_loop_vars(loop_vars)
        try_to_pack = is_arg_list(loop_vars) and len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            maximum_iterations = while_checks.maximum_iterations(label, maximum_iterations, int32_only=False)
            counter = constant(0, dtype=maximum_iterations.dtype, name="iteration_counter")
            orig_cond, orig_body, orig_vars = cond, body, loop_vars
            as_args = is_arg_list(loop_vars)
            if try_to_pack:
                loop_vars = (counter, loop_vars[0])
                cond = lambda i, lv: logical_and(i < maximum_iterations, orig_cond(lv))  # noqa: E731
                body = lambda i, lv: (i + 1, orig_body(lv))  # noqa: E731
            else:
                def _unpack(lv):
                    return lv if as_args else [lv]

                def _body(i, lv):
                    out = orig_body(*_unpack(lv))
                    # Accept a list where the loop vars are a tuple (and vice versa), as the
                    # user-level check does; TensorFlow's wrapper would fail on that difference.
                    if as_args and isinstance(out, (list, tuple)) and not hasattr(type(out), "_fields"):
                        out = type(orig_vars)(out) if not hasattr(type(orig_vars), "_fields") else out
                    return i + 1, out
                loop_vars = (counter, loop_vars)
                cond = lambda i, lv: logical_and(i < maximum_iterations, orig_cond(*_unpack(lv)))  # noqa: E731
                body = _body
            if shape_invariants is not None:
                shape_invariants = (TensorShape([]), shape_invariants[0] if try_to_pack and isinstance(
                    shape_invariants, (list, tuple)) else shape_invariants)
            try_to_pack = False
        elif try_to_pack and shape_invariants is not None and not nest.is_nested(shape_invariants):
            shape_invariants = [shape_invariants]
        loop_context = WhileContext(maximum_iterations=maximum_iterations, parallel_iterations=parallel_iterations,
                                    back_prop=back_prop, swap_memory=swap_memory)
        if loop_context.outer_context is None:
            g.add_to_collection("while_context", loop_context)
        result = loop_context.BuildLoop(cond, body, loop_vars, shape_invariants, return_same_structure)
        if maximum_iterations is not None:
            return result[1]
        return result
