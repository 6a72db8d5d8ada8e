"""Exercises of the course, and `check`, which says whether an answer is right and, if not, gives a hint.

    from magics.exercises import check
    check("03.switch_count", 4)

Every exercise works its right answer out by building and running the graph it asks about with cfnb
(counting the ops, reading the trace), never from a stored number, so a hint always describes what the
graph really does. A chapter's exercises live in their own module (`ch03_cond.py`, ...), registered with
`@exercise`. Nothing here imports IPython: a check returns a `Verdict`, shown as prose that wraps at words (HTML)
with its plain text as the fallback.
"""
import html
import importlib
import numbers
import re

EXERCISES = {}
CHAPTERS = ("ch01_primitives", "ch02_while", "ch03_cond", "ch04_executor", "ch05_cond_gradients",
            "ch06_while_gradients", "ch07_functional", "ch08_python", "ch09_memory", "ch10_distributed",
            "ch11_optimizations")


class Verdict:
    """The outcome of a check: `ok`, and a message (with a hint when the answer is wrong)."""

    def __init__(self, ok, message):
        self.ok = bool(ok)
        self.message = message

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return ("✓ Right. " if self.ok else "✗ Not yet. ") + self.message

    def _repr_html_(self):
        """The verdict as prose that wraps at words (the text form is the fallback); `code` in backticks."""
        body = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(self.message, quote=False))
        head, color = ("✓ Right.", "#38761d") if self.ok else ("✗ Not yet.", "#b45f06")
        return (f'<div class="cfnb-verdict" style="font-family:var(--jp-content-font-family,sans-serif);'
                f"white-space:normal;overflow-wrap:normal;word-break:normal;line-height:1.5;max-width:60em;"
                f'border-left:4px solid {color};padding:2px 10px"><b style="color:{color}">{head}</b> {body}</div>')


def right(why):
    return Verdict(True, why)


def wrong(hint):
    return Verdict(False, hint)


def exercise(key, question):
    """Register `fn(answer) -> Verdict` as exercise `key` ("03.switch_count")."""
    def register(fn):
        fn.question = question
        EXERCISES[key] = fn
        return fn
    return register


def _load():
    for name in CHAPTERS:
        importlib.import_module(f"{__name__}.{name}")


def check(key, answer):
    """Check `answer` to exercise `key`: a Verdict that prints "✓ Right. ..." or "✗ Not yet. <hint>"."""
    _load()
    if key not in EXERCISES:
        raise KeyError(f"no exercise {key!r}; the exercises are {', '.join(sorted(EXERCISES))}")
    fn = EXERCISES[key]
    if answer is None or answer is Ellipsis:
        return Verdict(False, f"{fn.question} Write your answer in place of None and run the cell again.")
    try:
        return fn(answer)
    except AnswerTypeError as e:
        return Verdict(False, f"{e} {fn.question}")
    except Exception as e:  # a broken answer gets a hint, not a traceback from inside the checker
        return Verdict(False, f"your answer could not be checked ({type(e).__name__}: {e}). {fn.question}")


def question(key):
    _load()
    return EXERCISES[key].question


def traced_run(fetches, feed_dict=None, graph=None):
    """Session.run with a full trace: (values, trace, memory)."""
    import cfnb as tf
    sess = tf.Session(graph=graph)
    meta = tf.RunMetadata()
    value = sess.run(fetches, feed_dict, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=meta)
    return value, meta.trace, meta.memory


class AnswerTypeError(Exception):
    """An answer of the wrong kind (the text "4" for the number 4): `check` turns it into a hint."""


def as_number(answer, what="a number"):
    """`answer` as a float: a Python or numpy number, never text (`"4"` gets a hint to drop the quotes)."""
    if isinstance(answer, str):
        raise AnswerTypeError(f"the answer is {what}, and {answer!r} is text: write it without quotes, "
                              f"as {answer.strip()} rather than {answer!r}.")
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        raise AnswerTypeError(f"the answer is {what}, not {type(answer).__name__} {answer!r}.")
    return float(answer)


def as_int(answer, what="a whole number"):
    """`answer` as an int: a whole Python or numpy number (`4` or `4.0`), never text or a bool."""
    value = as_number(answer, what)
    if not value.is_integer():
        raise AnswerTypeError(f"the answer is {what}, and {answer!r} is not whole.")
    return int(value)
