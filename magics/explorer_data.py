"""What the explorer sends to the browser: one drawing per view, and the trace as data.

The explorer steps in the browser (magics/explorer.js), so everything a step shows must be data the
page already holds: each view's SVG (sent once), a table of the trace's nodes (for each view, the id
of the SVG element that stands for the node there, and the name to call it by) and one short record
per firing. The page restyles that element per step; nothing is re-drawn.

The drawings are `cfnb.viz.drawing`s at the lesson's level of detail: `element_for(op)` is the node,
the lane a loop variable is folded into, or the box of a folded loop; `label_for(op)` the student's
name (`x (while/Merge_1)`). A firing whose op a view leaves out is shown on what stands for it
(`stand_in`): in the functional view the `While`/`If` op whose body it runs (or whose frame it runs
in), in the lowered view the forward op a gradient op differentiates (`gradients/while/mul_grad/Mul`
on `while/mul`) or the frame the op runs in.
"""
import html
import re

from cfnb import viz


class NoDotDrawing:
    """What a view shows without Graphviz's `dot`: how to install it, and the DOT text."""

    def __init__(self, graph, ops):
        self.ops = list(ops)
        text = viz.dot.MISSING_DOT + "\n\n" + viz.to_dot(graph, ops=self.ops, detail="all").source
        self.svg = f'<pre class="cfnb-no-dot">{html.escape(text)}</pre>'
        self.width = self.height = self.font_px = 0.0

    def element_for(self, op_name):
        return None

    def label_for(self, op_name):
        return op_name


def view_ops(result, view):
    """The graph a view draws and its ops: `functional` and `lowered` without the gradient ops,
    `gradient` the lowered graph with them."""
    graph = result.functional if view == "functional" else result.lowered
    ops = graph.get_operations()
    if view != "gradient":
        ops = [op for op in ops if not op.name.startswith("gradients")]
    return graph, ops


DETAILS = ("lesson", "all")  # what the lesson is about (plumbing folded), and every node as TensorFlow built it


def drawing_key(view, detail):
    """How the data names the drawing of `view` at `detail`: `lowered`, `lowered/all`."""
    return view if detail == "lesson" else f"{view}/{detail}"


def drawing_for(result, view, detail="lesson"):
    """The view's drawing at a level of detail (a `viz.Drawing`)."""
    graph, ops = view_ops(result, view)
    if not viz.dot.dot_available():
        return NoDotDrawing(graph, ops)
    return viz.drawing(graph, ops=ops, detail=detail)


def frame_element(drawing, frame_path):
    """The element drawn for the innermost frame of `frame_path` that the drawing shows (its cluster, or
    the box it is folded into), or None."""
    for frame, _ in reversed(frame_path):
        name = re.sub(r"[^A-Za-z0-9_.]", ".", frame)
        for prefix in ("loop_", "frame_"):
            if f'id="{prefix}{name}"' in drawing.svg:
                return prefix + name, f"{'loop' if prefix == 'loop_' else 'frame'} {short_frame(frame)}"
    return None, None


def stand_in(node, names, view):
    """The drawn op that stands for firing `node` in `view` (whose drawn op names are `names`), or None."""
    if node in names:
        return node
    if node.startswith(("_retval/", "_feed/")):  # the session's fetch of (or feed into) a tensor: its op
        return stand_in(node.split("/", 1)[1].rsplit(":", 1)[0], names, view)
    parts = node.split("/")
    if parts[0] == "gradients" and view != "gradient":
        # gradients/<forward op name>_grad/...: the forward op this gradient op belongs to
        for k in range(len(parts) - 1, 0, -1):
            if parts[k].endswith("_grad"):
                forward = "/".join(parts[1:k] + [parts[k][: -len("_grad")]])
                if forward in names or view == "functional":
                    return stand_in(forward, names, view) if forward != node else None
        return None
    if view == "functional":
        if parts[0] == "Func":  # the inliner's Func/<call>/input, .../input_control_node: the call's functional op
            parts = parts[1:]
        for k in range(len(parts) - 1, 0, -1):
            if "/".join(parts[:k]) in names:
                return "/".join(parts[:k])
    return None


def frame_stand_in(frame, names):
    """The drawn functional op that runs `frame` (`while` for `while/while_context`, the outermost
    drawn loop for a nested frame), or None: what stands, in the functional view, for a node the
    lowering added to a loop (its counter, its history pushes)."""
    parts = short_frame(frame).split("/") if frame else []
    for k in range(1, len(parts) + 1):
        if "/".join(parts[:k]) in names:
            return "/".join(parts[:k])
    return None


def short_frame(name):
    """`while/while_context` -> `while`; the root frame is ``."""
    return name[: -len("/while_context")] if name.endswith("/while_context") else name


def trace_data(trace, drawings):
    """The trace as the page needs it: {"nodes": [...], "frames": [...], "steps": [...]}.

    nodes   one entry per firing node: [name, op type, {view: [element id, label, stand-in op]}]
            (element id None where nothing in that view stands for the node)
    steps   one [node index, frame index, iteration, live (0/1), value] per firing, in order
    """
    nodes, index, frames, frame_index, steps = [], {}, [], {}, []
    names = {key: {op.name for op in d.ops} for key, d in drawings.items()}
    for firing in trace.firings:
        if firing.node not in index:
            index[firing.node] = len(nodes)
            per_view = {}
            for key, drawing in drawings.items():  # key: a view at a level of detail (drawing_key)
                per_view[key] = _shown_in(drawing, firing, names[key], key.split("/")[0])
            nodes.append([firing.node, firing.op_type, per_view])
        frame = short_frame(firing.frame)
        if frame not in frame_index:
            frame_index[frame] = len(frames)
            frames.append(frame)
        steps.append([index[firing.node], frame_index[frame], firing.iteration, int(firing.live),
                      firing.value if firing.live else ""])
    return {"nodes": nodes, "frames": frames, "steps": steps, "truncated": bool(getattr(trace, "truncated", False))}


def _shown_in(drawing, firing, names, view):
    """[element id, its label, the op it draws] for a firing in one view (Nones where nothing stands for it)."""
    shown = stand_in(firing.node, names, view)
    if shown is None and view == "functional":
        shown = frame_stand_in(firing.frame, names)
    shown = shown or firing.node
    element = drawing.element_for(shown)
    if element:
        return [element, html.unescape(drawing.label_for(shown)), shown]
    element, label = frame_element(drawing, firing.frame_path)
    return [element, label, label] if element else [None, None, None]


def caption(data, step, key):
    """What the page writes under the buttons at `step` in the drawing `key` (a view at a level of detail,
    drawing_key); explorer.js's `caption` says the same."""
    if not data["steps"]:
        return f"{key.split('/')[0]} graph (no trace)"
    node_index, frame_index, iteration, live, value = data["steps"][step]
    name, op_type, per_view = data["nodes"][node_index]
    element, label, shown = per_view.get(key) or [None, None, None]
    frame = data["frames"][frame_index]
    where = f"in frame {frame}, iteration {iteration}" if frame else "in the root frame"
    own = element is not None and name in label  # the element is the node itself (or its lane), not a stand-in
    text = f"step {step}: {op_type} {label if own else name} {where}, {'live, value ' + value if live else 'dead'}"
    if element is None:
        gradient = name.startswith("gradients")
        text += (" — part of the gradient: see the gradient view" if gradient and not key.startswith("gradient")
                 else " — not drawn in this view")
    elif not own:
        text += f" — shown as {label}"
    if data["truncated"]:
        text += f" — the trace holds the first {len(data['steps']):,} firings of a longer run"
    return text
