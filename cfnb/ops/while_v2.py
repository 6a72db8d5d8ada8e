"""Functional `While` (control flow v2, TensorFlow's while_v2.py): one op, cond and body functions.

The op's inputs are `[loop_counter, maximum_iterations] + loop_vars + captures`:
  * `loop_counter` starts at 0 and counts iterations; it is output 0, so after the loop it holds
    the trip count (the gradient loop runs exactly that many times);
  * `maximum_iterations` is -1 when unbounded; the cond function ANDs `counter < maximum_iterations`;
  * a tensor the body captures from outside becomes an extra loop variable that the body passes
    through unchanged (a loop invariant).
The cond and body are FuncGraphs in the graph's function library (`while_cond_3`, `while_body_4`).
`while_loop` builds them in order: the loop variables (`_LoopVars`), the cond function (`_build_cond`), the body
function (`_build_body`), their captures made loop variables (`_add_captures`), then the op itself.
"""
import numpy as np

from ..framework import dtypes, nest
from ..framework.func_graph import FuncGraph, unique_function_name
from ..framework.ops import convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from ..framework.tensor_shape import as_shape
from . import array_ops, math_ops, while_checks
from .while_context import convert_loop_vars, is_arg_list


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
               name=None, return_same_structure=True, back_prop=True, swap_memory=False):
    """One `While` op (`StatelessWhile` when neither function touches state) that stands for the Python loop

        i = 0
        while (maximum_iterations is None or i < maximum_iterations) and cond(*loop_vars):
            loop_vars = body(*loop_vars)
            i += 1

    (TensorFlow's `while_v2.while_loop`). Returns the final loop variables packed as `loop_vars`, each through
    an Identity of the op's output, so that fetching one prunes the others once the op is lowered; as in
    TensorFlow, called directly it returns that structure even for one loop variable (`return_same_structure`
    defaults to True here, to False in `while_loop`).
    """
    g = get_default_graph()
    with g.name_scope(name or "while") as scope:
        loop = _LoopVars(scope, loop_vars, shape_invariants)
        if maximum_iterations is None:
            max_iter = array_ops.constant(-1, dtypes.int32, name="maximum_iterations")
        else:
            max_iter = while_checks.maximum_iterations(loop.label, maximum_iterations, int32_only=True)
        counter = array_ops.constant(0, dtypes.int32, name="loop_counter")
        cond_graph = _build_cond(g, scope, loop, cond, maximum_iterations is not None)
        body_graph = _build_body(g, scope, loop, body, cond_graph, swap_memory)
        captures = _add_captures(cond_graph, body_graph)
        for fn_graph in (cond_graph, body_graph):
            g._add_function(fn_graph)
        stateful = cond_graph.is_stateful() or body_graph.is_stateful()
        inputs = [counter, max_iter] + loop.flat + captures
        output_shapes = [as_shape([]), as_shape([])] + loop.shapes + [t.shape for t in captures]
        with g.control_dependencies(cond_graph.control_captures + body_graph.control_captures):  # TF's while_v2
            op = g.create_op("While" if stateful else "StatelessWhile", inputs,
                             {"cond": cond_graph, "body": body_graph, "T": [t.dtype for t in inputs],
                              "output_shapes": output_shapes, "parallel_iterations": int(parallel_iterations),
                              "_lower_using_switch_merge": True, "_num_original_outputs": len(inputs)}, name=scope)
        # In a v1 graph every output goes through an Identity (as while_v2 does), so fetching one
        # output prunes the others once the While is lowered.
        results = [array_ops.identity(t) for t in op.outputs][2:2 + len(loop.flat)]
        if not back_prop:
            results = [array_ops.stop_gradient(t) for t in results]
        packed = loop.packed(results)
        if return_same_structure:
            return packed
        return packed[0] if loop.as_args and len(loop.flat) == 1 else packed


class _LoopVars:
    """The loop variables of one loop: their structure, their flat tensors (a TensorArray's flow tensor in its
    place), and the shape each keeps across iterations (its shape invariant, or its own shape)."""

    def __init__(self, scope, loop_vars, shape_invariants):
        self.label = scope[:-1]
        self.structure = convert_loop_vars(loop_vars)
        self.as_args = is_arg_list(self.structure)  # cond and body take the loop variables as separate arguments
        self.flat_orig = nest.flatten(self.structure, expand_composites=True)
        self.flat = [_flow_of(v) for v in self.flat_orig]
        invariants = [None] * len(self.flat)
        if shape_invariants is not None:
            if self.as_args and len(nest.flatten(self.structure)) == 1 and not nest.is_nested(shape_invariants):
                shape_invariants = [shape_invariants]
            invariants = while_checks.flat_shape_invariants(self.label, self.structure, shape_invariants)
        self.shapes = [t.shape if inv is None else inv for t, inv in zip(self.flat, invariants)]
        while_checks.check_initial_shapes(self.label, self.flat, invariants)

    def packed(self, tensors):
        """The loop variables' structure holding one tensor per flat loop variable (TensorArrays rebuilt)."""
        return nest.pack_sequence_as(self.structure, [_rebuild(o, t) for o, t in zip(self.flat_orig, tensors)],
                                     expand_composites=True)

    def pack(self, tensors):
        """The arguments cond and body take: the loop variables as separate arguments, or their one structure."""
        packed = self.packed(tensors)
        return list(packed) if self.as_args else [packed]


