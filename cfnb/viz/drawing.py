"""A drawing of a graph that fits the page, and the interface the explorer builds on.

    d = viz.drawing(graph, view="forward", detail="lesson")
    d.svg                      graphviz SVG text, at most 960 px wide where the graph allows
    d.width, d.height          its size in CSS px at 100%
    d.detail                   the level drawn: "all", "primitives", "lanes" or "loops" (fold.py)
    d.element_for(op_name)     the id of the SVG element that stands for the op in this drawing: its node, the
                               lane its loop variable is folded into, the box of a folded loop, the cluster of
                               the function it belongs to; None when the drawing leaves it out
    d.label_for(op_name)       the student's name where known: `x (while/Merge_1)`; else the op name
    d.at(trace, step)          the same drawing at a step of a trace (a graphviz.Digraph: the element standing
                               for the firing node highlighted, dead tokens grey, values beside the nodes)
    d.svg_at(trace, step)      its SVG, sized as `d.svg`
    d.caption(firing)          a step's caption with the student's name
    d.html()                   the SVG in a box that scrolls (the fallback for a graph too big to fold to fit)

Every drawn node and cluster carries an `id` set in the DOT from its op (or frame, or function) name:
`o_while.Merge_1`, `lane_while.Enter_1`, `loop_while.while_context`, `frame_while.while_context`,
`fn_while.body`; they are the same on every run, so a page can restyle a node by id.

`detail="lesson"` (the default) draws what a lesson is about and abstracts rather than shrinks: it takes the
first of `primitives`, `lanes`, `lanes` with nested loops folded, `loops` whose drawing fits the page (width at
most 960 px with text of at least 9 px, allowing a slight scale-down); if none fits, the most abstract one,
and `scroll` is True. `view` picks ops: "forward" leaves out what `gradients()` added, "gradient" (or None)
draws everything. `expand` names frames or functional ops never folded.
"""
import html

from .dot import GraphView, dot_available, emit, render_svg, step_caption, trace_state
from .figure import svg_img
from .fit import MIN_FONT, PAGE_WIDTH, measure
from .fold import DETAILS, plan
from .names import Names, is_gradient
from .style import LEGEND

LADDER = (("primitives", None), ("lanes", None), ("lanes", 2), ("loops", 1))
VIEWS = (None, "forward", "gradient")


