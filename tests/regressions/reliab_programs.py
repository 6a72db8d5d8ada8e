"""Regression programs for issue 9's "wrong or missing answers", written once against the tf.compat.v1 graph API.

A program is `def name(tf): ... return fetches, feeds`, as in tests/conformance/programs.py: record_reliab.py runs
it with `tensorflow.compat.v1` (writing reliab_tf.json), test_reliab.py with `cfnb`, in control flow v1 and v2 and
on every execution path. Besides values, dtypes and run-time shapes, the static shape of every fetch is recorded
(`tensor.shape` when the graph is built), and a program that TensorFlow refuses records the error's type, whether it
came while building or while running, and its message; `@program(match=...)` names the part of that message cfnb
must say too (the rest names TensorFlow's nodes).

Grouped by the issue's bullets: map_fn/scan/fold with nested structures, `case` without a true predicate, control
dependencies across control-flow boundaries, TensorArray reads and stacks of unwritten elements, static shapes from
constant shape tensors; then a few cases rewritten from TensorFlow's own tests (map_fn_test.py, functional_ops_test.py,
control_flow_ops_py_test.py, tensor_array_ops_test.py).
"""
import collections

import numpy as np

PROGRAMS = {}
MATCH = {}
MODES = {}
PENDING = {}
INIT = "__init__"


def match_for(name, mode):
    """The part of TensorFlow's error message cfnb must repeat for program `name` in `mode`, or None."""
    match = MATCH.get(name)
    return match.get(mode) if isinstance(match, dict) else match


def program(build=None, match=None, modes=("v1", "v2"), pending=None):
    """Register `build` under its name; `match`: the part of TensorFlow's error message cfnb must repeat (or
    {mode: part} where the versions word it differently); `modes`:
    the control-flow versions whose TensorFlow answer is deterministic (see _cond_with_dependency); `pending`:
    {mode: why} where cfnb still differs for a reason another part of issue 9 fixes (a strict xfail, so the
    fix shows up as a failure to remove the entry)."""
    def register(fn):
        if fn.__name__ in PROGRAMS:
            raise ValueError(f"duplicate program {fn.__name__!r}")
        PROGRAMS[fn.__name__] = fn
        MODES[fn.__name__] = tuple(modes)
        PENDING[fn.__name__] = dict(pending or {})
        if match is not None:
            MATCH[fn.__name__] = match
        return fn
    return register(build) if build is not None else register


def _variable(tf, value):
    """A resource variable in either framework (cfnb's variables are always resource variables)."""
    if tf.__name__.startswith("tensorflow"):
        return tf.Variable(value, use_resource=True)
    return tf.Variable(value)


def _grads(tf, y, xs):
    return tf.gradients(tf.reduce_sum(y), xs)


# ---------------------------------------------------------------------------------------------------------------
# map_fn, scan, foldl, foldr over nested structures


@program
def map_tuple_elems(tf):
    r = tf.map_fn(lambda x: x[0] * x[1], (tf.constant([1, 2]), tf.constant([3, 4])), dtype=tf.int32)
    return {"r": r}, {}


@program(match="Elements in elems must be 1+ dimensional Tensors, not scalars")
def map_tuple_of_python_lists_is_refused(tf):
    # nest.flatten sees four Python scalars, as TensorFlow does
    return {"r": tf.map_fn(lambda x: x[0] * x[1], ([1, 2], [3, 4]), dtype=tf.int32)}, {}


@program(match="Elements in elems must be 1+ dimensional Tensors, not scalars")
def map_python_list_is_refused(tf):
    return {"r": tf.map_fn(lambda x: x * 2, [1, 2, 3])}, {}


@program(match="Elements in elems must be 1+ dimensional Tensors, not scalars")
def map_scalar_is_refused(tf):
    return {"r": tf.map_fn(lambda x: x * 2, tf.constant(3))}, {}


@program(match="which does not contain any Tensors")
def map_empty_list_is_refused(tf):
    return {"r": tf.map_fn(lambda x: x * 2, [])}, {}


@program(match="don't have the same nested structure")
def map_tuple_without_dtype_is_refused(tf):
    return {"r": tf.map_fn(lambda x: x[0] * x[1], (tf.constant([1, 2]), tf.constant([3, 4])))}, {}


@program(match="don't have the same nested structure")
def map_tuple_output_without_dtype_is_refused(tf):
    return {"r": tf.map_fn(lambda x: (x, -x), tf.constant([1, 2]))[0]}, {}


@program
def map_dict_elems(tf):
    elems = {"a": tf.constant([1., 2.]), "b": tf.constant([3., 5.])}
    return {"r": tf.map_fn(lambda d: d["a"] - d["b"], elems, dtype=tf.float32)}, {}


@program
def map_dtype_tuple(tf):
    a, b = tf.map_fn(lambda x: (x, -x), tf.constant([1, 2]), dtype=(tf.int32, tf.int32))
    return {"a": a, "b": b}, {}


@program
def map_mixed_dtypes(tf):
    a, b = tf.map_fn(lambda x: (x[0], x[1] * 2.), (tf.constant([1, 2]), tf.constant([3., 4.])),
                     dtype=(tf.int32, tf.float32))
    return {"a": a, "b": b}, {}


