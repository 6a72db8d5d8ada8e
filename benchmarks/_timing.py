"""Shared helpers for the hand-run benchmarks: best-of-N timing, an aligned table, optional TensorFlow.

TensorFlow is optional and never a dependency. Its rows are measured in a *separate process*:
once TensorFlow is imported, its thread pools compete with numpy's BLAS threads on a small machine
and slow the numpy work of the other rows (seen here: the numpy RNN ran 2x slower with TensorFlow
loaded). The child interpreter is CFNB_TF_PYTHON when set (e.g. a virtual environment with
`tensorflow-cpu`), else this interpreter if it can import TensorFlow; otherwise the rows say SKIPPED:

    CFNB_TF_PYTHON=/path/to/tf-venv/bin/python make bench
"""
import importlib.util
import json
import os
import subprocess
import sys
import time

import numpy as np

_tf = None
SKIPPED = "TensorFlow not importable: skipped"


def best_of(fn, repeat=5, warmup=1):
    """Best wall time of `fn()` in seconds over `repeat` runs, after `warmup` untimed runs."""
    return best_of_each({"fn": fn}, repeat, warmup)["fn"]


def best_of_each(fns, repeat=5, warmup=1):
    """{name: best wall time in seconds} for a dict of functions, timed *round-robin*.

    Alternating the functions run by run means a slow spell of the machine (another process, the
    CPU clock, BLAS threads waking up) lands on all of them alike instead of on whichever happened
    to be measured during it; on this 2-core machine sequential timing moved the RNN's cfnb/numpy
    ratio by up to 0.15x from run to run.
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def timed_rows(runs, checks, script, repeat, form="v1", scale=1e3):
    """Rows (name, seconds x scale) of `runs` timed round-robin (best of `repeat`), then TensorFlow's row, timed
    by `script`'s child run in control flow `form` when TensorFlow is available (its check joins `checks`).
    Returns (rows, whether TensorFlow was skipped)."""
    rows = [(name, seconds * scale) for name, seconds in best_of_each(runs, repeat=repeat).items()]
    tf = tf_row(script, repeat=repeat, form=form)
    if tf is not None:
        rows.append(("tensorflow", tf[0] * scale))
        checks.append(("tensorflow", tf[1]))
    return rows, tf is None


def session_runner(tf, built, feed_value, config=None):
    """A function that runs a built program once in an open Session, after one warm-up call that
    compiles and caches the graph. `built` is a benchmark's `build(...)`: (graph, placeholder,
    fetches); `feed_value` goes to the placeholder. The session closes when the function is dropped."""
    graph, placeholder, fetches = built
    sess = tf.Session(graph=graph, config=config)
    run = lambda: sess.run(fetches, {placeholder: feed_value})
    run()
    return run


def main_or_tensorflow(main, tensorflow_only):
    """A benchmark script's entry point: `--tensorflow REPEAT FORM` is the child run that times
    TensorFlow (see tf_row); otherwise run `main` and exit 1 if one of its checks failed."""
    if "--tensorflow" in sys.argv:
        tensorflow_only(int(sys.argv[-2]), sys.argv[-1])
    else:
        raise SystemExit(0 if main() else 1)


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
    """Equal up to float32 rounding of another summation order: the largest error at most 1e-4 of the largest
    value (TensorFlow's oneDNN and numpy's BLAS add a 512-term product in different orders, so an element near 0 can
    differ by 1e-6 relative to the whole: an element-wise rtol would call that a mismatch)."""
    a, b = np.asarray(a), np.asarray(b)
    scale = float(np.max(np.abs(b), initial=1.0))
    return a.shape == b.shape and float(np.max(np.abs(a - b), initial=0.0)) <= 1e-4 * scale


def tf_v1(form="v1"):
    """tensorflow.compat.v1 in graph mode with control flow `form`, or None if it is not importable."""
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
    if _tf:
        (_tf.enable_control_flow_v2 if form == "v2" else _tf.disable_control_flow_v2)()
    return _tf or None


def tf_python():
    """The interpreter that measures TensorFlow, or None."""
    if os.environ.get("CFNB_TF_PYTHON"):
        return os.environ["CFNB_TF_PYTHON"]
    return sys.executable if importlib.util.find_spec("tensorflow") else None


def tf_row(script, repeat, form="v1"):
    """Run `script --tensorflow REPEAT FORM` in a TensorFlow interpreter: (seconds, result ok) or None.
    FORM is "v1" (Switch/Merge control flow) or "v2" (functional While)."""
    python = tf_python()
    if python is None:
        return None
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
               TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run([python, script, "--tensorflow", str(repeat), form], capture_output=True, text=True,
                          env=env)
    if done.returncode != 0:
        print(f"  TensorFlow run failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["seconds"], result["ok"], result["version"]


def report_tf(seconds, ok):
    """What a `--tensorflow` child prints for its parent."""
    print(json.dumps({"seconds": seconds, "ok": bool(ok), "version": tf_v1().__version__}))
