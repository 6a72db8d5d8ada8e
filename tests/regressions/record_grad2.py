"""Record what TensorFlow answers for every program of grad2_programs.py (and grad2_programs_arrays.py), with control
flow v1 and v2, and what TensorFlow's gradient registry holds for every op type of tests/gradient_table.py.

TensorFlow is not a dependency of cfnb, so this runs in its own environment:

    /tmp/tfvenv/bin/python tests/regressions/record_grad2.py [--all]

and writes grad2_tf.json next to this file: {"meta": {...}, "registry": {op type: rule}, "v1": {program: result},
"v2": {...}}, a result as grad2_registry.run_program gives it, a rule as the table writes it ("module.function",
"NotDifferentiable" or None).
"""
import json
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TESTS)  # tests/, for `regressions` and `gradient_table`

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from gradient_table import TABLE  # noqa: E402
from tensorflow.python.framework import ops  # noqa: E402

from regressions import grad2_programs  # noqa: E402, F401 - registers the programs
from regressions.grad2_registry import CPUS, MODES, PROGRAMS, match_for, run_program  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOGGLES = {"v1": "disable_control_flow_v2", "v2": "enable_control_flow_v2"}


def registry():
    """TensorFlow's rule for each op type of the table (ops._gradient_registry, which RegisterGradient and
    NotDifferentiable fill)."""
    out = {}
    for op_type in sorted(TABLE):
        entry = ops._gradient_registry._registry.get(op_type)
        if entry is None:
            out[op_type] = None
        elif entry["type"] is None:
            out[op_type] = "NotDifferentiable"
        else:
            fn = entry["type"]
            out[op_type] = f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__}"
    return out


def _stable(result):
    """Run-time messages quote the Python stack that built the node: the json keeps the message itself."""
    error = result.get("error")
    if error and error["phase"] == "run":
        message = error["message"]
        node = message.rfind("\nNode: ")
        if node >= 0:
            message = message[message.index("\n", node + 1) + 1:]
        error["message"] = re.sub(r"\s*\[\[\{\{node [^]]*\}\}\]\]", "", message).strip()
    return result


def main(argv):
    """Records the programs grad2_tf.json lacks, keeping what it holds; `--all` records every program again."""
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    path = os.path.join(HERE, "grad2_tf.json")
    kept = {} if "--all" in argv or not os.path.exists(path) else json.load(open(path))
    result = {"meta": {"tensorflow": tf.__version__, "numpy": np.__version__, "programs": len(PROGRAMS),
                       "api": "tf.compat.v1 graph mode (disable_eager_execution)"},
              "registry": registry()}
    for mode, toggle in TOGGLES.items():
        getattr(tf1, toggle)()
        result[mode] = {}
        for name, build in PROGRAMS.items():
            if mode not in MODES[name]:
                continue
            if name in kept.get(mode, {}):
                result[mode][name] = kept[mode][name]
                continue
            config = tf1.ConfigProto(device_count={"CPU": CPUS[name]})
            got = result[mode][name] = _stable(run_program(tf1, build, config))
            error, match = got.get("error"), match_for(name, mode)
            if error is not None and (match is None or match not in error["message"]):
                sys.exit(f"{mode} {name}: TensorFlow's error does not say {match!r}: {error}")
            print(mode, name, str(got)[:160].replace("\n", "\\n"))
    with open(path, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
