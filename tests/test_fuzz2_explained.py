"""The fuzz2 mismatches tests/fuzz2/KNOWN.md explains as TensorFlow's fault, each checked against its evidence.

tests/fuzz2/explained2.json (written by tests/fuzz2/explain2.py with TensorFlow 2.21) holds, for every explained
program (corpus entries and long-run seeds), TensorFlow's float32 answers in both control-flow versions and the
evidence in float64: the forward values at the feeds and the central differences of the loss along `x` and `w` and
of the weighted first-order gradient along `x` (stop_gradient values held at the feeds). Here, without TensorFlow:
- the explanation holds: TensorFlow v1 refuses ("segment_ids[0] = 0 is out of range [0, 0)"), the finite
  differences are smooth (two step sizes agree), and TensorFlow's own v2 answer, second order included, agrees with
  them, so the refused gradient is well defined;
- cfnb is right: in float64 on both v1 paths, its forward values equal TensorFlow's and its gradients equal the
  finite differences (None exactly where they are zero); in float32 its answer is TensorFlow's v2 answer;
- in `make test-all`, cfnb's v2 float64 gradients, second order included, equal them on the three v2 paths.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

FUZZ2 = pathlib.Path(__file__).parent / "fuzz2"
sys.path.insert(0, str(FUZZ2))

from explain_segment import REFUSAL  # noqa: E402
from float64 import Float64Program  # noqa: E402
from gen2 import Program, generate  # noqa: E402
from harness2 import TWO_CPUS, decode, mismatches  # noqa: E402
from paths2 import PATHS, run_cfnb  # noqa: E402

import cfnb  # noqa: E402

EVIDENCE = json.loads((FUZZ2 / "explained2.json").read_text())["programs"]
CORPUS = json.loads((FUZZ2 / "corpus2_tf.json").read_text())["programs"]
V1_PATHS = ("v1-static", "v1-executor")
FIRST_ORDER = ("grad_x", "grad_w")


def _close(got, want, rtol, atol):
    """`got` (array or None) against a finite difference: None exactly where the difference is zero."""
    want = np.asarray(want)
    if got is None:
        return not np.any(want)
    scale = max(1.0, float(np.max(np.abs(want))))
    return np.allclose(got, want, rtol=rtol, atol=atol * scale)


def test_every_explained_mismatch_has_evidence_and_is_listed_in_known_md():
    explained = {json.dumps([e["source"], e["feeds"]]) for e in CORPUS if "explained" in e}
    evidenced = {json.dumps([e["source"], e["feeds"]]) for e in EVIDENCE if e["where"].startswith("corpus")}
    assert explained == evidenced
    known = (FUZZ2 / "KNOWN.md").read_text()
    assert all(e["where"] in known for e in EVIDENCE), [e["where"] for e in EVIDENCE if e["where"] not in known]
    seeds = [int(e["where"].removeprefix("gen2 seed ")) for e in EVIDENCE if e["where"].startswith("gen2 seed")]
    assert len(seeds) >= 3  # the long run's (seeds 500..687)
    for seed, entry in zip(seeds, [e for e in EVIDENCE if e["where"].startswith("gen2 seed")], strict=True):
        assert generate(seed).as_json() == {"source": entry["source"], "feeds": entry["feeds"]}, "gen2.py changed"


@pytest.mark.parametrize("entry", EVIDENCE, ids=[e["where"] for e in EVIDENCE])
def test_the_explanation_holds(entry):
    assert REFUSAL in entry["tensorflow"]["v1"]["error"]
    assert entry["steps_agree_within"] < 1e-6, "not smooth here: a finite difference proves nothing"
    fd = entry["finite_differences_float64"]
    tf_v2 = decode(entry["tensorflow"]["v2"])
    for key in (*FIRST_ORDER, "grad2_x"):
        assert _close(tf_v2[key], fd[key], 2e-4, 2e-5), f"TensorFlow v2's {key} {tf_v2[key]} != {fd[key]}"
    forward = {k: v for k, v in tf_v2.items() if k not in (*FIRST_ORDER, "grad2_x")}
    assert sorted(forward) == sorted(entry["forward_float64"])
    for key, value in forward.items():
        assert np.allclose(value, entry["forward_float64"][key], rtol=1e-5, atol=1e-6), key


@pytest.fixture
def control_flow_v1():
    was_v2 = cfnb.control_flow_v2_enabled()
    cfnb.disable_control_flow_v2()
    yield
    (cfnb.enable_control_flow_v2 if was_v2 else cfnb.disable_control_flow_v2)()


@pytest.mark.parametrize("entry", EVIDENCE, ids=[e["where"] for e in EVIDENCE])
def test_cfnb_v1_gradient_equals_finite_differences(entry, control_flow_v1):
    program = Program(entry["source"], entry["feeds"])
    built = Float64Program(cfnb, program)
    fd = entry["finite_differences_float64"]
    for path in V1_PATHS:
        config = cfnb.ConfigProto(device_count=TWO_CPUS, **PATHS[path][1])
        with cfnb.Session(graph=built.graph, config=config) as sess:
            forward = built.forward(sess, *built.inputs())
            grads = built.gradients(sess)
        assert sorted(forward) == sorted(entry["forward_float64"])
        for key, value in forward.items():
            assert np.allclose(value, entry["forward_float64"][key], rtol=1e-10, atol=1e-12), f"{path}: {key}"
        for key in FIRST_ORDER:
            assert _close(grads[key], fd[key], 1e-6, 1e-6), f"{path}: {key} {grads[key]} != {fd[key]}"
    answer = {k: v for k, v in entry["tensorflow"]["v2"].items() if k != "grad2_x"}
    for path, result in run_cfnb(program, V1_PATHS).items():
        assert not mismatches(result, decode(answer)), f"{path}: float32 answer is not TensorFlow's v2 answer"


@pytest.mark.long
@pytest.mark.parametrize("entry", EVIDENCE, ids=[e["where"] for e in EVIDENCE])
def test_cfnb_v2_first_and_second_order_equal_finite_differences(entry):
    """cfnb's v2 answer in float64 on the three v2 paths, second order included (about 3 s a program: `make
    test-all` only; the corpus test checks the float32 answer against TensorFlow's on one path)."""
    was_v2 = cfnb.control_flow_v2_enabled()
    cfnb.enable_control_flow_v2()
    try:
        built = Float64Program(cfnb, Program(entry["source"], entry["feeds"]), weighted=True)
        with built.graph.as_default():
            (grad2_x,) = cfnb.gradients(built.weighted, [built.x])
    finally:
        (cfnb.enable_control_flow_v2 if was_v2 else cfnb.disable_control_flow_v2)()
    fd = entry["finite_differences_float64"]
    for path in ("v2-static", "v2-executor", "v2-strict"):
        config = cfnb.ConfigProto(device_count=TWO_CPUS, **PATHS[path][1])
        with cfnb.Session(graph=built.graph, config=config) as sess:
            grads = built.gradients(sess)
            second = sess.run(grad2_x, built._feed(*built.inputs()))
        for key in FIRST_ORDER:
            assert _close(grads[key], fd[key], 1e-6, 1e-6), f"{path}: {key} {grads[key]} != {fd[key]}"
        # a finite difference of a float64 gradient, step 1e-5: good to about 1e-6
        assert _close(second, fd["grad2_x"], 1e-5, 1e-5), f"{path}: grad2_x {second} != {fd['grad2_x']}"
