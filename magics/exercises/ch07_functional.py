"""Chapter 07, functional While: the counter output, the accumulator added by the gradient, d²/dx²."""
import cfnb as tf

from . import as_int, as_number, exercise, right, wrong


def rfc_loop(x0=2.0, grads=0):
    """The RFC's `x = 2; v = x; while v < 8: v = v * v` with control flow v2; `grads` gradients taken."""
    was = tf.control_flow_v2_enabled()
    tf.enable_control_flow_v2()
    try:
        g = tf.Graph()
        with g.as_default():
            x = tf.constant(x0, name="x")
            v = tf.while_loop(lambda v: v < 8.0, lambda v: v * v, [x])
            w = next(op for op in g.get_operations() if op.type in ("While", "StatelessWhile"))
            outputs = [len(w.outputs)]
            d = v
            for _ in range(grads):
                d = tf.gradients(d, x)[0]
                outputs.append(len(w.outputs))
            values = tf.Session().run({"v": v, "d": d, "counter": w.outputs[0]})
    finally:
        (tf.enable_control_flow_v2 if was else tf.disable_control_flow_v2)()
    return w, outputs, values


@exercise("07.outputs", "The forward While of `while v < 8: v = v * v` has how many outputs before tf.gradients, "
                        "and how many after? Answer (before, after).")
def outputs(answer):
    _, counts, _ = rfc_loop(grads=1)
    want = tuple(counts)
    try:
        got = tuple(as_int(a) for a in answer)
    except TypeError:
        return wrong("answer with a pair (before, after).")
    if got == want:
        return right(f"{want}: the loop counter, maximum_iterations and v; then tf.gradients rewrites the forward "
                     "op in place and adds one output: the TensorList accumulator holding every iteration's v, "
                     "which the gradient While pops in reverse.")
    if got[0] != want[0]:
        return wrong("while_v2 adds two loop variables of its own in front of yours: the iteration counter and "
                     "maximum_iterations (-1 when there is none).")
    return wrong("the gradient of v * v needs each iteration's v. while_v2 accumulates it in a TensorList that "
                 "the forward op must output, so tf.gradients adds outputs to the forward op.")


@exercise("07.counter", "Run the loop from x=2. What is output 0 of the While op?")
def counter(answer):
    _, _, values = rfc_loop()
    if as_int(answer) == values["counter"]:
        return right(f"{values['counter']}: output 0 is the loop counter, the number of iterations (2 → 4 → 16). "
                     "The gradient While runs exactly that many times.")
    return wrong("output 0 is the iteration counter, not v. How many times does v = v * v run from v = 2 before "
                 "v < 8 is false?")


@exercise("07.second_derivative", "Differentiate twice: what is d²v/dx² at x=2? (Gradients of while_v2 are "
                                  "While ops themselves, so this works.)")
def second_derivative(answer):
    _, _, values = rfc_loop(grads=2)
    if as_number(answer) == float(values["d"]):
        return right(f"{values['d']:g}: two squarings make v = x⁴, so d²v/dx² = 12x² = 48 at x = 2. The first "
                     "gradient is a While; differentiating it builds a While for the gradient of the gradient.")
    return wrong("after two iterations v = (x²)² = x⁴. Differentiate x⁴ twice and evaluate at x = 2.")
