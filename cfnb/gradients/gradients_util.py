"""`gradients(ys, xs)`: reverse-mode differentiation by building more graph (gradients_util.py).

The ops between `xs` and `ys` are visited in reverse: an op is ready when every consumer that lies
between has handed it a gradient (a pending count per op); its output gradients are summed (AddN)
and passed to the op's registered gradient function, which builds the input gradients.

While loops make this a little more than a reverse topological walk (TensorFlow's design,
control_flow_state.py): each differentiated loop gets a GradLoopState holding the gradient loop's
WhileContext; ops of the forward loop are differentiated *inside* that context, so the gradient of
a loop is another loop; a loop Switch is visited twice (once from its Exit, once from the body); and
loop Exits wait until every Exit of their loop has been seen, so an unused Exit gets a zero gradient
when another one has a real one.
"""
import collections
import contextlib

from ..framework import build_journal, dtypes
from ..framework.dtype_rules import TENSORFLOW_RULES, forced_dtype_rules
from ..framework.func_graph import FuncGraph
from ..framework.indexed_slices import IndexedSlices
from ..framework.ops import Tensor, convert_to_tensor, get_default_graph
from ..framework.registry import get_gradient_function
from ..ops import array_ops, array_ops_stack, control_flow_util, list_ops, math_ops, variables
from . import control_flow_state, indexed_slices_util, static_shapes

_SCOPES = []  # name scopes of the gradients() calls under way, outermost first


def current_gradient_scope():
    """The outermost gradients() call under way (gradients of functional ops call gradients() again,
    inside their functions; TensorArray gradients must all use the outer call's arrays)."""
    return _SCOPES[0] if _SCOPES else None


def is_trainable(t):
    """Gradients flow through floats, through handles (variables) and through variants (TensorLists), except a
    list known to hold integers or booleans (TensorFlow's backprop_util.IsTrainable reads the element dtype from
    the variant's handle data): an accumulator of loop indices or cond predicates carries no gradient, so a
    second derivative that reaches x only through one is None, as in TensorFlow, not zeros."""
    if t.dtype == dtypes.variant:
        element = list_ops.list_element_dtype(t)  # a list of lists (an outer loop's accumulator of an inner one's)
        return element is None or element.is_floating or element in (dtypes.variant, dtypes.resource)
    return t.dtype.is_floating or t.dtype == dtypes.resource


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _capture_maps(graph):
    """For the function graph `graph` and the functions enclosing it: placeholder -> captured
    tensor, and captured tensor -> placeholders. Gradients flow through captures as if the
    function's body were inline (TensorFlow's `_Inputs` and `_Consumers`)."""
    to_outer, to_inner = {}, collections.defaultdict(list)
    while isinstance(graph, FuncGraph):
        for external, internal in graph.captures:
            to_outer[internal] = external
            to_inner[external].append(internal)
        graph = graph.outer_graph
    return to_outer, to_inner


def _inputs(op, captures, xs_set):
    to_outer = captures[0]
    return [to_outer[t] if t in to_outer and t not in xs_set else t for t in op.inputs]


def _consumers(t, captures):
    out = list(t.consumers())
    for internal in captures[1].get(t, ()):
        out.extend(_consumers(internal, captures))
    return out


def _mark_reached_ops(from_ops, captures=({}, {}), through=is_trainable):
    reached = set()
    queue = collections.deque(from_ops)
    while queue:
        op = queue.popleft()
        if op not in reached:
            reached.add(op)
            for out in op.outputs:
                if through(out):
                    queue.extend(_consumers(out, captures))
    return reached


def _is_complex(t):
    """A complex tensor, or a TensorList of complex elements (a v2 TensorArray of complex64)."""
    if t.dtype == dtypes.variant:
        element = list_ops.list_element_dtype(t)
        return element is not None and element.is_complex
    return t.dtype.is_complex


