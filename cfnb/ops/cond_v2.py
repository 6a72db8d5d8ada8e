"""Functional `If` (control flow v2, TensorFlow's cond_v2.py): one op, two function branches.

`cond(pred, true_fn, false_fn)` traces each branch into a FuncGraph (`cond_true_3`,
`cond_false_4`). Tensors a branch uses from outside become captures; both branches are given the
same inputs, in the same order, so the `If` op is `If(pred, *inputs)` with `then_branch` and
`else_branch` attributes. The branches live in the graph's function library. The op is
`StatelessIf` when neither branch has a stateful op, as in TensorFlow.

It runs either as a strict function call (`runtime/function_runtime.py`) or, by default, after the
lowering pass (`passes/lowering.py`) has rewritten it into Switch/Merge.
"""
from ..framework import nest
from ..framework.func_graph import FuncGraph, unique_function_name
from ..framework.ops import convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from . import array_ops


def _if_infer(op):
    then_graph, else_graph = op.get_attr("then_branch"), op.get_attr("else_branch")
    out = []
    for t, e in zip(then_graph.outputs, else_graph.outputs):
        out.append((t.dtype, t.shape.most_specific_compatible_shape(e.shape)))
    return out


register_op("If", _if_infer, lambda op, state: state.functions.if_kernel(op), stateful=True, multi_output=True)
register_op("StatelessIf", _if_infer, lambda op, state: state.functions.if_kernel(op), multi_output=True,
            needs_state=True)


def build_branch(name, fn, outer_graph):
    """Trace `fn()` into a FuncGraph; returns (graph, structured result)."""
    graph = FuncGraph(name, outer_graph)
    with graph.as_default():
        result = fn()
        if result is None:
            return graph, None
        flat = [_flow_of(v) for v in nest.flatten(result)]
        # A branch may return an outer tensor as is (`lambda: x`): capture it like any other use.
        graph.outputs = [graph.capture(t) for t in (convert_to_tensor(v) for v in flat)]
    graph.structured_outputs = result
    return graph, result


def _flow_of(v):
    return v._flow_for_control_flow() if hasattr(v, "_flow_for_control_flow") else v


def _match_inputs(graphs):
    """Give every branch the same inputs: the union of their captures, in first-seen order."""
    external = []
    for g in graphs:
        for t in g.external_captures:
            if t not in external:
                external.append(t)
    for g in graphs:
        have = dict(g.captures)
        ordered = []
        for t in external:
            ph = have.get(t)
            if ph is None:
                ph = g.capture(t)  # a placeholder the branch does not use
            ordered.append(ph)
        g.inputs = ordered
    return external


def cond_v2(pred, true_fn, false_fn, strict=False, name=None):
    g = get_default_graph()
    with g.name_scope(name or "cond") as scope:
        label = scope[:-1]
        pred = convert_to_tensor(pred, name="pred")
        from .control_flow_ops import _check_cond_pred, _unpack_if_singleton
        _check_cond_pred(pred, label)
        true_graph, true_result = build_branch(unique_function_name(g, scope, "true"), true_fn, g)
        false_graph, false_result = build_branch(unique_function_name(g, scope, "false"), false_fn, g)
        for which, result in (("true_fn", true_result), ("false_fn", false_result)):
            if result is None:
                raise ValueError(f"cond '{label}': '{which}' must have a return value.")
        if not strict:
            true_result, false_result = _unpack_if_singleton(true_result), _unpack_if_singleton(false_result)
        try:
            nest.assert_same_structure(true_result, false_result)
        except ValueError as e:
            raise ValueError(f"cond '{label}': true_fn and false_fn must return the same structure.\n{e}") from None
        for i, (t, e) in enumerate(zip(true_graph.outputs, false_graph.outputs)):
            if t.dtype != e.dtype:
                raise ValueError(f"cond '{label}': Outputs of 'true_fn' and 'false_fn' must have the same type(s). "
                                 f"Received {t.dtype.name} from 'true_fn' and {e.dtype.name} from 'false_fn' "
                                 f"(output #{i}).")
        inputs = _match_inputs([true_graph, false_graph])
        for fn_graph in (true_graph, false_graph):
            g._add_function(fn_graph)
        stateful = true_graph.is_stateful() or false_graph.is_stateful()
        op = g.create_op("If" if stateful else "StatelessIf", [pred] + inputs,
                         {"then_branch": true_graph, "else_branch": false_graph,
                          "Tout": [t.dtype for t in true_graph.outputs],
                          "_lower_using_switch_merge": True}, name=scope)
        # In a v1 graph every output goes through an Identity (as cond_v2 does), so fetching one
        # output prunes the others once the If is lowered.
        outs = [array_ops.identity(t) for t in op.outputs]
        outs = [_rebuild(o, t) for o, t in zip(nest.flatten(true_result), outs)]
        packed = nest.pack_sequence_as(true_result, outs)
        return packed


def _rebuild(original, tensor):
    if hasattr(original, "_with_new_flow"):
        return original._with_new_flow(tensor)
    return tensor
