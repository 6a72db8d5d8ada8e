"""Record TensorFlow's answers for the compat cases (compat_cases.py) into compat_tf.json.

Needs TensorFlow (2.21 was used): `/tmp/tfvenv/bin/python tests/regressions/record_compat.py`.
TensorFlow is never a dependency of cfnb; the recorded json is what the tests compare against.
"""
import json
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/, for `regressions`

import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.python.ops import gen_control_flow_ops  # noqa: E402

from regressions.compat_cases import CASES, normalize  # noqa: E402

tf.disable_eager_execution()


class Raw:
    """The primitives a hand-built graph needs, as TensorFlow's generated ops."""

    @staticmethod
    def merge(inputs):
        return gen_control_flow_ops.merge(inputs).output

    @staticmethod
    def next_iteration(data):
        return gen_control_flow_ops.next_iteration(data)


class Env:
    raw = Raw
    is_tf = True

    def __init__(self, v2):
        self.v2 = v2

    def run(self, fetches, feed_dict=None, options=None, config=None):
        with tf.Session(config=tf.ConfigProto(**(config or {}))) as sess:
            return sess.run(fetches, feed_dict, options=options)


def record_one(fn, v2):
    (tf.enable_control_flow_v2 if v2 else tf.disable_control_flow_v2)()
    tf.reset_default_graph()
    try:
        return {"value": normalize(fn(tf, Env(v2)))}
    except Exception as e:  # noqa: BLE001 - the error is the answer
        return {"error": type(e).__name__, "message": _without_tracebacks(str(e))}


def _without_tracebacks(message):
    """TensorFlow quotes the Python stack that built the failing node, and objects' addresses; the json
    keeps the rest, so that recording twice gives the same file."""
    kept = "\n".join(line for line in message.split("\n") if not line.lstrip().startswith("File \""))
    return re.sub(r" at 0x[0-9a-f]+", " at 0x...", kept)


def main():
    out = {"tensorflow": tf.__version__ if hasattr(tf, "__version__") else tf.VERSION}
    names = sys.argv[1:] or list(CASES)
    for name in names:
        c = CASES[name]
        for version in c.versions:
            out[f"{name}/{version}"] = record_one(c.fn, version == "v2")
    path = os.path.join(os.path.dirname(__file__), "compat_tf.json")
    if sys.argv[1:] and os.path.exists(path):
        old = json.load(open(path))
        old.update(out)
        out = old
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    for k, v in out.items():
        print(k, str(v)[:300].replace("\n", "\\n"))


if __name__ == "__main__":
    main()
