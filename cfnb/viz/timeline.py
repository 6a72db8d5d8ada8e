"""Pictures of a run over time: the trace timeline and the history stacks' memory.

`trace_timeline(trace)` draws one row per (frame instance, iteration) and one tick per firing, at
its step: time runs left to right, so you see iterations overlap when `parallel_iterations > 1`
(TensorFlow's `FrameState` keeps up to that many `IterationState`s alive), nested loops open a new
frame instance per outer iteration (`FindOrCreateChildFrame`), and dead firings (grey) run the
untaken side of every Switch. `memory_timeline(memory)` draws the bytes each history stack holds
after every push and pop (`RunMetadata.memory`): the forward loop fills the stacks, the gradient
loop drains them in reverse.

Both are plain SVG written here (no Graphviz), deterministic for a given run, and shown by Jupyter
through `_repr_mimebundle_`.
"""
import html

from .figure import figure_bundle
from .names import Names

PALETTE = ["#3d85c6", "#e69138", "#6aa84f", "#a64d79", "#cc0000", "#674ea7", "#bf9000", "#45818e"]
DEAD = "#cccccc"
FONT = 'font-family="Helvetica,Arial,sans-serif"'


class Picture:
    """An SVG picture with a short text form (what nbval and a terminal see)."""

    def __init__(self, svg, text):
        self.svg = svg
        self.text = text

    def _repr_mimebundle_(self, include=None, exclude=None):
        return figure_bundle(self.svg, self.text)

    def __repr__(self):
        return self.text


def short_frame(name):
    """`while/while_context` -> `while`; the root frame is `root`."""
    if not name:
        return "root"
    return name[: -len("/while_context")] if name.endswith("/while_context") else name


def timeline_rows(trace, frames=None):
    """[(label, frame name, [firing, ...]), ...]: one row per (frame instance, iteration), grouped by
    frame (in the order frames first fire), each group in the order its rows first fire.
    `frames` (a set of frame names) keeps only those frames' rows."""
    rows, order = {}, []
    for f in trace.firings:
        if frames is not None and f.frame not in frames:
            continue
        key = (f.frame_path, f.frame, f.iteration)
        if key not in rows:
            rows[key] = []
            order.append(key)
        rows[key].append(f)
    frame_rank = {}
    for _, frame, _ in order:
        frame_rank.setdefault(frame, len(frame_rank))
    order.sort(key=lambda key: frame_rank[key[1]])  # grouped by frame, stable: instances and iterations in time order
    out = []
    for path, frame, iteration in order:
        outer = "".join(f"{short_frame(n)}@{i} / " for n, i in path[:-1]) if path else ""
        label = f"{outer}{short_frame(frame)} iter {iteration}" if frame else "root"
        out.append((label, frame, rows[(path, frame, iteration)]))
    return out


def trace_timeline(trace, frames=None, step=None, title=None, max_rows=40, width=756):
    """The trace as a picture: rows are frame instances × iterations, x is the step (time), each
    firing a tick coloured by its frame, dead firings grey; `step` draws a cursor there."""
    rows = timeline_rows(trace, frames)
    hidden = max(0, len(rows) - max_rows)
    rows = rows[:max_rows]
    steps = [f.step for _, _, fs in rows for f in fs]
    first, last = (min(steps), max(steps)) if steps else (0, 0)
    span = max(1, last - first + 1)
    label_w, row_h, top = 190, 14, 22 if title else 8
    scale = width / span
    tick = max(1.0, min(8.0, scale))
    colors = {}
    for _, frame, _ in rows:
        colors.setdefault(frame, PALETTE[len(colors) % len(PALETTE)] if frame else "#666666")
    height = top + row_h * len(rows) + 34 + (14 if hidden else 0)
    total_w = label_w + width + 12
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{height}" '
             f'viewBox="0 0 {total_w} {height}" {FONT} font-size="10">',
             f'<rect width="{total_w}" height="{height}" fill="white"/>']
    if title:
        parts.append(f'<text x="4" y="14" font-size="12">{html.escape(title)}</text>')
    for r, (label, frame, firings) in enumerate(rows):
        y = top + r * row_h
        if r % 2:
            parts.append(f'<rect x="{label_w}" y="{y}" width="{width}" height="{row_h}" fill="#f6f6f6"/>')
        parts.append(f'<text x="{label_w - 6}" y="{y + row_h - 3}" text-anchor="end" '
                     f'fill="{colors[frame]}">{html.escape(label)}</text>')
        for f in firings:
            x = label_w + (f.step - first) * scale
            fill = colors[frame] if f.live else DEAD
            parts.append(f'<rect x="{x:.1f}" y="{y + 2}" width="{tick:.1f}" height="{row_h - 4}" fill="{fill}">'
                         f'<title>{f.step}: {html.escape(f.node)} ({"live" if f.live else "dead"})</title></rect>')
    axis_y = top + row_h * len(rows) + 4
    parts.append(f'<line x1="{label_w}" y1="{axis_y}" x2="{label_w + width}" y2="{axis_y}" stroke="#999"/>')
    every = _nice_step(span)
    for s in range(first - first % every, last + 1, every):
        if s < first:
            continue
        x = label_w + (s - first) * scale
        parts.append(f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 4}" stroke="#999"/>'
                     f'<text x="{x:.1f}" y="{axis_y + 14}" text-anchor="middle" fill="#666">{s}</text>')
    parts.append(f'<text x="{label_w + width}" y="{axis_y + 26}" text-anchor="end" fill="#666">step (time) →'
                 f'</text><text x="4" y="{axis_y + 26}" fill="#999">grey: dead firings</text>')
    if hidden:
        parts.append(f'<text x="4" y="{axis_y + 40}" fill="#999">… {hidden} more rows not drawn</text>')
    if step is not None and first <= step <= last:
        x = label_w + (step - first) * scale + tick / 2
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{axis_y}" stroke="#000" stroke-width="1.5"/>')
    parts.append("</svg>")
    text = (f"<trace timeline: {len(rows) + hidden} rows (frame instance × iteration), steps {first}–{last}, "
            f"{sum(1 for _, _, fs in rows for f in fs if not f.live)} dead firings>")
    return Picture("\n".join(parts), text)


