"""Readable graphs: DOT drawings (graphviz) and pictures of a run over time (the trace timeline, the history
stacks' memory); `graph_to_text`, the deterministic text form golden tests compare, is the framework's
(`framework/graph_text.py`) and is re-exported here."""
from ..framework.graph_text import graph_to_text
from .devices import Timeline, partitions_to_dot, show_partitions
from .dot import GraphView, frames_of, render_svg, show, show_step, step_caption, to_dot, trace_state
from .memory import MemoryPlot, plot_memory
from .timeline import Picture, memory_timeline, timeline_rows, trace_timeline

__all__ = ["GraphView", "MemoryPlot", "Picture", "Timeline", "frames_of", "graph_to_text", "memory_timeline",
           "partitions_to_dot", "plot_memory", "render_svg", "show", "show_partitions", "show_step", "step_caption",
           "timeline_rows", "to_dot", "trace_state", "trace_timeline"]
