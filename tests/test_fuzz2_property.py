"""Differential property test of the second fuzz family (tests/fuzz2/gen2.py: TensorArrays, scan/map_fn/foldl/foldr,
case/switch_case, shape_invariants, ops on "/cpu:1", second-order gradients in v2): within a control-flow version
every cfnb path gives the same keys, dtypes, shapes, None gradients and errors, and values up to float tolerance;
the values (not the gradients: a v2 gradient may be zeros where v1's is None) agree across versions too.
Bounded and derandomized, so the same programs run on every machine; no TensorFlow needed."""
import pathlib
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).parent / "fuzz2"))

from gen2 import generate  # noqa: E402
from harness2 import mismatches  # noqa: E402
from paths2 import PATHS, run_cfnb  # noqa: E402


def _values(result):
    return result if "error" in result else {k: v for k, v in result.items() if not k.startswith("grad")}


@settings(max_examples=15, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=10**6, max_value=2**32 - 1))
def test_all_paths_agree_on_random_rich_programs(seed):
    got = run_cfnb(generate(seed))
    for path, result in got.items():
        reference = "v1-static" if PATHS[path][0] == "v1" else "v2-static"
        problems = mismatches(result, got[reference])
        assert not problems, f"seed {seed}: {path} vs {reference}: {problems}"
    problems = mismatches(_values(got["v2-static"]), _values(got["v1-static"]))
    assert not problems, f"seed {seed}: v2 vs v1: {problems}"