@program
def map_nested_dict_output(tf):
    r = tf.map_fn(lambda x: {"s": x[0] + x[1][0], "p": x[0] * x[1][1]},
                  (tf.constant([[1., 2.], [3., 4.]]), (tf.constant([10., 20.]), tf.constant([2., 3.]))),
                  dtype={"s": tf.float32, "p": tf.float32})
    return {"s": r["s"], "p": r["p"]}, {}


@program
def map_fn_output_signature(tf):
    return {"r": tf.map_fn(lambda x: tf.cast(x, tf.float32) / 2, tf.constant([1, 2]),
                           fn_output_signature=tf.float32)}, {}


@program
def map_unknown_shape(tf):
    return {"r": tf.map_fn(lambda x: x * 2, tf.placeholder_with_default([1, 2, 3], None))}, {}


@program(match="Dimensions 2 and 3 are not compatible")
def map_lengths_differ_is_refused(tf):
    return {"r": tf.map_fn(lambda x: x[0] + x[1], (tf.constant([1, 2]), tf.constant([1, 2, 3])),
                           dtype=tf.int32)}, {}


@program
def map_nested_gradients(tf):
    a = tf.placeholder(tf.float32, [3])
    b = tf.placeholder(tf.float32, [3])
    p, q = tf.map_fn(lambda x: (x[0] * x[1], x[0] * x[0]), (a, b), dtype=(tf.float32, tf.float32))
    da, db = _grads(tf, p * 2. + q, [a, b])
    return {"p": p, "q": q, "da": da, "db": db}, {a: [1., 2., 3.], b: [4., 5., 6.]}


@program
def scan_nested(tf):
    s, p = tf.scan(lambda a, x: (a[0] + x[0], a[1] * x[1]), (tf.constant([1, 2, 3]), tf.constant([2., 3., 4.])))
    return {"s": s, "p": p}, {}


@program
def scan_nested_initializer(tf):
    r = tf.scan(lambda a, x: {"s": a["s"] + x, "p": a["p"] * x}, tf.constant([1, 2, 3]),
                initializer={"s": tf.constant(0), "p": tf.constant(1)})
    return {"s": r["s"], "p": r["p"]}, {}


@program
def scan_fibonacci(tf):
    # functional_ops.scan's docstring example: a tuple accumulator over a plain tensor
    a, b = tf.scan(lambda a, _: (a[1], a[0] + a[1]), tf.constant([1, 0, 0, 0, 0, 0]),
                   initializer=(tf.constant(0), tf.constant(1)))
    return {"a": a, "b": b}, {}


@program
def scan_reverse(tf):
    return {"r": tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4]), reverse=True)}, {}


@program
def scan_reverse_initializer(tf):
    return {"r": tf.scan(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]), initializer=tf.constant(0),
                         reverse=True)}, {}


@program
def scan_without_shape_inference(tf):
    return {"r": tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3]), infer_shape=False)}, {}


@program(match="tuple index out of range")
def scan_scalar_is_refused(tf):
    return {"r": tf.scan(lambda a, x: a + x, tf.constant(3))}, {}


@program(match="list index out of range")
def scan_empty_list_is_refused(tf):
    return {"r": tf.scan(lambda a, x: a + x, [])}, {}


@program
def scan_nested_gradients(tf):
    a = tf.placeholder(tf.float32, [3])
    b = tf.placeholder(tf.float32, [3])
    s, p = tf.scan(lambda acc, x: (acc[0] + x[0] * x[1], acc[1] * x[0]), (a, b), reverse=True)
    da, db = _grads(tf, s + p, [a, b])
    return {"s": s, "p": p, "da": da, "db": db}, {a: [1., 2., 3.], b: [4., 5., 6.]}


@program
def foldl_nested(tf):
    r = tf.foldl(lambda a, x: a + x[0] * x[1], (tf.constant([1, 2, 3]), tf.constant([4, 5, 6])),
                 initializer=tf.constant(0))
    return {"r": r}, {}


@program
def foldl_nested_without_initializer(tf):
    a, b = tf.foldl(lambda a, x: (a[0] + x[0], a[1] - x[1]), (tf.constant([1, 2, 3]), tf.constant([4, 5, 6])))
    return {"a": a, "b": b}, {}


@program(match="tuple index out of range")
def foldl_python_list_is_refused(tf):
    return {"r": tf.foldl(lambda a, x: a + x, [1, 2, 3])}, {}


@program
def foldr_plain(tf):
    return {"r": tf.foldr(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]))}, {}


@program
def foldr_initializer(tf):
    return {"r": tf.foldr(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]), initializer=tf.constant(5))}, {}


@program
def foldr_nested(tf):
    a, b = tf.foldr(lambda a, x: (a[0] * 10 + x[0], a[1] + x[1]), (tf.constant([1, 2, 3]), tf.constant([1., 2., 3.])))
    return {"a": a, "b": b}, {}


@program
def fold_nested_gradients(tf):
    a = tf.placeholder(tf.float32, [3])
    b = tf.placeholder(tf.float32, [3])
    left = tf.foldl(lambda acc, x: acc * x[0] + x[1], (a, b), initializer=tf.constant(1.))
    right = tf.foldr(lambda acc, x: (acc[0] * x[0], acc[1] + acc[0] * x[1]), (a, b))
    da, db = _grads(tf, left + right[0] + right[1], [a, b])
    return {"left": left, "r0": right[0], "r1": right[1], "da": da, "db": db}, {a: [1., 2., 3.], b: [4., 5., 6.]}


