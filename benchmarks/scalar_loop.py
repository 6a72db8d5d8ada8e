"""Per-iteration overhead of a v1 while_loop: 20,000 iterations of `(i + 1, s + 1.5)` while `i < n`.

Compares cfnb's Session.run (compiled graph cached by a warm-up run), the same arithmetic as a plain
Python loop, and TensorFlow (control flow v1) when importable. Target: cfnb within 3x of TensorFlow.
"""
import sys

from _timing import best_of, check, print_table, report_tf, tf_row, tf_v1

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


def time_session(tf, repeat, config=None):
    """(best seconds per Session.run, its result); the warm-up run compiles and caches the graph."""
    graph, n, fetches = build(tf)
    with tf.Session(graph=graph, config=config) as sess:
        run = lambda: sess.run(fetches, {n: N})
        return best_of(run, repeat=repeat), run()


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
        cfnb_s, cfnb_out = time_session(cfnb.compat.v1, repeat=5)
        rows = [("cfnb", per_iter(cfnb_s)), ("python", per_iter(best_of(lambda: python_loop(N), repeat=20)))]
        checks = [("cfnb", agrees(cfnb_out))]
        if form == "v2":
            strict = cfnb.ConfigProto(lower_functional_ops=False)
            strict_s, strict_out = time_session(cfnb.compat.v1, repeat=5, config=strict)
            rows.insert(1, ("cfnb strict", per_iter(strict_s)))
            checks.append(("cfnb strict", agrees(strict_out)))
        tf = tf_row(__file__, repeat=20, form=form)
        if tf is not None:
            rows.append(("tensorflow", per_iter(tf[0])))
            checks.append(("tensorflow", tf[1]))
        kind = "lowered, control flow v1" if form == "v1" else "functional While (cfnb: lowered; strict also shown)"
        print_table(f"scalar while_loop, {N} iterations, {kind}", "µs/iter", rows,
                    targets={"tensorflow": TARGET_VS_TF if form == "v1" else 1.0}, tf_skipped=tf is None)
        if form == "v2" and tf is not None:
            print(f"  cfnb strict/tensorflow = {rows[1][1] / rows[-1][1]:.2f}x   (target <= 1.0x: "
                  f"{'met' if rows[1][1] <= rows[-1][1] else 'NOT met'})")
        ok &= check(f"(i, s) == python loop's {expected}", checks, lambda ok: ok)
    cfnb.disable_control_flow_v2()
    return ok


def tensorflow_only(repeat, form):
    seconds, out = time_session(tf_v1(form), repeat=repeat)
    report_tf(seconds, tuple(out) == python_loop(N))


if __name__ == "__main__":
    if "--tensorflow" in sys.argv:
        tensorflow_only(int(sys.argv[-2]), sys.argv[-1])
    else:
        raise SystemExit(0 if main() else 1)
