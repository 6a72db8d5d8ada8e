"""The whitepaper's distributed control-flow examples, written once against the tf.compat.v1 graph API.

Each program is `def name(tf): ... return fetches, feeds` and places its ops on two CPU devices with
`tf.device`. record_partitions.py runs them in TensorFlow (two CPU devices, grappler off,
`RunOptions(output_partition_graphs=True)`) and stores the values and, per device, how many `_Send`, `_Recv`,
Enter, Merge, Switch, NextIteration, Exit and LoopCond nodes TensorFlow's partitions hold; tests/test_partition.py
checks cfnb against both. Values that cross devices are computed tensors, never small constants: TensorFlow
replicates a small Const to every device that reads it, which would hide the transfer.
"""
PROGRAMS = {}
A, B = "/cpu:0", "/cpu:1"


def program(build):
    PROGRAMS[build.__name__] = build
    return build


@program
def cond_across_devices(tf):
    """The predicate and the false branch on A, the true branch on B."""
    with tf.device(A):
        x = tf.placeholder(tf.float32, [], name="x")
        a = x * 2.0
        p = a > 3.0

    def true_fn():
        with tf.device(B):
            return tf.sin(a) * a

    def false_fn():
        with tf.device(A):
            return a - 1.0

    with tf.device(A):
        r = tf.cond(p, true_fn, false_fn)
        s = r + 0.0
    return {"r": s}, {x: 2.5}


@program
def cond_across_devices_false(tf):
    """The same cond with the predicate false: B's branch is dead, and the dead value crosses back to A."""
    fetches, _ = cond_across_devices(tf)
    x = tf.get_default_graph().get_tensor_by_name("x:0")
    return fetches, {x: 0.5}


