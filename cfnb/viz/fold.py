"""Levels of detail: what a drawing shows of a graph, and which drawn element stands for each op.

The graph never changes for the picture's sake; the drawing chooses what to show. The levels, from every node to
the fewest boxes:

  all         every node exactly as TensorFlow built it, with TensorFlow's names (nothing folded, no renaming)
  primitives  the five primitives and the computation, labelled with the student's names; the plumbing folded:
              the inliner's NoOps and Identities (`Func/<call>/input_control_node`, `.../input`, `.../output`),
              lowering's `LoopExecuted`/`loop_body_control`, the Identities after a functional op, constants
              (written into the label of the one node that reads them: `Less` with `y = 100`), constant chains
              (`Fill` of constants), shape plumbing (`Shape`, `BroadcastGradientArgs`), unused function arguments
  lanes       as `primitives`, and each loop variable's column (Enter, Merge, Switch, the Identity after it,
              NextIteration, Exit) folded into one lane labelled with its name
  loops       as `lanes`, and every loop frame (and every functional op's functions) folded into one box

`Plan` is the result: elements (drawn nodes, lanes, folded loops), clusters (frames, functions), edges, and
`owner`, which element stands for each op, so that a firing of a folded op lights up its lane or loop.
The DOT text is written from a plan by `dot.py`; `drawing.py` picks the level that fits the page.
"""
from .frames import frames_of
from .functions import draw_functions
from .labels import node_label
from .names import Names, is_gradient, short_name, shown
from .plan import Cluster, Edge, Plan
from .style import CONST_STYLE, LANE_STYLE, LOOP_STYLE, NABLA, mark_gradient, style_for, svg_id

DETAILS = ("all", "primitives", "lanes", "loops")
SHAPE_PLUMBING = ("Shape", "ShapeN", "Size", "Rank", "BroadcastGradientArgs")
CONSTANT_CHAIN = ("Fill", "Reshape", "Cast", "BroadcastTo", "ExpandDims", "Pack", "ZerosLike", "OnesLike",
                  "Identity", "Shape")
INITIALIZATION = ("VarIsInitializedOp", "AssignVariableOp", "Assign")
PRIMITIVES = ("Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond")


def plan(graph, ops=None, detail="primitives", expand=(), collapse_depth=None):
    """A Plan of `graph` (or of the listed `ops`) at a level of `DETAILS`. `collapse_depth`: with `lanes`,
    fold loop frames and functions nested at least this deep (1: every loop); `expand`: frame names and
    functional op names never folded."""
    if detail not in DETAILS:
        raise ValueError(f"detail must be one of {', '.join(DETAILS)} (or 'lesson'), not {detail!r}")
    ops = graph.get_operations() if ops is None else list(ops)
    result = Plan(detail)
    if detail == "loops" and collapse_depth is None:
        collapse_depth = 1
    frame_of, parent_of = frames_of(graph)
    _Builder(result, ops, Names(ops), detail, set(expand), collapse_depth, frame_of, parent_of).build()
    stack_gradients_below(result)
    return result


def stack_gradients_below(p):
    """Put each gradient frame below the forward frames: invisible edges from the forward frames' last elements
    to the gradient frame's first ones. The drawing grows down rather than across, and the gradient's edges
    (history stacks, the forward counter) run down instead of crossing the forward frame."""
    def root(cid):
        while cid and p.clusters[cid].parent:
            cid = p.clusters[cid].parent
        return cid or ""

    where = {eid: root(e.cluster) for eid, e in p.elements.items()}
    inside_out, inside_in = set(), set()
    for e in p.edges:
        if where[e.src] == where[e.dst] and where[e.src] and e.attrs.get("constraint") != "false":
            inside_out.add(e.src)
            inside_in.add(e.dst)
    frames = {where[eid] for eid in where if where[eid]}
    gradient = {c for c in frames if c in p.gradient_clusters}
    forward = {c for c in frames - gradient if c.startswith("frame_")}
    exits = [eid for eid in p.elements if where[eid] in forward and eid not in inside_out]
    entries = [eid for eid in p.elements if where[eid] in gradient and eid not in inside_in]
    for x in exits[:4]:
        for n in entries:
            p.edges.append(Edge(x, n, {"style": "invis"}))


