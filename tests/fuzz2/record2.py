"""Run the second fuzz family in TensorFlow (control flow v1 and v2, Grappler off, two CPUs); write its answers.

TensorFlow is not a dependency of cfnb; this runs in its own environment:

    /tmp/tfvenv/bin/python tests/fuzz2/record2.py                       # the corpus: corpus2_tf.json, seeds 0..499
    /tmp/tfvenv/bin/python tests/fuzz2/record2.py --seeds 500:1500 --jsonl /tmp/tf2.jsonl   # for fuzz2.py

corpus2_tf.json holds, per program, its source and feeds and TensorFlow's encoded results (harness2.encode) for
"v1" (values, first-order gradients) and "v2" (the same and the second-order gradient `grad2_x`).
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorflow as tf  # noqa: E402
from gen2 import generate  # noqa: E402
from harness2 import TWO_CPUS, build, encode, error_of, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def config(tf1):
    """Two CPUs, Grappler (TensorFlow's graph optimizer, which cfnb does not have) off."""
    from tensorflow.core.protobuf import rewriter_config_pb2
    rewrite = rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True)
    return tf1.ConfigProto(device_count=TWO_CPUS, graph_options=tf1.GraphOptions(rewrite_options=rewrite))


def record(tf1, program):
    out = {}
    for mode in ("v1", "v2"):
        (tf1.enable_control_flow_v2 if mode == "v2" else tf1.disable_control_flow_v2)()
        try:
            out[mode] = encode(run(tf1, build(tf1, program, second_order=mode == "v2"), config(tf1)))
        except Exception as e:  # noqa: BLE001 - TensorFlow's error is its answer
            out[mode] = error_of(e)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="0:500")
    parser.add_argument("--jsonl", help="stream {seed, digest, v1, v2} lines here instead of writing the corpus")
    parser.add_argument("--assemble", nargs="+", help="write the corpus from the --seeds lines of these --jsonl "
                                                      "files (recorded in parallel processes) instead of recording")
    args = parser.parse_args()
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    start = time.time()
    lo, hi = (int(s) for s in args.seeds.split(":"))
    if args.jsonl:
        with open(args.jsonl, "w") as f:
            for seed in range(lo, hi):
                program = generate(seed)
                f.write(json.dumps({"seed": seed, "digest": program.digest, **record(tf1, program)}) + "\n")
                f.flush()
        print(f"recorded seeds {lo}..{hi - 1} in {time.time() - start:.0f} s", file=sys.stderr)
        return
    if args.assemble:
        lines = {}
        for name in args.assemble:
            with open(name) as f:
                lines.update((d["seed"], d) for d in map(json.loads, f))
        assert all(lines[s]["digest"] == generate(s).digest for s in range(lo, hi)), "recorded by another gen2.py"
        entries = [{**generate(s).as_json(), "v1": lines[s]["v1"], "v2": lines[s]["v2"]} for s in range(lo, hi)]
    else:
        entries = [{**p.as_json(), **record(tf1, p)} for p in (generate(seed) for seed in range(lo, hi))]
    errors = sum("error" in e[m] for e in entries for m in ("v1", "v2"))
    meta = {"tensorflow": tf.__version__, "seeds": f"{lo}:{hi}", "generator": "gen2.py", "grappler": "off"}
    path = os.path.join(HERE, "corpus2_tf.json")
    with open(path, "w") as f:  # one program a line, so a re-recording diffs line by line
        f.write('{"meta":' + json.dumps(meta, separators=(",", ":")) + ',"programs":[\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in entries))
        f.write("\n]}\n")
    print(f"wrote {path}: {len(entries)} programs ({errors} TensorFlow errors) in {time.time() - start:.0f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
