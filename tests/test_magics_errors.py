"""Errors a student can read: every refusal names its line and what to write instead; Python errors
of the cell show the cell's lines with the failing one marked and no frame of magics/ or cfnb/;
errors while the graph runs name the line, the loop and the iteration."""
import re

import numpy as np
import pytest
from IPython.core.error import UsageError

from magics.errors import CellError


@pytest.fixture
def clean(clean):
    clean.user_ns["xs"] = np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, -6.0])
    return clean


def fails(ip, cell, options="--no-display"):
    with pytest.raises(CellError) as info:
        ip.run_cell_magic("whileloop", options, cell)
    return info.value


REFUSALS = [
    ("i = 0\nwhile i < 3:\n    return i", 3, "`return` is not supported"),
    ("i = 0\ntry:\n    i = 1\nexcept ValueError:\n    pass", 2, "`try` is not supported"),
    ("import contextlib\nwith contextlib.nullcontext():\n    i = 1", 2, "`with` is not supported"),
    ("def f(x):\n    return x", 1, "define functions in another cell"),
    ("sq = [i * i for i in range(3)]", 1, "comprehensions are not supported"),
    ("f = lambda x: x", 1, "`lambda` is not supported"),
    ("i = 0\nwhile i < 3:\n    j = 5", 2, "would never become false"),
    ("i = 0\nwhile True:\n    i += 1", 2, "would never become false"),
    ("i = 0\nwhile i < 3:\n    k += 1\n    i += 1", 2, "'k' is used before it is given a value"),
    ("a = np.float64(1.0)\nif a > 0:\n    fresh = 1\nelse:\n    pass", 2,
     "'fresh' is given a value in one branch only"),
    ("x = np.int64(1)\nwhile x < 10:\n    x = x * 1.5", 2,
     "'x' enters the loop as int64 but the loop body makes it float64"),
    ("v = np.ones(2)\nwhile np.sum(v) < 10:\n    v = np.concatenate([v, v])", 2, "shape"),
    ("ys = [1]\nfor i in range(3):\n    ys = ys + [i]", 3, "can only grow with .append there"),
    ("import math\ng = 0.0\nfor x in xs:\n    g = g + math.gamma(x)", 4, "math.gamma has no graph form"),
    ("s = 0.0\nfor x in xs:\n    s = s + sum(x)", 3, "sum() of a graph value has no graph form: use np.sum(x)"),
    ("b = False\nfor x in xs:\n    b = bool(x)", 3, "bool() of a graph value"),
    ("s = 0.0\nfor i in range(3):\n    s += np.random.rand()", 3, "np.random.rand(...) in a loop would be drawn once"),
    ("import random\ns = 0.0\nfor i in range(3):\n    s += random.random()", 4, "random(...) in a loop would be drawn"),
    ("a = np.zeros(3)\nfor i in range(3):\n    a[[0, 1]] = i", 3, "fancy indices"),
    ("a = np.zeros(3)\nfor i in range(3):\n    a[a > 0] = i", 3, "write `a = np.where(mask, v, a)`"),
    ("a = np.zeros((3, 3))\nfor i in range(3):\n    a[i][0] = i", 3, "as `a[i, j] = ...`"),
    ("a = [0, 0, 0]\nfor i in range(3):\n    a[i] = i", 3, "a list changed by item assignment in a loop"),
    ("a = np.zeros(3)\nfor i in range(3):\n    a[i] = np.ones(2)", 3, "could not broadcast input array from shape"),
    ("M = np.zeros((3, 2))\nfor row in M:\n    row[0] = 1.0", 3,
     "'row' is a row of the array the `for` at line 2 walks"),
    ("M = np.zeros((3, 2))\nr = M[0]\nfor i in range(2):\n    r[i] = i", 2, "Write `r = M[0].copy()`"),
]


@pytest.mark.parametrize("cell,line,pattern", REFUSALS)
def test_refusals_name_the_line_and_the_alternative(clean, cell, line, pattern):
    error = fails(clean, cell)
    assert error.line == line and pattern in error.message, (error.line, error.message)
    assert isinstance(error, UsageError)  # IPython shows it without a traceback of its own


def test_a_numpy_function_without_a_graph_form_is_refused_with_its_name_and_line(clean):
    error = fails(clean, "A = np.eye(2)\nw = A\nfor k in range(2):\n    w = np.linalg.eig(A * xs[k])")
    assert error.line == 4 and "eig" in error.message and error.kind == "UnsupportedNumpyError"


