"""%%whileloop leaves exactly what plain Python leaves: every cell of magic_cells.py is run by the
magic in a real InteractiveShell and by `exec` on the same source; names, types, values and printed
output are compared (what "the same" means: magic_cells.py's docstring)."""
import contextlib
import copy
import io

import numpy as np
import pytest
from magic_cells import CELLS, NOTEBOOK, NUMPY_CELLS


@pytest.fixture
def clean(ip):
    before = set(ip.user_ns)
    ip.user_ns.update(np=np, **copy.deepcopy(NOTEBOOK))
    ip.names_before = before | set(ip.user_ns)
    yield ip
    for name in set(ip.user_ns) - before:
        del ip.user_ns[name]


def plain_python(cell):
    ns = {"np": np, **copy.deepcopy(NOTEBOOK)}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(cell, ns)  # noqa: S102 - the test's own cells
    return {k: v for k, v in ns.items() if not k.startswith("__") and k not in NOTEBOOK and k not in ("np", "math")}, \
        out.getvalue()


def assert_same(ours, theirs, where):
    assert type(ours) is type(theirs), f"{where}: {type(ours).__name__} {ours!r}, plain Python has " \
                                       f"{type(theirs).__name__} {theirs!r}"
    if isinstance(theirs, list):
        assert len(ours) == len(theirs), (where, ours, theirs)
        for k, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{k}]")
        return
    if isinstance(theirs, (np.ndarray, np.generic)):
        assert ours.dtype == theirs.dtype and np.shape(ours) == np.shape(theirs), (where, ours, theirs)
    if isinstance(theirs, (float, np.floating)) or (isinstance(theirs, np.ndarray) and theirs.dtype.kind == "f"):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0, err_msg=where)
    else:
        assert np.array_equal(ours, theirs), (where, ours, theirs)


def test_at_least_60_cells_and_30_with_numpy():
    assert len(CELLS) >= 60 and len(NUMPY_CELLS) >= 30


@pytest.mark.parametrize("name", sorted(CELLS))
@pytest.mark.parametrize("form", ["lowered", "functional"])
def test_cell_leaves_what_plain_python_leaves(clean, capsys, name, form):
    cell = CELLS[name]
    expected, printed = plain_python(cell)
    capsys.readouterr()
    clean.run_cell_magic("whileloop", f"--no-display --form {form}", cell)
    assert capsys.readouterr().out == printed
    for key, value in expected.items():
        assert key in clean.user_ns, f"{name}: '{key}' missing"
        assert_same(clean.user_ns[key], value, f"{name}: {key}")
    left = {k for k in set(clean.user_ns) - clean.names_before if not k.startswith("_")}
    assert left <= set(expected) | {"math"}, f"{name}: the magic left {left - set(expected)}, plain Python does not"


def test_float32_rules_show_why_a_tolerance_never_holds(clean):
    """--dtypes tensorflow builds with float32: the 1e-9 bisection stops only at --maximum-iterations."""
    cell = "lo, hi = 0.0, 2.0\nwhile hi - lo > 1e-9:\n    mid = (lo + hi) / 2\n    if mid * mid > 2.0:\n" \
           "        hi = mid\n    else:\n        lo = mid"
    with pytest.warns(UserWarning, match="line 2 .*stopped by --maximum-iterations 200"):
        clean.run_cell_magic("whileloop", "--no-display --dtypes tensorflow --maximum-iterations 200", cell)
    assert type(clean.user_ns["lo"]) is np.float32
    clean.run_cell_magic("whileloop", "--no-display", cell)
    assert type(clean.user_ns["lo"]) is float and abs(clean.user_ns["lo"] ** 2 - 2) < 1e-8


def test_int_sum_overflows_int32_only_under_tensorflow_rules(clean):
    cell = "total = 0\nfor i in range(100000):\n    total += i"
    clean.run_cell_magic("whileloop", "--no-display", cell)
    assert clean.user_ns["total"] == 4999950000
    clean.run_cell_magic("whileloop", "--no-display --dtypes tensorflow", cell)
    assert clean.user_ns["total"] == np.int32(np.int64(4999950000).astype(np.int32))


def test_numpy_promotion_is_a_visible_cast(clean):
    clean.run_cell_magic("whileloop", "--no-display --form functional",
                         "x = 0.0\nn = 0\nwhile n < 3:\n    x = x + 0.1 * n\n    n += 1")
    body = [g for g in clean.user_ns["_loop"].functional._functions.values() if "body" in g.name][0]
    casts = [op for op in body.get_operations() if op.type == "Cast"]
    assert casts and casts[0].get_attr("DstT").name == "float64"
