"""Shared fixtures: every test starts on a fresh default graph with control flow v1.

Also how `make test` spreads the suite over pytest-xdist workers (`-n auto` in the Makefile, `--dist loadgroup` in
pyproject.toml): tests go one by one to whichever worker is free, except what must stay together, which goes to
one worker in file order (`pytest_collection_modifyitems` below)."""
import numpy as np
import pytest

import cfnb

SHARED_SCOPES = ("module", "package", "session")


def _keep_with_its_file(item):
    """True for a notebook cell (nbval runs a notebook's cells in order in one kernel) and for a test that uses a
    module- or session-scoped fixture of its own file (a Chromium, a built site, a JupyterLab server): split over
    two workers, such a fixture would be built twice, and rebuilt each time a worker comes back to the file."""
    if item.path.suffix == ".ipynb":
        return True
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    module_id = item.nodeid.split("::")[0]
    return any(d.scope in SHARED_SCOPES and d.baseid == module_id for ds in defs.values() for d in ds)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark what must stay together with its file's name as `xdist_group` (used by `--dist loadgroup`; harmless
    in a serial run). Runs first, so that xdist's own hook sees the marks."""
    for item in items:
        if _keep_with_its_file(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


@pytest.fixture(autouse=True)
def _fresh_graph():
    cfnb.disable_control_flow_v2()
    cfnb.reset_default_graph()
    yield
    cfnb.disable_control_flow_v2()


def run(fetches, feed_dict=None, static=True, trace=False):
    """Run on the default graph; `static=False` forces the tagged-token executor."""
    sess = cfnb.Session(config=cfnb.ConfigProto(static_schedule=static))
    if trace:
        meta = cfnb.RunMetadata()
        out = sess.run(fetches, feed_dict, options=cfnb.RunOptions(trace_level=cfnb.RunOptions.FULL_TRACE),
                       run_metadata=meta)
        return out, meta.trace
    return sess.run(fetches, feed_dict)


@pytest.fixture(scope="module")
def ip():
    """A real IPython shell with the extension loaded (`%load_ext cfnb`), for the magic's tests."""
    from IPython.testing import globalipapp
    shell = globalipapp.start_ipython() or globalipapp.get_ipython()
    shell.run_line_magic("load_ext", "cfnb")
    return shell


@pytest.fixture
def clean(ip):
    """The shell with `np` bound, as a notebook's `import numpy as np` would; names a test adds are removed."""
    ip.user_ns["np"] = np
    before = set(ip.user_ns)
    yield ip
    for name in set(ip.user_ns) - before:
        del ip.user_ns[name]
