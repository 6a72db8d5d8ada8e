"""Every exercise of the course: its check accepts the right answer and gives a hint for a wrong one.

The right answers here are worked out by hand from the rules each chapter teaches (noted beside
each), not read from cfnb's output; the checks compute theirs by building and running the graph.
"""
import pytest

import cfnb as tf
from cfnb.ops.control_flow_ops import merge, switch
from magics.exercises import EXERCISES, _load, check


def cond_by_hand(p, a, b):
    af, at = switch(a, p)
    bf, bt = switch(b, p)
    return merge([af * bf, at + bt])


def both_branches_run(p, a, b):  # right values, but a + b and a * b both run before the switch
    return merge([switch(a * b, p)[0], switch(a + b, p)[1]])


def sides_swapped(p, a, b):
    af, at = switch(a, p)
    bf, bt = switch(b, p)
    return merge([af + bf, at * bt])


def one_input_switched(p, a, b):  # right values and the untaken op skipped, but b reaches both branches unswitched
    af, at = switch(a, p)
    return merge([af * b, at + b])


def with_tf_cond(p, a, b):
    return tf.cond(p, lambda: a + b, lambda: a * b)


CASES = {
    # key: (right answer, [(wrong answer, a phrase its hint must contain), ...])
    "01.enter_count": (2, [(3, "own Enter")]),                                  # one per loop variable
    "01.exit_iteration": (10, [(9, "predicate is false")]),                     # iteration k starts with i = k
    "02.body_runs": (5, [(6, "1, 3")]),                                         # i = 1, 3, 5, 7, 9
    "02.constant_enter": (True, [(False, "is_constant=True")]),                 # n is only read
    # pred + x, z (true) + y (false); the text "4" is not the number 4
    "03.switch_count": (4, [(3, "close"), (2, "plus the predicate"), ("4", "write it without quotes")]),
    "03.dead_branch": ("cond/Add", [("cond/Square", "5 < 2"), ("Add", "one of the two")]),
    "03.cond_by_hand": (cond_by_hand, [(both_branches_run, "ran too"), (sides_swapped, "output 1"),
                                        (with_tf_cond, "without tf.cond"), (42, "the function itself"),
                                        (one_input_switched, "but b reaches a branch without a Switch")]),
    "04.merge_firings": (6, [(5, "once more"), (10, "once per iteration")]),    # iterations 0..5
    "04.dead_port": (1, [(0, "output 1 when the predicate is true")]),          # the body side at the exit
    # one per outer iteration, and one more for the last (dead) one: a dead Enter still creates its child frame
    "04.frame_instances": (4, [(3, "close"), (1, "not one frame"), (6, "once per outer")]),
    # the counter runs ahead of y's long chain until the bound P = 3 defers it
    "04.in_flight": (3, [(1, "does not wait"), (8, "is the bound")]),
    "05.reversal": ({"Merge": "Switch", "Switch": "Merge"}, [({"Merge": "Merge", "Switch": "Switch"}, "split"),
                                                              ("Switch", "dict")]),
    "05.untaken": ((0.0, 2.0), [((6.0, 2.0), "did not run"), ((0.0, 1.0), "2x"), (3, "pair")]),
    "06.stack_count": (1, [(2, "changes from iteration")]),                     # v only; w is invariant
    "06.pop_order": ([18.0, 6.0, 2.0], [([2.0, 6.0, 18.0], "forward loop pushes"), ([54.0], "reverse"),
                                        (["18", "6", "2"], "is text")]),
    "06.peak_bytes": (12, [(4, "How many are on the stack")]),                  # 3 float32 scalars
    "07.outputs": ((3, 4), [((1, 2), "counter and maximum_iterations"), ((3, 3), "adds outputs")]),
    "07.counter": (2, [(16, "not v")]),                                         # 2 -> 4 -> 16
    "07.second_derivative": (48.0, [(32.0, "twice"), ("48", "is text")]),       # d2(x^4) = 12 x^2 at 2
    # total, i (assigned in the body) + counter, maximum_iterations (while_v2) + n (captured)
    "08.loop_vars": (5, [(4, "n is read"), (3, "two loop variables of its own"), (9, "count the loop variables")]),
    "08.float32_tolerance": ((100, 4), [((4, 4), "24-bit"), ((100, 6), "doubles the correct digits")]),
    # 2 stacks (tanh's output for TanhGrad, v for d(v*w)/dw) x 5 pushes x 64 float32 (256 bytes)
    "09.history_bytes": (2560, [(1280, "one stack"), (256, "How many values does each iteration push")]),
    # peaks on the simulated GPU: T=5 stays under 6000 bytes, T=6 does not (BFC rounding to 256 bytes)
    "09.longest_fit": (5, [(6, "does not fit"), (4, "still runs under the limit")]),
    # x to CPU:1 once (keyed by tensor and destination device), y and z back to CPU:0
    "10.send_recv_pairs": (3, [(4, "once per destination device"), (2, "coming back")]),
    # CPU:1 runs the body, CPU:0 receives the body's result inside the frame; CPU:2 is after the Exit
    "10.control_loop": ({"CPU:0", "CPU:1"}, [({"CPU:1"}, "NextIteration"), (["/cpu:0", "/cpu:1", "/cpu:2"], "Exit")]),
    # x_t @ W_x and + b are row-wise; + h @ W_h is not
    "11.hoisted": (2, [(1, "row-wise too"), (3, "previous iteration")]),
    # 5 steps: 2 forward and 3 backward products each (25); optimized 1 + 5 forward, 5 + 2 backward (13)
    "11.products": ((25, 13), [((20, 13), "count both loops"), ((25, 25), "adds one product")]),
}


def test_every_exercise_has_cases():
    _load()
    assert set(EXERCISES) == set(CASES)


@pytest.mark.parametrize("key", sorted(CASES))
def test_right_answer_passes(key):
    verdict = check(key, CASES[key][0])
    assert verdict.ok, verdict
    assert repr(verdict).startswith("✓ Right. ")


@pytest.mark.parametrize("key", sorted(CASES))
def test_wrong_answers_get_their_hint(key):
    for answer, phrase in CASES[key][1]:
        verdict = check(key, answer)
        assert not verdict.ok, (key, answer)
        assert repr(verdict).startswith("✗ Not yet. ") and phrase in verdict.message, (key, answer, verdict)


def test_no_answer_repeats_the_question():
    verdict = check("03.switch_count", None)
    assert not verdict and "How many Switch ops" in verdict.message and "in place of None" in verdict.message


def test_unknown_exercise_names_the_known_ones():
    with pytest.raises(KeyError, match="03.switch_count"):
        check("99.nothing", 1)


def test_numbers_are_numbers():
    import numpy as np
    assert check("03.switch_count", np.int64(4)).ok and check("03.switch_count", 4.0).ok
    for answer in ("4", True, [4]):
        verdict = check("03.switch_count", answer)
        assert not verdict.ok and "How many Switch ops" in verdict.message, answer


def test_feedback_is_prose_that_wraps_at_words_with_plain_text_beside_it():
    verdict = check("03.switch_count", 3)
    html = verdict._repr_html_()
    assert html.startswith('<div class="cfnb-verdict"') and "white-space:normal" in html
    assert "word-break:normal" in html and "monospace" not in html and "<pre" not in html
    assert "<b" in html and "✗ Not yet.</b>" in html and "close: you counted" in html
    assert repr(verdict).startswith("✗ Not yet. close: you counted")  # the text/plain fallback
    assert "<code>af, at = switch(a, p)</code>" in check("03.cond_by_hand", lambda p, a, b: a + b)._repr_html_()
