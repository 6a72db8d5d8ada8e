"""`gradient_checker(_v2).compute_gradient` and `max_error`, on cfnb's finite differences.

TensorFlow's v2 checker takes a function and its inputs and returns (theoretical, numerical) Jacobians per
input; in graph mode the function's result is run in the default session. cfnb builds the same two
Jacobians: symbolic ones from `cfnb.gradients` of each output element, numeric ones by central differences."""
import numpy as np

import cfnb
from cfnb.framework.default_session import get_default_session


def _session():
    return get_default_session() or cfnb.Session()


def compute_gradient(f, x, *args, delta=None, **kwargs):
    """TensorFlow's `gradient_checker_v2.compute_gradient(f, x)` (x a list of values), or v1's
    `gradient_checker.compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3)` (graph tensors)."""
    if isinstance(f, cfnb.Tensor):
        return _compute_gradient_v1(f, x, *args, delta=delta, **kwargs)
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


def _compute_gradient_v1(x, x_shape, y, y_shape, x_init_value=None, delta=None, init_targets=None,
                         extra_feed_dict=None):
    """v1's checker: the Jacobian of y by x (rows: x's elements), symbolic (one grad_ys per y element) and
    by central differences feeding x (a fed Const too, as TensorFlow allows)."""
    sess = _session()
    delta = 1e-3 if delta is None else delta
    x_val = np.asarray(x_init_value if x_init_value is not None else sess.run(x), x.dtype.as_numpy_dtype)
    feed = dict(extra_feed_dict or {})
    y_size, x_size = int(np.prod(y_shape)), int(np.prod(x_shape))
    jac_t = np.zeros((x_size, y_size), x_val.dtype)
    grad_ys = cfnb.placeholder(y.dtype, y_shape)
    g = cfnb.gradients(y, x, grad_ys=grad_ys)[0]
    for j in range(y_size):
        onehot = np.zeros(y_size, y.dtype.as_numpy_dtype)
        onehot[j] = 1
        if g is not None:
            jac_t[:, j] = np.asarray(sess.run(g, {**feed, x: x_val, grad_ys: onehot.reshape(y_shape)})).reshape(-1)
    jac_n = np.zeros((x_size, y_size), x_val.dtype)
    for i in range(x_size):
        plus, minus = x_val.copy(), x_val.copy()
        plus.reshape(-1)[i] += delta
        minus.reshape(-1)[i] -= delta
        yp = np.asarray(sess.run(y, {**feed, x: plus})).reshape(-1)
        ym = np.asarray(sess.run(y, {**feed, x: minus})).reshape(-1)
        jac_n[i, :] = (yp - ym) / (2 * delta)
    return jac_t, jac_n


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=None, **kwargs):
    jac_t, jac_n = _compute_gradient_v1(x, x_shape, y, y_shape, x_init_value, delta, **kwargs)
    return float(np.max(np.abs(jac_t - jac_n))) if jac_t.size else 0.0
