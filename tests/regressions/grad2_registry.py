"""The registry and runner of issue 18's gradient programs (grad2_programs.py explains them).

A program is `def name(tf): ... return fetches, feeds`, written once against the tf.compat.v1 graph API. A fetch
may be None: a gradient that does not exist is part of the answer (TensorFlow's None must be cfnb's None, never
zeros). `run_program` builds and runs one the same way under TensorFlow (record_grad2.py) and cfnb (test_grad2.py, which
builds it once for every path: `run_program_on_paths`):
static shapes, then values, dtypes and shapes, or the error with the phase it came in.
"""
import numpy as np

PROGRAMS = {}
MATCH = {}
MODES = {}
CPUS = {}


def program(build=None, match=None, modes=("v1", "v2"), cpus=1):
    """Register `build` under its name; `match`: the part of TensorFlow's error message cfnb must say too (or
    {mode: part}); `modes`: the control-flow versions to run it in; `cpus`: the CPU devices its session has."""
    def register(fn):
        if fn.__name__ in PROGRAMS:
            raise ValueError(f"duplicate program {fn.__name__!r}")
        PROGRAMS[fn.__name__] = fn
        MODES[fn.__name__] = tuple(modes)
        CPUS[fn.__name__] = cpus
        if match is not None:
            MATCH[fn.__name__] = match
        return fn
    return register(build) if build is not None else register


def match_for(name, mode):
    match = MATCH.get(name)
    return match.get(mode) if isinstance(match, dict) else match


def _static(t):
    return None if t.shape.ndims is None else list(t.shape.as_list())


def _error(phase, e):
    return {"phase": phase, "type": type(e).__name__, "message": str(e)}


def run_program(tf, build, config=None):
    """{"none": [fetches that are None], "static": {...}, "values"/"dtypes"/"shapes": {...}} or, where the framework
    refuses the program, {"error": {"phase", "type", "message"}} (with what was known before)."""
    return run_program_on_paths(tf, build, {None: config})[None]


def run_program_on_paths(tf, build, configs):
    """{path: run_program's answer} for each config of `configs` ({path: ConfigProto}): the program is built once
    and run in a Session of its own per path."""
    graph = tf.Graph()
    with graph.as_default():
        try:
            fetches, feeds = build(tf)
        except Exception as e:  # noqa: BLE001 - the error is the answer
            return dict.fromkeys(configs, {"error": _error("build", e)})
        tensors = {k: v for k, v in fetches.items() if v is not None}
        known = {"none": sorted(k for k, v in fetches.items() if v is None),
                 "static": {k: _static(t) for k, t in tensors.items()}}
        results = {}
        for path, config in configs.items():
            out = results[path] = dict(known)
            try:
                with tf.Session(graph=graph, config=config) as sess:
                    values = {k: np.asarray(v) for k, v in sess.run(tensors, feed_dict=feeds).items()}
            except Exception as e:  # noqa: BLE001
                out["error"] = _error("run", e)
                continue
            out.update(values={k: v.tolist() for k, v in values.items()},
                       dtypes={k: v.dtype.name for k, v in values.items()},
                       shapes={k: list(v.shape) for k, v in values.items()})
    return results


def _dense(tf, g):
    """A gradient as a tensor (a gather's gradient may be IndexedSlices, which a session fetches as a pair)."""
    return None if g is None else tf.convert_to_tensor(g)


def grads(tf, y, xs):
    """d sum(y) / d xs, None where nothing connects."""
    return [_dense(tf, g) for g in tf.gradients(tf.reduce_sum(y), xs)]


def second(tf, y, x, weights=None):
    """(dy/dx, d/dx of the weighted first derivative), None where nothing connects. The weights keep the second
    derivative from summing to something symmetric that would hide a dropped term."""
    (g,) = grads(tf, y, [x])
    if g is None:
        return None, None
    w = g * weights if weights is not None else g
    return g, grads(tf, w, [x])[0]
