"""Differential property test: random nested cond/while programs (tests/fuzz/generator.py) give the same values
and gradients on all five of cfnb's paths (v1 static schedule and executor; v2 lowered on both, and strict).

Within a control-flow mode every path must agree exactly in keys, dtypes, shapes and None gradients, and in
values up to float tolerance. Across modes the values must agree too, but a gradient may be None in v1 and
zeros in v2 (TensorFlow's v2 gradient functions return zeros for a While input that gets no gradient), so a
None is compared there as zeros. Hypothesis is derandomized: the same programs run on every machine.
`make test` tries 20 programs; `make test-all` (the `long` mark) 120."""
import pathlib
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).parent / "fuzz"))

from cfnb_paths import PATHS, run_cfnb  # noqa: E402
from generator import INPUTS, generate  # noqa: E402
from harness import mismatches  # noqa: E402


def _none_as_zeros(result):
    if "error" in result:
        return result
    return {k: np.zeros(INPUTS[k[5:]][1], np.float32) if v is None else v for k, v in result.items()}


def _all_paths_agree(seed):
    got = run_cfnb(generate(seed))
    assert "error" not in got["v1-static"], f"seed {seed}: {got['v1-static']}"
    for path, result in got.items():
        reference = "v1-static" if PATHS[path][0] == "v1" else "v2-static"
        problems = mismatches(result, got[reference])
        assert not problems, f"seed {seed}: {path} vs {reference}: {problems}"
    problems = mismatches(_none_as_zeros(got["v2-static"]), _none_as_zeros(got["v1-static"]))
    assert not problems, f"seed {seed}: v2 vs v1: {problems}"


SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SETTINGS = {"deadline": None, "derandomize": True, "database": None, "suppress_health_check": [HealthCheck.too_slow]}


@settings(max_examples=20, **SETTINGS)
@given(SEEDS)
def test_all_paths_agree_on_random_programs(seed):
    _all_paths_agree(seed)


@pytest.mark.long
@settings(max_examples=120, **SETTINGS)
@given(SEEDS)
def test_all_paths_agree_on_more_random_programs(seed):
    _all_paths_agree(seed)
