"""Chapter 04, the executor: Merge firings, the dead Switch output at the exit, iterations in flight."""
import cfnb as tf
from cfnb import viz

from . import as_int, exercise, right, traced_run, wrong


def counter_loop(limit=5):
    g = tf.Graph()
    with g.as_default():
        r = tf.while_loop(lambda i: i < limit, lambda i: i + 1, [0])
        value, trace, _ = traced_run(r)
    return value, trace


def ta_loop(parallel, n=6):
    """A loop whose iterations are independent (each writes tanh(sin(x * i)) into a TensorArray)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([0.5, 1.0])

        def body(i, ta):
            return i + 1, ta.write(i, tf.tanh(tf.sin(tf.cos(x * tf.cast(i, tf.float32)))))

        _, ta = tf.while_loop(lambda i, ta: i < n, body, [0, tf.TensorArray(tf.float32, size=n)],
                              parallel_iterations=parallel)
        _, trace, _ = traced_run(ta.stack())
    return trace


def max_in_flight(trace, frame="while/while_context"):
    """The most iterations of `frame` that had started and not yet finished at one step."""
    spans = [(min(f.step for f in fs), max(f.step for f in fs)) for _, _, fs in viz.timeline_rows(trace, {frame})]
    return max(sum(1 for a, b in spans if a <= s <= b) for s in range(spans[0][0], spans[-1][1] + 1))


@exercise("04.merge_firings", "In `while_loop(lambda i: i < 5, lambda i: i + 1, [0])`, how many times does "
                              "while/Merge fire?")
def merge_firings(answer):
    _, trace = counter_loop(5)
    n = sum(1 for f in trace if f.node == "while/Merge")
    if as_int(answer) == n:
        return right(f"{n}: once per iteration, iterations 0–{n - 1}. In the last one the Merge still fires "
                     "(with i = 5), the predicate is false and the Switch sends the value to the Exit.")
    if as_int(answer) == n - 1:
        return wrong("the body runs 5 times, but the Merge fires once more: the value 5 must come back through "
                     "NextIteration and the Merge before Less can find that 5 < 5 is false.")
    return wrong("the Merge fires once per iteration: on the Enter's token in iteration 0, then on each "
                 "NextIteration's token. Count the iterations, including the one whose predicate is false.")


@exercise("04.dead_port", "In the last iteration of that loop, which output of while/Switch is dead: "
                          "0 (to the Exit) or 1 (to the body)?")
def dead_port(answer):
    _, trace = counter_loop(5)
    last = [f for f in trace if f.node == "while/Switch"][-1]
    dead = 1 - last.port
    if as_int(answer, "0 or 1") == dead:
        return right(f"output {dead}: the predicate is false, so the Switch forwards i to output {last.port}, "
                     "the Exit, which fires live; output 1 is dead, so Identity, add and NextIteration run dead, "
                     "and a dead NextIteration starts no new iteration. That is how the loop ends.")
    return wrong("in the last iteration the predicate (i < 5) is false. A Switch forwards its value to output 1 "
                 "when the predicate is true and to output 0 when it is false; the output it does not use is dead.")


def nested_loops(outer=3, inner=2):
    """`k = 0; while k < outer: j = 0; while j < inner: j += 1; k += 1` as nested while_loops, traced."""
    g = tf.Graph()
    with g.as_default():
        def body(k):
            j = tf.while_loop(lambda j: j < inner, lambda j: j + 1, [0])
            return k + 1 + 0 * j
        r = tf.while_loop(lambda k: k < outer, body, [0])
        _, trace, _ = traced_run(r)
    return trace


@exercise("04.frame_instances", "An outer loop runs 3 iterations; its body runs an inner loop of 2 iterations. "
                                "How many frame instances of the inner loop does the executor create?")
def frame_instances(answer):
    trace = nested_loops()
    inner = "while/while/while_context"
    instances = sorted({f.frame_path for f in trace if f.frame == inner})
    live = sum(1 for path in instances if any(f.live for f in trace if f.frame == inner and f.frame_path == path))
    if as_int(answer) == len(instances):
        return right(f"{len(instances)} ({live} live, {len(instances) - live} dead): an Enter creates (or finds) the "
                     "child frame of the *current outer iteration* (FindOrCreateChildFrame hashes the parent frame, "
                     "the parent iteration and the frame name), so each outer iteration gets a fresh inner frame "
                     "whose iterations count from 0 again. In the outer loop's last iteration the predicate is "
                     "false and the body runs on dead tokens — the inner Enter too, and a dead Enter still creates "
                     "its frame, in which everything runs dead.")
    if as_int(answer) == live:
        return wrong("close: you counted the outer iterations that run the body. Count also the last one, whose "
                     "predicate is false: its body runs on dead tokens, and what does a dead Enter do?")
    if as_int(answer) == 1:
        return wrong("one graph, but not one frame: a frame instance is tagged with the outer iteration it runs "
                     "in. Look at the timeline rows of the inner loop.")
    return wrong("a new instance of the inner frame is made once per outer iteration that enters it, not once "
                 "per inner iteration.")


def chain_loop(parallel, n=8, length=8):
    """`i, y = 0, 1.0; while i < n: y = sin(sin(...sin(y))) (length times); i += 1`, traced: the counter
    needs a few firings per iteration, y a long chain, so the counter runs ahead as far as the bound lets it."""
    g = tf.Graph()
    with g.as_default():
        def body(i, y):
            for _ in range(length):
                y = tf.sin(y)
            return i + 1, y

        _, y = tf.while_loop(lambda i, y: i < n, body, [0, tf.constant(1.0)], parallel_iterations=parallel)
        _, trace, _ = traced_run(y)
    return trace


@exercise("04.in_flight", "In `chain_loop(3)` the counter i needs 7 firings per iteration and y a chain of 8 sins. "
                          "With parallel_iterations=3, at most how many iterations are in flight at one step?")
def in_flight(answer):
    n = max_in_flight(chain_loop(3))
    if as_int(answer) == n:
        return right(f"{n}: the counter's part of each iteration is short, so it starts iteration after iteration "
                     "while y's chain is still busy in the earlier ones — until parallel_iterations stops it: a "
                     "NextIteration that would start iteration i + 3 while iteration i is unfinished waits in "
                     "next_iter_roots until iteration i is done.")
    if as_int(answer) < n:
        return wrong("the Merges of i and y fire separately, so the counter does not wait for y: how far ahead can "
                     "it run before the executor defers its NextIteration?")
    return wrong("parallel_iterations is the bound: iteration i + P may not start before iteration i is completely "
                 "done. Can more than P iterations be alive?")
