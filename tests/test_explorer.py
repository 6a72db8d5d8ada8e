"""The explorer widget: its own widgets per display, drawings that fit, a highlight in every view."""
import re

import pytest

pytest.importorskip("ipywidgets")
from magics.explorer import Explorer, scaled_svg, stand_in  # noqa: E402

pytestmark = pytest.mark.skipif(not __import__("shutil").which("dot"), reason="Graphviz's dot is not installed")


@pytest.fixture(scope="module")
def result(ip):
    ip.run_cell_magic("whileloop", "--no-display --grad v:x --as _explored",
                      "x = 2.0\nv = x\nwhile v < 8.0:\n    v = v * v")
    return ip.user_ns["_explored"]


def _model_ids(bundle):
    return bundle["application/vnd.jupyter.widget-view+json"]["model_id"]


def test_each_display_gets_its_own_widgets(result):
    explorer = Explorer(result)
    first, second = explorer._repr_mimebundle_(), explorer._repr_mimebundle_()
    assert _model_ids(first) == explorer.model_id
    assert _model_ids(second) != explorer.model_id  # a copy: its own Play, slider and drawing
    assert second["text/plain"] == f"<cfnb explorer: lowered view, step 0 of {len(result.trace) - 1}>"
    a, b = result._repr_mimebundle_(), result._repr_mimebundle_()  # `_loop` shown in two cells
    assert _model_ids(a) != _model_ids(b)


def test_a_copy_steps_on_its_own_and_shares_the_drawings(result):
    explorer = Explorer(result)
    explorer.view.value, explorer.slider.value = "gradient", 3
    copy = explorer.copy()
    assert (copy.view.value, copy.slider.value) == ("gradient", 3)  # a second display shows the same state
    explorer.slider.value = 0
    assert copy.play is not explorer.play and copy._svgs is explorer._svgs
    copy.play.value = 6
    assert copy.slider.value == 6 and explorer.slider.value == 0
    assert copy.caption.value.startswith("step 6:")


def test_wide_drawings_fit_the_output_and_zoom_scales_them(result):
    explorer = Explorer(result)
    explorer.view.value = "functional"
    natural = float(re.search(r'width="([\d.]+)pt"', explorer.shown_svg).group(1))
    assert natural <= 720  # the drawing folds what it must to fit a page (960 px = 720 pt; cfnb.viz.drawing)
    head = explorer.drawing.value.split(">", 1)[0]
    assert 'width="100%"' in head and f"max-width:{natural:.0f}pt" in head and "viewBox" in head
    explorer.zoom.value = 0.5
    assert f'width="{natural * 0.5:.0f}pt"' in explorer.drawing.value.split(">", 1)[0]
    assert explorer.drawing.layout.overflow == "auto"  # a bounded box that scrolls, never cut off


def test_scaled_svg_keeps_text_that_is_not_svg():
    assert scaled_svg("digraph {}", "fit") == "<pre>digraph {}</pre>"


def test_stand_in_maps_a_firing_to_the_op_drawn_for_it():
    assert stand_in("while/Merge", {"while/Merge"}, "lowered") == "while/Merge"
    assert stand_in("gradients/while/mul_grad/Mul_1", {"while/mul", "while/Merge"}, "lowered") == "while/mul"
    assert stand_in("gradients/b_count_2", {"while/mul"}, "lowered") is None
    assert stand_in("while/body/_1/mul", {"while", "x"}, "functional") == "while"
    assert stand_in("Func/while/body/input_control_node", {"while", "x"}, "functional") == "while"
    assert stand_in("Func/cond/then/input_1", {"cond", "x"}, "functional") == "cond"
    assert stand_in("x", {"while"}, "functional") is None


def test_stepping_highlights_the_firing_node_in_every_view(result):
    explorer = Explorer(result)
    trace = result.trace
    grad_step = next(f.step for f in trace if f.node.startswith("gradients/while/mul_grad/"))
    explorer.slider.value = grad_step
    for view in ("gradient", "lowered", "functional"):
        explorer.view.value = view
        assert explorer.highlighted is not None, view
        assert 'stroke-width="3"' in explorer.shown_svg, view
    explorer.view.value = "gradient"
    assert explorer.highlighted == trace[grad_step].node
    explorer.view.value = "lowered"
    assert explorer.highlighted == "while/mul" and "shown as while/mul" in explorer.caption.value
    counter = next(f.step for f in trace if f.node == "gradients/b_count_2")
    explorer.slider.value = counter  # the gradient loop's own counter has no forward op
    assert explorer.highlighted is None and "see the gradient view" in explorer.caption.value
    explorer.view.value = "gradient"
    assert explorer.highlighted == "gradients/b_count_2"
