"""Levels of detail, stable SVG ids, fitting the page, and measuring what a learner sees (cfnb.viz.fold, drawing,
fit, partitions), drawn by the real `dot`."""
import re
import shutil

import pytest
from running import run

import cfnb as tf
from cfnb import viz
from cfnb.passes.lowering import lower_functional_ops

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
SANITIZE = re.compile(r'id="(a_)?(node|edge|clust|graph)\d+(_\d+)?"')  # notebooks/nbval_sanitize.cfg


def _lowered_loop():
    tf.enable_control_flow_v2()
    x = tf.constant(2.0, name="x")
    tf.while_loop(lambda v: v < 8.0, lambda v: v * v, [x])
    tf.disable_control_flow_v2()
    return lower_functional_ops(tf.get_default_graph()).graph


def _nested_gradient():
    x = tf.constant(1.1, name="x")

    def outer(k, y):
        _, y = tf.while_loop(lambda j, y: j < k, lambda j, y: (j + 1, y * x), [0, y])
        return k + 1, y
    _, y = tf.while_loop(lambda k, y: k < 4, outer, [1, x])
    return tf.gradients(y, x)[0]


def test_all_draws_every_node_and_the_other_levels_fold_the_plumbing():
    g = _lowered_loop()
    names = [op.name for op in g.get_operations()]
    every = viz.drawing(g, detail="all")
    assert sorted(o for e in every.plan.elements.values() for o in e.ops) == sorted(names)
    assert every.label_for("while/merge_2") == "while/merge_2"  # TensorFlow's names only
    prim = viz.drawing(g, detail="primitives")
    drawn = {o for e in prim.plan.elements.values() for o in e.ops}
    assert not any(n.startswith("Func/") for n in drawn)  # the inliner's NoOps and Identities
    assert "while/LoopExecuted" not in drawn and "while/loop_body_control" not in drawn
    assert "while/cond/Less/y" not in drawn and prim.element_for("while/cond/Less/y") == "o_while.cond.Less"
    assert prim.element_for("Func/while/body/input_2") == prim.element_for("while/x_switch")  # read through
    assert {"while/enter_2", "while/merge_2", "while/x_switch", "while/exit_2", "while/next_iteration_2"} <= drawn
    lanes = viz.drawing(g, detail="lanes")
    column = {lanes.element_for(f"while/{k}") for k in ("enter_2", "merge_2", "x_switch", "exit_2",
                                                          "next_iteration_2")}
    assert len(column) == 1 and column.pop().startswith("lane_")
    loops = viz.drawing(g, detail="loops")
    assert loops.element_for("while/merge_2") == loops.element_for("while/body/mul") == "loop_while"
    assert loops.element_for("x") == "o_x"
    assert len(loops.plan.elements) < len(lanes.plan.elements) < len(prim.plan.elements) < len(every.plan.elements)


def test_drawing_never_changes_the_graph():
    _nested_gradient()
    g = tf.get_default_graph()
    before = g.as_text()
    for detail in ("all", "primitives", "lanes", "loops", "lesson"):
        viz.to_dot(g, detail=detail)
    assert g.as_text() == before


def test_expand_keeps_a_frame_drawn_and_view_forward_leaves_the_gradient_out():
    _nested_gradient()
    g = tf.get_default_graph()
    folded = viz.drawing(g, detail="loops")
    assert folded.element_for("while/while/Merge") == folded.element_for("while/Merge") == "loop_while.while_context"
    opened = viz.drawing(g, detail="loops", expand=("while/while_context",))
    assert opened.element_for("while/Merge").startswith("lane_")
    assert opened.element_for("while/while/Merge") == "loop_while.while.while_context"  # nested: still folded
    forward = viz.drawing(g, view="forward", detail="primitives")
    assert forward.element_for("gradients/b_count_2") is None and forward.element_for("while/Merge")
    with pytest.raises(ValueError, match="detail must be"):
        viz.drawing(g, detail="everything")


@needs_dot
def test_ids_are_stable_set_in_the_dot_and_untouched_by_the_sanitizer():
    svgs = []
    for _ in range(2):
        tf.reset_default_graph()
        _nested_gradient()
        svgs.append(viz.drawing(tf.get_default_graph(), detail="primitives").svg)
    assert svgs[0] == svgs[1]
    ids = re.findall(r'<g id="([^"]+)" class="(node|cluster)"', svgs[0])
    assert ('o_while.Merge', 'node') in ids and ('frame_while.while_context', 'cluster') in ids
    assert ("frame_gradients.while.while_context", "cluster") in ids
    assert not any(SANITIZE.fullmatch(f'id="{i}"') for i, _ in ids)  # ours: kept by nbval's sanitize file
    assert len({i for i, _ in ids}) == len(ids)


@needs_dot
def test_measure_reads_points_scale_and_fonts():
    tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    svg = viz.drawing(tf.get_default_graph(), detail="all").svg
    head = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    m = viz.measure(svg)
    assert m.width == pytest.approx(float(head.group(1)) * 4 / 3, abs=0.1)
    assert m.height == pytest.approx(float(head.group(2)) * 4 / 3, abs=0.1)
    assert m.font_px == 12.0  # 9 pt edge labels
    half = viz.measure(svg, display_width=m.width / 2)
    assert half.font_px == pytest.approx(6.0) and half.width == m.width
    plain = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100" font-size="10"><text>a</text></svg>'
    assert viz.measure(plain) == (400, 100, 10.0)
    assert viz.fits(plain) and not viz.fits(plain.replace('font-size="10"', 'font-size="8"'))
    scaled = svg.replace('<g id="graph0" class="graph" transform="scale(1 1)', '<g id="graph0" class="graph" '
                                                                                'transform="scale(0.5 0.5)')
    assert viz.measure(scaled).font_px == pytest.approx(6.0)


