"""Chapter 05, gradients of cond: what Merge and Switch become, and the zeros of an untaken branch."""
import cfnb as tf

from . import as_number, exercise, right, wrong


def square_or_y():
    """out = cond(x < y, lambda: x * x, lambda: y) and its gradients with respect to x and y."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.placeholder(tf.float32, [], name="y")
        out = tf.cond(x < y, lambda: x * x, lambda: y)
        gx, gy = tf.gradients(out, [x, y])
    return g, x, y, gx, gy


@exercise("05.reversal", "tf.gradients turns each primitive of a cond into another one. Fill in "
                         "{'Merge': ..., 'Switch': ...} with the op type each one's gradient is.")
def reversal(answer):
    g, *_ = square_or_y()
    grad_of = {}
    for kind, prefix in (("Merge", "gradients/cond/Merge_grad/"), ("Switch", "gradients/cond/Switch_1_grad/")):
        grad_of[kind] = next(op.type for op in g.get_operations() if op.name.startswith(prefix))
    if not isinstance(answer, dict):
        return wrong("answer with a dict: {'Merge': 'OpType', 'Switch': 'OpType'}.")
    if {k: answer.get(k) for k in grad_of} == grad_of:
        return right("a Merge picks one of two inputs, so its gradient is a Switch on the same predicate that "
                     "sends the incoming gradient back to the branch that ran; a Switch sent its input to one "
                     "of two branches, so its gradient is a Merge of the two branch gradients (one of them dead).")
    return wrong("run the graph backwards: where the forward graph joined two paths (Merge), the gradient must "
                 "split one into two; where it split one path into two (Switch), the gradient must join them.")


@exercise("05.untaken", "For out = cond(x < y, lambda: x * x, lambda: y), give (d out/dx at x=3, y=2, "
                        "d out/dx at x=1, y=2).")
def untaken(answer):
    g, x, y, gx, _ = square_or_y()
    with g.as_default():
        sess = tf.Session()
        want = tuple(float(sess.run(gx, {x: xv, y: 2.0})) for xv in (3.0, 1.0))
    try:
        got = tuple(as_number(a) for a in answer)
    except TypeError:
        return wrong("answer with a pair: (gradient at x=3, gradient at x=1).")
    if got == want:
        return right(f"{want}: at x=3 the predicate is false, the false branch (y) ran and does not use x: the "
                     "Switch-gradient's Merge gets a dead input from the true side and the zeros built for the "
                     f"untaken branch, so d/dx = 0. At x=1 the true branch x*x ran: d/dx = 2x = {want[1]:g}.")
    if got[0] != want[0]:
        return wrong("at x=3, is 3 < 2? Which branch ran, and does it use x? A branch that did not run "
                     "contributes a zero gradient (cond's gradient builds zeros for it), not its derivative.")
    return wrong("at x=1 the true branch x * x ran; its derivative with respect to x is 2x.")
