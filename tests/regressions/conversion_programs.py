"""Programs for how values become tensors, and for the default session, written once for `tensorflow.compat.v1`
and cfnb.

A program is `def name(tf): ... return fetches`, `fetches` a dict of Tensors and plain Python values (a key
`INIT` names an op run first, a variables' initializer). `record_conversion.py` runs each under TensorFlow 2.21
and stores in conversion_tf.json the values and dtypes it fetched, or the error it raised (its type, whether it
came while building or while running, and its message); `test_conversion.py` runs them under cfnb and compares.
An error must have TensorFlow's type and phase, and its message must contain the part the program names with
`@program(match=...)` (the rest names objects by address), or else equal TensorFlow's whole message.

Grouped as the review listed them: a number is no string (and text no number); a list holding tensors converts
by packing, cast to a requested dtype (TensorFlow's `_autopacking_conversion_function`); a Variable converts
only to its own dtype; the conversion registry's rules (`tensor_conversion_registry.convert`); the default
session stack, `Tensor.eval` and `Operation.run`.
"""
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


# --- a number is no string, and text no number (TensorFlow's _AssertCompatible, make_tensor_proto) ------------
@program
def where_v2_string_and_int(tf):
    return {"out": tf.where_v2(tf.constant([True, False]), tf.constant(["a", "b"]), 3)}


@program
def where_v2_string_and_string(tf):
    return {"out": tf.where_v2(tf.constant([True, False]), tf.constant(["a", "b"]), "c")}


@program
def convert_float_to_string(tf):
    return {"out": tf.convert_to_tensor(3.5, dtype=tf.string)}


@program
def constant_int_as_string(tf):
    return {"out": tf.constant(3, dtype=tf.string)}


@program
def constant_bool_as_string(tf):
    return {"out": tf.constant(True, dtype=tf.string)}


@program
def constant_complex_as_string(tf):
    return {"out": tf.constant(1j, dtype=tf.string)}


@program
def constant_list_with_int_as_string(tf):
    return {"out": tf.constant(["a", 3], dtype=tf.string)}


@program
def constant_list_with_none_as_string(tf):
    return {"out": tf.constant(["a", None], dtype=tf.string)}


@program
def constant_numpy_ints_as_string(tf):
    return {"out": tf.constant(np.array([1, 2]), dtype=tf.string)}


@program
def constant_numpy_scalar_as_string(tf):
    return {"out": tf.constant(np.int32(1), dtype=tf.string)}


@program
def constant_numpy_array_in_list_as_string(tf):
    return {"out": tf.constant([np.array([1, 2])], dtype=tf.string)}


@program
def constant_numpy_text_as_string(tf):
    return {"a": tf.constant(np.str_("a"), dtype=tf.string), "b": tf.constant([np.bytes_(b"b")], dtype=tf.string)}


@program
def constant_str_and_bytes(tf):
    return {"out": tf.constant(["a", b"b"]), "bytes": tf.constant(b"x")}


@program
def constant_mixes_text_and_number(tf):
    return {"out": tf.constant(["a", 3])}


@program
def constant_nested_text_and_number(tf):
    return {"out": tf.constant([["a"], [3]])}


@program
def constant_text_and_none(tf):
    return {"out": tf.constant(["a", None])}


@program
def constant_number_and_none(tf):
    return {"out": tf.constant([1, None])}


@program
def string_plus_int(tf):
    return {"out": tf.constant("a") + 3}


@program
def int_plus_string(tf):
    return {"out": 3 + tf.constant("a")}


@program
def tensor_int_plus_string(tf):
    return {"out": tf.constant(1) + "a"}


@program
def string_plus_string(tf):
    return {"out": tf.constant("a") + "b"}


@program
def int_with_string_hint_keeps_int32(tf):
    return {"scalar": tf.convert_to_tensor(3, dtype_hint=tf.string),
            "list": tf.convert_to_tensor([2, 3], dtype_hint=tf.string)}


@program
def text_with_int_hint_stays_string(tf):
    return {"out": tf.convert_to_tensor("a", dtype_hint=tf.int32)}