def _refuse_complex_paths(to_ops, from_ops, captures, xs_set):
    """TensorFlow differentiates complex tensors; cfnb does not (its rules take no conjugates). A path from xs to
    ys through a complex tensor would silently contribute nothing, so it is refused instead."""
    reached = _mark_reached_ops(from_ops, captures, lambda t: _is_complex(t) or is_trainable(t))
    seen, queue = set(), collections.deque(to_ops)
    while queue:
        op = queue.popleft()
        if op in reached and op not in seen:
            seen.add(op)
            inputs = _inputs(op, captures, xs_set)
            complex_tensor = next((t for t in list(op.outputs) + inputs if _is_complex(t)), None)
            if complex_tensor is not None and complex_tensor.op in reached:
                raise NotImplementedError(f"cfnb does not differentiate complex tensors: {complex_tensor.name} "
                                          f"({complex_tensor.dtype.name}) lies between xs and ys (TensorFlow "
                                          f"differentiates it; take the real and imaginary parts as float tensors)")
            queue.extend(t.op for t in inputs)


def _pending_count(to_ops, from_ops, captures, xs_set):
    reached = _mark_reached_ops(from_ops, captures)
    if any(t.dtype.is_complex for op in reached for t in op.outputs):
        _refuse_complex_paths(to_ops, from_ops, captures, xs_set)
    reachable_to_ops = {op for op in to_ops if op in reached}
    between_ops, between_op_list = set(), []
    queue = collections.deque(to_ops)
    while queue:
        op = queue.popleft()
        if op in reached:
            between_ops.add(op)
            between_op_list.append(op)
            reached.remove(op)
            queue.extend(t.op for t in _inputs(op, captures, xs_set))
    loop_state = control_flow_state.maybe_create_control_flow_state(between_op_list, between_ops)
    pending = collections.defaultdict(int)
    for op in between_op_list:
        for x in _inputs(op, captures, xs_set):
            if x.op in between_ops:
                pending[x.op] += 1
    return reachable_to_ops, pending, loop_state


def _default_grad_ys(grad_ys, ys):
    out = []
    for i, (y, g) in enumerate(zip(ys, grad_ys)):
        if g is None:
            # ones_like(y), built as TensorFlow builds it: Fill(Shape, 1) with a static shape folded
            # into a Const (so the gradient graph names match TensorFlow's).
            if y.shape.is_fully_defined():
                shape = array_ops.constant(y.shape.as_list(), dtypes.int32, name="Shape")
            else:
                shape = array_ops.shape(y)
            g = get_default_graph()
            with g.name_scope(f"grad_ys_{i}") as scope:
                out.append(array_ops.fill(shape, array_ops.constant(1, dtype=y.dtype), name=scope))
        else:
            # The gradient of a handle (a variable passed through a loop) is a float tensor.
            g = convert_to_tensor(g, dtype=None if y.dtype in (dtypes.resource, dtypes.variant) else y.dtype)
            if y.dtype not in (dtypes.resource, dtypes.variant) and not g.shape.is_compatible_with(y.shape):
                raise ValueError(f"Incompatible shapes: grad_ys[{i}] has shape {g.shape} but y {y.name} has shape "
                                 f"{y.shape}")
            # As TensorFlow: the given gradient enters through an Identity in this gradients() scope
            # (gradient TensorArrays are keyed by that scope).
            out.append(array_ops.identity(g, name=f"grad_ys_{i}"))
    return out


def _set_grad(grads, t, grad):
    op_grads = grads.get(t.op)
    if not op_grads:
        op_grads = [[] for _ in t.op.outputs]
        grads[t.op] = op_grads
    t_grads = op_grads[t.value_index]
    if isinstance(t_grads, list):
        t_grads.append(grad)
    else:
        assert control_flow_util.IsLoopSwitch(t.op)
        op_grads[t.value_index] = grad


def _get_grads(grads, op):
    return grads[op] if op in grads else [[] for _ in op.outputs]