def _loop_body_on_b(tf, n_value):
    with tf.device(A):
        x = tf.placeholder(tf.float32, [], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        a = x * 0.5
        i0 = n * 0

    def cond(i, v):
        with tf.device(A):
            return i < n

    def body(i, v):
        with tf.device(A):
            i1 = i + 1
        with tf.device(B):
            v1 = tf.tanh(v * a) + v
        return i1, v1

    with tf.device(A):
        i, v = tf.while_loop(cond, body, [i0, x])
        out = v * 1.0
    return {"i": i, "v": out}, {x: 1.5, n: n_value}


@program
def while_body_on_b(tf):
    """The loop's predicate on A, the body's arithmetic on B: B runs a control loop fed by A's LoopCond."""
    return _loop_body_on_b(tf, 4)


@program
def while_zero_trip(tf):
    """The same loop taking zero trips: B's control loop sees one false predicate and stops."""
    return _loop_body_on_b(tf, 0)


def _nested(tf, inner_on_b, outer_on_b, n_outer=3, n_inner=2):
    with tf.device(A):
        x = tf.placeholder(tf.float32, [], name="x")
        m = tf.placeholder(tf.int32, [], name="m")
        k = tf.placeholder(tf.int32, [], name="k")
        z = m * 0

    def outer_body(i, v):
        def inner_body(j, w):
            with tf.device(A):
                j1 = j + 1
            with tf.device(B if inner_on_b else A):
                w1 = tf.sin(w) + w
            return j1, w1

        with tf.device(A):
            _, w = tf.while_loop(lambda j, w: j < k, inner_body, [z, v])
            i1 = i + 1
        with tf.device(B if outer_on_b else A):
            v1 = w * 0.5
        return i1, v1

    with tf.device(A):
        i, v = tf.while_loop(lambda i, v: i < m, outer_body, [z, x])
        out = v * 1.0
    return {"i": i, "v": out}, {x: 0.7, m: n_outer, k: n_inner}


@program
def nested_inner_on_b(tf):
    """B holds only inner-loop ops: B gets control loops for both frames, stacked."""
    return _nested(tf, inner_on_b=True, outer_on_b=False)


@program
def nested_outer_on_b(tf):
    """B holds only outer-loop ops: one control loop on B, none for the inner loop."""
    return _nested(tf, inner_on_b=False, outer_on_b=True)


@program
def nested_zero_trip_inner(tf):
    """The inner loop, on B, takes zero trips in every outer iteration."""
    return _nested(tf, inner_on_b=True, outer_on_b=False, n_outer=2, n_inner=0)


@program
def loop_in_untaken_branch(tf):
    """A loop across devices inside the untaken branch of a cond: every token it sees is dead, on both devices."""
    with tf.device(A):
        x = tf.placeholder(tf.float32, [], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        a = x * 2.0
        p = a > 100.0

    def true_fn():
        def body(i, v):
            with tf.device(A):
                i1 = i + 1
            with tf.device(B):
                v1 = v * a
            return i1, v1
        with tf.device(A):
            return tf.while_loop(lambda i, v: i < n, body, [n * 0, a])[1]

    with tf.device(A):
        r = tf.cond(p, true_fn, lambda: a + 1.0)
        out = r * 1.0
    return {"r": out}, {x: 1.0, n: 3}


@program
def while_gradient_on_b(tf):
    """A gradient through the loop whose body runs on B (gradient ops placed by the gradients call's scope)."""
    fetches, feeds = _loop_body_on_b(tf, 3)
    x = tf.get_default_graph().get_tensor_by_name("x:0")
    with tf.device(A):
        g, = tf.gradients(fetches["v"], [x])
    return {"v": fetches["v"], "g": g}, feeds


@program
def while_gradient_colocated(tf):
    """The same gradient with colocate_gradients_with_ops=True: each gradient op goes where its forward op is."""
    fetches, feeds = _loop_body_on_b(tf, 3)
    x = tf.get_default_graph().get_tensor_by_name("x:0")
    g, = tf.gradients(fetches["v"], [x], colocate_gradients_with_ops=True)
    return {"v": fetches["v"], "g": g}, feeds


@program
def control_edge_across_devices(tf):
    """A control dependency from CPU:0 to an op on CPU:1: a dummy empty Const is sent, an Identity receives it."""
    with tf.device(A):
        x = tf.placeholder(tf.float32, [], name="x")
        a = tf.sin(x)
    with tf.device(B):
        b = tf.cos(x * 3.0)
        with tf.control_dependencies([a.op]):
            c = tf.identity(b) * 2.0
    with tf.device(A):
        out = c + a
    return {"out": out}, {x: 0.3}


@program
def cond_predicate_on_b(tf):
    """The predicate computed on CPU:1, both branches on CPU:0: every Switch receives it (a _HostRecv)."""
    with tf.device(A):
        x = tf.placeholder(tf.float32, [], name="x")
        a = x * 2.0
    with tf.device(B):
        p = tf.cos(a) > 0.0
    with tf.device(A):
        r = tf.cond(p, lambda: a + 1.0, lambda: a * a)
        out = r * 1.0
    return {"r": out}, {x: 0.4}


@program
def loop_predicate_on_b(tf):
    """The loop's condition computed on CPU:1: CPU:1 is the frame leader, CPU:0 gets the control loop."""
    with tf.device(A):
        x = tf.placeholder(tf.float32, [], name="x")

    def cond(i, v):
        with tf.device(B):
            return tf.less(v * 1.0, 50.0)

    with tf.device(A):
        i, v = tf.while_loop(cond, lambda i, v: (i + 1, v * 2.0 + 1.0), [tf.cast(x * 0.0, tf.int32), x * 1.0],
                             parallel_iterations=1)
        out = v + 0.0
    return {"i": i, "v": out}, {x: 1.5}


@program
def cond_captures_on_b(tf):
    """Both branches on CPU:0 read values computed on CPU:1 (v2: captured by the branch functions, so they enter
    through the If's input Switches, which sit with their data on CPU:1)."""
    with tf.device(A):
        x = tf.placeholder(tf.float32, [], name="x")
        a = x * 2.0
        p = a > 1.0
    with tf.device(B):
        b = tf.sin(a)
        c = tf.cos(a)
    with tf.device(A):
        r = tf.cond(p, lambda: a * b, lambda: a + c)
        out = r * 1.0
    return {"r": out}, {x: 0.8}


@program
def nested_cond_across_devices(tf):
    """A cond inside the taken branch of a cond, whose own true branch runs on CPU:1."""
    with tf.device(A):
        x = tf.placeholder(tf.float32, [], name="x")
        a = x * 2.0

    def outer_true():
        def inner_true():
            with tf.device(B):
                return tf.tanh(a) * a

        with tf.device(A):
            return tf.cond(a > 2.0, inner_true, lambda: a - 2.0)

    with tf.device(A):
        r = tf.cond(a > 1.0, outer_true, lambda: a * a)
        out = r * 1.0
    return {"r": out}, {x: 1.5}


@program
def case_across_devices(tf):
    """tf.switch_case with branch 1 on CPU:1: one _SwitchN per input, the taken branch's values cross devices."""
    with tf.device(A):
        x = tf.placeholder(tf.float32, [], name="x")
        k = tf.placeholder(tf.int32, [], name="k")
        a = x * 2.0

    def on_b():
        with tf.device(B):
            return tf.sin(a) * a

    with tf.device(A):
        r = tf.switch_case(k * 1, [lambda: a + 1.0, on_b, lambda: a * a])
        out = r * 1.0
    return {"r": out}, {x: 0.6, k: 1}
