"""Hostile `%%whileloop` cells in a real IPython shell (`%load_ext cfnb`): huge ranges bounded by
--maximum-iterations, endless loops stopped by Ctrl-C, names that shadow builtins, cells run twice, bad options,
errors of the cell's own Python. Each case is held to plain Python: the names the cell leaves (values and types) are
those `exec` of the same cell leaves, or the error is Python's, at the cell's line. Every case has a timeout.

Cells that differ from plain Python for reasons the magic's own code owns are marked `xfail(strict=True)` with the
difference (issue 18's magic part): they pass the day the magic is fixed, and must then lose the mark.
"""
from typing import NamedTuple

import numpy as np
import pytest
from IPython.core.error import UsageError

import magics

from . import ctrl_c_after


class Cell(NamedTuple):
    source: str
    options: str = ""
    expect: object = "python"   # "python", {name: value} (and a --maximum-iterations warning), or an Error
    xfail: str = ""             # the difference from plain Python the magic's code owns


class Error(NamedTuple):
    kind: str                   # the Python error's name (CellError.kind), or "UsageError" / "SyntaxError"
    words: str
    line: int = 0


CELLS = {
    "huge_range_with_maximum_iterations": Cell("s = 0\nfor i in range(10**12):\n    s += i", "--maximum-iterations 5",
                                               {"s": 10, "i": 4}),
    "endless_while_with_maximum_iterations": Cell("i = 0\nwhile i >= 0:\n    i += 1", "--maximum-iterations 1000",
                                                  {"i": 1000}),
    "sum_shadows_the_builtin": Cell("sum = 0\nfor i in range(5):\n    sum += i"),
    "max_shadows_the_builtin": Cell("max = -100.0\nfor x in xs:\n    if x > max:\n        max = x"),
    "len_shadows_the_builtin": Cell("len = 0\nfor x in xs:\n    len += 1"),
    "abs_shadows_the_builtin": Cell("abs = 1.0\nwhile abs < 10:\n    abs *= 2"),
    "range_shadowed_then_a_while": Cell("range = 3\ns = 0\ni = 0\nwhile i < range:\n    s += i\n    i += 1"),
    "print_shadowed_by_a_number": Cell("print = 5\nfor i in range(2):\n    print += i"),
    "the_cell_assigns_the_result_name": Cell("_loop = 0\nfor i in range(3):\n    _loop += i"),
    "float_division_by_zero": Cell("s = 1.0\nfor i in range(3):\n    s = s / (i - 1)",
                                   expect=Error("ZeroDivisionError", "float division by zero", 3)),
    "float_floor_division_by_zero": Cell("q = 7.5\nfor i in range(3):\n    q = q // (i - 1)",
                                         expect=Error("ZeroDivisionError", "float floor division by zero", 3)),
    "float_modulo_by_zero": Cell("r = 7.5\nfor i in range(3):\n    r = r % (1 - i)",
                                 expect=Error("ZeroDivisionError", "float modulo", 3)),
    "int_true_division_by_zero": Cell("t = 0.0\nfor i in range(3):\n    t = i / (i - 2)",
                                      expect=Error("ZeroDivisionError", "division by zero", 3)),
    "numpy_float_division_by_zero_is_inf": Cell("u = np.float64(1.0)\nfor i in range(3):\n    u = u / (i - 1)"),
    "python_int_leaves_int64": Cell("x = 1\nfor i in range(100):\n    x = x * 10",
                                    expect=Error("OverflowError", "does not fit in int64", 3)),
    "syntax_error": Cell("s = 0\nfor i in range(3)\n    s += i", expect=Error("SyntaxError", "expected ':'", 2)),
    "undefined_name_in_the_body": Cell("for i in range(3):\n    s2 = undefined_name + i",
                                       expect=Error("NameError", "name 'undefined_name' is not defined", 2)),
    "loop_over_an_empty_array": Cell("e = np.array([])\nfor x in e:\n    y0 = x"),
    "loop_over_a_negative_range": Cell("k = 0\nfor i in range(-5):\n    k += 1"),
    "a_body_of_500_lines": Cell("s = 0\nfor i in range(2):\n" + "    s += 1\n" * 500),
    "five_nested_loops": Cell("t = 0\nfor a in range(2):\n  for b in range(2):\n    for c in range(2):\n"
                              "      for d in range(2):\n        for e in range(2):\n          t += a + b + c + d + e"),
    "unicode_names": Cell("α = 0\nfor i in range(3):\n    α += i"),
    "break_and_loop_else": Cell("s = 0\nfor i in range(3):\n    s += i\n    if i == 1:\n        break\nelse:\n"
                                "    s = -1"),
    "float_that_never_equals": Cell("f = 0.1\nwhile f != 1.0:\n    f += 0.1\n    if f > 2:\n        break"),
    "gradient_of_an_unknown_name": Cell("x = 1.0\nfor i in range(3):\n    x = x * 2", "--grad nothere:x",
                                        Error("UsageError", "the cell does not compute a tensor named 'nothere'")),
    "zero_parallel_iterations": Cell("i = 0\nwhile i < 3:\n    i += 1", "--parallel-iterations 0",
                                     Error("UsageError", "--parallel-iterations must be a positive integer")),
    "negative_maximum_iterations": Cell("i = 0\nwhile i < 3:\n    i += 1", "--maximum-iterations -1",
                                        Error("UsageError", "--maximum-iterations must be a positive integer")),
}