# Ops whose gradient passes an IndexedSlices on as one: those that return the incoming gradient, and a
# cond's Switch and Merge (control_flow_grad densifies at loops, as this version of cfnb does).
_PASSES_INDEXED_SLICES = ("Identity", "ReadVariableOp", "PlaceholderWithDefault", "Switch", "Merge")


def _dense_outside_loop(out_grads):
    """An Exit's gradient, made dense where it was computed, outside the gradient loop it is about to enter.

    TensorFlow's `_ExitGrad` enters an IndexedSlices' values and indices into the gradient loop as they are; cfnb's
    loop gradients are dense, and densifying inside the gradient loop would build the UnsortedSegmentSum there, so
    the Exit's `b_exit` Enter would be fed from its own frame ("entered from two frames", e.g. the gradient of a
    `gather` of a loop's result)."""
    return [convert_to_tensor(g) if isinstance(g, IndexedSlices) else g for g in out_grads]


def _has_any_not_none_grads(grads, op):
    out_grads = _get_grads(grads, op)
    for g in out_grads:
        if isinstance(g, Tensor):
            return True
        if g and any(x is not None for x in g):
            return True
    return False


def _aggregated_grads(grads, op, loop_state):
    out_grads = _get_grads(grads, op)
    for i, out_grad in enumerate(out_grads):
        if loop_state and isinstance(out_grad, (Tensor, IndexedSlices)):
            assert control_flow_util.IsLoopSwitch(op)
            continue
        if out_grad:
            real = [g for g in out_grad if g is not None]
            if len(real) == 0:
                out_grads[i] = None
            elif len(real) == 1:
                out_grads[i] = real[0]
            elif all(isinstance(g, Tensor) for g in real):
                out_grads[i] = math_ops.add_n(real)
            else:
                out_grads[i] = indexed_slices_util.aggregate(real)
        else:
            out_grads[i] = None
    return out_grads


def _stop_ops(from_ops, stop_gradient_ops, pending, captures, xs_set):
    stop = {op for op in from_ops if not any(pending[t.op] > 0 for t in _inputs(op, captures, xs_set))}
    stop.update(stop_gradient_ops)
    return stop


def _raise_no_grad_wrt_initial_loop_val(op, from_ops):
    """TensorFlow's refusal, with its message, when differentiating inside a loop body with respect
    to (or through) the initial value of a loop variable."""
    target = from_ops[0]
    queue = collections.deque([op])
    visited = set()
    while queue:
        cur = queue.popleft()
        if cur in visited:
            continue
        visited.add(cur)
        if cur in from_ops:
            target = cur
            break
        queue.extend(t.op for t in cur.inputs)
    raise ValueError(f"Cannot compute gradient inside while loop with respect to op '{target.name}'. We do not "
                     f"support taking the gradient wrt or through the initial value of a loop variable. Gradients "
                     f"can be computed through loop invariants or wrt the input parameters to the loop body.")


def _update_pending_and_enqueue_ready(grads, op, queue, pending, loop_state, captures, xs_set):
    """Counts down the pending count of each of the op's inputs and enqueues an input op when it is ready
    (TensorFlow's `_UpdatePendingAndEnqueueReady`): a loop Switch is ready at once (it is visited twice), and a
    loop Exit waits until every Exit of its loop has been seen, so an unused Exit gets zeros when another has a
    real gradient."""
    for x in _inputs(op, captures, xs_set):
        pending[x.op] -= 1
        ready = pending[x.op] == 0
        if loop_state and not ready:
            ready = pending[x.op] > 0 and control_flow_util.IsLoopSwitch(x.op)
        if not ready:
            continue
        if control_flow_util.IsLoopExit(x.op):
            # An Exit waits until every Exit of its loop has been seen.
            grad_state = loop_state.get_grad_state(x.op, before=False)
            grad_state.deferred_exits.append(x)
            grad_state.pending_exits_count -= 1
            if grad_state.pending_exits_count == 0:
                has_not_none_grad = False
                for y in grad_state.deferred_exits:
                    if _has_any_not_none_grads(grads, y.op):
                        has_not_none_grad = True
                        queue.append(y.op)
                    else:
                        grad_state.unused_exits.append(y)
                if has_not_none_grad:
                    for y in grad_state.unused_exits:
                        if is_trainable(y):
                            _set_grad(grads, y, loop_state.zeros_like_for_exit(y))
                        queue.append(y.op)
                else:
                    for y in grad_state.unused_exits:
                        queue.append(y.op)
        else:
            queue.append(x.op)


