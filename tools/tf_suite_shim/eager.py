"""`tensorflow.python.eager.context` and `tensorflow.python.tf2` as cfnb answers them: graph mode only,
TensorFlow 1 behaviour (so `run_v1_only` tests run and `tf2.enabled()` branches take the graph path)."""
import contextlib


def executing_eagerly():
    return False


def enabled():
    """`tf2.enabled()`: cfnb is `tf.compat.v1`."""
    return False


@contextlib.contextmanager
def graph_mode():
    yield


def in_graph_mode():
    return True


def _reset_context():
    """`context._reset_context()`: there is no eager context to reset."""
