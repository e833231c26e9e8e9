"""map/filter tracing, cache, and shuffle semantics (golden values recorded from TF 2.21)."""
import numpy as np
import pytest

import engine as tf
import engine.data  # noqa: F401

R = tf.data.Dataset.range


def ints(ds):
    return [int(x) for x in ds.as_numpy_iterator()]


# --------------------------------------------------------------------------------------
# map / filter
# --------------------------------------------------------------------------------------
def test_map_traces_once_when_built_not_per_element_or_epoch():
    calls = []

    def f(x):
        calls.append(tf.executing_eagerly())
        return x * 2
    ds = R(4).map(f)
    assert calls == [False]                  # traced when map() is called, on symbolic tensors
    assert ints(ds) == [0, 2, 4, 6] and ints(ds) == [0, 2, 4, 6]
    assert calls == [False]
    assert ds._function.function.experimental_get_tracing_count() == 1


def test_map_argument_conventions():
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4]))
    assert ints(pairs.map(lambda x, y: x + y)) == [4, 6]           # tuples are unpacked
    dicts = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [3, 4]})
    assert ints(dicts.map(lambda d: d["a"] * d["b"])) == [3, 8]    # a dict is one argument
    with pytest.raises(TypeError):
        pairs.map(lambda x: x)
    with pytest.raises(TypeError):
        dicts.map(lambda a, b: a)


def test_map_output_structures_and_specs():
    assert repr(R(2).map(lambda x: [x, x]).element_spec) == \
        "(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorSpec(shape=(), dtype=tf.int64, name=None))"
    assert repr(R(2).map(lambda x: (x, 1, 2.0, "s")).element_spec) == (
        "(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorSpec(shape=(), dtype=tf.int32, name=None), "
        "TensorSpec(shape=(), dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.string, name=None))")
    assert repr(R(2).map(lambda x: np.float64(1.5)).element_spec) == \
        "TensorSpec(shape=(), dtype=tf.float64, name=None)"
    assert repr(R(2).map(lambda x: {"y": (x, x)}).element_spec) == (
        "{'y': (TensorSpec(shape=(), dtype=tf.int64, name=None), TensorSpec(shape=(), dtype=tf.int64, name=None))}")
    ds = tf.data.Dataset.from_tensor_slices({"x": [[1.0, 2.0]], "y": [0]}).map(lambda d: (d["x"], d["y"]))
    assert repr(ds.element_spec) == \
        "(TensorSpec(shape=(2,), dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.int32, name=None))"
    assert [(a.tolist(), int(b)) for a, b in ds.as_numpy_iterator()] == [([1.0, 2.0], 0)]
    assert repr(R(3).map(lambda x: tf.range(x)).element_spec) == \
        "TensorSpec(shape=(None,), dtype=tf.int64, name=None)"
    with pytest.raises(TypeError, match="Unsupported return value from function passed to Dataset.map()"):
        R(2).map(lambda x: None)


def test_map_accepts_parallelism_and_a_tf_function():
    ds = R(4).map(tf.function(lambda x: x + 1), num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    assert ints(ds) == [1, 2, 3, 4]
    assert ints(R(3).map(lambda x: x, num_parallel_calls=2)) == [0, 1, 2]


def test_map_after_batch_and_stateful_ops_run_per_element():
    v = tf.Variable(0, dtype=tf.int64)

    def f(x):
        v.assign_add(1)
        return x + v.read_value()
    assert ints(R(3).map(f)) == [1, 3, 5]
    batches = [b.tolist() for b in R(5).batch(2).map(lambda b: b * 10).as_numpy_iterator()]
    assert batches == [[0, 10], [20, 30], [40]]


def test_map_is_invisible_to_gradient_tapes():
    x = tf.Variable(2.0)
    ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).map(lambda e: e * x)
    with tf.GradientTape() as tape:
        total = tf.add_n(list(ds))
    assert float(total) == 6.0
    assert tape.gradient(total, x) is None          # dataset ops are not differentiated, as in TF


def test_filter():
    assert ints(R(6).filter(lambda x: x % 2 == 0)) == [0, 2, 4]
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [3, 4, 5])).filter(lambda x, y: x > 1)
    assert [(int(a), int(b)) for a, b in pairs.as_numpy_iterator()] == [(2, 4), (3, 5)]
    assert ints(R(3).filter(lambda x: True)) == [0, 1, 2]
    calls = []

    def p(x):
        calls.append(1)
        return x > 1
    ds = R(4).filter(p)
    ints(ds), ints(ds)
    assert calls == [1]