def _get_grad(grads, t, unconnected_gradients):
    op_grads = grads.get(t.op)
    if not op_grads:
        return static_shapes.zeros_like(t) if unconnected_gradients == "zero" else None
    t_grad = op_grads[t.value_index]
    if t_grad is None and unconnected_gradients == "zero":
        return static_shapes.zeros_like(t)
    assert not isinstance(t_grad, list), "gradients list should have been aggregated by now."
    return t_grad


def _convert_args(ys, xs, grad_ys, stop_gradients, unconnected_gradients, src_graph):
    """ys, xs, grad_ys and stop_gradients as lists of tensors, checked as `_GradientsHelper` checks them: one
    grad_y per y, a known `unconnected_gradients`, and (unless `src_graph` holds them) all in one graph."""
    if unconnected_gradients not in ("none", "zero"):
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
    ys = [convert_to_tensor(y) for y in _as_list(ys)]
    xs_list = [x.handle if hasattr(x, "handle") and hasattr(x, "initializer") else
               x._as_graph_element() if hasattr(x, "_as_graph_element") else x for x in _as_list(xs)]
    xs_list = [convert_to_tensor(x) for x in xs_list]
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    stop_gradients = [convert_to_tensor(t) for t in _as_list(stop_gradients or [])]
    if src_graph is None:
        _check_same_graph(ys + xs_list + stop_gradients + [t for t in grad_ys if t is not None])
    return ys, xs_list, grad_ys, stop_gradients


def _initial_queue(grads, to_ops, reachable_to_ops, pending, loop_state):
    """The ops ready first (`_GradientsHelper`): each y's op that nothing between consumes, then the Exits of loops
    that no y uses (`ControlFlowState.ProcessUnusedLoopExits`), with zero gradients when trainable."""
    queue = collections.deque()
    to_ops_set = set()
    for op in to_ops:
        if pending[op] == 0 and op not in to_ops_set and op in reachable_to_ops:
            to_ops_set.add(op)
            queue.append(op)
    if loop_state:
        for y in loop_state.process_unused_loop_exits(pending, to_ops_set):
            if is_trainable(y):
                _set_grad(grads, y, loop_state.zeros_like_for_exit(y))
                queue.append(y.op)
    return queue


def _grad_fn_of(op, has_out_grads, stop_ops):
    """The op's registered gradient function when it has output gradients and is not a stop op; an op with none
    registered raises LookupError, as `_GradientsHelper` does (never a silently dropped term)."""
    if not has_out_grads or op in stop_ops:
        return None
    grad_fn = get_gradient_function(op)
    if grad_fn is None:
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type}). If you "
                          f"want to treat it as a constant, wrap its output in cfnb.stop_gradient.")
    return grad_fn


