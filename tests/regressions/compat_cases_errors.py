"""Compat cases: hangs (a deadline stops every execution path) and errors as TensorFlow gives them."""
from .compat_registry import case


# --- Hangs: a deadline stops every path --------------------------------------------------------------
@case(key="Timed out waiting for notification")
def endless_loop_run_timeout(tf, env):
    r = tf.while_loop(lambda i: i >= 0, lambda i: (i + 1) % 5, [tf.constant(0)])
    return env.run(r, options=tf.RunOptions(timeout_in_ms=50))


@case(key="Timed out waiting for notification")
def endless_loop_operation_timeout(tf, env):
    r = tf.while_loop(lambda i: i >= 0, lambda i: (i + 1) % 5, [tf.constant(0)])
    return env.run(r, config={"operation_timeout_in_ms": 50})


@case(key="Timed out waiting for notification")
def endless_nested_loop_run_timeout(tf, env):
    def body(i):
        j = tf.while_loop(lambda j: j < 3, lambda j: j + 1, [tf.constant(0)])
        return (i + j) % 7
    r = tf.while_loop(lambda i: i >= 0, body, [tf.constant(0)])
    return env.run(r, options=tf.RunOptions(timeout_in_ms=50))


# --- Errors as TensorFlow gives them ----------------------------------------------------------------
@case(key="must be a scalar")
def nonscalar_pred_cond(tf, env):
    p = tf.placeholder(tf.bool)
    r = tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))
    return env.run(r, {p: [True, False]})


@case(key="must be a scalar")
def nonscalar_pred_while(tf, env):
    n = tf.placeholder(tf.int32)
    r = tf.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)])
    return env.run(r, {n: [3, 4]})


@case(key={"v1": "Shape must be rank 0 but is rank 2"})
def cond_pred_2d_true(tf, env):
    r = tf.cond(tf.constant([[True]]), lambda: tf.constant(1.0), lambda: tf.constant(2.0))
    return env.run(r)


@case(key={"v1": "Shape must be rank 0 but is rank 2"})
def cond_pred_2d_fed(tf, env):
    p = tf.placeholder(tf.bool, [1, 1])
    r = tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))
    return [env.run(r, {p: [[True]]}), env.run(r, {p: [[False]]})]


@case(key="same nested structure")
def shape_invariants_structure_mismatch(tf, env):
    i, j = tf.constant(0), tf.constant(1.0)
    r = tf.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1, j * 2.0), [i, j],
                      shape_invariants=[tf.TensorShape([])])
    return env.run(r)


@case(key="must be from the same graph")
def gradients_xs_from_other_graph(tf, env):
    with tf.Graph().as_default():
        x = tf.constant(1.0)
    y = tf.constant(2.0) * 3.0
    return env.run(tf.gradients(y, x))


@case(key="'branch_index' must be a Tensor, got <class 'int'>")
def switch_case_python_int(tf, env):
    r = tf.switch_case(1, [lambda: tf.constant(10), lambda: tf.constant(20), lambda: tf.constant(30)])
    return env.run(r)


@case(key="Inconsistent shapes: saw (3,) but expected (2,)")
def tensor_array_write_incompatible_element_shape(tf, env):
    ta = tf.TensorArray(tf.float32, size=2, element_shape=tf.TensorShape([2]))
    ta = ta.write(0, tf.constant([1.0, 2.0, 3.0]))
    return env.run(ta.read(0))


@case(key="Graph is invalid, contains a cycle with 2 nodes, including: Merge, add")
def merge_data_cycle(tf, env):
    a = tf.constant(1.0)
    m = env.raw.merge([a, a])
    y = m + 1.0
    m.op._update_input(1, y)
    return env.run(m)


@case(key="Retval[0] has already been set")
def root_frame_next_iteration_cycle(tf, env):
    a = tf.constant(1.0)
    m = env.raw.merge([a, a])
    n = env.raw.next_iteration(m + 1.0)
    m.op._update_input(1, n)
    return env.run(m)


@case(key="same nested structure", versions=("v1",))  # TF 2.21's cond_v2 fails an internal assert here
def cond_structure_mismatch(tf, env):
    r = tf.cond(tf.constant(True), lambda: (tf.constant(1), tf.constant(2)), lambda: tf.constant(3))
    return env.run(r)


@case(key="same nested structure")
def cond_structure_mismatch_tuple_list(tf, env):
    r = tf.cond(tf.constant(True), lambda: (tf.constant(1), tf.constant(2)), lambda: [tf.constant(1), tf.constant(2)])
    return env.run(r)


@case(key="don't have the same set of keys")
def cond_structure_mismatch_dict_keys(tf, env):
    r = tf.cond(tf.constant(True), lambda: {"a": tf.constant(1)}, lambda: {"b": tf.constant(1)})
    return env.run(r)
