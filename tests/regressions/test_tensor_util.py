"""tensor_util.constant_value / constant_value_as_shape: the values shape functions may read at build time."""
import numpy as np
import pytest

import cfnb as tf
from cfnb.framework.tensor_util import constant_value, constant_value_as_shape


def test_constant_value_evaluates_constant_subgraphs_only():
    x = tf.placeholder(tf.int32, [None, 3])
    assert constant_value(tf.shape(x)) is None                       # a dimension is unknown
    assert constant_value(tf.shape(x)[1:] * 2) is None
    assert constant_value(tf.placeholder_with_default(3, [])) is None  # may be fed
    np.testing.assert_array_equal(constant_value(tf.shape(tf.zeros([5, 3]))[1:] * 5), [15])
    np.testing.assert_array_equal(constant_value(tf.cast(tf.constant([2., 3.]), tf.int32) + 1), [3, 4])


def test_constant_value_as_shape_keeps_what_is_known():
    x = tf.placeholder(tf.int32, [None, 3, 4])
    assert constant_value_as_shape(tf.shape(x)).as_list() == [None, 3, 4]
    assert constant_value_as_shape(tf.shape(x)[1:]).as_list() == [3, 4]
    assert constant_value_as_shape(tf.stack([tf.placeholder(tf.int32, []), 7])).as_list() == [None, 7]
    assert constant_value_as_shape(tf.concat([[2], tf.shape(x)], 0)).as_list() == [2, None, 3, 4]
    assert constant_value_as_shape(tf.constant([-1, 2])).as_list() == [None, 2]
    assert constant_value_as_shape(tf.placeholder(tf.int32, [None])).ndims is None


def test_shared_subgraphs_are_evaluated_once_and_large_values_never():
    c = tf.constant(1)
    for _ in range(40):  # 2**40 paths: only a memoized walk gets through
        c = c + c - c
    np.testing.assert_array_equal(constant_value(tf.stack([c, 2])), [1, 2])
    big = tf.fill(tf.constant([2000, 2000]), 1.0)
    assert constant_value(tf.reduce_sum(big)) is None


def test_check_value_fits_follows_tensorflows_table_for_strings_and_handles():
    """TensorFlow's `_AssertCompatible`: a string dtype takes str and bytes only; dtypes with no Python values
    (resource, variant handles) have no rule, so nothing is refused there."""
    from cfnb.framework.tensor_util import check_value_fits
    assert tf.constant(["ab", b"c"], dtype=tf.string).dtype == tf.string
    with pytest.raises(TypeError, match="Expected string, but got 3 of type 'int'."):
        tf.constant(3, dtype=tf.string)
    assert check_value_fits(object(), tf.variant) is None
    with pytest.raises(TypeError, match="Expected int32, but got ab of type 'str'."):
        check_value_fits("ab", tf.int32)
