"""The GraphDef bridge: cfnb graphs in TensorFlow's own formats, and TensorFlow's graphs in cfnb.

* `Graph.as_graph_def()` -> a `GraphDef` protobuf (export.py), with the FunctionDefs of functional If/While
  bodies in its library; `write_graph` writes it as text or binary (io.py).
* `import_graph_def(graph_def, input_map, return_elements, name)` builds a GraphDef's nodes in the default graph
  (importer.py): graphs TensorFlow wrote run, draw and step in cfnb.
* `FileWriter` / `summary_iterator`: event files for TensorBoard's graph dashboard (events.py).

The protobuf classes are TensorBoard's (`tensorboard.compat.proto`), an optional extra; without it cfnb imports
and runs, and these functions raise an ImportError that says what to install (protos.py).

`framework` sits below this layer, so `Graph.as_graph_def` reaches the exporter through a hook registered here
(`framework.ops.register_graph_def_exporter`), never by importing upward.
"""
import types as _types

from ..framework import ops as _ops
from ..ops import tf_graph_ops  # noqa: F401 - registers the ops TensorFlow's graphs use that cfnb builds otherwise
from .events import FileWriter, summary_iterator
from .export import graph_to_graph_def
from .importer import import_graph_def
from .io import graph_def_to_text, read_graph, write_graph
from .protos import INSTALL_HINT, pb


def _graph_def_class():
    return pb().GraphDef


class _GraphDefType(type):
    """`tf.GraphDef()` makes TensorBoard's GraphDef message; `isinstance(x, tf.GraphDef)` asks the same class."""

    def __call__(cls, *args, **kwargs):
        return _graph_def_class()(*args, **kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, _graph_def_class())

    def FromString(cls, data):  # noqa: N802 - protobuf's name
        return _graph_def_class().FromString(data)


class GraphDef(metaclass=_GraphDefType):
    """TensorFlow's `tf.compat.v1.GraphDef` (TensorBoard's generated class, resolved on first use)."""


_ops.register_graph_def_exporter(graph_to_graph_def)

# The namespaces TensorFlow puts these names in: tf.io, tf.train, tf.summary (tf.compat.v1's spelling).
io = _types.SimpleNamespace(write_graph=write_graph, read_graph=read_graph, graph_def_to_text=graph_def_to_text)
train = _types.SimpleNamespace(write_graph=write_graph, summary_iterator=summary_iterator)
summary = _types.SimpleNamespace(FileWriter=FileWriter)

__all__ = ["FileWriter", "GraphDef", "INSTALL_HINT", "graph_def_to_text", "graph_to_graph_def", "import_graph_def",
           "io", "read_graph", "summary", "summary_iterator", "train", "write_graph"]
