"""Issue 9's wrong or missing answers: every program of reliab_programs.py, run on cfnb in control flow v1 and v2 on
every execution path, must give what TensorFlow 2.21 gave (reliab_tf.json, written by record_reliab.py): values,
dtypes, run-time shapes and static shapes, or the same error (type, build or run time, and the message part the
program names). TensorFlow itself is never imported here."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import cfnb

HERE = pathlib.Path(__file__).parent
_spec = importlib.util.spec_from_file_location("cfnb_reliab_programs", HERE / "reliab_programs.py")
programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(programs)

EXPECTED = json.loads((HERE / "reliab_tf.json").read_text())
EXECUTORS = {"static": {}, "interpreted": {"static_schedule": False}, "strict": {"lower_functional_ops": False}}
CASES = [pytest.param(mode, name, marks=[pytest.mark.xfail(reason=programs.PENDING[name][mode], strict=True)]
                      if mode in programs.PENDING[name] else []) for name in programs.PROGRAMS
         for mode in programs.MODES[name]]


def static_shape(t):
    return None if t.shape.ndims is None else list(t.shape.as_list())


def run(build, configs):
    """{path: (static shapes or None, values or None, error or None)} of `build` on cfnb, as record_reliab.record:
    built once, then run on each path of `configs` in a Session of its own."""
    graph = cfnb.Graph()
    with graph.as_default():
        try:
            fetches, feeds = build(cfnb)
        except Exception as e:  # noqa: BLE001 - compared with TensorFlow's answer
            return dict.fromkeys(configs, (None, None, ("build", e)))
        feeds = dict(feeds)
        init = feeds.pop(programs.INIT, None)
        static = {k: static_shape(t) for k, t in fetches.items()}
        out = {}
        for path, config in configs.items():
            sess = cfnb.Session(graph=graph, config=config)
            try:
                if init is not None:
                    sess.run(init)
                values = {k: np.asarray(v) for k, v in sess.run(fetches, feed_dict=feeds).items()}
            except Exception as e:  # noqa: BLE001
                out[path] = (static, None, ("run", e))
            else:
                out[path] = (static, values, None)
    return out


def test_every_program_is_recorded():
    for mode in ("v1", "v2"):
        missing = sorted(set(programs.PROGRAMS) - set(EXPECTED[mode]))
        assert not missing, f"run tests/regressions/record_reliab.py again; missing in {mode}: {missing}"


@pytest.mark.parametrize("mode,name", CASES)
def test_program_matches_tensorflow(mode, name):
    """Built once, run on every path (each in a Session of its own); a failure names the path."""
    want = EXPECTED[mode][name]
    (cfnb.enable_control_flow_v2 if mode == "v2" else cfnb.disable_control_flow_v2)()
    results = run(programs.PROGRAMS[name], {path: cfnb.ConfigProto(**kw) for path, kw in EXECUTORS.items()})
    for path, (static, values, error) in results.items():
        try:
            _check(want, static, values, error, programs.match_for(name, mode))
        except AssertionError as e:
            raise AssertionError(f"on the {path} path: {e}") from None


def _check(want, static, values, error, match):
    if "static" in want:
        assert static == want["static"], f"static shapes {static} != TensorFlow's {want['static']}"
    if "error" in want:
        expected = want["error"]
        assert error is not None, f"cfnb answered {values}; TensorFlow raised {expected['type']}: {expected['message']}"
        phase, e = error
        assert (phase, type(e).__name__) == (expected["phase"], expected["type"]), f"cfnb: {phase} {e!r}"
        assert match in str(e), f"cfnb's message {str(e)!r} lacks {match!r}"
        return
    assert error is None, f"cfnb raised at {error[0]} time: {error[1]!r}"
    assert sorted(values) == sorted(want["values"])
    for key, value in values.items():
        expected = np.asarray(want["values"][key], dtype=want["dtypes"][key]).reshape(want["shapes"][key])
        assert (value.dtype, value.shape) == (expected.dtype, expected.shape), key
        np.testing.assert_allclose(value, expected, rtol=2e-4, atol=2e-5, err_msg=key)
