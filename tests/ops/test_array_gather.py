"""gather, gather_nd, scatter_nd, boolean_mask.

Expected values and messages marked "TF" were recorded from TensorFlow 2.21 (CPU).
"""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as tf
from gradcheck import check_gradients, check_second_order

IAE = tf.errors.InvalidArgumentError
A = np.random.default_rng(7).normal(size=(3, 4))
B = np.random.default_rng(8).normal(size=(3, 2))


def x34():
    return tf.reshape(tf.range(12.0), [3, 4])


def raises(cls, *fragments):
    return pytest.raises(cls, match="(?s)" + ".*".join(re.escape(f) for f in fragments))


# --------------------------------------------------------------------------------------
# gather
# --------------------------------------------------------------------------------------
def test_gather_values():  # TF values
    x = x34()
    assert tf.gather(x, [3, 0], axis=1).numpy().tolist() == [[3.0, 0.0], [7.0, 4.0], [11.0, 8.0]]
    assert tf.gather([1.0, 2.0, 3.0], [2, 0]).numpy().tolist() == [3.0, 1.0]
    assert tf.gather(x, 1).numpy().tolist() == [4.0, 5.0, 6.0, 7.0]
    assert tf.gather(x, [1], axis=tf.constant(1)).numpy().tolist() == [[1.0], [5.0], [9.0]]
    assert tf.gather(x, [1], axis=-1).shape == (3, 1)
    assert tf.gather(x, tf.constant([1], tf.int64)).shape == (1, 4)
    assert tf.gather(x, tf.zeros([0], tf.int32)).shape == (0, 4)
    g = tf.gather(x, [[2, 0], [1, 1]])
    assert g.shape == (2, 2, 4)
    np.testing.assert_array_equal(g.numpy(), np.arange(12.0).reshape(3, 4)[[[2, 0], [1, 1]]])


def test_gather_batch_dims():  # TF values
    x = x34()
    idx = [[1, 0], [2, 2], [0, 0]]
    assert tf.gather(x, idx, axis=1, batch_dims=1).numpy().tolist() == [[1.0, 0.0], [6.0, 6.0], [8.0, 8.0]]
    assert tf.gather(x, idx, axis=1, batch_dims=-1).numpy().tolist() == [[1.0, 0.0], [6.0, 6.0], [8.0, 8.0]]
    assert tf.gather(x, idx, batch_dims=1).shape == (3, 2)           # axis defaults to batch_dims
    # TF 2.21 quirk: an explicit axis=0 drops batch_dims (plain gather along axis 0).
    assert tf.gather(x, idx, axis=0, batch_dims=1).shape == (3, 2, 4)
    p = np.arange(24.0).reshape(2, 3, 4)
    i = np.array([[0, 2], [1, 1]])
    expected = np.stack([p[b][:, i[b]] for b in range(2)])            # batch dim 0, gather along axis 2
    np.testing.assert_array_equal(tf.gather(p, i, axis=2, batch_dims=1).numpy(), expected)


@pytest.mark.parametrize("kwargs, message", [  # TF messages
    (dict(params=list(range(5)), indices=[1, 7]), "indices[1] = 7 is not in [0, 5)"),
    (dict(params=list(range(5)), indices=[[1, 2], [7, 1]]), "indices[1,0] = 7 is not in [0, 5)"),
    (dict(params=list(range(5)), indices=[-1]), "indices[0] = -1 is not in [0, 5)"),
    (dict(params=np.zeros((3, 4)), indices=[3, 0], axis=2), "Shape must be at least rank 3 but is rank 2"),
    (dict(params=np.zeros((3, 4)), indices=[[1, 0], [2, 2]], axis=1, batch_dims=1),
     "params.shape[0]: 3 should be equal to indices.shape[0]: 2"),
])
def test_gather_errors(kwargs, message):
    with raises(IAE, message, "[Op:GatherV2]"):
        tf.gather(**kwargs)


def test_gather_index_dtype_error():
    with raises(IAE, "Value for attr 'Tindices' of float32 is not in the list of allowed values: int16, int32, "
                     "int64"):
        tf.gather(x34(), [1.0])


