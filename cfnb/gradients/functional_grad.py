"""Gradients of functional `If` and `While` (TensorFlow's cond_v2._IfGrad, while_v2._WhileGrad).

The gradient of a functional op is another functional op of the same kind, whose functions are the
gradients of the forward functions. Forward values the gradient needs cross over as *outputs of
the forward op*, which is rewritten in place to produce them (the course shows this rewrite):

  * If: a needed intermediate of a branch becomes an extra output of the If (the branch not taken
    outputs zeros in its place); the gradient If runs on the same predicate.
  * While: a needed intermediate is pushed on a TensorList accumulator every iteration
    (`EmptyTensorList` outside, `TensorListPushBack` in the body, the list an extra loop variable);
    the gradient While runs `total_iters` (forward output 0) times and pops (`TensorListPopBack`)
    in reverse. Loop invariants (body inputs passed straight to outputs) and constants are not
    accumulated.
Because the gradient op satisfies the same contract, gradients of gradients work.
"""
from ..framework import build_journal, dtypes, nest
from ..framework.func_graph import FuncGraph, unique_function_name
from ..framework.indexed_slices import IndexedSlices
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from ..framework.registry import NotDifferentiable, RegisterGradient
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, control_flow_ops, list_ops, math_ops, variables
from . import static_shapes
from .gradients_util import gradients, is_trainable


def _rename_function(graph, func_graph, name):
    """Rename a function (its library entry too): the forward functions become `..._rewritten`."""
    root = graph
    while getattr(root, "outer_graph", None) is not None:
        root = root.outer_graph
    for g in (graph, root):
        if g._functions.get(func_graph.name) is func_graph:
            del g._functions[func_graph.name]
            g._functions[name] = func_graph
    func_graph.name = name


def _add_inputs(op, tensors):
    build_journal.note(op)
    for t in tensors:
        build_journal.note(t)
        op._inputs.append(t)
        t._consumers.append(op)
    op.graph._version += 1


def _add_outputs(op, specs):
    """Give `op` more outputs, one per (dtype, shape)."""
    build_journal.note(op)
    for dtype, shape in specs:
        op._outputs.append(Tensor(op, len(op._outputs), dtype, shape))
    op.graph._version += 1


# --- If -------------------------------------------------------------------------------------------
class _CondGradFuncGraph(FuncGraph):
    """A branch's gradient function: forward-branch intermediates become outputs of the forward If."""

    def __init__(self, name, forward_graph, outer_graph):
        super().__init__(name, outer_graph)
        self.forward_graph = forward_graph
        self.intermediates = []       # forward-branch tensors to expose
        self._indirect = {}

    def capture(self, tensor):
        fwd = self.forward_graph
        if tensor.graph is not fwd:
            return super().capture(tensor)
        if tensor in self._indirect:
            return self._indirect[tensor]
        if tensor.op.type == "Const":
            with self.as_default():
                copy = array_ops.constant(tensor.op.get_attr("value"), tensor.dtype)
            self._indirect[tensor] = copy
            return copy
        # Inputs of the branch are inputs of the If; outputs and intermediates become outputs.
        ph = self.add_argument(tensor.dtype, tensor.shape, name=tensor.op.name.replace("/", "_"))
        self.captures.append((tensor, ph))
        self._indirect[tensor] = ph
        if not any(tensor is t for t in fwd.inputs) and not any(tensor is t for t in fwd.outputs):
            self.intermediates.append(tensor)
        return ph


def _branch_grad(forward, grads, outer_graph):
    name = unique_function_name(outer_graph, "", forward.name + "_grad")
    graph = _CondGradFuncGraph(name, forward, outer_graph)
    ys, grad_ys = [], []
    for y, g in zip(forward.outputs, grads):
        if is_trainable(y) and y.dtype != dtypes.resource:
            ys.append(y)
            grad_ys.append(g)
    with graph.as_default():
        grad_ys = [graph.capture(g) if isinstance(g, Tensor) else g for g in grad_ys]
        result = gradients(ys, forward.inputs, grad_ys=grad_ys, src_graph=forward)
        graph.outputs = [None if r is None else r for r in result]
    return graph


def _branches(op):
    """An If's two branches (then, else) or a Case's branches, and how to rebuild the op with others."""
    if op.type in ("If", "StatelessIf"):
        return [op.get_attr("then_branch"), op.get_attr("else_branch")], \
            lambda fns: {"then_branch": fns[0], "else_branch": fns[1]}
    return list(op.get_attr("branches")), lambda fns: {"branches": list(fns)}


