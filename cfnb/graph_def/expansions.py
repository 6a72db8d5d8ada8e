"""cfnb ops written as TensorFlow writes them: StridedSlice (and its gradient), TensorListConcatV2.

cfnb keeps `t[1:3, i]` as one StridedSlice op whose attrs hold the Python index (`spec`) and whose extra
inputs are the tensor bounds; TensorFlow's StridedSlice takes `begin`, `end` and `strides` as int32 tensors and
five bit masks (`array_ops._slice_helper`): an omitted start sets `begin_mask`, an omitted stop `end_mask`, an
integer index is `[i, i + 1)` with `shrink_axis_mask`, `None` sets `new_axis_mask` and `...` `ellipsis_mask`.
On export the cfnb form is written as TensorFlow builds it: Const (or, with tensor bounds, Pack) nodes
`<name>/stack`, `<name>/stack_1`, `<name>/stack_2`, then the StridedSlice (or StridedSliceGrad) reading them.
"""
import numpy as np

from ..framework import dtypes
from .attrs import attr_value
from .export_nodes import add_node


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


def _vector(nodes, name, entries, dynamic, input_name, ref, device):
    """One int32 vector input: a Const when every entry is static, else a Pack of scalars."""
    if all(isinstance(v, (int, np.integer)) for v in entries):
        add_node(nodes, name, "Const", [], device,
                 {"value": attr_value(np.array(entries, np.int32), "tensor"), "dtype": attr_value(dtypes.int32)})
        return ref(name, "output")
    parts = []
    for k, v in enumerate(entries):
        if isinstance(v, tuple):
            t = input_name(dynamic[v[1]])
            if v[0] == "t+1":
                one = f"{name}/add_{k}/y"
                add_node(nodes, one, "Const", [], device, {"value": _scalar(1), "dtype": attr_value(dtypes.int32)})
                add_node(nodes, f"{name}/add_{k}", "AddV2", [t, ref(one, "output")], device,
                         {"T": attr_value(dtypes.int32)})
                t = ref(f"{name}/add_{k}", "z")
            parts.append(t)
        else:
            const = f"{name}/values_{k}"
            add_node(nodes, const, "Const", [], device, {"value": _scalar(v), "dtype": attr_value(dtypes.int32)})
            parts.append(ref(const, "output"))
    add_node(nodes, name, "Pack", parts, device, {"T": attr_value(dtypes.int32), "N": attr_value(len(parts), "int"),
                                                  "axis": attr_value(0, "int")})
    return ref(name, "output")


def _scalar(v):
    return attr_value(np.int32(v), "tensor")


def _expand(op, nodes, input_name, ref, controls, grad):
    if "spec" not in op.attr:
        return False  # already TensorFlow's form (an imported graph)
    begin, end, strides, masks = tf_slice_args(op.get_attr("spec"), op.get_attr("tensor_slots"))
    dynamic = list(op.inputs[1:-1] if grad else op.inputs[1:])
    names = [_vector(nodes, f"{op.name}/stack{sfx}", v, dynamic, input_name, ref, op.device)
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
    from .export import node_attrs
    const = f"{op.name}/leading_dims"
    add_node(nodes, const, "Const", [], op.device, {"value": attr_value(np.zeros([0], np.int64), "tensor"),
                                                    "dtype": attr_value(dtypes.int64)})
    add_node(nodes, op.name, op.type, [input_name(t) for t in op.inputs] + [ref(const, "output")], op.device,
             node_attrs(op), controls)
    return True


# op type -> fn(op, nodes, input_name, node_ref, control input names): True when it wrote the op itself.
EXPANSIONS = {"StridedSlice": lambda *a: _expand(*a, grad=False),
              "StridedSliceGrad": lambda *a: _expand(*a, grad=True),
              "TensorListConcatV2": _list_concat}
