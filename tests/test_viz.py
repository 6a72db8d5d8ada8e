"""Text and DOT forms of graphs: deterministic, one cluster per frame, real `dot` renders them."""
import re

import pytest
from running import run

import cfnb as tf
from cfnb import viz


def _nested_loop():
    n = tf.constant(0)

    def inner(s):
        return tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, i + s), [n, s])[1]

    return tf.while_loop(lambda x: x < 20, lambda x: x + inner(n), [n])


def test_dot_source_is_deterministic_across_builds():
    sources = []
    for _ in range(2):
        tf.reset_default_graph()
        _nested_loop()
        sources.append(viz.to_dot(tf.get_default_graph()).source)
    assert sources[0] == sources[1]
    assert "0x" not in sources[0]


@pytest.mark.parametrize("detail", ["all", "primitives"])
def test_one_cluster_per_frame_nested_as_frames_nest(detail):
    _nested_loop()
    src = viz.to_dot(tf.get_default_graph(), legend=False, detail=detail).source
    labels = re.findall(r'label="frame ([^"\\\n]+)', src)
    assert labels == ["while/while_context", "while/while/while_context"]
    outer_start = src.index('subgraph "cluster_frame_while.while_context"')
    inner_start = src.index('subgraph "cluster_frame_while.while.while_context"', outer_start + 1)
    outer_end = src.rindex("}")
    assert outer_start < inner_start < outer_end
    assert ("parallel_iterations=10" in src) == (detail == "all")  # TensorFlow's default, said at "all"


def test_each_primitive_has_its_own_shape():
    tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    src = viz.to_dot(tf.get_default_graph(), legend=False, detail="all").source
    for kind, shape in [("Enter", "invhouse"), ("Exit", "house"), ("Merge", "invtrapezium"),
                        ("Switch", "trapezium"), ("NextIteration", "cds"), ("LoopCond", "diamond")]:
        line = next(x for x in src.splitlines() if f'label={kind} ' in x or f'label="{kind}"' in x)
        assert f"shape={shape}" in line, (kind, line)
    assert "style=dashed" in src  # the NextIteration back edge


def test_real_dot_renders_svg_and_the_view_has_deterministic_text():
    r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    view = viz.show(tf.get_default_graph(), title="count")
    bundle = view._repr_mimebundle_()
    assert bundle["image/svg+xml"].startswith("<svg")
    assert "Merge" in bundle["image/svg+xml"]
    assert bundle["text/plain"] == ("<cfnb graph: count: 12 ops; primitives Enter, Exit, LoopCond, Merge, "
                                    "NextIteration, Switch>")
    assert run(r) == 3


def test_trace_view_keeps_layout_and_greys_dead_nodes():
    tf.while_loop(lambda i: i < 1, lambda i: i + 1, [0])
    g = tf.get_default_graph()
    plain = viz.to_dot(g).source
    step = viz.to_dot(g, step="while/Merge", dead={"while/Exit"}, fired={"while/Merge"}, values={"while/Merge": "0"})
    assert step.source.count("->") == plain.count("->")
    exit_line = next(x for x in step.source.splitlines() if 'id="o_while.Exit"' in x)
    assert "#eeeeee" in exit_line
    merge_line = next(x for x in step.source.splitlines() if 'id="o_while.Merge"' in x)
    assert "penwidth=3" in merge_line and "xlabel=0" in merge_line
    const_step = viz.to_dot(g, step="while/add/y")  # a constant folded into `add`: `add` lights up
    assert "penwidth=3" in next(x for x in const_step.source.splitlines() if 'id="o_while.add"' in x)


def test_missing_dot_gives_one_message_and_dot_text(monkeypatch):
    from cfnb.viz import dot as dot_module
    tf.while_loop(lambda i: i < 1, lambda i: i + 1, [0])
    monkeypatch.setattr(dot_module, "dot_available", lambda: False)
    monkeypatch.setattr(dot_module, "_warned", [])
    view = viz.show(tf.get_default_graph())
    first = view._repr_mimebundle_()
    second = view._repr_mimebundle_()
    assert set(first) == {"text/plain"} and "apt-get install graphviz" in first["text/plain"]
    assert "digraph cfnb" in first["text/plain"] and "apt-get" not in second["text/plain"]


def _build(kind):
    x = tf.placeholder(tf.float32, [])
    if kind == "cond":
        tf.cond(x > 0.0, lambda: x * 2.0, lambda: -x)
    else:
        tf.while_loop(lambda v: v < 10.0, lambda v: v * x, [x])


@pytest.mark.parametrize("kind", ["cond", "while"])
def test_text_form_is_stable(kind):
    texts = []
    for _ in range(2):
        tf.reset_default_graph()
        _build(kind)
        texts.append(tf.get_default_graph().as_text())
    assert texts[0] == texts[1] and str(tf.get_default_graph()) == texts[1]
