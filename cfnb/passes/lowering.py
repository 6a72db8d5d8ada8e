"""Lower functional `If`/`While` to Switch/Merge/Enter/Exit/NextIteration, inlining their functions.

TensorFlow's LowerFunctionalOpsPass (lower_if_op.cc, lower_while_op.cc, lower_case_op.cc), node for node. The pass
returns a new graph (the user's graph is never rewritten) plus maps from every original tensor and
op to its lowered counterpart, and from every lowered node back to the functional op and function
it came from (the viewer uses that to link the two drawings).

While, per loop input:  Enter (frame = the While's name; constant only for resource inputs)
  -> Merge -> [cond function, inlined] -> LoopCond -> Switch -> [body function, inlined on the
  true side] -> NextIteration back into the Merge; Exit on the false side. A resource input keeps
  its constant Enter (no Merge, no Switch), which the body's input Identity reads.
If: Switch(pred, pred) -> pivot_t/pivot_f; one Switch per input, with its data; the branches inlined on
  the two sides; one Merge per output.
Case: _SwitchN(index, index) -> pivot_0..pivot_n-1; one _SwitchN per input, with its data; one Merge per
  output.

Every function is inlined as TensorFlow's InlineFunctionBody (inline_function_utils.cc) inlines the call
the lowering made for it (If/then, If/else, While/cond, While/body, Case/branchK), whose control input is
the branch's pivot (the cond's first Merge, the body's loop_body_control): an `input_control_node` NoOp
takes that control input, one `input` Identity per argument and every input-less body node wait for it,
so nothing of an untaken branch (or of an iteration the predicate ends) can fire, and constants fire in
the loop's frame. One `output` Identity per result, and an `output_control_node` NoOp where the call was
a control input of something (If/Case's branch_executed, the body's NextIterations). TensorFlow names
them `Func/<call>/input_control_node/_N`; cfnb drops the `/_N` counters, as it does for every lowered name.

The student's names (cfnb's own attrs, no TensorFlow counterpart): a `While` the `%%whileloop` magic built carries
`_cfnb_var_names` (one Python name per loop input), an `If` `_cfnb_out_names` (one per output). Lowering copies
each name onto the primitives that carry that value (`_cfnb_var_name` on its Enter, Merge, Switch, NextIteration
and Exit; on an If's output Merge), so a drawing can say that `while/merge_1` is `x`. Like TensorFlow's
`_`-prefixed attrs they do not change what runs, and `graph.as_text()` leaves them out.
"""

from ..framework import dtypes
from ..framework.ops import Graph
from ..framework.topological_order import op_order
from ..ops import array_ops, control_flow_ops

FUNCTIONAL = ("If", "StatelessIf", "While", "StatelessWhile", "Case", "StatelessCase")
VAR_NAME, VAR_NAMES, OUT_NAMES = "_cfnb_var_name", "_cfnb_var_names", "_cfnb_out_names"


def names_of(op, key, count):
    """The student's names a functional op carries under `key`, one per input (or output): a list of `count`
    strings or Nones. A While's list may leave out the loop counter and limit (its first two inputs)."""
    names = [n.decode() if isinstance(n, bytes) else n for n in (op.attr.get(key) or [])]
    if len(names) == count - 2 and op.type in ("While", "StatelessWhile"):
        names = [None, None] + names
    return names + [None] * (count - len(names)) if len(names) <= count else names[:count]


def carry_name(name, ops):
    """Mark the primitives that carry one named value with the name (`_cfnb_var_name`)."""
    if name:
        for op in ops:
            if op is not None:
                op._set_attr(VAR_NAME, name)


def has_functional_ops(graph):
    """Whether `graph` has an If, While or Case to lower (the pass is skipped otherwise)."""
    return any(op.type in FUNCTIONAL for op in graph.get_operations())


class LoweredGraph:
    def __init__(self, graph):
        self.graph = graph
        self.tensor_map = {}   # original tensor -> lowered tensor
        self.op_map = {}       # original op -> lowered op (for functional ops: the node that replaces it)
        self.origin = {}       # lowered op name -> (functional op name, function name)


