"""Rebuild a graph of functional `While`/`If` ops with control flow v1 (`while_loop`/`cond` in v1 mode).

The `%%whileloop` magic runs the cell's Python once, building the functional (v2) graph. Its lowered
view with TensorFlow's v1 machinery (WhileContext, GradLoopState, history stacks for gradients) is
this rebuild: every op is copied; a `While` becomes `while_loop(cond, body, loop_vars)` whose
`cond` and `body` copy the op's cond and body functions into the loop's context; an `If` becomes
`cond(pred, then, else)` the same way. No user code runs again, so a cell's side effects happen
once. The rebuilt loops are those `while_loop` would have built from the same functions, except:

  * a captured tensor (a loop invariant the functional body passes through) is read from outside
    the loop, as in v1 (an `Enter` with is_constant), not carried as a loop variable;
  * the functional loop counter is kept only when the loop has `maximum_iterations` (it is then
    the counter the v1 loop would add itself); the limit is read from outside.
  * only the ops a function's outputs need (by data or control edges) are copied, and an op that
    reads the dropped counter (the Identity of the While's output 0) is dropped with it.

A control input on a `While`/`If` (an ordering edge: a print before the loop) becomes control
dependencies of Identity ops on the loop's inputs; an edge *from* one is taken from a NoOp that
waits for all its outputs (`group`).

The student's names a `While`/`If` carries (`_cfnb_var_names`, `_cfnb_out_names`; see lowering.py) are copied
onto the rebuilt loop's Enter/Merge/Switch/NextIteration/Exit (and the Identity that reads Switch:1) and onto
the cond's output Merges, as `_cfnb_var_name`, for the drawings.
"""
from ..framework.ops import Graph, control_dependencies
from ..framework.topological_order import op_order
from ..ops import array_ops, control_flow_ops, control_flow_v2_toggles
from ..ops import cond as cond_lib
from ..ops import while_loop as while_loop_lib
from .lowering import OUT_NAMES, VAR_NAMES, carry_name, names_of

_WHILE = ("While", "StatelessWhile")
_IF = ("If", "StatelessIf")


class RebuiltGraph:
    def __init__(self, graph):
        self.graph = graph
        self.tensor_map = {}   # original tensor -> rebuilt tensor (root graph only)
        self.op_map = {}       # original op -> rebuilt op (While/If: ("outputs", tensors); as_op gives a NoOp)
        self.as_op = None      # as_op(op_map value) -> an op to depend on
        self.origin = {}       # rebuilt op -> original op (functions' ops included)
        self.frames = {}       # while frame name -> the original While op it rebuilds


def rebuild_v1(graph):
    """A RebuiltGraph: `graph` (with functional control flow) built again with v1 control flow."""
    new = Graph()
    new.dtype_rules = graph.dtype_rules
    result = RebuiltGraph(new)
    was_v2 = control_flow_v2_toggles.control_flow_v2_enabled()
    control_flow_v2_toggles.disable_control_flow_v2()
    try:
        with new.as_default():
            copier = _Copier(result)
            result.tensor_map = copier.copy(graph.get_operations(), {}, root=True)
    finally:
        if was_v2:
            control_flow_v2_toggles.enable_control_flow_v2()

    def as_op(node):
        with new.as_default():
            return copier.as_op(node)
    result.as_op = as_op
    return result


