"""The long differential run of the second fuzz family, by hand: cfnb's five paths against TensorFlow.

    nice -n 10 .venv/bin/python tests/fuzz2/fuzz2.py --seeds 500:1500 --tf /tmp/tfvenv/bin/python

TensorFlow runs in its own processes (record2.py --jsonl, `--jobs` at once, batches of `--batch` seeds kept in
`--workdir`, so a second run after a fix compares cfnb only); cfnb runs here. Prints, per path, how many programs
agree with TensorFlow's answer in the same control-flow mode, and the mismatches grouped into classes (numbers and
names blurred) with the smallest seed of each (`python tests/fuzz2/gen2.py SEED` prints the program).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gen2 import generate  # noqa: E402
from harness2 import decode, mismatches  # noqa: E402
from paths2 import PATHS, run_cfnb  # noqa: E402


def classify(path, problem):
    text = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", problem)
    text = re.sub(r"\[[^\]]*\]", "[..]", text)
    text = re.sub(r"'[^']*'", "'..'", text)
    return f"{path}: {text[:140]}"


def tf_lines(tf_python, lo, hi, batch, workdir, jobs):
    """TensorFlow's lines for seeds lo..hi-1, recorded `jobs` batches at a time (finished batches are reused)."""
    pending = []
    for a in range(lo, hi, batch):
        out = os.path.join(workdir, f"tf2_{a}_{min(a + batch, hi)}.jsonl")
        pending.append((a, min(a + batch, hi), out))
    for k in range(0, len(pending), jobs):
        procs = []
        for a, b, out in pending[k:k + jobs]:
            if not os.path.exists(out):
                procs.append((subprocess.Popen(["nice", "-n", "10", tf_python, os.path.join(HERE, "record2.py"),
                                                "--seeds", f"{a}:{b}", "--jsonl", out + ".partial"],
                                               stderr=subprocess.DEVNULL), out))
        for proc, out in procs:
            if proc.wait() != 0:
                sys.exit(f"record2.py failed for {out}")
            os.rename(out + ".partial", out)
        for _, _, out in pending[k:k + jobs]:
            with open(out) as f:
                yield from map(json.loads, f)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="500:1500")
    parser.add_argument("--tf", default="/tmp/tfvenv/bin/python")
    parser.add_argument("--batch", type=int, default=125)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--workdir", default="/tmp/cfnb_fuzz2")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    lo, hi = (int(s) for s in args.seeds.split(":"))
    classes, first, agree, n, start = collections.Counter(), {}, collections.Counter(), 0, time.time()
    for line in tf_lines(args.tf, lo, hi, args.batch, args.workdir, args.jobs):
        program = generate(line["seed"])
        if line["digest"] != program.digest:
            sys.exit(f"{args.workdir} holds TensorFlow answers for another gen2.py: remove it")
        n += 1
        for path, result in run_cfnb(program).items():
            problems = mismatches(result, decode(line[PATHS[path][0]]))
            agree[path] += not problems
            if problems:
                key = classify(path, problems[0])
                classes[key] += 1
                first.setdefault(key, line["seed"])
    print(f"{n} programs in {time.time() - start:.0f} s; agreeing with TensorFlow per path: "
          + ", ".join(f"{p} {agree[p]}/{n}" for p in PATHS))
    for key, count in classes.most_common():
        print(f"{count:6d}  seed {first[key]:6d}  {key}")


if __name__ == "__main__":
    main()