@program
def text_as_int32(tf):
    return {"out": tf.constant("a", dtype=tf.int32)}


@program
def digits_as_int32(tf):
    return {"out": tf.constant("3", dtype=tf.int32)}


@program
def bytes_as_int32(tf):
    return {"out": tf.convert_to_tensor(b"x", dtype=tf.int32)}


@program
def text_as_float32(tf):
    return {"out": tf.constant("a", dtype=tf.float32)}


@program
def text_as_bool(tf):
    return {"out": tf.constant("a", dtype=tf.bool)}


@program
def text_as_complex64(tf):
    return {"out": tf.constant("a", dtype=tf.complex64)}


@program
def text_as_uint8(tf):
    return {"out": tf.constant("a", dtype=tf.uint8)}


@program
def numpy_text_as_int32_is_parsed(tf):
    return {"out": tf.constant(np.array(["1", "2"]), dtype=tf.int32)}


@program
def numpy_bool_in_list_as_bool(tf):
    return {"out": tf.constant([np.True_], dtype=tf.bool)}


@program
def int_in_list_as_bool(tf):
    return {"out": tf.constant([1], dtype=tf.bool)}


@program
def bool_and_numbers_as_numbers(tf):
    return {"int": tf.constant([True], dtype=tf.int32), "float": tf.constant([True], dtype=tf.float32),
            "complex": tf.constant([True, 1.5], dtype=tf.complex64)}


@program
def complex_as_float32(tf):
    return {"out": tf.constant([1j], dtype=tf.float32)}


@program
def numpy_float_in_list_as_int32(tf):
    return {"out": tf.constant([np.float32(1)], dtype=tf.int32)}


@program
def numpy_array_in_list_as_int32(tf):
    return {"out": tf.constant([np.array([1.5])], dtype=tf.int32)}


@program
def zeros_of_string(tf):
    return {"out": tf.zeros([2], dtype=tf.string)}


# --- auto-packing: a list holding tensors (TensorFlow's _autopacking_conversion_function) -----------------------
@program
def packed_list_cast_to_hint(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1), 2], dtype_hint=tf.float32)}


@program
def packed_list_cast_to_dtype(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1)], dtype=tf.float32)}


@program
def packed_tuple_cast_to_dtype(tf):
    return {"out": tf.convert_to_tensor((tf.constant(1), 2), dtype=tf.float32)}


@program
def float_plus_packed_int(tf):
    return {"out": tf.constant(1.5) + [tf.constant(2)]}


@program
def add_int_and_packed_float(tf):
    return {"out": tf.add(tf.constant(2), [tf.constant(1.5)])}


@program
def tensor_array_write_packs_and_casts(tf):
    i = tf.constant(1)
    return {"out": tf.TensorArray(tf.float32, 1).write(0, [i, i]).stack()}


@program
def nested_packed_list_cast_to_hint(tf):
    return {"out": tf.convert_to_tensor([[tf.constant(1.5)], [2]], dtype_hint=tf.int32)}


@program
def packed_mixed_dtypes_without_request(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1), tf.constant(1.5)])}


@program
def packed_mixed_dtypes_cast_to_float32(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1), tf.constant(1.5)], dtype=tf.float32)}


@program
def packed_mixed_dtypes_first_dtype_requested(tf):
    # int32 is the first tensor's dtype, so nothing is cast and the float32 tensor is refused
    return {"out": tf.convert_to_tensor([tf.constant(1), tf.constant(1.5)], dtype=tf.int32)}


@program
def packed_mixed_dtypes_first_dtype_hinted(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1), tf.constant(1.5)], dtype_hint=tf.int32)}


@program
def packed_mixed_dtypes_other_dtype_hinted(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1), tf.constant(1.5)], dtype_hint=tf.float32)}


@program
def nested_packed_first_dtype_requested(tf):
    return {"out": tf.convert_to_tensor([[tf.constant(1.5)], [tf.constant(1)]], dtype=tf.float32)}


