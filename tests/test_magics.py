"""%%whileloop in a real IPython shell: notebook names, the explicit form, options, the result object
and the explorer widget driven from Python. (Cells against plain Python: test_magics_python.py;
errors: test_magics_errors.py; gradients: test_magics_grad.py; long runs: test_magics_long.py.)"""

import pytest

import cfnb


def test_names_from_the_notebook_are_read_and_assigned_names_start_from_their_value(clean):
    ip = clean
    ip.user_ns.update(limit=7, acc=100)
    ip.run_cell_magic("whileloop", "--no-display", "i = 0\nwhile i < limit:\n    i += 2\n    acc += i")
    assert ip.user_ns["i"] == 8 and ip.user_ns["acc"] == 100 + 2 + 4 + 6 + 8


def test_explicit_cond_body_loop_vars_form(clean):
    ip = clean
    ip.run_cell_magic("whileloop", "--no-display",
                      "def cond(i, s):\n    return i < 5\n\ndef body(i, s):\n    return i + 1, s * 2.0\n\n"
                      "loop_vars = [0, 1.0]\n")
    final = ip.user_ns["loop_vars"]
    assert final == [5, 32.0]


def test_options_reach_the_loop(clean):
    ip = clean
    with pytest.warns(UserWarning, match=r"the loop at line 2 \(`while`\) was stopped by --maximum-iterations 3"):
        ip.run_cell_magic("whileloop", "--no-display --maximum-iterations 3 --parallel-iterations 1 --as r",
                          "i = 0\nwhile i < 100:\n    i += 1")
    result = ip.user_ns["r"]
    assert ip.user_ns["i"] == 3
    enters = [op for op in result.graph.get_operations() if op.type == "Enter"]
    assert enters and all(op.get_attr("parallel_iterations") == 1 for op in enters)


# --- the result object and the explorer ----------------------------------------------------------
@pytest.fixture
def result(clean):
    clean.run_cell_magic("whileloop", "--no-display --grad v:x", "x = 2.0\nv = x\nwhile v < 8.0:\n    v = v * v")
    return clean.user_ns["_loop"]


def test_result_object(result):
    assert result.values["v"] == 16.0 and result.grads == {"dv/dx": 32.0}
    assert {op.type for op in result.functional.get_operations()} >= {"StatelessWhile"}
    assert {op.type for op in result.lowered.get_operations()} >= {"Enter", "Merge", "Switch", "NextIteration",
                                                                  "Exit"}
    assert len(result.trace) > 0
    assert repr(result) == "<whileloop (lowered): x=2, v=16, dv/dx=32>"
    bundle = result._repr_mimebundle_()
    assert bundle["text/plain"] == repr(result) and 'class="cfnb-explorer-static"' in bundle["text/html"]
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_explorer_views_show_the_right_graphs(result):
    explorer = result.explorer()
    assert explorer.views == ("functional", "lowered", "gradient")
    shown = {}
    for view in explorer.views:
        explorer.view = view
        shown[view] = explorer.shown_svg
        assert shown[view].startswith("<svg")
    for primitive in ("Enter", "Merge", "Switch", "NextIteration", "Exit"):
        assert primitive in shown["lowered"]
    assert "While" in shown["functional"] and "NextIteration" not in shown["functional"]
    assert "StackPushV2" in shown["gradient"] and "StackPushV2" not in shown["lowered"]


def test_stepping_moves_the_highlight(result):
    explorer = result.explorer()
    explorer.view = "lowered"
    merges = [f.step for f in result.trace.firings if f.node == "while/Merge"]
    explorer.step = merges[0]
    drawing, caption = explorer.shown_svg, explorer.caption
    explorer.step = merges[1]  # what Play and the slider set, in the page or from Python
    assert explorer.shown_svg is drawing  # the page restyles the one drawing; nothing is drawn again
    assert caption != explorer.caption and explorer.highlighted == "while/Merge"
    label = explorer.drawings["lowered"].label_for("while/Merge")
    assert explorer.caption.startswith(f"step {merges[1]}: Merge {label} in frame while, iteration 1, live")


def test_magic_displays_the_result_unless_told_not_to(clean):
    out = clean.run_cell_magic("whileloop", "", "i = 0\nwhile i < 2:\n    i += 1")
    assert out is clean.user_ns["_loop"]
    assert clean.run_cell_magic("whileloop", "--no-display", "i = 0\nwhile i < 2:\n    i += 1") is None


def test_engine_never_imports_ipython():
    import subprocess
    import sys
    code = "import sys, cfnb, cfnb.viz, cfnb.gradients; print('IPython' in sys.modules, 'ipywidgets' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False False"
    assert cfnb.load_ipython_extension


def test_loading_freezes_the_kernels_objects_but_each_cells_graph_is_still_collected(clean):
    """`%load_ext cfnb` freezes what the kernel holds (magics/__init__.py: a full collection then skips it); the
    graph of a cell, made after, is a cycle of ops and tensors that the collector still frees once nothing holds
    it."""
    import gc
    import time
    import weakref

    assert gc.get_freeze_count() > 1000
    ip = clean
    ip.run_cell_magic("whileloop", "--no-display --as gc_probe", "k = 0\nwhile k < 3:\n    k += 1")
    graph = weakref.ref(ip.user_ns["gc_probe"].graph)
    assert graph() is not None
    ip.run_cell_magic("whileloop", "--no-display --as gc_probe", "k = 0\nwhile k < 3:\n    k += 2")
    deadline = time.monotonic() + 5  # the first cell's progress watcher holds its session until it next wakes
    while gc.collect() is not None and graph() is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert graph() is None