Point = collections.namedtuple("Point", ("x", "y"))


@program
def map_namedtuple_elems_and_output(tf):
    r = tf.map_fn(lambda p: Point(p.x + p.y, p.x * p.y), Point(tf.constant([1., 2.]), tf.constant([3., 4.])))
    return {"x": r.x, "y": r.y}, {}


@program(match="don't have the same")
def scan_list_initializer_tuple_output_is_refused(tf):
    r = tf.scan(lambda a, x: (a[0] + x, a[1] * x), tf.constant([1, 2]), initializer=[tf.constant(0), tf.constant(1)])
    return {"a": r[0]}, {}


@program
def scan_dict_elems_reversed(tf):
    r = tf.scan(lambda a, x: a + x["u"] * x["v"], {"u": tf.constant([1, 2, 3]), "v": tf.constant([4, 5, 6])},
                initializer=tf.constant(0), reverse=True)
    return {"r": r}, {}


@program
def scan_and_map_over_unknown_length(tf):
    elems = tf.placeholder(tf.float32, [None, 2])
    s = tf.scan(lambda a, x: a + x, elems)
    m = tf.map_fn(lambda x: tf.reduce_sum(x), elems, infer_shape=False)
    f = tf.foldr(lambda a, x: a * 2. + x, elems)
    return {"s": s, "m": m, "f": f}, {elems: [[1., 2.], [3., 4.], [5., 6.]]}


@program
def map_without_back_prop_has_no_gradient(tf):
    x = tf.placeholder(tf.float32, [3])
    y = tf.map_fn(lambda v: v * v, x, back_prop=False)
    z = tf.map_fn(lambda v: v * v, x)
    dz = tf.gradients(tf.reduce_sum(y + z), x)[0]
    return {"y": y, "dz": dz}, {x: [1., 2., 3.]}


@program
def map_int_elems_to_float(tf):
    return {"r": tf.map_fn(lambda x: tf.cast(x, tf.float32) * 0.5, tf.constant([[1, 2], [3, 4]]),
                           dtype=tf.float32)}, {}


@program(match={"v1": "Tried to read from index 0 but array size is: 0",
                "v2": "Trying to access element 0 in a list with 0 elements"})
def foldl_over_nothing_without_initializer_fails(tf):
    return {"r": tf.foldl(lambda a, x: a + x, tf.placeholder_with_default(tf.zeros([0]), [None]))}, {}


@program
def foldl_over_nothing_with_initializer(tf):
    return {"r": tf.foldl(lambda a, x: a + x, tf.zeros([0, 2]), initializer=tf.ones([2]))}, {}


# ---------------------------------------------------------------------------------------------------------------
# case with no default and no true predicate


def _case(tf, x, n_pairs, exclusive):
    pairs = [(x < 0, lambda: tf.constant(1)), (x > 10, lambda: tf.constant(2))][:n_pairs]
    return tf.case(pairs, exclusive=exclusive)


@program(match="[Input error: None of conditions evaluated as True:] [0 0]")
def case_no_true_predicate(tf):
    return {"r": _case(tf, tf.placeholder_with_default(5, []), 2, False)}, {}


@program(match="None of conditions evaluated as True")
def case_no_true_predicate_exclusive(tf):
    return {"r": _case(tf, tf.placeholder_with_default(5, []), 2, True)}, {}


@program(match="[Input error: None of conditions evaluated as True:] [0]")
def case_one_false_pair(tf):
    return {"r": _case(tf, tf.placeholder_with_default(5, []), 1, False)}, {}


@program(match="None of conditions evaluated as True")
def case_one_false_pair_exclusive(tf):
    return {"r": _case(tf, tf.placeholder_with_default(5, []), 1, True)}, {}


@program
def case_last_predicate_true(tf):
    return {"r": _case(tf, tf.placeholder_with_default(15, []), 2, True)}, {}


@program(match="None of conditions evaluated as True")
def case_dict_no_true_predicate(tf):
    x = tf.placeholder_with_default(5, [])
    return {"r": tf.case({x < 0: lambda: tf.constant(1), x > 10: lambda: tf.constant(2)})}, {}


@program
def case_branch_returns_outer_tensor(tf):
    # TensorFlow's default action puts its Assert on the ops the branch creates: returning an outer tensor
    # creates none in v1, so nothing checks (15.0 comes back)
    x = tf.placeholder_with_default(5., [])
    y = x * 3.
    return {"r": tf.case([(x < 0, lambda: x), (x > 10, lambda: y)])}, {}


# ---------------------------------------------------------------------------------------------------------------
# control dependencies across control-flow boundaries


@program
def while_under_placeholder_dependency(tf):
    p = tf.placeholder(tf.float32, [])
    with tf.control_dependencies([p]):
        r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
    return {"r": r}, {p: 1.0}


@program(match="You must feed a value for placeholder tensor")
def while_under_unfed_placeholder_dependency(tf):
    p = tf.placeholder(tf.float32, [])
    with tf.control_dependencies([p]):
        r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
    return {"r": r}, {}


