"""Readable graphs: a deterministic text form (for golden tests) and DOT drawings (graphviz)."""
from .devices import Timeline, partitions_to_dot, show_partitions
from .dot import GraphView, frames_of, render_svg, show, show_step, step_caption, to_dot, trace_state
from .memory import MemoryPlot, plot_memory
from .text import graph_to_text

__all__ = ["MemoryPlot", "plot_memory",
           "GraphView", "Timeline", "frames_of", "graph_to_text", "partitions_to_dot", "render_svg", "show",
           "show_partitions", "show_step", "step_caption", "to_dot", "trace_state"]
