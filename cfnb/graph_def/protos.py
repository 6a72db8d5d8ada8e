"""TensorFlow's protocol buffers, as TensorBoard ships them (`tensorboard.compat.proto`), and TensorFlow's op
signatures (OpDefs) for the ops cfnb knows.

The bridge never encodes protobufs by hand: GraphDef, NodeDef, AttrValue, TensorProto, FunctionDef and Event are
TensorBoard's generated classes, the same schema TensorFlow reads. TensorBoard is an optional extra
(`pip install -e .[tensorboard]`), so cfnb's engine imports without it; the bridge's functions ask for it here,
on first use, with a clear ImportError.

`op_def(type)` reads op_defs.pbtxt beside this file: TensorFlow 2.21's OpDefs (argument names, type attributes,
attr defaults), recorded by tests/conformance/record_graph_defs.py. The exporter reads TensorFlow's attr names and
defaults from it (`T`, `Truncate`, ...), and FunctionDefs name outputs by argument (`Less:z:0`), which only the
signature can say.
"""
import functools
import pathlib
import types

from ..framework import dtypes

INSTALL_HINT = ("cfnb's GraphDef bridge (as_graph_def, import_graph_def, write_graph, FileWriter) uses the protobuf "
                "classes TensorBoard ships: install the extra with `pip install -e '.[tensorboard]'` (or `pip "
                "install tensorboard`).")


@functools.cache
def pb():
    """The protobuf modules, as one namespace: pb().GraphDef, pb().AttrValue, pb().text_format, ..."""
    try:
        from google.protobuf import text_format
        from tensorboard.compat.proto import (
            attr_value_pb2,
            event_pb2,
            function_pb2,
            graph_pb2,
            node_def_pb2,
            op_def_pb2,
            summary_pb2,
            tensor_pb2,
            tensor_shape_pb2,
            types_pb2,
            versions_pb2,
        )
    except ImportError as e:
        raise ImportError(f"{INSTALL_HINT} ({e})") from e
    return types.SimpleNamespace(
        text_format=text_format, GraphDef=graph_pb2.GraphDef, NodeDef=node_def_pb2.NodeDef,
        AttrValue=attr_value_pb2.AttrValue, NameAttrList=attr_value_pb2.NameAttrList,
        TensorProto=tensor_pb2.TensorProto, TensorShapeProto=tensor_shape_pb2.TensorShapeProto,
        FunctionDef=function_pb2.FunctionDef, OpList=op_def_pb2.OpList, OpDef=op_def_pb2.OpDef,
        Event=event_pb2.Event, Summary=summary_pb2.Summary, VersionDef=versions_pb2.VersionDef,
        DataType=types_pb2.DataType)


# TensorFlow's DataType enum names for cfnb's dtypes.
_TYPE_NAMES = {"float16": "DT_HALF", "bfloat16": "DT_BFLOAT16", "float32": "DT_FLOAT", "float64": "DT_DOUBLE",
               "int32": "DT_INT32", "int64": "DT_INT64", "bool": "DT_BOOL", "string": "DT_STRING",
               "resource": "DT_RESOURCE",
               "variant": "DT_VARIANT"}
TYPE_NAMES = frozenset(_TYPE_NAMES.values())  # the DataTypes an imported graph may use


def type_enum(dtype):
    """cfnb DType -> TensorFlow's DataType number."""
    return pb().DataType.Value(_TYPE_NAMES[dtypes.as_dtype(dtype).name])


def dtype_of(enum):
    """TensorFlow's DataType number -> cfnb DType; a type cfnb lacks is a TypeError naming it."""
    name = pb().DataType.Name(enum)
    for cfnb_name, tf_name in _TYPE_NAMES.items():
        if tf_name == name:
            return dtypes.as_dtype(cfnb_name)
    raise TypeError(f"cfnb has no dtype for TensorFlow's {name}")


@functools.cache
def _op_defs():
    p = pb()
    text = (pathlib.Path(__file__).parent / "op_defs.pbtxt").read_text()
    return {o.name: o for o in p.text_format.Parse(text, p.OpList()).op}


def op_def(op_type):
    """TensorFlow's OpDef of `op_type`, or None for an op TensorFlow does not have (cfnb's own)."""
    return _op_defs().get(op_type)


def arg_lengths(args, attrs, total):
    """How many flat tensors each input (or output) argument of an OpDef takes, given the node's attrs: a
    `number_attr` arg takes N, a `type_list_attr` arg len(list), others one. An attr still unknown (None) takes
    what the other arguments leave of `total`."""
    lengths = []
    for a in args:
        if a.number_attr:
            lengths.append(attrs.get(a.number_attr))
        elif a.type_list_attr:
            v = attrs.get(a.type_list_attr)
            lengths.append(None if v is None else len(v))
        else:
            lengths.append(1)
    unknown = [i for i, n in enumerate(lengths) if n is None]
    if unknown:
        rest = total - sum(n for n in lengths if n is not None)
        for i in unknown:
            lengths[i] = rest if i == unknown[0] else 0
    return lengths
