"""Conversion programs: lists holding tensors, and Variables (see conversion_programs.py)."""
import numpy as np

from .conversion_registry import INIT, program


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
