"""tf.bitwise, tf.saturate_cast, tf.broadcast_static_shape / broadcast_dynamic_shape, clip_by_value dtypes.
Golden values recorded from TF 2.21."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engine as tf
from engine.framework.errors import InvalidArgumentError


def test_shifts_clamp_the_amount_like_tf():
    np.testing.assert_array_equal(
        tf.bitwise.left_shift(tf.constant([1, 2, -3]), tf.constant([1, 31, 40])).numpy(), [2, 0, -2147483648])
    np.testing.assert_array_equal(
        tf.bitwise.right_shift(tf.constant([-8, 8, 8]), tf.constant([1, 40, -1])).numpy(), [-4, 0, 8])
    out = tf.bitwise.left_shift(tf.constant([1, 2], tf.uint8), tf.constant([7, 9], tf.uint8))
    assert out.dtype == tf.uint8 and out.numpy().tolist() == [128, 0]
    assert tf.bitwise.right_shift(tf.constant([255], tf.uint8), tf.constant([9], tf.uint8)).numpy().tolist() == [1]


def test_bitwise_namespace():
    assert tf.bitwise.invert(tf.constant([0, 5], tf.uint8)).numpy().tolist() == [255, 250]
    assert int(tf.bitwise.bitwise_and(5, 3)) == 1
    assert tf.bitwise.bitwise_or(tf.constant([4]), 1).numpy().tolist() == [5]
    assert tf.bitwise.bitwise_xor(tf.constant([6]), 3).numpy().tolist() == [5]


def test_bitwise_errors():
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of float32.*LeftShift"):
        tf.bitwise.left_shift(tf.constant([1.]), tf.constant([1.]))
    with pytest.raises(InvalidArgumentError, match="input #1.*BitwiseAnd"):
        tf.bitwise.bitwise_and(tf.constant([1], tf.int32), tf.constant([1], tf.int64))
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of bool.*BitwiseAnd"):
        tf.bitwise.bitwise_and(tf.constant([True]), tf.constant([True]))


def test_saturate_cast_matches_tf():
    out = tf.saturate_cast(tf.constant([-1., 300., 1.7, np.nan, np.inf]), tf.uint8)
    assert out.dtype == tf.uint8 and out.numpy().tolist() == [0, 255, 1, 0, 255]
    assert tf.saturate_cast(tf.constant([-200, 300]), tf.int8).numpy().tolist() == [-128, 127]
    assert tf.saturate_cast(tf.constant([1e40, -1e40], tf.float64), tf.float32).numpy().tolist() == [
        float(np.finfo(np.float32).max), float(np.finfo(np.float32).min)]
    assert tf.saturate_cast(tf.constant([3e9]), tf.int32).numpy().tolist() == [2147483520]
    assert tf.saturate_cast(tf.constant([-5, 5]), tf.uint32).numpy().tolist() == [0, 5]
    assert tf.saturate_cast(tf.constant([70000.]), tf.float16).numpy().tolist() == [65504.0]
    assert tf.saturate_cast(tf.constant([4e9], tf.float64), tf.uint32).numpy().tolist() == [4000000000]
    assert tf.saturate_cast(tf.constant([1.5, -2.0]), tf.complex64).numpy().tolist() == [1.5 + 0j, -2 + 0j]
    with pytest.raises(TypeError, match="Cannot find minimum value of"):
        tf.saturate_cast(tf.constant([True]), tf.int32)
    with pytest.raises(TypeError, match="Cannot find minimum value of"):
        tf.saturate_cast(tf.constant([1.0]), tf.bool)


def test_broadcast_static_shape():
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])).as_list() == [2, 3]
    assert tf.broadcast_static_shape(tf.TensorShape([2, None]), tf.TensorShape([None, 3])).as_list() == [2, 3]
    assert tf.broadcast_static_shape(tf.TensorShape(None), tf.TensorShape([3])).rank is None
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting.*\(2,\) and \(3,\)"):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))
    with pytest.raises(AttributeError, match="ndims"):
        tf.broadcast_static_shape([2, 1], [3])


def test_broadcast_dynamic_shape():
    out = tf.broadcast_dynamic_shape([2, 1], [3])
    assert out.dtype == tf.int32 and out.numpy().tolist() == [2, 3]
    out = tf.broadcast_dynamic_shape(tf.constant([2, 1], tf.int64), tf.constant([3], tf.int64))
    assert out.dtype == tf.int64 and out.numpy().tolist() == [2, 3]
    with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\].*BroadcastArgs"):
        tf.broadcast_dynamic_shape([2], [3])
    with pytest.raises(InvalidArgumentError, match="input #1.*BroadcastArgs"):
        tf.broadcast_dynamic_shape(tf.constant([2]), tf.constant([3], tf.int64))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 3), max_size=4), st.lists(st.integers(1, 3), max_size=4))
def test_broadcast_shapes_agree_with_numpy(a, b):
    try:
        expected = list(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        with pytest.raises(ValueError):
            tf.broadcast_static_shape(tf.TensorShape(a), tf.TensorShape(b))
        with pytest.raises(InvalidArgumentError):
            tf.broadcast_dynamic_shape(a, b)
        return
    assert tf.broadcast_static_shape(tf.TensorShape(a), tf.TensorShape(b)).as_list() == expected
    assert tf.broadcast_dynamic_shape(a, b).numpy().tolist() == expected


def test_truncate_and_floor_ops_exported():
    assert tf.math.truncatediv(tf.constant([-7]), 2).numpy().tolist() == [-3]
    assert tf.math.truncatemod(tf.constant([-7]), 2).numpy().tolist() == [-1]
    assert tf.math.floormod(tf.constant([-7]), 2).numpy().tolist() == [1]


def test_clip_by_value_dtypes_match_tf():
    assert tf.clip_by_value(tf.constant([1, 5]), 2, 3).numpy().tolist() == [2, 3]
    with pytest.raises(InvalidArgumentError, match="Maximum"):
        tf.clip_by_value(tf.constant([1., 5.]), tf.constant(2), 3.)
    with pytest.raises(TypeError, match="Cannot convert 2.5 to EagerTensor of dtype int32"):
        tf.clip_by_value(tf.constant([1, 5]), 2.5, 3)
    with pytest.raises(InvalidArgumentError, match="Minimum"):
        tf.clip_by_value(tf.constant([True]), False, True)