@program
def while_under_assign_dependency(tf):
    v = _variable(tf, 1.0)
    a = v.assign_add(1.0)
    with tf.control_dependencies([a]):
        r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
    with tf.control_dependencies([r]):
        read = v.read_value()
    return {"r": r, "v": read}, {INIT: v.initializer}


@program
def while_body_depends_on_outer_op(tf):
    # v1 drops a control input from an op without outputs (TensorFlow's WhileContext._AddOpInternal); v2 keeps it
    v = _variable(tf, 1.0)
    a = v.assign_add(1.0)

    def body(i, x):
        with tf.control_dependencies([a]):
            return i + 1, x + 1.0
    i, x = tf.while_loop(lambda i, x: i < 3, body, [tf.constant(0), tf.constant(0.)])
    with tf.control_dependencies([i, x]):
        read = v.read_value()
    return {"i": i, "x": x, "v": read}, {INIT: v.initializer}


@program
def while_body_depends_on_outer_tensor(tf):
    p = tf.placeholder(tf.float32, [])
    q = p * 2

    def body(i, x):
        with tf.control_dependencies([q]):
            return i + 1, x + 1.0
    i, x = tf.while_loop(lambda i, x: i < 3, body, [tf.constant(0), tf.constant(0.)])
    return {"i": i, "x": x}, {p: 1.0}


@program
def while_body_assigns(tf):
    v = _variable(tf, 0.0)

    def body(i):
        with tf.control_dependencies([v.assign_add(1.0)]):
            return i + 1
    r = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
    with tf.control_dependencies([r]):
        read = v.read_value()
    return {"r": r, "v": read}, {INIT: v.initializer}


@program
def while_in_while_under_dependency(tf):
    p = tf.placeholder(tf.float32, [])

    def body(i):
        with tf.control_dependencies([p]):
            j = tf.while_loop(lambda j: j < 2, lambda j: j + 1, [i])
        return j + 1
    return {"r": tf.while_loop(lambda i: i < 5, body, [tf.constant(0)])}, {p: 1.0}


@program
def cond_in_while_under_dependency(tf):
    p = tf.placeholder(tf.float32, [])

    def body(i):
        with tf.control_dependencies([p]):
            return tf.cond(i < 2, lambda: i + 10, lambda: i + 1)
    return {"r": tf.while_loop(lambda i: i < 20, body, [tf.constant(0)])}, {p: 1.0}


@program
def cond_branch_in_loop_depends_on_outer_ops(tf):
    # a branch inside a loop body depends on an op outside the loop: an assign (no outputs) and a tensor
    v = _variable(tf, 1.0)
    a = v.assign_add(1.0)
    p = tf.placeholder(tf.float32, [])
    q = p * 2.

    def body(i, x):
        def true_fn():
            with tf.control_dependencies([a, q]):
                return x + 1.
        return i + 1, tf.cond(i < 2, true_fn, lambda: x * 2.)
    i, x = tf.while_loop(lambda i, x: i < 4, body, [tf.constant(0), tf.constant(1.)])
    with tf.control_dependencies([i, x]):
        read = v.read_value()
    return {"i": i, "x": x, "v": read}, {INIT: v.initializer, p: 1.}


def _cond_with_dependency(tf, pred, where):
    """A cond whose true branch (or the whole cond) depends on `v.assign_add(1.0)`, then a read after the cond.

    With v1 and the untaken branch, TensorFlow orders nothing between the assign and the read (the Merge fires on
    the false branch alone), so its answer is a race: those programs are checked in v2 only, where the dependency
    becomes a control input of the If op (cond_v2) and the answer is 2.0.
    """
    v = _variable(tf, 1.0)
    a = v.assign_add(1.0)
    x = tf.constant(2.)
    pred = tf.placeholder_with_default(pred, [])
    if where == "outside":
        with tf.control_dependencies([a]):
            r = tf.cond(pred, lambda: tf.constant(5.), lambda: tf.constant(3.))
    else:
        def true_fn():
            with tf.control_dependencies([a]):
                return tf.constant(5.) if where == "branch_const" else x * 2
        r = tf.cond(pred, true_fn, lambda: x * 3)
    with tf.control_dependencies([r]):
        read = v.read_value()
    return {"r": r, "v": read}, {INIT: v.initializer}


@program
def cond_branch_dependency_taken(tf):
    return _cond_with_dependency(tf, True, "branch_const")


@program(modes=("v2",))
def cond_branch_dependency_not_taken(tf):
    return _cond_with_dependency(tf, False, "branch_const")


@program(modes=("v2",))
def cond_branch_dependency_of_computed_value_not_taken(tf):
    return _cond_with_dependency(tf, False, "branch_mul")


@program
def cond_under_dependency_false(tf):
    return _cond_with_dependency(tf, False, "outside")


@program
def cond_branch_returns_assignment(tf):
    # the value an assign returns is read after the assign, in a cond_v2 branch function too
    v = _variable(tf, 2.0)
    c = tf.cond(tf.placeholder_with_default(True, []), lambda: v.assign(v * 3.), lambda: v.read_value())
    return {"c": c}, {INIT: v.initializer}


# ---------------------------------------------------------------------------------------------------------------
# TensorArray elements never written