@program
def nested_packed_mixed_without_request(tf):
    return {"out": tf.convert_to_tensor([[tf.constant(1)], [tf.constant(1.5)]])}


@program
def nested_packed_with_number_cast(tf):
    return {"out": tf.convert_to_tensor([[tf.constant(1), 2.5]], dtype=tf.float32)}


@program
def packed_float_number_with_int_tensor(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1), 2.5])}


@program
def packed_float_number_with_int_tensor_hinted(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1), 2.5], dtype_hint=tf.float32)}


@program
def packed_nested_float_number_with_int_tensor(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1), [2.5]])}


@program
def packed_numpy_value_cast(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1), np.float64(2.5)], dtype=tf.float64)}


@program
def packed_int_as_bool(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1), 0], dtype=tf.bool)}


@program(match="Cast int32 to string is not supported")
def packed_int_cast_to_string_fails_at_run(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1)], dtype=tf.string)}


@program(match="Cast int32 to string is not supported")
def packed_int_hinted_string_fails_at_run(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1)], dtype_hint=tf.string)}


@program(match="Cast string to int32 is not supported")
def packed_string_cast_to_int_fails_at_run(tf):
    return {"out": tf.convert_to_tensor([tf.constant("a")], dtype=tf.int32)}


@program
def reduce_sum_of_mixed_list(tf):
    return {"out": tf.reduce_sum([tf.constant(1), tf.constant(1.5)])}


@program
def packed_variable_cast(tf):
    v = tf.Variable(1.5)
    return {"out": tf.convert_to_tensor([v], dtype=tf.int32), INIT: tf.global_variables_initializer()}


@program
def packed_variable_and_tensor(tf):
    v = tf.Variable(1)
    return {"out": tf.convert_to_tensor([v, tf.constant(2)]), INIT: tf.global_variables_initializer()}


# --- a Variable converts to its own dtype only (ResourceVariable._dense_var_to_tensor) ---------------------------
@program
def variable_to_other_dtype(tf):
    return {"out": tf.convert_to_tensor(tf.Variable(1.5), dtype=tf.int32)}


@program
def variable_with_other_hint_keeps_its_dtype(tf):
    v = tf.Variable(1.5)
    return {"out": tf.convert_to_tensor(v, dtype_hint=tf.int32), INIT: tf.global_variables_initializer()}


@program
def int_plus_float_variable(tf):
    return {"out": tf.constant(1) + tf.Variable(1.5)}


@program
def add_int_and_float_variable(tf):
    return {"out": tf.add(tf.constant(1), tf.Variable(1.5))}


# --- the registry (tensor_conversion_registry.convert) -----------------------------------------------------------
@program(match="'nope' to a")
def invalid_hint_for_number(tf):
    return {"out": tf.convert_to_tensor(3, dtype_hint="nope")}


@program(match="'nope' to a")
def invalid_hint_for_tensor(tf):
    return {"out": tf.convert_to_tensor(tf.constant(1), dtype_hint="nope")}


@program(match="'nope' to a")
def invalid_hint_for_list(tf):
    return {"out": tf.convert_to_tensor([tf.constant(1)], dtype_hint="nope")}


@program
def tensor_with_other_dtype(tf):
    return {"out": tf.convert_to_tensor(tf.constant(1.5), dtype=tf.int32)}


@program
def tensor_with_other_hint(tf):
    return {"out": tf.convert_to_tensor(tf.constant(1.5), dtype_hint=tf.int32)}


def _register_wrong_dtype(tf):
    """A class whose conversion function ignores the dtype asked for (a broken contract)."""
    class WrongDtype:
        pass

    def convert(value, dtype=None, name=None, as_ref=False):
        return tf.constant(1.5)
    tf.register_tensor_conversion_function(WrongDtype, convert)
    return WrongDtype()


@program(match="returned incompatible dtype: requested = int32, actual = float32")
def conversion_function_ignores_dtype(tf):
    return {"out": tf.convert_to_tensor(_register_wrong_dtype(tf), dtype=tf.int32)}


