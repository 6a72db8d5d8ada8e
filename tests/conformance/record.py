"""Record what TensorFlow computes for every program in programs.py, with control flow v1 and v2.

TensorFlow is not a dependency of cfnb, so this runs in its own environment:

    /work/tfenv/bin/python tests/conformance/record.py

and writes expected_tf.json next to this file:

    {"meta":   {"tensorflow": version, ...},
     "v1":     {program: {key: value as nested lists}},     # or {"error": "Type: message"}
     "v2":     {...},
     "dtypes": {"v1": {program: {key: numpy dtype name}}, "v2": {...}},
     "shapes": {"v1": {program: {key: shape}}, "v2": {...}}}

Shapes are stored because nested lists lose them for empty arrays; dtypes because float32 vs int32 vs
float64 is part of what cfnb must reproduce.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from programs import PROGRAMS, build_program, run_program  # noqa: E402 - this script's folder is on sys.path

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = {"v1": "disable_control_flow_v2", "v2": "enable_control_flow_v2"}


def record_mode(tf1, mode):
    """Run every program under one control-flow mode: (values, dtypes, shapes)."""
    getattr(tf1, MODES[mode])()
    values, dtypes, shapes = {}, {}, {}
    for name, build in PROGRAMS.items():
        try:
            got = run_program(tf1, build)
        except Exception as e:  # noqa: BLE001 - recorded per program, the others still run
            values[name] = {"error": f"{type(e).__name__}: {e}"}
            print(f"{mode} {name}: TensorFlow error {values[name]['error'][:200]}", file=sys.stderr)
            continue
        values[name] = {k: v.tolist() for k, v in got.items()}
        dtypes[name] = {k: v.dtype.name for k, v in got.items()}
        shapes[name] = {k: list(v.shape) for k, v in got.items()}
    return values, dtypes, shapes


def differences(a, b):
    """Programs whose v1 and v2 results differ: worth knowing, because cfnb will need both."""
    out = []
    for name in a:
        x, y = a[name], b.get(name)
        if x.keys() != (y or {}).keys() or any(
                np.shape(x[k]) != np.shape(y[k]) or not np.allclose(x[k], y[k], rtol=2e-4, atol=2e-5)
                for k in x if k != "error"):
            out.append(name)
    return out


def graph_nodes(tf1, build):
    """Every op of the program's graph (control flow v1): name, type, inputs, control inputs."""
    graph, *_ = build_program(tf1, build)
    return [[op.name, op.type, [t.name for t in op.inputs], sorted(c.name for c in op.control_inputs)]
            for op in graph.get_operations()]


def record_graphs(tf1):
    tf1.disable_control_flow_v2()
    graphs = {name: graph_nodes(tf1, build) for name, build in PROGRAMS.items()}
    path = os.path.join(HERE, "graphs_tf.json")
    with open(path, "w") as f:
        json.dump(graphs, f, indent=0)
        f.write("\n")
    print(f"wrote {path}: the node lists of {len(graphs)} graphs")


def main():
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    result = {"meta": {"tensorflow": tf.__version__, "numpy": np.__version__,
                       "api": "tf.compat.v1 graph mode (disable_eager_execution)",
                       "programs": len(PROGRAMS)},
              "dtypes": {}, "shapes": {}}
    for mode in MODES:
        result[mode], result["dtypes"][mode], result["shapes"][mode] = record_mode(tf1, mode)
    path = os.path.join(HERE, "expected_tf.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    errors = {m: sorted(n for n, v in result[m].items() if "error" in v) for m in MODES}
    print(f"wrote {path}: {len(PROGRAMS)} programs; TensorFlow errors: {errors}")
    print(f"v1/v2 differences: {differences(result['v1'], result['v2'])}")
    record_graphs(tf1)


if __name__ == "__main__":
    main()