def test_filter_predicate_must_return_a_scalar_bool():
    with pytest.raises(ValueError, match=r"^Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                                         r"but its return type is TensorSpec\(shape=\(\), dtype=tf.int64, "
                                         r"name=None\).$"):
        R(3).filter(lambda x: x)
    with pytest.raises(ValueError, match=r"TensorSpec\(shape=\(2,\), dtype=tf.bool, name=None\)"):
        R(3).filter(lambda x: tf.stack([x > 1, x > 2]))


def test_building_a_dataset_inside_a_traced_function_traces_in_its_own_graph():
    @tf.function
    def f():
        ds = R(4).map(lambda x: x * 3)
        return tf.constant(len(ds))
    assert int(f()) == 4


# --------------------------------------------------------------------------------------
# cache
# --------------------------------------------------------------------------------------
def test_cache_runs_upstream_side_effects_once():
    v = tf.Variable(0)

    def side(x):
        v.assign_add(1)
        return x
    cached = R(5).map(side).cache()
    assert ints(cached) == [0, 1, 2, 3, 4] and ints(cached) == [0, 1, 2, 3, 4]
    assert int(v.numpy()) == 5                    # TF: 5
    v.assign(0)
    plain = R(5).map(side)
    ints(plain), ints(plain)
    assert int(v.numpy()) == 10                   # TF: 10


def test_cache_ignores_an_abandoned_partial_pass():
    v = tf.Variable(0)

    def side(x):
        v.assign_add(1)
        return x
    ds = R(5).map(side).cache()
    it = iter(ds)
    next(it), next(it)
    del it
    assert ints(ds) == [0, 1, 2, 3, 4]
    assert int(v.numpy()) == 7                    # 2 from the abandoned pass, 5 from the complete one
    ints(ds)
    assert int(v.numpy()) == 7                    # then replayed from memory


def test_cache_freezes_an_upstream_shuffle():
    ds = R(6).shuffle(6, seed=1).cache()
    first = ints(ds)
    assert sorted(first) == list(range(6)) and ints(ds) == first


def test_cache_to_a_file_is_not_implemented():
    with pytest.raises(NotImplementedError, match="in-memory"):
        R(3).cache("/tmp/somewhere")


# --------------------------------------------------------------------------------------
# shuffle
# --------------------------------------------------------------------------------------
def test_shuffle_is_a_permutation_and_reshuffles_each_epoch():
    ds = R(50).shuffle(50, seed=1)
    e1, e2 = ints(ds), ints(ds)
    assert sorted(e1) == sorted(e2) == list(range(50))
    assert e1 != e2 and e1 != list(range(50))


def test_shuffle_with_a_seed_replays_the_same_sequence_of_epochs():
    a = R(20).shuffle(20, seed=7)
    b = R(20).shuffle(20, seed=7)
    assert [ints(a), ints(a), ints(a)] == [ints(b), ints(b), ints(b)]
    assert ints(R(20).shuffle(20, seed=8)) != ints(R(20).shuffle(20, seed=7))


def test_shuffle_without_reshuffle_repeats_one_order():
    for seed in (3, None):
        ds = R(20).shuffle(20, seed=seed, reshuffle_each_iteration=False)
        first = ints(ds)
        assert ints(ds) == first and sorted(first) == list(range(20))
    ds = R(5).shuffle(5, seed=2, reshuffle_each_iteration=False).repeat(3)
    out = ints(ds)
    assert out[:5] == out[5:10] == out[10:]


def test_shuffle_then_repeat_reshuffles_each_repetition():
    out = ints(R(8).shuffle(8, seed=2).repeat(3))
    epochs = [out[:8], out[8:16], out[16:]]
    assert all(sorted(e) == list(range(8)) for e in epochs)
    assert len({tuple(e) for e in epochs}) > 1


def test_repeat_then_shuffle_mixes_epochs():
    out = ints(R(4).repeat(2).shuffle(8, seed=1))
    assert sorted(out) == [0, 0, 1, 1, 2, 2, 3, 3]


def test_shuffle_without_seeds_differs_between_datasets():
    orders = {tuple(ints(R(30).shuffle(30))) for _ in range(3)}
    assert len(orders) > 1


def test_global_seed_rules():
    tf.random.set_seed(5)
    a = R(20).shuffle(20)
    a_epochs = [ints(a), ints(a)]
    b_first = ints(R(20).shuffle(20))            # the next op seed from the counter: another order
    tf.random.set_seed(5)
    a2 = R(20).shuffle(20)
    assert [ints(a2), ints(a2)] == a_epochs       # TF: the same epochs after set_seed with the same value
    assert b_first != a_epochs[0]
    tf.random.set_seed(5)
    tf.random.uniform([1])                       # a random op takes the first op seed ...
    c = R(20).shuffle(20)
    assert ints(c) == b_first                    # ... so this dataset gets the second, like the 2nd one (as in TF)
    tf.random.set_seed(None)


def test_interleaved_iterators_are_different_epochs():
    ds = R(10).shuffle(10, seed=1)
    i1, i2 = iter(ds), iter(ds)
    first = [int(next(i1)) for _ in range(10)]
    second = [int(next(i2)) for _ in range(10)]
    assert sorted(first) == sorted(second) == list(range(10)) and first != second


def test_buffer_size_one_keeps_the_order():
    assert ints(R(10).shuffle(1, seed=3)) == list(range(10))


@pytest.mark.parametrize("buffer_size", [2, 3, 5])
def test_small_buffers_only_shuffle_locally(buffer_size):
    # An element enters the buffer after the first buffer_size - 1 elements before it have been
    # pulled in, so the element at output position p is at most p + buffer_size - 1.
    moved = False
    for seed in range(20):
        out = ints(R(30).shuffle(buffer_size, seed=seed))
        assert sorted(out) == list(range(30))
        assert all(v <= p + buffer_size - 1 for p, v in enumerate(out))
        assert out[0] < buffer_size
        moved |= out != list(range(30))
    assert moved


def test_shuffle_buffer_is_roughly_uniform():
    firsts = np.bincount([ints(R(4).shuffle(4, seed=s))[0] for s in range(400)], minlength=4)
    assert firsts.min() > 60                       # each of 4 values leads about 100 times in 400 seeds


def test_shuffle_buffer_unknown_cardinality_means_the_whole_dataset():
    out = ints(R(10).shuffle(tf.data.UNKNOWN_CARDINALITY, seed=1))
    assert sorted(out) == list(range(10))