@program
def tensor_array_dynamic_unstack_write_gradient(tf):
    x = tf.placeholder(tf.float32, [3])
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack(x)
    s = ta.write(3, tf.constant(10.)).stack()
    (dx,) = _grads(tf, s * tf.constant([1., 2., 3., 4.]), [x])
    return {"s": s, "dx": dx}, {x: [1., 2., 3.]}


@program
def tensor_array_dynamic_write_past_the_end_gradient(tf):
    x = tf.placeholder(tf.float32, [3])
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack(x)
    s = ta.write(4, x[0] * 10.).stack()
    (dx,) = _grads(tf, s * tf.constant([1., 2., 3., 4., 5.]), [x])
    return {"s": s, "dx": dx}, {x: [1., 2., 3.]}


@program
def tensor_array_stack_unwritten_known_shape(tf):
    return {"r": tf.TensorArray(tf.float32, size=3, element_shape=[2]).write(1, [1., 2.]).stack()}, {}


@program
def tensor_array_stack_unwritten_inferred_shape(tf):
    return {"r": tf.TensorArray(tf.float32, size=3).write(1, [1., 2.]).stack()}, {}


@program
def tensor_array_stack_nothing_written_known_shape(tf):
    return {"r": tf.TensorArray(tf.float32, size=3, element_shape=[2]).stack()}, {}


@program
def tensor_array_read_unwritten(tf):
    ta = tf.TensorArray(tf.float32, size=3).write(1, [1., 2.])
    return {"r": ta.read(0), "s": tf.TensorArray(tf.float32, size=3, element_shape=[]).read(2)}, {}


@program
def tensor_array_gather_and_concat_unwritten(tf):
    def ta():
        return tf.TensorArray(tf.float32, size=3, element_shape=[2]).write(1, [1., 2.])
    return {"g": ta().gather([0, 1]), "c": ta().concat()}, {}


@program
def tensor_array_dynamic_gap(tf):
    return {"r": tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(2, 5.).stack()}, {}


@program(match="not fully defined")
def tensor_array_stack_unwritten_without_shape_inference(tf):
    # v1: no shape to make zeros of (infer_shape=False); v2's TensorList takes it from the written element
    return {"r": tf.TensorArray(tf.float32, size=3, infer_shape=False).write(1, [1., 2.]).stack()}, {}


@program(match="not fully defined")
def tensor_array_read_unwritten_unknown_shape_is_refused(tf):
    return {"r": tf.TensorArray(tf.float32, size=3).read(0)}, {}


@program
def tensor_array_read_unwritten_in_loop(tf):
    ta = tf.TensorArray(tf.float32, size=3, element_shape=[]).write(2, 7.)
    _, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + ta.read(i)), [0, 0.])
    return {"s": s}, {}


@program
def tensor_array_unwritten_stack_gradient(tf):
    x = tf.placeholder(tf.float32, [2])
    s = tf.TensorArray(tf.float32, size=3, element_shape=[2]).write(1, x).stack()
    (dx,) = _grads(tf, s * s, [x])
    return {"s": s, "dx": dx}, {x: [1., 2.]}


# ---------------------------------------------------------------------------------------------------------------
# static shapes from shapes computed out of constants (TensorFlow's constant_value / constant_value_as_shape)


@program
def reshape_to_concat_of_constants(tf):
    return {"r": tf.reshape(tf.range(60), tf.concat([[5], [3, 4]], 0))}, {}


@program
def reshape_to_stack_with_minus_one(tf):
    return {"r": tf.reshape(tf.range(60), tf.stack([tf.constant(5), -1, 4]))}, {}


@program
def reshape_to_shape_of(tf):
    return {"r": tf.reshape(tf.range(60), tf.shape(tf.placeholder_with_default(tf.zeros([5, 12]), [None, 12]))),
            "s": tf.reshape(tf.range(60), tf.stack([tf.shape(tf.zeros([5, 3]))[0], 12]))}, {}


@program
def reshape_infers_the_unknown_dimension(tf):
    return {"r": tf.reshape(tf.range(6), tf.stack([tf.placeholder_with_default(2, []), 3]))}, {}


@program(match="Cannot reshape a tensor with 60 elements to shape [15,20] (300 elements)")
def reshape_to_wrong_constant_shape_is_refused(tf):
    return {"r": tf.reshape(tf.range(60), tf.shape(tf.zeros([5, 3, 4]))[1:] * 5)}, {}


@program
def zeros_ones_fill_of_computed_shapes(tf):
    return {"zeros": tf.zeros(tf.concat([[5], [3, 4]], 0)),
            "slice": tf.zeros(tf.shape(tf.zeros([5, 3, 4]))[1:]),
            "index": tf.zeros(tf.stack([tf.shape(tf.zeros([5, 3]))[0], 2])),
            "ones": tf.ones(tf.shape(tf.zeros([5, 3])) * 2),
            "fill": tf.fill(tf.concat([[2], tf.shape(tf.zeros([3, 4]))], 0), 1.5),
            "cast": tf.fill(tf.cast(tf.constant([2., 3.]), tf.int32), 1),
            "range": tf.fill(tf.range(1, 4), 0),
            "partial": tf.zeros(tf.stack([tf.placeholder_with_default(2, []), 3]))}, {}


