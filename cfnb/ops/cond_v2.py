"""Functional `If` (control flow v2, TensorFlow's cond_v2.py): one op, two function branches.

`cond(pred, true_fn, false_fn)` traces each branch into a FuncGraph (`cond_true_3`,
`cond_false_4`). Tensors a branch uses from outside become captures; both branches are given the
same inputs, in the same order, so the `If` op is `If(pred, *inputs)` with `then_branch` and
`else_branch` attributes. The branches live in the graph's function library. The op is
`StatelessIf` when neither branch has a stateful op, as in TensorFlow.

It runs either as a strict function call (`runtime/function_runtime.py`) or, by default, after the
lowering pass (`passes/lowering.py`) has rewritten it into Switch/Merge.
"""
from ..framework import dtypes, nest
from ..framework.func_graph import FuncGraph, unique_function_name
from ..framework.indexed_slices import IndexedSlices
from ..framework.ops import Operation, Tensor, convert_to_tensor, get_default_graph
from ..framework.registry import register_op
from . import array_ops, math_ops
from .control_flow_ops import check_cond_pred, unpack_if_singleton


def _if_infer(op):
    then_graph, else_graph = op.get_attr("then_branch"), op.get_attr("else_branch")
    out = []
    for t, e in zip(then_graph.outputs, else_graph.outputs):
        out.append((t.dtype, t.shape.most_specific_compatible_shape(e.shape)))
    return out


register_op("If", _if_infer, lambda op, state: state.functions.if_kernel(op), stateful=True, multi_output=True)
register_op("StatelessIf", _if_infer, lambda op, state: state.functions.if_kernel(op), multi_output=True,
            needs_state=True)


def build_branch(name, fn, outer_graph, op_return_value=None):
    """Trace `fn()` into a FuncGraph; returns (graph, structured result). An Operation the branch
    returns (a `no_op`, a `group`) becomes `op_return_value` (the predicate or branch index) run after
    it, as func_graph_from_py_func's `op_return_value` does in TensorFlow."""
    graph = FuncGraph(name, outer_graph)
    with graph.as_default():
        result = fn()
        if result is None:
            return graph, None

        def op_result(v):
            if not isinstance(v, Operation):
                return v
            value = graph.capture(op_return_value)  # a fed placeholder: the dependency goes on the Identity
            with graph.control_dependencies([v]):
                return array_ops.identity(value)
        result = nest.map_structure(op_result, result) if op_return_value is not None else result
        flat = [_flow_of(v) for v in nest.flatten(result, expand_composites=True)]
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
    """`tf.cond` under control flow v2 (TensorFlow's `cond_v2.cond_v2`): each branch becomes a function graph and
    the cond one `If` (or `StatelessIf`) op whose inputs are the branches' captures, matched into one list.
    Unlike v1's Switch/Merge, nothing of a branch is in the outer graph, so the If is one node that a pass
    lowers (passes/lowering.py) or the runtime calls; the branches must agree in structure and dtypes."""
    g = get_default_graph()
    with g.name_scope(name or "cond") as scope:
        label = scope[:-1]
        pred = convert_to_tensor(pred, name="pred")
        if pred.shape.ndims != 0:
            # cond_v2.cond_v2 squeezes a predicate that is not known to be a scalar, so [[True]] is
            # accepted; a predicate with more than one element still fails at run time.
            pred = array_ops.squeeze(pred)
        check_cond_pred(pred, label)
        true_graph, true_result = build_branch(unique_function_name(g, scope, "true"), true_fn, g, pred)
        false_graph, false_result = build_branch(unique_function_name(g, scope, "false"), false_fn, g, pred)
        for which, result in (("true_fn", true_result), ("false_fn", false_result)):
            if result is None:
                raise ValueError(f"cond '{label}': '{which}' must have a return value.")
        make_indexed_slices_indices_types_match([true_graph, false_graph])
        if not strict:
            true_result, false_result = unpack_if_singleton(true_result), unpack_if_singleton(false_result)
        try:
            nest.assert_same_structure(true_result, false_result, expand_composites=True)
        except (ValueError, TypeError) as e:
            # cond_v2._make_output_composite_tensors_match / _check_same_outputs: a TypeError.
            raise TypeError(f"cond '{label}': true_fn and false_fn arguments to tf.cond must have the same number, "
                            f"type, and overall structure of return values.\n\ntrue_fn output: {true_result}\n"
                            f"false_fn output: {false_result}\n\nError details:\n{e}") from None
        for i, (t, e) in enumerate(zip(true_graph.outputs, false_graph.outputs)):
            if t.dtype != e.dtype:
                raise ValueError(f"cond '{label}': Outputs of 'true_fn' and 'false_fn' must have the same type(s). "
                                 f"Received {t.dtype.name} from 'true_fn' and {e.dtype.name} from 'false_fn' "
                                 f"(output #{i}).")
        inputs = _match_inputs([true_graph, false_graph])
        for fn_graph in (true_graph, false_graph):
            g._add_function(fn_graph)
        stateful = true_graph.is_stateful() or false_graph.is_stateful()
        # the branches' control dependencies on outer ops hold for the If, whichever branch runs (TF's cond_v2)
        with g.control_dependencies(true_graph.control_captures + false_graph.control_captures):
            op = g.create_op("If" if stateful else "StatelessIf", [pred] + inputs,
                             {"then_branch": true_graph, "else_branch": false_graph,
                              "Tout": [t.dtype for t in true_graph.outputs],
                              "_lower_using_switch_merge": True}, name=scope)
        g.prevent_fetching(op)  # as cond_v2 does: its outputs are fetched through the Identities below
        # In a v1 graph every output goes through an Identity (as cond_v2 does), so fetching one
        # output prunes the others once the If is lowered.
        outs = [array_ops.identity(t) for t in op.outputs]
        outs = [_rebuild(o, t) for o, t in zip(nest.flatten(true_result, expand_composites=True), outs)]
        return nest.pack_sequence_as(true_result, outs, expand_composites=True)


