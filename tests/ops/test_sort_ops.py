"""sort, argsort, top_k (TopKV2), unique, unique_with_counts, searchsorted (LowerBound/UpperBound).

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
A = np.random.default_rng(3).permutation(12).reshape(3, 4) * 0.5 - 2.0   # no ties: gradients are unambiguous


def raises(cls, *fragments):
    return pytest.raises(cls, match="(?s)" + ".*".join(re.escape(f) for f in fragments))


# --------------------------------------------------------------------------------------
# top_k
# --------------------------------------------------------------------------------------
def test_top_k_values_ties_and_dtypes():  # TF values
    values, indices = tf.math.top_k([1, 3, 3, 2, 3], 2)
    assert values.numpy().tolist() == [3, 3] and indices.numpy().tolist() == [1, 2]   # ties: lower index first
    assert values.dtype == tf.int32 and indices.dtype == tf.int32
    r = tf.math.top_k([1.0, 5, 3], 2, index_type=tf.int64)
    assert r.values.numpy().tolist() == [5.0, 3.0] and r.indices.numpy().tolist() == [1, 2]
    assert r.indices.dtype == tf.int64
    u = tf.nn.top_k(tf.constant([1, 5, 3], tf.uint8), 2)
    assert u.values.dtype == tf.uint8 and u.values.numpy().tolist() == [5, 3]
    assert tf.nn.top_k is tf.math.top_k
    x = tf.constant(A)
    v, i = tf.math.top_k(x, 3)
    np.testing.assert_array_equal(v.numpy(), -np.sort(-A, axis=-1)[:, :3])
    np.testing.assert_array_equal(i.numpy(), np.argsort(-A, axis=-1)[:, :3])
    assert tf.math.top_k(x, 0).values.shape == (3, 0)


@pytest.mark.parametrize("call, cls, message", [  # TF messages
    (lambda: tf.math.top_k([1.0, 5, 3], 4), IAE, "input must have at least k columns. Had 3, needed 4"),
    (lambda: tf.math.top_k([1.0, 5, 3], -1), IAE, "Need k >= 0, got -1"),
    (lambda: tf.math.top_k(tf.constant(1.0), 1), IAE, "input must be >= 1-D, got shape []"),
    (lambda: tf.math.top_k(tf.constant([True, False]), 1), IAE, "Value for attr 'T' of bool is not in the list"),
    (lambda: tf.math.top_k([1.0], 1, index_type=tf.float32), IAE, "Value for attr 'index_type' of float32"),
])
def test_top_k_errors(call, cls, message):
    with raises(cls, message, "TopKV2"):
        call()


def test_top_k_gradients():
    check_gradients(lambda x: tf.math.top_k(x, 2).values, A)
    check_gradients(lambda x: tf.math.top_k(x, 3).values * 2.0, A.reshape(2, 2, 3))
    check_second_order(lambda x: tf.math.top_k(x * x, 2).values, A)


def test_top_k_gradient_in_a_graph_with_unknown_shapes():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float64, [None, None])
        (grad,) = tf.compat.v1.gradients(tf.math.top_k(x, 2).values * tf.constant([[1.0, 10.0]], tf.float64), [x])
    with tf.compat.v1.Session(graph=g) as sess:
        out = sess.run(grad, {x: A})
    expected = np.zeros_like(A)
    for r, idx in enumerate(np.argsort(-A, axis=-1)[:, :2]):
        expected[r, idx] = [1.0, 10.0]
    np.testing.assert_array_equal(out, expected)


def test_top_k_shape_inference():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 5])
        assert tf.math.top_k(x, 2).values.shape.as_list() == [None, 2]
        assert tf.math.top_k(tf.compat.v1.placeholder(tf.float32, None), 2).indices.shape.rank is None
        k = tf.compat.v1.placeholder(tf.int32, [])
        assert tf.math.top_k(x, k).values.shape.as_list() == [None, None]
        with raises(ValueError, "input must have last dimension >= k = 6 but is 5", "TopKV2"):  # TF 2.21
            tf.math.top_k(x, 6)


# --------------------------------------------------------------------------------------
# sort, argsort
# --------------------------------------------------------------------------------------
def test_sort_and_argsort_values():  # TF values
    x = tf.constant([3.0, 1.0, 2.0, 1.0, -np.inf])
    assert tf.sort(x).numpy().tolist() == [-np.inf, 1.0, 1.0, 2.0, 3.0]
    assert tf.sort(x, direction="DESCENDING").numpy().tolist() == [3.0, 2.0, 1.0, 1.0, -np.inf]
    assert tf.argsort(x).numpy().tolist() == [4, 1, 3, 2, 0]
    assert tf.argsort([2, 1, 2, 1, 2], stable=True, direction="DESCENDING").numpy().tolist() == [0, 2, 4, 1, 3]
    assert tf.argsort([[3, 1], [1, 3], [2, 2]], axis=0).numpy().tolist() == [[1, 0], [2, 2], [0, 1]]
    assert tf.sort([[3, 1], [1, 3], [2, 2]], axis=0, direction="DESCENDING").numpy().tolist() == \
        [[3, 3], [2, 2], [1, 1]]
    ints = tf.sort(tf.constant([3, -2147483648, 2147483647, 0], tf.int32))
    assert ints.numpy().tolist() == [-2147483648, 0, 3, 2147483647] and ints.dtype == tf.int32
    u8 = tf.sort(tf.constant([3, 255, 0, 7], tf.uint8))
    assert u8.numpy().tolist() == [0, 3, 7, 255] and u8.dtype == tf.uint8
    assert tf.sort(tf.constant([3, -128, 127], tf.int8)).numpy().tolist() == [-128, 3, 127]
    assert tf.argsort(x).dtype == tf.int32


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                  elements=st.integers(-5, 5).map(float)), st.data())
def test_sort_matches_numpy_stable_sort(a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    np.testing.assert_array_equal(tf.sort(a, axis=axis).numpy(), np.sort(a, axis=axis))
    np.testing.assert_array_equal(tf.argsort(a, axis=axis).numpy(), np.argsort(a, axis=axis, kind="stable"))
    desc = tf.argsort(a, axis=axis, direction="DESCENDING").numpy()
    np.testing.assert_array_equal(desc, np.argsort(-a, axis=axis, kind="stable"))


def test_sort_errors():  # TF messages (TF's bad-axis error comes from a StridedSlice)
    with raises(ValueError, "Argument `direction` should be one of ASCENDING, DESCENDING. Received: direction=UP"):
        tf.sort([1.0, 2.0], direction="UP")
    with raises(IAE, "slice index 2 of dimension 0 out of bounds", "[Op:StridedSlice]"):
        tf.sort([[1.0, 2.0]], axis=2)
    with raises(IAE, "slice index -1 of dimension 0 out of bounds"):
        tf.sort(tf.constant(1.0))
    with raises(IAE, "Value for attr 'T' of bool is not in the list"):
        tf.sort([True, False])


def test_sort_gradients():
    check_gradients(lambda x: tf.sort(x), A)
    check_gradients(lambda x: tf.sort(x, axis=0, direction="DESCENDING"), A)
    check_second_order(lambda x: tf.sort(x * x, axis=0), A)


# --------------------------------------------------------------------------------------
# unique, unique_with_counts
# --------------------------------------------------------------------------------------
def test_unique_values():  # TF values
    y, idx = tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8])
    assert y.numpy().tolist() == [1, 2, 4, 7, 8] and idx.numpy().tolist() == [0, 0, 1, 2, 2, 2, 3, 4, 4]
    assert y.dtype == tf.int32 and idx.dtype == tf.int32
    y, idx = tf.unique([3.0, 1.0, 3.0, np.nan, np.nan, -0.0, 0.0])   # each NaN is distinct; -0.0 == 0.0
    assert np.array_equal(y.numpy(), [3.0, 1.0, np.nan, np.nan, -0.0], equal_nan=True)
    assert np.signbit(y.numpy()[-1]) and idx.numpy().tolist() == [0, 1, 0, 2, 3, 4, 4]
    assert tf.unique([5, 3, 5], out_idx=tf.int64).idx.dtype == tf.int64
    assert tf.unique(["a", "b", "a"]).y.numpy().tolist() == [b"a", b"b"]
    y, idx, count = tf.unique_with_counts([1, 1, 2, 4, 4, 4, 7, 8, 8], out_idx=tf.int64)
    assert count.numpy().tolist() == [2, 1, 3, 1, 2] and count.dtype == tf.int64
    y, idx, count = tf.unique_with_counts(tf.zeros([0]))
    assert y.shape == (0,) and idx.shape == (0,) and count.shape == (0,) and count.dtype == tf.int32


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.int32, st.integers(0, 12), elements=st.integers(-3, 3)))
def test_unique_reconstructs_its_input(a):
    y, idx, count = tf.unique_with_counts(a)
    np.testing.assert_array_equal(tf.gather(y, idx).numpy(), a)
    assert y.numpy().tolist() == list(dict.fromkeys(a.tolist()))
    assert count.numpy().tolist() == [a.tolist().count(v) for v in y.numpy().tolist()]


def test_unique_errors():  # TF messages
    with raises(IAE, "unique expects a 1D vector.", "[Op:Unique]"):
        tf.unique([[5, 3, 5]])
    with raises(IAE, "Value for attr 'out_idx' of float32 is not in the list of allowed values: int32, int64"):
        tf.unique([5, 3, 5], out_idx=tf.float32)
    g = tf.Graph()
    with g.as_default():
        with raises(ValueError, "Shape must be rank 1 but is rank 2", "Unique"):
            tf.unique(tf.compat.v1.placeholder(tf.int32, [2, 3]))


# --------------------------------------------------------------------------------------
# searchsorted
# --------------------------------------------------------------------------------------
def test_searchsorted_values():  # TF values
    seq = [[0, 3, 9, 9, 10], [1, 2, 3, 4, 5]]
    left = tf.searchsorted(seq, [[2, 4, 9], [0, 2, 6]])
    assert left.numpy().tolist() == [[1, 2, 2], [0, 1, 5]] and left.dtype == tf.int32
    right = tf.searchsorted(seq, [[2, 4, 9], [0, 2, 6]], side="right", out_type=tf.int64)
    assert right.numpy().tolist() == [[1, 2, 4], [0, 2, 5]] and right.dtype == tf.int64
    assert tf.searchsorted([[0.0, 1.0, 2.0]], [[0.5, 2.0]]).numpy().tolist() == [[1, 2]]
    out = tf.searchsorted(tf.reshape(tf.range(12.0), [2, 2, 3]), tf.reshape(tf.range(8.0), [2, 2, 2]) * 1.5)
    assert out.shape == (2, 2, 2) and out.numpy().tolist() == [[[0, 2], [0, 2]], [[0, 2], [0, 2]]]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 6), st.integers(1, 5), st.sampled_from(["left", "right"]), st.data())
def test_searchsorted_matches_numpy(rows, n, m, side, data):
    seq = np.sort(data.draw(hnp.arrays(np.int32, (rows, n), elements=st.integers(-4, 4))), axis=-1)
    vals = data.draw(hnp.arrays(np.int32, (rows, m), elements=st.integers(-5, 5)))
    expected = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
    np.testing.assert_array_equal(tf.searchsorted(seq, vals, side=side).numpy(), expected)


def test_searchsorted_errors():  # TF messages
    with raises(ValueError, "Argument `side` must be either 'right' or 'left'. Received: `side` = 'middle'."):
        tf.searchsorted([0.0, 1.0], [0.5], side="middle")
    with raises(IAE, "Leading dim_size of both tensors must match", "[Op:LowerBound]"):
        tf.searchsorted([[0.0, 1.0, 2.0]], [[0.5], [1.0]])
    with raises(IAE, "cannot compute LowerBound as input #1(zero-based) was expected to be a float tensor but is a "
                     "int32 tensor"):
        tf.searchsorted([0.0, 1.0, 2.0], [1])
    with raises(IAE, "Value for attr 'out_type' of float32 is not in the list of allowed values: int32, int64"):
        tf.searchsorted([0.0, 1.0, 2.0], [1.0], out_type=tf.float32)
    with raises(IAE, "slice index -1 of dimension 0 out of bounds"):
        tf.searchsorted([0.0, 1.0, 2.0], 1.0)
