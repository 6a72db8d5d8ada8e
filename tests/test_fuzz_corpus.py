"""The fuzz corpus: 500 generated nested cond/while programs (tests/fuzz/corpus_tf.json, written by
tests/fuzz/record.py) must give on every cfnb path what TensorFlow 2.21 gave in the same control-flow mode:
values, dtypes, shapes, and which gradients are None. TensorFlow itself is never imported here.

`make test` replays every 25th program (20, one of each stretch of the corpus); `make test-all` replays all of
them, in five slices of 100 programs, so a failure names a smaller range."""
import json
import pathlib
import sys

import pytest

FUZZ = pathlib.Path(__file__).parent / "fuzz"
sys.path.insert(0, str(FUZZ))

from cfnb_paths import PATHS, run_cfnb  # noqa: E402
from generator import Program  # noqa: E402
from harness import decode, mismatches  # noqa: E402

CORPUS = json.loads((FUZZ / "corpus_tf.json").read_text())["programs"]
SLICE = 100


def test_corpus_has_at_least_500_programs_with_both_modes_recorded():
    assert len(CORPUS) >= 500
    assert all("v1" in e and "v2" in e and "error" not in e["v1"] and "error" not in e["v2"] for e in CORPUS)


def _mismatches_with_tensorflow(indices):
    failures = []
    for index in indices:
        entry = CORPUS[index]
        got = run_cfnb(Program(entry["source"], entry["feeds"]))
        for path, result in got.items():
            problems = mismatches(result, decode(entry[PATHS[path][0]]))
            if problems:
                failures.append(f"program {index} on {path}: {problems[0]}")
    return failures


def test_a_sample_of_the_corpus_matches_tensorflow():
    failures = _mismatches_with_tensorflow(range(0, len(CORPUS), 25))
    assert not failures, f"{len(failures)} mismatches with TensorFlow:\n" + "\n".join(failures[:20])


@pytest.mark.long
@pytest.mark.parametrize("start", range(0, len(CORPUS), SLICE))
def test_corpus_slice_matches_tensorflow(start):
    failures = _mismatches_with_tensorflow(range(start, min(start + SLICE, len(CORPUS))))
    assert not failures, f"{len(failures)} mismatches with TensorFlow:\n" + "\n".join(failures[:20])
