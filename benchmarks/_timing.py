"""Shared helpers for the hand-run benchmarks: best-of-N timing, an aligned table, optional TensorFlow.

TensorFlow is optional and lives in its own environment (/work/tfenv, Python 3.11 like .venv, same
numpy). cfnb imports fine from there, so the TensorFlow rows run in the same process when the
benchmarks are started with that interpreter:

    PYTHONPATH=/work/main /work/tfenv/bin/python benchmarks/run_all.py

`run_all.py` does this by itself when TensorFlow is not importable and CFNB_TF_PYTHON names an
interpreter that has it (e.g. `CFNB_TF_PYTHON=/work/tfenv/bin/python make bench`). Otherwise
`tf_v1()` returns None, the TensorFlow rows are left out and the tables say SKIPPED.
"""
import os
import time

import numpy as np

_tf = None
SKIPPED = "TensorFlow not importable: skipped"


def best_of(fn, repeat=5, warmup=1):
    """Best wall time of `fn()` in seconds over `repeat` runs, after `warmup` untimed runs."""
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def print_table(title, unit, rows, subject="cfnb", targets=None, tf_skipped=False):
    """rows: (name, value) with the subject first; each other row shows subject/row as its ratio.

    targets: {row name: the largest subject/row ratio that meets the target}.
    """
    targets = targets or {}
    values = dict(rows)
    width = max(len(name) for name, _ in rows) + 2
    print(f"\n{title}\n  {'':{width}}{unit:>12}   ratio")
    for name, value in rows:
        line = f"  {name:{width}}{value:12.3f}"
        if name != subject:
            ratio = values[subject] / value
            line += f"   {subject}/{name} = {ratio:.2f}x"
            if name in targets:
                met = "met" if ratio <= targets[name] else "NOT met"
                line += f"   (target <= {targets[name]}x: {met})"
        print(line)
    if tf_skipped:
        print(f"  {SKIPPED}")


def check(what, results, agrees):
    """Print one line per (name, result) in `results`; True if `agrees(result)` for all of them."""
    oks = [bool(agrees(result)) for _, result in results]
    for (name, _), ok in zip(results, oks):
        print(f"  check {name} {what}: {'ok' if ok else 'FAILED'}")
    return all(oks)


def allclose(a, b):
    return np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-4, atol=1e-6)


def tf_v1():
    """tensorflow.compat.v1 in graph mode with control flow v1, or None if it is not importable."""
    global _tf
    if _tf is None:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        try:
            import tensorflow
        except ImportError:
            _tf = False
        else:
            _tf = tensorflow.compat.v1
            _tf.disable_eager_execution()
            _tf.disable_control_flow_v2()
    return _tf or None
