"""Segment reductions (sorted and unsorted), bincount, dynamic_partition, dynamic_stitch.

Expected values and messages marked "TF" were recorded from TensorFlow 2.21 (CPU).
"""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import engine as tf
from gradcheck import check_gradients, check_second_order

IAE = tf.errors.InvalidArgumentError
D = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, -8.0]]
F32_MAX = 3.4028234663852886e38
rng = np.random.default_rng(11)
X = rng.permutation(10).reshape(5, 2) * 0.5 - 2.0     # no ties: max/min gradients are unambiguous
XNZ = X + 0.25                                        # and no zeros (prod's second derivative: where-NaN)


def raises(cls, *fragments):
    return pytest.raises(cls, match="(?s)" + ".*".join(re.escape(f) for f in fragments))


# --------------------------------------------------------------------------------------
# Unsorted segment reductions
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, expected", [  # TF values; id -1 drops row 3
    ("sum", [[6.0, 8.0], [0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]),
    ("max", [[5.0, 6.0], [-F32_MAX, -F32_MAX], [3.0, 4.0], [-F32_MAX, -F32_MAX]]),
    ("min", [[1.0, 2.0], [F32_MAX, F32_MAX], [3.0, 4.0], [F32_MAX, F32_MAX]]),
    ("prod", [[5.0, 12.0], [1.0, 1.0], [3.0, 4.0], [1.0, 1.0]]),
    ("mean", [[3.0, 4.0], [0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]),
    ("sqrt_n", [[4.242640972137451, 5.656854152679443], [0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]),
])
def test_unsorted_segment_values(name, expected):
    out = getattr(tf.math, "unsorted_segment_" + name)(tf.constant(D), [0, 2, 0, -1], 4)
    assert out.dtype == tf.float32 and out.shape == (4, 2)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_unsorted_segment_dtypes_and_multidimensional_ids():  # TF values
    m = tf.math.unsorted_segment_max(tf.constant([1, 2, 3]), [0, 0, 2], 3)
    assert m.numpy().tolist() == [2, -2147483648, 3] and m.dtype == tf.int32
    s = tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [2, 3, 2]), [[0, 1, 0], [1, 1, 2]], 3)
    assert s.numpy().tolist() == [[4.0, 6.0], [16.0, 19.0], [10.0, 11.0]]
    ids64 = tf.math.unsorted_segment_sum(tf.constant(D), tf.constant([0, 1, 1, 1], tf.int64), tf.constant(2, tf.int64))
    assert ids64.numpy().tolist() == [[1.0, 2.0], [15.0, 2.0]]
    mean = tf.math.unsorted_segment_mean(tf.constant([1, 2, 3]), [0, 0, 2], 3)
    assert mean.dtype == tf.float64 and mean.numpy().tolist() == [1.5, 0.0, 3.0]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.data())
def test_unsorted_segment_sum_matches_numpy(inner, data):
    ids = data.draw(hnp.arrays(np.int32, st.integers(0, 6), elements=st.integers(-1, 3)))
    x = data.draw(hnp.arrays(np.float64, (ids.size, inner), elements=st.integers(-9, 9).map(float)))
    expected = np.zeros((4, inner))
    for i, row in zip(ids, x):
        if i >= 0:
            expected[i] += row
    np.testing.assert_array_equal(tf.math.unsorted_segment_sum(x, ids, 4).numpy(), expected)


def test_unsorted_segment_errors():  # TF messages
    with raises(IAE, "segment_ids[2] = 5 is out of range [0, 3)", "[Op:UnsortedSegmentSum]"):
        tf.math.unsorted_segment_sum(tf.constant(D), [0, 2, 5, 1], 3)
    with raises(IAE, "data.shape = [4,2] does not start with segment_ids.shape = [3]", "UnsortedSegmentSum"):
        tf.math.unsorted_segment_sum(tf.constant(D), [0, 2, 1], 3)
    with raises(IAE, "Value for attr 'Tindices' of float32 is not in the list of allowed values: int16, int32, int64"):
        tf.math.unsorted_segment_sum(tf.constant(D), [0.0, 1, 1, 1], 2)
    with raises(IAE, "Value for attr 'T' of bool is not in the list"):
        tf.math.unsorted_segment_sum(tf.constant([True]), [0], 1)
    g = tf.Graph()
    with g.as_default():
        with raises(ValueError, "Dimensions must be equal, but are 4 and 3", "UnsortedSegmentMax"):  # TF 2.21
            tf.math.unsorted_segment_max(tf.compat.v1.placeholder(tf.float32, [4, 2]), [0, 1, 1], 2)
        out = tf.math.unsorted_segment_min(tf.compat.v1.placeholder(tf.float32, [None, 3]),
                                           tf.compat.v1.placeholder(tf.int32, [None]), 5)
        assert out.shape.as_list() == [5, 3]


