"""Record what TensorFlow answers for every program of reliab_programs.py, with control flow v1 and v2.

TensorFlow is not a dependency of cfnb, so this runs in its own environment:

    /tmp/tfvenv/bin/python tests/regressions/record_reliab.py

and writes reliab_tf.json next to this file: {"meta": {...}, "v1": {program: result}, "v2": {...}} where a result
is {"values": {key: nested lists}, "dtypes": {key: numpy dtype}, "shapes": {key: run-time shape},
"static": {key: static shape as a list, None for an unknown rank}} or, where TensorFlow refuses the program,
{"error": {"phase": "build" | "run", "type": class name, "message": str}} (plus "static" when the graph was built).
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from reliab_programs import INIT, PROGRAMS, match_for  # noqa: E402 - this script's folder is on sys.path

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = {"v1": "disable_control_flow_v2", "v2": "enable_control_flow_v2"}


def static_shape(t):
    return None if t.shape.ndims is None else list(t.shape.as_list())


def record(tf1, build):
    graph = tf1.Graph()
    with graph.as_default():
        try:
            fetches, feeds = build(tf1)
        except Exception as e:  # noqa: BLE001 - recorded per program
            return {"error": {"phase": "build", "type": type(e).__name__, "message": str(e)}}
        feeds = dict(feeds)
        init = feeds.pop(INIT, None)
        out = {"static": {k: static_shape(t) for k, t in fetches.items()}}
        try:
            with tf1.Session(graph=graph) as sess:
                if init is not None:
                    sess.run(init)
                values = {k: np.asarray(v) for k, v in sess.run(fetches, feed_dict=feeds).items()}
        except Exception as e:  # noqa: BLE001
            out["error"] = {"phase": "run", "type": type(e).__name__, "message": str(e)}
            return out
    out.update(values={k: v.tolist() for k, v in values.items()}, dtypes={k: v.dtype.name for k, v in values.items()},
               shapes={k: list(v.shape) for k, v in values.items()})
    return out


def main():
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    result = {"meta": {"tensorflow": tf.__version__, "numpy": np.__version__, "programs": len(PROGRAMS),
                       "api": "tf.compat.v1 graph mode (disable_eager_execution)"}}
    for mode, toggle in MODES.items():
        getattr(tf1, toggle)()
        result[mode] = {name: record(tf1, build) for name, build in PROGRAMS.items()}
        for name, got in result[mode].items():
            error = got.get("error")
            match = match_for(name, mode)
            if error is not None and (match is None or match not in error["message"]):
                sys.exit(f"{mode} {name}: TensorFlow's error does not say {match!r}: {error}")
    path = os.path.join(HERE, "reliab_tf.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(f"wrote {path}: {len(PROGRAMS)} programs")


if __name__ == "__main__":
    main()
