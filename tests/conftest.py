"""Shared fixtures: every test starts on a fresh default graph with control flow v1, and one that takes `mode` runs
once in each form (v1, v2).

Also how `make test` spreads the suite over pytest-xdist workers (`-n auto` in the Makefile: a worker per CPU, the
repository root's conftest.py): tests go one by one to
whichever worker is free, except what must stay together, which goes to one worker in file order
(`pytest_xdist_make_scheduler` below). Without this file (`pytest -n 2 notebooks/`), pyproject.toml's
`--dist loadscope` keeps every file together, which is right for notebooks and coarser for the rest."""
import pathlib
import re
import signal
import warnings

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
        """Cheaper for the controller than xdist's with a scope per test (measured on 6,000 empty tests under two
        workers: controller 17.3 -> 8.5 CPU-s, each worker ~12 -> ~9): xdist keeps every finished scope in a
        worker's `assigned_work` and counts the worker's pending tests over all of them on every report (and for
        every worker each time it asks whether the run is finished), finds each test's index by searching the
        collection, and sends a worker one scope per message. Here a finished scope leaves `assigned_work`,
        indexes come from a dict, and a message carries up to 8 scopes while the queue is long (one near its end,
        so the last tests still go to whichever worker is free)."""

        def __init__(self, config, log=None):
            super().__init__(config, log)
            self._indexes = {}  # worker -> {nodeid: its index in the worker's collection}

        def _split_scope(self, nodeid):
            return scope_of(nodeid, kept_together)

        def mark_test_complete(self, node, item_index, duration=0):
            nodeid = self.registered_collections[node][item_index]
            assigned = self.assigned_work[node]
            scope = self._split_scope(nodeid)
            assigned[scope][nodeid] = True
            if all(assigned[scope].values()):
                del assigned[scope]  # a crashed worker's unfinished scopes are what go back to the queue
            self._reschedule(node)

        def _assign_work_unit(self, node):
            if node not in self._indexes:
                self._indexes[node] = {nodeid: k for k, nodeid in enumerate(self.registered_collections[node])}
            index, todo = self._indexes[node], []
            while self.workqueue and len(todo) < min(8, len(self.workqueue) // 16 + 1):
                scope, work_unit = self.workqueue.popitem(last=False)
                self.assigned_work.setdefault(node, {})[scope] = work_unit
                todo += [index[nodeid] for nodeid, done in work_unit.items() if not done]
            node.send_runtest_some(todo)

    return Scheduling(config, log)


@pytest.fixture(autouse=True)
def _fresh_graph():
    cfnb.disable_control_flow_v2()
    cfnb.reset_default_graph()
    yield
    cfnb.disable_control_flow_v2()


@pytest.fixture(params=["v1", "v2"])
def mode(request):
    """Run the test once with control flow v1 and once with v2; `_fresh_graph` puts v1 back afterwards."""
    if request.param == "v2":
        cfnb.enable_control_flow_v2()
    return request.param


@pytest.fixture
def python_sigint():
    """For a test that stops a run with Ctrl-C (`_thread.interrupt_main()`): Python's own SIGINT handler, the one that
    raises KeyboardInterrupt, for the length of the test. Under any other, interrupt_main() does nothing at all, and
    the endless run the test starts would never stop.

    Ignored is the common case: a shell without job control starts a background job (`make test &`, a script's
    `cmd &`) with SIGINT ignored, every process it starts inherits that, and Python then leaves SIGINT alone instead of
    installing its handler. Every pytest worker of such a run hung in these tests (`make test` started that way,
    twice). This puts Python's handler back for the test and restores the disposition afterwards; any handler other
    than SIG_IGN (a library's left in the worker, e.g. asyncio's `add_signal_handler`, which nbclient uses) is also
    named in a warning."""
    found = signal.getsignal(signal.SIGINT)
    if found is not signal.default_int_handler:
        if found is not signal.SIG_IGN:
            warnings.warn(f"SIGINT's handler was {found!r}, left by an earlier test in this process; this test runs "
                          f"with Python's default_int_handler", stacklevel=1)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if found is not signal.default_int_handler:
        signal.signal(signal.SIGINT, found)


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
