"""The house style of every cfnb drawing: the primitives' shapes and colours, how a gradient node is marked,
stable SVG ids, and the one-row legend.

The shapes are those of TensorFlow's lowering diagrams (Enter and Exit as the frame's doors, Merge and Switch
as funnels). A node the gradient added has a magenta border and a `∇` before its TensorFlow name, so the
forward and the backward `Switch_1` never look alike; a gradient frame has a pink background.
"""
import html
import re

import graphviz

FONT = "Helvetica"
_FUNCTIONAL = {"shape": "box3d", "fillcolor": "#ead1dc", "color": "#a64d79"}
_HISTORY = {"shape": "cylinder", "fillcolor": "#fff2cc", "color": "#7f6000"}  # stacks and TensorList accumulators
STYLE = {
    "Enter": {"shape": "invhouse", "fillcolor": "#cfe2f3", "color": "#3d85c6"},
    "Exit": {"shape": "house", "fillcolor": "#fce5cd", "color": "#e69138"},
    "Merge": {"shape": "invtrapezium", "fillcolor": "#d9ead3", "color": "#6aa84f"},
    "Switch": {"shape": "trapezium", "fillcolor": "#f4cccc", "color": "#cc0000"},
    "NextIteration": {"shape": "cds", "fillcolor": "#d9d2e9", "color": "#674ea7"},
    "LoopCond": {"shape": "diamond", "fillcolor": "#fff2cc", "color": "#bf9000"},
    "If": _FUNCTIONAL, "While": _FUNCTIONAL, "StatelessWhile": _FUNCTIONAL, "StatelessIf": _FUNCTIONAL,
    "Case": _FUNCTIONAL, "StatelessCase": _FUNCTIONAL,
    "StackV2": _HISTORY, "StackPushV2": _HISTORY, "StackPopV2": _HISTORY, "TensorListPushBack": _HISTORY,
    "TensorListPopBack": _HISTORY, "EmptyTensorList": _HISTORY,
}
CONST_STYLE = {"shape": "plaintext", "fillcolor": "white", "color": "#999999", "fontcolor": "#555555"}
OP_STYLE = {"shape": "box", "style": "rounded,filled", "fillcolor": "#f3f3f3", "color": "#666666"}
LANE_STYLE = {"shape": "box", "style": "filled,bold", "fillcolor": "#d9ead3", "color": "#6aa84f"}
LOOP_STYLE = {"shape": "box3d", "style": "filled", "fillcolor": "#cfe2f3", "color": "#3d85c6"}
GRADIENT = {"color": "#c2185b", "penwidth": "2"}
GRADIENT_FRAME = "#fdf0f5"
NABLA = "\u2207 "
LEGEND = ["Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond"]


def style_for(op_type):
    """The drawing attributes of an op type: the primitives' colours, Consts' and everything else's."""
    if op_type == "Const":
        return dict(CONST_STYLE)
    if op_type in STYLE:
        return {"style": "filled", **STYLE[op_type]}
    return dict(OP_STYLE)


def mark_gradient(attrs):
    """Mark a node as the gradient's: a magenta border (kept when a trace restyles the node)."""
    if attrs.get("shape") != "plaintext":
        attrs.update(GRADIENT)
    else:
        attrs["fontcolor"] = GRADIENT["color"]
    return attrs


def svg_id(prefix, name, taken):
    """A stable SVG id for a drawn element: `prefix_` and the op name with `/` as `.` (`o_while.Merge_1`),
    made unique in drawing order (`~2`). Deterministic: it depends on names only, never on `id()`. No `-`:
    graphviz writes it as `&#45;` in the SVG."""
    base = f"{prefix}_" + re.sub(r"[^A-Za-z0-9_.]", ".", name)
    out, k = base, 1
    while out in taken:
        k += 1
        out = f"{base}~{k}"
    taken.add(out)
    return out


def new_digraph(name, title, comment, legend=None):
    """A `graphviz.Digraph` with the house style every cfnb drawing shares (fonts, spacing, edge colour).

    The title and the legend are one HTML label at the top: the legend is a single row, never a column that
    takes a third of the width."""
    dot = graphviz.Digraph(name=name, comment=title or comment)
    dot.attr(rankdir="TB", fontname=FONT, fontsize="11", newrank="true", nodesep="0.2", ranksep="0.3",
             compound="true")
    dot.attr("node", fontname=FONT, fontsize="10", height="0.3", margin="0.06,0.03")
    dot.attr("edge", fontname=FONT, fontsize="9", arrowsize="0.6", color="#555555")
    label = header(title, legend)
    if label:
        dot.attr(label=label, labelloc="t", labeljust="l")
    return dot


def wrap(text, width=90):
    """Break a long title into lines of at most `width` characters (at spaces)."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + ([line] if line else [])


def header(title, legend):
    """The graph label: the title (13 pt, wrapped) and, below it, a one-row legend of the kinds drawn."""
    rows = []
    if title:
        text = "<BR/>".join(html.escape(line) for line in wrap(title))
        rows.append(f'<TR><TD ALIGN="LEFT" BALIGN="LEFT"><FONT POINT-SIZE="13">{text}</FONT></TD></TR>')
    if legend:
        cells = "".join(f'<TD BGCOLOR="{fill}" COLOR="{color}" BORDER="1">{html.escape(kind)}</TD>'
                        for kind, fill, color in legend)
        rows.append(f'<TR><TD ALIGN="LEFT"><TABLE BORDER="0" CELLSPACING="3" CELLPADDING="2"><TR>{cells}'
                    f'</TR></TABLE></TD></TR>')
    if not rows:
        return None
    return f'<<FONT POINT-SIZE="9"><TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">' \
           f'{"".join(rows)}</TABLE></FONT>>'


def legend_entries(kinds, gradient=False, lanes=False):
    """The legend's cells for the primitives drawn (in the order data flows through them), the lane and the
    gradient mark when present."""
    out = [(k, STYLE[k]["fillcolor"], STYLE[k]["color"]) for k in LEGEND if k in kinds]
    if lanes:
        out.append(("loop variable (its Enter...Exit)", LANE_STYLE["fillcolor"], LANE_STYLE["color"]))
    if "StackV2" in kinds or "TensorListPushBack" in kinds:
        out.append(("history stack", _HISTORY["fillcolor"], _HISTORY["color"]))
    if gradient:
        out.append((NABLA + "gradient", GRADIENT_FRAME, GRADIENT["color"]))
    return out
