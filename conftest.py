"""pytest's first file (the repository root's conftest): it loads nbval, the notebooks' plugin, after putting a
stand-in for `rfc3987_syntax` in its place; pyproject.toml's addopts keep nbval's own entry point out
(`-p no:nbval`), which would load it before any conftest.

Why: nbval imports nbformat, nbformat imports jsonschema, and jsonschema imports `rfc3987_syntax` when it is
installed, a module that builds an Earley parser as it is imported: 2.7 CPU-seconds in every pytest process, the
controller and each xdist worker, for a format nbformat's schemas never check. tools/lazy_rfc3987.py says more; the
stand-in imports the real module the first time it is asked, so nothing answers differently.

It also gives every test process, and the notebook kernels nbval starts, one BLAS thread (`OPENBLAS_NUM_THREADS`,
`MKL_NUM_THREADS`, unless already set) before numpy is imported: `make test` runs an xdist worker per CPU, and a
multi-device run calls BLAS from several device threads at once, where OpenBLAS's own threads spin against
each other (chapter 09's RNN runs: 4.8 CPU-s with two BLAS threads on this 2-core machine, 0.22 with one). Which kernel
runs is left alone (OPENBLAS_CORETYPE: see benchmarks/README.md).

And once a test process has collected its tests, it freezes what it holds (`gc.freeze()`, as the magic does in a
kernel when it loads) and collects the youngest generation every 10,000 allocations instead of 700: the modules,
the collected items and the recorded answers (TensorFlow's, in large JSON files) live for the whole run, and every
full collection walked them again, while building and compiling graphs allocates objects by the hundred thousand.
test_conformance.py and test_graph_def.py in one process: about 51 -> 39 CPU-s. tests/conftest.py holds the shared
fixtures; how many workers `-n auto` starts is decided here (`pytest_xdist_auto_num_workers`).
"""
import gc
import os
import pathlib
import sys

sys.path.append(str(pathlib.Path(__file__).resolve().parent / "tools"))
from lazy_rfc3987 import defer_rfc3987_syntax  # noqa: E402

for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")


defer_rfc3987_syntax()
pytest_plugins = ["nbval.plugin"]


def pytest_collection_finish(session):
    """What the process holds after collection lives for the run: frozen, and young objects collected less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, *gc.get_threshold()[1:])


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (what `make test` passes): one worker per CPU this process may run on (xdist's own count may be the
    physical cores). (Here, not in tests/conftest.py, which xdist has not read yet when it counts.)

    A third worker on this 2-core machine once paid for itself: browser tests and notebooks wait while Chromium,
    JupyterLab or a kernel works, and it filled those gaps (with pyenv's Python, in runs taken in turn while the host
    was slow: 150-175 s -> 141-154 s). On the distribution's faster Python it no longer does: in four pairs of
    `make test` runs taken in turn, two workers took 151, 160, 165, 157 s and three 157, 162, 164, 162 s, and three
    kept the CPUs busier for the same work, by 19 CPU-seconds on average (its own collection, about 3.5 CPU-s, and
    the switching between three busy processes on two cores). PYTEST_XDIST_AUTO_NUM_WORKERS still decides where it
    is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
