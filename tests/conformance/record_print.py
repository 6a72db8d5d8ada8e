"""Record what TensorFlow's tf.print prints for each case of print_cases.py, into print_tensorflow.json.

TensorFlow is not a dependency of cfnb; run this in an environment that has it:

    /tmp/tfvenv/bin/python tests/conformance/record_print.py
"""
import json
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402
from print_cases import CASES  # noqa: E402 - this script's folder is on sys.path

HERE = os.path.dirname(os.path.abspath(__file__))


def _run_capturing_fd1(tf1, op):
    """TensorFlow's PrintV2 writes to the process's stdout (file descriptor 1), not to sys.stdout."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            with tf1.Session() as sess:
                sess.run(op)
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        return tmp.read().decode()


def main():
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    recorded = {}
    for name, case in sorted(CASES.items()):
        with tf.Graph().as_default():
            op = case(tf)
            recorded[name] = _run_capturing_fd1(tf1, op)
    with open(os.path.join(HERE, "print_tensorflow.json"), "w") as f:
        json.dump(recorded, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
