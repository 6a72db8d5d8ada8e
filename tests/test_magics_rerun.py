"""A cell run again, as a student re-runs it: its converted code is reused (converters/__init__.py caches it by
source and by which names it mentions the notebook holds), and it must still leave what plain Python leaves when
the notebook's values change between runs (types, dtypes, shapes), when a name it reads appears in the notebook,
and its errors must still point at its own lines under IPython's new filename."""
import numpy as np
import pytest

from magics.converters import _converted
from magics.errors import CellError


def _run(ip, cell, options="--no-display"):
    ip.execution_count += 1  # IPython's filename for the cell (`<ipython-input-N-...>`) changes with each run
    ip.run_cell_magic("whileloop", options, cell)


def _python(cell, namespace):
    plain = {"np": np, **namespace}
    exec(cell, plain)  # noqa: S102 - the test's own cells
    return plain


CELL = "s = 0 * xs[0]\nk = 0\nwhile k < n:\n    s = s + xs[k] * scale\n    k += 1\nlast = xs[-1]"
NOTEBOOKS = [  # the same cell over notebook values of other types, dtypes and shapes
    {"xs": np.arange(4.0), "n": 3, "scale": 2},
    {"xs": np.arange(6, dtype=np.int32), "n": 5, "scale": 3},
    {"xs": np.ones((3, 2), np.float32), "n": 2, "scale": np.float32(1.5)},
    {"xs": [1, 2, 3], "n": 3, "scale": 2},
]


@pytest.mark.parametrize("form", ["lowered", "functional"])
def test_a_cell_run_again_over_changed_notebook_values_leaves_what_python_leaves(clean, form):
    misses = _converted.cache_info().misses
    for values in NOTEBOOKS:
        clean.user_ns.update(values)
        _run(clean, CELL, f"--no-display --form {form}")
        expected = _python(CELL, values)
        for name in ("s", "k", "last"):
            got = clean.user_ns[name]
            assert type(got) is type(expected[name]), (values, name, got, expected[name])
            np.testing.assert_array_equal(got, expected[name])
            assert np.asarray(got).dtype == np.asarray(expected[name]).dtype, (values, name)
    # converted twice: the first run, and the second, where the notebook holds the names the first one left
    assert _converted.cache_info().misses <= misses + 2


def test_a_name_the_notebook_gains_between_runs_is_read_from_it(clean):
    cell = "total = 0\nfor i in range(3):\n    total = total + offset"
    with pytest.raises(CellError) as info:
        _run(clean, cell)
    assert info.value.kind == "NameError" and "offset" in info.value.message
    clean.user_ns["offset"] = 5
    _run(clean, cell)
    assert clean.user_ns["total"] == 15 and type(clean.user_ns["total"]) is int
    del clean.user_ns["offset"]
    with pytest.raises(CellError) as info:  # and forgets it again when the notebook does
        _run(clean, cell)
    assert info.value.kind == "NameError"


def test_errors_of_a_cell_run_again_show_its_own_lines(clean):
    cell = "x = 1.0\nfor i in range(3):\n    x = x + 1\ny = undefined_helper(x)\nz = 2"
    for _ in range(2):
        with pytest.raises(CellError) as info:
            _run(clean, cell)
        shown = "\n".join(info.value._render_traceback_())
        assert info.value.line == 4 and "---->   4 y = undefined_helper(x)" in shown and "magics" not in shown
    clean.user_ns["xs"] = np.arange(3.0)
    for _ in range(2):  # a run-time error: its line, loop and iteration
        with pytest.raises(CellError) as info:
            _run(clean, "s = 0.0\nfor i in range(5):\n    s += xs[i]")
        assert info.value.line == 3 and "iteration 3 (i = 3)" in info.value.message
    for _ in range(2):
        with pytest.raises(SyntaxError) as syntax:
            _run(clean, "i = 0\nwhile i < 3\n    i += 1")
        assert syntax.value.lineno == 2 and syntax.value.filename.startswith("<ipython-input-")


def test_pythons_compile_warnings_point_at_the_cell_on_every_run(clean):
    cell = "x = 1\ny = x is 1\nfor i in range(2):\n    x = x + i"
    for _ in range(3):  # the last runs reuse the converted code
        with pytest.warns(SyntaxWarning, match='"is" with a literal') as caught:
            _run(clean, cell)
        assert [(w.filename.startswith("<ipython-input-"), w.lineno) for w in caught] == [(True, 2)]
        assert clean.user_ns["y"] is True and clean.user_ns["x"] == 2
