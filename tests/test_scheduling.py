"""How `make test` spreads the suite over pytest-xdist workers: how many workers `-n auto` starts (the repository
root's conftest.py), and which tests must stay on one worker, in order (tests/conftest.py)."""
import os


def _conftest(pytestconfig):
    """tests/conftest.py as pytest loaded it (an `import conftest` could get the repository root's instead)."""
    return next(p for p in pytestconfig.pluginmanager.get_plugins()
                if getattr(p, "__file__", "").endswith(os.path.join("tests", "conftest.py")))


def test_auto_starts_a_worker_per_cpu(pytestconfig, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert pytestconfig.hook.pytest_xdist_auto_num_workers(config=pytestconfig) == cpus
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "5")  # xdist's own setting still decides where it is set
    assert pytestconfig.hook.pytest_xdist_auto_num_workers(config=pytestconfig) == 5


def test_notebooks_and_files_sharing_a_fixture_stay_together(pytestconfig):
    conftest = _conftest(pytestconfig)
    kept = conftest._files_kept_together()
    assert {"tests/test_browser.py", "tests/test_book.py"} <= kept and "tests/test_ops.py" not in kept
    assert conftest.scope_of("notebooks/03_cond.ipynb::Cell 4", kept) == "notebooks/03_cond.ipynb"
    assert conftest.scope_of("tests/test_book.py::test_search_finds_the_chapters_from_file", kept) == \
        "tests/test_book.py"
    one = "tests/test_ops.py::test_op_matches_numpy[Add]"
    assert conftest.scope_of(one, kept) == one  # balanced on its own