@needs_dot
def test_the_lesson_level_abstracts_rather_than_shrinks():
    _nested_gradient()
    g = tf.get_default_graph()
    prim = viz.drawing(g, detail="primitives")
    assert prim.width > 960 and not prim.fits  # every primitive of two loops and their gradients: too wide
    lesson = viz.drawing(g, title="y = x^7 and its gradient")
    assert lesson.detail in ("lanes", "loops") and lesson.fits and not lesson.scroll
    m = viz.measure(lesson.svg)
    assert m.width <= 960 and m.font_px >= 9
    assert 'overflow:auto' in prim.html() and prim.svg in prim.html()
    huge = viz.show(g, detail="primitives")
    shown = huge._repr_mimebundle_()
    assert viz.measure(shown["image/svg+xml"]).width > 960  # a level asked for is drawn as asked,
    assert 'overflow:auto' in shown["text/html"]  # in a box that scrolls (every picture's <img>: figure.py)
    prim.scroll = True  # what `lesson` sets when even `loops` is too wide
    bundle = viz.GraphView(prim.dot, "g", prim)._repr_mimebundle_()
    assert 'overflow:auto' in bundle["text/html"] and "data:image/svg+xml;base64," in bundle["text/html"]


def test_values_from_an_earlier_cell_are_not_stray_nodes():
    stray = tf.constant(1.41421, name="Const")  # read by nothing in this graph
    tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    d = viz.drawing(tf.get_default_graph(), detail="primitives")
    assert d.element_for(stray.op.name) is None and "1.41421" not in d.dot.source
    assert "1.41421" in viz.to_dot(tf.get_default_graph(), detail="all").source


@needs_dot
def test_a_trace_step_keeps_the_page_width():
    dx = _nested_gradient()
    g = tf.get_default_graph()
    _, trace = run(dx, trace=True)
    d = viz.drawing(g)
    for step in (0, len(trace) // 2, len(trace) - 1):
        m = viz.measure(d.svg_at(trace, step))
        assert m.width <= 960 and m.font_px >= 9, step
        lit = d.element_for(trace[step].node)
        if lit is not None:
            assert re.search(rf'id="{re.escape(lit)}" class="(node|cluster)">.*?stroke-width="3"',
                             d.svg_at(trace, step), re.S)


@needs_dot
def test_partitions_are_side_by_side_and_fit():
    a, b = "/cpu:0", "/cpu:1"
    with tf.device(a):
        x = tf.placeholder(tf.float32, [], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        scale = x * 0.5

    def body(i, v):
        with tf.device(a):
            i1 = i + 1
        with tf.device(b):
            v1 = tf.tanh(v * scale) + v
        return i1, v1
    with tf.device(a):
        i, v = tf.while_loop(lambda i, v: i < n, body, [n * 0, x])
    meta = tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run((i, v), {x: 1.5, n: 4}, options=tf.RunOptions(output_partition_graphs=True), run_metadata=meta)
    svg = viz.render_svg(viz.partitions_to_dot(meta.partition_graphs))
    m = viz.measure(svg)
    assert m.width <= 960 and m.font_px >= 9

    cpu0, cpu1 = _box(svg, "device_0"), _box(svg, "device_1")
    assert (cpu0[0] + cpu0[1]) / 2 < cpu1[0] and cpu1[2] < cpu0[3]  # CPU:1 beside CPU:0, not below it
    assert 'class="cluster">\n<title>cluster_cloop_' in svg and ">control loop</text>" in svg


def _box(svg, cid):
    """(x min, x max, y min, y max) of a cluster's outline in the SVG."""
    outline = re.search(rf'<g id="{cid}" class="cluster">.*?(?:d|points)="([^"]+)"', svg, re.S).group(1)
    xs, ys = zip(*((float(a), float(b)) for a, b in re.findall(r"(-?[\d.]+),(-?[\d.]+)", outline)))
    return min(xs), max(xs), min(ys), max(ys)


@needs_dot
@pytest.mark.parametrize("detail", ["primitives", "lanes"])
def test_the_gradient_frame_is_drawn_below_the_forward_frame(detail):
    a = tf.constant(3.0, name="a")
    r = tf.while_loop(lambda v: v < 100.0, lambda v: v * a, [tf.constant(2.0, name="v")])
    tf.gradients(r, [a])
    svg = viz.drawing(tf.get_default_graph(), detail=detail).svg
    forward, gradient = _box(svg, "frame_while.while_context"), _box(svg, "frame_gradients.while.while_context")
    assert forward[3] < gradient[2]  # the drawing grows down, not across: the gradient's edges run down
    assert viz.measure(svg).width <= 960


def test_the_trace_timeline_fits_the_page():
    r = tf.while_loop(lambda i: i < 30, lambda i: i + 1, [0])
    _, trace = run(r, trace=True)
    assert viz.measure(viz.trace_timeline(trace, title="t").svg).width <= 960
