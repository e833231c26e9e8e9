"""tf.data sources, batching, structure, metadata and errors, against values recorded from TF 2.21.

Golden values (lists, reprs, cardinalities, messages) were recorded with
/work/tfref/bin/python and pasted here as literals.
"""
import numpy as np
import pytest

import engine as tf
import engine.data  # noqa: F401  (tf.data, until engine/__init__.py imports it)
from engine.framework.tensor import EagerTensor

R = tf.data.Dataset.range
INF, UNK = -1, -2


def values(ds):
    """The elements as plain Python (ints/floats/bytes, lists for arrays), nests kept."""
    def plain(x):
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        if isinstance(x, tuple):
            return tuple(plain(v) for v in x)
        return np.asarray(x).tolist()
    return [plain(e) for e in ds.as_numpy_iterator()]


def card(ds):
    return int(ds.cardinality())


def unknown():
    return R(10).filter(lambda x: x >= 0)


# --------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------
def test_range_forms_and_dtype():
    assert values(R(5)) == [0, 1, 2, 3, 4]
    assert values(R(2, 10, 3)) == [2, 5, 8]
    assert values(R(5, 0, -2)) == [5, 3, 1]
    assert values(R(0, 10, -1)) == [] and card(R(0, 10, -1)) == 0
    assert repr(R(5)) == "<_RangeDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"
    assert repr(R(3, output_type=tf.int32).element_spec) == "TensorSpec(shape=(), dtype=tf.int32, name=None)"
    assert next(R(3, output_type=tf.int32).as_numpy_iterator()).dtype == np.int32


def test_range_zero_step_is_an_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match="step must be a non-zero integer"):
        R(0, 5, 0)


def test_from_tensor_slices_nested_tuple_and_dict():
    ds = tf.data.Dataset.from_tensor_slices(({"a": [1., 2., 3.], "b": [[1, 2], [3, 4], [5, 6]]}, ["x", "y", "z"]))
    assert repr(ds.element_spec) == (
        "({'a': TensorSpec(shape=(), dtype=tf.float32, name=None), 'b': TensorSpec(shape=(2,), dtype=tf.int32, "
        "name=None)}, TensorSpec(shape=(), dtype=tf.string, name=None))")
    assert repr(ds).startswith("<_TensorSliceDataset element_spec=({'a': TensorSpec(")
    assert values(ds) == [({"a": 1.0, "b": [1, 2]}, b"x"), ({"a": 2.0, "b": [3, 4]}, b"y"),
                          ({"a": 3.0, "b": [5, 6]}, b"z")]
    first = next(ds.as_numpy_iterator())
    assert type(first[1]) is bytes and first[0]["a"].dtype == np.float32 and first[0]["b"].dtype == np.int32
    batched = ds.batch(2)
    assert repr(batched.element_spec) == (
        "({'a': TensorSpec(shape=(None,), dtype=tf.float32, name=None), 'b': TensorSpec(shape=(None, 2), "
        "dtype=tf.int32, name=None)}, TensorSpec(shape=(None,), dtype=tf.string, name=None))")
    assert values(batched) == [({"a": [1.0, 2.0], "b": [[1, 2], [3, 4]]}, [b"x", b"y"]),
                               ({"a": [3.0], "b": [[5, 6]]}, [b"z"])]


def test_from_tensor_slices_dtypes_and_lists_are_tensors():
    assert repr(tf.data.Dataset.from_tensor_slices([1., 2.]).element_spec) == \
        "TensorSpec(shape=(), dtype=tf.float32, name=None)"
    assert repr(tf.data.Dataset.from_tensor_slices(np.zeros((2, 3))).element_spec) == \
        "TensorSpec(shape=(3,), dtype=tf.float64, name=None)"
    # a list of tuples is one tensor, not a structure (TF converts lists to tensors)
    assert repr(tf.data.Dataset.from_tensor_slices([(1, 2), (3, 4)]).element_spec) == \
        "TensorSpec(shape=(2,), dtype=tf.int32, name=None)"
    assert repr(tf.data.Dataset.from_tensor_slices(([1, 2], [3.0, 4.0])).element_spec) == \
        "(TensorSpec(shape=(), dtype=tf.int32, name=None), TensorSpec(shape=(), dtype=tf.float32, name=None))"
    assert values(tf.data.Dataset.from_tensor_slices(["a", "bb"])) == [b"a", b"bb"]
    assert len(tf.data.Dataset.from_tensor_slices(np.zeros((0, 3)))) == 0


