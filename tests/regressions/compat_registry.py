"""The registry of compat cases: programs for issue #9, written once for `tensorflow.compat.v1` and cfnb.

Each case is a function `case(tf, env)` that builds a graph with `tf`, runs it with `env.run` and returns
plain data (or raises). `record_compat.py` runs every case under TensorFlow 2.21 and stores what it
returned or raised in `compat_tf.json`; `test_compat_cases.py` runs them under cfnb on every execution
path and compares. A case registered with `key=` raises in TensorFlow: cfnb must raise the same error
type, and `key` must occur in both messages.
"""
from typing import NamedTuple

import numpy as np


class Case(NamedTuple):
    fn: object
    key: object = None      # for a case that raises: a phrase both messages contain ({version: phrase} or one)
    versions: tuple = ("v1", "v2")


CASES = {}


def case(key=None, versions=("v1", "v2")):
    def register(fn):
        CASES[fn.__name__] = Case(fn, key, versions)
        return fn
    return register


def normalize(x):
    """Fetched values as JSON data: arrays keep their dtype, complex numbers become [re, im] pairs."""
    if isinstance(x, (np.ndarray, np.generic)):
        arr = np.asarray(x)
        if arr.dtype.kind == "c":
            value = np.stack([arr.real, arr.imag], axis=-1).tolist()
        elif arr.dtype.kind in "OSU":
            value = np.vectorize(lambda b: b.decode() if isinstance(b, bytes) else b, otypes=[object])(arr).tolist()
        else:
            value = arr.tolist()
        return {"dtype": arr.dtype.name if arr.dtype.kind not in "OSU" else "string", "value": value}
    if isinstance(x, bytes):
        return {"bytes": x.decode()}
    if isinstance(x, (list, tuple)):
        return [normalize(v) for v in x]
    if isinstance(x, dict):
        return {str(k): normalize(v) for k, v in x.items()}
    return x
