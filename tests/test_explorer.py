"""The explorer widget from Python: its state, the data it sends the page, its static HTML, and the
untrusted form of every picture. (tests/test_browser.py checks what the page does with them.)"""
import base64
import json
import re

import pytest

pytest.importorskip("anywidget")
from cfnb import viz  # noqa: E402
from magics import explorer_data, static_html  # noqa: E402
from magics.explorer import ESM, Explorer  # noqa: E402
from magics.explorer_data import stand_in  # noqa: E402

pytestmark = pytest.mark.skipif(not __import__("shutil").which("dot"), reason="Graphviz's dot is not installed")


@pytest.fixture(scope="module")
def result(ip):
    ip.run_cell_magic("whileloop", "--no-display --grad v:x --as _explored",
                      "x = 2.0\nv = x\nwhile v < 8.0:\n    v = v * v")
    return ip.user_ns["_explored"]


def _model_id(bundle):
    return bundle["application/vnd.jupyter.widget-view+json"]["model_id"]


def test_each_display_gets_its_own_widget(result):
    explorer = Explorer(result)
    first, second = explorer._repr_mimebundle_(), explorer._repr_mimebundle_()
    assert _model_id(first) == explorer.model_id
    assert _model_id(second) != explorer.model_id  # a copy: stepping it does not move the first
    assert second["text/plain"] == f"<cfnb explorer: lowered view, step 0 of {len(result.trace) - 1}>"
    a, b = result._repr_mimebundle_(), result._repr_mimebundle_()  # `_loop` shown in two cells
    assert _model_id(a) != _model_id(b)
    assert a["text/plain"] == repr(result)


def test_a_copy_steps_on_its_own_and_shares_the_drawings(result):
    explorer = Explorer(result)
    explorer.view, explorer.step = "gradient", 3
    copy = explorer.copy()
    assert (copy.view, copy.step) == ("gradient", 3)
    explorer.step = 0
    assert copy.drawings is explorer.drawings and copy.step == 3
    copy.step = 6
    assert explorer.step == 0 and copy.caption.startswith("step 6:")


def test_state_is_checked(result):
    explorer = Explorer(result)
    explorer.step = 10_000
    assert explorer.step == explorer.last_step == len(result.trace) - 1
    with pytest.raises(Exception, match="view must be one of functional, lowered, gradient"):
        explorer.view = "forward"
    with pytest.raises(Exception, match="zoom must be one of"):
        explorer.zoom = "3"
    with pytest.raises(Exception, match="detail must be one of lesson, all"):
        explorer.detail = "primitives"


def test_every_node_as_tensorflow_built_it_is_one_switch_away(result):
    explorer = Explorer(result, view="gradient")
    lesson = explorer.shown_svg
    explorer.detail = "all"
    assert explorer.key == "gradient/all" and explorer.shown_svg != lesson
    assert explorer.drawings["gradient/all"].detail == "all"
    every = {op.name for op in result.lowered.get_operations()}
    assert all(explorer.drawings["gradient/all"].element_for(name) == "o_" + name.replace("/", ".")
               for name in ("while/Merge", "gradients/b_count_2", "gradients/while/mul_grad/Mul"))
    assert len(every) > 40
    explorer.step = next(f.step for f in result.trace if f.node == "gradients/b_count_2")
    assert explorer.highlighted == "gradients/b_count_2" and "shown as" not in explorer.caption
    assert repr(explorer).startswith("<cfnb explorer: gradient view, all nodes, step")


def test_the_page_gets_each_drawing_once_and_the_trace_as_data(result):
    explorer = Explorer(result)
    data = explorer.data
    assert data["view_names"] == ["functional", "lowered", "gradient"]
    assert set(data["views"]) == {"functional", "lowered", "gradient", "functional/all", "lowered/all", "gradient/all"}
    for view, drawing in data["views"].items():
        assert drawing["svg"] == explorer.drawings[view].svg  # the viz.Drawing of the view, at the lesson's level
        natural = float(re.search(r'<svg width="([\d.]+)pt"', drawing["svg"]).group(1))
        assert drawing["width"] == pytest.approx(natural * 4 / 3, abs=0.1)
        assert drawing["font_px"] == viz.measure(drawing["svg"]).font_px >= 9
    assert len(data["steps"]) == len(result.trace)
    for firing, (node, frame, iteration, live, value) in zip(result.trace.firings, data["steps"]):
        name, op_type, _ = data["nodes"][node]
        assert (name, op_type, iteration, bool(live)) == (firing.node, firing.op_type, firing.iteration, firing.live)
        assert data["frames"][frame] == explorer_data.short_frame(firing.frame)
        assert value == (firing.value if firing.live else "")
    merge = next(n for n in data["nodes"] if n[0] == "while/Merge")
    element = merge[2]["lowered"][0]
    assert element == "o_while.Merge" and f'<g id="{element}" class="node">' in data["views"]["lowered"]["svg"]
    assert merge[2]["functional"][2] == "while"  # a lowered node's firing shows on the functional While


