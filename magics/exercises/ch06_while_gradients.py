"""Chapter 06, gradients of while: history stacks, their order, the gradient loop's trip count."""
import cfnb as tf

from . import as_int, as_number, exercise, right, traced_run, wrong


def power_loop(x0=2.0, w0=3.0, n=3):
    """v = x; repeat n times: v = v * w; and d v/d[x, w]. Returns (graph, grads, trace, memory)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(x0, name="x")
        w = tf.constant(w0, name="w")
        _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * w), [0, x])
        grads = tf.gradients(v, [x, w])
        values, trace, memory = traced_run(grads)
    return g, values, trace, memory


@exercise("06.stack_count", "For `v = x; while i < 3: i, v = i + 1, v * w`, how many history stacks (StackV2) "
                            "does tf.gradients(v, [x, w]) build?")
def stack_count(answer):
    g, *_ = power_loop()
    stacks = [op.name for op in g.get_operations() if op.type == "StackV2"]
    if as_int(answer) == len(stacks):
        return right(f"{len(stacks)} ({', '.join(stacks)}): d(v*w)/dw = v needs each iteration's v, so v is pushed "
                     "in every forward iteration. d(v*w)/dv = w needs w, but w entered the loop through a "
                     "constant Enter: a loop invariant, the same in every iteration, so it is read directly, "
                     "not stacked. The counter i is not needed by any gradient.")
    return wrong("a value is stacked when the gradient needs it and it changes from iteration to iteration. "
                 "The gradient of v * w needs w (for dv) and v (for dw). Which of them changes? (A tensor from "
                 "outside the loop enters through a constant Enter.)")


@exercise("06.pop_order", "With x=2 and w=3, list the values the gradient loop pops from v's stack, in order.")
def pop_order(answer):
    _, _, trace, _ = power_loop()
    pops = [float(f.value) for f in trace if f.op_type == "StackPopV2" and f.live]
    pushes = [float(f.value) for f in trace if f.op_type == "StackPushV2" and f.live]
    try:
        got = [as_number(a) for a in answer]
    except TypeError:
        return wrong("answer with a list of numbers, e.g. [1.0, 2.0, 3.0].")
    if got == pops:
        return right(f"pushed {pushes}, popped {pops}: last in, first out. The gradient loop runs the iterations "
                     "backwards, so it needs the last iteration's v first.")
    if got == pushes:
        return wrong("that is the order the forward loop pushes them. The gradient loop goes backwards.")
    return wrong("the forward loop pushes the v each iteration starts with (2, then 2*3, ...), before multiplying; "
                 "the gradient loop pops them in reverse.")


@exercise("06.peak_bytes", "The stack holds float32 scalars (4 bytes each). With n=3 iterations, what is its "
                           "peak size in bytes?")
def peak_bytes(answer):
    _, _, _, memory = power_loop()
    if as_int(answer) == memory.peak_bytes:
        return right(f"{memory.peak_bytes} bytes: all 3 values are on the stack when the forward loop ends, and "
                     "the gradient loop has not popped any yet. Stack memory grows with the number of iterations "
                     "— which is why TensorFlow offers swap_memory for long loops.")
    return wrong("every forward iteration pushes one float32 (4 bytes); nothing is popped before the forward "
                 "loop is done. How many are on the stack at that moment?")