def _call_grad_fn(g, op, grad_fn, out_grads, loop_state, colocate_gradients_with_ops):
    """The op's input gradients from its gradient function, called as `_GradientsHelper` calls it: a missing output
    gradient becomes zeros (`ZerosLike`), a sparse one dense unless the op passes it through unchanged."""
    for i, out_grad in enumerate(out_grads):
        # A resource gets zeros only when it is a variable's handle outside loops
        # (TensorFlow's supports_default_grad: handle data for one shape and dtype).
        if isinstance(out_grad, IndexedSlices) and op.type not in _PASSES_INDEXED_SLICES:
            # Only gradients that pass a gradient through unchanged keep it sparse.
            out_grads[i] = out_grad = convert_to_tensor(out_grad)
        if not isinstance(out_grad, (Tensor, IndexedSlices)) and is_trainable(op.outputs[i]) \
                and (op.outputs[i].dtype != dtypes.resource
                     or not loop_state and variables.variable_spec(op.outputs[i])):
            out_grads[i] = (loop_state.zeros_like(op, i) if loop_state
                            else control_flow_state.zeros_like(op, i))
    # colocate_gradients_with_ops: each gradient op goes where its forward op goes
    # (TensorFlow's _maybe_colocate_with); otherwise the device scope of this call applies.
    with (g.colocate_with(op) if colocate_gradients_with_ops else contextlib.nullcontext()), \
            g.name_scope(op.name + "_grad"):
        in_grads = _as_list(grad_fn(op, *out_grads))
    if len(in_grads) != len(op.inputs):
        raise ValueError(f"Num gradients {len(in_grads)} generated for op {op.name} do not match num "
                         f"inputs {len(op.inputs)}")
    return in_grads


def _set_input_grads(grads, op, in_grads, captures, xs_set):
    """Hands each input gradient to its input (`_GradientsHelper`'s loop over `_Inputs`), with the input's shape."""
    for t_in, in_grad in zip(_inputs(op, captures, xs_set), in_grads):
        if in_grad is not None:
            if isinstance(in_grad, Tensor) and t_in.dtype not in (dtypes.resource, dtypes.variant):
                if not in_grad.shape.is_compatible_with(t_in.shape):
                    raise ValueError(f"Incompatible shapes between op input and calculated input gradient. "
                                     f"Forward operation: {op.name}. Original input shape: {t_in.shape}. "
                                     f"Calculated input gradient shape: {in_grad.shape}")
                in_grad.set_shape(t_in.shape)  # the gradient has its input's shape (as in TensorFlow)
            _set_grad(grads, t_in, in_grad)


def _backprop_op(g, op, grads, loop_state, stop_ops, from_ops, captures, xs_set, colocate_gradients_with_ops):
    """One step of the reverse traversal (the body of `_GradientsHelper`'s `while queue` loop): the op's output
    gradients aggregated, its gradient function called in the gradient loop's context, its inputs' gradients set."""
    if loop_state:
        loop_state.enter_grad_while_context(op, before=True)
    out_grads = _aggregated_grads(grads, op, loop_state)
    if control_flow_util.IsLoopExit(op):
        out_grads = _dense_outside_loop(out_grads)
    if loop_state:
        loop_state.exit_grad_while_context(op, before=True)
    has_out_grads = any(isinstance(x, (Tensor, IndexedSlices)) for x in out_grads)
    grad_fn = _grad_fn_of(op, has_out_grads, stop_ops)
    if loop_state:
        loop_state.enter_grad_while_context(op, before=False)
    ctxt = op._control_flow_context
    if control_flow_util.IsSwitch(op) and ctxt is not None and ctxt.IsWhileContext() \
            and ctxt is get_default_graph()._get_control_flow_context():
        _raise_no_grad_wrt_initial_loop_val(op, from_ops)
    if grad_fn not in (None, "none") and has_out_grads:
        in_grads = _call_grad_fn(g, op, grad_fn, out_grads, loop_state, colocate_gradients_with_ops)
    else:
        in_grads = [None] * len(op.inputs)
    _set_input_grads(grads, op, in_grads, captures, xs_set)
    if loop_state:
        loop_state.exit_grad_while_context(op, before=False)


