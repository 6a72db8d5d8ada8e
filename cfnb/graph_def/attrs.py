"""Attribute values between cfnb and TensorFlow's `AttrValue`: dtypes, shapes, tensors, functions, lists.

TensorFlow's rules are kept: a dimension of unknown size is -1 and an unknown rank is `unknown_rank: true`
(`TensorShapeProto`); a constant's scalar is stored in the typed `*_val` field and a larger array as raw
little-endian bytes in `tensor_content` (`tensor_util.make_tensor_proto`); a `*_val` shorter than the shape is
filled with its last element (`tensor_util.MakeNdarray`).
"""
import numpy as np

from ..framework import dtypes
from ..framework.func_graph import FuncGraph
from ..framework.tensor_shape import TensorShape
from .protos import dtype_of, pb, type_enum

# TensorProto's typed value field per dtype.
_VAL_FIELD = {"float16": "half_val", "bfloat16": "half_val", "float32": "float_val", "float64": "double_val",
              "int32": "int_val", "int64": "int64_val", "bool": "bool_val", "string": "string_val"}


def shape_proto(shape, proto=None):
    """A TensorShape as TensorFlow's `TensorShapeProto`: unknown dimensions are -1, an unknown rank is
    `unknown_rank`, and a scalar's shape is an empty message that is present."""
    proto = proto if proto is not None else pb().TensorShapeProto()
    proto.SetInParent()  # a scalar's shape is an empty message, present: `tensor_shape {}`
    shape = TensorShape(shape) if not isinstance(shape, TensorShape) else shape
    if shape.ndims is None:
        proto.unknown_rank = True
    else:
        for d in shape.as_list():
            proto.dim.add(size=-1 if d is None else int(d))
    return proto


def shape_of(proto):
    """A `TensorShapeProto` as a TensorShape (the inverse of `shape_proto`)."""
    if proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else d.size for d in proto.dim])


def tensor_proto(value, dtype=None, proto=None):
    """numpy value -> TensorProto, as `make_tensor_proto` lays it out."""
    dtype = dtypes.as_dtype(dtype if dtype is not None else np.asarray(value).dtype)
    if dtype.name not in _VAL_FIELD:
        raise TypeError(f"TensorFlow has no TensorProto for a constant of dtype {dtype.name}")
    proto = proto if proto is not None else pb().TensorProto()
    arr = np.asarray(value, dtype=dtype.as_numpy_dtype)
    proto.dtype = type_enum(dtype)
    shape_proto(TensorShape(list(arr.shape)), proto.tensor_shape)
    if dtype.name == "string":
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in arr.reshape(-1))
    elif arr.size == 1:
        v = arr.reshape(-1)[0]
        if dtype.name in ("float16", "bfloat16"):  # both keep their 16 bits in half_val, as TensorFlow does
            proto.half_val.append(int(v.view(np.uint16)))
        else:
            getattr(proto, _VAL_FIELD[dtype.name]).append(v.item())
    elif arr.size > 1:
        proto.tensor_content = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
    return proto


def tensor_value(proto):
    """TensorProto -> numpy array (`tensor_util.MakeNdarray`)."""
    dtype = dtype_of(proto.dtype)
    shape = shape_of(proto.tensor_shape).as_list()
    size = int(np.prod(shape)) if shape else 1
    npd = np.dtype(dtype.as_numpy_dtype)
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=npd.newbyteorder("<")).astype(npd).reshape(shape)
    if dtype.name == "string":
        values = np.array(list(proto.string_val), dtype=object)
    elif dtype.name in ("float16", "bfloat16"):
        values = np.array(list(proto.half_val), dtype=np.uint16).view(npd)
    else:
        values = np.array(list(getattr(proto, _VAL_FIELD[dtype.name])), dtype=npd)
    if values.size == 0:
        return np.zeros(shape, dtype=npd)
    if values.size < size:
        values = np.concatenate([values, np.full(size - values.size, values[-1], dtype=values.dtype)])
    return values.reshape(shape)


def _is_function(v):
    return isinstance(v, FuncGraph)


def attr_value(value, kind=None):
    """A Python attr value (cfnb's) -> AttrValue; `kind` is the OpDef's attr type ("type", "list(int)", ...)
    when known, else it is read off the value."""
    p = pb()
    out = p.AttrValue()
    if kind is None:
        kind = _kind_of(value)
    if kind.startswith("list("):
        inner = kind[5:-1]
        out.list.SetInParent()
        for v in value:
            if inner == "type":
                out.list.type.append(type_enum(v))
            elif inner == "shape":
                shape_proto(v, out.list.shape.add())
            elif inner == "int":
                out.list.i.append(int(v))
            elif inner == "float":
                out.list.f.append(float(v))
            elif inner == "bool":
                out.list.b.append(bool(v))
            elif inner == "string":
                out.list.s.append(v if isinstance(v, bytes) else str(v).encode())
            elif inner == "func":
                out.list.func.add(name=v.name)
            elif inner == "tensor":
                tensor_proto(v, proto=out.list.tensor.add())
        return out
    if kind == "type":
        out.type = type_enum(value)
    elif kind == "shape":
        shape_proto(value, out.shape)
    elif kind == "int":
        out.i = int(value)
    elif kind == "float":
        out.f = float(value)
    elif kind == "bool":
        out.b = bool(value)
    elif kind == "string":
        out.s = value if isinstance(value, bytes) else str(value).encode()
    elif kind == "tensor":
        tensor_proto(value, proto=out.tensor)
    elif kind == "func":
        out.func.name = value.name
    else:
        raise TypeError(f"cannot write an attr of kind {kind!r}")
    return out


def _kind_of(value):
    if isinstance(value, dtypes.DType):
        return "type"
    if isinstance(value, TensorShape):
        return "shape"
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, (str, bytes)):
        return "string"
    if isinstance(value, np.ndarray):
        return "tensor"
    if _is_function(value):
        return "func"
    if isinstance(value, (list, tuple)):
        return f"list({_kind_of(value[0]) if value else 'int'})"
    raise TypeError(f"cannot write an attr value {value!r}")


def python_value(attr, functions):
    """AttrValue -> cfnb's Python value; `functions(name)` gives the FuncGraph of a `func` attr."""
    which = attr.WhichOneof("value")
    if which == "list":
        lst = attr.list
        for field, convert in (("type", dtype_of), ("shape", shape_of), ("i", int), ("f", float), ("b", bool),
                               ("s", lambda s: s.decode()), ("tensor", tensor_value),
                               ("func", lambda f: functions(f.name))):
            if len(getattr(lst, field)):
                return [convert(v) for v in getattr(lst, field)]
        return []
    if which == "type":
        return dtype_of(attr.type)
    if which == "shape":
        return shape_of(attr.shape)
    if which == "tensor":
        return tensor_value(attr.tensor)
    if which == "func":
        return functions(attr.func.name)
    if which == "s":
        return attr.s.decode(errors="replace")
    if which in ("i", "f", "b"):
        return getattr(attr, which)
    return None
