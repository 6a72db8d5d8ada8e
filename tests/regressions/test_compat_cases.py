"""cfnb against TensorFlow's recorded answers for the compat cases (compat_cases.py, compat_tf.json),
in both control-flow versions and on every execution path: the static schedule, the tagged-token
executor, and strict functional ops (If/While run as function calls)."""
import json
import os

import numpy as np
import pytest

import cfnb as tf
from cfnb.ops import control_flow_ops

from .compat_cases import CASES, normalize

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "compat_tf.json")))
PATHS = {
    "static": {},
    "executor": {"static_schedule": False},
    "strict": {"lower_functional_ops": False},
}


class Raw:
    @staticmethod
    def merge(inputs):
        return control_flow_ops.merge(inputs)[0]

    @staticmethod
    def next_iteration(data):
        return control_flow_ops.next_iteration(data)


class Env:
    raw = Raw
    is_tf = False

    def __init__(self, v2, path):
        self.v2 = v2
        self.path = path

    def run(self, fetches, feed_dict=None, options=None, config=None):
        with tf.Session(config=tf.ConfigProto(**PATHS[self.path], **(config or {}))) as sess:
            return sess.run(fetches, feed_dict, options=options)


def _params():
    for name, c in CASES.items():
        for version in c.versions:
            for path in PATHS:
                yield pytest.param(name, version, path, id=f"{name}-{version}-{path}")


def assert_same(got, want, where=""):
    if isinstance(want, dict) and "dtype" in want:
        assert isinstance(got, dict) and "dtype" in got, f"{where}: got {got}, TensorFlow gave {want}"
        assert got["dtype"] == want["dtype"], f"{where}: dtype {got['dtype']}, TensorFlow {want['dtype']}"
        if want["dtype"].startswith(("float", "complex")):
            np.testing.assert_allclose(np.array(got["value"], dtype=float), np.array(want["value"], dtype=float),
                                       rtol=1e-6, atol=1e-6, err_msg=where)
        else:
            assert got["value"] == want["value"], where
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), f"{where}: got {got}, TensorFlow gave {want}"
        for k in want:
            assert_same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: got {got}, TensorFlow gave {want}"
        for k, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}[{k}]")
    else:
        assert got == want, f"{where}: got {got!r}, TensorFlow gave {want!r}"


@pytest.mark.parametrize("name,version,path", list(_params()))
def test_case_matches_tensorflow(name, version, path):
    c = CASES[name]
    want = RECORDED[f"{name}/{version}"]
    if version == "v2":
        tf.enable_control_flow_v2()
    env = Env(version == "v2", path)
    if "error" in want:
        with pytest.raises(Exception) as info:  # noqa: PT011 - the type is compared with TensorFlow's below
            c.fn(tf, env)
        tf_text = want["message"][:600]
        assert type(info.value).__name__ == want["error"], f"{info.value!r}; TensorFlow: {want['error']}: {tf_text}"
        key = c.key.get(version) if isinstance(c.key, dict) else c.key
        assert key is not None and key in want["message"], tf_text
        assert key in str(info.value), f"{info.value}; TensorFlow: {tf_text}"
    else:
        assert_same(normalize(c.fn(tf, env)), want["value"], name)
