"""Write a drawing's DOT text with graphviz: one cluster per while frame, the primitives in their own shapes.

`emit(plan)` writes the DOT of a Plan (fold.py) deterministically (ids come from op names, never `id()`), so
the SVG is the same on every run. With trace styling (`step`, `dead`, `fired`, `values`) it keeps the same
layout and only restyles: the element standing for the firing node is highlighted, dead tokens are grey, and
the value is an `xlabel`, which graphviz places after layout, so nodes do not move between steps.
`to_dot`, `show` and `show_step` (drawing.py) build on it.

`GraphView` wraps a drawing for Jupyter: SVG when Graphviz's `dot` is installed, otherwise one clear message
with how to install it, and the DOT text.
"""
import functools
import html
import shutil

import graphviz

from .figure import figure_bundle
from .frames import frames_of
from .style import LEGEND, legend_entries, new_digraph, style_for

__all__ = ["GraphView", "emit", "frames_of", "new_digraph", "render_svg", "step_caption", "style_for",
           "trace_state"]
_VALUE_ORDER = ("Exit", "Merge", "NextIteration", "Switch", "Enter")


def emit(plan, title=None, legend=True, step=None, dead=(), fired=(), values=None, rankdir="TB"):
    """The `graphviz.Digraph` of a Plan, trace styling applied per element."""
    entries = legend_entries(plan.kinds, plan.gradient, plan.lanes) if legend and (
        plan.kinds & set(LEGEND) or plan.lanes) else None
    dot = new_digraph("cfnb", title, "cfnb graph", entries)
    if rankdir != "TB":
        dot.attr(rankdir=rankdir)
    traced = step is not None or bool(fired) or bool(dead)
    dead, fired, values = set(dead), set(fired), dict(values or {})
    children = {}
    for cid, cluster in plan.clusters.items():
        children.setdefault(cluster.parent or "", []).append(cid)
    members = {}
    for e in plan.elements.values():
        members.setdefault(e.cluster or "", []).append(e)

    lit = plan.owner.get(step) if step is not None else None  # what stands for the firing node here

    def fill(g, cid):
        for e in members.get(cid, []):
            attrs = dict(e.attrs, label=e.label)
            if traced:
                _trace_style(attrs, e, step, e.id == lit or step in e.ops, dead, fired, values)
            g.node(e.id, id=e.id, **attrs)
        for child in children.get(cid, []):
            cluster = plan.clusters[child]
            with g.subgraph(name=f"cluster_{child}") as sub:
                attrs = dict(cluster.attrs)
                if child == lit:  # a folded op with no node of its own: its frame or function lights up
                    attrs.update(penwidth="3", color="#000000")
                sub.attr(id=child, label=cluster.label, **attrs)
                fill(sub, child)

    fill(dot, "")
    for e in plan.edges:
        dot.edge(e.src, e.dst, **e.attrs)
    return dot


def _trace_style(attrs, element, step, lit, dead, fired, values):
    """Restyle one element for a step of a trace (its ops' states folded together); `lit`: it stands for the
    firing node."""
    ops = element.ops
    seen = [o for o in ops if o in fired or o in dead or o == step]
    is_dead = bool(seen) and all(o in dead for o in seen if o != step) and (step not in ops or step in dead)
    if is_dead:
        attrs.update(fillcolor="#eeeeee", color="#bbbbbb", fontcolor="#aaaaaa", style="filled,dashed")
    elif fired and not seen and not lit:
        attrs.update(style=attrs.get("style", "filled") + ",dotted")
    if lit:
        attrs.update(penwidth="3", color="#000000", fillcolor="#ffe599" if step not in dead else "#dddddd")
        if attrs.get("shape") == "plaintext":  # a constant: give it an outline to highlight
            attrs.update(shape="box", style="filled")
    value = _element_value(element, step, values)
    if value is not None:
        attrs["xlabel"] = html.escape(value, quote=False)
        attrs["forcelabels"] = "true"


def _element_value(element, step, values):
    ops = [o for o in element.ops if o in values]
    if not ops:
        return None
    if step in ops:
        chosen = step
    else:
        ranked = sorted(ops, key=lambda o: next((k for k, t in enumerate(_VALUE_ORDER) if f"/{t}" in o or
                                                 o.rsplit("/", 1)[-1].lower().startswith(t.lower())), 9))
        chosen = ranked[0]
    value = values[chosen]
    return None if value.startswith("<") else value


# --- rendering ---------------------------------------------------------------------------------
MISSING_DOT = ("Graphviz's `dot` program is not installed, so graphs are shown as DOT text. Install it with "
               "`sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) or "
               "`conda install -c conda-forge graphviz`, then restart the kernel.")


def dot_available():
    """Whether Graphviz's `dot` is on PATH: drawings need it, and tests say so when it is missing."""
    return shutil.which("dot") is not None


@functools.lru_cache(maxsize=512)
def _render_cached(source):
    return graphviz.Source(source).pipe(format="svg").decode("utf-8")


def render_svg(dot):
    """SVG text for a Digraph (cached by DOT source, so each view is rendered once)."""
    svg = _render_cached(dot.source)
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


_warned = []


class GraphView:
    """What a notebook shows for a graph: SVG (or DOT text when `dot` is missing), and a short,
    deterministic text/plain. `drawing` (a Drawing) is kept when the view was made from one: its SVG
    is the one fitted to the page."""

    def __init__(self, dot, text, drawing=None):
        self.dot = dot
        self.text = text
        self.drawing = drawing

    def _repr_mimebundle_(self, include=None, exclude=None):
        if not dot_available():
            if not _warned:
                _warned.append(True)
                return {"text/plain": MISSING_DOT + "\n\n" + self.dot.source}
            return {"text/plain": self.dot.source}
        svg = self.drawing.svg_for(self.dot) if self.drawing is not None else render_svg(self.dot)
        return figure_bundle(svg, self.text)  # the SVG, and an <img> of it in a box that scrolls (figure.py)

    def __repr__(self):
        return self.text


def trace_state(trace, step):
    """What the graph looks like after firing `step` of a trace: the firing itself, the nodes whose
    latest token was dead, the nodes that have fired, and each live node's latest value."""
    last = {}
    for firing in trace.firings[: step + 1]:
        last[firing.node] = firing
    current = trace.firings[step]
    dead = {n for n, f in last.items() if not f.live}
    values = {n: f.value for n, f in last.items() if f.live}
    return current, dead, set(last), values


def step_caption(firing):
    """The caption of one step of a trace: which node fired, in which frame and iteration, live or dead, with its
    value."""
    frame = firing.frame or "root"
    return (f"step {firing.step}: {firing.node} ({firing.op_type}) in frame {frame}, iteration {firing.iteration}, "
            f"{'live' if firing.live else 'dead'}" + (f", value {firing.value}" if firing.live else ""))