class _Builder:
    """Builds the plan of one graph or function body (`prefix`, `cluster`: where a function body is drawn)."""

    def __init__(self, result, ops, names, detail, expand, collapse_depth, frame_of, parent_of, cluster="",
                 prefix="", depth=0, returns=None):
        self.p, self.ops, self.names, self.detail = result, ops, names, detail
        self.expand, self.collapse_depth, self.depth = expand, collapse_depth, depth
        self.frame_of = {op: frame_of.get(op, "") for op in ops} if frame_of else {op: "" for op in ops}
        self.parent_of = parent_of or {"": None}
        self.cluster, self.prefix, self.returns = cluster, prefix, returns
        self.keep = set(ops)
        self.consumers = {op: [] for op in ops}
        for op in ops:
            for t in op.inputs:
                if t.op in self.keep:
                    self.consumers[t.op].append(op)
        self.role, self.element = {}, {}
        self.frame_cluster = {}
        self.labeler = None  # node_label, or a drawing's own (partitions.py)
        self.lane_filter = lambda enter: True  # which loop columns may fold into lanes

    # --- roles ----------------------------------------------------------------------------------
    def build(self):
        for op in self.ops:
            self.role[op] = "node" if self.detail == "all" else self._plumbing_role(op)
        if self.detail != "all":
            self._fold_constants()
        if self.detail in ("lanes", "loops"):
            self._fold_lanes()
        self._fold_loops()
        self._make_clusters()
        self._make_elements()
        self._make_edges()
        self._draw_functions()

    def _plumbing_role(self, op):
        name = short_name(op.name)
        parts = op.name.split("/")
        if op.type == "NoOp" and ("Func" in parts or name in ("LoopExecuted", "LoopControlInputs")):
            return "hidden"
        if op.type in SHAPE_PLUMBING or op.type == "_Retval" or (op.type == "ControlTrigger" and
                                                                  self.detail != "primitives"):
            return "hidden"
        if op.type == "Merge" and name.startswith("branch_executed"):
            return "hidden"
        if op.type in INITIALIZATION or (op.type in ("ReadVariableOp", "NoOp") and not self.consumers.get(op)
                                         and not self._control_consumers(op)):
            return "hidden"  # a variable's initializer, a read nobody uses, `init`
        if op.type == "Identity" and op.inputs and self._plumbing_identity(op):
            return "through"
        if op.type == "Enter" and op.get_attr("is_constant") and (
                self.detail != "primitives" or op.inputs[0].op.type in ("StackV2", "EmptyTensorList")):
            return "through"  # a stack's handle entering the loop; at `lanes`, every loop invariant's Enter
        if op.type == "Placeholder" and op in self.names.arg_names:
            return "node" if self.consumers.get(op) else "hidden"
        return "node"

    def _control_consumers(self, op):
        if not hasattr(self, "_controlled"):
            self._controlled = {c for o in self.ops for c in o.control_inputs}
        return op in self._controlled

    def _plumbing_identity(self, op):
        """The inliner's and lowering's Identities, and those after a functional op, are plumbing; v1's
        `while/Identity` after a Switch and a cond's pivots are TensorFlow's structure, kept."""
        if "Func" in op.name.split("/") or short_name(op.name).startswith("loop_body_control"):
            return True
        src = op.inputs[0].op
        return src.type != "Switch" and not short_name(op.name).startswith(("pivot", "switch_"))

    def _constant(self, op, depth=0):
        if op.type == "Const":
            return True
        return (op.type in CONSTANT_CHAIN and bool(op.inputs) and depth < 6 and op.control_inputs == []
                and all(t.op in self.keep and self._constant(t.op, depth + 1) for t in op.inputs))

    def _fold_constants(self):
        """A constant read by exactly one drawn node is written into that node's label; one read by nothing is
        left out (a value from an earlier cell); one entering a loop or read by several nodes stays a node."""
        for op in reversed(self.ops):
            if self.role[op] != "node" or not self._constant(op) or "_cfnb_source" in op.attr:
                continue
            readers = [c for c in self.consumers[op] if self.role.get(c) != "hidden"]
            if readers and _default_machinery(op) and all(self.role[c] == "node" for c in readers):
                self.role[op] = "const"  # maximum_iterations = -1, loop_counter = 0: nothing to see
            elif not readers:
                self.role[op] = "hidden" if not self._fetched_alone(op) else "node"
            elif len(readers) == 1 and self.role[readers[0]] == "node" and (
                    readers[0].type != "Enter" or readers[0].name.startswith("_cloop")):  # a control loop's dummy
                self.role[op] = "const"
                for t in op.inputs:  # its own constant inputs go with it
                    if self.role.get(t.op) == "node" and self._constant(t.op):
                        self.role[t.op] = "const"

    def _fetched_alone(self, op):
        return len(self.ops) == 1

    def _fold_lanes(self):
        self.lane_of = {}
        for op in self.ops:
            if op.type == "Enter" and not op.get_attr("is_constant") and self.role[op] == "node" \
                    and self.lane_filter(op):
                column = [m for m in self.names.column(op) if m in self.keep]
                if len(column) > 1:
                    for m in column:
                        self.role[m] = "lane"
                        self.lane_of[m] = op

    def _fold_loops(self):
        self.folded_frame = {}
        if self.collapse_depth is None:
            return
        depth = {}
        for frame in self.parent_of:
            d, f = 0, frame
            while f:
                d, f = d + 1, self.parent_of.get(f) or ""
            depth[frame] = d
        for op in self.ops:
            frame = self.frame_of[op]
            chain = []
            while frame:
                chain.append(frame)
                frame = self.parent_of.get(frame) or ""
            for f in reversed(chain):  # the outermost frame folded
                if depth[f] >= self.collapse_depth and f not in self.expand:
                    self.role[op] = "loop"
                    self.folded_frame[op] = f
                    break

    # --- clusters and elements ------------------------------------------------------------------
    def _make_clusters(self):
        frames = []
        for op in self.ops:
            f = self.frame_of[op]
            if self.role[op] == "loop":
                f = self.parent_of.get(self.folded_frame[op]) or ""
            while f and f not in frames:
                frames.append(f)
                f = self.parent_of.get(f) or ""
        parallel = {}
        for op in self.ops:
            if op.type == "Enter":
                parallel.setdefault(op.get_attr("frame_name"), op.get_attr("parallel_iterations"))
        order = sorted(frames, key=lambda f: f.count("/"))
        for f in order:
            gradient = f.startswith("gradients") or "/gradients" in f
            label = f"frame {f}"
            if parallel.get(f) not in (10, None) or self.detail == "all":
                label += f"\nparallel_iterations={parallel.get(f, 10)}"
            attrs = {"style": "rounded,dashed", "color": "#3d85c6", "fontcolor": "#3d85c6", "fontsize": "10",
                     "labeljust": "l"}
            gradient_cid = False
            if gradient:
                attrs.update(style="rounded,dashed,filled", fillcolor="#fdf0f5", color="#c2185b",
                             fontcolor="#c2185b")
                label = f"{NABLA}gradient {label}"
                self.p.gradient = True
                gradient_cid = True
            parent = self.frame_cluster.get(self.parent_of.get(f) or "", self.cluster)
            cid = svg_id("frame", self.prefix + f, self.p.ids)
            self.p.clusters[cid] = Cluster(cid, label, parent, attrs)
            if gradient_cid:
                self.p.gradient_clusters.add(cid)
            self.frame_cluster[f] = cid
        self.frame_cluster[""] = self.cluster

    def _cluster_of(self, op):
        return self.frame_cluster.get(self.frame_of[op], self.cluster)

    def _make_elements(self):
        folded = {}
        for op in self.ops:
            role = self.role[op]
            if role == "node":
                label, attrs = self._node_label(op), self._node_attrs(op)
                self.element[op] = self.p.add("op", self.prefix + op.name, label, attrs, self._cluster_of(op),
                                              [op.name])
                if op.type in PRIMITIVES + ("StackV2", "TensorListPushBack", "StackPushV2"):
                    self.p.kinds.add(op.type)
            elif role == "lane":
                enter = self.lane_of[op]
                if enter not in folded:
                    folded[enter] = self._lane(enter)
                self.element[op] = folded[enter]
                self.p.elements[folded[enter]].ops.append(op.name)
            elif role == "loop":
                f = self.folded_frame[op]
                if f not in folded:
                    folded[f] = self._loop(f, op)
                self.element[op] = folded[f]
                self.p.elements[folded[f]].ops.append(op.name)
        for op in self.ops:
            name = self.names.label(op) if self.detail != "all" else None
            full = self.prefix + op.name
            self.p.labels[full] = f"{shown(name)} ({full})" if name else full
        for op in self.ops:  # folded ops: what stands for them
            eid = self.element.get(op) or self._stand_in(op)
            if eid:
                self.p.owner[self.prefix + op.name] = eid

    def element_cluster(self, op):
        return self.p.elements[self.element[op]].cluster

    def _stand_in(self, op, depth=0):
        role = self.role[op]
        if role == "const":
            reader = next((c for c in self.consumers[op] if self.role.get(c) != "hidden"), None)
            return self.element.get(reader) or (self._stand_in(reader, depth + 1) if reader and depth < 8 else None)
        if role == "through":
            src = op.inputs[0].op
            return self.element.get(src) or (self._stand_in(src, depth + 1) if src in self.keep and depth < 8
                                             else None)
        return self._cluster_of(op) or None

    def _lane(self, enter):
        name = shown(self.names.var_name(enter)) or short_name(enter.name)
        gradient = is_gradient(enter, self.names.in_gradient)
        label = f"<<B>{_html(name)}</B><BR/><FONT POINT-SIZE=\"9\">loop variable</FONT>>"
        attrs = dict(LANE_STYLE)
        attrs["tooltip"] = f"{name}: {enter.name} and its Merge, Switch, NextIteration, Exit"
        if gradient:
            mark_gradient(attrs)
        self.p.lanes = True
        return self.p.add("lane", self.prefix + enter.name, label, attrs, self._cluster_of(enter), [], prefix="lane")

    def _loop(self, frame, op):
        names = []
        for o in self.ops:
            if self.folded_frame.get(o) == frame and o.type == "Enter" and not o.get_attr("is_constant"):
                n = self.names.var_name(o)
                if n and not n.startswith(".") and n not in names:
                    names.append(n)
        gradient = frame.startswith("gradients") or "/gradients" in frame
        title = ("\u2207 gradient loop " if gradient else "loop ") + frame.replace("/while_context", "")
        label = title + (("\n" + ", ".join(names)) if names else "")
        attrs = dict(LOOP_STYLE, tooltip=f"frame {frame}, folded (expand={frame!r} draws it)")
        if gradient:
            mark_gradient(attrs)
        parent = self.frame_cluster.get(self.parent_of.get(frame) or "", self.cluster)
        return self.p.add("loop", self.prefix + frame, label, attrs, parent, [], prefix="loop")

    def _node_attrs(self, op):
        attrs = style_for(op.type)
        if self.role[op] == "node" and (self._constant(op) and op.type != "Const" and self.detail != "all"):
            attrs = dict(CONST_STYLE)
        if op.type == "Placeholder" and op in self.names.arg_names:
            attrs = dict(CONST_STYLE, fontcolor="#a64d79")
        if "_cfnb_source" in op.attr:
            attrs = dict(CONST_STYLE, fontcolor="#1c4587")
        attrs["tooltip"] = f"{op.name} ({op.type})"
        if is_gradient(op, self.names.in_gradient):
            mark_gradient(attrs)
            self.p.gradient = True
        return attrs

    def _node_label(self, op):
        folded = [(k, t.op) for k, t in enumerate(op.inputs) if self.role.get(t.op) == "const"]
        return (self.labeler or node_label)(op, self.names, self.detail, folded)

    # --- edges ------------------------------------------------------------------------------------
    def _source(self, t, depth=0):
        """(element id, the op drawn there) for the value `t`, through folded Identities; None if not drawn."""
        op = t.op
        while op in self.keep and self.role[op] == "through" and depth < 20:
            t, op, depth = op.inputs[0], op.inputs[0].op, depth + 1
        if op not in self.keep or self.role[op] in ("hidden", "const"):
            return None
        return self.element.get(op), op, t

    def _make_edges(self):
        for op in self.ops:
            if self.role[op] in ("hidden", "const", "through"):
                continue
            dst = self.element[op]
            for k, t in enumerate(op.inputs):
                src = self._source(t)
                if src is None or src[0] == dst:
                    continue
                self.p.edge(src[0], dst, **self._edge_attrs(src, op, k))
            if self.detail in ("all", "primitives"):
                for c in op.control_inputs:
                    if c in self.keep and self.role[c] == "node" and self.element[c] != dst:
                        self.p.edge(self.element[c], dst, style="dotted", color="#999999", arrowhead="odot")
        self._link_histories()

    def _edge_attrs(self, src, op, k):
        eid, src_op, t = src
        kind = self.p.elements[eid].kind
        attrs = {}
        if kind == "op" and src_op.type == "Switch":
            attrs.update(label="T" if t.value_index == 1 else "F", color="#cc0000" if t.value_index else "#990000")
        elif kind == "op" and t.value_index:
            attrs["label"] = f":{t.value_index}"
        back = (kind == "op" and src_op.type == "NextIteration") or (
            self.role[op] == "lane" and op.type == "NextIteration")
        if back:
            attrs.update(style="dashed", color="#674ea7", constraint="false")
        if self.role[op] == "lane" and op.type == "Switch" and k == 1:  # the predicate steering a lane
            attrs.update(style="dotted", color="#bf9000", constraint="false", arrowhead="dot")
        if is_gradient(op, self.names.in_gradient) and "color" not in attrs:
            attrs["color"] = "#c2185b"
        return attrs

    def _link_histories(self):
        """Join each history-stack push to its pop (they share a StackV2): the value crosses from the forward
        loop to the gradient loop there."""
        pushes, pops = {}, {}
        for op in self.ops:
            if op.type in ("StackPushV2", "StackPopV2") and op in self.element:
                stack = self.names.stack_of(op)
                (pushes if op.type == "StackPushV2" else pops).setdefault(stack, []).append(op)
        for stack, push_ops in pushes.items():
            for push in push_ops:
                for pop in pops.get(stack, []):
                    self.p.edge(self.element[push], self.element[pop], style="dashed", color="#7f6000",
                                constraint="false", arrowhead="vee", label="history", fontcolor="#7f6000")

    # --- functions ------------------------------------------------------------------------------
    def _draw_functions(self):
        draw_functions(self, type(self))


def _default_machinery(op):
    """A loop's counter start or an absent maximum_iterations: TensorFlow's defaults, not the lesson."""
    if op.type != "Const" or short_name(op.name) not in ("loop_counter", "maximum_iterations"):
        return False
    value = op.get_attr("value")
    return getattr(value, "ndim", 0) == 0 and int(value) in (0, -1)


def _html(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

