"""roll, repeat, meshgrid, sequence_mask, ensure_shape, identity_n, shape_n, histogram_fixed_width,
tf.nn.embedding_lookup, tf.nn.batch_normalization and the tf.math aliases.

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
X23 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
rng = np.random.default_rng(9)
A = rng.normal(size=(3, 4))


def raises(cls, *fragments):
    return pytest.raises(cls, match="(?s)" + ".*".join(re.escape(f) for f in fragments))


def x6():
    return tf.reshape(tf.range(6), [2, 3])


# --------------------------------------------------------------------------------------
# roll
# --------------------------------------------------------------------------------------
def test_roll_values():  # TF values
    assert tf.roll([0, 1, 2, 3, 4], 2, 0).numpy().tolist() == [3, 4, 0, 1, 2]
    assert tf.roll(x6(), [1, -1], [0, 1]).numpy().tolist() == [[4, 5, 3], [1, 2, 0]]
    assert tf.roll(x6(), [1, 1], [1, 1]).numpy().tolist() == [[1, 2, 0], [4, 5, 3]]   # shifts on one axis add up
    assert tf.roll(x6(), 1, -1).numpy().tolist() == [[2, 0, 1], [5, 3, 4]]
    assert tf.roll(x6(), tf.constant(1, tf.int64), tf.constant(0, tf.int64)).dtype == tf.int32


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=st.integers(0, 9)),
       st.data())
def test_roll_matches_numpy(a, data):
    axes = data.draw(st.lists(st.integers(-a.ndim, a.ndim - 1), min_size=1, max_size=3))
    shifts = data.draw(st.lists(st.integers(-7, 7), min_size=len(axes), max_size=len(axes)))
    np.testing.assert_array_equal(tf.roll(a, shifts, axes).numpy(), np.roll(a, shifts, axes))


@pytest.mark.parametrize("call, message", [  # TF messages
    (lambda: tf.roll(x6(), 1, 2), "axis 2 is out of range"),
    (lambda: tf.roll(x6(), [1, 2], [0]), "shift and axis must have the same size"),
    (lambda: tf.roll(tf.constant(1.0), 1, 0), "input must be 1-D or higher"),
    (lambda: tf.roll(x6(), [[1]], [0]), "shift must be a scalar or a 1-D vector. Found: [1,1]"),
])
def test_roll_errors(call, message):
    with raises(IAE, message, "[Op:Roll]"):
        call()


def test_roll_gradient():  # TF: the gradient rolls back
    check_gradients(lambda x: tf.roll(x, [1, -1], [0, 1]) * tf.constant(A), A)
    check_second_order(lambda x: tf.roll(x * x, 2, 1), A)


# --------------------------------------------------------------------------------------
# repeat
# --------------------------------------------------------------------------------------
def test_repeat_values():  # TF values
    assert tf.repeat([1, 2, 3], 2).numpy().tolist() == [1, 1, 2, 2, 3, 3]
    assert tf.repeat(x6(), [2, 0, 1], axis=1).numpy().tolist() == [[0, 0, 2], [3, 3, 5]]
    assert tf.repeat(x6(), [1, 2, 1, 2, 1, 2]).numpy().tolist() == [0, 1, 1, 2, 3, 3, 4, 5, 5]
    assert tf.repeat(3, 4).numpy().tolist() == [3, 3, 3, 3]
    assert tf.repeat(x6(), 2, axis=0).shape == (4, 3)


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=3), elements=st.integers(0, 9)),
       st.data())
def test_repeat_matches_numpy(a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    reps = data.draw(st.one_of(st.integers(0, 3), st.lists(st.integers(0, 3), min_size=a.shape[axis],
                                                            max_size=a.shape[axis])))
    np.testing.assert_array_equal(tf.repeat(a, reps, axis=axis).numpy(), np.repeat(a, reps, axis=axis))


def test_repeat_errors():  # TF messages
    with raises(ValueError, "Dimensions 3 and 2 are not compatible"):
        tf.repeat(x6(), [1, 2], axis=1)
    with raises(IAE, "Expected multiples[2] >= 0, but got -1", "[Op:Tile]"):
        tf.repeat(x6(), -1, axis=1)
    with raises(ValueError, "axis=2 out of bounds: expected -2<=axis<2"):
        tf.repeat(x6(), 2, axis=2)
    with raises(TypeError, "Argument `tensor` (name: repeats) must be of type integer"):
        tf.repeat(x6(), 2.0, axis=1)


def test_repeat_gradients_and_static_shapes():
    check_gradients(lambda x: tf.repeat(x, 2, axis=1), A)
    check_gradients(lambda x: tf.repeat(x, [2, 0, 1], axis=0), A)
    g = tf.Graph()
    with g.as_default():   # TF's static shapes
        p = tf.compat.v1.placeholder(tf.float32, [None, 3])
        assert tf.repeat(p, 2, axis=1).shape.as_list() == [None, 6]
        assert tf.repeat(p, [1, 2, 3], axis=1).shape.as_list() == [None, 6]
        assert tf.repeat(p, 2, axis=0).shape.as_list() == [None, 3]
        assert tf.repeat(p, 2).shape.as_list() == [None]


# --------------------------------------------------------------------------------------
# meshgrid, sequence_mask
# --------------------------------------------------------------------------------------
def test_meshgrid_values():  # TF values
    xy = tf.meshgrid([1, 2, 3], [4, 5])
    assert [t.numpy().tolist() for t in xy] == [[[1, 2, 3], [1, 2, 3]], [[4, 4, 4], [5, 5, 5]]]
    ij = tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    assert [t.numpy().tolist() for t in ij] == [[[1, 1], [2, 2], [3, 3]], [[4, 5], [4, 5], [4, 5]]]
    assert [t.shape for t in tf.meshgrid([1, 2, 3], [4, 5], [6, 7, 8, 9])] == [(2, 3, 4)] * 3
    assert [t.numpy().tolist() for t in tf.meshgrid([1, 2, 3])] == [[1, 2, 3]]
    for a, b in zip(tf.meshgrid(A[0], A[1, :2], indexing="ij"), np.meshgrid(A[0], A[1, :2], indexing="ij")):
        np.testing.assert_array_equal(a.numpy(), b)


def test_meshgrid_errors_and_gradient():  # TF messages and values
    with raises(ValueError, "Argument `indexing` parameter must be either 'xy' or 'ij', got 'ab'"):
        tf.meshgrid([1, 2, 3], [4, 5], indexing="ab")
    with raises(IAE, "cannot compute Mul as input #1(zero-based) was expected to be a float tensor but is a int32"):
        tf.meshgrid([1, 2], [1.0, 2])
    x = tf.constant(X23)
    with tf.GradientTape() as tape:
        tape.watch(x)
        m = tf.meshgrid(x[0], x[1, :2])
    assert tape.gradient(m, x).numpy().tolist() == [[2.0, 2.0, 2.0], [3.0, 3.0, 0.0]]
    check_gradients(lambda a, b: tf.meshgrid(a, b)[0] * tf.meshgrid(a, b)[1], A[0], A[1, :3])


def test_sequence_mask():  # TF values
    assert tf.sequence_mask([1, 3, 2], 5).numpy().tolist() == [
        [True, False, False, False, False], [True, True, True, False, False], [True, True, False, False, False]]
    m = tf.sequence_mask([[1, 3], [2, 0]])
    assert m.shape == (2, 2, 3) and m.numpy()[1, 1].tolist() == [False] * 3
    f = tf.sequence_mask([1, 3], 4, dtype=tf.float32)
    assert f.dtype == tf.float32 and f.numpy().tolist() == [[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0]]
    assert tf.sequence_mask([1.0, 3.0], 4).numpy().tolist()[1] == [True, True, True, False]
    assert tf.sequence_mask([1, -3], 4).numpy().tolist()[1] == [False] * 4
    assert tf.sequence_mask(2, 4).numpy().tolist() == [True, True, False, False]
    with raises(ValueError, "Argument `maxlen` must be scalar for sequence_mask", "with shape '(1,)' instead"):
        tf.sequence_mask([1, 3], [4])


# --------------------------------------------------------------------------------------
# ensure_shape, identity_n, shape_n
# --------------------------------------------------------------------------------------
def test_ensure_shape():  # TF values and messages
    assert tf.ensure_shape(x6(), [2, None]).numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert tf.ensure_shape(x6(), None).shape == (2, 3)
    with raises(IAE, "Shape of tensor input [2,3] is not compatible with expected shape [3,3].", "[Op:EnsureShape]"):
        tf.ensure_shape(x6(), [3, 3])
    with raises(IAE, "Shape of tensor input [2,3] is not compatible with expected shape [6]."):
        tf.ensure_shape(x6(), [6])
    g = tf.Graph()
    with g.as_default():
        p = tf.compat.v1.placeholder(tf.float32, [None, 3])
        with raises(ValueError, "Dimension 1 in both shapes must be equal, but are 2 and 3. Shapes are [2,2] and "
                                "[?,3].", "EnsureShape"):
            tf.ensure_shape(p, [2, 2])
        assert tf.ensure_shape(p, [2, None]).shape.as_list() == [2, 3]
        assert tf.ensure_shape(tf.compat.v1.placeholder(tf.float32, None), [None, 4]).shape.as_list() == [None, 4]
        q = tf.compat.v1.placeholder(tf.float32, [None, 3])
        checked = tf.ensure_shape(q, [2, 3])
    with tf.compat.v1.Session(graph=g) as sess:
        with raises(IAE, "Shape of tensor input [4,3] is not compatible with expected shape [2,3]."):
            sess.run(checked, {q: np.zeros((4, 3), np.float32)})
    check_gradients(lambda x: tf.ensure_shape(x, [3, None]) * 2.0, A)


def test_identity_n_and_shape_n():  # TF values and messages
    a, b = tf.identity_n([x6(), tf.constant(1.0)])
    assert a.numpy().tolist() == [[0, 1, 2], [3, 4, 5]] and b.numpy() == 1.0 and b.dtype == tf.float32
    check_gradients(lambda x, y: tf.identity_n([x, y])[0] * tf.identity_n([x, y])[1][0], A, A[0])
    s1, s2 = tf.shape_n([tf.zeros([2, 3]), tf.zeros([])])
    assert s1.numpy().tolist() == [2, 3] and s2.numpy().tolist() == [] and s1.dtype == tf.int32
    assert tf.shape_n([x6()], out_type=tf.int64)[0].dtype == tf.int64
    with raises(IAE, "cannot compute ShapeN as input #1(zero-based) was expected to be a int32 tensor but is a float"):
        tf.shape_n([x6(), tf.constant(1.0)])
    with raises(IAE, "Value for attr 'out_type' of float32 is not in the list of allowed values: int32, int64"):
        tf.shape_n([x6()], out_type=tf.float32)


# --------------------------------------------------------------------------------------
# histogram_fixed_width
# --------------------------------------------------------------------------------------
def test_histogram_fixed_width():  # TF values
    v = tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15])
    h = tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5)
    assert h.numpy().tolist() == [2, 1, 1, 0, 2] and h.dtype == tf.int32
    i = tf.histogram_fixed_width(tf.constant([1, 2, 3, 9]), [0, 10], nbins=3, dtype=tf.int64)
    assert i.numpy().tolist() == [3, 0, 1] and i.dtype == tf.int64
    assert tf.histogram_fixed_width(tf.reshape(v, [2, 3]), [0.0, 5.0], nbins=5).numpy().tolist() == [2, 1, 1, 0, 2]
    edges = tf.constant([0.1, 0.2, 0.3, 0.7, 0.9, 0.99999])      # float32 rounding decides the bins, as in TF
    assert tf.histogram_fixed_width(edges, [0.0, 1.0], nbins=10).numpy().tolist() == [0, 1, 1, 1, 0, 0, 1, 0, 1, 1]
    assert tf.histogram_fixed_width(v, [0.0, 5.0]).shape == (100,)


@pytest.mark.parametrize("call, message", [  # TF messages
    (lambda v: tf.histogram_fixed_width(v, [5.0, 0.0], nbins=5),
     "value_range should satisfy value_range[0] < value_range[1], but got '[5, 0]'"),
    (lambda v: tf.histogram_fixed_width(v, [0.0, 5.0], nbins=0), "nbins should be a positive number, but got '0'"),
    (lambda v: tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5, dtype=tf.float32),
     "Value for attr 'dtype' of float32 is not in the list of allowed values: int32, int64"),
    (lambda v: tf.histogram_fixed_width(v, [0.0, 5.0, 3.0], nbins=5), "value_range should be a vector of 2 elements."),
    (lambda v: tf.histogram_fixed_width(tf.constant([np.nan, 1.0]), [0.0, 1.0], nbins=4),
     "Histogram values must not contain NaN"),
])
def test_histogram_errors(call, message):
    with raises(IAE, message, "[Op:HistogramFixedWidth]"):
        call(tf.constant([-1.0, 0.0, 1.5]))


# --------------------------------------------------------------------------------------
# tf.nn.embedding_lookup, tf.nn.batch_normalization, tf.math aliases
# --------------------------------------------------------------------------------------
def test_embedding_lookup():  # TF values
    p = tf.reshape(tf.range(20.0), [10, 2])
    ids = tf.constant([[0, 9], [3, 4]])
    expected = [[[0.0, 1.0], [18.0, 19.0]], [[6.0, 7.0], [8.0, 9.0]]]
    assert tf.nn.embedding_lookup(p, ids).numpy().tolist() == expected
    assert tf.nn.embedding_lookup([p[:4], p[4:7], p[7:]], ids).numpy().tolist() == expected   # "div" shards
    np.testing.assert_allclose(tf.nn.embedding_lookup(p, [1, 2], max_norm=3.0).numpy(),
                               [[1.6641006469726562, 2.4961509704589844], [1.8740850687026978, 2.34260630607605]],
                               rtol=1e-6)
    check_gradients(lambda q: tf.nn.embedding_lookup(q, [[2, 0], [2, 1]]), A)
    check_gradients(lambda a, b: tf.nn.embedding_lookup([a, b], [2, 0, 1, 1]), A[:2], A[2:])


def test_batch_normalization():  # TF values
    x = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    m, v = tf.nn.moments(x, [0])
    np.testing.assert_allclose(tf.nn.batch_normalization(x, m, v, 0.5, 2.0, 1e-3).numpy(),
                               [[-1.4990007877349854, -1.4995555877685547], [2.4990010261535645, 2.499556064605713]],
                               rtol=1e-6)
    np.testing.assert_allclose(tf.nn.batch_normalization(x, m, v, None, None, 1e-3).numpy(),
                               [[-0.9995003938674927, -0.9997777938842773], [0.9995005130767822, 0.9997780323028564]],
                               rtol=1e-6)
    check_gradients(lambda x_, m_, v_, o, s: tf.nn.batch_normalization(x_, m_, v_, o, s, 1e-3),
                    A, A[0], np.abs(A[1]) + 0.5, A[2], A[0] * 2)


def test_math_aliases():
    assert tf.math.softplus is tf.nn.softplus and tf.math.log_softmax is tf.nn.log_softmax
    assert tf.math.top_k is tf.nn.top_k
    for name in ("sort", "argsort", "unique", "unique_with_counts", "searchsorted", "dynamic_partition",
                 "dynamic_stitch", "tensor_scatter_nd_update", "tensor_scatter_nd_min", "repeat", "roll", "meshgrid",
                 "sequence_mask", "ensure_shape", "identity_n", "shape_n", "histogram_fixed_width"):
        assert callable(getattr(tf, name)), name
    for name in ("top_k", "bincount", "segment_sum", "unsorted_segment_sum"):   # tf.math only, as in TF
        assert not hasattr(tf, name), name
