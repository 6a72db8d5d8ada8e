"""tf.print calls whose printed text is recorded from TensorFlow (record_print.py) and compared with
cfnb's (tests/test_print.py). Each case takes the module (`tensorflow` or `cfnb`) and returns the op."""
import sys

import numpy as np


def _scalars(tf):
    return tf.print("x is", tf.constant(0.1), tf.constant(1 / 3), tf.constant(3.5, tf.float64), tf.constant(7),
                    tf.constant(2 ** 40, tf.int64), tf.constant(True), tf.constant(1 / 3, tf.float64),
                    output_stream=sys.stdout)


def _arrays(tf):
    return tf.print(tf.constant(np.arange(7)), tf.constant([[1.5, 2], [3, 4]]),
                    tf.constant(np.arange(24).reshape(2, 3, 4)), output_stream=sys.stdout)


def _structures(tf):
    return tf.print([1, tf.constant(2)], {"a": tf.constant(1.0)}, 5, 2.5, sep=",", end="|\n",
                    output_stream=sys.stdout)


def _summarize(tf):
    return tf.print(tf.constant(np.arange(100).reshape(10, 10)), summarize=2, output_stream=sys.stdout)


def _summarize_all(tf):
    return tf.print(tf.constant(np.arange(10)), summarize=-1, output_stream=sys.stdout)


def _special_floats(tf):
    return tf.print(tf.constant(1e-9, tf.float64), tf.constant(123456789.123, tf.float64), tf.constant(1e20),
                    tf.constant(np.float32(-0.0)), tf.constant(np.nan), tf.constant(np.inf),
                    tf.constant(np.arange(10.0) / 3, tf.float64), output_stream=sys.stdout)


def _strings(tf):
    return tf.print("a", "b", tf.constant("hi"), tf.constant(["a", "b"]), tf.constant(1), sep="",
                    output_stream=sys.stdout)


CASES = {f.__name__[1:]: f for f in (_scalars, _arrays, _structures, _summarize, _summarize_all, _special_floats,
                                     _strings)}