def test_from_tensor_slices_copies_its_input():
    x = np.arange(4)
    ds = tf.data.Dataset.from_tensor_slices(x)
    x[0] = 100
    assert values(ds) == [0, 1, 2, 3]


def test_from_tensor_slices_errors():
    with pytest.raises(ValueError, match=r"^Unbatching a tensor is only supported for rank >= 1$"):
        tf.data.Dataset.from_tensor_slices(3)
    with pytest.raises(ValueError, match=r"^Dimensions 3 and 2 are not compatible$"):
        tf.data.Dataset.from_tensor_slices(([1, 2, 3], [1, 2]))
    with pytest.raises(ValueError, match=r"^Dimensions 2 and 3 are not compatible$"):
        tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [1, 2, 3]})
    with pytest.raises(ValueError, match=r"^Invalid `element`. `element` should not be empty.$"):
        tf.data.Dataset.from_tensor_slices(None)


def test_from_tensors():
    ds = tf.data.Dataset.from_tensors([1, 2, 3])
    assert repr(ds) == "<_TensorDataset element_spec=TensorSpec(shape=(3,), dtype=tf.int32, name=None)>"
    assert values(tf.data.Dataset.from_tensors(([1, 2], 3))) == [([1, 2], 3)]
    assert card(ds) == 1
    assert values(tf.data.Dataset.from_tensors(np.arange(3)).repeat(2).batch(2)) == [[[0, 1, 2], [0, 1, 2]]]


# --------------------------------------------------------------------------------------
# Iteration
# --------------------------------------------------------------------------------------
def test_iteration_yields_eager_tensors_on_the_cpu_then_stops():
    it = iter(R(2))
    a = next(it)
    assert isinstance(a, EagerTensor) and a.dtype == tf.int64 and a.shape == ()
    assert a.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert int(next(it)) == 1
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(StopIteration):
        next(it)


def test_every_iter_is_a_fresh_pass():
    ds = R(3)
    assert [int(x) for x in ds] == [0, 1, 2]
    assert [int(x) for x in ds] == [0, 1, 2]


def test_get_next_raises_out_of_range_at_the_end():
    it = iter(R(1))
    assert int(it.get_next()) == 0
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        it.get_next()


def test_tuple_elements_unpack_in_a_for_loop():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = np.array([0, 1, 0])
    seen = []
    for xb, yb in tf.data.Dataset.from_tensor_slices((x, y)).batch(2):
        seen.append((xb.numpy().tolist(), yb.numpy().tolist()))
        assert xb.dtype == tf.float32 and yb.dtype == tf.int64
    assert seen == [([[0, 1], [2, 3]], [0, 1]), ([[4, 5]], [0])]


def test_as_numpy_iterator_types():
    assert type(next(R(2).as_numpy_iterator())) is np.int64
    assert type(next(tf.data.Dataset.from_tensor_slices(np.zeros((2, 3))).as_numpy_iterator())) is np.ndarray


def test_dataset_is_truthy_even_when_empty():
    assert bool(R(0)) is True and len(R(0)) == 0


