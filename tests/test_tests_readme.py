"""tests/README.md stays in step with the files: it lists every test file (in its "Test files" table), maps every
module of `cfnb/` and `magics/` to tests (in its "Module → tests" tables), and names no file that does not exist.
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
TEXT = (TESTS / "README.md").read_text(encoding="utf-8")
MAP, _, FILES = TEXT.partition("\n## Test files")

MODULE_RE = re.compile(r"`((?:cfnb|magics)/[\w/]+\.py)`")
TEST_FILE_RE = re.compile(r"`((?:[\w]+/)?test_\w+\.py)`")


def _modules():
    return sorted(p.relative_to(ROOT).as_posix() for top in ("cfnb", "magics") for p in (ROOT / top).rglob("*.py"))


def _test_files():
    return sorted(p.relative_to(TESTS).as_posix() for p in TESTS.rglob("test_*.py"))


def _mapped():
    """{module: [test files]} from the map's table rows."""
    mapped = {}
    for row in MAP.splitlines():
        cells = row.split(" | ")
        if row.startswith("| `") and len(cells) == 2:
            for module in MODULE_RE.findall(cells[0]):
                mapped.setdefault(module, []).extend(TEST_FILE_RE.findall(cells[1]))
    return mapped


def test_every_module_is_mapped_to_tests():
    mapped = _mapped()
    missing = [m for m in _modules() if not mapped.get(m)]
    assert not missing, f"tests/README.md maps no tests to: {missing}"


def test_every_test_file_is_listed():
    listed = {row.split(" | ")[0][3:-1] for row in FILES.splitlines() if row.startswith("| `")}
    assert sorted(listed) == _test_files(), (f"missing from tests/README.md: {sorted(set(_test_files()) - listed)}; "
                                             f"listed but gone: {sorted(listed - set(_test_files()))}")


def test_every_name_in_the_readme_exists():
    gone = [m for m in set(MODULE_RE.findall(TEXT)) if not (ROOT / m).is_file()]
    gone += [t for t in set(TEST_FILE_RE.findall(TEXT)) if not (TESTS / t).is_file()]
    assert not gone, f"tests/README.md names files that do not exist: {sorted(gone)}"


def test_the_checker_reads_the_tables():
    mapped = _mapped()
    assert mapped["cfnb/runtime/executor.py"][0] == "test_executor.py"
    assert "test_lowering.py" in mapped["cfnb/passes/lowering.py"]
    assert len(mapped) > 100
