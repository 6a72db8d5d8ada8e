"""A stand-in for `rfc3987_syntax` that imports the real module the first time it is used.

Why: jsonschema imports `rfc3987_syntax` as it is imported itself, when that module is installed (jupyter_server's
`jsonschema[format-nongpl]` installs it), and the module builds an Earley parser of RFC 3987 as it is imported:
about 2.7 CPU-seconds. jsonschema asks it only when a schema checks the "iri" format, which neither nbformat's
schemas nor jupyter_events' do. Every process that imports nbformat or jupyter_server pays it: each pytest process
(the repository's conftest.py puts the stand-in in place) and JupyterLab's server (tools/lab_server.py does).
The stand-in imports the real module the first time it is asked, so nothing answers differently.
"""
import functools
import importlib
import importlib.util
import sys
import types


def defer_rfc3987_syntax():
    """Put a stand-in for `rfc3987_syntax` in sys.modules that imports the real module on first use (nothing is
    done where it is imported already or not installed)."""
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

    stand_in = types.ModuleType("rfc3987_syntax", "Stands for rfc3987_syntax until it is used (lazy_rfc3987.py).")
    stand_in.is_valid_syntax = lambda term, value: real().is_valid_syntax(term, value)  # what jsonschema imports
    stand_in.__getattr__ = attribute
    sys.modules["rfc3987_syntax"] = stand_in