def drawing(graph, view=None, detail="lesson", ops=None, title=None, legend=True, expand=(), width=PAGE_WIDTH):
    """A Drawing of `graph` (see the module docstring)."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of 'forward', 'gradient' or None, not {view!r}")
    ops = graph.get_operations() if ops is None else list(ops)
    if view == "forward":
        ops = [op for op in ops if not is_gradient(op)]
    if detail == "lesson":
        ladder = LADDER if dot_available() else LADDER[:1]
    elif detail in DETAILS:
        ladder = ((detail, None),)
    else:
        raise ValueError(f"detail must be 'lesson' or one of {', '.join(DETAILS)}, not {detail!r}")
    best = None
    for level, depth in ladder:
        candidate = Drawing(graph, ops, plan(graph, ops, level, expand, depth), title, legend, width)
        if len(ladder) == 1 or candidate.fits:
            return candidate
        if best is None or candidate.width < best.width:
            best = candidate
    best.scroll = True
    return best


class Drawing:
    """One drawing of a graph at one level of detail (see the module docstring)."""

    def __init__(self, graph, ops, plan_, title, legend, width=PAGE_WIDTH):
        self.graph, self.ops, self.plan = graph, ops, plan_
        self.title, self.legend, self.page_width = title, legend, width
        self.detail = plan_.detail
        self.scroll = False
        self.shrink = False  # scaled down by graphviz (`size`) to the page when wider: unless text would be too small
        self.dot = self._emit()
        self._svg = None

    def _emit(self, **trace):
        dot = emit(self.plan, self.title, self.legend, **trace)
        if self.shrink:
            dot.attr(size=f"{(self.page_width - 10) / 96:.3f},1000")
        return dot

    # --- the picture ------------------------------------------------------------------------------
    @property
    def svg(self):
        """The drawing rendered by `dot`, once; a drawing slightly wider than the page is re-emitted to be scaled
        down, when its text stays readable."""
        if self._svg is None:
            self._svg = render_svg(self.dot)
            m = measure(self._svg)
            if not self.shrink and (m.width <= self.page_width or (
                    m.font_px and m.font_px * self.page_width / m.width >= MIN_FONT)):
                # dot scales the drawing down to the page when it is wider: this one, slightly too wide, and a
                # step of a trace, whose values beside the nodes may widen it
                self.shrink = True
                self.dot = self._emit()
                self._svg = render_svg(self.dot)
        return self._svg

    @property
    def width(self):
        """The rendered width in pixels."""
        return measure(self.svg).width

    @property
    def height(self):
        """The rendered height in pixels."""
        return measure(self.svg).height

    @property
    def font_px(self):
        """The smallest font size in the rendered drawing, in pixels."""
        return measure(self.svg).font_px

    @property
    def fits(self):
        """Whether the drawing fits the page width with readable text (the course's legibility rule, `viz/fit.py`)."""
        m = measure(self.svg)
        return m.width <= self.page_width + 0.5 and (m.font_px or MIN_FONT) >= MIN_FONT - 0.01

    def svg_for(self, dot):
        """The SVG of a restyled copy of this drawing (a step of a trace)."""
        return self.svg if dot.source == self.dot.source else render_svg(dot)

    def html(self, max_height=None, inline=True, svg=None):
        """The SVG in a box as wide as the page that scrolls, at readable size: inline (its ids reachable from the
        page), or as an `<img>` of a data URL (what an untrusted notebook still shows; figure.svg_img)."""
        svg = svg or self.svg
        if not inline:
            return svg_img(svg, alt=self.title or "graph", css_class="cfnb-drawing")
        height = f"max-height:{max_height}px;" if max_height else ""
        return f'<div class="cfnb-drawing" style="max-width:100%;overflow:auto;{height}">{svg}</div>'

    # --- what stands for what ------------------------------------------------------------------------
    def element_for(self, op_name):
        """The SVG id of the element standing for `op_name` here (see the module docstring), or None."""
        owner = self.plan.owner
        if op_name in owner:
            return owner[op_name]
        parts = op_name.split("/")
        if parts[0] == "Func":  # the inliner's Func/<call>/...: the call's function, or its op
            parts = parts[1:]
        for k in range(len(parts) - 1, 0, -1):
            found = owner.get("/".join(parts[:k]))
            if found:
                return found
        return None

    def label_for(self, op_name):
        """`x (while/Merge_1)` where the student's name of the op is known; else the op name."""
        return self.plan.labels.get(op_name, op_name)

    # --- traces -----------------------------------------------------------------------------------
    def styled(self, step=None, dead=(), fired=(), values=None):
        """The Digraph restyled for a trace state (the same layout; see dot.to_dot)."""
        self.svg  # noqa: B018 - decides whether the drawing is scaled down
        if step is None and not dead and not fired and not values:
            return self.dot
        return self._emit(step=step, dead=dead, fired=fired, values=values)

    def at(self, trace, step):
        """The Digraph at `step` of `trace`; a history stack's value says how many values it holds."""
        current, dead, fired, values = trace_state(trace, step)
        values.update(self._stack_values(trace, step))
        return self.styled(step=current.node, dead=dead, fired=fired, values=values)

    def svg_at(self, trace, step):
        """The drawing at `step` of `trace`: each node coloured by what it has done so far (waiting, fired live,
        dead)."""
        return self.svg_for(self.at(trace, step))

    def caption(self, firing):
        """A step's caption, the node named with the student's name where known."""
        text = step_caption(firing)
        label = self.label_for(firing.node)
        return text.replace(f"{firing.node} (", f"{html.unescape(label)} (", 1) if label != firing.node else text

    def _stack_values(self, trace, step):
        names = Names(self.ops)
        by_name = {op.name: op for op in self.ops}
        held, stacks = {}, {}
        for f in trace.firings[: step + 1]:
            op = by_name.get(f.node)
            if op is None or not f.live or op.type not in ("StackPushV2", "StackPopV2", "StackV2"):
                continue
            stack = names.stack_of(op)
            if stack is None:
                continue
            stacks[stack.name] = names.history_name(stack)
            held[stack.name] = held.get(stack.name, 0) + {"StackPushV2": 1, "StackPopV2": -1}.get(op.type, 0)
        return {name: f"{stacks[name]}: {n} value{'s' if n != 1 else ''}" for name, n in held.items()}

    def __repr__(self):
        return f"<cfnb drawing: {self.detail}, {len(self.plan.elements)} elements>"


# --- the public drawing functions ------------------------------------------------------------
def to_dot(graph, title=None, legend=True, step=None, dead=(), fired=(), values=None, ops=None, detail="lesson",
           expand=()):
    """A deterministic `graphviz.Digraph` of `graph` (or of the listed `ops`) at a level of detail.

    Trace styling: `step` names the node firing now (its element is highlighted), `dead` nodes whose last
    token was dead (grey), `fired` nodes that have fired at least once (solid border), `values` maps node
    names to a short value shown beside the node.
    """
    d = drawing(graph, ops=ops, detail=detail, title=title, legend=legend, expand=expand)
    return d.styled(step=step, dead=dead, fired=fired, values=values)


def show(graph, title=None, detail="lesson", **kwargs):
    """A displayable view of `graph` at a level of detail (see `to_dot` for the trace-styling arguments)."""
    d = drawing(graph, ops=kwargs.pop("ops", None), detail=detail, title=title, legend=kwargs.pop("legend", True),
                expand=kwargs.pop("expand", ()))
    ops = graph.get_operations()
    kinds = sorted({op.type for op in ops} & set(LEGEND))
    text = f"<cfnb graph{': ' + title if title else ''}: {len(ops)} ops" + (
        f"; primitives {', '.join(kinds)}>" if kinds else ">")
    return GraphView(d.styled(**kwargs), text, d)


def show_step(graph, trace, step, title=None, detail="lesson"):
    """The graph as it stands at `step` of `trace`: the same layout as `show(graph)`, the firing node
    highlighted, dead tokens greyed, latest values beside the nodes."""
    current = trace.firings[step]
    caption = step_caption(current)
    d = drawing(graph, detail=detail, title=title or caption)
    return GraphView(d.at(trace, step), caption, d)