@RegisterGradient("If")
@RegisterGradient("StatelessIf")
@RegisterGradient("Case")
@RegisterGradient("StatelessCase")
def _cond_grad(op, *grads):
    """The gradient of an If (or a Case): the same op on the same predicate (index), whose branches
    are the gradients of the forward branches."""
    branches, attrs = _branches(op)
    g = get_default_graph()
    grads = [gr if gr is not None or not is_trainable(t) or t.dtype == dtypes.resource else
             static_shapes.zeros_like(t) for gr, t in zip(grads, op.outputs)]
    grad_graphs = [_branch_grad(branch, grads, g) for branch in branches]
    # An input gradient missing in one branch is zero there when another branch has one.
    for i in range(len(branches[0].inputs)):
        if any(gg.outputs[i] is not None for gg in grad_graphs):
            for gg in grad_graphs:
                if gg.outputs[i] is None:
                    with gg.as_default():
                        gg.outputs[i] = _zero_gradient(gg, op.inputs[i + 1], gg.forward_graph.inputs[i])
    # Expose the intermediates the gradients need as extra outputs of the forward op.
    extra = _expose_intermediates(op, branches, [gg.intermediates for gg in grad_graphs])
    resolved_inputs = [[_resolve_cond_capture(external, forward, op, extra) for external, _ in gg.captures]
                       for gg, forward in zip(grad_graphs, branches)]
    # Every gradient branch takes the union of the resolved inputs.
    union = []
    for resolved in resolved_inputs:
        for t in resolved:
            if t not in union:
                union.append(t)
    for gg, resolved in zip(grad_graphs, resolved_inputs):
        by_outer = dict(zip(resolved, [ph for _, ph in gg.captures]))
        gg.inputs = [by_outer[t] if t in by_outer else gg.add_argument(t.dtype, t.shape, name="unused")
                     for t in union]
    _make_output_composite_tensors_match(grad_graphs)
    structured = grad_graphs[0].outputs
    for gg in grad_graphs:
        gg.structured_outputs = gg.outputs
        gg.outputs = [t for out in gg.outputs if out is not None for t in nest.flatten(out, expand_composites=True)]
        g._add_function(gg)
    stateful = any(gg.is_stateful() for gg in grad_graphs)
    kind = "If" if op.type in ("If", "StatelessIf") else "Case"
    grad_op = g.create_op(kind if stateful else "Stateless" + kind, [op.inputs[0]] + union,
                          {**attrs(grad_graphs), "Tout": [t.dtype for t in grad_graphs[0].outputs],
                           "_lower_using_switch_merge": True}, name=kind)
    outs = iter([array_ops.identity(t) for t in grad_op.outputs])
    result = [None if out is None else
              nest.pack_sequence_as(out, [next(outs) for _ in nest.flatten(out, expand_composites=True)],
                                    expand_composites=True) for out in structured]
    return [None] + result


def _make_output_composite_tensors_match(grad_graphs):
    """Where one branch's gradient is an IndexedSlices (a `gather` in it), the others' are made IndexedSlices too,
    and their indices of one dtype, so the gradient If outputs its components (TensorFlow's cond_v2
    `_make_output_composite_tensors_match` and `_make_indexed_slices_indices_types_match`)."""
    for i, outs in enumerate(zip(*[gg.outputs for gg in grad_graphs])):
        if not any(isinstance(o, IndexedSlices) for o in outs):
            continue
        for gg in grad_graphs:
            if isinstance(gg.outputs[i], Tensor):
                with gg.as_default():
                    gg.outputs[i] = control_flow_ops.as_indexed_slices(gg.outputs[i])
        if len({gg.outputs[i].indices.dtype for gg in grad_graphs}) > 1:
            for gg in grad_graphs:
                with gg.as_default():
                    o = gg.outputs[i]
                    gg.outputs[i] = IndexedSlices(o.values, math_ops.cast(o.indices, dtypes.int64), o.dense_shape)