@program
def map_fn_over_nothing(tf):
    return {"v": tf.map_fn(lambda x: x * 2, tf.zeros([0])),
            "m": tf.map_fn(lambda x: x * 2, tf.placeholder_with_default(tf.zeros([0, 3]), [None, 3])),
            "sum": tf.map_fn(lambda x: tf.reduce_sum(x), tf.zeros([0, 3]))}, {}


@program
def scan_over_nothing(tf):
    return {"r": tf.scan(lambda a, x: a + x, tf.zeros([0, 3]), initializer=tf.zeros([3])),
            "t": tf.TensorArray(tf.float32, size=0, element_shape=[3]).stack()}, {}


# ---------------------------------------------------------------------------------------------------------------
# rewritten from TensorFlow's own tests


@program
def tf_map_fn_test_map_multi_input_same_structure(tf):
    # map_fn_test.testMap_MultiInputSameStructureOutput
    nums = np.array([1, 2, 3, 4, 5, 6])
    r = tf.map_fn(lambda x: (x[1], x[0]), (nums, (2 * nums, -nums)), dtype=((tf.int64, tf.int64), tf.int64))
    return {"r0a": r[0][0], "r0b": r[0][1], "r1": r[1]}, {}


@program
def tf_map_fn_test_map_tuple_output_gradient(tf):
    # map_fn_test.testMapShape-style: a tuple result and its gradient w.r.t. a captured parameter
    param = tf.placeholder(tf.float32, [])
    elems = tf.constant([1., 2., 3.])
    y, z = tf.map_fn(lambda x: (x * param, x + param), elems, dtype=(tf.float32, tf.float32))
    (dp,) = _grads(tf, y + z * z, [param])
    return {"y": y, "z": z, "dp": dp}, {param: 2.}


@program
def tf_functional_ops_test_scan_multi_input_multi_output(tf):
    # functional_ops_test.testScan_MultiInputMultiOutput
    elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    initializer = (np.array(1.0), np.array(-1.0))
    r = tf.scan(lambda a, x: (a[0] * x[0], -a[1] * x[1]), (elems, -elems), initializer)
    return {"r0": r[0], "r1": r[1]}, {}


@program
def tf_functional_ops_test_foldl_foldr_multi_input(tf):
    # functional_ops_test.testFoldl_MultiInputSingleOutput / testFoldr_MultiInputSingleOutput
    elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    initializer = np.array(1.0)
    left = tf.foldl(lambda a, x: a + x[0] * x[1], (elems, -elems), initializer)
    right = tf.foldr(lambda a, x: a + x[0] * x[1], (elems, -elems), initializer)
    return {"left": left, "right": right}, {}


@program
def tf_functional_ops_test_scan_gradient(tf):
    # functional_ops_test.testScanGradient: d/dv of scan(a * v + x)
    elems = tf.constant([1., 2., 3.])
    v = tf.placeholder(tf.float32, [])
    r = tf.scan(lambda a, x: a * v + x, elems, initializer=tf.constant(1.), reverse=True)
    (dv,) = _grads(tf, r, [v])
    return {"r": r, "dv": dv}, {v: 2.}


@program
def tf_tensor_array_test_write_read_unwritten_in_grad_loop(tf):
    # tensor_array_ops_test.testTensorArrayGradientWritePackConcatAndRead, reduced: half the array never written
    x = tf.placeholder(tf.float32, [2])
    ta = tf.TensorArray(tf.float32, size=4, element_shape=[2]).write(2, x * 3.).write(0, x)
    s = ta.stack()
    (dx,) = _grads(tf, s * tf.constant([[1.], [2.], [3.], [4.]]) + ta.read(1), [x])
    return {"s": s, "dx": dx}, {x: [1., 2.]}


@program(match="None of conditions evaluated as True")
def tf_control_flow_test_case_no_default_fails(tf):
    # control_flow_ops_py_test.CaseTest.testCase_withoutDefault_oneBranch-style: run with every predicate false
    x = tf.placeholder(tf.int32, [])
    r = tf.case([(tf.equal(x, 1), lambda: tf.constant(2)), (tf.equal(x, 2), lambda: tf.constant(4))],
                exclusive=True)
    return {"r": r}, {x: 3}


# control_flow_ops_py_test.py's control-dependency tests, rewritten


@program
def tf_control_flow_test_while_with_control_2(tf):
    # testWhileWithControl_2: a constant in the body under a control dependency on the loop variable
    def body(r):
        with tf.control_dependencies([r]):
            r = tf.constant(12)
        return [r]
    return {"r": tf.while_loop(lambda r: r < 2, body, [tf.constant(0)], parallel_iterations=1)}, {}


@program
def tf_control_flow_test_while_with_control_3_4(tf):
    # testWhileWithControl_3 and _4: a loop (whose body reads an outer tensor) built under a placeholder dependency
    b = tf.placeholder(tf.bool)
    c = tf.constant(1)
    with tf.control_dependencies([b]):
        r3 = tf.while_loop(lambda x: x < 10, lambda x: x + c, [tf.constant(0)])
        r4 = tf.while_loop(lambda x: x < 10, lambda x: x + tf.identity(c), [tf.constant(0)])
    return {"r3": r3, "r4": r4}, {b: True}


