"""Build, run and compare the second fuzz family's programs, the same way for cfnb and for TensorFlow.

`build(tf, program, second_order)` makes a fresh graph with the program, its inputs as placeholders, the gradients
of the sum of its outputs with respect to `x` and `w` (`grad_x`, `grad_w`) and, when `second_order` (control flow
v2), the gradient of `sum(grad_x * [1, -0.5, 2])` with respect to `x` (`grad2_x`). A gradient that does not exist
is None (part of the answer); a second-order gradient whose construction raises is recorded as that error
(`{"error": ...}` under its key), so the first-order answer still counts. `run` runs it in one session on two CPUs
(the programs place ops on "/cpu:1"); if the second-order fetch fails at run time, the rest is run without it.
Neither imports cfnb or TensorFlow: `tf` is passed in.
"""
import numpy as np

RTOL, ATOL = 2e-4, 2e-5
WEIGHTS = [1.0, -0.5, 2.0]
TWO_CPUS = {"CPU": 2}


class Built:
    def __init__(self, graph, fetches, feed_dict, extra):
        self.graph, self.fetches, self.feed_dict, self.extra = graph, fetches, feed_dict, extra


def build(tf, program, second_order):
    namespace = {}
    exec(compile(program.source, "<fuzz2 program>", "exec"), namespace)  # noqa: S102 - generated program text
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        w = tf.placeholder(tf.float32, [3, 3], name="w")
        n = tf.placeholder(tf.int32, [], name="n")
        fetches = dict(namespace["build"](tf, x, w, n))
        loss = tf.add_n([tf.reduce_sum(fetches[k]) for k in sorted(fetches)])
        extra = {}
        # a gather's gradient is IndexedSlices, which a session fetches as a pair: fetch it dense
        gx, gw = (None if g is None else tf.convert_to_tensor(g) for g in tf.gradients(loss, [x, w]))
        for key, g in (("grad_x", gx), ("grad_w", gw)):
            if g is None:
                extra[key] = None
            else:
                fetches[key] = g
        if second_order and gx is not None:
            try:
                (gg,) = tf.gradients(tf.reduce_sum(gx * tf.constant(WEIGHTS)), [x])
                gg = None if gg is None else tf.convert_to_tensor(gg)
            except Exception as e:  # noqa: BLE001 - the error is this key's answer
                extra["grad2_x"] = error_of(e)
            else:
                if gg is None:
                    extra["grad2_x"] = None
                else:
                    fetches["grad2_x"] = gg
        feeds = program.feeds
        feed_dict = {x: np.asarray(feeds["x"], np.float32), w: np.asarray(feeds["w"], np.float32), n: feeds["n"]}
    return Built(graph, fetches, feed_dict, extra)


def run(tf, built, config):
    """{key: array, None or {"error": ...}}; `config` must give two CPUs."""
    result = dict(built.extra)
    with tf.Session(graph=built.graph, config=config) as sess:
        try:
            values = sess.run(built.fetches, built.feed_dict)
        except Exception as e:  # noqa: BLE001 - retried without the second-order fetch, whose error it may be
            if "grad2_x" not in built.fetches:
                raise
            rest = {k: v for k, v in built.fetches.items() if k != "grad2_x"}
            values = sess.run(rest, built.feed_dict)
            result["grad2_x"] = error_of(e)
    result.update({k: np.asarray(v) for k, v in values.items()})
    return result


def error_of(e):
    """Type and message; for TensorFlow's "Graph execution error:" the line that says what went wrong (the one
    before the failing node's name) rather than that header."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    if lines and lines[0] == "Graph execution error:":
        marked = [k for k, line in enumerate(lines) if line.startswith("[[")]
        lines = [lines[marked[0] - 1]] if marked and marked[0] > 0 else lines[-1:]
    return {"error": f"{type(e).__name__}: {lines[0] if lines else ''}"}


def encode(result):
    """Compact json: key -> [dtype, nested list], null, or {"error": ...}; a whole failed run is {"error": ...}."""
    if "error" in result:
        return result
    return {k: v if v is None or isinstance(v, dict) else [v.dtype.name, v.tolist()]
            for k, v in sorted(result.items())}


def decode(encoded):
    if "error" in encoded:
        return encoded
    return {k: v if v is None or isinstance(v, dict) else np.asarray(v[1], dtype=v[0])
            for k, v in encoded.items() if k not in ("grappler_off", "explained")}


def _differs(key, a, b):
    if a is None or b is None or isinstance(a, dict) or isinstance(b, dict):
        kind = {True: "None", False: "a value"}
        ka = "error" if isinstance(a, dict) else kind[a is None]
        kb = "error" if isinstance(b, dict) else kind[b is None]
        return None if ka == kb else f"{key}: {ka} != {kb}" + (f" ({(a if ka == 'error' else b)['error']})"
                                                                 if "error" in (ka, kb) else "")
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"{key}: {a.dtype}{list(a.shape)} != {b.dtype}{list(b.shape)}"
    if a.dtype.kind == "f":
        scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
        if not np.allclose(a, b, rtol=RTOL, atol=ATOL * scale, equal_nan=True):
            return f"{key}: {np.round(a, 5).tolist()} != {np.round(b, 5).tolist()}"
    elif not np.array_equal(a, b):
        return f"{key}: {a.tolist()} != {b.tolist()}"
    return None


def mismatches(got, want):
    """What differs between two results (empty when they agree; both raising agrees)."""
    if "error" in got or "error" in want:
        if "error" in got and "error" in want:
            return []
        return [f"error {got.get('error') or want.get('error')} on one side only"]
    if sorted(got) != sorted(want):
        return [f"keys {sorted(got)} != {sorted(want)}"]
    return [p for p in (_differs(k, got[k], want[k]) for k in sorted(got)) if p]
