"""The registry and runner of the conversion programs (conversion_programs.py explains them)."""
import numpy as np

PROGRAMS = {}
MATCH = {}
INIT = "__init__"


def program(build=None, match=None):
    def register(fn):
        if fn.__name__ in PROGRAMS:
            raise ValueError(f"duplicate program {fn.__name__!r}")
        PROGRAMS[fn.__name__] = fn
        if match is not None:
            MATCH[fn.__name__] = match
        return fn
    return register(build) if build is not None else register


def run_program(tf, build, reset_default_sessions):
    """What `build` gives under `tf` (TensorFlow's compat.v1 or cfnb): {"values", "dtypes"} of its fetches, or
    {"error": {"phase", "type", "message"}}. `reset_default_sessions()` empties the default-session stack
    afterwards, so that a program that breaks its nesting leaves no default session behind."""
    graph = tf.Graph()
    try:
        with graph.as_default():
            try:
                fetches = dict(build(tf))
            except Exception as e:  # noqa: BLE001 - the error is the answer
                return {"error": {"phase": "build", "type": type(e).__name__, "message": str(e)}}
            init = fetches.pop(INIT, None)
            tensors = {k: v for k, v in fetches.items() if isinstance(v, tf.Tensor)}
            values = {k: v for k, v in fetches.items() if k not in tensors}
            dtypes = {k: type(v).__name__ for k, v in values.items()}
            if tensors or init is not None:
                try:
                    with tf.Session(graph=graph) as sess:
                        if init is not None:
                            sess.run(init)
                        got = sess.run(tensors)
                except Exception as e:  # noqa: BLE001
                    return {"error": {"phase": "run", "type": type(e).__name__, "message": str(e)}}
                for k, v in got.items():
                    v = np.asarray(v)
                    if v.dtype.kind in "OS":  # a string tensor: bytes, kept as text in the json
                        values[k] = np.vectorize(lambda b: b.decode(), otypes=[object])(v).tolist()
                        dtypes[k] = "string"
                    elif v.dtype.kind == "c":  # complex: [re, im] pairs
                        values[k], dtypes[k] = np.stack([v.real, v.imag], axis=-1).tolist(), v.dtype.name
                    else:
                        values[k], dtypes[k] = v.tolist(), v.dtype.name
            return {"values": values, "dtypes": dtypes}
    finally:
        reset_default_sessions()
