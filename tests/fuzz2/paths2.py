"""The second fuzz family on cfnb's five execution paths (the same paths as tests/fuzz/cfnb_paths.py), on two CPUs."""
from harness2 import TWO_CPUS, build, error_of, run

import cfnb

PATHS = {
    "v1-static": ("v1", {}),
    "v1-executor": ("v1", {"static_schedule": False}),
    "v2-static": ("v2", {}),
    "v2-executor": ("v2", {"static_schedule": False}),
    "v2-strict": ("v2", {"lower_functional_ops": False}),
}


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
