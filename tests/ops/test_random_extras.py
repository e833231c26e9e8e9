"""tf.random.categorical (Multinomial) and the stateless ops (stateless_normal, stateless_uniform).

Values differ from TF's by design (another Philox layout), so these tests check
distributions, shapes, dtypes, errors and the seed rules, not TF's numbers.
"""
import re

import numpy as np
import pytest

import engine as tf
from engine.framework.registry import get_op

IAE = tf.errors.InvalidArgumentError
v1 = tf.compat.v1


def raises(cls, *fragments):
    return pytest.raises(cls, match="(?s)" + ".*".join(re.escape(f) for f in fragments))


@pytest.fixture(autouse=True)
def _no_global_seed():
    yield
    tf.random.set_seed(None)


# --------------------------------------------------------------------------------------
# categorical
# --------------------------------------------------------------------------------------
def test_categorical_shapes_dtypes_and_distribution():
    out = tf.random.categorical([[0.0, 1.0, 2.0], [5.0, -5.0, 0.0]], 7, seed=1)
    assert out.shape == (2, 7) and out.dtype == tf.int64
    assert tf.random.categorical(tf.zeros([3, 4]), 2, dtype=tf.int32).dtype == tf.int32
    assert tf.random.categorical(tf.zeros([3, 4], tf.float64), 0).shape == (3, 0)
    p = np.array([0.1, 0.6, 0.3])
    draws = tf.random.categorical(np.log(p)[None], 20000, seed=4).numpy()[0]
    assert set(draws.tolist()) <= {0, 1, 2}
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / draws.size, p, atol=0.02)
    certain = tf.random.categorical([[0.0, -np.inf, -np.inf], [-np.inf, -np.inf, 30.0]], 50, seed=2).numpy()
    assert (certain[0] == 0).all() and (certain[1] == 2).all()


def test_categorical_follows_the_seed_rules():
    tf.random.set_seed(5)
    a = tf.random.categorical(tf.zeros([2, 10]), 6)
    b = tf.random.categorical(tf.zeros([2, 10]), 6)
    tf.random.set_seed(5)
    np.testing.assert_array_equal(tf.random.categorical(tf.zeros([2, 10]), 6).numpy(), a.numpy())
    np.testing.assert_array_equal(tf.random.categorical(tf.zeros([2, 10]), 6).numpy(), b.numpy())
    first = tf.random.categorical(tf.zeros([1, 1000]), 8, seed=3).numpy()
    second = tf.random.categorical(tf.zeros([1, 1000]), 8, seed=3).numpy()
    assert not np.array_equal(first, second)           # one op seed is one stream that advances
    op = get_op("Multinomial")
    assert op.stateful and not op.differentiable


def test_categorical_in_a_graph():
    g = tf.Graph()
    with g.as_default():
        tf.random.set_seed(3)
        logits = v1.placeholder(tf.float32, [None, 4])
        out = tf.random.categorical(logits, 5)
    assert out.shape.as_list() == [None, 5] and out.dtype == tf.int64
    with v1.Session(graph=g) as sess:
        first = sess.run(out, {logits: np.zeros((3, 4), np.float32)})
        second = sess.run(out, {logits: np.zeros((3, 4), np.float32)})
    with v1.Session(graph=g) as sess:               # a new Session starts the node's stream again
        np.testing.assert_array_equal(sess.run(out, {logits: np.zeros((3, 4), np.float32)}), first)
    assert first.shape == (3, 5) and not np.array_equal(first, second)


@pytest.mark.parametrize("call, message", [
    (lambda: tf.random.categorical([1.0, 2.0], 2), "logits should be a matrix, got shape [2]"),
    (lambda: tf.random.categorical([[1.0, 2.0]], -1), "num_samples should be nonnegative, got -1"),
    (lambda: tf.random.categorical(tf.zeros([2, 0]), 1), "num_classes should be positive, got 0"),
    (lambda: tf.random.categorical([[1.0]], 1, dtype=tf.float32), "Value for attr 'output_dtype' of float32"),
])
def test_categorical_errors(call, message):
    with raises(IAE, message, "[Op:Multinomial]"):
        call()