def _expose_intermediates(op, branches, needed_per_branch):
    """Make the needed intermediates extra outputs of every branch and of `op`: a branch outputs its
    own intermediates, and zeros where another branch's are (never read: the gradient takes the same
    branch). Returns {intermediate: index of the op output holding it}."""
    base = len(op.outputs)
    positions = {}
    new_outputs = [[] for _ in branches]
    for k, needed in enumerate(needed_per_branch):
        for t in needed:
            positions[t] = base + len(new_outputs[k])
            for j, branch in enumerate(branches):
                if j == k:
                    new_outputs[j].append(t)
                else:
                    with branch.as_default():
                        new_outputs[j].append(_stand_in(t))
    for branch, outs in zip(branches, new_outputs):
        branch.outputs.extend(outs)
    specs = []
    for column in zip(*new_outputs):
        shape = column[0].shape
        for t in column[1:]:
            shape = shape.most_specific_compatible_shape(t.shape)
        specs.append((column[0].dtype, shape))
    _add_outputs(op, specs)
    return positions


def _stand_in(t):
    """What a branch outputs in place of another branch's intermediate `t` (never read): zeros, or for a
    TensorList (a variant; TensorFlow has no variant constant, so a GraphDef could not hold zeros of it) an empty
    list of the same element type."""
    if t.dtype == dtypes.variant:
        element_dtype = t.op.get_attr("element_dtype") if "element_dtype" in t.op.attr else dtypes.float32
        return list_ops.empty_tensor_list(TensorShape(None), element_dtype)
    return array_ops.zeros(t.shape.as_list() if t.shape.is_fully_defined() else [], t.dtype)


def _resolve_cond_capture(tensor, forward, op, extra):
    """An outer tensor for a forward-branch tensor the gradient captured."""
    if tensor.graph is not forward:
        return tensor
    for i, t in enumerate(forward.inputs):
        if t is tensor:
            return op.inputs[1 + i]
    for i, t in enumerate(forward.outputs):
        if t is tensor and i < len(op.outputs):
            return op.outputs[i]
    return op.outputs[extra[tensor]]


# --- While ----------------------------------------------------------------------------------------
_REDUCTIONS = ("Shape", "Size", "Rank", "TensorListElementShape", "TensorListLength")


def _is_loop_invariant(tensor, inputs, outputs):
    return any(tensor is t for t in inputs) and any(tensor is t for t in outputs)


class _WhileBodyGradFuncGraph(FuncGraph):
    """The gradient loop's body. Forward-body tensors it needs are accumulated (see module doc)."""

    is_while_body = True  # a loop body too (its own gradient treats it as one)

    def __init__(self, name, forward_cond, forward_body, maximum_iterations, outer_graph):
        super().__init__(name, outer_graph)
        self.forward_cond = forward_cond
        self.forward_graph = forward_body
        self.maximum_iterations = maximum_iterations
        self.extra_inputs = []                 # EmptyTensorLists added to the forward While
        self.internal_capture_to_output = {}   # captured placeholder -> what the body outputs for it
        self._indirect = {}
        self._forward_inputs = list(forward_body.inputs)
        self._forward_outputs = list(forward_body.outputs)

    def capture(self, tensor):
        """Make a forward-body tensor available to the gradient body (TensorFlow's
        `_WhileBodyGradFuncGraph._capture_helper`). A gradient iteration needs the value the matching forward
        iteration computed, so a tensor that changes per iteration is pushed on a TensorList in the forward
        body and popped here; a loop invariant is captured as is, a Const is copied, and a tensor of a graph
        outside the loop is an ordinary capture."""
        if tensor.graph is not self.forward_graph:
            already = tensor in self._capture_map
            captured = super().capture(tensor)
            if not already:
                self.internal_capture_to_output[captured] = captured
            return captured
        while tensor.op.type == "Identity":
            tensor = tensor.op.inputs[0]
        if tensor in self._indirect:
            return self._indirect[tensor]
        if _is_loop_invariant(tensor, self._forward_inputs, self._forward_outputs):
            captured = self._raw_capture(tensor)
            self.internal_capture_to_output[captured] = captured
            self._indirect[tensor] = captured
            return captured
        if tensor.op.type == "Const":
            with self.as_default():
                copy = array_ops.constant(tensor.op.get_attr("value"), tensor.dtype)
            self._indirect[tensor] = copy
            return copy
        # Accumulate: a TensorList made outside the loop, pushed in the forward body.
        with self.forward_graph.outer_graph.as_default(), self.forward_graph.outer_graph.control_dependencies(None):
            tensor_list = list_ops.empty_tensor_list(tensor.shape, tensor.dtype,
                                                     max_num_elements=self.maximum_iterations,
                                                     name=f"{tensor.name.replace(':', '_')}/accumulator")
        self.extra_inputs.append(tensor_list)
        with self.forward_graph.as_default():
            accumulator = list_ops.tensor_list_push_back(tensor_list, tensor,
                                                         swap_memory=getattr(self.forward_graph, "swap_memory", False))
        self.forward_graph.outputs.append(accumulator)
        self.forward_cond.capture(tensor_list)
        captured_accumulator = self._raw_capture(accumulator)
        with self.as_default():
            new_list, value = list_ops.tensor_list_pop_back(captured_accumulator, tensor.dtype, tensor.shape)
        self._indirect[tensor] = value
        self.internal_capture_to_output[captured_accumulator] = new_list
        return value

    def create_op(self, op_type, inputs, attrs=None, name=None, compute_device=True):
        """A Shape, Size, Rank or list length of forward-body tensors is computed in the forward body, so only its
        small integer result is accumulated (TensorFlow's _WhileBodyGradFuncGraph._create_op_internal): the
        gradient then holds no edge to the forward tensor itself."""
        if op_type in _REDUCTIONS and inputs and all(t.graph is self.forward_graph for t in inputs):
            with self.forward_graph.as_default():
                return self.forward_graph.create_op(op_type, inputs, attrs, name, compute_device)
        return super().create_op(op_type, inputs, attrs, name, compute_device)

    def _raw_capture(self, tensor):
        if tensor in self._capture_map:
            return self._capture_map[tensor]
        ph = self.add_argument(tensor.dtype, tensor.shape, name=tensor.op.name.replace("/", "_"))
        self.captures.append((tensor, ph))
        self._capture_map[tensor] = ph
        return ph


