"""Run one cell by %%whileloop in a real IPython shell and by plain `exec`, from the same notebook names, and
compare what each leaves: every name (type and value), the printed text, or the error (its type and line).

"The same" is tests/magic_cells.py's: a Python int stays an int, a numpy.float64 a numpy.float64, an ndarray an
ndarray of the same dtype and shape, containers item by item; integers and bools exactly, floats to 1e-12
relative (a graph may add in another order than numpy does).
"""
import ast
import contextlib
import copy
import io
import traceback

import numpy as np


def _split(notebook):
    """(notebook values, source of its functions: run, not copied, so their source can be read)."""
    values = {k: v for k, v in notebook.items() if k != "__defs__"}
    return values, notebook.get("__defs__", "")


def plain_python(notebook, cell):
    """(names the cell leaves or changes, printed text, (error type, line) or None) under plain Python."""
    values, defs = _split(notebook)
    ns = {"np": np, **copy.deepcopy(values)}
    exec(defs, ns)  # noqa: S102 - the test's own notebook functions
    out, error = io.StringIO(), None
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(cell, "<cell>", "exec"), ns)  # noqa: S102 - the test's own cells
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        lines = [n for frame, n in traceback.walk_tb(e.__traceback__) if frame.f_code.co_filename == "<cell>"]
        error = (type(e).__name__, lines[-1] if lines else None)
    names = {k: v for k, v in ns.items() if not k.startswith("__") and k not in ("np", "math") and not callable(v)}
    return names, out.getvalue(), error


def _cell_names(cell):
    """The names a cell assigns or deletes (the shell may hold them from an earlier test)."""
    return {n.id for n in ast.walk(ast.parse(cell)) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store,
                                                                                                       ast.Del))}


def magic(ip, notebook, cell, options):
    """The same under %%whileloop in `ip`: (names, printed text, (error type, line) or None, the error)."""
    from magics.errors import CellError
    values, defs = _split(notebook)
    for name in _cell_names(cell) - set(values):
        ip.user_ns.pop(name, None)
    ip.user_ns.update(copy.deepcopy(values))
    if defs:
        ip.run_cell(defs)
    out, error, raised = io.StringIO(), None, None
    try:
        with contextlib.redirect_stdout(out):
            ip.run_cell_magic("whileloop", f"--no-display {options}", cell)
    except CellError as e:
        error, raised = (e.kind or "CellError", e.line), e
    visible = (_cell_names(cell) | set(values) | (set(ip.user_ns) - ip.names_before)) - {"np", "math"}
    names = {k: ip.user_ns[k] for k in visible if k in ip.user_ns and not k.startswith("_")
             and not callable(ip.user_ns[k])}
    return names, out.getvalue(), error, raised


def assert_same(ours, theirs, where):
    assert type(ours) is type(theirs), f"{where}: {type(ours).__name__} {ours!r}, plain Python has " \
                                       f"{type(theirs).__name__} {theirs!r}"
    if isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), (where, ours, theirs)
        for k, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{k}]")
        return
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs), (where, ours, theirs)
        for k in theirs:
            assert_same(ours[k], theirs[k], f"{where}[{k!r}]")
        return
    if isinstance(theirs, (np.ndarray, np.generic)):
        assert ours.dtype == theirs.dtype and np.shape(ours) == np.shape(theirs), (where, ours, theirs)
    if isinstance(theirs, (float, np.floating)) or (isinstance(theirs, np.ndarray) and theirs.dtype.kind == "f"):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0, err_msg=where)
    else:
        assert np.array_equal(ours, theirs), (where, ours, theirs)


def compare(ip, notebook, cell, options=""):
    """Run `cell` both ways and assert that the magic leaves what plain Python leaves (or fails the same way).
    Returns the magic's CellError, if any."""
    expected, printed, error = plain_python(notebook, cell)
    ours, our_printed, our_error, raised = magic(ip, notebook, cell, options)
    assert our_error == error, f"plain Python: {error}, %%whileloop: {our_error} {raised}"
    if error is None:
        assert our_printed == printed
        for key, value in expected.items():
            assert key in ours, f"'{key}' missing"
            assert_same(ours[key], value, key)
        assert set(ours) <= set(expected), f"the magic left {set(ours) - set(expected)}, plain Python does not"
    return raised