# --------------------------------------------------------------------------------------
# stateless
# --------------------------------------------------------------------------------------
def test_stateless_is_a_pure_function_of_the_seed():
    a = tf.random.stateless_normal([2, 3], seed=[1, 2])
    tf.random.set_seed(99)                                   # the global seed plays no part
    b = tf.random.stateless_normal([2, 3], seed=tf.constant([1, 2], tf.int64))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert a.dtype == tf.float32 and a.shape == (2, 3)
    assert not np.array_equal(a.numpy(), tf.random.stateless_normal([2, 3], seed=[1, 3]).numpy())
    u1 = tf.random.stateless_uniform([4], seed=[7, -8])
    np.testing.assert_array_equal(u1.numpy(), tf.random.stateless_uniform([4], seed=[7, -8]).numpy())
    g = tf.Graph()
    with g.as_default():
        s = v1.placeholder(tf.int32, [2])
        out = tf.random.stateless_normal([2, 3], s)
    assert out.shape.as_list() == [2, 3]
    with v1.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(out, {s: [1, 2]}), a.numpy())
        np.testing.assert_array_equal(sess.run(out, {s: [1, 2]}), a.numpy())


def test_stateless_distributions_and_dtypes():
    n = tf.random.stateless_normal([20000], [3, 4], mean=2.0, stddev=3.0, dtype=tf.float64).numpy()
    assert n.dtype == np.float64 and abs(n.mean() - 2.0) < 0.1 and abs(n.std() - 3.0) < 0.1
    u = tf.random.stateless_uniform([20000], [3, 4], minval=-2.0, maxval=6.0).numpy()
    assert u.dtype == np.float32 and u.min() >= -2.0 and u.max() < 6.0 and abs(u.mean() - 2.0) < 0.1
    h = tf.random.stateless_uniform([1000], [3, 4], dtype=tf.float16).numpy()
    assert h.dtype == np.float16 and h.min() >= 0 and h.max() < 1
    i = tf.random.stateless_uniform([1000], [1, 1], minval=3, maxval=9, dtype=tf.int32).numpy()
    assert i.dtype == np.int32 and set(i.tolist()) == set(range(3, 9))
    full = tf.random.stateless_uniform([1000], [1, 1], minval=None, maxval=None, dtype=tf.uint32).numpy()
    assert full.dtype == np.uint32 and full.max() > 2 ** 31
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:                          # gradients reach the bounds, not the noise
        tape.watch(x)
        y = tf.reduce_sum(tf.random.stateless_uniform([5], [1, 2], minval=0.0, maxval=x))
    r = tf.random.stateless_uniform([5], [1, 2]).numpy()
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), r.sum(), rtol=1e-6)


def test_stateless_errors():  # TF messages
    with raises(ValueError, "seed must have shape [2], not [3]"):
        tf.random.stateless_normal([2], seed=[1, 2, 3])
    with raises(IAE, "Value for attr 'T' of float32 is not in the list of allowed values: int32, int64"):
        tf.random.stateless_normal([2], seed=[1.0, 2.0])
    with raises(ValueError, "For integer `dtype` argument <dtype: 'int32'>, argument `minval` and `maxval` must be "
                            "both None or not None. Got `minval`=0 and `maxval`=None."):
        tf.random.stateless_uniform([2], [1, 2], dtype=tf.int32)
    with raises(IAE, "Need minval < maxval: 5 >= 5", "[Op:StatelessRandomUniformInt]"):
        tf.random.stateless_uniform([2], [1, 2], minval=5, maxval=5, dtype=tf.int64)
    with raises(ValueError, "Argument `dtype` got invalid value <dtype: 'bool'>"):
        tf.random.stateless_uniform([2], [1, 2], dtype=tf.bool)
    with raises(TypeError, "random normal values need a floating-point dtype"):
        tf.random.stateless_normal([2], [1, 2], dtype=tf.int32)
    g = tf.Graph()
    with g.as_default():
        s = v1.placeholder(tf.int32, [None])
        out = tf.random.stateless_uniform([3], s)
        with raises(ValueError, "seed must have shape [2], not [3]"):
            tf.random.stateless_normal([3], v1.placeholder(tf.int32, [3]))
    with v1.Session(graph=g) as sess:
        with raises(IAE, "seed must have shape [2], not [3]"):
            sess.run(out, {s: np.array([1, 2, 3], np.int32)})
