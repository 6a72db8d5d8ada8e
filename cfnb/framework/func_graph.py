"""FuncGraph: the body of a function (a cond branch, a loop's cond or body) as a graph of its own.

A function sees the outside only through its arguments. When an op inside uses a tensor of an
enclosing graph, the FuncGraph *captures* it: it makes a placeholder, records (outer tensor,
placeholder), and the op reads the placeholder; the functional op (`If`, `While`) then passes the
outer tensor as an extra input. That is how control flow v2 turns closures into explicit inputs.
A control dependency on an outer op is captured too (`control_captures`): it becomes a control input of
the functional op, which then waits for it whichever branch runs.
"""
from . import dtype_rules, dtypes
from .ops import Graph, Operation, Tensor
from .registry import get_op_def
from .tensor_shape import as_shape


class FuncGraph(Graph):
    # What a gradient may change in place (a failed gradients() call puts it back: build_journal.py).
    _JOURNAL_FIELDS = ("name", "inputs", "outputs", "captures", "_capture_map", "control_captures",
                       "structured_outputs")

    def __init__(self, name, outer_graph):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self.inputs = []          # argument placeholders, then captured placeholders
        self.outputs = []
        self.captures = []        # (external tensor, internal placeholder)
        self._capture_map = {}
        self.building_function = True
        self.structured_outputs = None
        self._collections = outer_graph._collections  # variables stay visible inside functions
        self._dtype_rules = outer_graph.dtype_rules  # a cond branch or loop body numbers as its graph does
        self.control_captures = []  # outer ops a `control_dependencies` block inside named

    @property
    def external_captures(self):
        """The outer tensors this function captured, in capture order (TensorFlow's
        `FuncGraph.external_captures`): the extra inputs a call of the function passes."""
        return [c[0] for c in self.captures]

    @property
    def internal_captures(self):
        """The placeholders that stand for the captured tensors inside the function (TensorFlow's
        `FuncGraph.internal_captures`), in the order of `external_captures`."""
        return [c[1] for c in self.captures]

    def add_argument(self, dtype, shape, name):
        """A Placeholder for one of the function's inputs, appended to `inputs`; it takes no control
        inputs from the block it is made in (TensorFlow's `_create_substitute_placeholder`): the call feeds it."""
        # An argument is fed by the call, so it takes no control inputs from the block it is created in
        # (TensorFlow's _create_substitute_placeholder); the ops reading it get them.
        with self.as_default(), self.control_dependencies(None):
            ph = self.create_op("Placeholder", [], {"dtype": dtypes.as_dtype(dtype), "shape": as_shape(shape)},
                                name=name or "Placeholder").outputs[0]
        self.inputs.append(ph)
        return ph

    def capture(self, tensor):
        """The placeholder standing for outer `tensor` (created on first use)."""
        if tensor.graph is self:
            return tensor
        if tensor in self._capture_map:
            return self._capture_map[tensor]
        if not self._is_ancestor(tensor.graph):
            raise ValueError(f"Tensor {tensor.name} must be from the same graph as the function {self.name} or one "
                             f"of the graphs enclosing it.")
        original = tensor
        if isinstance(self.outer_graph, FuncGraph) and tensor.graph is not self.outer_graph:
            # A tensor from further out reaches this graph through the enclosing function's capture.
            tensor = self.outer_graph.capture(tensor)
            if tensor in self._capture_map:  # captured before under the enclosing graph's placeholder
                self._capture_map[original] = self._capture_map[tensor]
                return self._capture_map[tensor]
        ph = self.add_argument(tensor.dtype, tensor.shape, name=tensor.op.name.replace("/", "_"))
        if dtype_rules.is_weak(tensor):
            dtype_rules.mark_weak(ph)  # a Python number read inside a branch or loop body is one there too
        self.captures.append((tensor, ph))
        # Keyed by the tensor the caller named, as TensorFlow's FuncGraph.capture keys its captures by
        # id(tensor): a second use of the same outer tensor in a nested function finds the first placeholder
        # instead of making one that nothing feeds. The enclosing graph's placeholder maps to it as well.
        self._capture_map[original] = ph
        self._capture_map[tensor] = ph
        return ph

    def control_dependencies(self, control_inputs):
        """Control inputs from an enclosing graph cannot be edges inside the function: record them as control
        captures (the If or While op gets them) and keep the others (TensorFlow's FuncGraph.control_dependencies)."""
        if control_inputs is None:
            return super().control_dependencies(control_inputs)
        inner = []
        for c in control_inputs:
            element = c.op if hasattr(c, "_handle") and hasattr(c, "op") else c
            element = element._as_graph_element() if hasattr(element, "_as_graph_element") else element
            op = element.op if isinstance(element, Tensor) else element
            if isinstance(op, Operation) and op.graph is not self:
                if op not in self.control_captures:
                    self.control_captures.append(op)
            else:
                inner.append(c)
        return super().control_dependencies(inner)

    def _is_ancestor(self, graph):
        g = self.outer_graph
        while g is not None:
            if g is graph:
                return True
            g = getattr(g, "outer_graph", None)
        return False

    def create_op(self, op_type, inputs, attrs=None, name=None, compute_device=True):
        """`Graph.create_op`, with every input from another graph captured first (TensorFlow's
        `FuncGraph._create_op_internal`): this is how a function body refers to tensors outside it."""
        inputs = [self.capture(t) if isinstance(t, Tensor) and t.graph is not self else t for t in inputs]
        return super().create_op(op_type, inputs, attrs, name, compute_device)

    def is_stateful(self):
        """Whether any op of the function, or of a function it calls, is stateful: a functional op
        over it is then `If`/`While` rather than `StatelessIf`/`StatelessWhile`, as cond_v2 and while_v2 decide."""
        for op in self._ops:
            if get_op_def(op.type).stateful:
                return True
            for fn in functions_of(op):
                if fn.is_stateful():
                    return True
        return False

    def __repr__(self):
        return f"<cfnb.FuncGraph {self.name}: {len(self.inputs)} inputs, {len(self.outputs)} outputs>"


def functions_of(op):
    """The FuncGraphs an op calls (an If's branches, a Case's branches, a While's cond and body)."""
    found = []
    for v in op.attr.values():
        found.extend(f for f in (v if isinstance(v, list) else [v]) if isinstance(f, FuncGraph))
    return found


def unique_function_name(graph, scope, suffix):
    """TensorFlow's `unique_fn_name`: `<scope>_<suffix>_<uid>` with "/" turned into "_" (`while_body_7`).

    The uid counter lives on the outermost graph, so names are the same on every run."""
    root = graph
    while getattr(root, "outer_graph", None) is not None:
        root = root.outer_graph
    root._function_uid = getattr(root, "_function_uid", 0) + 1
    return f"{scope}{suffix}_{root._function_uid}".replace("/", "_")