def _preprocess_grad(grad, body_output, while_input, while_output):
    if not is_trainable(body_output):
        return None
    if grad is None and while_output.dtype == dtypes.variant:
        return array_ops.zeros_like(while_input)
    if grad is None and while_output.dtype == dtypes.resource:
        # A variable passed through the loop: its gradient is a float tensor of the variable's shape.
        return _resource_zeros(while_input)
    return grad


def _zero_gradient(grad_graph, outer, inner):
    """The zero gradient of branch input `inner` (the If's input `outer`) in a branch that does not use
    it. A variable's handle gets zeros of the *variable's* dtype and shape, as TensorFlow's
    `default_gradient.zeros_like` gives, so that every branch returns the same dtype."""
    if inner.dtype == dtypes.resource:
        zeros = _resource_zeros(outer)
        if zeros is None:
            raise TypeError(f"Cannot build the zero gradient of resource '{outer.name}' for a branch of "
                            f"'{grad_graph.name}' that does not read it: the variable behind the handle is unknown.")
        return zeros
    # A static shape gives constant zeros, as TensorFlow's zeros_like does in a graph (default_gradient.zeros_like):
    # reading the input for its shape would make the gradient depend on it, and a second derivative through it
    # zeros where TensorFlow's is None.
    if inner.shape.is_fully_defined() and inner.dtype != dtypes.variant:
        return array_ops.zeros(inner.shape.as_list(), inner.dtype)
    return array_ops.zeros_like(grad_graph.capture(inner))


def _resource_zeros(handle):
    """Zeros shaped like the variable behind `handle`; None when there is no variable to follow."""
    spec = variables.variable_spec(handle)
    return array_ops.zeros(*spec) if spec else None


