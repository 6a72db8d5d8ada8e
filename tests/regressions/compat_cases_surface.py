"""Compat cases: the tf.compat.v1 surface TensorFlow's control-flow tests use, and a few of those tests,
ported (rewritten) from control_flow_ops_py_test.py and variable_scope_test.py."""
import numpy as np

from .compat_registry import case


# --- The tf.compat.v1 surface the control-flow tests use --------------------------------------------
def _slices(tf, s, env, dense_only=False):
    """An IndexedSlices as data: its type name and its three parts, fetched. `dense_only`: just its dense
    value (TensorFlow keeps IndexedSlices through v1 loops and cond_v2 gradients, where cfnb densifies, so
    there only the values are compared)."""
    if dense_only:
        return {"dense": env.run(tf.convert_to_tensor(s))}
    if not hasattr(s, "indices"):
        return {"type": "Tensor", "dense": env.run(s)}
    parts = [s.values, s.indices] + ([s.dense_shape] if s.dense_shape is not None else [])
    return {"type": type(s).__name__, "parts": env.run(parts)}


@case()
def indexed_slices_from_gather_gradient(tf, env):
    p = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = tf.reduce_sum(tf.gather(p, [2, 0, 2]) * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    (g,) = tf.gradients(y, p)
    return [_slices(tf, g, env), env.run(tf.convert_to_tensor(g)), env.run(g * 1.0 if not hasattr(g, "indices")
                                                                       else tf.multiply(g.values, 2.0))]


@case()
def indexed_slices_aggregated_with_dense(tf, env):
    p = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = tf.reduce_sum(tf.gather(p, [1])) + tf.reduce_sum(p * p)
    (g,) = tf.gradients(y, p)
    return _slices(tf, g, env)


@case()
def indexed_slices_two_gathers(tf, env):
    p = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = tf.reduce_sum(tf.gather(p, [1])) + tf.reduce_sum(tf.gather(p, [0, 1]) * 2.0)
    (g,) = tf.gradients(y, p)
    return _slices(tf, g, env)


@case()
def indexed_slices_through_cond(tf, env):
    p = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    r = tf.cond(tf.constant(True), lambda: tf.gather(p, [2, 0]), lambda: tf.gather(p, [1, 1]))
    (g,) = tf.gradients(tf.reduce_sum(r * 3.0), p)
    # v1: IndexedSlices through the cond's Switch/Merge gradients, as TensorFlow builds them (the untaken
    # side's zeros as slices of every row); v2: cfnb's If gradient densifies where TensorFlow keeps slices.
    return _slices(tf, g, env, dense_only=env.v2)


@case()
def indexed_slices_loop_variable_gathered(tf, env):
    p = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    _, _, acc = tf.while_loop(lambda i, q, a: i < 3,
                              lambda i, q, a: (i + 1, q * 2.0, a + tf.reduce_sum(tf.gather(q, [i]))),
                              [0, p, tf.constant(0.0)])
    (g,) = tf.gradients(acc, p)
    return _slices(tf, g, env, dense_only=True)


@case()
def indexed_slices_through_while(tf, env):
    p = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    _, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + tf.reduce_sum(tf.gather(p, [i]))),
                           [0, tf.constant(0.0)])
    (g,) = tf.gradients(acc, p)
    # v2 densifies the gradient of a loop invariant as TensorFlow's while_v2 does; v1 TensorFlow keeps slices.
    return [_slices(tf, g, env, dense_only=True), _slices(tf, g, env) if env.v2 else "v1: values only"]


@case()
def indexed_slices_constructed(tf, env):
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([2, 0]), tf.constant([3, 2]))
    return [_slices(tf, s, env), env.run(tf.convert_to_tensor(s)), str(s.dtype.name), s.dense_shape is not None]


