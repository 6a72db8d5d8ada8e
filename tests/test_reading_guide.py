"""docs/reading-guide.md names real code: every file, function, class and chapter it names exists, and the line
counts it states are those of the code today, so the guide cannot rot as modules are split or rewritten.

The guide's counted steps are `## N · title (L lines)` headings, each with items `path::Name` (L lines) where
Name is a module-level function or class, or `Class.method`. The "Further reading" section is checked the same
way but not counted in the budget. Definitions are found with `ast`, never by importing.
"""
import ast
import json
import pathlib
import re

import pytest
from source_trees import parsed

ROOT = pathlib.Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "reading-guide.md"
TEXT = GUIDE.read_text(encoding="utf-8")
COUNTED, _, FURTHER = TEXT.partition("\n## Further reading")

BUDGET = 1500        # the "at most ~1,500 lines" for the counted steps
TOLERANCE = 0.15     # how far a stated count may drift from the code before the guide must be updated

STEP_RE = re.compile(r"^## (\d+) · .*\((\d+) lines\)$", re.M)
ITEM_RE = re.compile(r"`((?:cfnb|magics)/[\w/]+\.py)::([\w.]+)` \((\d+) lines?\)")
REF_RE = re.compile(r"`((?:cfnb|magics)/[\w/]+\.py)(?:::([\w.]+))?`")
NOTEBOOK_RE = re.compile(r"notebooks/\d\d_\w+\.ipynb")
TF_RE = re.compile(r"`(tensorflow/[\w/]+\.(?:py|cc|h))`")
TOTAL_RE = re.compile(r"\*\*Total: ([\d,]+) lines\*\*")
TABLE_ROW_RE = re.compile(r"^\| (\d+) \| .* \| (\d+) \| [\d, ]+ \|$", re.M)
START_RE = re.compile(r"^## Start here · .*\((\d+) lines\)$", re.M)
TINY = ROOT / "docs" / "tiny_executor.py"


def _steps():
    """[(number, stated lines, section text)] of the counted steps, in order."""
    heads = list(STEP_RE.finditer(COUNTED))
    ends = [h.start() for h in heads[1:]] + [len(COUNTED)]
    return [(int(h.group(1)), int(h.group(2)), COUNTED[h.end():end]) for h, end in zip(heads, ends, strict=True)]


STEPS = _steps()
COUNTED_ITEMS = [(path, name, int(n)) for _, _, text in STEPS for path, name, n in ITEM_RE.findall(text)]
ALL_ITEMS = COUNTED_ITEMS + [(path, name, int(n)) for path, name, n in ITEM_RE.findall(FURTHER)]
FILES = sorted({path for path, _ in REF_RE.findall(TEXT)})
NAMES = sorted({(path, name) for path, name in REF_RE.findall(TEXT) if name})
NOTEBOOKS = sorted(set(NOTEBOOK_RE.findall(TEXT)))


def _module(path):
    return parsed(ROOT / path)


