"""tf.random: TF's global/op seed rules, per-seed streams, distributions, dtypes and errors.

The engine's values differ from TF's (different Philox bit layout); the seed
*semantics* and the op seeds themselves match. Golden op seeds were recorded with
TensorFlow 2.21: ``tf.random.set_seed(1); random_seed.get_seed(None)`` three times.
"""
import random

import numpy as np
import pytest

import engine as tf
from engine.framework.registry import InferenceContext, get_op
from engine.framework.tensor_shape import TensorShape
from engine.ops import random_ops
from gradcheck import check_gradients


@pytest.fixture(autouse=True)
def _no_global_seed():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


# --------------------------------------------------------------------------------------
# Seed rules
# --------------------------------------------------------------------------------------
def test_op_seeds_match_tensorflow():
    tf.random.set_seed(1)
    assert [random_ops.get_seed(None) for _ in range(3)] == [(1, 577090037), (1, 271041745), (1, 1095513148)]
    tf.random.set_seed(0)
    assert random_ops.get_seed(0) == (0, 2 ** 31 - 1)                 # (0, 0) is reserved for "no seed"
    assert random_ops.get_seed(5) == (0, 5)
    tf.random.set_seed(2 ** 40)
    assert random_ops.get_seed(None) == (512, 445128065)
    tf.random.set_seed(None)
    assert random_ops.get_seed(None) == (None, None)
    assert random_ops.get_seed(7) == (87654321, 7)


def test_graph_mode_op_seeds_count_per_graph():
    from engine.framework.context import ctx

    class Graph:
        seed = 7

    class Unseeded:
        pass
    saved = ctx.graph
    try:
        ctx.graph = Graph()
        assert [random_ops.get_seed(None) for _ in range(2)] + [random_ops.get_seed(3)] == [(7, 0), (7, 1), (7, 3)]
        ctx.graph = Graph()
        assert random_ops.get_seed(None) == (7, 0)                        # a new graph starts counting again
        ctx.graph = Unseeded()
        assert random_ops.get_seed(None) == (None, None)                  # no graph seed, no global seed
        tf.random.set_seed(4)
        assert random_ops.get_seed(None) == (4, 0)                        # the global seed serves the graph
    finally:
        ctx.graph = saved


def test_set_seed_inside_a_graph_sets_the_graph_seed():
    graph = tf.compat.v1.Graph()
    with graph.as_default():
        tf.random.set_seed(12)
        assert random_ops.get_seed(None) == (12, 0)
        u = tf.random.uniform([2])
        with tf.compat.v1.Session() as sess:
            first, second = sess.run(u), sess.run(u)
    assert graph.seed == 12 and random_ops.STATE.global_seed is None
    assert first.shape == (2,) and not np.array_equal(first, second)      # a stateful node: a new draw per run


def test_global_seed_makes_the_sequence_reproducible():
    tf.random.set_seed(1)
    a, b = tf.random.uniform([2]).numpy(), tf.random.uniform([2]).numpy()
    tf.random.set_seed(1)
    c, d = tf.random.uniform([2]).numpy(), tf.random.uniform([2]).numpy()
    np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(b, d)
    assert not np.array_equal(a, b)
    tf.random.set_seed(2)
    assert not np.array_equal(tf.random.uniform([2]).numpy(), a)


def test_same_op_seed_gives_a_stream_of_different_values_restarted_by_set_seed():
    tf.random.set_seed(1234)
    a1 = tf.random.uniform([3], seed=1).numpy()
    a2 = tf.random.uniform([3], seed=1).numpy()
    assert not np.array_equal(a1, a2)
    tf.random.set_seed(1234)
    np.testing.assert_array_equal(tf.random.uniform([3], seed=1).numpy(), a1)
    np.testing.assert_array_equal(tf.random.uniform([3], seed=1).numpy(), a2)
    tf.random.set_seed(99)                                             # both seeds determine the values
    assert not np.array_equal(tf.random.uniform([3], seed=1).numpy(), a1)


def test_op_seed_alone_uses_the_default_global_seed():
    a = tf.random.uniform([4], seed=3).numpy()
    b = tf.random.uniform([4], seed=3).numpy()
    assert not np.array_equal(a, b)
    tf.random.set_seed(None)
    np.testing.assert_array_equal(tf.random.uniform([4], seed=3).numpy(), a)
    tf.random.set_seed(random_ops.DEFAULT_GRAPH_SEED)
    np.testing.assert_array_equal(tf.random.uniform([4], seed=3).numpy(), a)


def test_no_seed_is_random():
    a, b = tf.random.uniform([8]).numpy(), tf.random.uniform([8]).numpy()
    tf.random.set_seed(None)
    c = tf.random.uniform([8]).numpy()
    assert not np.array_equal(a, b) and not np.array_equal(a, c)


