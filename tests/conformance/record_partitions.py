"""Record TensorFlow's partitions for the programs of partition_programs.py (two CPU devices).

TensorFlow is never a dependency of cfnb; run this in a throwaway environment:

    /tmp/tfvenv/bin/python tests/conformance/record_partitions.py

It writes partitions_tf.json next to this file:

    {"meta": {"tensorflow": version},
     "v1": {program: {"values": {key: value}, "counts": {device index: {op type: count}},
                      "ops": {device index: {op type: count, for every op type in the partition}}}},
     "v2": {...}}

Grappler is off and the graph optimizer at L0, so the partitions are the graph as placed and partitioned
(lowering of functional ops still happens, as it does in every Session).
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from partition_programs import PROGRAMS  # noqa: E402 - this script's folder is on sys.path

HERE = os.path.dirname(os.path.abspath(__file__))
COUNTED = ("_Send", "_Recv", "_HostRecv", "Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond")


def device_index(name):
    return int(name.rsplit(":", 1)[1])


def record(tf1, build):
    graph = tf1.Graph()
    with graph.as_default():
        fetches, feeds = build(tf1)
    config = tf1.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True)
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    config.graph_options.optimizer_options.opt_level = tf1.OptimizerOptions.L0
    meta = tf1.RunMetadata()
    with tf1.Session(graph=graph, config=config) as sess:
        values = sess.run(fetches, feeds, options=tf1.RunOptions(output_partition_graphs=True), run_metadata=meta)
    counts, ops = {}, {}
    for pg in meta.partition_graphs:
        dev = device_index(pg.node[0].device)
        c = counts.setdefault(str(dev), {t: 0 for t in COUNTED})
        every = ops.setdefault(str(dev), {})
        for node in pg.node:
            if node.op in COUNTED:
                c[node.op] += 1
            every[node.op] = every.get(node.op, 0) + 1
    return {"values": {k: np.asarray(v).tolist() for k, v in values.items()}, "counts": counts, "ops": ops}


def main():
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    out = {"meta": {"tensorflow": tf.__version__}}
    for mode, toggle in (("v1", tf1.disable_control_flow_v2), ("v2", tf1.enable_control_flow_v2)):
        toggle()
        out[mode] = {name: record(tf1, build) for name, build in PROGRAMS.items()}
    path = os.path.join(HERE, "partitions_tf.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