def test_unsorted_segment_gradients():
    ids = [0, 2, -1, 2, 1]
    check_gradients(lambda d: tf.math.unsorted_segment_sum(d, ids, 3), X)
    check_gradients(lambda d: tf.math.unsorted_segment_max(d, ids, 3), X)
    check_gradients(lambda d: tf.math.unsorted_segment_min(d, ids, 3), X)
    check_gradients(lambda d: tf.math.unsorted_segment_prod(d, ids, 3), X)
    check_gradients(lambda d: tf.math.unsorted_segment_mean(d, ids, 4), X)
    check_gradients(lambda d: tf.math.unsorted_segment_sqrt_n(d, ids, 3), X)
    check_gradients(lambda d: tf.math.unsorted_segment_sum(d, [[0, 1], [1, 1]], 2), X[:4].reshape(2, 2, 2))
    check_second_order(lambda d: tf.math.unsorted_segment_prod(d, ids, 3), XNZ)


def test_unsorted_segment_prod_gradient_with_zeros():  # TF values
    d = tf.constant([[1.0, 2.0], [3.0, 0.0], [5.0, 6.0], [7.0, -8.0]])
    with tf.GradientTape() as tape:
        tape.watch(d)
        y = tf.math.unsorted_segment_prod(d, [0, 0, 1, -1], 2)
    assert tape.gradient(y, d).numpy().tolist() == [[3.0, 0.0], [1.0, 2.0], [1.0, 1.0], [0.0, 0.0]]
    check_gradients(lambda x: tf.math.unsorted_segment_prod(x, [0, 0, 0], 1), [[0.0, 0.0], [2.0, 0.0], [3.0, 1.5]])


# --------------------------------------------------------------------------------------
# Sorted segment reductions
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, expected", [  # TF values; segment 1 is empty
    ("sum", [[4.0, 6.0], [0.0, 0.0], [5.0, 6.0], [7.0, -8.0]]),
    ("max", [[3.0, 4.0], [0.0, 0.0], [5.0, 6.0], [7.0, -8.0]]),
    ("min", [[1.0, 2.0], [0.0, 0.0], [5.0, 6.0], [7.0, -8.0]]),
    ("prod", [[3.0, 8.0], [1.0, 1.0], [5.0, 6.0], [7.0, -8.0]]),
    ("mean", [[2.0, 3.0], [0.0, 0.0], [5.0, 6.0], [7.0, -8.0]]),
])
def test_segment_values(name, expected):
    out = getattr(tf.math, "segment_" + name)(tf.constant(D), [0, 0, 2, 3])
    assert out.dtype == tf.float32
    assert out.numpy().tolist() == expected


def test_segment_integer_mean_and_empty():  # TF values
    m = tf.math.segment_mean(tf.constant([1, 2, 4]), [0, 0, 1])
    assert m.numpy().tolist() == [1, 4] and m.dtype == tf.int32          # truncated integer mean
    assert tf.math.segment_sum(tf.zeros([0, 2]), tf.zeros([0], tf.int32)).shape == (0, 2)


@pytest.mark.parametrize("ids, message", [  # TF messages
    ([0, 2, 1, 3], "segment ids are not increasing"),
    ([-1, 0, 1, 3], "Segment id -1 out of range [0, 4), possibly because 'segment_ids' input is not sorted."),
    ([0, 0, 1], "segment_ids should be the same size as dimension 0 of input"),
    ([[0, 0], [1, 1]], "segment_ids should be a vector."),
])
def test_segment_errors(ids, message):
    with raises(IAE, message, "[Op:SegmentSum]"):
        tf.math.segment_sum(tf.constant(D), ids)


