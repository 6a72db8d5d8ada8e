"""cfnb ops written as TensorFlow writes them: StridedSlice (and its gradient), TensorListConcatV2.

cfnb keeps `t[1:3, i]` as one StridedSlice op whose attrs hold the Python index (`spec`) and whose extra inputs are
the tensor bounds; TensorFlow's StridedSlice takes `begin`, `end` and `strides` as int32 tensors and five bit masks
(`tensor_getitem_override.py::_slice_helper`): an omitted start sets `begin_mask`, an omitted stop `end_mask`, an
integer index is `[i, i + 1)` with `shrink_axis_mask`, `None` sets `new_axis_mask` and `...` `ellipsis_mask`. On
export the cfnb form is written as TensorFlow builds it: Const (or, with tensor bounds, Pack) nodes `<name>/stack`,
`<name>/stack_1`, `<name>/stack_2`, then the StridedSlice (or StridedSliceGrad) reading them.
"""
import numpy as np

from ..framework import dtypes, nest
from ..ops.string_format import Slot
from .attrs import attr_value
from .export_nodes import add_node, node_attrs


def tf_slice_args(spec, tensor_slots):
    """(begin, end, strides, masks) for a cfnb spec: each entry an int, ("t", k) for dynamic input k, or
    ("t+1", k) for dynamic input k plus one."""
    dyn = {tuple(slot): k for k, slot in enumerate(tensor_slots)}
    begin, end, strides = [], [], []
    masks = dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), 0)
    for pos, item in enumerate(spec):
        bit = 1 << pos
        if item is None or item is Ellipsis:
            b, e, s = 0, 0, 1
            masks["new_axis_mask" if item is None else "ellipsis_mask"] |= bit
        elif isinstance(item, slice):
            b = ("t", dyn[pos, "start"]) if (pos, "start") in dyn else item.start
            e = ("t", dyn[pos, "stop"]) if (pos, "stop") in dyn else item.stop
            s = ("t", dyn[pos, "step"]) if (pos, "step") in dyn else (1 if item.step is None else item.step)
            if b is None:
                b, masks["begin_mask"] = 0, masks["begin_mask"] | bit
            if e is None:
                e, masks["end_mask"] = 0, masks["end_mask"] | bit
        else:
            if (pos, "index") in dyn:
                b, e = ("t", dyn[pos, "index"]), ("t+1", dyn[pos, "index"])
            else:
                b, e = int(item), int(item) + 1
            s = 1
            masks["shrink_axis_mask"] |= bit
        begin.append(b)
        end.append(e)
        strides.append(s)
    return begin, end, strides, masks


def _anchor(op, input_name, ref):
    """Control inputs for a Const an expansion adds: in a graph, the op's first data input, so the Const runs in
    that input's while frame (TensorFlow's rule: a node in a loop body must hear from the frame); in a function
    (no frames) none."""
    if ref("n", "output") != "n" or not op.inputs:
        return []
    return [input_name(op.inputs[0]).split(":")[0]]


def _const(nodes, name, value, device, anchor):
    value = np.asarray(value)
    add_node(nodes, name, "Const", [], device, {"value": attr_value(value, "tensor"),
                                                "dtype": attr_value(dtypes.as_dtype(value.dtype))}, anchor)


def _vector(nodes, name, entries, dynamic, input_name, ref, device, anchor=()):
    """One int32 vector input: a Const when every entry is static, else a Pack of scalars."""
    if all(isinstance(v, (int, np.integer)) for v in entries):
        _const(nodes, name, np.array(entries, np.int32), device, anchor)
        return ref(name, "output")
    parts = []
    for k, v in enumerate(entries):
        if isinstance(v, tuple):
            t = input_name(dynamic[v[1]])
            if v[0] == "t+1":
                one = f"{name}/add_{k}/y"
                _const(nodes, one, np.int32(1), device, anchor)
                add_node(nodes, f"{name}/add_{k}", "AddV2", [t, ref(one, "output")], device,
                         {"T": attr_value(dtypes.int32)})
                t = ref(f"{name}/add_{k}", "z")
            parts.append(t)
        else:
            const = f"{name}/values_{k}"
            _const(nodes, const, np.int32(v), device, anchor)
            parts.append(ref(const, "output"))
    add_node(nodes, name, "Pack", parts, device, {"T": attr_value(dtypes.int32), "N": attr_value(len(parts), "int"),
                                                  "axis": attr_value(0, "int")})
    return ref(name, "output")


