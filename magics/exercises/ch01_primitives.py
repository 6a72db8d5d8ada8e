"""Chapter 01, the five primitives: how many Enters a loop gets, when the Exit fires live."""
import cfnb as tf

from . import as_int, exercise, right, traced_run, wrong


@exercise("01.enter_count", "How many Enter ops does `while_loop(lambda a, b: a < b, lambda a, b: (a + 2, b), "
                            "[a0, b0])` build, when a0 and b0 are made before the loop?")
def enter_count(answer):
    g = tf.Graph()
    with g.as_default():
        a0, b0 = tf.constant(4), tf.constant(14)
        tf.while_loop(lambda a, b: a < b, lambda a, b: (a + 2, b), [a0, b0])
    enters = [op for op in g.get_operations() if op.type == "Enter"]
    if as_int(answer) == len(enters):
        return right(f"{len(enters)}: one Enter per loop variable (b is a loop variable even though the body "
                     "passes it through unchanged). The 2 of a + 2 is a constant made inside the body, with a "
                     "control edge from the loop, so it needs no Enter.")
    return wrong("each loop variable enters the frame through its own Enter; a constant created inside the body "
                 "does not (it is made in the frame, once per iteration). Which values come from outside?")


@exercise("01.exit_iteration", "In `while_loop(lambda i: i < 10, lambda i: i + 1, [0])`, in which iteration "
                               "does while/Exit fire live?")
def exit_iteration(answer):
    g = tf.Graph()
    with g.as_default():
        r = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0])
        _, trace, _ = traced_run(r)
    it = next(f.iteration for f in trace if f.node == "while/Exit" and f.live)
    if as_int(answer) == it:
        return right(f"iteration {it}: iterations 0–{it - 1} run the body (the Exit gets dead tokens); in iteration "
                     f"{it} the Merge delivers i = {it}, the predicate is false and the Switch sends i to the Exit.")
    return wrong("iteration k starts with i = k. The Exit fires live in the iteration whose predicate is false.")