def _namespace():
    return {"np": np, "xs": np.array([3.0, -1.0, 4.0])}


def _python(source):
    """The names plain Python's `exec` of `source` leaves (besides the namespace it starts from)."""
    ns = _namespace()
    exec(source, ns)  # noqa: S102 - the reference: what plain Python does with the cell
    return {k: v for k, v in ns.items() if k not in _namespace() and k not in ("__builtins__", "__warningregistry__")}


def _assert_same(got, want):
    for name, value in want.items():
        assert name in got, f"{name} was not left"
        assert type(got[name]) is type(value), f"{name}: {type(got[name]).__name__} != {type(value).__name__}"
        np.testing.assert_array_equal(got[name], value, err_msg=name)


@pytest.fixture
def shell(ip):
    """The shell with only the starting namespace's names added; names a case leaves are removed afterwards."""
    before = set(ip.user_ns)
    ip.user_ns.update(_namespace())
    yield ip
    for name in set(ip.user_ns) - before:
        del ip.user_ns[name]


def _params():
    return [pytest.param(name, marks=[pytest.mark.xfail(reason=cell.xfail, strict=True)] if cell.xfail else [],
                         id=name) for name, cell in CELLS.items()]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", _params())
def test_hostile_cell(shell, name):
    cell = CELLS[name]
    run = lambda: shell.run_cell_magic("whileloop", f"--no-display {cell.options}", cell.source)  # noqa: E731
    if isinstance(cell.expect, Error):
        with pytest.raises((UsageError, SyntaxError)) as info:
            run()
        error = info.value
        kind = getattr(error, "kind", None) or ("UsageError" if isinstance(error, UsageError) else
                                                type(error).__name__)
        assert kind == cell.expect.kind, str(error)
        assert cell.expect.words in str(error)
        if cell.expect.line:
            assert getattr(error, "line", getattr(error, "lineno", None)) == cell.expect.line
        return
    if isinstance(cell.expect, dict):
        with pytest.warns(UserWarning, match="stopped by --maximum-iterations"):
            run()
        _assert_same(shell.user_ns, cell.expect)
        return
    run()
    _assert_same(shell.user_ns, _python(cell.source))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("source", ["i = 0\nwhile i >= 0:\n    i += 1",
                                    "i = 0\nfor k in range(10**12):\n    i += k",
                                    "i = 0\nwhile True:\n    i += 1\n    if i < 0:\n        break"],
                         ids=["endless_while", "huge_range", "while_true_never_breaks"])
def test_an_endless_cell_stops_on_ctrl_c_and_changes_no_name(shell, source, python_sigint):
    shell.user_ns["i"] = "before"
    with ctrl_c_after(0.5), pytest.raises(KeyboardInterrupt) as info:
        shell.run_cell_magic("whileloop", "--no-display", source)
    assert isinstance(info.value, magics.CellInterrupted)
    assert shell.user_ns["i"] == "before"
    shell.run_cell_magic("whileloop", "--no-display", "i = 0\nwhile i < 3:\n    i += 1")  # the shell runs on
    assert shell.user_ns["i"] == 3


@pytest.mark.timeout(120)
def test_a_cell_run_twice_reads_what_the_first_run_left(shell):
    """Re-running a cell that updates a notebook name does what running it twice in Python does."""
    shell.user_ns["s"] = 0
    source = "for i in range(3):\n    s += i"
    for _ in range(2):
        shell.run_cell_magic("whileloop", "--no-display", source)
    ns = {"s": 0}
    for _ in range(2):
        exec(source, ns)  # noqa: S102 - the reference
    assert shell.user_ns["s"] == ns["s"] == 6 and type(shell.user_ns["s"]) is int
