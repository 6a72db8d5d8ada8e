"""`gradient_checker(_v2).compute_gradient` and `max_error`, on cfnb's finite differences.

TensorFlow's v2 checker takes a function and its inputs and returns (theoretical, numerical) Jacobians per
input; in graph mode the function's result is run in the default session. cfnb builds the same two
Jacobians: symbolic ones from `cfnb.gradients` of each output element, numeric ones by central differences."""
import numpy as np

import cfnb
from cfnb.framework.default_session import get_default_session


def _session():
    return get_default_session() or cfnb.Session()


def compute_gradient(f, x, delta=None):
    """TensorFlow's `gradient_checker_v2.compute_gradient(f, x)`: x is a list of values."""
    xs = [np.asarray(v) for v in x]
    dtype = xs[0].dtype if xs[0].dtype.kind == "f" else np.float64
    xs = [v.astype(dtype) for v in xs]
    delta = delta or (1e-3 if dtype == np.float32 else 1e-6)
    phs = [cfnb.placeholder(cfnb.as_dtype(dtype), v.shape) for v in xs]
    y = f(*phs)
    sess = _session()
    y_val = np.asarray(sess.run(y, dict(zip(phs, xs))))
    theoretical, numerical = [], []
    for k, v in enumerate(xs):
        jac_t = np.zeros((v.size, y_val.size), dtype)
        jac_n = np.zeros((v.size, y_val.size), dtype)
        flat_y = cfnb.reshape(y, [-1])
        for j in range(y_val.size):
            g = cfnb.gradients(flat_y[j], phs[k])[0]
            if g is not None:
                jac_t[:, j] = np.asarray(sess.run(g, dict(zip(phs, xs)))).reshape(-1)
        for i in range(v.size):
            plus, minus = [a.copy() for a in xs], [a.copy() for a in xs]
            plus[k].reshape(-1)[i] += delta
            minus[k].reshape(-1)[i] -= delta
            yp = np.asarray(sess.run(y, dict(zip(phs, plus)))).reshape(-1)
            ym = np.asarray(sess.run(y, dict(zip(phs, minus)))).reshape(-1)
            jac_n[i, :] = (yp - ym) / (2 * delta)
        theoretical.append(jac_t)
        numerical.append(jac_n)
    return theoretical, numerical


def max_error(grad1, grad2):
    return max((float(np.max(np.abs(a - b))) if np.size(a) else 0.0) for a, b in zip(grad1, grad2))


def _to_numpy(a):
    """`gradient_checker_v2._to_numpy`: an IndexedSlices value becomes the dense array it stands for."""
    if hasattr(a, "indices") and hasattr(a, "dense_shape"):
        from .test import _dense
        return _dense(a)
    return np.asarray(a)
