"""Shared fixtures: every test starts on a fresh default graph with control flow v1.

Also how `make test` spreads the suite over pytest-xdist workers (`-n auto` in the Makefile): tests go one by one to
whichever worker is free, except what must stay together, which goes to one worker in file order
(`pytest_xdist_make_scheduler` below). Without this file (`pytest -n 2 notebooks/`), pyproject.toml's
`--dist loadscope` keeps every file together, which is right for notebooks and coarser for the rest."""
import pathlib
import re

import numpy as np
import pytest

import cfnb

TESTS = pathlib.Path(__file__).resolve().parent
SHARED_FIXTURE = re.compile(r"@pytest\.fixture\(scope=\"(module|package|session)\"")


def _files_kept_together():
    """Test files that define a module- or session-scoped fixture (a Chromium, a built site, a JupyterLab server):
    split over two workers such a fixture would be built twice, and rebuilt each time a worker comes back to the
    file."""
    root = TESTS.parent
    return {p.relative_to(root).as_posix() for p in TESTS.rglob("test_*.py")
            if SHARED_FIXTURE.search(p.read_text(encoding="utf-8"))}


def scope_of(nodeid, kept_together):
    """The unit of work a test goes to a worker in: its file for a notebook's cell (nbval runs a notebook's cells in
    order in one kernel) or a file in `kept_together`; the test itself otherwise."""
    path = nodeid.split("::")[0]
    return path if path.endswith(".ipynb") or path in kept_together else nodeid


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's scope scheduling with our scopes (`scope_of`): notebooks and files sharing a fixture stay on one worker
    in order, every other test is balanced on its own. (xdist's `--dist loadgroup` would need `xdist_group` marks on
    every notebook cell, which a conftest cannot get to xdist in time: the cells were found split over workers.)"""
    from xdist.scheduler import LoadScopeScheduling

    kept_together = _files_kept_together()

    class Scheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return scope_of(nodeid, kept_together)

    return Scheduling(config, log)


@pytest.fixture(autouse=True)
def _fresh_graph():
    cfnb.disable_control_flow_v2()
    cfnb.reset_default_graph()
    yield
    cfnb.disable_control_flow_v2()


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
