"""Functional `While` (control flow v2, TensorFlow's while_v2.py): one op, cond and body functions.

The op's inputs are `[loop_counter, maximum_iterations] + loop_vars + captures`:
  * `loop_counter` starts at 0 and counts iterations; it is output 0, so after the loop it holds
    the trip count (the gradient loop runs exactly that many times);
  * `maximum_iterations` is -1 when unbounded; the cond function ANDs `counter < maximum_iterations`;
  * a tensor the body captures from outside becomes an extra loop variable that the body passes
    through unchanged (a loop invariant).
The cond and body are FuncGraphs in the graph's function library (`while_cond_3`, `while_body_4`).
"""
from ..framework import dtypes, nest
from ..framework.func_graph import FuncGraph, unique_function_name
from ..framework.ops import convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from ..framework.tensor_shape import as_shape
from . import array_ops, math_ops
from .while_context import convert_loop_vars, is_arg_list, shape_less_than_or_equal


def _while_infer(op):
    body = op.get_attr("body")
    shapes = op.get_attr("output_shapes")
    return [(t.dtype, shape) for t, shape in zip(op._inputs, shapes)] if len(shapes) == len(op._inputs) else \
        [(t.dtype, t.shape) for t in body.outputs]


register_op("While", _while_infer, lambda op, state: state.functions.while_kernel(op), stateful=True,
            multi_output=True)
register_op("StatelessWhile", _while_infer, lambda op, state: state.functions.while_kernel(op), multi_output=True,
            needs_state=True)


def _flow_of(v):
    return v._flow_for_control_flow() if hasattr(v, "_flow_for_control_flow") else v


