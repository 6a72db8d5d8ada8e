"""Record what TensorFlow answers for every program of conversion_programs.py into conversion_tf.json.

TensorFlow is not a dependency of cfnb, so this runs in its own environment:

    /tmp/tfvenv/bin/python tests/regressions/record_conversion.py

The json is {"meta": {...}, "programs": {name: result}}, a result as conversion_programs.run_program gives it:
{"values": {key: value}, "dtypes": {key: dtype}} or {"error": {"phase": "build" | "run", "type", "message"}}.
"""
import json
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/, for `regressions`

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import stack  # noqa: E402

from regressions.conversion_programs import PROGRAMS, run_program  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _stable(result):
    """TensorFlow's run-time messages quote the Python stack that built the node, and reprs carry addresses:
    the json keeps the rest, so recording twice gives the same file."""
    error = result.get("error")
    if error:
        lines = [line for line in error["message"].split("\n") if not line.lstrip().startswith("File \"")]
        error["message"] = re.sub(r" at 0x[0-9a-f]+", " at 0x...", "\n".join(lines))
    return result


def main():
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    out = {"meta": {"tensorflow": tf.__version__, "numpy": np.__version__, "programs": len(PROGRAMS),
                    "api": "tf.compat.v1 graph mode (disable_eager_execution)"},
           "programs": {name: _stable(run_program(tf1, build, stack._default_session_stack.reset))
                        for name, build in PROGRAMS.items()}}
    with open(os.path.join(HERE, "conversion_tf.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    for name, result in out["programs"].items():
        print(name, str(result)[:200].replace("\n", "\\n"))


if __name__ == "__main__":
    main()