def memory_timeline(memory, title=None, width=640, height=180):
    """Bytes held by each history stack after every push and pop, one line per stack, and the total."""
    events = memory.events
    stacks = []
    for e in events:
        if e.stack not in stacks:
            stacks.append(e.stack)
    peak = max([e.total for e in events] + [1])
    left, top, bottom = 56, 22 if title else 8, 40
    total_w, total_h = left + width + 12, top + height + bottom + 14 * len(stacks)
    xs = lambda k: left + (k + 0.5) * width / max(1, len(events))  # noqa: E731
    ys = lambda b: top + height - b * height / peak  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" '
             f'viewBox="0 0 {total_w} {total_h}" {FONT} font-size="10">',
             f'<rect width="{total_w}" height="{total_h}" fill="white"/>']
    if title:
        parts.append(f'<text x="4" y="14" font-size="12">{html.escape(title)}</text>')
    parts.append(f'<line x1="{left}" y1="{top + height}" x2="{left + width}" y2="{top + height}" stroke="#999"/>'
                 f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + height}" stroke="#999"/>'
                 f'<text x="{left - 4}" y="{top + 8}" text-anchor="end" fill="#666">{peak} B</text>'
                 f'<text x="{left - 4}" y="{top + height}" text-anchor="end" fill="#666">0</text>'
                 f'<text x="{left + width}" y="{top + height + 14}" text-anchor="end" fill="#666">'
                 f'push/pop event (time) →</text>')
    series = [("all stacks", "#000000", [(-0.5, 0)] + [(k, e.total) for k, e in enumerate(events)])]
    labels = _stack_labels(memory, stacks)
    for n, stack in enumerate(stacks):
        held, points = 0, [(-0.5, 0)]
        for k, e in enumerate(events):
            if e.stack == stack:
                held = e.bytes
            points.append((k, held))
        series.append((labels[stack], PALETTE[n % len(PALETTE)], points))
    for n, (name, color, points) in enumerate(series):
        if points:
            path = " ".join(f"{xs(k):.1f},{ys(b):.1f}" for k, b in points)
            dash = ' stroke-dasharray="4,2"' if n == 0 else ""
            parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="1.5"{dash}/>')
        parts.append(f'<text x="{left}" y="{top + height + 28 + 14 * n}" fill="{color}">'
                     f'{"- - " if n == 0 else "—— "}{html.escape(name)}</text>')
    parts.append("</svg>")
    text = f"<memory timeline: {len(events)} push/pop events on {len(stacks)} stacks, peak {memory.peak_bytes} bytes>"
    return Picture("\n".join(parts), text)


def _stack_labels(memory, stacks):
    """Each stack by the student's name for what it holds (`stack of v`, names.py), its node's name after it."""
    graph = getattr(memory, "graph", None)
    ops = {op.name: op for op in graph.get_operations()} if graph is not None else {}
    names = Names(ops.values()) if ops else None
    labels = {}
    for stack in stacks:
        op = ops.get(stack)
        held = names.history_name(op) if op is not None else None
        labels[stack] = f"{held} ({stack})" if held and not held.endswith(")") else stack
    return labels


def _nice_step(span):
    for every in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000):
        if span / every <= 12:
            return every
    return max(1, span // 10)