class _Copier:
    def __init__(self, result):
        self.result = result
        self.graph = result.graph
        self._groups = {}

    def copy(self, ops, tmap, root=False):
        opmap = {}
        order, unordered = op_order(ops)
        for op in order + unordered:
            if op.type == "Placeholder" and op.outputs[0] in tmap:
                continue  # a function argument: already bound
            if _feeds_only_a_dropped_counter(op):
                tmap[op.outputs[0]] = None
                continue
            deps = [self.as_op(opmap[c]) for c in op.control_inputs if c in opmap]
            if op.type in _WHILE:
                outputs, node = self.while_(op, tmap, deps)
            elif op.type in _IF:
                outputs, node = self.if_(op, tmap, deps)
            elif any(tmap.get(t) is None for t in op.inputs):
                tmap.update((t, None) for t in op.outputs)  # reads the dropped loop counter: dropped too
                continue
            elif op.type == "Identity" and not deps and op.inputs[0].op.type in _WHILE + _IF:
                tmap[op.outputs[0]] = tmap[op.inputs[0]]  # while_v2/cond_v2's output Identity: v1 has none
                opmap[op] = tmap[op.inputs[0]].op
                continue
            else:
                inputs = [tmap[t] for t in op.inputs]
                base = op.name  # a function's op keeps its path under the loop's scope (while/add/y)
                # Under the op's own name scope, as an op builder would: a loop invariant it reads
                # enters the loop as `<op>/Enter`, TensorFlow's v1 naming.
                with self.graph.name_scope(base) as scope:
                    node = self.graph.create_op(op.type, inputs, dict(op.attr), name=scope)
                for d in deps:
                    node._add_control_input(d)
                outputs = node.outputs
                for t, new in zip(op.outputs, outputs):
                    new._shape = t.shape
            opmap[op] = node
            if not isinstance(node, tuple):
                self.result.origin[node] = op
            if root:
                self.result.op_map[op] = node
            tmap.update((t, new) for t, new in zip(op.outputs, outputs) if new is not None)
        return tmap

    def as_op(self, node):
        """An op to depend on: a rebuilt loop or cond is the NoOp after all its outputs (made once)."""
        if isinstance(node, tuple):
            key = id(node)
            if key not in self._groups:
                self._groups[key] = control_flow_ops.group(*node[1])
            return self._groups[key]
        return node

    def call(self, func_graph, args, wanted=None):
        """The function's outputs (those indexed by `wanted`), its ops copied here with its inputs
        bound to `args`."""
        tmap = dict(args)
        outputs = func_graph.outputs if wanted is None else [func_graph.outputs[j] for j in wanted]
        needed = _needed(outputs)
        self.copy([op for op in func_graph.get_operations() if op in needed], tmap)
        return [tmap[t] for t in outputs]

    @staticmethod
    def _ordered(inputs, deps):
        if not deps:
            return inputs
        with control_dependencies(deps):
            return [array_ops.identity(x) for x in inputs]

    def while_(self, op, tmap, deps):
        cond_fg, body_fg = op.get_attr("cond"), op.get_attr("body")
        inputs = [tmap[t] for t in op.inputs]
        bounded = _reads(cond_fg, cond_fg.inputs[1])  # the cond tests `counter < maximum_iterations`
        carried = ([0] if bounded else []) + [j for j in range(2, len(inputs))
                                               if body_fg.outputs[j] is not body_fg.inputs[j]]
        invariant = {j: inputs[j] for j in range(1 if bounded else 2, len(inputs)) if j not in carried}
        loop_vars = self._ordered([inputs[j] for j in carried], deps)
        shapes = [body_fg.inputs[j].shape for j in carried]

        def bind(graph, vs):
            args = {graph.inputs[j]: x for j, x in invariant.items()}
            args.update((graph.inputs[j], v) for j, v in zip(carried, vs))
            return args

        def cond(*vs):
            return self.call(cond_fg, bind(cond_fg, vs))[0]

        def body(*vs):
            return self.call(body_fg, bind(body_fg, vs), carried)

        name = op.name.rsplit("/", 1)[-1]
        start = len(self.graph.get_operations())
        result = while_loop_lib.while_loop(cond, body, loop_vars, shape_invariants=shapes,
                                             parallel_iterations=op.get_attr("parallel_iterations"), name=name,
                                             return_same_structure=True,
                                             swap_memory=getattr(body_fg, "swap_memory", False))
        made = self.graph.get_operations()[start:]
        enter = next(o for o in made if o.type == "Enter")
        self.result.frames[enter.get_attr("frame_name")] = op
        names = names_of(op, VAR_NAMES, len(inputs))
        for j, t in zip(carried, result):
            carry_name(names[j], _v1_column(t.op, made))
        outputs = [None] * len(op.outputs)
        for j, t in zip(carried, result):
            outputs[j] = t
        for j, x in invariant.items():
            outputs[j] = x
        return outputs, ("outputs", list(result))

    def if_(self, op, tmap, deps):
        pred, *inputs = [tmap[t] for t in op.inputs]
        inputs = self._ordered(inputs, deps)
        then_fg, else_fg = op.get_attr("then_branch"), op.get_attr("else_branch")
        name = op.name.rsplit("/", 1)[-1]
        outputs = cond_lib.cond(pred, lambda: self.call(then_fg, dict(zip(then_fg.inputs, inputs))),
                                        lambda: self.call(else_fg, dict(zip(else_fg.inputs, inputs))),
                                        strict=True, name=name)
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        for t, student in zip(outputs, names_of(op, OUT_NAMES, len(outputs))):
            carry_name(student, [t.op] if t.op.type == "Merge" else [])
        return outputs, ("outputs", outputs)


def _v1_column(exit_op, made):
    """The primitives of one v1 loop variable, found from its Exit: Exit <- Switch <- Merge <- (Enter,
    NextIteration), and the Identity reading Switch:1 (WhileContext's order)."""
    if exit_op.type != "Exit":
        return []
    switch = exit_op.inputs[0].op
    merge = switch.inputs[0].op
    identity = [o for o in made if o.type == "Identity" and o.inputs and o.inputs[0] is switch.outputs[1]]
    return [exit_op, switch, merge, *(t.op for t in merge.inputs), *identity]


def _feeds_only_a_dropped_counter(op):
    """A Const that only feeds the loop counter or limit of unbounded functional Whiles."""
    if op.type != "Const":
        return False
    consumers = [(c, k) for c in op.graph.get_operations() for k, t in enumerate(c.inputs) if t.op is op]
    return bool(consumers) and all(c.type in _WHILE and k in (0, 1) and not _reads(c.get_attr("cond"),
                                                                                  c.get_attr("cond").inputs[1])
                                   for c, k in consumers)


def _reads(graph, tensor):
    return any(tensor in op.inputs for op in graph.get_operations())


def _needed(outputs):
    """The ops `outputs` need, through data and control edges."""
    needed, stack = set(), [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return needed