def test_gather_gradients():
    check_gradients(lambda x: tf.gather(x, [2, 0, 2], axis=0), A)
    check_gradients(lambda x: tf.gather(x, [[3, 0], [3, 3]], axis=1), A)
    check_gradients(lambda x: tf.gather(x, 1, axis=1), A)
    check_gradients(lambda x: tf.gather(tf.reshape(x, [2, 3, 2]), [1, 1, 0], axis=1), A)
    check_gradients(lambda x: tf.gather(x, [[1, 0, 3], [2, 2, 2], [0, 0, 1]], axis=1, batch_dims=1), A)
    check_gradients(lambda x: tf.gather(tf.reshape(x, [3, 2, 2]), [[1, 0], [1, 1], [0, 0]], axis=2, batch_dims=1),
                    A)
    check_second_order(lambda x: tf.gather(x, [2, 0, 2]) ** 3, A)


def test_gather_gradient_is_indexed_slices_summing_duplicates_when_densified():
    """TF 2.21: the eager gradient of gather (axis 0) w.r.t. its params is a tf.IndexedSlices."""
    x = tf.constant(A)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.gather(x, [2, 2, 0])
    g = tape.gradient(y, x)
    assert isinstance(g, tf.IndexedSlices) and g.indices.numpy().tolist() == [2, 2, 0]
    dense = tf.convert_to_tensor(g)
    assert dense.shape == (3, 4)
    np.testing.assert_array_equal(dense.numpy(), [[1] * 4, [0] * 4, [2] * 4])