@case()
def variable_scope_names_and_reuse(tf, env):
    with tf.variable_scope("outer"):
        with tf.variable_scope("inner"):
            v = tf.get_variable("v", [], initializer=tf.constant_initializer(3.0))
            w = v * 2.0
    with tf.variable_scope("outer/inner", reuse=True):
        v2 = tf.get_variable("v")
    with tf.variable_scope("outer", reuse=tf.AUTO_REUSE):
        u = tf.get_variable("u", [], initializer=tf.constant_initializer(1.0))
        u2 = tf.get_variable("u", [], initializer=tf.constant_initializer(1.0))
    names = [v.name, w.name, v2.name, u.name, v is v2, u is u2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return names + [sess.run([w, v2])]


@case(key={"v1": "already exists", "v2": "already exists"})
def variable_scope_duplicate(tf, env):
    with tf.variable_scope("s"):
        tf.get_variable("v", [], initializer=tf.constant_initializer(3.0))
        tf.get_variable("v", [], initializer=tf.constant_initializer(3.0))


@case()
def variable_updates(tf, env):
    v = tf.get_variable("v", [3], initializer=tf.constant_initializer(1.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a = sess.run(tf.assign(v, [1.0, 2.0, 3.0]))
        b = sess.run(tf.assign_add(v, [1.0, 1.0, 1.0]))
        c = sess.run(tf.assign_sub(v, [0.5, 0.5, 0.5]))
        d = sess.run(tf.scatter_update(v, [0, 2], [10.0, 30.0]))
        e = sess.run(v.assign_add([1.0, 1.0, 1.0]))
        return [a, b, c, d, e, sess.run(v)]


@case()
def variable_updates_in_loop(tf, env):
    v = tf.get_variable("v", [], initializer=tf.constant_initializer(0.0))

    def body(i):
        with tf.control_dependencies([tf.assign_add(v, 2.0)]):
            return i + 1
    r = tf.while_loop(lambda i: i < 5, body, [0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return [sess.run(r), sess.run(v)]


@case()
def slicing_ops(tf, env):
    x = tf.reshape(tf.range(24), [2, 3, 4])
    return env.run([tf.slice(x, [0, 1, 1], [2, 2, 2]), tf.slice(x, [1, 0, 0], [-1, -1, 2]),
                    tf.strided_slice(x, [0, 0, 0], [2, 3, 4], [1, 2, 2]),
                    tf.strided_slice(x, [1, 2], [2, 0], [1, -1]),
                    tf.strided_slice(x, [0, 0, 0], [0, 0, 0], [1, 1, 1], begin_mask=7, end_mask=7, shrink_axis_mask=1),
                    tf.tile(tf.constant([[1, 2]]), [2, 3])])


@case()
def slicing_ops_static_shapes(tf, env):
    x = tf.placeholder(tf.float32, [None, 3, 4])
    return [str(tf.slice(x, [0, 1, 1], [2, 2, 2]).shape), str(tf.tile(x, [2, 1, 3]).shape),
            str(tf.strided_slice(x, [0, 0, 0], [1, 3, 4], [1, 1, 2], shrink_axis_mask=1).shape)]


@case()
def reductions_argmax_norm(tf, env):
    x = tf.constant([[1.0, -5.0, 3.0], [4.0, 2.0, -6.0]])
    return env.run([tf.argmax(x), tf.argmax(x, axis=1), tf.argmin(x, 1), tf.argmin(x, axis=0, output_type=tf.int32),
                    tf.norm(x), tf.norm(x, axis=1), tf.norm(x, ord=1), tf.norm(x, ord=1, axis=0),
                    tf.norm(x, axis=0, keepdims=True), tf.norm(x, ord=np.inf, axis=1)])


@case()
def norm_gradient(tf, env):
    x = tf.constant([3.0, 4.0])
    return env.run(tf.gradients(tf.norm(x), x))


@case()
def collections(tf, env):
    a, b = tf.constant(1.0), tf.constant(2.0)
    tf.add_to_collection("mine", a)
    tf.add_to_collection("mine", b)
    tf.add_to_collections(["x", "y"], a)
    c = tf.get_collection("mine")
    ref = tf.get_collection_ref("mine")
    ref.append(a)
    return [[t.name for t in c], len(tf.get_collection("mine")), [t.name for t in tf.get_collection("y")],
            tf.get_collection("nothing"), len(tf.get_default_graph().get_collection("x"))]


@case()
def colocate_with_and_device(tf, env):
    a = tf.constant(1.0, name="a")
    with tf.colocate_with(a):
        b = tf.add(a, 1.0, name="b")
    with tf.colocate_with(a.op, ignore_existing=True):
        c = b * 2.0
    return [env.run(c), [x.decode() if isinstance(x, bytes) else x for x in b.op.colocation_groups()]]


@case()
def tensor_spec_shape_invariant(tf, env):
    x = tf.constant([1.0])
    _, r = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.concat([x, x], 0)), [0, x],
                         shape_invariants=[tf.TensorShape([]), tf.TensorSpec([None], tf.float32)])
    return [env.run(r), str(r.shape)]


@case()
def graph_and_optimizer_options(tf, env):
    opts = tf.GraphOptions(optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0,
                                                                  do_function_inlining=False))
    config = tf.ConfigProto(graph_options=opts, allow_soft_placement=True)
    r = tf.while_loop(lambda i: i < 5, lambda i: i + 2, [0])
    with tf.Session(config=config) as sess:
        return [sess.run(r), tf.OptimizerOptions.L0, tf.OptimizerOptions.L1,
                config.graph_options.optimizer_options.opt_level]


@case()
def small_and_complex_dtypes(tf, env):
    out = []
    for dt in (tf.int8, tf.int16, tf.uint8, tf.uint16, tf.complex64, tf.complex128):
        out.append([dt.name, dt.is_complex, dt.is_integer, dt.is_floating, dt.is_unsigned, dt.size])
    a = tf.constant([100, 27], dtype=tf.int8) + tf.constant([27, 1], dtype=tf.int8)
    b = tf.constant([250, 3], dtype=tf.uint8) + tf.constant([10, 4], dtype=tf.uint8)
    c = tf.constant([1 + 2j, 3 - 1j], dtype=tf.complex64) * tf.constant(2j, dtype=tf.complex64)
    d = tf.cast(tf.constant([300, -2]), tf.int16) * 200
    r = tf.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z * tf.constant(1j, tf.complex64)),
                      [0, tf.constant(1 + 0j, tf.complex64)])
    return out + [env.run([a, b, c, d, r[1], tf.real(c), tf.imag(c), tf.abs(c)])]