def _expand(op, nodes, input_name, ref, controls, grad):
    if "spec" not in op.attr:
        return False  # already TensorFlow's form (an imported graph)
    begin, end, strides, masks = tf_slice_args(op.get_attr("spec"), op.get_attr("tensor_slots"))
    dynamic = list(op.inputs[1:-1] if grad else op.inputs[1:])
    anchor = _anchor(op, input_name, ref)
    names = [_vector(nodes, f"{op.name}/stack{sfx}", v, dynamic, input_name, ref, op.device, anchor)
             for sfx, v in (("", begin), ("_1", end), ("_2", strides))]
    first, data = op.inputs[0], op.inputs[-1] if grad else op.inputs[0]
    inputs = ([input_name(first)] + names + [input_name(data)]) if grad else ([input_name(data)] + names)
    attrs = {"T": attr_value(data.dtype), "Index": attr_value(dtypes.int32)}
    attrs.update({k: attr_value(v, "int") for k, v in masks.items()})
    add_node(nodes, op.name, op.type, inputs, op.device, attrs, controls)
    return True


def _list_concat(op, nodes, input_name, ref, controls):
    """cfnb's TensorListConcatV2 has no `leading_dims` input (TensorFlow's third, an empty int64 vector
    when the elements' leading dimension is known): written with a Const for it."""
    if len(op.inputs) != 2:
        return False
    const = f"{op.name}/leading_dims"
    _const(nodes, const, np.zeros([0], np.int64), op.device, _anchor(op, input_name, ref))
    add_node(nodes, op.name, op.type, [input_name(t) for t in op.inputs] + [ref(const, "output")], op.device,
             node_attrs(op), controls)
    return True


def _t(dtype):
    return attr_value(dtype)


def _reduced_shape(op, nodes, input_name, ref, controls):
    """cfnb's ReducedShape(input_shape, axes) is one op for what TensorFlow's `math_ops.reduced_shape` builds:
    DynamicStitch([range(rank), axes % rank], [input_shape, ones]); an Identity keeps cfnb's name."""
    n, dev, anchor = op.name, op.device, _anchor(op, input_name, ref)
    shape, axes = (input_name(t) for t in op.inputs)
    i32 = {"T": _t(dtypes.int32)}
    add_node(nodes, f"{n}/Size", "Size", [shape], dev, {**i32, "out_type": _t(dtypes.int32)})
    add_node(nodes, f"{n}/add", "AddV2", [axes, ref(f"{n}/Size", "output")], dev, i32)
    add_node(nodes, f"{n}/mod", "FloorMod", [ref(f"{n}/add", "z"), ref(f"{n}/Size", "output")], dev, i32)
    _const(nodes, f"{n}/range/start", np.int32(0), dev, anchor)
    _const(nodes, f"{n}/range/delta", np.int32(1), dev, anchor)
    add_node(nodes, f"{n}/range", "Range", [ref(f"{n}/range/start", "output"), ref(f"{n}/Size", "output"),
                                           ref(f"{n}/range/delta", "output")], dev, {"Tidx": _t(dtypes.int32)})
    add_node(nodes, f"{n}/Shape", "Shape", [ref(f"{n}/mod", "z")], dev, {**i32, "out_type": _t(dtypes.int32)})
    _const(nodes, f"{n}/Fill/value", np.int32(1), dev, anchor)
    add_node(nodes, f"{n}/Fill", "Fill", [ref(f"{n}/Shape", "output"), ref(f"{n}/Fill/value", "output")], dev,
             {**i32, "index_type": _t(dtypes.int32)})
    add_node(nodes, f"{n}/DynamicStitch", "DynamicStitch",
             [ref(f"{n}/range", "output"), ref(f"{n}/mod", "z"), shape, ref(f"{n}/Fill", "output")], dev,
             {**i32, "N": attr_value(2, "int")})
    add_node(nodes, n, "Identity", [ref(f"{n}/DynamicStitch", "merged")], dev, i32, controls)
    return True