def test_segment_gradients():
    ids = [0, 0, 1, 3, 3]
    for name in ("sum", "mean", "max", "min", "prod"):
        check_gradients(lambda d, n=name: getattr(tf.math, "segment_" + n)(d, ids), X)
    check_second_order(lambda d: tf.math.segment_prod(d, ids), XNZ)
    with tf.GradientTape() as tape:   # TF values: zeros inside a segment
        d = tf.constant([[1.0, 2.0], [3.0, 0.0], [5.0, 6.0], [7.0, -8.0]])
        tape.watch(d)
        y = tf.math.segment_prod(d, [0, 0, 1, 1])
    assert tape.gradient(y, d).numpy().tolist() == [[3.0, 0.0], [1.0, 2.0], [7.0, -8.0], [5.0, 6.0]]


# --------------------------------------------------------------------------------------
# bincount
# --------------------------------------------------------------------------------------
def test_bincount_values():  # TF values
    assert tf.math.bincount([1, 1, 3, 0, 7]).numpy().tolist() == [1, 2, 0, 1, 0, 0, 0, 1]
    w = tf.math.bincount([1, 1, 3, 0, 7], weights=[1.0, 2, 3, 4, 5])
    assert w.numpy().tolist() == [4.0, 3.0, 0.0, 3.0, 0.0, 0.0, 0.0, 5.0] and w.dtype == tf.float32
    assert tf.math.bincount([1, 1, 3], minlength=6, maxlength=2).numpy().tolist() == [0, 2]
    assert tf.math.bincount(tf.zeros([0], tf.int32)).shape == (0,)
    assert tf.math.bincount([[1, 1], [3, 0]]).numpy().tolist() == [1, 2, 0, 1]
    assert tf.math.bincount([[1, 1], [3, 0]], axis=-1).numpy().tolist() == [[0, 2, 0, 0], [1, 0, 0, 1]]
    assert tf.math.bincount([1, 1, 3], binary_output=True).numpy().tolist() == [0, 1, 0, 1]
    f = tf.math.bincount([1, 1, 3], dtype=tf.float32)
    assert f.dtype == tf.float32 and f.numpy().tolist() == [0.0, 2.0, 0.0, 1.0]
    assert tf.math.bincount(tf.constant([1, 1, 3], tf.int64)).dtype == tf.int32
    assert tf.math.bincount([1.0, 1.0]).numpy().tolist() == [0, 2]
    assert tf.math.bincount([1, 1, 3], weights=[1.0, 2, 3], dtype=tf.float64).dtype == tf.float32


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.int32, st.integers(0, 10), elements=st.integers(0, 6)))
def test_bincount_matches_numpy(a):
    np.testing.assert_array_equal(tf.math.bincount(a).numpy(), np.bincount(a) if a.size else np.zeros(0))


def test_bincount_errors():  # TF messages
    with raises(IAE, "Input arr must be non-negative!", "[Op:DenseBincount]"):
        tf.math.bincount([1, -1, 3])
    with raises(IAE, "`weights` must be the same shape as `arr` or a length-0 `Tensor`", "Received [2]"):
        tf.math.bincount([1, 1, 3], weights=[1.0, 2])
    with raises(ValueError, "Arguments `binary_output` and `weights` are mutually exclusive"):
        tf.math.bincount([1], weights=[1.0], binary_output=True)
    with raises(ValueError, "Unsupported value for argument axis=1"):
        tf.math.bincount([[1]], axis=1)


# --------------------------------------------------------------------------------------
# dynamic_partition, dynamic_stitch
# --------------------------------------------------------------------------------------
def test_dynamic_partition_values():  # TF values
    parts = tf.dynamic_partition(tf.constant(D), [1, 0, 1, 1], 3)
    assert [p.numpy().tolist() for p in parts] == [[[3.0, 4.0]], [[1.0, 2.0], [5.0, 6.0], [7.0, -8.0]], []]
    assert parts[2].shape == (0, 2)
    parts = tf.dynamic_partition(tf.reshape(tf.range(6), [2, 3]), [[0, 1, 0], [1, 1, 0]], 2)
    assert [p.numpy().tolist() for p in parts] == [[0, 2, 5], [1, 3, 4]]