def _rebuild(original, tensor):
    return original._with_new_flow(tensor) if hasattr(original, "_with_new_flow") else tensor


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, maximum_iterations=None,
               name=None, return_same_structure=False, back_prop=True, swap_memory=False):
    g = get_default_graph()
    with g.name_scope(name or "while") as scope:
        label = scope[:-1]
        loop_vars = convert_loop_vars(loop_vars)
        as_args = is_arg_list(loop_vars)
        flat_orig = nest.flatten(loop_vars)
        flat = [_flow_of(v) for v in flat_orig]
        if shape_invariants is not None:
            if as_args and len(flat_orig) == 1 and not nest.is_nested(shape_invariants):
                shape_invariants = [shape_invariants]
            try:  # while_v2.while_loop: nest.assert_same_structure(loop_vars, shape_invariants)
                nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
            except (ValueError, TypeError) as e:
                raise type(e)(f"while_loop '{label}': `shape_invariants` must have the structure of "
                              f"`loop_vars`.\n{e}") from None
            invariants = [None if s is None else as_shape(s) for s in nest.flatten(shape_invariants)]
        else:
            invariants = [None] * len(flat)
        shapes = [t.shape if inv is None else inv for t, inv in zip(flat, invariants)]
        for t, inv in zip(flat, invariants):
            if inv is not None and not shape_less_than_or_equal(t.shape, inv):
                raise ValueError(f"while_loop '{label}': The shape invariant specified for {t.name} is not "
                                 f"compatible with the initial shape of the loop variable. It enters the loop "
                                 f"with shape {t.shape}, but the specified shape invariant is {inv}.")
        if maximum_iterations is None:
            max_iter = array_ops.constant(-1, dtypes.int32, name="maximum_iterations")
        else:
            max_iter = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if max_iter.shape.ndims != 0:
                raise ValueError(f"while_loop '{label}': 'maximum_iterations' must be a scalar. Received shape: "
                                 f"{max_iter.shape}")
            max_iter = array_ops.cast(max_iter, dtypes.int32)
        counter = array_ops.constant(0, dtypes.int32, name="loop_counter")

        def pack(tensors):
            rebuilt = [_rebuild(o, t) for o, t in zip(flat_orig, tensors)]
            packed = nest.pack_sequence_as(loop_vars, rebuilt)
            return list(packed) if as_args else [packed]

        # --- the cond function ---------------------------------------------------------------
        cond_graph = FuncGraph(unique_function_name(g, scope, "cond"), g)
        with cond_graph.as_default():
            c_counter, c_max, c_vars = _add_loop_arguments(cond_graph, flat, shapes)
            pred = cond(*pack(c_vars))
            if isinstance(pred, bool) and maximum_iterations is not None:
                pred = array_ops.constant(pred)  # maximum_iterations bounds the loop, as in TensorFlow
            if isinstance(pred, bool):
                raise TypeError(f"while_loop '{label}': `cond` returned the Python bool {pred}; it must return a "
                                f"boolean tensor computed from the loop variables.")
            pred = convert_to_tensor(pred)
            if pred.dtype != dtypes.bool_:
                raise TypeError(f"while_loop '{label}': `cond` must return a boolean tensor, but returned {pred.name} "
                                f"of dtype {pred.dtype.name}.")
            if pred.shape.ndims not in (None, 0):
                if pred.shape.num_elements() == 1:
                    pred = array_ops.reshape(pred, [])  # TensorFlow squeezes a [1] predicate
                else:
                    raise ValueError(f"while_loop '{label}': `cond` must return a scalar, but returned {pred.name} "
                                     f"of shape {pred.shape}.")
            if maximum_iterations is not None:
                pred = math_ops.logical_and(math_ops.less(c_counter, c_max), pred)
            cond_graph.outputs = [pred]

        # --- the body function ---------------------------------------------------------------
        body_graph = FuncGraph(unique_function_name(g, scope, "body"), g)
        body_graph.swap_memory = bool(swap_memory)  # read by the gradient's accumulators (functional_grad.py)
        body_graph.is_while_body = True  # its gradient's zeros are constants (control_flow_state.zeros_like)
        with body_graph.as_default():
            b_counter, b_max, b_vars = _add_loop_arguments(body_graph, flat, shapes)
            for t in cond_graph.external_captures:  # cond's captures come first among the body's
                body_graph.capture(t)
            result = body(*pack(b_vars))
            if result is None:
                raise ValueError(f"while_loop '{label}': `body` returned None; it must return the new values of "
                                 f"the loop variables.")
            if not nest.is_nested(result):
                result = [result]
            expected = pack(b_vars)
            try:
                nest.assert_same_structure(list(expected), list(result))
            except ValueError as e:
                raise ValueError(f"while_loop '{label}': `body` must return the structure of `loop_vars`.\n{e}") \
                    from None
            outs = [body_graph.capture(convert_to_tensor(_flow_of(v))) for v in nest.flatten(result)]
            for i, (inp, out, shape) in enumerate(zip(flat, outs, shapes)):
                if out.dtype != inp.dtype:
                    raise TypeError(f"while_loop '{label}': Loop var {inp.name} (loop variable #{i}) enters the loop "
                                    f"with type {inp.dtype} but has type {out.dtype} after 1 iteration. {inp.name} "
                                    f"type should remain constant; add a cfnb.cast in the body.")
                if not shape_less_than_or_equal(out.shape, shape):
                    allowed = shape.most_specific_compatible_shape(out.shape)
                    raise ValueError(f"while_loop '{label}': Input tensor '{inp.name}' (loop variable #{i}) enters "
                                     f"the loop with shape {inp.shape}, but has shape {out.shape} after one iteration. "
                                     f"To allow the shape to vary across iterations, use the `shape_invariants` "
                                     f"argument of tf.while_loop to specify a less-specific shape, e.g. {allowed!r} "
                                     f"for this variable.")
            body_graph.outputs = [b_counter + 1, b_max] + outs

        # Captured tensors become loop variables the body passes through unchanged; the cond gets
        # matching (unused) arguments so both functions take the same inputs.
        captures = body_graph.external_captures
        body_graph.outputs.extend(body_graph.internal_captures)
        for t in captures:
            cond_graph.capture(t)
        cond_graph.inputs = [c_counter, c_max] + c_vars + [dict(cond_graph.captures)[t] for t in captures]
        body_graph.inputs = [b_counter, b_max] + b_vars + body_graph.internal_captures

        for fn_graph in (cond_graph, body_graph):
            g._add_function(fn_graph)
        stateful = cond_graph.is_stateful() or body_graph.is_stateful()
        inputs = [counter, max_iter] + flat + captures
        output_shapes = [as_shape([]), as_shape([])] + shapes + [t.shape for t in captures]
        with g.control_dependencies(cond_graph.control_captures + body_graph.control_captures):  # TF's while_v2
            op = g.create_op("While" if stateful else "StatelessWhile", inputs,
                             {"cond": cond_graph, "body": body_graph, "T": [t.dtype for t in inputs],
                              "output_shapes": output_shapes, "parallel_iterations": int(parallel_iterations),
                              "_lower_using_switch_merge": True, "_num_original_outputs": len(inputs)}, name=scope)
        n = len(flat)
        # In a v1 graph every output goes through an Identity (as while_v2 does), so fetching one
        # output prunes the others once the While is lowered.
        results = [array_ops.identity(t) for t in op.outputs][2:2 + n]
        if not back_prop:
            results = [array_ops.stop_gradient(t) for t in results]
        packed = nest.pack_sequence_as(loop_vars, [_rebuild(o, t) for o, t in zip(flat_orig, results)])
        if return_same_structure:
            return packed
        return packed[0] if as_args and len(flat) == 1 else packed


def _add_loop_arguments(func_graph, flat, shapes):
    """The arguments TensorFlow gives a While's cond and body, in order: the loop counter, the
    maximum_iterations bound, then one placeholder per flat loop variable."""
    counter = func_graph.add_argument(dtypes.int32, [], "loop_counter")
    bound = func_graph.add_argument(dtypes.int32, [], "maximum_iterations")
    loop_vars = [func_graph.add_argument(t.dtype, s, f"placeholder_{k}" if k else "placeholder")
                 for k, (t, s) in enumerate(zip(flat, shapes))]
    return counter, bound, loop_vars