def test_a_python_error_shows_the_cell_lines_with_the_failing_one_marked(clean):
    cell = "x = 1.0\nfor i in range(3):\n    x = x + 1\ny = undefined_helper(x)\nz = 2"
    error = fails(clean, cell)
    assert error.kind == "NameError" and error.line == 4 and "undefined_helper" in error.message
    shown = "\n".join(error._render_traceback_())
    assert "---->   4 y = undefined_helper(x)" in shown and "      3     x = x + 1" in shown
    assert "magics" not in shown and "cfnb" not in shown and "File " not in shown
    assert len(error._render_traceback_()) <= 8


def test_ipython_prints_only_the_cell_and_the_message(clean, capsys):
    clean.run_cell("%%whileloop --no-display\nx = 1.0\ny = undefined_helper(x)\n")
    err = capsys.readouterr()
    text = err.out + err.err
    assert "----> " in text and "undefined_helper" in text
    assert "magics/" not in text and "cfnb/" not in text and "interactiveshell" not in text


def test_a_run_time_error_names_the_line_the_loop_and_the_iteration(clean):
    for form in ("lowered", "functional"):
        error = fails(clean, "s = 0.0\nfor i in range(10):\n    s += xs[i]", f"--no-display --form {form}")
        assert error.line == 3, (form, error.message)
        assert "index 8 is out of bounds for axis 0 (in iteration 8 (i = 8) of the loop at line 2 (`for i`))" \
            in error.message, (form, error.message)
        assert error.kind == "IndexError" and error._render_traceback_()[0] == "IndexError in %%whileloop cell"


def test_integer_division_by_zero_while_running(clean):
    error = fails(clean, "i = 4\nd = 0\nwhile i > 0:\n    i = i // d")
    assert error.line == 4 and "division by zero" in error.message and "(in iteration 0 of the loop at line 3)" in \
        error.message


def test_syntax_errors_are_pythons(clean):
    with pytest.raises(SyntaxError) as info:
        clean.run_cell_magic("whileloop", "--no-display", "i = 0\nwhile i < 3\n    i += 1")
    assert info.value.lineno == 2


def test_a_failed_cell_changes_no_name(clean):
    clean.user_ns["s"] = "before"
    fails(clean, "s = 0.0\nfor i in range(10):\n    s += xs[i]")
    assert clean.user_ns["s"] == "before"


def test_bad_options(clean):
    with pytest.raises(UsageError, match="write it as OUT:IN"):
        clean.run_cell_magic("whileloop", "--no-display --grad v", "v = 1.0")
    with pytest.raises(UsageError, match="--parallel-iterations must be a positive integer"):
        clean.run_cell_magic("whileloop", "--no-display --parallel-iterations 0", "v = 1.0")
    error = fails(clean, "i = 0\nwhile i < 3:\n    i += 1", "--no-display --grad i:i")
    assert "only float values have gradients" in error.message
    error = fails(clean, "v = 1.0\nw = v * 2", "--no-display --grad w:v,nothing")
    assert "'nothing' is not a value the cell assigns" in error.message


def test_help_shows_usage_and_two_examples(clean):
    doc = clean.find_cell_magic("whileloop").__doc__
    assert doc.lstrip(": \n").startswith("%%whileloop [options]")
    assert doc.count("    %%whileloop") == 2
    for words in ("--grad <OUT:IN[,IN...]>", "--dtypes", "int64", "float64", "What converts", "What is refused"):
        assert words in doc


@pytest.mark.parametrize("form", ["lowered", "functional"])
@pytest.mark.parametrize("cell,line,iteration,expression", [
    ("p = 1\nfor i in range(70):\n    p = p * 2", 3, "62 (i = 62)", "4611686018427387904 * 2 = 9223372036854775808"),
    ("s = 2**62\nfor i in range(3):\n    s = s + 2**61", 3, "1 (i = 1)", "6917529027641081856 + 2305843009213693952"),
    ("s = -(2**62)\nk = 0\nwhile k < 5:\n    s -= 2**61\n    k += 1", 4, "2",
     "-9223372036854775808 - 2305843009213693952"),
    ("p = 3\nk = 0\nwhile k < 3:\n    p = p ** 20\n    k += 1", 4, "1", "3486784401 ** 20 = a number of 191 digits"),
])
def test_python_int_overflow_is_an_error_never_a_wrapped_value(clean, form, cell, line, iteration, expression):
    """Plain Python's ints are unbounded; the graph's are int64: past 2**63 the cell stops, at its line."""
    error = fails(clean, cell, f"--no-display --form {form}")
    assert error.kind == "OverflowError" and error.line == line, (error.kind, error.line, error.message)
    assert expression in error.message and "Python's ints are unbounded" in error.message, error.message
    assert f"(in iteration {iteration} of the loop at line" in error.message, error.message


