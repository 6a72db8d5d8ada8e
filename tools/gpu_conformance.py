"""Every conformance program on a real GPU (cupy), v1 and v2: which fail, at which op and which line of cfnb. Run from
the repository root with PYTHONPATH=. on a machine with cupy and a GPU (checked on an H200, 26 Nov 2026: 321 of 321)."""
import collections
import importlib.util
import json
import pathlib
import traceback

import numpy as np

import cfnb

HERE = pathlib.Path("tests/conformance")
spec = importlib.util.spec_from_file_location("progs", HERE / "programs.py")
programs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(programs)
EXPECTED = json.loads((HERE / "expected_tf.json").read_text())
config = cfnb.ConfigProto(device_count={"GPU": 1})
where = collections.Counter()
ok = bad = 0
for mode in ("v1", "v2"):
    (cfnb.enable_control_flow_v2 if mode == "v2" else cfnb.disable_control_flow_v2)()
    for name, build in programs.PROGRAMS.items():
        want = EXPECTED[mode].get(name)
        if want is None or "error" in want:
            continue
        try:
            got = programs.run_program(cfnb, build, config)
            wrong = []
            for key, value in got.items():
                e = np.asarray(want[key], dtype=EXPECTED["dtypes"][mode][name][key])
                e = e.reshape(EXPECTED["shapes"][mode][name][key])
                if value.shape != e.shape or not np.allclose(value, e, rtol=2e-4, atol=2e-5):
                    wrong.append(key)
            if wrong:
                bad += 1
                print(f"WRONG {mode} {name}: {wrong}")
            else:
                ok += 1
        except Exception as e:
            bad += 1
            cause = e
            while cause.__cause__ is not None:
                cause = cause.__cause__
            tb = [f for f in traceback.extract_tb(cause.__traceback__) if "/cfnb/" in f.filename]
            loc = f"{tb[-1].filename.split('/cfnb/')[-1]}:{tb[-1].lineno} {tb[-1].line}" if tb else "?"
            msg = str(e).splitlines()
            node = next((line for line in msg if "[[node" in line), "")
            where[loc] += 1
            print(f"FAIL {mode} {name}: {type(cause).__name__}: {str(cause)[:120]} | {node.strip()} | {loc}")
print(f"{ok} ok, {bad} failed")
for loc, n in where.most_common():
    print(n, loc)