@program
def tf_control_flow_test_while_with_control_5(tf):
    # testWhileWithControl_5: the body's dependency on an outer placeholder
    b = tf.placeholder(tf.bool)
    c = tf.constant(1)

    def body(x):
        with tf.control_dependencies([b]):
            return x + c
    return {"r": tf.while_loop(lambda x: x < 10, body, [tf.constant(0)])}, {b: True}


@program
def tf_control_flow_test_while_cond_with_control(tf):
    # testWhileCondWithControl: conds in the loop's cond and body, the loop under a dependency on a no_op
    def cond(i):
        return tf.cond(i > 0, lambda: tf.constant(True), lambda: tf.constant(False))

    def body(i):
        return tf.cond(i > 0, lambda: i - 1, lambda: i)
    with tf.control_dependencies([tf.no_op()]):
        loop = tf.while_loop(cond, body, (tf.constant(5),))
    return {"r": loop}, {}


@program()
def tf_control_flow_test_while_cond_with_control_1(tf):
    # testWhileCondWithControl_1: a cond that assigns, as a control dependency of the body's result
    v = _variable(tf, 2.0)
    i0 = tf.constant(0)

    def body(i):
        some_cond = tf.cond(tf.constant(True), lambda: v.assign(v * v), lambda: v.read_value())
        with tf.control_dependencies([some_cond]):
            return i + 1
    with tf.control_dependencies([i0]):
        r = tf.while_loop(lambda i: i < 4, body, (i0,))
    with tf.control_dependencies([r]):
        read = v.read_value()
    return {"r": r, "v": read}, {INIT: v.initializer}


@program
def tf_control_flow_test_cond_with_control(tf):
    # testCondWithControl: a branch with a control dependency on a fed placeholder
    control_holder = tf.placeholder(tf.float32, shape=())
    a = tf.constant(3)

    def true_branch():
        with tf.control_dependencies([control_holder]):
            _ = a + 1
        return a + 2
    r = tf.cond(tf.constant(True), true_branch, lambda: tf.constant(1))
    return {"r": r}, {control_holder: 5.}


@program
def tf_tensor_array_test_gradient_dynamic_unpack_read(tf):
    # tensor_array_ops_test.testTensorArrayGradientDynamicUnpackRead: grad_ys reach the unstacked value
    value = tf.placeholder(tf.float32, [2, 2])
    w = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack(value)
    r0, r1 = w.read(0), w.read(1)
    (grad,) = tf.gradients(ys=[r0, r1], xs=[value], grad_ys=[tf.constant([2., -2.]), tf.constant([-3., 3.])])
    return {"r0": r0, "grad": grad}, {value: [[1., -1.], [10., -10.]]}


@program
def tf_tensor_array_test_gradient_split_concat(tf):
    # tensor_array_ops_test.testTensorArrayGradientSplitConcat
    value = tf.placeholder(tf.float32, [3, 2])
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(value, lengths=tf.constant([2, 1], tf.int64))
    c = ta.concat()
    (grad,) = tf.gradients(c, value, grad_ys=tf.constant([[2., -2.], [20., -20.], [200., -200.]]))
    return {"c": c, "grad": grad}, {value: [[1., -1.], [10., -10.], [100., -100.]]}


@program
def tf_map_fn_test_map_shape(tf):
    # map_fn_test.testMapShape and testMapUnknownShape: the static shapes map_fn leaves
    x = tf.constant([[1, 2, 3], [4, 5, 6]])
    y = tf.map_fn(lambda e: (e[0], e[1] * 2), (x, x), dtype=(tf.int32, tf.int32))
    p = tf.placeholder(tf.float32)
    u = tf.map_fn(lambda e: e, p)
    return {"y0": y[0], "y1": y[1], "u": u}, {p: [1., 2.]}


# ---------------------------------------------------------------------------------------------------------------
# Issue 18, part 4: what TensorFlow's own control-flow tests (tools/tf_suite.py) found, one program per fix


@program(match={"v1": "is in a while loop. See info log for more details.", "v2": "is not an element of this graph"},
         modes=("v1",))
def tf_suite_value_from_inside_a_loop_is_refused(tf):
    # control_flow_ops_py_test.ControlFlowContextCheckTest.testInvalidContext: TensorFlow's text, matched there
    def body(i):
        body.inner = tf.constant(1)
        return i + 1
    tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
    return {"r": body.inner + 1}, {}


@program(match="after one iteration. To allow the shape to vary across iterations, use the `shape_invariants` "
               "argument of tf.while_loop to specify a less-specific shape.")
def tf_suite_loop_shape_change_message(tf):
    # control_flow_ops_py_test.testWhileShapeInferenceBadShape matches this sentence up to its full stop
    r = tf.while_loop(lambda i, j: i < 2, lambda i, j: [i + 1, tf.concat([j, j], 0)], [tf.constant(0), tf.ones([2, 2])])
    return {"r": r[1]}, {}


@program
def tf_suite_body_shape_from_captured_constant(tf):
    # while_v2_test.testReshapeShape / testFillOpsShape*: a shape built from a constant the body captures is known
    shape = tf.constant([3, 4])

    def body(i, u):
        ext = tf.concat([[5], shape], axis=0)
        return i + 1, tf.reshape(tf.reshape(u, [-1]) + 1.0, ext) + tf.zeros(ext) + tf.fill(ext, 1.0)
    r = tf.while_loop(lambda i, _: i < 3, body, [0, tf.zeros([5, 3, 4])])
    return {"r": r[1]}, {}