class _Lowering:
    def __init__(self):
        self.result = LoweredGraph(Graph())
        self.graph = self.result.graph
        self._copying = []  # the op maps of the copies in progress (a function body inside a graph, ...)

    # --- copying ---------------------------------------------------------------------------
    def _exact(self, name):
        """Use `name` as is when it is free (lowered nodes keep their original names)."""
        key = name.lower()
        if key in self.graph._names_in_use:
            return self.graph.unique_name(name)
        self.graph._names_in_use[key] = 1
        return name

    def copy(self, src, input_map, prefix="", pivot=None, origin=None):
        """Copy every op of `src` into the lowered graph; returns the tensor map used. `pivot`: the op every
        input-less op gets a control edge from (the inlined call's input_control_node)."""
        tmap = dict(input_map)
        opmap = {}
        self._copying.append(opmap)
        fixups = []
        # Inputs first (a gradient can add an input to an op after the op was made); what a cycle leaves unordered
        # goes last, for the executor to report.
        order, unordered = op_order(src.get_operations())
        for op in order + unordered:
            op_type, src_inputs, outputs = op._type, op._inputs, op._outputs  # the fields: no copy per read
            if op_type == "Placeholder" and outputs[0] in tmap:
                continue  # a function argument: already bound
            # Devices: a lowered node keeps its own request merged over its caller's (the functional op
            # it was inlined from), as TensorFlow's default InlinedFunctionBodyPlacer does.
            if op_type in ("If", "StatelessIf"):
                with self.graph.device(op.device):
                    new_outputs, node = self.lower_if(op, tmap, prefix, opmap)
            elif op_type in ("While", "StatelessWhile"):
                with self.graph.device(op.device):
                    new_outputs, node = self.lower_while(op, tmap, prefix, opmap)
            elif op_type in ("Case", "StatelessCase"):
                with self.graph.device(op.device):
                    new_outputs, node = self.lower_case(op, tmap, prefix, opmap)
            else:
                inputs = []
                for slot, t in enumerate(src_inputs):
                    if t in tmap:
                        inputs.append(tmap[t])
                    else:  # a back edge (Merge <- NextIteration) not yet copied: patch it afterwards
                        inputs.append(inputs[0] if inputs else tmap[src_inputs[0]])
                        fixups.append((op, slot, t))
                node = self.graph._create_op_copy(op, inputs, self._exact(prefix + op._name),
                                                  self.graph._scoped_device(op._device))
                new_outputs = node._outputs
            for c in op._control_inputs:
                if c in opmap:
                    node._add_control_input(opmap[c])
                elif c._outputs and c._outputs[0] in tmap:  # a control edge from a function argument
                    node._add_control_input(tmap[c._outputs[0]]._op)
            if pivot is not None and not src_inputs and not op._control_inputs:
                node._add_control_input(pivot)
            opmap[op] = node
            tmap.update(zip(outputs, new_outputs))
            if origin is not None:
                self.result.origin.setdefault(node._name, origin)
        for op, slot, t in fixups:
            opmap[op]._update_input(slot, tmap[t])
        self._copying.pop()
        return tmap, opmap

    def _control_source(self, c, tmap, opmap):
        """The lowered op standing for control input `c` of a functional op: a copy made in the graph or
        function body being copied (innermost copy first), a function argument's value, or a functional op
        lowered earlier."""
        for copied in reversed(self._copying):
            if c in copied:
                return copied[c]
        if c.outputs and c.outputs[0] in tmap:
            return tmap[c.outputs[0]].op
        return self.result.op_map[c]

    def inline(self, func_graph, args, caller, control_inputs, functional_op, control_outputs=False):
        """Inline `func_graph` as TensorFlow's InlineFunctionBody inlines a call named `caller` with these
        control inputs (multi-device placer, control outputs from the function's control returns, of which
        cfnb's functions have none). Returns (output tensors, output_control_node or None)."""
        g = self.graph
        origin = (functional_op.name, func_graph.name)
        input_control = None
        if control_inputs:
            input_control = self._func_node("NoOp", [], caller, "input_control_node", origin)
            for c in control_inputs:
                input_control._add_control_input(c)
        inputs = []
        for a in args:  # each on its argument's device, colocated with it (ColocateInputOutputIdentities)
            with g.colocate_with(a.op, ignore_existing=True):
                ident = self._func_node("Identity", [a], caller, "input", origin)
            if input_control is not None:
                ident._add_control_input(input_control)
            ident.outputs[0]._shape = a.shape
            inputs.append(ident.outputs[0])
        tmap, _ = self.copy(func_graph, dict(zip(func_graph.inputs, inputs)), caller + "/", input_control,
                            origin=origin)
        outputs = []
        for t in func_graph.outputs:
            value = tmap[t]
            with g.colocate_with(value.op, ignore_existing=True):
                ident = self._func_node("Identity", [value], caller, "output", origin)
            ident.outputs[0]._shape = value.shape
            outputs.append(ident.outputs[0])
        output_control = None
        if control_outputs:
            # No control returns: "we connect input_control_node and output_control_node with a control
            # edge to forward execution frame to the controlled nodes".
            output_control = self._func_node("NoOp", [], caller, "output_control_node", origin)
            if input_control is not None:
                output_control._add_control_input(input_control)
        return outputs, output_control

    def _func_node(self, op_type, inputs, caller, label, origin):
        """An auxiliary node of an inlined call, named as TensorFlow's AddNoOp/AddIdentity name it:
        `Func/<caller>/<label>` (made unique the Python way, `_1`, `_2`, ..., where TensorFlow appends `/_N`)."""
        g = self.graph
        with g.as_default(), g.name_scope(None):
            name = g.unique_name(f"Func/{caller}/{label}")
        node = g.create_op(op_type, inputs, name=name + "/")
        self.result.origin.setdefault(node.name, origin)
        return node

    # --- If ----------------------------------------------------------------------------------
    def lower_if(self, op, tmap, prefix, opmap):
        """An If (or StatelessIf) as Switch and Merge (TensorFlow's `lower_if_op.cc`, `CondBuilder`): a Switch
        of the predicate on itself gives the two pivots, each input gets a Switch, each branch is inlined under
        its pivot, each output is a Merge, and the `branch_executed` Merge stands for the If's control edges."""
        g = self.graph
        name = self._exact(prefix + op.name)
        pred, *inputs = [tmap[t] for t in op.inputs]
        with g.as_default(), g.name_scope(name + "/"):
            switch_f, switch_t = control_flow_ops.switch(pred, pred, name="switch_pred")
            pivot_f = array_ops.identity(switch_f, name="pivot_f")
            pivot_t = array_ops.identity(switch_t, name="pivot_t")
            switches = []
            for x in inputs:  # each Switch with its data (CondBuilder::AddInput colocates it with `src`)
                with g.colocate_with(x.op, ignore_existing=True):
                    switches.append(control_flow_ops.switch(x, pred, name=f"{x.op.name.split('/')[-1]}_switch"))
            for c in op.control_inputs:
                switch_f.op._add_control_input(self._control_source(c, tmap, opmap))
            then_out, then_done = self.inline(op.get_attr("then_branch"), [s[1] for s in switches], name + "/then",
                                              [pivot_t.op], op, control_outputs=True)
            else_out, else_done = self.inline(op.get_attr("else_branch"), [s[0] for s in switches], name + "/else",
                                              [pivot_f.op], op, control_outputs=True)
            outputs = [control_flow_ops.merge([t, e], name="output")[0] for t, e in zip(then_out, else_out)]
            for out, student in zip(outputs, names_of(op, OUT_NAMES, len(outputs))):
                carry_name(student, [out.op])
            executed = control_flow_ops.merge([pivot_t, pivot_f], name="branch_executed")[0]
            executed.op._add_control_input(then_done)
            executed.op._add_control_input(else_done)
        self._record(op, name, outputs, executed.op)
        return outputs, executed.op

    # --- Case (lower_case_op.cc) -----------------------------------------------------------
    def lower_case(self, op, tmap, prefix, opmap):
        g = self.graph
        name = self._exact(prefix + op.name)
        index, *inputs = [tmap[t] for t in op.inputs]
        branches = op.get_attr("branches")
        n = len(branches)

        def switch_n(data, label):
            return g.create_op("_SwitchN", [data, index], {"num_outs": n}, name=label).outputs

        with g.as_default(), g.name_scope(name + "/"):
            branch_index = switch_n(index, "branch_index")
            pivots = [array_ops.identity(t, name=f"pivot_{k}") for k, t in enumerate(branch_index)]
            for c in op.control_inputs:  # the control predecessor, as for If's switch_pred
                branch_index[0].op._add_control_input(self._control_source(c, tmap, opmap))
            switches = []
            for x in inputs:  # each _SwitchN with its data (CaseBuilder::AddInput)
                with g.colocate_with(x.op, ignore_existing=True):
                    switches.append(switch_n(x, f"{x.op.name.split('/')[-1]}_switch"))
            calls = [self.inline(branch, [s[k] for s in switches], f"{name}/branch{k}", [pivots[k].op], op,
                                 control_outputs=True) for k, branch in enumerate(branches)]
            outputs = [control_flow_ops.merge(list(column), name="merge")[0] for column in zip(*(c[0] for c in calls))]
            executed = control_flow_ops.merge(pivots, name="branch_executed")[0]
            for _, done in calls:
                executed.op._add_control_input(done)
        self._record(op, name, outputs, executed.op)
        return outputs, executed.op

    # --- While ----------------------------------------------------------------------------
    def lower_while(self, op, tmap, prefix, opmap):
        g = self.graph
        name = self._exact(prefix + op.name)
        inputs = [tmap[t] for t in op.inputs]
        parallel = op.get_attr("parallel_iterations")
        resource = [x.dtype == dtypes.resource for x in inputs]
        with g.as_default(), g.name_scope(name + "/"):
            enters = [control_flow_ops.enter(x, name, is_constant=r, parallel_iterations=parallel, name="enter")
                      for x, r in zip(inputs, resource)]
            if op.control_inputs:
                gate = g.create_op("NoOp", [], name="LoopControlInputs")
                for c in op.control_inputs:
                    gate._add_control_input(self._control_source(c, tmap, opmap))
                for e in enters:
                    e.op._add_control_input(gate)
            merges = [e if r else control_flow_ops.merge([e, e], name="merge")[0] for e, r in zip(enters, resource)]
            first = next(m for m, r in zip(merges, resource) if not r)
            pred = self.inline(op.get_attr("cond"), merges, name + "/cond", [first.op], op)[0][0]
            loop_cond = control_flow_ops.loop_cond(pred, name="LoopCond")
            switches = [None if r else control_flow_ops.switch(m, loop_cond, name=f"{x.op.name.split('/')[-1]}_switch")
                        for m, r, x in zip(merges, resource, inputs)]
            first_switch = next(s for s in switches if s is not None)
            body_control = array_ops.identity(first_switch[1], name="loop_body_control")
            # A resource input skips Merge and Switch: the body's input Identity reads its constant Enter,
            # under the body's input_control_node, so a body op reading only the resource (a
            # ReadVariableOp) cannot run in the iteration the predicate ends.
            body_args = [m if s is None else s[1] for m, s in zip(merges, switches)]
            body_out, body_done = self.inline(op.get_attr("body"), body_args, name + "/body", [body_control.op], op,
                                              control_outputs=True)
            exits = [None if s is None else control_flow_ops.exit(s[0], name="exit") for s in switches]
            for m, s, b in zip(merges, switches, body_out):
                if s is not None:
                    nxt = control_flow_ops.next_iteration(b, name="next_iteration")
                    nxt.op._add_control_input(body_done)
                    m.op._update_input(1, nxt)
            for k, student in enumerate(names_of(op, VAR_NAMES, len(inputs))):
                column = [enters[k].op]
                if switches[k] is not None:
                    column += [merges[k].op, merges[k].op.inputs[1].op, switches[k][0].op, exits[k].op]
                carry_name(student, column)
            executed = g.create_op("NoOp", [], name="LoopExecuted")
            for x in exits:
                if x is not None:
                    executed._add_control_input(x.op)
        outputs = [x if x is not None else inp for x, inp in zip(exits, inputs)]
        self._record(op, name, outputs, executed)
        return outputs, executed

    def _record(self, op, name, outputs, node):
        self.result.op_map[op] = node
        for t, new in zip(op.outputs, outputs):
            self.result.tensor_map[t] = new
        scope, origin = name + "/", self.result.origin
        for lowered in self.graph._ops:  # every op so far: a copied op of the While's name scope is its too
            if lowered._name.startswith(scope) and lowered._name not in origin:
                origin[lowered._name] = (op.name, "")


def lower_functional_ops(graph):
    """A LoweredGraph for `graph`: functional ops replaced by primitives, functions inlined."""
    lowering = _Lowering()
    tmap, opmap = lowering.copy(graph, {})
    lowering.result.tensor_map.update(tmap)
    for op, node in opmap.items():
        lowering.result.op_map.setdefault(op, node)
    return lowering.result