@case(key={"v2": ""})  # TensorFlow's TensorArrayV2.grad raises NotImplementedError()
def tensor_array_grad_and_identity(tf, env):
    ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False)
    ta = ta.write(0, tf.constant([1.0, 2.0])).write(1, tf.constant([3.0, 4.0]))
    ident = ta.identity()
    g = ta.grad("grad")
    g = g.write(0, tf.constant([10.0, 20.0])).write(1, tf.constant([5.0, 5.0]))
    return env.run([ident.read(1), ident.stack(), g.read(0), g.read(1), ident.size(), g.size()])


@case()
def tensor_array_identity_in_loop(tf, env):
    ta = tf.TensorArray(tf.float32, size=3)

    def body(i, ta):
        return i + 1, ta.write(i, tf.cast(i, tf.float32) * 2.0).identity()
    _, ta = tf.while_loop(lambda i, ta: i < 3, body, [0, ta])
    return env.run(ta.identity().stack())


@case()
def graph_is_feedable(tf, env):
    g = tf.get_default_graph()
    a = tf.constant(1.0)
    b = a + 1.0
    r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    before = [g.is_feedable(a), g.is_feedable(b), g.is_feedable(r), g.is_feedable(b.op)]
    g.prevent_feeding(b)
    return before + [g.is_feedable(b), g.is_fetchable(b), env.run(b * 2.0, {a: 5.0})]


@case()
def cond_legacy_keywords(tf, env):
    x = tf.constant(2.0)
    return env.run([tf.cond(x > 1.0, fn1=lambda: x * 10.0, fn2=lambda: x),
                    tf.cond(x < 1.0, true_fn=lambda: x * 10.0, fn2=lambda: x - 1.0)])


@case(key="true_fn")
def cond_legacy_keywords_both(tf, env):
    x = tf.constant(2.0)
    return env.run(tf.cond(x > 1.0, lambda: x, fn1=lambda: x * 10.0, fn2=lambda: x))