def make_indexed_slices_indices_types_match(branch_graphs):
    """Where the branches return IndexedSlices at one place with int32 indices in one and int64 in another, each
    branch casts its indices to int64 inside its graph (TensorFlow's `cond_v2._make_indexed_slices_indices_types_
    match`), so the If has one output type there."""
    flats = [nest.flatten(bg.structured_outputs) for bg in branch_graphs]
    if len({len(f) for f in flats}) != 1:
        return  # a structure mismatch: reported by the caller
    position = 0
    for outs in zip(*flats):
        if all(isinstance(o, IndexedSlices) for o in outs) and len({o.indices.dtype for o in outs}) > 1:
            for bg, o in zip(branch_graphs, outs):
                with bg.as_default():  # the output, an outer tensor already captured
                    bg.outputs[position + 1] = math_ops.cast(bg.outputs[position + 1], dtypes.int64)
                o._indices = bg.outputs[position + 1]
        position += len(nest.flatten(outs[0], expand_composites=True))


def _rebuild(original, tensor):
    if hasattr(original, "_with_new_flow"):
        return original._with_new_flow(tensor)
    return tensor


# --- Case: one of N branches by index (TensorFlow's cond_v2.indexed_case) --------------------------
def _case_infer(op):
    branches = op.get_attr("branches")
    out = []
    for outputs in zip(*[b.outputs for b in branches]):
        shape = outputs[0].shape
        for t in outputs[1:]:
            shape = shape.most_specific_compatible_shape(t.shape)
        out.append((outputs[0].dtype, shape))
    return out


register_op("Case", _case_infer, lambda op, state: state.functions.case_kernel(op), stateful=True,
            multi_output=True)
register_op("StatelessCase", _case_infer, lambda op, state: state.functions.case_kernel(op), multi_output=True,
            needs_state=True)


def _switch_n_kernel(op):
    n = op.get_attr("num_outs")

    def switch_n(data, index):
        k = int(index)
        k = k if 0 <= k < n else n - 1  # out of range: the last output (the default branch)
        return tuple(data if j == k else None for j in range(n))
    return switch_n


# `_SwitchN(data, index)`: the N-way Switch that lowers a Case; every output but one is dead.
register_op("_SwitchN", lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)] * op.get_attr("num_outs"),
            _switch_n_kernel, multi_output=True)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Run `branch_fns[branch_index]` (an out-of-range index runs `default`, or the last branch).
    Always one functional `Case` op, as in TensorFlow, whichever control flow is enabled."""
    if isinstance(branch_fns, dict):
        branch_fns = sorted(branch_fns.items())
    if branch_fns and isinstance(branch_fns[0], tuple):
        keys = [k for k, _ in branch_fns]
        if keys != list(range(len(keys))):
            raise ValueError(f"switch_case '{name}': branch keys must be 0, 1, ..., N-1; got {keys}")
        branch_fns = [f for _, f in branch_fns]
    if not isinstance(branch_index, Tensor):  # control_flow_switch_case.switch_case refuses Python ints
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    fns = list(branch_fns) + ([default] if default is not None else [])
    if not fns or not all(callable(f) for f in fns):
        raise TypeError(f"switch_case '{name}': branch_fns must be a non-empty list of callables")
    g = get_default_graph()
    with g.name_scope(name) as scope:
        label = scope[:-1]
        index = convert_to_tensor(branch_index, name="branch_index")
        if not index.dtype.is_integer or index.shape.ndims not in (None, 0):
            raise TypeError(f"switch_case '{label}': 'branch_index' must be a scalar integer Tensor, got "
                            f"{index.dtype.name} of shape {index.shape}")
        built = [build_branch(unique_function_name(g, scope, f"branch{k}"), fn, g, index) for k, fn in enumerate(fns)]
        results = [r for _, r in built]
        graphs = [fg for fg, _ in built]
        make_indexed_slices_indices_types_match(graphs)
        for k, r in enumerate(results):
            if r is None:
                raise ValueError(f"switch_case '{label}': branch {k} must have a return value.")
            try:
                nest.assert_same_structure(results[0], r, expand_composites=True)
            except ValueError as e:
                raise ValueError(f"switch_case '{label}': branch 0 and branch {k} must return the same structure."
                                 f"\n{e}") from None
            for i, (a, b) in enumerate(zip(graphs[0].outputs, graphs[k].outputs)):
                if a.dtype != b.dtype:
                    raise ValueError(f"switch_case '{label}': output #{i} is {a.dtype.name} in branch 0 but "
                                     f"{b.dtype.name} in branch {k}.")
        inputs = _match_inputs(graphs)
        for fg in graphs:
            g._add_function(fg)
        stateful = any(fg.is_stateful() for fg in graphs)
        with g.control_dependencies([c for fg in graphs for c in fg.control_captures]):
            op = g.create_op("Case" if stateful else "StatelessCase", [index] + inputs,
                             {"branches": graphs, "Tout": [t.dtype for t in graphs[0].outputs],
                              "_lower_using_switch_merge": True}, name=scope)
        g.prevent_fetching(op)
        outs = [array_ops.identity(t) for t in op.outputs]
        outs = [_rebuild(o, t) for o, t in zip(nest.flatten(results[0], expand_composites=True), outs)]
        return nest.pack_sequence_as(results[0], outs, expand_composites=True)