def test_each_op_type_and_dtype_has_its_own_stream():
    tf.random.set_seed(2)
    expected_normal = tf.random.normal([3], seed=5).numpy()
    expected_uniform = tf.random.uniform([3], seed=5).numpy()
    tf.random.set_seed(2)
    tf.random.uniform([3], seed=5)
    tf.random.uniform([3], seed=5, dtype=tf.float64)
    np.testing.assert_array_equal(tf.random.normal([3], seed=5).numpy(), expected_normal)
    tf.random.set_seed(2)
    tf.random.uniform([3], seed=5, dtype=tf.float64)
    tf.random.normal([3], seed=5)
    np.testing.assert_array_equal(tf.random.uniform([3], seed=5).numpy(), expected_uniform)


def test_streams_continue_across_shapes_like_tf_kernels():
    tf.random.set_seed(4)
    first = tf.random.uniform([2], seed=1, dtype=tf.float64).numpy()
    second = tf.random.uniform([3], seed=1, dtype=tf.float64).numpy()
    tf.random.set_seed(4)
    both = tf.random.uniform([5], seed=1, dtype=tf.float64).numpy()
    np.testing.assert_array_equal(np.concatenate([first, second]), both)


def test_stream_owner_gives_each_graph_node_its_own_stream():
    tf.random.set_seed(8)
    eager_first = tf.random.uniform([3], seed=1).numpy()
    tf.random.set_seed(8)
    with random_ops.stream_owner("node_a"):
        a = tf.random.uniform([3], seed=1).numpy()
    with random_ops.stream_owner("node_b"):
        b = tf.random.uniform([3], seed=1).numpy()
    np.testing.assert_array_equal(a, eager_first)
    np.testing.assert_array_equal(b, eager_first)                     # two nodes, same seeds: same values
    with random_ops.stream_owner("node_a"):
        assert not np.array_equal(tf.random.uniform([3], seed=1).numpy(), a)   # node_a's stream moved on


def test_stream_table_is_bounded(monkeypatch):
    monkeypatch.setattr(random_ops, "MAX_STREAMS", 5)
    tf.random.set_seed(3)
    for _ in range(20):
        tf.random.uniform([1])                                         # a fresh op seed every call
    assert len(random_ops.STATE.streams) == 5


# --------------------------------------------------------------------------------------
# Values and distributions
# --------------------------------------------------------------------------------------
def test_uniform_float_distribution_and_bounds():
    u = tf.random.uniform([200000], seed=1).numpy()
    assert u.dtype == np.float32 and u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    v = tf.random.uniform([50000], minval=-3.0, maxval=5.0, seed=2, dtype=tf.float64).numpy()
    assert v.dtype == np.float64 and v.min() >= -3 and v.max() < 5 and abs(v.mean() - 1) < 0.1
    w = tf.random.uniform([1000, 3], minval=tf.constant([0.0, 10.0, 20.0]), maxval=tf.constant([1.0, 11.0, 30.0]),
                          seed=3).numpy()
    assert (w.min(axis=0) >= [0, 10, 20]).all() and (w.max(axis=0) < [1, 11, 30]).all()
    h = tf.random.uniform([5000], dtype=tf.float16, seed=4).numpy()
    assert h.dtype == np.float16 and h.min() >= 0 and h.max() < 1 and abs(h.astype(np.float64).mean() - 0.5) < 0.03


def test_uniform_int_bounds_and_dtypes():
    ints = tf.random.uniform([20000], minval=-2, maxval=5, dtype=tf.int32, seed=1).numpy()
    assert ints.dtype == np.int32 and set(np.unique(ints)) == set(range(-2, 5))
    counts = np.bincount(ints + 2)
    assert counts.min() > 2500
    big = tf.random.uniform([1000], maxval=2 ** 40, dtype=tf.int64, seed=2).numpy()
    assert big.dtype == np.int64 and big.min() >= 0 and big.max() < 2 ** 40 and big.max() > 2 ** 38


def test_normal_and_truncated_normal_moments():
    n = tf.random.normal([200000], mean=2.0, stddev=3.0, seed=1).numpy()
    assert n.dtype == np.float32 and abs(n.mean() - 2) < 0.05 and abs(n.std() - 3) < 0.05
    t = tf.random.truncated_normal([200000], mean=-1.0, stddev=2.0, seed=2, dtype=tf.float64).numpy()
    assert t.dtype == np.float64
    assert np.abs(t + 1).max() <= 4.0                                  # within 2 standard deviations
    assert abs(t.mean() + 1) < 0.03 and abs(t.std() - 2 * 0.87962566) < 0.03
    assert tf.random.normal([3], dtype=tf.float16).dtype == tf.float16
    means = tf.random.normal([2000, 3], mean=tf.constant([0.0, 10.0, 20.0]), seed=3).numpy().mean(axis=0)
    np.testing.assert_allclose(means, [0, 10, 20], atol=0.15)


