"""Hostile runs: feeds of the wrong dtype or shape, fetches that name nothing, deadlines, closed sessions.

Each case builds a small graph with the `tf` it is given (TensorFlow's `tf.compat.v1` or cfnb) and returns
`(graph, action)`; `action(sess, tf)` does the hostile thing in a Session of that graph. record_hostile.py runs every
case in TensorFlow 2.21 and writes what it answered (hostile_runs_tf.json); test_runs.py runs it in cfnb on every
execution path and compares the error type and the words in `KEYS` (which TensorFlow's message holds too).
"""


def _placeholder_graph(tf, dtype="float32", shape=()):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(getattr(tf, dtype), list(shape), name="x")
        y = tf.identity(x * 2 if dtype != "string" else x, name="y")
    return g, x, y


def _endless(tf):
    g = tf.Graph()
    with g.as_default():
        r = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0)], name="endless")
    return g, r


def feed_string_to_float(tf):
    g, x, y = _placeholder_graph(tf)
    return g, lambda sess, tf: sess.run(y, {x: "abc"})


def feed_wrong_shape(tf):
    g, x, y = _placeholder_graph(tf, shape=(2,))
    return g, lambda sess, tf: sess.run(y, {x: [1.0, 2.0, 3.0]})


def feed_ragged_list(tf):
    g, x, y = _placeholder_graph(tf, shape=(None, None))
    return g, lambda sess, tf: sess.run(y, {x: [[1.0, 2.0], [3.0]]})


def feed_int_too_big_for_int32(tf):
    g, x, y = _placeholder_graph(tf, "int32")
    return g, lambda sess, tf: sess.run(y, {x: 2 ** 40})


def feed_none(tf):
    g, x, y = _placeholder_graph(tf)
    return g, lambda sess, tf: sess.run(y, {x: None})


def feed_a_tensor(tf):
    g, x, y = _placeholder_graph(tf)
    return g, lambda sess, tf: sess.run(y, {x: y})


def feed_unknown_name(tf):
    g, x, y = _placeholder_graph(tf)
    return g, lambda sess, tf: sess.run(y, {"nope:0": 1.0})


def _loop_with_a_body_tensor(tf):
    """(graph, the loop's result, a tensor of its body)."""
    g = tf.Graph()
    with g.as_default():
        inside = []

        def body(i):
            inside.append(i + 1)
            return inside[-1]
        r = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
    return g, r, inside[0]


def feed_inside_a_loop(tf):
    g, r, inside = _loop_with_a_body_tensor(tf)
    return g, lambda sess, tf: sess.run(r, {inside: 1})


def placeholder_not_fed(tf):
    g, x, y = _placeholder_graph(tf, shape=(2,))
    return g, lambda sess, tf: sess.run(y)


def fetch_unknown_name(tf):
    g, x, y = _placeholder_graph(tf)
    return g, lambda sess, tf: sess.run("nope:0")


def fetch_output_past_the_end(tf):
    g, x, y = _placeholder_graph(tf)
    return g, lambda sess, tf: sess.run("y:5", {x: 1.0})


def fetch_none(tf):
    g, x, y = _placeholder_graph(tf)
    return g, lambda sess, tf: sess.run(None)


def fetch_a_number(tf):
    g, x, y = _placeholder_graph(tf)
    return g, lambda sess, tf: sess.run(3)


def fetch_from_another_graph(tf):
    g, x, y = _placeholder_graph(tf)
    other, _, z = _placeholder_graph(tf)
    return g, lambda sess, tf: sess.run(z)


def fetch_inside_a_loop(tf):
    g, _, inside = _loop_with_a_body_tensor(tf)
    return g, lambda sess, tf: sess.run(inside)


def deadline_of_an_endless_loop(tf):
    g, r = _endless(tf)
    return g, lambda sess, tf: sess.run(r, options=tf.RunOptions(timeout_in_ms=300))


def run_after_close(tf):
    g, r = _endless(tf)

    def action(sess, tf):
        sess.close()
        return sess.run(r)
    return g, action


def non_scalar_loop_predicate(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, None, name="x")
        r = tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, [x])
    return g, lambda sess, tf: sess.run(r, {x: [1.0, 2.0]})


CASES = {f.__name__: f for f in (
    feed_string_to_float, feed_wrong_shape, feed_ragged_list, feed_int_too_big_for_int32, feed_none, feed_a_tensor,
    feed_unknown_name, feed_inside_a_loop, placeholder_not_fed, fetch_unknown_name, fetch_output_past_the_end,
    fetch_none, fetch_a_number, fetch_from_another_graph, fetch_inside_a_loop, deadline_of_an_endless_loop,
    run_after_close, non_scalar_loop_predicate)}


# Words TensorFlow's message and cfnb's both hold, per case (a dict: per control-flow version).
KEYS = {
    "feed_string_to_float": ("could not convert string to float",),
    "feed_wrong_shape": ("Cannot feed value of shape (3,) for Tensor x:0, which has shape (2,)",),
    "feed_ragged_list": ("setting an array element with a sequence", "inhomogeneous"),
    "feed_int_too_big_for_int32": ("Type of feed value 1099511627776", "numpy.int32"),
    "feed_none": (),
    "feed_a_tensor": ("The value of a feed cannot be a tf.Tensor object",),
    "feed_unknown_name": ("Cannot interpret feed_dict key as Tensor", "'nope'", "does not exist in the graph"),
    "feed_inside_a_loop": {"v1": ("Tensor while/add:0 may not be fed.",), "v2": ()},
    "placeholder_not_fed": ("You must feed a value for placeholder tensor 'x'", "shape [2]"),
    "fetch_unknown_name": ("Argument `fetch` = nope:0 cannot be interpreted as a Tensor", "does not exist in the "
                                                                                            "graph"),
    "fetch_output_past_the_end": ("exists but only has 1 outputs",),
    "fetch_none": ('Argument `fetch` = None has invalid type "NoneType". Cannot be None',),
    "fetch_a_number": ('Argument `fetch` = 3 has invalid type "int" must be a string or Tensor',),
    "fetch_from_another_graph": ("cannot be interpreted as a Tensor", "is not an element of this graph"),
    "fetch_inside_a_loop": {"v1": ("while/add has been marked as not fetchable",),
                            "v2": ("is not an element of this graph",)},
    "deadline_of_an_endless_loop": ("Timed out waiting for notification",),
    "run_after_close": ("Attempted to use a closed Session.",),
    "non_scalar_loop_predicate": ("The second input must be a scalar, but it has shape [2]",),
}
# Where cfnb's answer differs from TensorFlow's on purpose: (case, version) -> (cfnb's type, its words, why).
EXPLAINED = {
    ("feed_inside_a_loop", "v2"): ("ValueError", "it is not an element of this session's graph",
                                   "TensorFlow's v2 raises TypeError 'Tensor is unhashable' while it checks the feed "
                                   "(an accident of its FuncGraph tensors); the body's tensor is not in the session's "
                                   "graph, which is what cfnb says"),
    ("fetch_inside_a_loop", "v1"): ("ValueError", "has been marked as not fetchable",
                                    "TensorFlow's InaccessibleTensorError is a ValueError; cfnb raises the ValueError"),
}