def _build_cond(g, scope, loop, cond, bounded):
    """The cond function: (loop_counter, maximum_iterations, *loop variables) -> a scalar bool, ANDed with
    `loop_counter < maximum_iterations` when the loop is `bounded`. Unlike v1's LoopCond, a predicate of one
    element is squeezed to a scalar, as TensorFlow's while_v2 does."""
    cond_graph = FuncGraph(unique_function_name(g, scope, "cond"), g)
    with cond_graph.as_default():
        counter, bound, loop_vars = _add_loop_arguments(cond_graph, loop.flat, loop.shapes)
        pred = cond(*loop.pack(loop_vars))
        if isinstance(pred, (bool, np.bool_)) and bounded:
            pred = array_ops.constant(pred)  # maximum_iterations bounds the loop, as in TensorFlow
        pred = while_checks.cond_predicate(loop.label, pred, squeeze=True)
        if pred.shape.ndims not in (None, 0):
            pred = array_ops.reshape(pred, [])  # TensorFlow squeezes a [1] predicate
        if bounded:
            pred = math_ops.logical_and(math_ops.less(counter, bound), pred)
        cond_graph.outputs = [pred]
        cond_graph.inputs = [counter, bound] + loop_vars  # the captures' arguments follow (_add_captures)
    return cond_graph


def _build_body(g, scope, loop, body, cond_graph, swap_memory):
    """The body function: (loop_counter, maximum_iterations, *loop variables) -> (loop_counter + 1,
    maximum_iterations, *new loop variables), each new value of its variable's dtype and shape."""
    body_graph = FuncGraph(unique_function_name(g, scope, "body"), g)
    body_graph.swap_memory = bool(swap_memory)  # read by the gradient's accumulators (functional_grad.py)
    body_graph.is_while_body = True  # its gradient's zeros are constants (control_flow_state.zeros_like)
    with body_graph.as_default():
        counter, bound, loop_vars = _add_loop_arguments(body_graph, loop.flat, loop.shapes)
        for t in cond_graph.external_captures:  # cond's captures come first among the body's
            body_graph.capture(t)
        result = while_checks.body_result(loop.label, body(*loop.pack(loop_vars)), loop.pack(loop_vars))
        outs = [body_graph.capture(convert_to_tensor(_flow_of(v)))
                for v in nest.flatten(result, expand_composites=True)]
        for i, (inp, out, shape) in enumerate(zip(loop.flat, outs, loop.shapes)):
            while_checks.check_body_output(loop.label, i, inp, shape, out)
        body_graph.outputs = [counter + 1, bound] + outs
        body_graph.inputs = [counter, bound] + loop_vars
    return body_graph


def _add_captures(cond_graph, body_graph):
    """The tensors the body captured become loop variables it passes through unchanged; the cond gets matching
    (unused) arguments, so that both functions take the same inputs. Returns the captured outer tensors."""
    captures = body_graph.external_captures
    body_graph.outputs.extend(body_graph.internal_captures)
    cond_arguments = list(cond_graph.inputs)  # the loop counter, the bound, the loop variables
    for t in captures:
        cond_graph.capture(t)
    cond_graph.inputs = cond_arguments + [dict(cond_graph.captures)[t] for t in captures]
    body_graph.inputs = body_graph.inputs + body_graph.internal_captures
    return captures


def _add_loop_arguments(func_graph, flat, shapes):
    """The arguments TensorFlow gives a While's cond and body, in order: the loop counter, the
    maximum_iterations bound, then one placeholder per flat loop variable."""
    counter = func_graph.add_argument(dtypes.int32, [], "loop_counter")
    bound = func_graph.add_argument(dtypes.int32, [], "maximum_iterations")
    loop_vars = [func_graph.add_argument(t.dtype, s, f"placeholder_{k}" if k else "placeholder")
                 for k, (t, s) in enumerate(zip(flat, shapes))]
    return counter, bound, loop_vars