def _split_v(op, nodes, input_name, ref, controls):
    """cfnb's SplitV keeps its sizes and axis as attrs; TensorFlow's takes them as int32 Const inputs."""
    if len(op.inputs) != 1:
        return False
    anchor = _anchor(op, input_name, ref)
    _const(nodes, f"{op.name}/size_splits", np.array(op.get_attr("sizes"), np.int32), op.device, anchor)
    _const(nodes, f"{op.name}/split_dim", np.int32(op.get_attr("axis")), op.device, anchor)
    add_node(nodes, op.name, "SplitV", [input_name(op.inputs[0]), ref(f"{op.name}/size_splits", "output"),
                                        ref(f"{op.name}/split_dim", "output")], op.device,
             {"T": _t(op.inputs[0].dtype), "Tlen": _t(dtypes.int32), "num_split": attr_value(len(op.outputs), "int")},
             controls)
    return True


def _concat_grad_split(op, nodes, input_name, ref, controls):
    """cfnb's ConcatGradSplit(grad, *shapes) is TensorFlow's concat gradient: ConcatOffset of the shapes, one
    Slice of grad per input; an IdentityN keeps cfnb's name and output numbering."""
    n, dev, anchor = op.name, op.device, _anchor(op, input_name, ref)
    grad, shapes = input_name(op.inputs[0]), [input_name(t) for t in op.inputs[1:]]
    _const(nodes, f"{n}/axis", np.int32(op.get_attr("axis")), dev, anchor)
    add_node(nodes, f"{n}/ConcatOffset", "ConcatOffset", [ref(f"{n}/axis", "output")] + shapes, dev,
             {"N": attr_value(len(shapes), "int"), "shape_type": _t(op.inputs[1].dtype)})
    slices = []
    for k, s in enumerate(shapes):
        offset = f"{n}/ConcatOffset:{k}" if ref("n", "output") == "n" else f"{n}/ConcatOffset:offset:{k}"
        add_node(nodes, f"{n}/Slice_{k}", "Slice", [grad, offset, s], dev,
                 {"T": _t(op.inputs[0].dtype), "Index": _t(op.inputs[1].dtype)})
        slices.append(ref(f"{n}/Slice_{k}", "output"))
    add_node(nodes, n, "IdentityN", slices, dev, {"T": attr_value([op.inputs[0].dtype] * len(slices), "list(type)")},
             controls)
    return True


class _Mark:
    """A Slot while a template is written: shows as a character no argument text holds."""

    def __repr__(self):
        return "\x00"


def _has_dict(x):
    return isinstance(x, dict) or (isinstance(x, (list, tuple)) and any(_has_dict(v) for v in x))


def _string_format(op, nodes, input_name, ref, controls):
    """cfnb's StringFormat keeps the print call's arguments as a structure of strings and Slots (ops/string_format.py);
    TensorFlow's takes one template string with a placeholder per input, as `tf.print` writes it: each argument as
    cfnb renders it, the placeholder where a value goes, joined with `sep` ("{}", or a longer one when an argument's
    text holds "{}"). A structure holding a dict, whose slots print in another order, is written as it is."""
    template = op.get_attr("template")
    if _has_dict(template):
        return False
    pieces = [arg if isinstance(arg, str) else str(nest.map_structure(
        lambda v: _Mark() if isinstance(v, Slot) else v, arg)) if nest.is_nested(arg) else
        ("\x00" if isinstance(arg, Slot) else str(arg)) for arg in template]
    text = op.get_attr("sep").join(pieces)
    placeholder = "{}"
    while placeholder in text:
        placeholder = "{" + placeholder + "}"
    add_node(nodes, op.name, "StringFormat", [input_name(t) for t in op.inputs], op.device,
             {"T": attr_value([t.dtype for t in op.inputs], "list(type)"),
              "template": attr_value(text.replace("\x00", placeholder), "string"),
              "placeholder": attr_value(placeholder, "string"),
              "summarize": attr_value(op.get_attr("summarize"), "int")}, controls)
    return True


# op type -> fn(op, nodes, input_name, node_ref, control input names): True when it wrote the op itself.
EXPANSIONS = {"StridedSlice": lambda *a: _expand(*a, grad=False),
              "StridedSliceGrad": lambda *a: _expand(*a, grad=True),
              "TensorListConcatV2": _list_concat,
              "ReducedShape": _reduced_shape,
              "SplitV": _split_v,
              "ConcatGradSplit": _concat_grad_split,
              "StringFormat": _string_format}
