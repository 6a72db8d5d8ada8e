"""The second fuzz family on cfnb's five execution paths (the same paths as tests/fuzz/cfnb_paths.py), on two CPUs."""
import pathlib
import sys

from harness2 import TWO_CPUS, build, error_of, run

import cfnb

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "fuzz"))
from cfnb_paths import PATHS  # noqa: E402  (the five paths, named once for both families)


def run_cfnb(program, paths=tuple(PATHS)):
    """{path: result} for the program on each of `paths` (v2 with second-order gradients)."""
    was_v2 = cfnb.control_flow_v2_enabled()
    results = {}
    try:
        for mode in ("v1", "v2"):
            mine = [p for p in paths if PATHS[p][0] == mode]
            if not mine:
                continue
            (cfnb.enable_control_flow_v2 if mode == "v2" else cfnb.disable_control_flow_v2)()
            try:
                built = build(cfnb, program, second_order=mode == "v2")
            except Exception as e:  # noqa: BLE001 - a build error is this mode's answer on every path
                results.update({p: error_of(e) for p in mine})
                continue
            for p in mine:
                try:
                    results[p] = run(cfnb, built, cfnb.ConfigProto(device_count=TWO_CPUS, **PATHS[p][1]))
                except Exception as e:  # noqa: BLE001 - reported as the path's answer
                    results[p] = error_of(e)
    finally:
        (cfnb.enable_control_flow_v2 if was_v2 else cfnb.disable_control_flow_v2)()
    return results
