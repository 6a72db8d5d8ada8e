"""Record what TensorFlow 2.21 answers for every hostile GraphDef of graph_def_cases.py and every hostile run of
run_cases.py.

TensorFlow is not a dependency of cfnb; run this with a Python that has tensorflow-cpu:

    /tmp/tfvenv/bin/python tests/hostile/record_hostile.py [case ...]   # every case, or the ones named

Each case runs in its own child process (limited to 4 GB of address space and 60 s, so a graph that makes TensorFlow
allocate or loop forever costs nothing): the text is parsed with `text_format.Parse` (bytes with
`GraphDef.FromString`), imported with `tf.compat.v1.import_graph_def(name="")` and, when the case names a fetch and
may run, run in a Session. The run cases run in this process, in control flow v1 and v2. It writes hostile_tf.json
next to this file: {"cases": {case: answer}, "runs": {"v1": {case: answer}, "v2": {...}}}, an answer being
{"phase": "parse" | "import" | "run" | "ok", "type": class name, "message": str, "value": fetched value}.
"""
import json
import os
import pathlib
import resource
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def one(name):
    """In the child: TensorFlow's answer for case `name`, as a dict."""
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np
    import tensorflow as tf
    from google.protobuf import text_format
    from graph_def_cases import CASES

    case = CASES[name]
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    try:
        if isinstance(case.graph_def, bytes):
            gd = tf1.GraphDef.FromString(case.graph_def)
        else:
            gd = text_format.Parse(case.graph_def, tf1.GraphDef())
    except Exception as e:  # noqa: BLE001 - recorded
        return {"phase": "parse", "type": type(e).__name__, "message": str(e)}
    graph = tf1.Graph()
    with graph.as_default():
        try:
            tf1.import_graph_def(gd, name="")
        except Exception as e:  # noqa: BLE001 - recorded
            return {"phase": "import", "type": type(e).__name__, "message": str(e)}
        if not case.fetch or not case.run_tf:
            return {"phase": "ok", "ran": False}
        try:
            with tf1.Session(graph=graph) as sess:
                value = sess.run(case.fetch, options=tf1.RunOptions(timeout_in_ms=20000))
        except Exception as e:  # noqa: BLE001 - recorded
            return {"phase": "run", "type": type(e).__name__, "message": str(e)}
    return {"phase": "ok", "ran": True, "value": np.asarray(value).tolist()}


def record_runs():
    """{"v1": {case: answer}, "v2": {...}} for run_cases.py, in this process."""
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np
    import tensorflow as tf
    from run_cases import CASES
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    out = {}
    for mode in ("v1", "v2"):
        (tf1.enable_control_flow_v2 if mode == "v2" else tf1.disable_control_flow_v2)()
        out[mode] = {}
        for name, case in CASES.items():
            graph, action = case(tf1)
            try:
                value = action(tf1.Session(graph=graph), tf1)
                out[mode][name] = {"phase": "ok", "value": np.asarray(value).tolist()}
            except Exception as e:  # noqa: BLE001 - recorded, without the Python stack TensorFlow appends
                message = "\n".join(line for line in str(e).split("\n") if 'File "' not in line)
                out[mode][name] = {"phase": "run", "type": type(e).__name__, "message": message}
    return out


def main(only=()):
    """Record every case, or only the cases named (keeping the others' records)."""
    sys.path.insert(0, str(HERE))
    from graph_def_cases import CASES
    path = HERE / "hostile_tf.json"
    out = json.loads(path.read_text())["cases"] if only else {}
    out = {name: out[name] for name in CASES if name in out}
    for name in only or CASES:
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        try:
            proc = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True, timeout=60,
                                  preexec_fn=limit)
        except subprocess.TimeoutExpired:
            out[name] = {"phase": "timeout", "seconds": 60}
            print(name, out[name])
            continue
        lines = proc.stdout.strip().splitlines()
        if proc.returncode != 0 or not lines:
            out[name] = {"phase": "crash", "returncode": proc.returncode, "stderr": proc.stderr[-2000:]}
        else:
            out[name] = json.loads(lines[-1])
        print(name, out[name])
    import tensorflow as tf
    out = {name: out[name] for name in CASES}
    runs = record_runs()
    path.write_text(json.dumps({"meta": {"tensorflow": tf.__version__}, "cases": out, "runs": runs}, indent=1) + "\n")
    print(f"wrote {path}: {len(out)} GraphDefs, {len(runs['v1'])} runs in control flow v1 and v2")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        sys.path.insert(0, str(HERE))
        print(json.dumps(one(sys.argv[2])))
    else:
        main(sys.argv[1:])
