"""cfnb.print (TensorFlow's tf.print: StringFormat -> PrintV2): formats, streams, every execution path."""
import importlib.util
import io
import json
import pathlib
import sys

import numpy as np
import pytest
from running import run

import cfnb as tf

HERE = pathlib.Path(__file__).parent / "conformance"
RECORDED = json.loads((HERE / "print_tensorflow.json").read_text())
_spec = importlib.util.spec_from_file_location("cfnb_print_cases", HERE / "print_cases.py")
print_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(print_cases)


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_tensorflow_format_matches_recorded(case, capsys):
    """The same calls as tests/conformance/record_print.py makes against TensorFlow."""
    op = print_cases.CASES[case](tf)
    tf.Session().run(op)
    assert capsys.readouterr().out == RECORDED[case]


def test_python_formatter_prints_what_print_prints(capsys):
    values = [np.float64(3.5), np.int64(3), np.float32(0.1), np.arange(3.0), np.array([[1, 2], [3, 4]]),
              np.bool_(True), np.float64(1 / 3)]
    op = tf.print("pp is", *[tf.constant(v) for v in values], [tf.constant(np.float64(1.5)), 2], {"k": 1},
                  formatter="python", output_stream=sys.stdout)
    tf.Session().run(op)
    printed = capsys.readouterr().out
    print("pp is", *values, [np.float64(1.5), 2], {"k": 1})
    assert printed == capsys.readouterr().out


def test_stream_is_looked_up_when_the_op_runs():
    op = tf.print("to stdout", tf.constant(1), output_stream=sys.stdout)
    err = tf.print("to stderr", output_stream=sys.stderr)
    out, errs = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, errs  # replaced after the op was built, as IPython's capture does
    try:
        tf.Session().run([op, err])
    finally:
        sys.stdout, sys.stderr = old
    assert out.getvalue() == "to stdout 1\n" and errs.getvalue() == "to stderr\n"


def test_any_writable_stream_and_sep_end():
    buf = io.StringIO()
    op = tf.print("a", tf.constant(2), "b", sep="-", end="!", output_stream=buf)
    s = tf.Session()
    s.run(op)
    s.run(op)
    assert buf.getvalue() == "a-2-b!a-2-b!"


def test_bad_arguments_refused():
    with pytest.raises(ValueError, match="output_stream"):
        tf.print("x", output_stream=42)
    with pytest.raises(ValueError, match="formatter"):
        tf.print("x", formatter="c")


def test_print_is_stateful_and_runs_as_a_control_input(capsys):
    x = tf.placeholder(tf.float32, [])
    p = tf.print("x =", x, output_stream=sys.stdout)
    assert p.type == "PrintV2" and p.inputs[0].op.type == "StringFormat"
    with tf.control_dependencies([p]):
        y = x * 2
    assert run(y, {x: 1.5}) == 3.0
    assert run(y, {x: 2.5}) == 5.0
    assert capsys.readouterr().out == "x = 1.5\nx = 2.5\n"
    # Two identical prints are two ops that both run (never merged).
    q1, q2 = tf.print("same", output_stream=sys.stdout), tf.print("same", output_stream=sys.stdout)
    tf.Session().run([q1, q2])
    assert capsys.readouterr().out == "same\nsame\n"


def _loop(v2, n=4):
    if v2:
        tf.enable_control_flow_v2()

    def body(i, acc):
        p = tf.print("i =", i, "acc =", acc, output_stream=sys.stdout)
        with tf.control_dependencies([p]):
            return i + 1, acc + tf.cast(i, tf.float32) * 0.5

    return tf.while_loop(lambda i, acc: i < n, body, [tf.constant(0), tf.constant(0.0)])


EXPECTED_LOOP = "".join(f"i = {i} acc = {sum(k * 0.5 for k in range(i)):g}\n" for i in range(4))


PATHS = {"static": dict(static_schedule=True), "executor": dict(static_schedule=False),
         "strict": dict(lower_functional_ops=False)}


@pytest.mark.parametrize("v2, path", [(False, "static"), (False, "executor"),  # v1 has no functional op to call
                                      (True, "static"), (True, "executor"), (True, "strict")])
def test_print_in_a_loop_body_prints_every_iteration_in_order(v2, path, capsys):
    config = PATHS[path]
    i, acc = _loop(v2)
    sess = tf.Session(config=tf.ConfigProto(**config))
    assert sess.run(i) == 4
    assert capsys.readouterr().out == EXPECTED_LOOP
    assert sess.run(acc) == 3.0  # runs again: prints again
    assert capsys.readouterr().out == EXPECTED_LOOP


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_print_in_a_cond_branch_prints_only_when_taken(v2, capsys):
    if v2:
        tf.enable_control_flow_v2()
    x = tf.placeholder(tf.int32, [])

    def yes():
        with tf.control_dependencies([tf.print("taken", x, output_stream=sys.stdout)]):
            return tf.identity(x)

    y = tf.cond(x > 0, yes, lambda: -x)
    assert run(y, {x: 3}) == 3 and run(y, {x: -2}) == 2
    assert capsys.readouterr().out == "taken 3\n"


def test_graph_text_stays_one_line_per_op():
    tf.print("a", tf.constant(1), end="\n")
    text = tf.get_default_graph().as_text()
    assert len(text.strip().splitlines()) == 3 and "end=\\n" in text


def test_python_formatter_shows_a_0d_array_as_its_scalar():
    from cfnb.ops.string_format import Slot, format_values
    text = format_values(("v", Slot(0), [Slot(1)]), [np.array(1.5), np.array(2)], " ", "python", 3)
    assert text == "v 1.5 " + str([np.int64(2)])  # as print("v", np.float64(1.5), [np.int64(2)])
