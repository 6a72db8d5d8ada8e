"""Issue 18's gradient programs around gather, TensorArrays and devices (grad2_programs.py explains the format).

A gather inside a cond inside a while_loop, gathers whose shapes are known only at run time, TensorArrays whose
writing loop ran zero times (their stack, concat and gradients), what TensorFlow refuses while running (a second
derivative through a v1 TensorArray, concatenating or stacking an empty array of unknown element shape), and a v1
gradient taken under a device scope of a loop whose body is placed on another device.
"""
import numpy as np

from .grad2_registry import grads, program


@program
def gather_in_a_cond_in_a_loop(tf):
    """The issue's example: [0, 4, 0] for x = [1, 2, 3] ('CondContext' object has no attribute '_AddOpInternal')."""
    x = tf.placeholder(tf.float32, [3], name="x")

    def body(i, s):
        return i + 1, tf.cond(i < 2, lambda: s + tf.gather(x * 2.0, 1), lambda: s)

    _, s = tf.while_loop(lambda i, s: i < 3, body, [0, 0.0])
    return {"s": s, "g": grads(tf, s, [x])[0]}, {x: [1.0, 2.0, 3.0]}


@program
def gather_gradient_with_unknown_length(tf):
    """NotImplementedError before: the gathered dimension is known only when the graph runs."""
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.gather(x * x, [0, 1, 1])
    return {"y": y, "g": grads(tf, y, [x])[0]}, {x: [1.0, 2.0, 3.0]}


@program
def gather_gradient_along_an_unknown_axis_length(tf):
    x = tf.placeholder(tf.float32, [2, None], name="x")
    y = tf.gather(x * x, [2, 0], axis=1)
    return {"y": y, "g": grads(tf, y, [x])[0]}, {x: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]}


@program
def gather_gradient_in_a_loop_with_unknown_length(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    _, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + tf.gather(x, i) * tf.gather(x, 2 - i)),
                         [0, 0.0])
    return {"s": s, "g": grads(tf, s, [x])[0]}, {x: [1.0, 2.0, 3.0]}


@program
def transpose_and_tile_gradients_with_unknown_shapes(tf):
    x = tf.placeholder(tf.float32, [None, None], name="x")
    y = tf.tile(tf.transpose(x * x, tf.placeholder_with_default([1, 0], [2])), [2, 1])
    return {"y": y, "g": grads(tf, y, [x])[0]}, {x: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]}


# ---------------------------------------------------------------------------------------------------------------
# TensorArrays written by a loop that ran zero times


def _written_zero_times(tf, element_shape=None, infer_shape=True, dynamic_size=True, size=0):
    x = tf.placeholder(tf.float32, [1, 2], name="x")
    n = tf.placeholder(tf.int32, [], name="n")
    ta = tf.TensorArray(tf.float32, size=size, dynamic_size=dynamic_size, element_shape=element_shape,
                        infer_shape=infer_shape)
    _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, x * 2.0)), [0, ta])
    return x, n, ta


@program
def tensor_array_written_zero_times_stacks_to_zero_rows(tf):
    x, n, ta = _written_zero_times(tf)
    st = ta.stack()
    return {"stack": st, "g": grads(tf, st, [x])[0]}, {x: [[1.0, 2.0]], n: 0}


@program
def tensor_array_written_zero_times_concatenates_to_zero_rows(tf):
    """Shape (0, 2), not (0,): the element shape the writes inferred, without its first dimension."""
    x, n, ta = _written_zero_times(tf)
    c = ta.concat()
    return {"concat": c, "g": grads(tf, c, [x])[0]}, {x: [[1.0, 2.0]], n: 0}


@program
def tensor_array_of_given_shape_written_zero_times(tf):
    x, n, ta = _written_zero_times(tf, element_shape=[None, 2])
    c = ta.concat()
    return {"concat": c, "gather": ta.gather([]), "g": grads(tf, c, [x])[0]}, {x: [[1.0, 2.0]], n: 0}


@program
def tensor_array_of_fixed_size_written_partly(tf):
    """Unwritten elements read as zeros of the shape the writes inferred (TensorArray::SetElemShape)."""
    x, n, ta = _written_zero_times(tf, dynamic_size=False, size=3)
    st = ta.stack()
    return {"stack": st, "g": grads(tf, st, [x])[0]}, {x: [[1.0, 2.0]], n: 1}


@program
def tensor_array_read_in_a_second_zero_trip_loop(tf):
    x, n, ta = _written_zero_times(tf)
    _, s = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + ta.read(i)), [0, tf.zeros([1, 2])])
    return {"s": s, "g": grads(tf, s, [x])[0]}, {x: [[1.0, 2.0]], n: 0}


@program(match={"v1": "element_shape_except0 <unknown> is not fully defined",
                "v2": "All except the first dimension must be fully defined when concating an empty tensor list"})
def empty_tensor_array_of_unknown_shape_cannot_concatenate(tf):
    x, n, ta = _written_zero_times(tf, infer_shape=False)
    return {"concat": ta.concat()}, {x: [[1.0, 2.0]], n: 0}


@program(match={"v1": "TensorArray has size zero, but element shape <unknown> is not fully defined",
                "v2": "Tried to stack elements of an empty list with non-fully-defined element_shape"})
def empty_tensor_array_of_unknown_shape_cannot_stack(tf):
    x, n, ta = _written_zero_times(tf, infer_shape=False)
    return {"stack": ta.stack()}, {x: [[1.0, 2.0]], n: 0}