@case()
def auto_packing(tf, env):
    x, y = tf.constant(1.0), tf.constant(2.0)
    packed = tf.convert_to_tensor([x, y, 3.0])
    nested = tf.reduce_sum([[x, y], [y, x]], axis=1)
    a = tf.Assert(x < y, [x, [y, x], "msg"])
    with tf.control_dependencies([a]):
        z = tf.identity(x)
    g = tf.gradients(ys=[x * y, x * x], xs=[x, y])
    return [str(packed.shape), env.run([packed, nested, z, g])]


@case(key="assertion failed: [1] [2 1]")
def assert_with_packed_data_fails(tf, env):
    x, y = tf.constant(1.0), tf.constant(2.0)
    a = tf.Assert(x > y, [x, [y, x]])
    return env.run(a)


@case()
def no_op_as_branch_result(tf, env):
    v = tf.get_variable("v", [], initializer=tf.constant_initializer(1.0))
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: tf.group(tf.assign_add(v, 1.0)), tf.no_op)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return [isinstance(r, tf.Tensor), sess.run(r, {p: True}), sess.run(r, {p: False}), sess.run(v)]


@case()
def string_results_are_bytes(tf, env):
    s = tf.constant("abc")
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: s, lambda: tf.constant("xyz"))
    ss = tf.constant(["a", "bc"])
    out = env.run([s, ss], {})
    return [type(out[0]).__name__, out, env.run(r, {p: False}), type(env.run(ss)[0]).__name__]


@case()
def tensor_shape_dims_value(tf, env):
    s = tf.TensorShape([2, None, 3])
    t = tf.placeholder(tf.float32, [None, 4])
    return [s.dims[0].value, s.dims[1].value, [d.value for d in t.shape.dims], tf.TensorShape(None).dims,
            s[0].value if hasattr(s[0], "value") else s[0], s.as_list(), tf.Dimension(5).value,
            tf.dimension_value(s[2]), tf.dimension_value(None)]


def _second_order(tf, env, fn):
    x = tf.constant(1.5)
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, fn(tf, y)), [0, x])
    (g,) = tf.gradients(y, x)
    (g2,) = tf.gradients(g, x)
    return [env.run(g), None if g2 is None else env.run(g2)]


@case()
def second_order_while_square(tf, env):
    return _second_order(tf, env, lambda tf, y: y * y)


@case()
def second_order_while_linear(tf, env):
    return _second_order(tf, env, lambda tf, y: y * 3.0 + 1.0)


@case()
def second_order_while_sin(tf, env):
    return _second_order(tf, env, lambda tf, y: tf.sin(y))


@case(key={"v1": "Second-order gradient for while loops not supported."})
def second_order_while_captured(tf, env):
    x = tf.constant(1.5)
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y + x * x), [0, tf.constant(0.0)])
    (g,) = tf.gradients(y, x)
    (g2,) = tf.gradients(g, x)
    return [env.run(g), None if g2 is None else env.run(g2)]


@case(versions=("v2",))  # TF 2.21 v1 fails to build it ("... because they are in different while loops")
def hessians_through_while(tf, env):
    x = tf.constant([1.0, 2.0])
    _, y = tf.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), [0, tf.constant([1.0, 1.0])])
    h = tf.hessians(tf.reduce_sum(y), x)
    return [None if t is None else env.run(t) for t in h]


# --- Ported from TensorFlow's control_flow_ops_py_test.py (rewritten for both libraries) -------------
@case(versions=("v1",))
def tf_test_feedable(tf, env):
    """testFeedable: every feedable input of a while loop's ops can be fed; feeding any other int32 input
    says it may not be fed."""
    c, i0 = tf.constant(2), tf.constant(0)
    r = tf.while_loop(lambda i: i < 1000, lambda i: tf.square(c) + i, [i0])
    g = tf.get_default_graph()
    inputs = list(dict.fromkeys(t for op in g.get_operations() for t in op.inputs))
    fed, refused = [], []
    with tf.Session() as sess:
        for t in inputs:
            if g.is_feedable(t):
                fed.append([t.name, sess.run(r, {t: 3}).item()])
            elif t.dtype == tf.int32:
                try:
                    sess.run(r, {t: 3})
                except ValueError as e:
                    refused.append([t.name, "may not be fed" in str(e)])
    return [fed, refused]


