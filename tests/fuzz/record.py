"""Run generated programs in TensorFlow, with control flow v1 and v2, and write down its answers.

TensorFlow is not a dependency of cfnb; this runs in its own environment:

    /tmp/tfvenv/bin/python tests/fuzz/record.py                      # the corpus: corpus_tf.json, seeds 0..499
    /tmp/tfvenv/bin/python tests/fuzz/record.py --seeds 1000:2000 --jsonl /tmp/tf.jsonl   # for fuzz.py

corpus_tf.json holds, per program, its source and feeds (the program's identity, independent of later changes
to generator.py) and TensorFlow's encoded results (harness.encode) for "v1" and "v2".
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorflow as tf  # noqa: E402
from generator import generate  # noqa: E402
from harness import build, encode, error_of, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS_SEEDS = range(0, 500)


def without_grappler(tf1):
    """A session config with Grappler (TensorFlow's graph optimizer) off."""
    from tensorflow.core.protobuf import rewriter_config_pb2
    rewrite = rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True)
    return tf1.ConfigProto(graph_options=tf1.GraphOptions(rewrite_options=rewrite))


def record(tf1, program, config=None):
    """{"v1": encoded result, "v2": encoded result} for one program.

    About 2% of the programs make TensorFlow 2.21's v1 runs fail with "Retval[k] does not have value" (a fetch
    left dead) only when Grappler optimizes the graph: they mostly compare a tensor with itself (`x <= x`), and
    the optimized graph loses a live branch. The graph's own meaning is what cfnb implements (it has no
    Grappler), so for those the answer recorded is TensorFlow's with Grappler off, marked "grappler_off"."""
    out = {}
    for mode in ("v1", "v2"):
        (tf1.enable_control_flow_v2 if mode == "v2" else tf1.disable_control_flow_v2)()
        try:
            out[mode] = encode(run(tf1, build(tf1, program), config))
        except Exception as e:  # noqa: BLE001 - TensorFlow's error is its answer
            out[mode] = error_of(e)
            try:
                out[mode] = {**encode(run(tf1, build(tf1, program), without_grappler(tf1))), "grappler_off": True}
            except Exception:  # noqa: BLE001 - an error either way: keep the first
                pass
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default=f"{CORPUS_SEEDS.start}:{CORPUS_SEEDS.stop}")
    parser.add_argument("--jsonl", help="stream {seed, v1, v2} lines here instead of writing the corpus")
    parser.add_argument("--no-grappler", action="store_true",
                        help="run with Grappler off (a third less TensorFlow time; the graph's meaning is the same)")
    args = parser.parse_args()
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    start = time.time()
    if args.jsonl:
        lo, hi = (int(s) for s in args.seeds.split(":"))
        with open(args.jsonl, "w") as f:
            for seed in range(lo, hi):
                program = generate(seed)
                config = without_grappler(tf1) if args.no_grappler else None
                f.write(json.dumps({"seed": seed, "digest": program.digest, **record(tf1, program, config)}) + "\n")
                f.flush()
        print(f"recorded seeds {lo}..{hi - 1} in {time.time() - start:.0f} s", file=sys.stderr)
        return
    lo, hi = (int(s) for s in args.seeds.split(":"))
    programs = [generate(seed) for seed in range(lo, hi)]
    entries = [{**p.as_json(), **record(tf1, p)} for p in programs]
    errors = sum("error" in e[m] for e in entries for m in ("v1", "v2"))
    fallbacks = sum("grappler_off" in e[m] for e in entries for m in ("v1", "v2"))
    path = os.path.join(HERE, "corpus_tf.json")
    meta = {"tensorflow": tf.__version__, "seeds": f"{lo}:{hi}", "generator": "generator.py"}
    with open(path, "w") as f:  # one program a line, so a re-recording diffs line by line
        f.write('{"meta":' + json.dumps(meta, separators=(",", ":")) + ',"programs":[\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in entries))
        f.write("\n]}\n")
    print(f"wrote {path}: {len(entries)} programs ({errors} TensorFlow errors, {fallbacks} answers with Grappler "
          f"off) in {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