def _definition_span(path, dotted):
    """Lines of code of `dotted` ("f", "Class" or "Class.method") in `path`, from ast; None when it is not defined
    there. Its own docstring is not counted: like the module docstrings, it is reading help, not code to read
    (so documenting a function never pushes a step over the budget)."""
    if not (ROOT / path).is_file():
        return None
    node = _module(path)
    for part in dotted.split("."):
        node = next((n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
    first = node.body[0]
    docstring = ast.get_docstring(node) is not None
    return node.end_lineno - node.lineno + 1 - (first.end_lineno - first.lineno + 1 if docstring else 0)


def _close(actual, stated, tolerance=TOLERANCE):
    return abs(actual - stated) <= max(2, tolerance * stated)


def test_the_checker_finds_definitions_and_refuses_missing_ones():
    assert _definition_span("cfnb/runtime/executor.py", "ExecutorState.run") > 10
    assert _definition_span("cfnb/runtime/executor.py", "FrameState") > 5
    assert _definition_span("cfnb/runtime/executor.py", "ExecutorState.no_such_method") is None
    assert _definition_span("cfnb/runtime/executor.py", "NoSuchClass") is None
    assert _definition_span("cfnb/no_such_module.py", "f") is None


def test_every_counted_step_names_code_tensorflow_and_a_chapter():
    assert [n for n, _, _ in STEPS] == list(range(1, len(STEPS) + 1)), "steps must be numbered 1, 2, 3, ..."
    assert len(STEPS) >= 8
    for number, stated, text in STEPS:
        items = ITEM_RE.findall(text)
        assert items, f"step {number} names no function or class to read"
        assert TF_RE.search(text), f"step {number} names no TensorFlow file"
        assert NOTEBOOK_RE.search(text), f"step {number} names no course chapter"
        assert stated == sum(int(n) for _, _, n in items), \
            f"step {number}: the count in its heading is not the sum of its items"


def test_the_stated_total_is_the_sum_of_the_steps_and_within_budget():
    totals = TOTAL_RE.findall(COUNTED)
    assert len(totals) == 1
    total = int(totals[0].replace(",", ""))
    assert total == sum(stated for _, stated, _ in STEPS)
    assert total <= BUDGET


def test_the_summary_table_agrees_with_the_steps():
    rows = {int(n): int(lines) for n, lines in TABLE_ROW_RE.findall(COUNTED)}
    assert rows == {number: stated for number, stated, _ in STEPS}


@pytest.mark.parametrize("path", FILES)
def test_named_file_exists(path):
    assert (ROOT / path).is_file(), f"the reading guide names {path}, which does not exist"


@pytest.mark.parametrize(("path", "name"), NAMES, ids=[f"{p}:{n}" for p, n in NAMES])
def test_named_definition_exists(path, name):
    assert _definition_span(path, name) is not None, f"the reading guide names {path}::{name}, which is not defined"


@pytest.mark.parametrize(("path", "name", "stated"), ALL_ITEMS, ids=[f"{p}:{n}" for p, n, _ in ALL_ITEMS])
def test_stated_line_count_matches_the_code(path, name, stated):
    actual = _definition_span(path, name)
    assert actual is not None, f"{path}::{name} is not defined"
    assert _close(actual, stated), f"{path}::{name} is {actual} lines; the reading guide says {stated}"


@pytest.mark.parametrize(("number", "stated", "text"), STEPS, ids=[f"step{n}" for n, _, _ in STEPS])
def test_step_line_count_matches_the_code(number, stated, text):
    spans = {f"{p}::{n}": _definition_span(p, n) for p, n, _ in ITEM_RE.findall(text)}
    missing = [ref for ref, span in spans.items() if span is None]
    assert not missing, f"step {number} names code that is not defined: {missing}"
    actual = sum(spans.values())
    assert _close(actual, stated), f"step {number} reads {actual} lines of code; the reading guide says {stated}"


def test_every_function_a_step_names_fits_on_a_screen():
    """A step reads without detours: nothing it names is over 80 lines (steps 5, 6, 9 and 11 once named such)."""
    long = {f"{p}::{n}": _definition_span(p, n) for p, n, _ in COUNTED_ITEMS if (_definition_span(p, n) or 0) > 80}
    assert not long, f"the reading guide's steps name code over 80 lines: {long}"


def test_the_counted_code_fits_the_budget():
    spans = {f"{p}::{n}": _definition_span(p, n) for p, n, _ in COUNTED_ITEMS}
    missing = [ref for ref, span in spans.items() if span is None]
    assert not missing, f"not defined: {missing}"
    assert sum(spans.values()) <= BUDGET


def test_the_guide_starts_with_the_tiny_executor_and_states_its_length():
    starts = list(START_RE.finditer(TEXT))
    assert len(starts) == 1, "the guide must start with one 'Start here' section"
    assert starts[0].start() < STEP_RE.search(TEXT).start(), "the tiny executor comes before step 1"
    section = TEXT[starts[0].end():STEP_RE.search(TEXT).start()]
    assert "](tiny_executor.py)" in section and "tests/test_tiny_executor.py" in section
    stated, actual = int(starts[0].group(1)), len(TINY.read_text(encoding="utf-8").splitlines())
    assert _close(actual, stated, tolerance=0.05), f"docs/tiny_executor.py is {actual} lines; the guide says {stated}"
    assert actual <= 200, "the tiny executor is for one sitting"


def test_chapter_04_links_the_tiny_executor():
    nb = json.loads((ROOT / "notebooks" / "04_executor.ipynb").read_text(encoding="utf-8"))
    markdown = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert any("](../docs/tiny_executor.py)" in m for m in markdown)


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_named_notebook_exists(notebook):
    assert (ROOT / notebook).is_file()


def test_the_guide_is_linked_from_the_readme_and_the_first_chapter():
    assert "](docs/reading-guide.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    nb = json.loads((ROOT / "notebooks" / "01_the_five_primitives.ipynb").read_text(encoding="utf-8"))
    markdown = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert any("](../docs/reading-guide.md)" in m for m in markdown)
