"""Conversion programs: the registry's rules, and op inputs sharing a type (see conversion_programs.py)."""
import numpy as np

from .conversion_registry import program


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
