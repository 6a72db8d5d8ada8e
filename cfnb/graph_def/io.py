"""Writing and reading GraphDefs as files: TensorFlow's `tf.io.write_graph` (also `tf.train.write_graph`)."""
import os

from .protos import pb


def as_graph_def(graph_or_graph_def, add_shapes=False):
    """A GraphDef from a cfnb Graph (its `as_graph_def()`) or a GraphDef itself."""
    if isinstance(graph_or_graph_def, pb().GraphDef):
        return graph_or_graph_def
    if hasattr(graph_or_graph_def, "as_graph_def"):
        return graph_or_graph_def.as_graph_def(add_shapes=add_shapes)
    raise TypeError(f"expected a Graph or a GraphDef, got {type(graph_or_graph_def).__name__}")


def graph_def_to_text(graph_def):
    """The text format TensorFlow writes for `as_text=True` (`text_format.MessageToString`)."""
    return pb().text_format.MessageToString(graph_def)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Write the graph to `logdir/name`, as text (`.pbtxt`) or as the binary protobuf; returns the path.
    `logdir` is created when missing, as in TensorFlow."""
    graph_def = as_graph_def(graph_or_graph_def)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        with open(path, "w") as f:
            f.write(graph_def_to_text(graph_def))
    else:
        with open(path, "wb") as f:
            f.write(graph_def.SerializeToString())
    return path


def read_graph(path):
    """A GraphDef from a file `write_graph` wrote, text or binary (by its content). A file that is UTF-8 text and
    no binary GraphDef is reported as text: protobuf's ParseError, with the line, the column and what was expected
    (not the binary parser's "Wire format was corrupt")."""
    p = pb()
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return p.GraphDef.FromString(data)
    graph_def = p.GraphDef()
    try:
        p.text_format.Parse(text, graph_def)
        return graph_def
    except p.text_format.ParseError as text_error:
        try:
            return p.GraphDef.FromString(data)
        except Exception:  # noqa: BLE001 - neither form: the text's error is the one that says where
            raise text_error from None
