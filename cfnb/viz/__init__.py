"""Readable graphs: a deterministic text form (for golden tests) and DOT drawings (graphviz)."""
from .dot import GraphView, frames_of, render_svg, show, to_dot
from .text import graph_to_text

__all__ = ["GraphView", "frames_of", "graph_to_text", "render_svg", "show", "to_dot"]
