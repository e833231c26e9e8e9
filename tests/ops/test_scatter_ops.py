"""tensor_scatter_nd_update/add/sub/min/max.

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
T = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
rng = np.random.default_rng(5)
TA = rng.permutation(6).reshape(3, 2) * 0.5 - 1.2
UA = np.array([0.55, -0.45, 3.05])


def raises(cls, *fragments):
    return pytest.raises(cls, match="(?s)" + ".*".join(re.escape(f) for f in fragments))


@pytest.mark.parametrize("fn, indices, updates, expected", [  # TF values
    (tf.tensor_scatter_nd_update, [[0], [2]], [[9.0, 9], [8, 8]], [[9.0, 9.0], [3.0, 4.0], [8.0, 8.0]]),
    (tf.tensor_scatter_nd_update, [[0, 1], [2, 0]], [9.0, 8], [[1.0, 9.0], [3.0, 4.0], [8.0, 6.0]]),
    (tf.tensor_scatter_nd_add, [[0], [0]], [[1.0, 1], [2, 2]], [[4.0, 5.0], [3.0, 4.0], [5.0, 6.0]]),
    (tf.tensor_scatter_nd_sub, [[1, 1]], [10.0], [[1.0, 2.0], [3.0, -6.0], [5.0, 6.0]]),
    (tf.tensor_scatter_nd_min, [[0, 1], [0, 1], [2, 0]], [0.0, -1, 7], [[1.0, -1.0], [3.0, 4.0], [5.0, 6.0]]),
    (tf.tensor_scatter_nd_max, [[0, 1], [2, 0]], [5.0, 7], [[1.0, 5.0], [3.0, 4.0], [7.0, 6.0]]),
    (tf.tensor_scatter_nd_update, [[0]], [[1, 2]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),   # ints adopt float32
    (tf.tensor_scatter_nd_add, np.zeros((2, 0), np.int32), [T, T], [[3.0, 6.0], [9.0, 12.0], [15.0, 18.0]]),
])
def test_values(fn, indices, updates, expected):
    t = tf.constant(T)
    out = fn(t, indices, updates)
    assert out.dtype == tf.float32 and out.shape == (3, 2)
    assert out.numpy().tolist() == expected
    assert t.numpy().tolist() == T      # the input is not modified


def test_other_dtypes():  # TF values
    assert tf.tensor_scatter_nd_update(tf.constant([True, False]), [[1]], [True]).numpy().tolist() == [True, True]
    m = tf.tensor_scatter_nd_max(tf.constant([1, 5]), [[0], [1]], [3, 3])
    assert m.numpy().tolist() == [3, 5] and m.dtype == tf.int32
    assert tf.tensor_scatter_nd_update(tf.constant(T), tf.zeros([0, 1], tf.int32), tf.zeros([0, 2])).numpy().tolist() \
        == T


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(0, 5), st.data())
def test_add_matches_numpy(rows, cols, n, data):
    t = data.draw(hnp.arrays(np.float64, (rows, cols), elements=st.integers(-9, 9).map(float)))
    idx = data.draw(hnp.arrays(np.int32, (n, 1), elements=st.integers(0, rows - 1)))
    upd = data.draw(hnp.arrays(np.float64, (n, cols), elements=st.integers(-9, 9).map(float)))
    expected = t.copy()
    np.add.at(expected, idx[:, 0], upd)
    np.testing.assert_array_equal(tf.tensor_scatter_nd_add(t, idx, upd).numpy(), expected)
    expected = t.copy()
    np.maximum.at(expected, idx[:, 0], upd)
    np.testing.assert_array_equal(tf.tensor_scatter_nd_max(t, idx, upd).numpy(), expected)


@pytest.mark.parametrize("call, cls, message", [  # TF messages
    (lambda t: tf.tensor_scatter_nd_update(t, [[0], [3]], [[9.0, 9], [8, 8]]), IAE,
     "indices[1] = [3] does not index into shape [3,2] [Op:TensorScatterUpdate]"),
    (lambda t: tf.tensor_scatter_nd_add(t, [[-1, 0]], [1.0]), IAE,
     "indices[0] = [-1, 0] does not index into shape [3,2] [Op:TensorScatterAdd]"),
    (lambda t: tf.tensor_scatter_nd_update(t, [[0], [2]], [[9.0, 9, 9], [8, 8, 8]]), IAE,
     "The inner 1 dimensions of output.shape=[3,2] must match the inner 1 dimensions of updates.shape=[2,3]"),
    (lambda t: tf.tensor_scatter_nd_update(t, [[0], [2]], [[9.0, 9]]), IAE,
     "Outer dimensions of indices and update must match. Indices shape: [2,1], updates shape:[1,2]"),
    (lambda t: tf.tensor_scatter_nd_update(t, [[0, 1, 1]], [9.0]), IAE,
     "Inner dimensions of output shape must match inner dimensions of updates shape. Output: [3,2] updates: [1]"),
    (lambda t: tf.tensor_scatter_nd_update(t, 0, [1.0, 2]), IAE, "Indices shape must have rank at least one. Found:[]"),
    (lambda t: tf.tensor_scatter_nd_update(tf.constant(1.0), tf.zeros([0], tf.int32), 5.0), IAE,
     "Updates shape must have rank at least one. Found:[]"),
    (lambda t: tf.tensor_scatter_nd_update(tf.constant(1.0), tf.zeros([1, 0], tf.int32), [5.0]), IAE,
     "Indices and updates specified for empty output shape"),
    (lambda t: tf.tensor_scatter_nd_update(t, [[0.0]], [[1.0, 2]]), IAE,
     "Value for attr 'Tindices' of float32 is not in the list of allowed values: int16, int32, int64, uint16"),
    (lambda t: tf.tensor_scatter_nd_add(tf.constant([True, False]), [[1]], [True]), tf.errors.NotFoundError,
     "Could not find device for node: {{node TensorScatterAdd}} = TensorScatterAdd[T=DT_BOOL]"),
    (lambda t: tf.tensor_scatter_nd_update(t, [[0]], tf.constant([[1, 2]])), IAE,
     "TensorScatterUpdate as input #1(zero-based) was expected to be a float tensor but is a int32 tensor"),
])
def test_errors(call, cls, message):
    with raises(cls, message):
        call(tf.constant(T))


def test_static_shape_errors_in_a_graph():  # TF message
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2])
        with raises(ValueError, "must match the inner 1 dimensions of updates.shape=[2,3]", "TensorScatterUpdate"):
            tf.tensor_scatter_nd_update(x, [[0], [2]], [[9.0, 9, 9], [8, 8, 8]])
        assert tf.tensor_scatter_nd_min(x, [[0, 1]], [1.0]).shape.as_list() == [None, 2]


def test_gradients():
    idx = [[0, 1], [2, 0], [1, 1]]
    check_gradients(lambda t, u: tf.tensor_scatter_nd_update(t, idx, u), TA, UA)
    check_gradients(lambda t, u: tf.tensor_scatter_nd_add(t, idx, u), TA, UA)
    check_gradients(lambda t, u: tf.tensor_scatter_nd_sub(t, [[0], [2]], u), TA, UA[:2, None] * [1.0, 2.0])
    check_gradients(lambda t, u: tf.tensor_scatter_nd_min(t, idx, u), TA, UA)
    check_gradients(lambda t, u: tf.tensor_scatter_nd_max(t, idx, u), TA, UA)
    check_second_order(lambda t: tf.tensor_scatter_nd_max(t * t, idx, UA), TA)


def test_min_gradient_splits_ties_like_tf():  # TF values
    t = tf.constant(T)
    u = tf.constant([0.0, -1, 7])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([t, u])
        y = tf.tensor_scatter_nd_min(t, [[0, 1], [0, 1], [2, 0]], u)
        z = tf.tensor_scatter_nd_update(t, [[0, 1], [0, 1]], u[:2])
    gt, gu = tape.gradient(y, [t, u])
    assert gt.numpy().tolist() == [[1.0, 0.0], [1.0, 1.0], [1.0, 1.0]] and gu.numpy().tolist() == [0.0, 1.0, 0.0]
    gt, gu = tape.gradient(z, [t, u])
    assert gt.numpy().tolist() == [[1.0, 0.0], [1.0, 1.0], [1.0, 1.0]] and gu.numpy().tolist() == [1.0, 1.0, 0.0]
    t2 = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:   # a tie between the original and an update: the gradient is split
        tape.watch(t2)
        y = tf.tensor_scatter_nd_max(t2, [[0, 1]], [2.0])
    assert tape.gradient(y, t2).numpy().tolist() == [[1.0, 0.5]]