def test_embedding_lookup_style_variable_gradient():
    table = tf.Variable(np.arange(10.0).reshape(5, 2))
    with tf.GradientTape() as tape:
        rows = tf.gather(table, [[4, 0], [4, 4]])
        loss = tf.reduce_sum(rows * rows)
    g = tape.gradient(loss, table)
    expected = np.zeros((5, 2))
    for i in [4, 0, 4, 4]:
        expected[i] += 2 * np.arange(10.0).reshape(5, 2)[i]
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), expected)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_gather_property(shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    idx_shape = data.draw(st.lists(st.integers(0, 3), max_size=2))
    indices = np.asarray(data.draw(st.lists(st.integers(0, n - 1), min_size=int(np.prod(idx_shape)),
                                            max_size=int(np.prod(idx_shape)))), dtype=np.int32).reshape(idx_shape)
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    np.testing.assert_array_equal(tf.gather(x, indices, axis=axis).numpy(), np.take(x, indices, axis=axis))


# --------------------------------------------------------------------------------------
# gather_nd, scatter_nd
# --------------------------------------------------------------------------------------
def test_gather_nd_values():  # TF values
    x = x34()
    assert tf.gather_nd(x, [[1], [2]]).numpy().tolist() == [[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
    assert tf.gather_nd(x, [[1, 0], [2, 3]]).numpy().tolist() == [4.0, 11.0]
    assert float(tf.gather_nd(x, [1, 2])) == 6.0
    assert tf.gather_nd(x, tf.zeros([2, 0], tf.int32)).shape == (2, 3, 4)
    assert tf.gather_nd(x, [[1], [2], [0]], batch_dims=1).numpy().tolist() == [1.0, 6.0, 8.0]
    p = np.arange(24).reshape(2, 3, 4)
    idx = np.array([[[0, 1], [1, 2]], [[1, 1], [0, 0]]])
    np.testing.assert_array_equal(tf.gather_nd(p, idx).numpy(), p[idx[..., 0], idx[..., 1]])


def test_gather_nd_errors():  # TF messages
    with raises(IAE, "indices[1] = [3, 0] does not index into param shape [3,4], node name: GatherNd",
                "[Op:GatherNd]"):
        tf.gather_nd(x34(), [[1, 0], [3, 0]])
    with raises(IAE, "indices[0] = [-1, 0] does not index into param shape [3,4]"):
        tf.gather_nd(x34(), [[-1, 0]])
    with raises(IAE, "index innermost dimension length must be <= params rank; saw: 3 vs. 2", "[Op:GatherNd]"):
        tf.gather_nd(x34(), [[1, 1, 1]])
    with raises(IAE, "Value for attr 'Tindices' of float32"):
        tf.gather_nd(x34(), [[1.0, 0.0]])


def test_scatter_nd_values():  # TF values
    s = tf.scatter_nd([[1], [1], [3]], [1.0, 2.0, 3.0], [5])
    assert s.dtype == tf.float32 and s.numpy().tolist() == [0.0, 3.0, 0.0, 3.0, 0.0]
    assert tf.scatter_nd([[0, 1], [2, 3], [0, 1]], [1.0, 2.0, 3.0], [3, 4]).numpy().tolist() == [
        [0.0, 4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]]
    assert tf.scatter_nd([[1], [0]], [[1.0, 2.0], [3.0, 4.0]], [3, 2]).numpy().tolist() == [
        [3.0, 4.0], [1.0, 2.0], [0.0, 0.0]]
    i = tf.scatter_nd([[1], [1]], [1, 2], [3])
    assert i.dtype == tf.int32 and i.numpy().tolist() == [0, 3, 0]
    assert tf.scatter_nd([[1]], [True], [3]).numpy().tolist() == [False, True, False]


@pytest.mark.parametrize("args, message", [  # TF messages
    (([[1], [6]], [1.0, 2.0], [5]), "indices[1] = [6] does not index into shape [5]"),
    (([[-1]], [1.0], [3]), "indices[0] = [-1] does not index into shape [3]"),
    (([[1], [2]], [1.0, 2.0, 3.0], [5]),
     "Dimensions [0,1) of indices[shape=[2,1]] must match dimensions [0,1) of updates[shape=[3]]"),
    (([[1, 0]], [1.0], [3]), "Dimensions [2,1) of input[shape=[3]] must match dimensions [1,1) of updates[shape=[1]]"),
    (([[1]], [[1.0, 2.0]], [3, 3]),
     "Dimensions [1,2) of input[shape=[3,3]] must match dimensions [1,2) of updates[shape=[1,2]]"),
    (([[1], [1]], [1, 2], [-3]), "Dimension -3 must be >= 0"),
])
def test_scatter_nd_errors(args, message):
    with raises(IAE, message, "[Op:ScatterNd]"):
        tf.scatter_nd(*args)


def test_gather_nd_scatter_nd_gradients():
    check_gradients(lambda x: tf.gather_nd(x, [[1, 0], [2, 3], [1, 0]]), A)
    check_gradients(lambda x: tf.gather_nd(x, [[1], [1]]), A)
    check_gradients(lambda x: tf.gather_nd(x, [[1], [2], [0]], batch_dims=1), A)
    check_gradients(lambda u: tf.scatter_nd([[1], [1], [3]], u, [5, 2]), B)
    check_second_order(lambda x: tf.gather_nd(x, [[1, 0], [1, 0]]) ** 3, A)
    check_second_order(lambda u: tf.scatter_nd([[1], [1], [0]], u, [2, 2]) ** 3, B)


# --------------------------------------------------------------------------------------
# boolean_mask
# --------------------------------------------------------------------------------------
def test_boolean_mask_values():  # TF values
    x = x34()
    assert tf.boolean_mask(x, [True, False, True]).numpy().tolist() == [[0.0, 1.0, 2.0, 3.0],
                                                                         [8.0, 9.0, 10.0, 11.0]]
    assert tf.boolean_mask(x, x > 5).numpy().tolist() == [6.0, 7.0, 8.0, 9.0, 10.0, 11.0]
    assert tf.boolean_mask(x, [True, False, True, True], axis=1).numpy().tolist() == [
        [0.0, 2.0, 3.0], [4.0, 6.0, 7.0], [8.0, 10.0, 11.0]]
    assert tf.boolean_mask(x, [False, False, False]).shape == (0, 4)


def test_boolean_mask_errors():  # TF messages
    with raises(ValueError, "Shapes (3,) and (2,) are incompatible"):
        tf.boolean_mask(x34(), [True, False])
    with raises(ValueError, "mask cannot be scalar."):
        tf.boolean_mask(x34(), True)


def test_boolean_mask_gradient():
    check_gradients(lambda x: tf.boolean_mask(x, [[True, False, True, False]] * 3), A)
    check_gradients(lambda x: tf.boolean_mask(x, [False, True, True, False], axis=1), A)