@pytest.mark.parametrize("form", ["lowered", "functional"])
def test_a_python_int_to_a_run_time_negative_power_says_what_to_write(clean, form):
    """Python's 2 ** -2 is 0.25; the graph's power of ints is an int: with the exponent known only when the graph
    runs, the cell stops at its line and iteration (a literal exponent, `i ** -1`, is computed in floats)."""
    error = fails(clean, "t = 0.0\nfor k in range(-2, 2):\n    t += 2 ** k", f"--no-display --form {form}")
    assert (error.kind, error.line) == ("ValueError", 3), (error.kind, error.line, error.message)
    assert error.message.startswith("2 ** -2: a Python int to a negative power is a float in Python"), error.message
    assert "write float(x) ** y (in iteration 0 (k = -2) of the loop at line 2" in error.message, error.message


def test_a_python_int_past_int64_entering_a_loop_is_refused(clean):
    error = fails(clean, "p = 2**70\nfor i in range(3):\n    p = p + 1")
    assert error.kind == "OverflowError" and "1180591620717411303424 does not fit in int64" in error.message
    assert "Python's ints are unbounded" in error.message and error.line in (2, 3)


def test_numpy_int64_values_still_wrap_as_in_numpy(clean):
    cell = "v = np.array([2**62])\nx = np.int64(2**62)\nfor i in range(2):\n    v = v * 2\n    x = x + x"
    clean.run_cell_magic("whileloop", "--no-display", cell)
    with np.errstate(over="ignore"):
        ns = {"np": np}
        exec(cell, ns)  # noqa: S102 - the test's own cell
    assert clean.user_ns["v"].tolist() == ns["v"].tolist() == [0] and clean.user_ns["x"] == ns["x"] == 0
    assert type(clean.user_ns["x"]) is np.int64


# What the student must never read: the engine's module paths, op and tensor names, TensorFlow's remedies.
INTERNAL = re.compile(r"cfnb\.|numpy_dispatch|Placeholder|(?<![\w.])[A-Za-z_][\w/]*:\d+\b|\btf\.|shape_invariants|"
                      r"\(op: |Op has type|while_loop '|cond '|<tf\.Tensor|TensorShape|Const")
ERROR_CELLS = [cell for cell, _line, _pattern in REFUSALS] + [
    "x = np.int64(1)\nwhile x < 10:\n    x = x * 1.5",                                  # a loop variable's dtype
    "v = np.ones(2)\nwhile np.sum(v) < 10:\n    v = np.concatenate([v, v])",             # its shape
    "v = np.ones(3)\nfor i in range(3):\n    v = v.reshape(i, 3)",                       # a 2-D shape
    "x = 1.0\nfor i in range(3):\n    if i > 1:\n        x = np.ones(2)\n    else:\n        x = 2.0",
    "s = 0.0\nfor i in range(3):\n    s += float(np.ones(2)[i] * np.ones(3))",
    "a = np.arange(3.0)\nfor i in range(3):\n    a = a + np.ones(4)",                      # broadcasting
    "v = np.ones(3)\nfor i in range(3):\n    v = v @ np.ones((2, 2))",                     # matmul shapes
    "s = 0.0\nfor i in range(3):\n    s = s + np.ones(3)[np.arange(3) < i].sum()",        # a mask index
    "x = 1.0\nfor i in range(3):\n    x = x + 'a'",                                        # operand types
    "v = 1.0\nfor i in range(3):\n    v = np.ones(int(i))",                                # a run-time size
    "M = np.zeros((3, 2))\nfor i in range(3):\n    M[i] = np.array([i, -i, 2 * i])",        # set item shape
    "ys = [1.0, 2.0]\nt = 0.0\nfor i in range(3):\n    t = t + np.array(ys[i:])[0]",
    "s = 0.0\nfor i in range(10):\n    s += xs[i]",                                         # run time: index
    "i = 4\nd = 0\nwhile i > 0:\n    i = i // d",                                          # run time: division
    "p = 1\nfor i in range(70):\n    p = p * 2",                                            # run time: overflow
    "x = 1.0\ny = undefined_helper(x)",                                                      # the cell's own error
]


@pytest.mark.parametrize("cell", ERROR_CELLS)
def test_no_error_shows_an_internal_name(clean, cell):
    """Each refusal and error class reads in the cell's words: no cfnb module, op or tensor name."""
    with pytest.raises(CellError) as info:
        clean.run_cell_magic("whileloop", "--no-display", cell)
    message = info.value.message
    assert not INTERNAL.search(message), message
    assert info.value.line > 0, message