@RegisterGradient("While")
@RegisterGradient("StatelessWhile")
def _while_grad(op, *grads):
    """The gradient of a functional While is another While (TensorFlow's `while_v2._WhileGrad`): its body is
    the gradient of the forward body, it runs `total_iters` times (the forward While's first output), and the
    forward While is rewritten in place to push what the gradient body captures onto TensorLists."""
    cond_graph, body_graph = op.get_attr("cond"), op.get_attr("body")
    g = get_default_graph()
    num_original = op.get_attr("_num_original_outputs")
    grads = [_preprocess_grad(gr, b, i, o) for gr, b, i, o in zip(grads[:num_original], body_graph.outputs,
                                                                    op.inputs, op.outputs)]
    grads += [None] * (len(op.outputs) - num_original)
    pairs = [(y, x, gr) for y, x, gr in zip(body_graph.outputs, body_graph.inputs, grads) if gr is not None]
    if not pairs:
        return [None] * len(op.inputs)
    ys, xs, non_none = zip(*pairs)
    total_iters = op.outputs[0]
    maximum_iterations = op.inputs[1]
    counter = array_ops.constant(0, dtypes.int32, name="grad_counter")
    name = unique_function_name(g, "", body_graph.name + "_grad")
    grad_body = _WhileBodyGradFuncGraph(name, cond_graph, body_graph, maximum_iterations, g)
    args = [counter, maximum_iterations, total_iters] + list(non_none)
    with grad_body.as_default():
        b_counter = grad_body.add_argument(dtypes.int32, [], "counter")
        b_max = grad_body.add_argument(dtypes.int32, [], "maximum_iterations")
        b_total = grad_body.add_argument(dtypes.int32, [], "total_iters")
        b_grads = [grad_body.add_argument(t.dtype, TensorShape(None) if t.dtype == dtypes.variant else t.shape,
                                          name="grad") for t in non_none]
        # A While's loop variables are dense: an IndexedSlices gradient is densified in the body, as while_v2 does.
        grad_outs = [convert_to_tensor(g) if isinstance(g, IndexedSlices) else g for g in
                     gradients(list(ys), list(xs), grad_ys=b_grads, src_graph=body_graph, unconnected_gradients="zero")]
        grad_body.outputs = [b_counter + 1, b_max, b_total] + list(grad_outs)
    arg_placeholders = [b_counter, b_max, b_total] + b_grads
    # Captured tensors: accumulators (their popped list is output), loop invariants (passed through).
    for _, internal in grad_body.captures:
        grad_body.outputs.append(grad_body.internal_capture_to_output[internal])
    if grad_body.extra_inputs:
        # Rewrite the forward While in place to take the new accumulators and output them.
        new_outputs = body_graph.outputs[len(op.inputs):]
        _rename_function(g, cond_graph, cond_graph.name + "_rewritten")
        _rename_function(g, body_graph, body_graph.name + "_rewritten")
        _add_inputs(op, grad_body.extra_inputs)
        _add_outputs(op, [(t.dtype, t.shape) for t in new_outputs])
        op._set_attr("T", [t.dtype for t in op.inputs])
        op._set_attr("output_shapes", [t.shape for t in op.outputs])
    op._set_attr("_num_original_outputs", len(op.outputs))
    captured_inputs = []
    for external, _ in grad_body.captures:
        if external.graph is body_graph:
            for i, out in enumerate(body_graph.outputs):
                if out is external:
                    external = op.outputs[i]
                    break
        captured_inputs.append(external)
    loop_vars = args + captured_inputs
    grad_body.inputs = arg_placeholders + grad_body.internal_captures
    # The gradient loop's cond: run as many iterations as the forward loop did.
    cond_name = unique_function_name(g, "", cond_graph.name + "_grad")
    grad_cond = FuncGraph(cond_name, g)
    with grad_cond.as_default():
        placeholders = [grad_cond.add_argument(t.dtype, TensorShape(None) if t.dtype == dtypes.variant else t.shape,
                                               name=f"arg_{k}") for k, t in enumerate(loop_vars)]
        grad_cond.outputs = [math_ops.less(placeholders[0], placeholders[2])]
    grad_cond.inputs = placeholders
    for fn in (grad_cond, grad_body):
        g._add_function(fn)
    stateful = grad_body.is_stateful()
    grad_op = g.create_op("While" if stateful else "StatelessWhile", loop_vars,
                          {"cond": grad_cond, "body": grad_body, "T": [t.dtype for t in loop_vars],
                           "output_shapes": [t.shape for t in grad_body.outputs],
                           "parallel_iterations": op.get_attr("parallel_iterations"),
                           "_lower_using_switch_merge": True, "_num_original_outputs": len(loop_vars)},
                          name=f"{op.name}_grad")
    outs = [array_ops.identity(t) for t in grad_op.outputs][3:3 + len(non_none)]
    result, k = [], 0
    for gr in grads[: len(op.inputs) - len(grad_body.extra_inputs)]:
        if gr is None:
            result.append(None)
        else:
            result.append(outs[k])
            k += 1
    return result + [None] * (len(op.inputs) - len(result))


