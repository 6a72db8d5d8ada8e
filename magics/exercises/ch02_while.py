"""Chapter 02, the lowered while loop: the seed program `i = 1; n = 10; while i < n: i = i + 2`."""
import cfnb as tf

from . import as_int, exercise, right, traced_run, wrong


def seed_loop():
    g = tf.Graph()
    with g.as_default():
        n = tf.constant(10, name="n")
        r = tf.while_loop(lambda i: i < n, lambda i: i + 2, [tf.constant(1)])
        value, trace, _ = traced_run(r)
    return g, value, trace


@exercise("02.body_runs", "In `i = 1; n = 10; while i < n: i = i + 2`, how many times does the add fire live?")
def body_runs(answer):
    _, _, trace = seed_loop()
    live = [f for f in trace if f.op_type == "AddV2" and f.live]
    dead = [f for f in trace if f.op_type == "AddV2" and not f.live]
    if as_int(answer) == len(live):
        return right(f"{len(live)} times (i = 1, 3, 5, 7, 9); it also fires {len(dead)} time dead, in the last "
                     "iteration, when the Switch sends i = 11 to the Exit and the body gets a dead token.")
    return wrong("list the values of i at the start of each iteration: 1, 3, ... The body runs live while i < 10.")


@exercise("02.constant_enter", "n is made outside the loop. Does it enter the frame through a constant Enter "
                               "(True) or as a loop variable (False)?")
def constant_enter(answer):
    g, _, _ = seed_loop()
    enter = next(op for op in g.get_operations() if op.type == "Enter" and op.inputs[0].op.name == "n")
    if answer is enter.get_attr("is_constant"):
        return right(f"{enter.name} has is_constant=True: n is a loop invariant. The executor delivers it once and "
                     "replays it into every iteration (FrameState's inv_values), so it needs no Merge, Switch or "
                     "NextIteration.")
    return wrong("the body never assigns n; it only reads it. A value the loop only reads is not a loop variable: "
                 "WhileContext.AddValue gives it an Enter with is_constant=True.")