@program
def tf_suite_get_variable_in_map_fn_body(tf):
    # map_fn_test.testMap_Scoped (and scan/foldl/foldr's): a variable made in the body lives outside the loop
    def double_scoped(x):
        with tf.variable_scope("body"):
            two = tf.get_variable("two", [], dtype=tf.int32, initializer=tf.constant_initializer(2))
            return x * two
    with tf.variable_scope("root", reuse=tf.AUTO_REUSE):
        r = tf.map_fn(double_scoped, tf.constant([1, 2, 3]))
        s = tf.scan(lambda a, x: a + double_scoped(x), tf.constant([1, 2, 3]))
    found = tf.constant([v.name == "root/body/two:0" for v in tf.trainable_variables()])  # one, named as outside
    return {"r": r, "s": s, "found": found}, {INIT: tf.global_variables_initializer()}


@program
def tf_suite_bfloat16(tf):
    # scan_ops_test's dtypes: tf.bfloat16 arithmetic, casts and a gradient
    x = tf.cast(tf.constant([1.5, -2.25, 3.0]), tf.bfloat16)
    y = x * x + x
    (g,) = tf.gradients(tf.reduce_sum(y), x)
    return {"y": y, "g": g, "f": tf.cast(y, tf.float32)}, {}


@program
def tf_suite_cumsum_cumprod(tf):
    # scan_ops_test: Cumsum and Cumprod with exclusive/reverse, and their gradients
    x = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    outs = {f"sum_{e}_{r}": tf.cumsum(x, 1, exclusive=e, reverse=r) for e in (False, True) for r in (False, True)}
    outs["prod"] = tf.cumprod(x, 0, exclusive=True)
    outs["g"] = tf.gradients(tf.reduce_sum(tf.cumprod(x, 1) * x), x)[0]
    return outs, {}


@program(match="Expected scan axis in the range [-2, 2)")
def tf_suite_cumsum_axis_out_of_range(tf):
    return {"r": tf.cumsum(tf.constant([[1., 2.], [3., 4.]]), 2)}, {}


@program
def tf_suite_tensor_array_split_int32_lengths(tf):
    # tensor_array_ops_test.testTensorArraySplitRead / testSplitShape: int32 lengths are cast; equal constant
    # lengths give the elements a static shape
    value = tf.constant([[1.0, -1.0], [2.0, -2.0], [3.0, -3.0]])
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=True).split(value, tf.constant([1, 1, 1]))
    tb = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(value, [1, 2])
    return {"r0": ta.read(0), "b1": tb.read(1)}, {}


@program(match={"v1": "Concat saw a scalar shape at index 0 but requires at least vectors",
                "v2": "Concat saw a scalar shape at index 0 but requires at least vectors"})
def tf_suite_tensor_array_concat_of_scalars(tf):
    ta = tf.TensorArray(tf.float32, size=3, infer_shape=False)
    return {"c": ta.write(0, 3.0).write(1, 4.0).write(2, [3.0]).concat()}, {}


@program(match={"v1": "TensorArray has inconsistent shapes", "v2": "Incompatible ranks"})
def tf_suite_tensor_array_concat_of_ranks_that_differ(tf):
    ta = tf.TensorArray(tf.float32, size=3, infer_shape=False)
    return {"c": ta.write(0, [3.0]).write(1, [4.0]).write(2, [[3.0]]).concat()}, {}


@program(match={"v1": "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 1 and value's "
                      "shape is: [3]", "v2": "Unused values in tensor. Length of tensor: 3 Values used: 1"})
def tf_suite_tensor_array_split_lengths_short(tf):
    return {"f": tf.TensorArray(tf.float32, size=3).split([1.0, 2.0, 3.0], [1]).flow}, {}


@program(match="Expected lengths to be a vector, received shape: []")
def tf_suite_tensor_array_split_scalar_lengths(tf):
    lengths = tf.placeholder(tf.int64)
    return {"f": tf.TensorArray(tf.float32, size=3).split([1.0, 2.0, 3.0], lengths).flow}, {lengths: 1}


@program
def tf_suite_tensor_array_of_strings(tf):
    # tensor_array_ops_test's string converter: numpy bytes written into a tf.string TensorArray
    ta = tf.TensorArray(tf.string, size=3).unstack(np.array([b"a", b"bc", b"def"]))
    return {"same": tf.equal(ta.stack(), tf.constant([b"a", b"bc", b"deg"]))}, {}


@program
def tf_suite_switch_merge_indexed_slices(tf):
    # control_flow_ops_py_test.testSwitchMergeIndexedSlices and with_dependencies: component by component
    if tf.__name__.startswith("tensorflow"):
        from tensorflow.python.ops import control_flow_ops as cfo
    else:
        from cfnb.ops import control_flow_ops as cfo
    data = tf.IndexedSlices(tf.constant([1, 2, 3]), tf.constant([0, 2, 4]), tf.constant([6]))
    merged = cfo.merge(cfo.switch(data, tf.constant(True)))[0]
    gated = cfo.with_dependencies([tf.no_op()], merged)
    return {"values": gated.values, "indices": gated.indices, "dense_shape": gated.dense_shape}, {}