@program(match={"v1": "Wrong input container. _tensor_array_grads"})
def second_derivative_through_a_tensor_array(tf):
    """v1: TensorArrayGradV3 takes only forward arrays, so the gradient of a gradient array is refused while the
    graph runs; v2's TensorLists have second derivatives."""
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.constant([[0.5, -0.4, 0.2], [0.1, 0.7, -0.3], [-0.6, 0.2, 0.4]])
    ta = tf.TensorArray(tf.float32, size=3).scatter([2, 0, 1], w * x)
    h = tf.reduce_sum(ta.gather([1, 2]), 0) * x
    (g,) = tf.gradients(tf.reduce_sum(h), x)
    (gg,) = tf.gradients(tf.reduce_sum(g * [1.0, 2.0, -1.0]), x)
    return {"h": h, "g": g, "gg": gg}, {x: [0.3, -0.6, 0.8]}


@program(modes=("v2",))
def second_derivative_through_tensor_arrays_in_loops(tf):
    x = tf.placeholder(tf.float64, [3], name="x")
    ta = tf.TensorArray(tf.float64, size=3)
    _, ta = tf.while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, tf.tanh(x * tf.cast(i + 1,
                                                                                                      tf.float64)))),
                          [0, ta])
    _, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * ta.read(i) + x), [0, x])
    (g,) = tf.gradients(tf.reduce_sum(s), x)
    (gg,) = tf.gradients(tf.reduce_sum(g * [1.0, 2.0, -1.0]), x)
    return {"s": s, "g": g, "gg": gg}, {x: [0.3, -0.7, 1.1]}


# ---------------------------------------------------------------------------------------------------------------
# A gradient taken under a device scope, of a loop whose body is placed on another device


def _loop_on_cpu1(tf, scope_the_loop):
    x = tf.placeholder(tf.float32, [2], name="x")

    def body(i, v):
        with tf.device("/cpu:1"):
            return i + 1, tf.tanh(v) * x

    if scope_the_loop:
        with tf.device("/cpu:1"):
            _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.tanh(v) * x), [0, x])
    else:
        _, v = tf.while_loop(lambda i, v: i < 3, body, [0, x])
    with tf.device("/cpu:0"):
        (g,) = tf.gradients(tf.reduce_sum(v), x)
    return {"v": v, "g": g}, {x: [1.0, 2.0]}


@program(cpus=2)
def gradient_under_a_device_scope_of_a_loop_body_on_another_device(tf):
    """v1: 'Cannot colocate nodes ... Cannot merge devices with incompatible ids' before; TensorFlow places the
    history stack's pushes and pops with the stack (a resource edge overrides the consumer's device request)."""
    return _loop_on_cpu1(tf, scope_the_loop=False)


@program(cpus=2)
def gradient_under_a_device_scope_of_a_loop_on_another_device(tf):
    return _loop_on_cpu1(tf, scope_the_loop=True)


@program(match={"v1": "TensorArray has size zero, but element shape <unknown> is not fully defined"})
def map_fn_gradient_over_an_empty_tensor(tf):
    """v1 refuses while running: the gradient array's gather of nothing has no element shape (it learnt none from
    writes that never ran); v2's lists have one."""
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    r = tf.map_fn(lambda e: e * e, x)
    return {"r": r, "g": grads(tf, r, [x])[0]}, {x: np.zeros([0, 2], np.float32)}


@program
def gradient_of_a_split_then_written_past_its_end(tf):
    """TensorFlow's testSkipEagerTensorArraySplitDynamic: split into a dynamic array, write index 3, concat. v1's
    split gradient concatenates the gradient array's first 3 elements, the size the split left (TensorArraySplitOp's
    SetMarkedSize, a gradient array's PackOrConcatSize); cfnb concatenated all 4, a gradient of shape (4,)."""
    value = tf.placeholder(tf.float32, [3], name="value")
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=False)
    ta = ta.split(value, tf.constant([1, 1, 1], dtype=tf.int64)).write(3, tf.constant([4.0]))
    out = ta.concat()
    (g,) = tf.gradients(out * [1.0, -0.5, 2.0, 3.0], value)
    return {"out": out, "g": g}, {value: [1.0, 2.0, 3.0]}


@program(match={"v1": "Tried to write to index 3 but array is not resizeable and size is: 3",
                "v2": "Trying to modify element 3 in a list with 3 elements"})
def write_past_the_end_of_a_fixed_size_array(tf):
    """TensorFlow's testTensorArrayWriteWrongIndexOrDataTypeFails: TensorArray::LockedWriteOrAggregate's words."""
    ta = tf.TensorArray(tf.float32, size=3, tensor_array_name="foo")
    return {"r": ta.write(3, 3.0).read(0)}, {}


@program(match={"v1": "because the existing shape is [] but the new input shape is [1]"}, modes=("v1",))
def gradient_array_writes_of_two_shapes_to_one_index(tf):
    """A gradient TensorArray adds writes to one index (testSkipEagerTensorArrayWriteGradientAddMultipleAdds, v1:
    v2 has no TensorArray.grad), and refuses two of different shapes, naming the array (`foo_<n>`)."""
    ta = tf.TensorArray(tf.float32, size=3, tensor_array_name="foo", infer_shape=False)
    g = ta.grad("grad")
    added = g.write(2, 3.0).write(2, 4.0).write(2, 5.0).read(2)
    return {"added": added, "r": g.write(1, 1.0).write(1, [1.0]).read(1)}, {}


@program(modes=("v1",))
def empty_array_stacked_after_an_unused_unstack(tf):
    """TensorFlow's testSkipEagerTensorArrayEvalEmptyWithDefault: v1 arrays share their element shape, so an unstack
    whose result is dropped (`mark_used()`) still tells the empty array its shape: stack [0, 3, 5], concat [0, 5]."""
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=False, infer_shape=True)
    ta.unstack(tf.zeros([0, 3, 5])).mark_used()
    return {"packed": ta.stack(), "concatenated": ta.concat(), "size": ta.size()}, {}