def test_shapes_and_shape_arguments():
    assert tf.random.uniform([]).shape == ()
    assert tf.random.uniform((2, 3)).shape == (2, 3)
    assert tf.random.normal(TensorShape([4, 1])).shape == (4, 1)
    assert tf.random.truncated_normal(tf.constant([2, 5])).shape == (2, 5)
    assert tf.random.uniform(np.array([3], np.int64)).shape == (3,)
    assert tf.random.uniform([0, 4]).shape == (0, 4)


def test_shuffle_is_a_permutation_along_the_first_axis():
    x = tf.reshape(tf.range(40), [20, 2])
    out = tf.random.shuffle(x, seed=1).numpy()
    assert out.shape == (20, 2) and out.dtype == np.int32
    assert sorted(out[:, 0].tolist()) == list(range(0, 40, 2))
    np.testing.assert_array_equal(out[:, 1], out[:, 0] + 1)            # rows move as a whole
    assert not np.array_equal(out, x.numpy())
    assert int(tf.random.shuffle(tf.constant(3))) == 3
    words = tf.random.shuffle(tf.constant(["a", "b", "c"]), seed=2).numpy()
    assert sorted(words.tolist()) == [b"a", b"b", b"c"]
    tf.random.set_seed(6)
    first = tf.random.shuffle(tf.range(10)).numpy()
    tf.random.set_seed(6)
    np.testing.assert_array_equal(tf.random.shuffle(tf.range(10)).numpy(), first)


def test_random_ops_are_stateful_and_not_differentiable():
    for name in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt", "RandomShuffle"):
        op = get_op(name)
        assert op.stateful and op.grad is None


def test_gradients_flow_to_mean_and_stddev():
    def f(mean, stddev):
        tf.random.set_seed(1)
        return tf.random.normal([3], mean=mean, stddev=stddev, seed=2, dtype=tf.float64)
    jac_mean, jac_std = check_gradients(f, 0.5, 2.0)
    np.testing.assert_allclose(jac_mean.ravel(), [1, 1, 1])
    tf.random.set_seed(1)
    z = tf.random.normal([3], seed=2, dtype=tf.float64).numpy()
    np.testing.assert_allclose(jac_std.ravel(), z)


def test_shape_inference():
    def infer(name, attrs, const=None, shape_of_shape=(2,)):
        class Sym:
            shape = TensorShape(list(shape_of_shape))
            dtype = tf.int32
        ic = InferenceContext(name, [Sym()], attrs, lambda t: const)
        return get_op(name).infer(ic)[0]
    assert infer("RandomUniform", {"dtype": tf.float64}) == (tf.float64, TensorShape([None, None]))
    assert infer("RandomStandardNormal", {"dtype": tf.float32}, np.array([4, 5]))[1].as_list() == [4, 5]
    assert infer("TruncatedNormal", {"dtype": tf.float32}, shape_of_shape=(None,))[1].rank is None


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------
def test_errors():
    with pytest.raises(ValueError, match=r"Argument `dtype` got invalid value <dtype: 'bool'>. Accepted dtypes are "
                                         r"\(tf.float16, tf.float32, tf.float64, tf.int32, tf.int64\)"):
        tf.random.uniform([2], dtype=tf.bool)
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype tf.int32"):
        tf.random.uniform([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Need minval < maxval, got 5 >= 3 \[Op:RandomUniformInt\]"):
        tf.random.uniform([2], 5, 3, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"minval must be 0-D, got shape \[2\].*RandomUniformInt"):
        tf.random.uniform([3], minval=tf.constant([1, 2]), maxval=5, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Dimension -2 must be >= 0 \[Op:RandomUniform\]"):
        tf.random.uniform([-2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"shape must be a vector of \{int32,int64\}, got shape \[1,1\] \[Op:RandomUniform\]"):
        tf.random.uniform([[2]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"got shape \[\] \[Op:RandomStandardNormal\]"):
        tf.random.normal(3)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"float32.*RandomUniform"):
        tf.random.uniform([2.5])
    with pytest.raises(TypeError, match="int32"):
        tf.random.normal([2], dtype=tf.int32)
    with pytest.raises(TypeError, match="int32"):
        tf.random.truncated_normal([2], dtype=tf.int32)


def test_python_random_is_untouched():
    state = random.getstate()
    tf.random.set_seed(1)
    tf.random.uniform([2])
    assert random.getstate() == state


@pytest.mark.gpu
def test_gpu_values_equal_cpu_values_for_the_same_seeds():
    tf.random.set_seed(3)
    cpu = tf.random.normal([4, 5], seed=1).numpy()
    tf.random.set_seed(3)
    with tf.device("/GPU:0"):
        gpu = tf.random.normal([4, 5], seed=1)
        ints = tf.random.uniform([100], maxval=7, dtype=tf.int64, seed=2)
        shuffled = tf.random.shuffle(tf.range(10), seed=3)
    assert "GPU" in gpu.device
    np.testing.assert_array_equal(gpu.numpy(), cpu)
    assert ints.numpy().min() >= 0 and ints.numpy().max() < 7
    assert sorted(shuffled.numpy().tolist()) == list(range(10))