def gradients(ys, xs, grad_ys=None, name="gradients", stop_gradients=None, unconnected_gradients="none",
              colocate_gradients_with_ops=False, gate_gradients=False, aggregation_method=None, src_graph=None):
    """d(sum of ys)/d(x) for each x in xs (tf.compat.v1.gradients). `None` for an x that ys do not
    depend on, or zeros with unconnected_gradients="zero".

    Reads as TensorFlow's `_GradientsHelper`: the pending counts (`_pending_count`), the first ready ops
    (`_initial_queue`), the loop over ready ops (`_backprop_op`: aggregation, then the gradient function), each op
    enqueued when its last consumer has handed it a gradient (`_update_pending_and_enqueue_ready`).

    `src_graph`: the graph holding ys and xs when the gradient is built elsewhere, in the current
    default graph (a functional op's gradient function differentiates its forward function)."""
    ys, xs_list, grad_ys, stop_gradients = _convert_args(ys, xs, grad_ys, stop_gradients, unconnected_gradients,
                                                         src_graph)
    g = get_default_graph() if src_graph is not None else ys[0].graph
    # Gradient functions are written for TensorFlow's dtype rules; a numpy-rules graph already holds
    # explicit Casts, whose gradients cast back (see Graph.dtype_rules).
    # A failed build leaves the graph as it was (build_journal.py): TensorFlow's functions are frozen FunctionDefs
    # that a half-built gradient cannot have changed; cfnb's are live FuncGraphs, rewritten in place.
    with build_journal.rollback_on_error(g), g.as_default(), g.name_scope(name) as scope, _pushed(scope), \
            forced_dtype_rules(TENSORFLOW_RULES):
        grad_ys = _default_grad_ys(grad_ys, ys)
        to_ops = [t.op for t in ys]
        from_ops = [t.op for t in xs_list]
        captures = _capture_maps(get_default_graph())
        xs_set = set(xs_list)
        reachable_to_ops, pending, loop_state = _pending_count(to_ops, from_ops, captures, xs_set)
        grads = {}
        for y, gy in zip(ys, grad_ys):
            _set_grad(grads, y, gy)
        queue = _initial_queue(grads, to_ops, reachable_to_ops, pending, loop_state)
        stop_ops = _stop_ops(from_ops, [t.op for t in stop_gradients], pending, captures, xs_set)
        while queue:
            op = queue.popleft()
            _backprop_op(g, op, grads, loop_state, stop_ops, from_ops, captures, xs_set, colocate_gradients_with_ops)
            _update_pending_and_enqueue_ready(grads, op, queue, pending, loop_state, captures, xs_set)
        if loop_state:
            loop_state.post_processing()
        # As in TensorFlow 1, a second-order gradient through a v1 loop is None when no path from x reaches
        # the gradient loop (its history stacks cut it), and a TypeError (the Exit gradient) when one does.
        return [_get_grad(grads, x, unconnected_gradients) for x in xs_list]


def _check_same_graph(tensors):
    """ys, xs, grad_ys and stop_gradients must share one graph (ops._get_graph_from_inputs); inside a
    function, tensors of the graphs around it count as its own (they are captured)."""
    def enclosing(g):
        while g is not None:
            yield g
            g = getattr(g, "outer_graph", None)

    first = None
    for t in tensors:
        if not hasattr(t, "graph"):
            continue
        if first is None:
            first = t
        elif t.graph not in enclosing(first.graph) and first.graph not in enclosing(t.graph):
            raise ValueError(f"{t} must be from the same graph as {first} (graphs are {t.graph!r} and "
                             f"{first.graph!r}).")


class _pushed:
    def __init__(self, scope):
        self.scope = scope.rstrip("/")

    def __enter__(self):
        _SCOPES.append(self.scope)

    def __exit__(self, *exc):
        _SCOPES.pop()


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """The Hessian of sum(ys) with respect to each x (tf.compat.v1.hessians)."""
    xs = _as_list(xs)
    out = []
    with get_default_graph().name_scope(name):
        for gradient, x in zip(gradients(ys, xs), xs):
            n = x.shape.num_elements()
            if n is None:
                raise ValueError(f"hessians needs a fully defined shape for {x.name}")
            flat = array_ops.reshape(gradient, [-1])
            rows = [array_ops.reshape(gradients(flat[j], x)[0], [-1]) for j in range(n)]
            h = array_ops_stack.stack(rows)
            out.append(array_ops.reshape(h, x.shape.as_list() + x.shape.as_list()))
    return out
