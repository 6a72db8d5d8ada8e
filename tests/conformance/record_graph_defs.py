"""Record TensorFlow's GraphDefs for every conformance program, and check that cfnb's exported GraphDefs run in
TensorFlow with TensorFlow's answers.

TensorFlow is not a dependency of cfnb; run this with a Python that has tensorflow-cpu installed and the cfnb
checkout's own venv beside it (cfnb's exporter needs the `tensorboard` extra, which the TensorFlow environment
does not need to have):

    /tmp/tfvenv/bin/python tests/conformance/record_graph_defs.py [--cfnb-python .venv/bin/python]

It writes, next to this file:

  graph_defs/<mode>/<program>.pb.gz      TensorFlow 2.21's `graph.as_graph_def()` (binary, deterministic, gzip),
                                         control flow v1 and v2: what tests/test_graph_def.py imports into cfnb.
                                         (Binary, not text: protobuf parses text format in pure Python, ~50 ms a
                                         graph, against ~0.3 ms for the binary form, in every test run.)
  graph_defs/manifest.json               per mode and program: the fetched tensor names, the fed placeholder
                                         names and values (in the program's feed order) and the init op's name, so a
                                         GraphDef can be run without the Python that built it; and under
                                         "export_check" the outcome of (b) below.

(b) The export check: for each program and mode, cfnb builds the program and writes `as_graph_def()` as pbtxt
(in a subprocess running cfnb's venv: `--export-cfnb DIR`); here TensorFlow parses it (`text_format.Parse`),
imports it (`tf.compat.v1.import_graph_def(name="")`), runs the init op by name, feeds the placeholders by name,
fetches by name, and compares with TensorFlow's own answers (expected_tf.json, same tolerance as
tests/test_conformance.py). The per-program outcome and the counts per mode go into manifest.json.
"""
import argparse
import gzip
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "graph_defs"
MODES = {"v1": "disable_control_flow_v2", "v2": "enable_control_flow_v2"}
RTOL, ATOL = 2e-4, 2e-5

sys.path.insert(0, str(HERE))


def _program_names(tf, build_program, build):
    """(graph, {key: fetched tensor name}, [fed tensor names], [feed values], init op name or None)."""
    graph, fetches, feeds, init, _ = build_program(tf, build)
    return (graph, {k: v.name for k, v in fetches.items()}, [k.name for k in feeds], list(feeds.values()),
            None if init is None else init.name)


def export_cfnb(directory):
    """Run with cfnb's venv: write cfnb's GraphDef of every program, both modes, as <dir>/<mode>/<name>.pbtxt,
    with <dir>/names.json giving fetch, feed and init names (what cfnb calls them)."""
    sys.path.insert(0, str(HERE.parents[1]))
    from programs import PROGRAMS, build_program

    import cfnb
    names = {}
    for mode in MODES:
        getattr(cfnb, MODES[mode])()
        (pathlib.Path(directory) / mode).mkdir(parents=True, exist_ok=True)
        names[mode] = {}
        for name, build in PROGRAMS.items():
            try:
                graph, fetches, feeds, _, init = _program_names(cfnb, build_program, build)
                text = cfnb.io.graph_def_to_text(graph.as_graph_def())
            except Exception as e:  # noqa: BLE001 - recorded per program
                names[mode][name] = {"error": f"{type(e).__name__}: {e}"}
                continue
            (pathlib.Path(directory) / mode / f"{name}.pbtxt").write_text(text)
            names[mode][name] = {"fetches": fetches, "feeds": feeds, "init": init}
    cfnb.disable_control_flow_v2()
    (pathlib.Path(directory) / "names.json").write_text(json.dumps(names))


def _jsonable(value):
    """A fed value as {"value": nested lists, "dtype": numpy dtype name} (tests rebuild it with numpy)."""
    import numpy as np
    arr = np.asarray(value)
    return {"value": arr.tolist(), "dtype": arr.dtype.name}


def _nodes(path):
    """Every NodeDef of a recorded GraphDef, function bodies included."""
    import tensorflow as tf
    graph_def = tf.compat.v1.GraphDef()
    with gzip.open(path, "rb") as f:
        graph_def.ParseFromString(f.read())
    return list(graph_def.node) + [n for fn in graph_def.library.function for n in fn.node_def]


def _matches(got, want, dtypes, shapes):
    import numpy as np
    if sorted(got) != sorted(want):
        return f"fetched keys {sorted(got)} != {sorted(want)}"
    for key, value in got.items():
        expected = np.asarray(want[key], dtype=dtypes[key]).reshape(shapes[key])
        value = np.asarray(value)
        if value.dtype != expected.dtype or value.shape != expected.shape:
            return f"{key}: {value.dtype}{value.shape} != {expected.dtype}{expected.shape}"
        if np.issubdtype(expected.dtype, np.floating):
            if not np.allclose(value, expected, rtol=RTOL, atol=ATOL):
                return f"{key}: {value.tolist()} != {expected.tolist()}"
        elif not np.array_equal(value, expected):
            return f"{key}: {value.tolist()} != {expected.tolist()}"
    return None


def run_graph_def(tf1, text, names, feed_values):
    """Import a pbtxt GraphDef into a fresh TensorFlow graph and run it by names: {key: value}."""
    from google.protobuf import text_format
    graph_def = text_format.Parse(text, tf1.GraphDef())
    graph = tf1.Graph()
    with graph.as_default():
        tf1.import_graph_def(graph_def, name="")
    with tf1.Session(graph=graph) as sess:
        if names["init"]:
            sess.run(graph.get_operation_by_name(names["init"]))
        feeds = {graph.get_tensor_by_name(n): v for n, v in zip(names["feeds"], feed_values)}
        return sess.run({k: graph.get_tensor_by_name(n) for k, n in names["fetches"].items()}, feed_dict=feeds)


