"""The trace timeline and memory timeline pictures (cfnb.viz.timeline)."""
import xml.dom.minidom

import cfnb as tf
from cfnb import viz


def _run(parallel, grad=False):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(1.5)
        _, y = tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, tf.sin(y) * x), [0, x],
                             parallel_iterations=parallel)
        fetch = tf.gradients(y, x)[0] if grad else y
        meta = tf.RunMetadata()
        tf.Session().run(fetch, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
    return meta


def test_rows_are_frame_instances_times_iterations():
    rows = viz.timeline_rows(_run(1).trace, frames={"while/while_context"})
    assert [label for label, _, _ in rows] == [f"while iter {k}" for k in range(5)]
    last = rows[-1][2]
    assert any(not f.live for f in last) and any(f.live and f.node.startswith("while/Exit") for f in last)


def test_picture_is_valid_svg_with_dead_firings_grey_and_a_cursor():
    trace = _run(1).trace
    pic = viz.trace_timeline(trace, step=10, title="t")
    xml.dom.minidom.parseString(pic.svg)  # well-formed
    dead = sum(1 for f in trace.firings if not f.live)
    assert pic.svg.count(f'fill="{viz.timeline.DEAD}"') == dead > 0
    assert pic.svg.count("<title>") == len(trace.firings)
    assert 'stroke-width="1.5"' in pic.svg  # the cursor
    assert pic._repr_mimebundle_()["text/plain"].startswith("<trace timeline: ")
    assert viz.trace_timeline(trace).svg == viz.trace_timeline(trace).svg  # deterministic


def _independent_iterations(parallel):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([0.5, 1.0])

        def body(i, ta):
            return i + 1, ta.write(i, tf.tanh(tf.sin(tf.cos(x * tf.cast(i, tf.float32)))))

        _, ta = tf.while_loop(lambda i, ta: i < 6, body, [0, tf.TensorArray(tf.float32, size=6)],
                              parallel_iterations=parallel)
        meta = tf.RunMetadata()
        tf.Session().run(ta.stack(), options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
    return meta


def test_parallel_iterations_overlap_in_time():
    def spans(meta):
        rows = viz.timeline_rows(meta.trace, frames={"while/while_context"})
        return [(min(f.step for f in fs), max(f.step for f in fs)) for _, _, fs in rows]
    serial, parallel = spans(_independent_iterations(1)), spans(_independent_iterations(4))
    assert all(a[1] < b[0] for a, b in zip(serial, serial[1:]))  # one iteration after another
    assert any(b[0] < a[1] for a, b in zip(parallel, parallel[1:]))  # the next one starts before this one ends


def test_rows_beyond_the_limit_are_counted():
    pic = viz.trace_timeline(_run(1).trace, max_rows=2)
    assert "more rows not drawn" in pic.svg and pic.svg.count('text-anchor="end" fill="#') >= 2


def test_memory_timeline_draws_every_stack_and_the_total():
    memory = _run(1, grad=True).memory
    stacks = {e.stack for e in memory.events}
    pic = viz.memory_timeline(memory, title="stacks")
    xml.dom.minidom.parseString(pic.svg)
    assert pic.svg.count("<polyline") == len(stacks) + 1 and all(s in pic.svg for s in stacks)
    assert f"peak {memory.peak_bytes} bytes" in pic.text and memory.peak_bytes > 0
