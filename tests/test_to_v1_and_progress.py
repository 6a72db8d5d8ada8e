"""The engine hooks the magic uses: rebuilding a functional graph with v1 control flow
(passes/to_v1.py), a bounded trace (RunOptions.trace_limit) and Session.progress()."""
import threading
import time

import numpy as np
import pytest

import cfnb
from cfnb.passes.to_v1 import rebuild_v1


def _functional_program():
    cfnb.enable_control_flow_v2()
    g = cfnb.Graph()
    with g.as_default():
        x = cfnb.constant(1.5, cfnb.float64)

        def outer(i, s):
            def inner(j, t):
                return j + 1, cfnb.cond(cfnb.equal(j % 2, 0), lambda: t + x * cfnb.cast(j, cfnb.float64),
                                        lambda: t - x)
            _, t = cfnb.while_loop(lambda j, t: j < i, inner, [cfnb.constant(0), s])
            return i + 1, t

        i, s = cfnb.while_loop(lambda i, s: i < 4, outer, [cfnb.constant(0), cfnb.constant(0.0, cfnb.float64)])
    cfnb.disable_control_flow_v2()
    return g, s


def test_rebuilt_graph_computes_the_same_with_v1_primitives_and_v1_gradients():
    g, s = _functional_program()
    expected = cfnb.Session(graph=g).run(s)
    rebuilt = rebuild_v1(g)
    types = {op.type for op in rebuilt.graph.get_operations()}
    assert {"Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond"} <= types
    assert not types & {"While", "StatelessWhile", "If", "StatelessIf"}
    s1 = rebuilt.tensor_map[s]
    assert cfnb.Session(graph=rebuilt.graph).run(s1) == expected
    frames = {op.get_attr("frame_name") for op in rebuilt.graph.get_operations() if op.type == "Enter"}
    assert set(rebuilt.frames) == frames and len(frames) == 2
    with rebuilt.graph.as_default():  # v1 gradients (history stacks) through the rebuilt loops
        x1 = next(op for op in rebuilt.graph.get_operations() if op.type == "Const" and op.name == "Const").outputs[0]
        (grad,) = cfnb.gradients(s1, [x1])
    assert any(op.type == "StackPushV2" for op in rebuilt.graph.get_operations())
    assert cfnb.Session(graph=rebuilt.graph).run(grad) == pytest.approx(expected / 1.5)


def test_a_trace_limit_stops_the_run_and_keeps_the_first_firings():
    g = cfnb.Graph()
    with g.as_default():
        i = cfnb.while_loop(lambda i: i < 10_000, lambda i: i + 1, [cfnb.constant(0)])
    meta = cfnb.RunMetadata()
    with pytest.raises(cfnb.runtime.trace.TraceLimitReached):
        cfnb.Session(graph=g).run(i, options=cfnb.RunOptions(trace_level=cfnb.RunOptions.FULL_TRACE,
                                                             trace_limit=50), run_metadata=meta)
    assert len(meta.trace) == 50 and meta.trace.truncated and meta.trace[0].step == 0
    assert cfnb.Session(graph=g).run(i) == 10_000  # untraced: the fast path, to the end


def test_progress_reports_the_running_loop_and_its_iteration_from_another_thread():
    g = cfnb.Graph()
    with g.as_default():
        n = cfnb.placeholder(cfnb.int64, [])
        i = cfnb.while_loop(lambda i: i < n, lambda i: i + 1, [cfnb.constant(0, cfnb.int64)])
    session = cfnb.Session(graph=g)
    seen = []

    def watch():
        while not seen or seen[-1] != "done":
            running = session.progress()
            if running:
                seen.append(running)
            time.sleep(0.001)

    thread = threading.Thread(target=watch)
    thread.start()
    assert session.run(i, {n: np.int64(400_000)}) == 400_000
    seen.append("done")
    thread.join()
    samples = [s for s in seen if s != "done"]
    assert samples and all(s[0][0] == "while/while_context" for s in samples)
    iterations = [s[0][1] for s in samples]
    assert iterations == sorted(iterations) and 0 <= iterations[-1] < 400_000
    assert session.progress() == []
