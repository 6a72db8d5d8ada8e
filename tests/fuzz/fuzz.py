"""The long differential fuzz, run by hand: many generated programs, cfnb's five paths against TensorFlow.

    nice -n 10 .venv/bin/python tests/fuzz/fuzz.py --seeds 1000:11000 --tf /tmp/tfvenv/bin/python

TensorFlow runs in its own processes (record.py --jsonl, started here, in batches of seeds), cfnb in this one; each cfnb
path is compared with TensorFlow's answer for the same control-flow mode (both raising counts as agreeing).
Mismatches are grouped into classes (path, first line of the difference with numbers and names blurred) and
printed with the smallest seed of each class, which `python tests/fuzz/generator.py SEED` prints.
"""
import argparse
import collections
import itertools
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from cfnb_paths import PATHS, run_cfnb  # noqa: E402
from generator import generate  # noqa: E402
from harness import decode, mismatches  # noqa: E402


def classify(path, problems):
    text = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", problems[0])
    text = re.sub(r"\[[^\]]*\]", "[..]", text)
    text = re.sub(r"'[^']*'", "'..'", text)
    return f"{path}: {text[:120]}"


def tf_batches(tf_python, lo, hi, batch, workdir, jobs, extra_args=()):
    """Yield TensorFlow's lines in seed order, batch by batch, `jobs` TensorFlow processes recording ahead of
    the comparison. Batches recorded by an earlier run are read back, so a second run after a fix compares
    cfnb only."""
    def launch(a):
        b = min(a + batch, hi)
        out = os.path.join(workdir, f"tf_{a}_{b}.jsonl")
        if os.path.exists(out):
            return None, out  # complete: a batch is renamed into place only when recorded whole
        proc = subprocess.Popen(["nice", "-n", "10", tf_python, os.path.join(HERE, "record.py"),
                                 "--seeds", f"{a}:{b}", "--jsonl", out + ".partial", *extra_args],
                                stderr=subprocess.DEVNULL)
        return proc, out

    starts = iter(range(lo, hi, batch))
    running = collections.deque(launch(a) for a in itertools.islice(starts, jobs))
    while running:
        proc, out = running.popleft()
        if proc is not None:
            if proc.wait() != 0:
                sys.exit(f"record.py failed for {out}")
            os.rename(out + ".partial", out)
        nxt = next(starts, None)
        if nxt is not None:
            running.append(launch(nxt))
        with open(out) as f:
            yield from (json.loads(line) for line in f)


def replay(paths, lo, hi):
    """TensorFlow's lines for seeds lo..hi-1 from files written earlier (a stopped run's batches included)."""
    found = {}
    for path in paths:
        with open(path) as f:
            for text in f:
                if text.endswith("\n"):  # a batch stopped mid-line ends with a partial line
                    line = json.loads(text)
                    if lo <= line["seed"] < hi:
                        found[line["seed"]] = line
    yield from (found[seed] for seed in sorted(found))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="1000:2000")
    parser.add_argument("--tf", default="/tmp/tfvenv/bin/python")
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--workdir", default="/tmp/cfnb_fuzz")
    parser.add_argument("--jobs", type=int, default=2, help="TensorFlow processes recording at once")
    parser.add_argument("--no-grappler", action="store_true", help="record TensorFlow with Grappler off")
    parser.add_argument("--replay", nargs="+", help="compare with TensorFlow lines already in these files (complete "
                                                    "or .partial batches) instead of recording")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    lo, hi = (int(s) for s in args.seeds.split(":"))
    classes, first = collections.Counter(), {}
    n = 0
    start = time.time()
    if args.replay:
        lines = replay(args.replay, lo, hi)
    else:
        lines = tf_batches(args.tf, lo, hi, args.batch, args.workdir, args.jobs,
                           ["--no-grappler"] if args.no_grappler else [])
    for line in lines:
        seed = line["seed"]
        program = generate(seed)
        if line.get("digest") != program.digest:
            sys.exit(f"{args.workdir} holds TensorFlow answers for another version of generator.py: remove it")
        got = run_cfnb(program)
        n += 1
        for path, result in got.items():
            mode = PATHS[path][0]
            problems = mismatches(result, decode(line[mode]))
            if problems:
                key = classify(f"{path} vs tf-{mode}", problems)
                classes[key] += 1
                first.setdefault(key, seed)
        if n % 500 == 0:
            report(f"{n} programs (seeds {lo}..{seed}) in {time.time() - start:.0f} s", classes, first)
    report(f"done: {n} programs in {time.time() - start:.0f} s", classes, first)


def report(headline, classes, first):
    print(f"{headline}; {sum(classes.values())} mismatches in {len(classes)} classes", flush=True)
    for key, count in classes.most_common():
        print(f"{count:6d}  seed {first[key]:6d}  {key}", flush=True)


if __name__ == "__main__":
    main()