# --- TensorLists (what makes gradients of gradient loops work) -------------------------------------
@RegisterGradient("TensorListPushBack")
def _push_back_grad(op, dresult):
    dlist, delement = list_ops.tensor_list_pop_back(dresult, op.get_attr("element_dtype"), op.inputs[1].shape)
    return dlist, delement


@RegisterGradient("TensorListPopBack")
def _pop_back_grad(op, dlist, delement):
    if dlist is None:
        dlist = list_ops.empty_tensor_list(op.outputs[1].shape, op.get_attr("element_dtype"))
    if delement is None:
        delement = static_shapes.zeros_like(op.outputs[1])
    return list_ops.tensor_list_push_back(dlist, delement), None


NotDifferentiable("TensorListLength")  # EmptyTensorList has no gradient registered, as in TensorFlow


@RegisterGradient("TensorListStack")
def _list_stack_grad(op, dtensor):
    return list_ops.tensor_list_from_tensor(dtensor, op.get_attr("element_shape_static")), None


@RegisterGradient("TensorListFromTensor")
def _list_from_tensor_grad(op, dlist):
    t = op.inputs[0]
    if dlist is None:
        return None, None
    n = t.shape[0] if t.shape.ndims else None
    return list_ops.tensor_list_stack(dlist, t.dtype, t.shape[1:], num_elements=-1 if n is None else n), None


@RegisterGradient("TensorListGetItem")
def _list_get_item_grad(op, ditem):
    handle, index, _ = op.inputs
    reserved = list_ops.tensor_list_reserve(op.get_attr("element_shape_static"), list_ops.tensor_list_length(handle),
                                            ditem.dtype)
    return list_ops.tensor_list_set_item(reserved, index, ditem), None, None


@RegisterGradient("TensorListSetItem")
def _list_set_item_grad(op, dlist):
    input_list, index, item = op.inputs
    list_grad = list_ops.tensor_list_set_item(dlist, index, static_shapes.zeros_like(item))
    item_grad = list_ops.tensor_list_get_item(dlist, index, item.dtype, item.shape)
    if op.get_attr("resize_if_index_out_of_bounds"):
        # A write past the end grew the list; the incoming list's gradient has the incoming list's length
        # (TensorFlow's _TensorListSetItemGrad).
        list_grad = list_ops.tensor_list_resize(list_grad, list_ops.tensor_list_length(input_list))
    return list_grad, None, item_grad


@RegisterGradient("TensorListResize")
def _list_resize_grad(op, dlist):
    return list_ops.tensor_list_resize(dlist, list_ops.tensor_list_length(op.inputs[0])), None


@RegisterGradient("TensorListGather")
def _list_gather_grad(op, dtensor):
    handle, indices, _ = op.inputs
    reserved = list_ops.tensor_list_reserve(op.get_attr("element_shape_static"), list_ops.tensor_list_length(handle),
                                            dtensor.dtype)
    return list_ops.tensor_list_scatter(reserved, dtensor, indices), None, None


@RegisterGradient("TensorListScatterIntoExistingList")
def _list_scatter_grad(op, dlist):
    _, tensor, indices = op.inputs
    dtensor = list_ops.tensor_list_gather(dlist, indices, tensor.dtype, tensor.shape[1:])
    return list_ops.tensor_list_scatter(dlist, static_shapes.zeros_like(tensor), indices), dtensor, None


@RegisterGradient("TensorListConcatV2")
def _list_concat_grad(op, dtensor, _dlengths):
    return list_ops.tensor_list_split(dtensor, op.outputs[1]), None


@RegisterGradient("TensorListSplit")
def _list_split_grad(op, dlist):
    """TensorFlow's `_TensorListSplitGrad`: concatenate with the element shape [-1] + the split tensor's other
    dimensions, so that an empty list (a TensorArray written zero times, met again by a second-order gradient)
    concatenates to [0, ...] instead of failing for want of a shape."""
    tensor = op.inputs[0]
    if tensor.shape.ndims is not None and tensor.shape[1:].is_fully_defined():
        element_shape = TensorShape([None]).concatenate(tensor.shape[1:])
    else:
        element_shape = array_ops.concat([array_ops.constant([-1]), array_ops.shape(tensor)[1:]], 0)
    return list_ops.tensor_list_concat(dlist, tensor.dtype, element_shape)[0], None, None


NotDifferentiable("TensorListElementShape")  # TensorListReserve has none registered, as in TensorFlow
