"""Chapter 03, cond: the Switches a cond builds, the dead branch, and a cond built by hand."""
import cfnb as tf

from . import as_int, exercise, right, traced_run, wrong


def whitepaper_cond():
    """The whitepaper's `cond(x < y, lambda: add(x, z), lambda: square(y))`, in a new graph."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.placeholder(tf.float32, [], name="y")
        z = tf.constant(3.0, name="z")
        out = tf.cond(x < y, lambda: tf.add(x, z), lambda: tf.square(y))
    return g, x, y, out


@exercise("03.switch_count", "How many Switch ops does `cond(x < y, lambda: add(x, z), lambda: square(y))` build?")
def switch_count(answer):
    g, *_ = whitepaper_cond()
    switches = [op.name for op in g.get_operations() if op.type == "Switch"]
    n = as_int(answer)
    if n == len(switches):
        return right(f"{', '.join(switches)}: one Switch of the predicate on itself (its outputs become the "
                     "pivots switch_f/switch_t), and one per tensor from outside that a branch reads: x and z in "
                     "the true branch, y in the false branch.")
    if n == len(switches) - 1:
        return wrong("close: you counted the branches' inputs. cond also switches the predicate on itself, to make "
                     "the two pivots (switch_t, switch_f) that ops without inputs in a branch hang from.")
    return wrong("count one Switch per (branch, outside tensor it reads) — the true branch reads x and z, the "
                 "false branch y — plus the predicate's own Switch that makes the pivots. A tensor read by both "
                 "branches would get a Switch in each.")


@exercise("03.dead_branch", "Feed x=5, y=2. Which op receives a dead token: 'cond/Add' or 'cond/Square'?")
def dead_branch(answer):
    g, x, y, out = whitepaper_cond()
    with g.as_default():
        _, trace, _ = traced_run(out, {x: 5.0, y: 2.0})
    dead = [f.node for f in trace if f.node in ("cond/Add", "cond/Square") and not f.live]
    if answer == dead[0]:
        return right(f"5 < 2 is false, so every branch Switch sends its value to output 0 (false); {dead[0]} "
                     "reads output 1 of its Switches, which stays empty: a dead token. It does not run, and the "
                     "Merge fires on its one live input, from cond/Square.")
    if answer in ("cond/Add", "cond/Square"):
        return wrong("x < y is 5 < 2: false. Which branch does a false predicate skip? Output 1 of a Switch is "
                     "the true side, output 0 the false side.")
    return wrong("answer with one of the two op names, 'cond/Add' or 'cond/Square'.")


@exercise("03.cond_by_hand", "Write `my_cond(p, a, b)` returning `a + b` if p else `a * b`, from `switch` and "
                             "`merge` only (no tf.cond); the untaken branch must not run.")
def cond_by_hand(my_cond):
    if not callable(my_cond):
        return wrong("the answer is the function itself: check('03.cond_by_hand', my_cond).")
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [], name="p")
        a = tf.placeholder(tf.float32, [], name="a")
        b = tf.placeholder(tf.float32, [], name="b")
        out = my_cond(p, a, b)
        if isinstance(out, tuple):  # merge returns (output, value_index)
            out = out[0]
        kinds = {op.type for op in g.get_operations()}
        if "If" in kinds or "StatelessIf" in kinds or any(op.name.startswith("cond") for op in g.get_operations()):
            return wrong("build it from switch and merge yourself, without tf.cond.")
        if not {"Switch", "Merge"} <= kinds:
            return wrong("the graph needs a Switch (to route each input to one branch) and a Merge (to take the "
                         "one live result). `af, at = switch(a, p)` gives the false and true sides of a.")
        for pv, av, bv in ((True, 2.0, 5.0), (False, 2.0, 5.0), (True, -1.5, 4.0), (False, -1.5, 4.0)):
            value, trace, _ = traced_run(out, {p: pv, a: av, b: bv})
            want = av + bv if pv else av * bv
            if value != want:
                side = "true" if pv else "false"
                return wrong(f"with p={pv}, a={av}, b={bv} it gives {value}, not {want}. The {side} side of a Switch "
                             f"is output {1 if pv else 0}: does the {side} branch read that output?")
            ran = {f.op_type for f in trace if f.live}
            skipped = "Mul" if pv else "AddV2"
            if skipped in ran:
                return wrong(f"the value is right, but with p={pv} the {'*' if pv else '+'} ran too. Feed each "
                             "branch only from Switch outputs, so the untaken one receives dead tokens and is "
                             "skipped.")
    unswitched = [t.op.name for t in (a, b) if any(c.type != "Switch" for c in t.consumers())]
    if unswitched:
        return wrong(f"the values are right, but {' and '.join(unswitched)} "
                     f"{'reach' if len(unswitched) > 1 else 'reaches'} a branch without a Switch. tf.cond "
                     "switches every tensor a branch reads from outside, one Switch per input (the whitepaper's "
                     "rule), so each branch sees only values routed to it: give each input its own "
                     "`switch(x, p)` and feed the branches only from those outputs.")
    return right("the Switches route a and b to one branch; the other receives dead tokens and never runs; the "
                 "Merge forwards the one live result. That is all tf.cond builds, plus the pivots.")
