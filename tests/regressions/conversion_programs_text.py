"""Conversion programs: a number is no string, and text no number (see conversion_programs.py)."""
import numpy as np

from .conversion_registry import program


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


# --- dtypes that do not match, and names that are no dtype ------------------------------------------------------
@program
def stack_of_mixed_dtypes(tf):
    return {"out": tf.stack([tf.constant(1), tf.constant(1.5)])}


@program
def concat_of_mixed_dtypes(tf):
    return {"out": tf.concat([tf.constant([1]), tf.constant([1.5])], 0)}


@program
def constant_with_a_dtype_name_that_is_none(tf):
    return {"out": tf.constant(1, dtype="nope")}


@program
def placeholder_with_a_dtype_name_that_is_none(tf):
    return {"out": tf.placeholder("nope")}
