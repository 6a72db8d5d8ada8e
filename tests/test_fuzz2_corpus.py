"""The second fuzz family's corpus (tests/fuzz2/corpus2_tf.json, written by tests/fuzz2/record2.py with TensorFlow
2.21, Grappler off, two CPUs): TensorArrays, scan/map_fn/foldl/foldr, case/switch_case, shape_invariants and ops on
"/cpu:1", with first-order gradients in both control-flow versions and second-order ones in v2. Every cfnb path
must give what TensorFlow gave in the same version: values, dtypes, shapes, which gradients are None, and which
raise. TensorFlow itself is never imported here.

To keep `make test` quick, each program runs on one path, chosen by its index (index % 5 over the five paths in
paths2.PATHS), so each slice of 100 programs covers all five paths; `make test` runs the first slice, `make
test-all` all five, and the long run (tests/fuzz2/fuzz2.py) every program on every path. Where TensorFlow's answer
is explained as wrong (tests/fuzz2/KNOWN.md; the entry's "explained" field, written by explain_segment.py), cfnb
must give the right answer stored there."""
import json
import pathlib
import sys

import pytest

FUZZ2 = pathlib.Path(__file__).parent / "fuzz2"
sys.path.insert(0, str(FUZZ2))

from gen2 import Program  # noqa: E402
from harness2 import decode, mismatches  # noqa: E402
from paths2 import PATHS, run_cfnb  # noqa: E402

CORPUS = json.loads((FUZZ2 / "corpus2_tf.json").read_text())["programs"]
SLICE = 100
PATH_NAMES = list(PATHS)
# cfnb bugs found by this corpus and not fixed yet (tests/fuzz2/KNOWN.md): program index -> why
KNOWN_BUGS = {}


def test_corpus_has_500_programs_recorded_in_both_versions_with_second_order_and_devices():
    assert len(CORPUS) >= 500
    assert all("v1" in e and "v2" in e for e in CORPUS)
    assert sum("/cpu:1" in e["source"] for e in CORPUS) >= 50
    second = [e["v2"]["grad2_x"] for e in CORPUS if "error" not in e["v2"] and "grad2_x" in e["v2"]]
    assert sum(isinstance(g, list) for g in second) >= 200  # a recorded second-order value, not None or an error
    for construct in ("TensorArray", "map_fn", "scan", "foldl", "foldr", "switch_case", "tf.case(",
                      "shape_invariants", "maximum_iterations", "parallel_iterations", "stop_gradient", "matmul"):
        assert sum(construct in e["source"] for e in CORPUS) >= 10, construct


def _want(entry, mode):
    """TensorFlow's answer, or, where KNOWN.md explains it as TensorFlow's fault, the right one (its evidence)."""
    return decode(entry.get("explained", {}).get(mode, {}).get("answer", entry[mode]))


@pytest.mark.parametrize("start", [pytest.param(start, marks=[pytest.mark.long] if start >= SLICE else [])
                                   for start in range(0, len(CORPUS), SLICE)])
def test_corpus_slice_matches_tensorflow(start):
    failures = []
    for index in range(start, min(start + SLICE, len(CORPUS))):
        if index in KNOWN_BUGS:
            continue  # test_known_cfnb_bug
        entry = CORPUS[index]
        path = PATH_NAMES[index % len(PATH_NAMES)]
        (result,) = run_cfnb(Program(entry["source"], entry["feeds"]), (path,)).values()
        problems = mismatches(result, _want(entry, PATHS[path][0]))
        if problems:
            failures.append(f"program {index} on {path}: {problems[0]}")
    assert not failures, f"{len(failures)} mismatches with TensorFlow:\n" + "\n".join(failures[:20])


@pytest.mark.parametrize("index", sorted(KNOWN_BUGS))
@pytest.mark.xfail(strict=True, reason="known cfnb bug, tests/fuzz2/KNOWN.md")
def test_known_cfnb_bug(index):
    entry = CORPUS[index]
    got = run_cfnb(Program(entry["source"], entry["feeds"]), ("v1-static", "v1-executor"))
    for path, result in got.items():
        assert not mismatches(result, _want(entry, "v1")), f"program {index} on {path}"


# cfnb bugs this corpus found and that are fixed (regression programs in tests/regressions/fuzz2_programs.py):
# program index -> the class; each must match on both v1 paths, not only the one its slice picks
FIXED_V1 = {270: "a gather of an inner loop's result in an outer loop: the v1 gradient's Exit was 'entered from two "
                 "frames' (gradient_of_a_gather_of_an_inner_loop_result_in_an_outer_loop)"}


@pytest.mark.parametrize("index", sorted(FIXED_V1))
def test_fixed_cfnb_bug_on_both_v1_paths(index):
    entry = CORPUS[index]
    got = run_cfnb(Program(entry["source"], entry["feeds"]), ("v1-static", "v1-executor"))
    for path, result in got.items():
        assert not mismatches(result, _want(entry, "v1")), f"program {index} on {path}"