@case()
def tf_test_fetchable(tf, env):
    """testFetchable: the tensors of a cond's ops are fetchable exactly when the graph says so."""
    x = tf.placeholder(tf.float32)
    tf.cond(tf.constant(True), lambda: x + 2, lambda: x + 0)
    g = tf.get_default_graph()
    out = []
    with tf.Session() as sess:
        for op in g.get_operations():
            for t in op.inputs:
                if g.is_fetchable(t.op):
                    out.append([t.name, "fetched", sess.run(t, {x: 3}).item()])
                else:
                    try:
                        sess.run(t, {x: 3})
                        out.append([t.name, "fetched although not fetchable"])
                    except ValueError as e:
                        out.append([t.name, "has been marked as not fetchable" in str(e)])
    return out


@case()
def tf_test_cond_pruning(tf, env):
    """testCondPruning: a branch returning assign ops yields the predicate; fetching the second result runs
    only the assignments it depends on."""
    v1, v2, v3 = tf.Variable(7), tf.Variable(7), tf.Variable(7)
    pred = tf.greater(tf.constant(3), tf.constant(2))
    r = tf.cond(pred, lambda: [tf.assign(v1, 1).op, tf.assign(v2, 2).op],
                lambda: [tf.assign(v3, 3).op, tf.constant(10).op])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return [len(r), sess.run(r[1]), sess.run([v1, v2, v3])]


@case()
def tf_test_cond_6_variable_result(tf, env):
    """testCond_6: a branch may return a variable; the cond yields its value."""
    v1 = tf.Variable([7])
    age = tf.constant(3)
    r = tf.cond(tf.greater(age, 4), lambda: age, lambda: v1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(r)


@case()
def tf_test_cond_resource_grad(tf, env):
    """testCondResourceGrad: the gradient of a cond that returns a variable, with respect to it."""
    v1 = tf.Variable(tf.constant([7.0]))
    age = tf.constant(3.0)
    r = tf.cond(tf.greater(age, 4.0), lambda: age, lambda: v1)
    grad = tf.gradients(r, v1)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(grad)


# --- Ported from TensorFlow's variable_scope_test.py -------------------------------------------------
@case()
def tf_test_var_scope_object_reuse(tf, env):
    """testVarScopeObjectReuse: re-entering a scope object keeps its reuse; reuse=False cannot undo it."""
    out = []
    for first in (True, False):
        with tf.variable_scope("jump", reuse=first) as scope:
            vs = scope
        for reuse in (None, True, False):
            with tf.variable_scope(vs, reuse=reuse) as again:
                out.append([first, reuse, bool(again.reuse)])
    return out


@case()
def tf_test_var_scope_get_or_create_reuse(tf, env):
    """testVarScopeGetOrCreateReuse: with AUTO_REUSE the first get_variable creates, later ones share."""
    values = []
    for value in (42.0, 13.0, 17.0):
        x = tf.constant(value)
        with tf.variable_scope("testVarScopeGetOrCreateReuse_bar", reuse=tf.AUTO_REUSE):
            a = tf.assign(tf.get_variable("var", []), x)
        with tf.variable_scope("testVarScopeGetOrCreateReuse_bar", reuse=tf.AUTO_REUSE):
            v = tf.get_variable("var", [])
        with tf.Session() as sess:
            sess.run(a)
            values.append([sess.run(x), v.name])
    return [values, len(tf.global_variables())]


@case()
def tf_test_var_op_scope(tf, env):
    """testVarOpScope: a variable scope's variables ignore name scopes; its ops get a unique name scope."""
    names = []
    with tf.name_scope("testVarOpScope1"):
        with tf.variable_scope("tower", "default", []):
            names.append(tf.get_variable("w", []).name)
            with tf.name_scope("testVarOpScope2") as sc2:
                names.append(sc2)
    with tf.name_scope("testVarOpScope1"):
        with tf.variable_scope(None, "default", []):
            names.append(tf.get_variable("w", []).name)
            with tf.name_scope("testVarOpScope2") as sc2:
                names.append(sc2)
    with tf.name_scope("testVarOpScope1"):
        with tf.variable_scope(None, "default", []):
            names.append(tf.get_variable("w", []).name)
            with tf.name_scope("testVarOpScope2") as sc2:
                names.append(sc2)
    return names
