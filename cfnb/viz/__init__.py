"""Readable graphs: DOT drawings (graphviz) that fit the page at a level of detail, and pictures of a run over
time (the trace timeline, the history stacks' memory); `graph_to_text`, the deterministic text form golden tests
compare, is the framework's (`framework/graph_text.py`) and is re-exported here.

Read next: `drawing.py` (the Drawing object and the levels a lesson abstracts through), `fold.py` (what each
level folds), `names.py` (the student's names), `fit.py` (`measure`: how wide, how small the text)."""
from ..framework.graph_text import graph_to_text
from .devices import Timeline, partitions_to_dot, show_partitions
from .dot import GraphView, frames_of, render_svg, step_caption, trace_state
from .drawing import Drawing, drawing, show, show_step, to_dot
from .fit import fits, measure
from .fold import DETAILS
from .memory import MemoryPlot, plot_memory
from .timeline import Picture, memory_timeline, timeline_rows, trace_timeline

__all__ = ["DETAILS", "Drawing", "GraphView", "MemoryPlot", "Picture", "Timeline", "drawing", "fits", "frames_of",
           "graph_to_text", "measure", "memory_timeline", "partitions_to_dot", "plot_memory", "render_svg", "show",
           "show_partitions", "show_step", "step_caption", "timeline_rows", "to_dot", "trace_state",
           "trace_timeline"]
