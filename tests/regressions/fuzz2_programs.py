"""Regression programs for what the second fuzz family (tests/fuzz2, issue 18 part 3) found against TensorFlow 2.21
(grad2_programs.py explains the format; record_grad2.py records them into grad2_tf.json, test_grad2.py runs them on
every path). Each is the smallest program of its mismatch class, in float64 where a second derivative is taken.
"""
from .grad2_registry import program, second

W3 = [1.0, -0.5, 2.0]


@program(modes=("v2",))
def second_derivative_through_concat_of_a_tensor_array_written_zero_times(tf):
    """gen2 seed 6: the gradient of TensorListSplit concatenated the incoming list without an element shape, so
    when the array was empty the second derivative raised "All except the first dimension must be fully defined"
    where TensorFlow (whose _TensorListSplitGrad passes [-1] + the split tensor's other dimensions) answers."""
    x = tf.placeholder(tf.float64, [3], name="x")
    ta = tf.TensorArray(tf.float64, size=0, element_shape=[3])

    def body(i, t, a):
        return i + 1, t.write(i, a * x), a * 0.5

    _, t, a = tf.while_loop(lambda i, t, a: i < 0, body, [0, ta, x])
    y = tf.reduce_sum(t.concat()) * a + tf.tanh(x) * x
    g, gg = second(tf, y, x, weights=W3)
    return {"y": y, "g": g, "gg": gg}, {x: [1.0, -0.75, 0.5]}


@program
def gradient_of_a_gather_of_a_loop_result(tf):
    """The v1 gradient of `gather(v)`, `v` a while_loop's result, raised "Frame 'gradients/while/while_context' is
    entered from two frames" at run time: the gather's IndexedSlices gradient was densified inside the gradient
    loop (its UnsortedSegmentSum built there), so the Exit gradient's Enter was fed from its own frame."""
    x = tf.placeholder(tf.float32, [3], name="x")
    _, v = tf.while_loop(lambda i, a: i < 2, lambda i, a: [i + 1, a * x], [tf.constant(0), x])
    y = x + tf.gather(v, [1, 1, 0])
    (g,) = tf.gradients(y * W3, x)
    return {"y": y, "g": g}, {x: [-0.75, -0.25, 0.5]}


@program
def gradient_of_a_gather_of_a_loop_result_in_a_branch_not_taken(tf):
    """gen2 seed 504 (the same class): a `cond` branch that is not taken holds a while_loop reading a TensorArray
    unstacked outside it (the value read left unused), and gathers the loop's result; TensorFlow's v1 gradient is
    the other branch's, cfnb's raised "entered from two frames"."""
    x = tf.placeholder(tf.float32, [3], name="x")

    def loop_branch():
        ta = tf.TensorArray(tf.float32, size=3).unstack(x * 2.0)

        def body(i, a):
            ta.read(tf.mod(i, 3))
            return [i + 1, a * x]

        _, v = tf.while_loop(lambda i, a: i < 2, body, [tf.constant(0), x])
        return x + tf.gather(v, [1, 1, 0])

    y = tf.cond(tf.reduce_sum(x) > 0.0, loop_branch, lambda: x * 3.0)
    (g,) = tf.gradients(y * W3, x)
    return {"y": y, "g": g}, {x: [-0.75, -0.25, 0.0]}


@program
def gradient_of_a_gather_of_an_inner_loop_result_in_an_outer_loop(tf):
    """Corpus program 270's class: the outer body gathers the inner loop's result (the inner body reads a
    TensorArray unstacked in the outer body, unused); the v1 gradient raised "Frame
    'gradients/while/while/while_context' is entered from two frames"."""
    x = tf.placeholder(tf.float32, [3], name="x")

    def outer(j, b):
        ta = tf.TensorArray(tf.float32, size=3).unstack(tf.sigmoid(b))

        def inner(i, a):
            ta.read(tf.mod(i, 3))
            return [i + 1, x + (a - b)]

        _, v = tf.while_loop(lambda i, a: i < 3, inner, [tf.constant(0), b * 0.5])
        return [j + 1, tf.gather(v, [2, 1, 1]) * b]

    _, y = tf.while_loop(lambda j, b: j < 2, outer, [tf.constant(0), x])
    (g,) = tf.gradients(y * W3, x)
    return {"y": y, "g": g}, {x: [-0.75, -0.25, 0.5]}
