"""How values become tensors, and the default session, as TensorFlow 2.21 does them: every program of
conversion_programs.py run on cfnb must give what TensorFlow gave (conversion_tf.json, written by
record_conversion.py): the same values and dtypes, or the same error type, raised while building or while
running, with the message the program names (or TensorFlow's whole message). TensorFlow is never imported here."""
import json
import pathlib

import pytest

import cfnb
from cfnb.framework import default_session

from .conversion_programs import MATCH, PROGRAMS, run_program

EXPECTED = json.loads((pathlib.Path(__file__).parent / "conversion_tf.json").read_text())["programs"]


def test_every_program_is_recorded():
    missing = sorted(set(PROGRAMS) - set(EXPECTED))
    assert not missing, f"run tests/regressions/record_conversion.py again; missing: {missing}"


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_matches_tensorflow(name):
    got = run_program(cfnb, PROGRAMS[name], default_session._default_session_stack.clear)
    want = EXPECTED[name]
    if "error" in want:
        expected = want["error"]
        assert "error" in got, f"cfnb answered {got}; TensorFlow raised {expected['type']}: {expected['message']}"
        error = got["error"]
        assert (error["phase"], error["type"]) == (expected["phase"], expected["type"]), error
        match = MATCH.get(name)
        if match is None:
            assert error["message"] == expected["message"]
        else:
            assert match in expected["message"], f"TensorFlow's message {expected['message']!r} lacks {match!r}"
            assert match in error["message"], f"cfnb's message {error['message']!r} lacks {match!r}"
        return
    assert "error" not in got, f"cfnb raised {got['error']}"
    assert got == want


def test_nesting_violation_leaves_the_stack_as_tensorflow_does():
    """The innermost session stays on the stack when an outer block closes first (DefaultStack.get_controller
    checks before it pops): nothing is removed from under the inner block."""
    s1, s2 = cfnb.Session(), cfnb.Session()
    first, second = s1.as_default(), s2.as_default()
    first.__enter__()
    second.__enter__()
    try:
        with pytest.raises(AssertionError, match="Nesting violated"):
            first.__exit__(None, None, None)
        assert cfnb.get_default_session() is s2
    finally:
        default_session._default_session_stack.clear()
