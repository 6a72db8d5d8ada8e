"""Build, run and compare generated programs, the same way for cfnb and for TensorFlow.

`build(tf, program)` makes a fresh graph holding the program, its inputs as placeholders, and the gradients of
the sum of its float outputs with respect to the float inputs (`grad_x0`, `grad_x1`; a gradient that does not
exist stays `None`, and that is part of the answer). `run(tf, built, config)` runs it in one session. Neither
imports cfnb or TensorFlow: `tf` is `cfnb` or `tensorflow.compat.v1`, passed in.

Results are dicts: key -> numpy array, or None for a missing gradient; or {"error": "Type: message"}.
`encode`/`decode` turn them into compact json; `mismatches` says how two results differ (floats within a
tolerance scaled to the values, everything else exactly: keys, None-ness, dtype, shape).
"""
import numpy as np
from generator import FLOAT_INPUTS, INPUTS

RTOL = 1e-4


class Built:
    def __init__(self, graph, fetches, feed_dict, missing):
        self.graph, self.fetches, self.feed_dict, self.missing = graph, fetches, feed_dict, missing


def build(tf, program):
    namespace = {}
    exec(compile(program.source, "<fuzz program>", "exec"), namespace)  # noqa: S102 - generated program text
    graph = tf.Graph()
    with graph.as_default():
        inputs = {name: tf.placeholder(getattr(tf, dtype), shape, name=name) for name, (dtype, shape) in INPUTS.items()}
        outputs = namespace["build"](tf, **inputs)
        fetches = dict(outputs)
        floats = [outputs[k] for k in sorted(outputs) if outputs[k].dtype == tf.float32]
        missing = []
        if floats:
            loss = tf.reduce_sum(floats[0])
            for t in floats[1:]:
                loss = loss + tf.reduce_sum(t)
            grads = tf.gradients(loss, [inputs[n] for n in FLOAT_INPUTS])
            for name, g in zip(FLOAT_INPUTS, grads):
                if g is None:
                    missing.append(f"grad_{name}")
                else:
                    fetches[f"grad_{name}"] = g
        feed_dict = {inputs[n]: np.asarray(v, dtype=INPUTS[n][0]) for n, v in program.feeds.items()}
    return Built(graph, fetches, feed_dict, missing)


def run(tf, built, config=None):
    with tf.Session(graph=built.graph, config=config) as sess:
        values = sess.run(built.fetches, built.feed_dict)
    result = {k: np.asarray(v) for k, v in values.items()}
    result.update({k: None for k in built.missing})
    return result


def error_of(e):
    return {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}


_DTYPES = {"f": "float32", "i": "int32", "b": "bool"}
_CODES = {v: k for k, v in _DTYPES.items()}


def encode(result):
    """Compact json: key -> [dtype code, value as (nested) list], or null for a missing gradient."""
    if "error" in result:
        return result
    return {k: None if v is None else [_CODES.get(v.dtype.name, v.dtype.name), v.tolist()]
            for k, v in sorted(result.items())}


def decode(encoded):
    if "error" in encoded:
        return encoded
    return {k: None if v is None else np.asarray(v[1], dtype=_DTYPES.get(v[0], v[0]))
            for k, v in encoded.items() if k != "grappler_off"}


def mismatches(got, want):
    """What differs between two results (empty when they agree)."""
    if "error" in got or "error" in want:
        if "error" in got and "error" in want:
            return []
        return [f"error {got.get('error') or want.get('error')} on one side only"]
    if sorted(got) != sorted(want):
        return [f"keys {sorted(got)} != {sorted(want)}"]
    problems = []
    for key in sorted(got):
        a, b = got[key], want[key]
        if a is None or b is None:
            if (a is None) != (b is None):
                problems.append(f"{key}: {'None' if a is None else 'a value'} != {'None' if b is None else 'a value'}")
            continue
        if a.dtype != b.dtype or a.shape != b.shape:
            problems.append(f"{key}: {a.dtype}{list(a.shape)} != {b.dtype}{list(b.shape)}")
        elif a.dtype.kind == "f":
            finite = np.isfinite(b)
            scale = np.max(np.abs(b[finite]), initial=1.0)
            if not np.allclose(a, b, rtol=RTOL, atol=RTOL * scale, equal_nan=True):
                problems.append(f"{key}: {a.tolist()} != {b.tolist()}")
        elif not np.array_equal(a, b):
            problems.append(f"{key}: {a.tolist()} != {b.tolist()}")
    return problems