def test_dynamic_stitch_values():  # TF values
    out = tf.dynamic_stitch([[6], [4, 1], [[5, 2], [0, 3]]], [[61.0], [41, 11], [[51, 21], [1, 31]]])
    assert out.numpy().tolist() == [1.0, 11.0, 21.0, 31.0, 41.0, 51.0, 61.0]
    assert tf.dynamic_stitch([[0, 1], [1, 2]], [[1.0, 2], [3, 4]]).numpy().tolist() == [1.0, 3.0, 4.0]
    assert tf.dynamic_stitch([[0, 3]], [[1.0, 2]]).numpy().tolist() == [1.0, 0.0, 0.0, 2.0]
    rows = tf.dynamic_stitch([[0, 2], [1]], [[[1.0, 2], [3, 4]], [[5, 6]]])
    assert rows.numpy().tolist() == [[1.0, 2.0], [5.0, 6.0], [3.0, 4.0]]
    assert tf.dynamic_stitch([tf.zeros([0], tf.int32)], [tf.zeros([0, 2])]).shape == (0, 2)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 3), hnp.arrays(np.int32, st.integers(0, 8), elements=st.integers(0, 2)))
def test_partition_then_stitch_is_the_identity(n, parts):
    parts = np.minimum(parts, n - 1)
    data = np.arange(parts.size * 2, dtype=np.float64).reshape(parts.size, 2)
    pieces = tf.dynamic_partition(data, parts, n)
    positions = tf.dynamic_partition(np.arange(parts.size, dtype=np.int32), parts, n)
    for p, i in zip(pieces, range(n)):
        np.testing.assert_array_equal(p.numpy(), data[parts == i].reshape(-1, 2))
    if parts.size:
        np.testing.assert_array_equal(tf.dynamic_stitch(positions, pieces).numpy(), data)


def test_partition_and_stitch_errors():  # TF messages
    d = tf.constant(D)
    with raises(IAE, "partitions[2] = 3 is not in [0, 3)", "[Op:DynamicPartition]"):
        tf.dynamic_partition(d, [1, 0, 3, 1], 3)
    with raises(IAE, "data.shape must start with partitions.shape, got data.shape = [4,2], partitions.shape = [3]"):
        tf.dynamic_partition(d, [1, 0, 1], 3)
    with raises(IAE, "Value for attr 'num_partitions' of 0 must be at least minimum 1"):
        tf.dynamic_partition(d, [1, 0, 1, 0], 0)
    with raises(IAE, "Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [2,2], data[1].shape = [1,3]",
                "[Op:DynamicStitch]"):
        tf.dynamic_stitch([[0, 2], [1]], [[[1.0, 2], [3, 4]], [[5, 6, 7]]])
    with raises(IAE, "indices[1] is out of range"):
        tf.dynamic_stitch([[0, -1]], [[1.0, 2]])
    with raises(IAE, "data[0].shape = [3] does not start with indices[0].shape = [2]"):
        tf.dynamic_stitch([[0, 1]], [[1.0, 2, 3]])


def test_partition_and_stitch_gradients():
    check_gradients(lambda d: tf.dynamic_partition(d, [1, 0, 2, 0, 1], 3)[0], X)
    check_gradients(lambda d: tf.concat(tf.dynamic_partition(d, [1, 0, 2, 0, 1], 3), 0) * 3.0, X)
    check_gradients(lambda a, b: tf.dynamic_stitch([[0, 3], [1, 2, 4]], [a, b]), X[:2], X[2:])
    with tf.GradientTape() as tape:   # TF: every copy of a repeated index receives the gradient
        d = tf.constant(D)
        tape.watch(d)
        s = tf.dynamic_stitch([[0, 1], [1, 2]], [d[:2], d[2:]])
    assert tape.gradient(s, d).numpy().tolist() == [[1.0, 1.0]] * 4