@program(match="returned incompatible dtype: requested = int32, actual = float32")
def conversion_function_ignores_hint(tf):
    return {"out": tf.convert_to_tensor(_register_wrong_dtype(tf), dtype_hint=tf.int32)}


@program(match="w: Conversion function")
def conversion_error_names_the_conversion(tf):
    return {"out": tf.convert_to_tensor(_register_wrong_dtype(tf), dtype=tf.int32, name="w")}


@program
def conversion_function_declining_hint_moves_on(tf):
    class Declines:
        pass

    def first(value, dtype=None, name=None, as_ref=False):
        return NotImplemented if dtype is not None else tf.constant(1)

    def second(value, dtype=None, name=None, as_ref=False):
        return tf.constant(7, dtype=dtype or tf.int64)
    tf.register_tensor_conversion_function(Declines, first, 100)
    tf.register_tensor_conversion_function(Declines, second, 150)
    return {"hinted": tf.convert_to_tensor(Declines(), dtype_hint=tf.int32),
            "plain": tf.convert_to_tensor(Declines())}


# --- the default session, Tensor.eval and Operation.run (ops._default_session_stack, session.py) ----------------
@program
def default_session_nesting(tf):
    s1, s2 = tf.Session(), tf.Session()
    with s1.as_default():
        with s2.as_default():
            with s1.as_default():
                pass
            inner = tf.get_default_session()
        outer = tf.get_default_session()
    return {"inner_is_s2": inner is s2, "outer_is_s1": outer is s1, "none_after": tf.get_default_session() is None}


@program(match="Nesting violated for default stack of")
def default_session_nesting_violated(tf):
    s1, s2 = tf.Session(), tf.Session()
    first, second = s1.as_default(), s2.as_default()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)


@program
def operation_run_without_default_session(tf):
    tf.no_op().run()


@program
def tensor_eval_without_default_session(tf):
    tf.constant(1).eval()


@program
def tensor_eval_in_default_session_of_other_graph(tf):
    c = tf.constant(1)
    with tf.Graph().as_default():
        sess = tf.Session()
    with sess.as_default():
        c.eval()


@program
def operation_run_in_default_session_of_other_graph(tf):
    op = tf.no_op()
    with tf.Graph().as_default():
        sess = tf.Session()
    with sess.as_default():
        op.run()


@program
def tensor_eval_in_given_session_of_other_graph(tf):
    c = tf.constant(1)
    with tf.Graph().as_default():
        sess = tf.Session()
    c.eval(session=sess)


@program
def operation_run_in_given_session_of_other_graph(tf):
    op = tf.no_op()
    with tf.Graph().as_default():
        sess = tf.Session()
    op.run(session=sess)


@program
def eval_and_run_in_default_session(tf):
    v = tf.Variable(2)
    with tf.Session() as sess:
        v.initializer.run()
        value = (v + 1).eval()
        default = tf.get_default_session() is sess
    return {"value": value.item(), "default": default}


@program
def session_context_not_reentrant(tf):
    sess = tf.Session()
    with sess:
        with sess:
            pass


@program
def session_as_default_is_reentrant(tf):
    sess = tf.Session()
    with sess.as_default():
        with sess.as_default():
            pass
        with sess:
            inner = tf.get_default_session() is sess
        after = tf.get_default_session() is sess
    return {"inner": inner, "after": after, "none_after": tf.get_default_session() is None}


# --- an op's later input of a shared type is converted *to* that type (op_def_library._apply_op_helper) -----------
@program
def op_input_python_value_of_other_type(tf):
    return {"out": tf.maximum(tf.constant(1), 2.5)}


@program
def op_input_numpy_value_is_cast(tf):
    return {"out": tf.maximum(tf.constant(1), np.float64(2.5))}


@program
def op_input_tensor_of_other_type(tf):
    return {"out": tf.maximum(tf.constant(1), tf.constant(2.5))}


@program
def hint_and_preferred_dtype_together(tf):
    return {"out": tf.convert_to_tensor(1, dtype_hint=tf.int32, preferred_dtype=tf.int32)}
