"""Long cells: the cell's Python runs once (side effects once), the run takes the fast path, the trace
is a bounded re-run made on demand, a live line shows the iterations, and the interrupt stops the
run leaving the notebook's names untouched."""
import _thread
import contextlib
import io
import threading

import numpy as np
import pytest
from IPython.utils.capture import capture_output

import magics
from magics import progress


@pytest.mark.parametrize("form", ["lowered", "functional"])
def test_side_effects_outside_loops_happen_once(clean, capsys, form):
    calls = []
    clean.user_ns.update(log=[], note=lambda: calls.append(1) or 0)
    cell = "print('start')\nlog.append(1)\nn = note()\nfor i in range(3):\n    n += i\nprint('end', n)"
    clean.run_cell_magic("whileloop", f"--no-display --form {form}", cell)
    assert capsys.readouterr().out == "start\nend 3\n"
    assert calls == [1] and clean.user_ns["log"] == [1]


def test_a_run_does_not_record_a_trace_and_the_trace_is_a_bounded_rerun(clean, capsys, monkeypatch):
    monkeypatch.setattr(magics.cell, "TRACE_LIMIT", 500)
    cell = "s = 0\nfor i in range(2000):\n    s += i\n    if i == 1999:\n        print('last', i)"
    clean.run_cell_magic("whileloop", "--no-display", cell)
    assert capsys.readouterr().out == "last 1999\n"
    result = clean.user_ns["_loop"]
    assert result._trace is None  # nothing traced yet: the run took the static schedule
    assert len(result.trace) == 500 and result.trace.truncated
    assert capsys.readouterr().out == ""  # the traced re-run's prints are silenced
    result.explorer().view = "lowered"
    assert "the trace holds the first 500 firings of a longer run" in result.explorer().caption
    assert clean.user_ns["s"] == sum(range(2000))


def test_a_short_run_is_traced_completely(clean):
    clean.run_cell_magic("whileloop", "--no-display", "i = 0\nwhile i < 3:\n    i += 1")
    trace = clean.user_ns["_loop"].trace
    assert not trace.truncated and [f.node for f in trace if f.op_type == "Exit"]


def test_live_line_on_a_terminal(clean, monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "PERIOD", 0.01)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        clean.run_cell_magic("whileloop", "--no-display", "s = 0\nfor i in range(300000):\n    s += i")
    text = err.getvalue()
    assert "%%whileloop running: loop at line 2 (for i): iteration " in text and text.endswith("\n")
    counts = [int(part.split("iteration ")[1].split(" ")[0].replace(",", "")) for part in text.strip().split("\r")
              if part]
    assert counts == sorted(counts) and 0 < counts[-1] < 300000
    assert f"iteration {counts[-1]:,} (i = {counts[-1]})" in text  # counted from 0, as traces count, with i


def test_live_line_in_a_notebook_is_a_display_updated_in_place(clean, monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "PERIOD", 0.01)
    from types import SimpleNamespace
    options = SimpleNamespace(form="lowered", parallel_iterations=10, maximum_iterations=None, swap_memory=False,
                              grads=[], dtypes="numpy")
    # about half a second on the static schedule (300 outer iterations took 70 ms: on a loaded machine the watcher
    # thread could first run after the cell had finished, and show nothing)
    cell = "s = 0\nfor i in range(2000):\n    t = 0\n    for j in range(1000):\n        t += j\n    s += t"
    with capture_output() as captured:
        result, updates = magics.run_cell(cell, {"np": np}, options, notebook=True)
    assert updates["s"] == 2000 * sum(range(1000))
    texts = [o.data["text/plain"] for o in captured.outputs]
    assert texts and "loop at line 2 (for i): iteration" in texts[0] and "loop at line 4 (for j)" in texts[0]
    assert texts[-1].startswith("%%whileloop finished after ")  # the update that ends the line


@pytest.mark.timeout(60)
def test_interrupt_stops_the_run_and_leaves_the_names_untouched(clean, python_sigint):
    clean.user_ns["i"] = "before"
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            clean.run_cell_magic("whileloop", "--no-display", "i = 0\nwhile i >= 0:\n    i += 1")
    finally:
        timer.cancel()
    assert isinstance(info.value, magics.CellInterrupted)
    assert clean.user_ns["i"] == "before" and "no name of the notebook changed" in str(info.value)
