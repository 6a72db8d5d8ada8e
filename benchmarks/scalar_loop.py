"""Per-iteration overhead of a while_loop: 20,000 iterations of `(i + 1, s + 1.5)` while `i < n`, and a nested
loop (100 outer iterations of 200 inner ones, the inner sum added to the outer).

Compares cfnb's Session.run (compiled graph cached by a warm-up run; also with the static schedule off, the
tagged-token executor's per-iteration cost), the same arithmetic as a plain Python loop, and TensorFlow (control
flow v1) when importable. cfnb runs with its graph optimizations on (the default) and off
(`disable_meta_optimizer`): they find nothing to rewrite in these loops, and must cost nothing. Targets: cfnb within
3x of TensorFlow; with the passes on, no slower than without (1.1x: the noise of a shared machine).
"""

from _timing import (
    best_of,
    check,
    main_or_tensorflow,
    print_table,
    report_tf,
    session_runner,
    tf_v1,
    timed_rows,
)

import cfnb
from cfnb.passes.lowering import has_functional_ops, lower_functional_ops
from cfnb.passes.meta_optimizer import optimize

N = 20_000
OUTER, INNER = 100, 200
TARGET_VS_TF = 3.0
TARGET_VS_NO_PASS = 1.1
NO_PASS = cfnb.ConfigProto(graph_options=cfnb.GraphOptions(rewrite_options=cfnb.RewriterConfig(
    disable_meta_optimizer=True)))


def build(tf):
    """The benchmarked program, for cfnb or tf.compat.v1: returns (graph, n placeholder, fetches)."""
    graph = tf.Graph()
    with graph.as_default():
        n = tf.placeholder(tf.int32, [], name="n")
        fetches = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 1.5), [0, 0.0])
    return graph, n, fetches


def build_nested(tf):
    """Nested loops: for j < 100: s += (for i < n: t += 1.5); fetches (j, s)."""
    graph = tf.Graph()
    with graph.as_default():
        n = tf.placeholder(tf.int32, [], name="n")

        def inner(s):
            return tf.while_loop(lambda i, t: i < n, lambda i, t: (i + 1, t + 1.5), [0, 0.0])[1] + s

        fetches = tf.while_loop(lambda j, s: j < OUTER, lambda j, s: (j + 1, inner(s)), [0, 0.0])
    return graph, n, fetches


def python_nested(n):
    j, s = 0, 0.0
    while j < OUTER:
        i, t = 0, 0.0
        while i < n:
            i, t = i + 1, t + 1.5
        j, s = j + 1, t + s
    return j, s


def python_loop(n):
    i, s = 0, 0.0
    while i < n:
        i, s = i + 1, s + 1.5
    return i, s


def main():
    ok = True
    for name, make, python, n, iterations in (("scalar while_loop", build, python_loop, N, N),
                                              ("nested while_loops", build_nested, python_nested, INNER,
                                               OUTER * INNER)):
        for form in ("v1", "v2"):
            ok &= measure(name, make, python, n, iterations, form)
    cfnb.disable_control_flow_v2()
    return ok


def rewrites(make):
    """What the graph optimizations do to the program (`OptimizedGraph.summary`), on the graph a Session runs
    (lowered first in v2): "no rewrite applied" means the passes hand back the graph as built, so "cfnb" and
    "cfnb, no pass" run the same compiled code and their ratio is the machine's noise."""
    graph, n, fetches = make(cfnb.compat.v1)
    fetches, feeds = list(fetches), [n]
    if has_functional_ops(graph):
        low = lower_functional_ops(graph)
        graph, fetches, feeds = low.graph, [low.tensor_map[t] for t in fetches], [low.tensor_map[n]]
    return optimize(graph, fetches, feeds).summary()


def measure(name, make, python, n, iterations, form):
    """One table: cfnb with and without passes (and strict in v2), Python, TensorFlow; µs per iteration."""
    expected = python(n)
    agrees = lambda out: tuple(out) == expected
    (cfnb.enable_control_flow_v2 if form == "v2" else cfnb.disable_control_flow_v2)()
    runs = {"cfnb": session_runner(cfnb.compat.v1, make(cfnb.compat.v1), n),
            "cfnb, no pass": session_runner(cfnb.compat.v1, make(cfnb.compat.v1), n, config=NO_PASS)}
    # the tagged-token executor alone (what a traced run, or a graph the static schedule refuses, runs on)
    executor = cfnb.ConfigProto(static_schedule=False)
    runs["cfnb executor"] = session_runner(cfnb.compat.v1, make(cfnb.compat.v1), n, config=executor)
    if form == "v2":
        strict = cfnb.ConfigProto(lower_functional_ops=False)
        runs["cfnb strict"] = session_runner(cfnb.compat.v1, make(cfnb.compat.v1), n, config=strict)
    checks = [(row, agrees(run())) for row, run in runs.items()]
    runs["python"] = lambda: python(n)
    rows, skipped = timed_rows(runs, checks, __file__, repeat=5, form=f"{form}-{make.__name__}",
                               scale=1e6 / iterations)
    kind = "lowered, control flow v1" if form == "v1" else "functional While (cfnb: lowered; strict also shown)"
    print_table(f"{name}, {iterations} iterations, {kind}", "µs/iter", rows,
                targets={"tensorflow": TARGET_VS_TF if form == "v1" else 1.0, "cfnb, no pass": TARGET_VS_NO_PASS},
                tf_skipped=skipped)
    if form == "v2" and not skipped:
        strict_row = dict(rows)["cfnb strict"]
        print(f"  cfnb strict/tensorflow = {strict_row / rows[-1][1]:.2f}x   (target <= 1.0x: "
              f"{'met' if strict_row <= rows[-1][1] else 'NOT met'})")
    summary = rewrites(make)
    print(f"  passes on this program: {summary} (the same graph runs with them and without)")
    return check(f"{'(i, s)' if make is build else '(j, s)'} == python's {expected}", checks, lambda ok: ok) \
        and summary == "no rewrite applied"


def tensorflow_only(repeat, form):
    form, _, maker = form.partition("-")
    make, python, n = (build_nested, python_nested, INNER) if maker == "build_nested" else (build, python_loop, N)
    run = session_runner(tf_v1(form), make(tf_v1(form)), n)
    report_tf(best_of(run, repeat=repeat), tuple(run()) == python(n))


if __name__ == "__main__":
    main_or_tensorflow(main, tensorflow_only)
