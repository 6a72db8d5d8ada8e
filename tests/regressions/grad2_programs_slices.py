"""Issue 18's programs for IndexedSlices through control flow (grad2_programs.py explains the format).

TensorFlow carries an IndexedSlices through `cond` and `while_loop` as its component tensors (values, indices and,
when known, dense_shape: `nest.flatten(..., expand_composites=True)`), casts int32 and int64 indices of two branches
to int64 (`cond._cast_indexed_slice_indices`, cond_v2's `_make_indexed_slices_indices_types_match`), and in v2 the
gradient of an If whose branch gathers is an IndexedSlices (`_make_output_composite_tensors_match`). A session
fetches an IndexedSlices as its parts, so each program fetches the parts (and the gradient made dense).
"""
from .grad2_registry import program


def _slices(tf, r, prefix=""):
    out = {prefix + "values": r.values, prefix + "indices": r.indices}
    if r.dense_shape is not None:
        out[prefix + "dense_shape"] = r.dense_shape
    return out


def _cond_of_slices(tf, taken):
    pred = tf.placeholder(tf.bool, [], name="pred")
    values = tf.placeholder(tf.float32, [2, 2], name="values")
    x = tf.IndexedSlices(values, tf.constant([0, 3]), tf.constant([5, 2]))
    r = tf.cond(pred, lambda: tf.IndexedSlices(x.values * 3.0, x.indices, x.dense_shape),
                lambda: tf.IndexedSlices(x.values - 1.0, x.indices + 1, x.dense_shape))
    out = _slices(tf, r)
    out.update(dense=tf.convert_to_tensor(r), g=tf.gradients(tf.reduce_sum(r.values * r.values), values)[0])
    return out, {pred: taken, values: [[1.0, 2.0], [3.0, 4.0]]}


@program
def cond_of_indexed_slices_true(tf):
    return _cond_of_slices(tf, True)


@program
def cond_of_indexed_slices_false(tf):
    return _cond_of_slices(tf, False)


@program
def cond_of_indexed_slices_with_int32_and_int64_indices(tf):
    """TensorFlow's testCondIndexedSlicesDifferentTypes, no dense_shape: both indices become int64."""
    values = tf.constant([10])
    i_32 = tf.convert_to_tensor([0], name="one", dtype=tf.int32)
    i_64 = tf.convert_to_tensor([1], name="one", dtype=tf.int64)
    pred = tf.placeholder(tf.bool, [], name="pred")
    r = tf.cond(pred, lambda: tf.IndexedSlices(values + 1, i_32), lambda: tf.IndexedSlices(values - 1, i_64))
    return _slices(tf, r), {pred: False}


def _loop_of_slices(tf, shape_invariants=None):
    values = tf.placeholder(tf.float32, [2, 2], name="values")
    x = tf.IndexedSlices(values, tf.constant([0, 3]), tf.constant([10, 2]))
    _, r = tf.while_loop(lambda i, _: i < 3,
                         lambda i, x: [i + 1, tf.IndexedSlices(tf.sin(x.values) * 2.0, x.indices, x.dense_shape)],
                         [tf.constant(0), x], shape_invariants)
    out = _slices(tf, r)
    out["g"] = tf.gradients(tf.reduce_sum(r.values), values)[0]
    return out, {values: [[0.5, 1.0], [-0.25, 2.0]]}


@program
def while_loop_of_indexed_slices(tf):
    """TensorFlow's testWhileGrad_IndexedSlices and testWhileShapeInferenceIndexedSlices, with a sin in the body."""
    return _loop_of_slices(tf)


@program
def while_loop_of_indexed_slices_with_a_shape_invariant(tf):
    """The invariant is the dense shape: values [None, 2], indices [None], dense_shape [2]."""
    return _loop_of_slices(tf, [tf.TensorShape([]), tf.TensorShape([None, 2])])


def _cond_gather_gradient(tf, c_value):
    v = tf.placeholder(tf.float32, [2], name="v")
    c = tf.placeholder(tf.int32, shape=[], name="c")
    r = tf.cond(tf.less(c, 2), lambda: tf.identity(v) * v, lambda: tf.gather(v, [1, 1]) * 3.0)
    (g,) = tf.gradients(r, [v])
    (gg,) = tf.gradients(tf.reduce_sum(tf.convert_to_tensor(g) * v * v), [v])
    return {"r": r, "g": tf.convert_to_tensor(g), "gg": tf.convert_to_tensor(gg)}, {v: [1.0, 42.0], c: c_value}


@program
def cond_gradient_of_gather_taken(tf):
    """TensorFlow's testCondGrad_Gather: in v2 the gradient is an IndexedSlices (the identity branch's dense
    gradient made slices of all its rows); the second derivative goes through it."""
    return _cond_gather_gradient(tf, 3)


@program
def cond_gradient_of_gather_not_taken(tf):
    return _cond_gather_gradient(tf, 1)


@program(modes=("v2",))
def gather_gradient_of_a_cond_in_a_loop(tf):
    """A v2 If gradient that is an IndexedSlices inside a While's gradient body: made dense there, as while_v2 does.
    (TensorFlow 2.21's v1 fails this one at run time: "data.shape = [19] does not start with segment_ids.shape =
    [15]", the slices of the four iterations gathered unevenly; cfnb's v1 is not compared with that.)"""
    x = tf.placeholder(tf.float32, [3], name="x")

    def body(i, s):
        return i + 1, s + tf.cond(i < 2, lambda: tf.gather(x, i) * tf.gather(x, 2 - i), lambda: tf.gather(x, 0))

    _, s = tf.while_loop(lambda i, s: i < 4, body, [0, 0.0])
    (g,) = tf.gradients(s, [x])
    return {"s": s, "g": tf.convert_to_tensor(g)}, {x: [1.0, 2.0, 3.0]}