def record_op_defs(tf, types):
    """TensorFlow's OpDefs (argument names, type attrs, attr defaults) of every op type cfnb registers or
    TensorFlow's recorded graphs use, as an OpList in text format: cfnb/graph_def/op_defs.pbtxt, the table
    cfnb's exporter and importer read TensorFlow's signatures from (so FunctionDef inputs such as
    `while/Less:z:0` and attrs such as `T` and `Truncate` come out as TensorFlow's)."""
    from tensorflow.core.framework import op_def_pb2
    from tensorflow.python.framework import op_def_registry
    sys.path.insert(0, str(HERE.parents[1]))
    from cfnb.framework.registry import registered_types
    op_list = op_def_pb2.OpList()
    for t in sorted(set(types) | set(registered_types())):
        op_def = op_def_registry.get(t)
        if op_def is not None:
            op_def = op_def_pb2.OpDef.FromString(op_def.SerializeToString())
            op_def.ClearField("description")
            op_def.ClearField("summary")
            for a in list(op_def.input_arg) + list(op_def.output_arg) + list(op_def.attr):
                a.ClearField("description")
            op_list.op.append(op_def)
    path = HERE.parents[1] / "cfnb" / "graph_def" / "op_defs.pbtxt"
    path.write_text(f"# TensorFlow {tf.__version__}'s OpDefs, written by tests/conformance/record_graph_defs.py\n"
                    + str(op_list))
    print(f"wrote {path}: {len(op_list.op)} OpDefs")


def main(cfnb_python, tf_only=False):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from programs import PROGRAMS, build_program
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    expected = json.loads((HERE / "expected_tf.json").read_text())
    manifest = {"meta": {"tensorflow": tf.__version__, "programs": len(PROGRAMS)}}
    feed_values = {}
    for mode in MODES:
        getattr(tf1, MODES[mode])()
        (OUT / mode).mkdir(parents=True, exist_ok=True)
        manifest[mode], feed_values[mode] = {}, {}
        for name, build in PROGRAMS.items():
            graph, fetches, feeds, values, init = _program_names(tf1, build_program, build)
            with gzip.GzipFile(OUT / mode / f"{name}.pb.gz", "wb", compresslevel=9, mtime=0) as f:
                f.write(graph.as_graph_def().SerializeToString(deterministic=True))  # mtime=0: same graph, same bytes
            manifest[mode][name] = {"fetches": fetches, "feeds": feeds, "init": init,
                                    "feed_values": [_jsonable(v) for v in values]}
            feed_values[mode][name] = values
    tf1.disable_control_flow_v2()
    record_op_defs(tf, {n.op for mode in MODES for name in PROGRAMS for n in _nodes(OUT / mode / f"{name}.pb.gz")})

    if tf_only:  # keep the last export check
        old = OUT / "manifest.json"
        if old.exists():
            manifest["export_check"] = json.loads(old.read_text()).get("export_check", {})
        (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
        return
    # (b) cfnb's exports, run by TensorFlow.
    check = {}
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([cfnb_python, __file__, "--export-cfnb", tmp], check=True)
        names = json.loads((pathlib.Path(tmp) / "names.json").read_text())
        for mode in MODES:
            check[mode] = {}
            for name in PROGRAMS:
                want = expected[mode][name]
                if "error" in want:
                    check[mode][name] = "TensorFlow itself fails"
                    continue
                if "error" in names[mode][name]:
                    check[mode][name] = f"cfnb export failed: {names[mode][name]['error'][:300]}"
                    continue
                text = (pathlib.Path(tmp) / mode / f"{name}.pbtxt").read_text()
                try:
                    got = run_graph_def(tf1, text, names[mode][name], feed_values[mode][name])
                    problem = _matches(got, want, expected["dtypes"][mode][name], expected["shapes"][mode][name])
                except Exception as e:  # noqa: BLE001 - recorded per program
                    problem = f"{type(e).__name__}: {str(e)[:300]}"
                check[mode][name] = problem or "ok"
                if problem:
                    print(f"{mode} {name}: {problem[:200]}", file=sys.stderr)
    counts = {mode: sum(v == "ok" for v in check[mode].values()) for mode in MODES}
    runnable = {mode: sum(v != "TensorFlow itself fails" for v in check[mode].values()) for mode in MODES}
    manifest["export_check"] = {"counts": {m: f"{counts[m]} of {runnable[m]}" for m in MODES}, **check}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    size = sum(p.stat().st_size for p in OUT.rglob("*"))
    print(f"wrote {OUT}: {len(PROGRAMS)} programs x {len(MODES)} modes, {size / 1e6:.1f} MB")
    print(f"cfnb's exported graphs that run in TensorFlow with TensorFlow's answers: "
          f"{manifest['export_check']['counts']}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cfnb-python", default=str(HERE.parents[1] / ".venv" / "bin" / "python"))
    parser.add_argument("--export-cfnb", metavar="DIR", help="(internal) write cfnb's GraphDefs to DIR")
    parser.add_argument("--tf-only", action="store_true", help="record TensorFlow's GraphDefs only")
    args = parser.parse_args()
    if args.export_cfnb:
        export_cfnb(args.export_cfnb)
    else:
        main(args.cfnb_python, args.tf_only)
