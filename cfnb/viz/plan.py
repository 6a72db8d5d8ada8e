"""What one drawing shows: its elements (drawn nodes, lanes, folded loops), clusters (frames, functions,
devices) and edges, in drawing order, and which element stands for each op. fold.py fills a Plan; dot.py writes
its DOT text."""
from collections import namedtuple

from .style import svg_id

Element = namedtuple("Element", "id label attrs cluster ops kind")
Cluster = namedtuple("Cluster", "id label parent attrs")
Edge = namedtuple("Edge", "src dst attrs")


class Plan:
    """What one drawing shows: elements, clusters and edges (in drawing order), and what stands for what."""

    def __init__(self, detail):
        self.detail = detail
        self.elements = {}   # id -> Element
        self.clusters = {}   # id -> Cluster
        self.edges = []
        self.owner = {}      # op name -> id of the element (or cluster) that stands for it
        self.labels = {}     # op name -> the student's label, `x (while/Merge_1)`
        self.kinds = set()   # op types drawn as themselves (for the legend)
        self.ids = set()
        self.gradient = False
        self.lanes = False
        self.gradient_clusters = set()

    def add(self, kind, name, label, attrs, cluster, ops, prefix="o"):
        """Add a drawn element (a node, a frame, a cond box) for `ops`, with an id unique in this drawing."""
        eid = svg_id(prefix, name, self.ids)
        self.elements[eid] = Element(eid, label, attrs, cluster, list(ops), kind)
        return eid

    def edge(self, src, dst, **attrs):
        """Add an edge between two drawn elements, unless it repeats one of the last 40 (same ends, label and
        style): at a folded level of detail several edges of the graph land on the same pair of drawn elements."""
        if src is None or dst is None or src == dst:
            return
        key = (src, dst, attrs.get("label"), attrs.get("style"))
        if key not in {(e.src, e.dst, e.attrs.get("label"), e.attrs.get("style")) for e in self.edges[-40:]}:
            self.edges.append(Edge(src, dst, attrs))