# --------------------------------------------------------------------------------------
# batch
# --------------------------------------------------------------------------------------
def test_batch_remainder_and_drop_remainder():
    assert values(R(7).batch(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert values(R(7).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert repr(R(5).batch(2)) == "<_BatchDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)>"
    assert repr(R(5).batch(2, drop_remainder=True).element_spec) == \
        "TensorSpec(shape=(2,), dtype=tf.int64, name=None)"
    # the batch dimension stays None without drop_remainder even when the length is known
    assert repr(tf.data.Dataset.from_tensor_slices(np.zeros((6, 2))).batch(3).element_spec) == \
        "TensorSpec(shape=(None, 2), dtype=tf.float64, name=None)"


def test_batch_fast_path_matches_elementwise_batching():
    x = np.random.default_rng(0).normal(size=(23, 4)).astype(np.float32)
    y = np.arange(23)
    fast = list(tf.data.Dataset.from_tensor_slices((x, y)).batch(5).as_numpy_iterator())
    slow = list(tf.data.Dataset.from_tensor_slices((x, y)).map(lambda a, b: (a, b)).batch(5).as_numpy_iterator())
    assert len(fast) == len(slow) == 5
    for (fa, fb), (sa, sb) in zip(fast, slow):
        np.testing.assert_array_equal(fa, sa)
        np.testing.assert_array_equal(fb, sb)
        assert fa.dtype == sa.dtype == np.float32
    dropped = list(tf.data.Dataset.from_tensor_slices((x, y)).batch(5, drop_remainder=True).as_numpy_iterator())
    assert [b.shape[0] for b, _ in dropped] == [5, 5, 5, 5]
    assert values(R(10).batch(4)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]      # range has a fast path too


def test_batching_slices_does_not_copy_rows():
    source = tf.data.Dataset.from_tensor_slices((np.zeros((1000, 784), np.float32), np.arange(1000)))
    xb, yb = next(iter(source.batch(64)))
    assert xb.shape == (64, 784) and yb.shape == (64,)
    assert np.shares_memory(xb.numpy(), source._arrays[0])        # a slice of the source: no per-row work


def test_batched_values_are_read_only():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(6)).batch(3)
    b = next(iter(ds)).numpy()
    with pytest.raises(ValueError):
        b[0] = 7


def test_batch_of_mismatched_shapes_is_an_error():
    ds = tf.data.Dataset.from_tensors([1, 2]).concatenate(tf.data.Dataset.from_tensors([1, 2, 3])).batch(2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Cannot batch tensors with different shapes in component 0. First element had shape "
                             r"\[2\] and element 1 had shape \[3\]."):
        list(ds)


@pytest.mark.parametrize("size", [0, -1])
def test_batch_size_must_be_positive(size):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Batch size must be greater than zero."):
        R(3).batch(size)


def test_batch_size_type_error():
    with pytest.raises(TypeError, match="Cannot convert 2.5 to EagerTensor of dtype int64"):
        R(3).batch(2.5)


def test_unbatch():
    assert values(R(5).batch(2).unbatch()) == [0, 1, 2, 3, 4]
    assert repr(R(5).batch(2).unbatch()) == \
        "<_UnbatchDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"
    with pytest.raises(ValueError, match="Cannot unbatch an input with scalar components."):
        R(3).unbatch()


# --------------------------------------------------------------------------------------
# repeat / take / skip / zip / enumerate / concatenate
# --------------------------------------------------------------------------------------
def test_repeat_take_skip_combinations():
    assert values(R(4).take(-1)) == [0, 1, 2, 3]
    assert values(R(4).skip(-1)) == []
    assert values(R(4).repeat(0)) == []
    assert values(R(3).repeat(3).skip(2).take(5)) == [2, 0, 1, 2, 0]
    assert values(R(5).take(2).repeat(2)) == [0, 1, 0, 1]
    assert values(R(10).skip(3).batch(4)) == [[3, 4, 5, 6], [7, 8, 9]]
    assert values(R(5).batch(2).repeat(2)) == [[0, 1], [2, 3], [4], [0, 1], [2, 3], [4]]
    assert values(R(5).repeat(2).batch(3)) == [[0, 1, 2], [3, 4, 0], [1, 2, 3], [4]]
    assert values(R(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert values(R(0).repeat()) == []                        # repeating nothing forever ends


def test_zip_forms_and_structure():
    assert values(tf.data.Dataset.zip((R(3), R(10, 15)))) == [(0, 10), (1, 11), (2, 12)]
    assert values(tf.data.Dataset.zip(R(3), R(10, 15))) == [(0, 10), (1, 11), (2, 12)]
    nested = tf.data.Dataset.zip({"a": R(3), "b": (R(2), R(4))})
    assert repr(nested.element_spec) == (
        "{'a': TensorSpec(shape=(), dtype=tf.int64, name=None), 'b': (TensorSpec(shape=(), dtype=tf.int64, "
        "name=None), TensorSpec(shape=(), dtype=tf.int64, name=None))}")
    assert values(nested) == [{"a": 0, "b": (0, 0)}, {"a": 1, "b": (1, 1)}]
    assert repr(tf.data.Dataset.zip(R(3))) == \
        "<_ZipDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"


def test_zip_rejects_lists_and_non_datasets():
    with pytest.raises(TypeError, match="Python `list` is not supported and you should use `tuple` instead."):
        tf.data.Dataset.zip((R(3), [1, 2]))
    with pytest.raises(TypeError, match="but encountered object of type <class 'int'>"):
        tf.data.Dataset.zip((R(3), 5))


def test_enumerate_uses_int64_indices():
    ds = tf.data.Dataset.from_tensor_slices([5, 6, 7]).enumerate(start=2)
    assert values(ds) == [(2, 5), (3, 6), (4, 7)]
    assert repr(ds) == ("<_ZipDataset element_spec=(TensorSpec(shape=(), dtype=tf.int64, name=None), "
                        "TensorSpec(shape=(), dtype=tf.int32, name=None))>")
    first = next(ds.as_numpy_iterator())
    assert type(first[0]) is np.int64 and type(first[1]) is np.int32
    assert values(R(5).batch(2).enumerate()) == [(0, [0, 1]), (1, [2, 3]), (2, [4])]
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int64"):
        R(3).enumerate(start=1.5)


def test_concatenate():
    assert values(R(2).concatenate(R(5, 7))) == [0, 1, 5, 6]
    assert repr(R(3).concatenate(R(4))) == \
        "<_ConcatenateDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"
    with pytest.raises(TypeError, match=r"Incompatible dataset elements:\n  TensorSpec\(shape=\(\), "
                                        r"dtype=tf.int64, name=None\) vs.   TensorSpec\(shape=\(\), dtype=tf.float32"):
        R(2).concatenate(tf.data.Dataset.from_tensor_slices([1.0]))
    relaxed = tf.data.Dataset.from_tensors([1, 2]).concatenate(tf.data.Dataset.from_tensors([1, 2, 3]))
    assert repr(relaxed.element_spec) == "TensorSpec(shape=(None,), dtype=tf.int32, name=None)"


# --------------------------------------------------------------------------------------
# reprs of the transformations
# --------------------------------------------------------------------------------------
def test_reprs_match_tf():
    spec = "element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"
    assert repr(R(3).map(lambda x: x * 2)) == "<_MapDataset " + spec
    assert repr(R(3).filter(lambda x: x > 1)) == "<_FilterDataset " + spec
    assert repr(R(3).shuffle(2)) == "<_ShuffleDataset " + spec
    assert repr(R(3).repeat()) == "<_RepeatDataset " + spec
    assert repr(R(3).take(2)) == "<_TakeDataset " + spec
    assert repr(R(3).skip(2)) == "<_SkipDataset " + spec
    assert repr(R(3).cache()) == "<CacheDataset " + spec
    assert repr(R(3).prefetch(2)) == "<_PrefetchDataset " + spec


def test_pipeline_text_shows_the_graph():
    text = R(8).map(lambda x: x).batch(4).prefetch(1)._pipeline()
    assert text.splitlines() == ["PrefetchDataset(buffer_size=1)", "  BatchDataset(batch_size=4, drop_remainder=False)",
                                 "    MapDataset(lambda)", "      RangeDataset(0, 8, 1)"]


# --------------------------------------------------------------------------------------
# cardinality and len (TF 2.21 values)
# --------------------------------------------------------------------------------------
def test_cardinality_rules():
    inf, unk = R(10).repeat(), unknown()
    assert card(R(10)) == 10 and card(tf.data.Dataset.from_tensors(1)) == 1
    assert (card(R(10).batch(3)), card(R(10).batch(3, drop_remainder=True))) == (4, 3)
    assert card(unk) == UNK and card(inf.filter(lambda x: x >= 0)) == UNK
    assert (card(R(10).repeat()), card(R(10).repeat(2)), card(R(10).repeat(-1)), card(R(10).repeat(0)),
            card(R(0).repeat())) == (-1, 20, -1, 0, 0)
    assert (card(unk.repeat()), card(unk.repeat(0)), card(unk.repeat(2))) == (-1, 0, -2)
    assert (card(R(10).take(3)), card(R(10).take(30)), card(R(10).take(-1)), card(inf.take(4)),
            card(unk.take(3))) == (3, 10, 10, 4, -2)
    assert (card(R(3).take(0)), card(inf.take(0)), card(unk.take(0))) == (0, 0, -2)
    assert (card(R(10).skip(3)), card(R(10).skip(30)), card(R(10).skip(-1)), card(inf.skip(4)),
            card(unk.skip(3)), card(inf.skip(-1))) == (7, 0, 0, -1, -2, -1)
    assert (card(R(10).shuffle(3)), card(R(10).map(lambda x: x)), card(R(10).cache()), card(R(10).prefetch(2)),
            card(R(10).enumerate())) == (10, 10, 10, 10, 10)
    assert (card(inf.shuffle(4)), card(inf.enumerate()), card(inf.batch(3)), card(unk.batch(3)),
            card(unk.batch(3, drop_remainder=True))) == (-1, -1, -1, -2, -2)
    zip_ = tf.data.Dataset.zip
    assert (card(zip_((R(10), R(4)))), card(zip_((inf, R(4)))), card(zip_((inf, R(4).repeat()))),
            card(zip_((unk, R(4)))), card(zip_((unk, R(4).repeat())))) == (4, 4, -1, -2, -2)
    assert (card(R(3).concatenate(R(4))), card(R(3).concatenate(inf)), card(inf.concatenate(R(3))),
            card(unk.concatenate(R(3))), card(unk.concatenate(inf)), card(inf.concatenate(unk))) == \
        (7, -1, -1, -2, -1, -1)
    assert (card(R(10).batch(2).unbatch()), card(inf.batch(2).unbatch())) == (-2, -1)
    assert (card(R(0, 2 ** 63 - 1)), card(R(5, 2 ** 63 - 1)), card(R(0, 2 ** 62))) == (-1, -1, 2 ** 62)


def test_cardinality_is_an_int64_tensor_and_constants():
    c = R(10).cardinality()
    assert isinstance(c, EagerTensor) and c.dtype == tf.int64 and int(c) == 10
    assert int(tf.data.experimental.cardinality(R(3))) == 3
    assert (tf.data.AUTOTUNE, tf.data.experimental.AUTOTUNE, tf.data.INFINITE_CARDINALITY,
            tf.data.UNKNOWN_CARDINALITY, tf.data.experimental.INFINITE_CARDINALITY) == (-1, -1, -1, -2, -1)


def test_len_known_unknown_infinite():
    assert len(R(10)) == 10 and len(R(10).batch(3)) == 4 and len(R(3).repeat(3)) == 9
    with pytest.raises(TypeError, match=r"^The dataset length is unknown.$"):
        len(unknown())
    with pytest.raises(TypeError, match=r"^The dataset is infinite.$"):
        len(R(10).repeat())


# --------------------------------------------------------------------------------------
# argument errors
# --------------------------------------------------------------------------------------
def test_argument_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="buffer_size must be greater than zero or UNKNOWN_CARDINALITY"):
        R(3).shuffle(0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning"):
        R(3).prefetch(-5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_parallel_calls must be greater than zero."):
        R(3).map(lambda x: x, num_parallel_calls=0)
    with pytest.raises(ValueError, match=r"Attempt to convert a value \(None\)"):
        R(3).shuffle(None)
    with pytest.raises(TypeError, match="Cannot convert 'a' to EagerTensor of dtype int64|"):
        R(3).take("a")
    assert values(R(3).prefetch(0)) == [0, 1, 2]


def test_as_numpy_iterator_is_eager_only():
    @tf.function
    def f():
        return R(3).as_numpy_iterator()
    with pytest.raises(RuntimeError, match=r"as_numpy_iterator\(\)` is only supported in eager mode."):
        f()
