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