def test_stand_in_maps_a_firing_to_the_op_drawn_for_it():
    assert stand_in("while/Merge", {"while/Merge"}, "lowered") == "while/Merge"
    assert stand_in("gradients/while/mul_grad/Mul_1", {"while/mul", "while/Merge"}, "lowered") == "while/mul"
    assert stand_in("gradients/b_count_2", {"while/mul"}, "lowered") is None
    assert stand_in("while/body/_1/mul", {"while", "x"}, "functional") == "while"
    assert stand_in("Func/while/body/input_control_node", {"while", "x"}, "functional") == "while"
    assert stand_in("Func/cond/then/input_1", {"cond", "x"}, "functional") == "cond"
    assert stand_in("x", {"while"}, "functional") is None
    assert stand_in("_retval/while/Exit:0", {"while/Exit"}, "lowered") == "while/Exit"


def test_stepping_highlights_the_firing_node_in_every_view(result):
    explorer = Explorer(result)
    trace = result.trace
    grad_step = next(f.step for f in trace if f.node.startswith("gradients/while/mul_grad/"))
    explorer.step = grad_step
    for view in ("gradient", "lowered", "functional"):
        explorer.view = view
        assert explorer.highlighted is not None, view
    explorer.view = "gradient"
    assert explorer.highlighted == trace[grad_step].node and "shown as" not in explorer.caption
    explorer.view = "lowered"
    assert explorer.highlighted == "while/mul" and explorer.caption.endswith("— shown as while/mul")
    explorer.step = next(f.step for f in trace if f.node == "gradients/b_count_2")  # the gradient loop's own
    assert explorer.highlighted is None
    assert explorer.caption.endswith("— part of the gradient: see the gradient view")
    explorer.view = "gradient"
    assert explorer.highlighted == "gradients/b_count_2"


def test_captions_count_iterations_from_zero(result):
    explorer = Explorer(result)
    merges = [f for f in result.trace if f.node == "while/Merge" and f.live]
    assert [f.iteration for f in merges] == list(range(len(merges)))
    explorer.step = merges[1].step
    label = explorer.drawings["lowered"].label_for("while/Merge")  # `x (while/Merge)` once names are known
    assert "while/Merge" in label
    assert explorer.caption == (f"step {merges[1].step}: Merge {label} in frame while, iteration 1, live, "
                                f"value {merges[1].value}")
    explorer.step = 0
    assert "in the root frame" in explorer.caption


def _img_svg(html_text):
    data = re.search(r'<img src="data:image/svg\+xml;base64,([^"]+)"', html_text).group(1)
    return base64.b64decode(data).decode("utf-8")


def test_static_html_shows_the_current_step_and_carries_the_state(result):
    explorer = Explorer(result, view="lowered")
    explorer.step = 30
    text = static_html.explorer_html(explorer)
    assert f'<div class="cfnb-explorer-caption">{explorer.caption}</div>' in text
    svg = _img_svg(text)
    element = explorer.data["nodes"][explorer.data["steps"][30][0]][2]["lowered"][0]
    assert f'<style>[id="{element}"] polygon' in svg  # the firing node styled inside the picture itself
    state = json.loads(re.search(r'class="cfnb-explorer-state">(.*?)</script>', text, re.S).group(1))
    assert state["data"] == json.loads(json.dumps(explorer.data)) and (state["view"], state["step"]) == ("lowered", 30)
    module = re.search(r'class="cfnb-explorer-esm">(.*?)</script>', text, re.S).group(1)
    assert module == ESM and "export function mount" in module


def test_every_picture_has_a_form_untrusted_output_renders(result):
    from cfnb import viz
    for picture in (result.show("functional"), viz.trace_timeline(result.trace), viz.memory_timeline(result.memory)):
        bundle = picture._repr_mimebundle_()
        assert _img_svg(bundle["text/html"]) == re.sub(r"<!-- Generated by graphviz[^\n]*\n", "",
                                                       bundle["image/svg+xml"])
        assert 'style="overflow:auto' in bundle["text/html"] and bundle["text/plain"] == repr(picture)


def test_without_dot_the_explorer_says_so_and_shows_the_dot_text(result, monkeypatch):
    from cfnb import viz
    monkeypatch.setattr(viz.dot, "dot_available", lambda: False)
    explorer = Explorer(result)
    svg = explorer.drawings["lowered"].svg
    assert svg.startswith('<pre class="cfnb-no-dot">') and "sudo apt-get install graphviz" in svg
    assert "digraph" in svg and explorer.drawings["lowered"].element_for("while/Merge") is None
    text = static_html.explorer_html(explorer)
    assert '<div class="cfnb-explorer-drawing"><pre class="cfnb-no-dot">' in text and "<img" not in text
    explorer.step = 30
    assert explorer.highlighted is None and "not drawn in this view" in explorer.caption


def test_show_draws_a_view_at_a_level_of_detail(result):
    """`_loop.show(view, detail=...)`: "all" is TensorFlow's exact graph, every op of the view drawn by its name."""
    lesson, everything = result.show("lowered"), result.show("lowered", detail="all")
    assert len(everything.dot.body) > len(lesson.dot.body)
    ops = [op.name for op in result.lowered.get_operations() if not op.name.startswith("gradients")]
    assert all(f'tooltip="{name} (' in everything.dot.source for name in ops)
    assert not all(f'tooltip="{name} (' in lesson.dot.source for name in ops)
