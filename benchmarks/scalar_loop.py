"""Per-iteration overhead of a v1 while_loop: 20,000 iterations of `(i + 1, s + 1.5)` while `i < n`.

Compares cfnb's Session.run (compiled graph cached by a warm-up run; also with the static schedule off, the
tagged-token executor's per-iteration cost), the same arithmetic as a plain Python loop, and TensorFlow
(control flow v1) when importable. Target: cfnb within 3x of TensorFlow.
"""

from _timing import (
    best_of,
    best_of_each,
    check,
    main_or_tensorflow,
    print_table,
    report_tf,
    session_runner,
    tf_row,
    tf_v1,
)

import cfnb

N = 20_000
TARGET_VS_TF = 3.0


def build(tf):
    """The benchmarked program, for cfnb or tf.compat.v1: returns (graph, n placeholder, fetches)."""
    graph = tf.Graph()
    with graph.as_default():
        n = tf.placeholder(tf.int32, [], name="n")
        fetches = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 1.5), [0, 0.0])
    return graph, n, fetches


def python_loop(n):
    i, s = 0, 0.0
    while i < n:
        i, s = i + 1, s + 1.5
    return i, s


def main():
    per_iter = lambda seconds: seconds / N * 1e6
    expected = python_loop(N)
    agrees = lambda out: tuple(out) == expected
    ok = True
    for form in ("v1", "v2"):
        (cfnb.enable_control_flow_v2 if form == "v2" else cfnb.disable_control_flow_v2)()
        runs = {"cfnb": session_runner(cfnb.compat.v1, build(cfnb.compat.v1), N)}
        # the tagged-token executor alone (what a traced run, or a graph the static schedule refuses, runs on)
        executor = cfnb.ConfigProto(static_schedule=False)
        runs["cfnb executor"] = session_runner(cfnb.compat.v1, build(cfnb.compat.v1), N, config=executor)
        if form == "v2":
            strict = cfnb.ConfigProto(lower_functional_ops=False)
            runs["cfnb strict"] = session_runner(cfnb.compat.v1, build(cfnb.compat.v1), N, config=strict)
        checks = [(name, agrees(run())) for name, run in runs.items()]
        runs["python"] = lambda: python_loop(N)
        rows = [(name, per_iter(seconds)) for name, seconds in best_of_each(runs, repeat=5).items()]
        tf = tf_row(__file__, repeat=20, form=form)
        if tf is not None:
            rows.append(("tensorflow", per_iter(tf[0])))
            checks.append(("tensorflow", tf[1]))
        kind = "lowered, control flow v1" if form == "v1" else "functional While (cfnb: lowered; strict also shown)"
        print_table(f"scalar while_loop, {N} iterations, {kind}", "µs/iter", rows,
                    targets={"tensorflow": TARGET_VS_TF if form == "v1" else 1.0}, tf_skipped=tf is None)
        if form == "v2" and tf is not None:
            strict = dict(rows)["cfnb strict"]
            print(f"  cfnb strict/tensorflow = {strict / rows[-1][1]:.2f}x   (target <= 1.0x: "
                  f"{'met' if strict <= rows[-1][1] else 'NOT met'})")
        ok &= check(f"(i, s) == python loop's {expected}", checks, lambda ok: ok)
    cfnb.disable_control_flow_v2()
    return ok


def tensorflow_only(repeat, form):
    run = session_runner(tf_v1(form), build(tf_v1(form)), N)
    report_tf(best_of(run, repeat=repeat), tuple(run()) == python_loop(N))


if __name__ == "__main__":
    main_or_tensorflow(main, tensorflow_only)
