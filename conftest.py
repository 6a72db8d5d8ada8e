"""pytest's first file (the repository root's conftest): it loads nbval, the notebooks' plugin, after putting a
stand-in for `rfc3987_syntax` in its place; pyproject.toml's addopts keep nbval's own entry point out
(`-p no:nbval`), which would load it before any conftest.

Why: nbval imports nbformat, nbformat imports jsonschema, and jsonschema imports `rfc3987_syntax` when it is
installed (jupyter_server's `jsonschema[format-nongpl]` installs it), a module that builds an Earley parser of RFC
3987 as it is imported: 3.4 CPU-seconds in every pytest process, the controller and each xdist worker. jsonschema
asks it only when a schema checks the "iri" format, which nbformat's schemas never do; the stand-in imports the real
module the first time it is asked, so nothing answers differently.

It also gives every test process, and the notebook kernels nbval starts, one BLAS thread (`OPENBLAS_NUM_THREADS`,
`MKL_NUM_THREADS`, unless already set) before numpy is imported: `make test` runs one xdist worker per core, and a
multi-device run calls BLAS from several device threads at once, where OpenBLAS's own threads spin against each
other (chapter 09's RNN runs: 4.8 CPU-s with two BLAS threads on this 2-core machine, 0.22 with one). Which kernel
runs is left alone (OPENBLAS_CORETYPE: see benchmarks/README.md).

And once a test process has collected its tests, it freezes what it holds (`gc.freeze()`, as the magic does in a
kernel when it loads) and collects the youngest generation every 10,000 allocations instead of 700: the modules,
the collected items and the recorded answers (TensorFlow's, in large JSON files) live for the whole run, and every
full collection walked them again, while building and compiling graphs allocates objects by the hundred thousand.
test_conformance.py and test_graph_def.py in one process: about 51 -> 39 CPU-s. tests/conftest.py holds the shared
fixtures.
"""
import functools
import gc
import importlib
import importlib.util
import os
import sys
import types

for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")


def _defer_rfc3987_syntax():
    """Put a stand-in for `rfc3987_syntax` in sys.modules that imports the real module on first use."""
    if "rfc3987_syntax" in sys.modules or importlib.util.find_spec("rfc3987_syntax") is None:
        return

    @functools.cache
    def real():
        del sys.modules["rfc3987_syntax"]
        return importlib.import_module("rfc3987_syntax")

    def attribute(name):
        """Any other public name, from the real module (PEP 562); `__file__` and the like are not asked of it, as
        tools that walk sys.modules ask them of every module."""
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(real(), name)

    stand_in = types.ModuleType("rfc3987_syntax", "Stands for rfc3987_syntax until it is used (conftest.py).")
    stand_in.is_valid_syntax = lambda term, value: real().is_valid_syntax(term, value)  # what jsonschema imports
    stand_in.__getattr__ = attribute
    sys.modules["rfc3987_syntax"] = stand_in


_defer_rfc3987_syntax()
pytest_plugins = ["nbval.plugin"]


def pytest_collection_finish(session):
    """What the process holds after collection lives for the run: frozen, and young objects collected less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, *gc.get_threshold()[1:])
