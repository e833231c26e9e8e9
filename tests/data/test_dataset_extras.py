"""tf.data extras: from_generator, padded_batch, interleave, group_by_window, bucket_by_sequence_length,
unbatch and range(output_type=...), against element orders, specs and messages recorded from TF 2.21
(tests/keras/record_extras_golden.py, the DATA_EXTRAS section)."""
import numpy as np
import pytest

import engine as tf

Dataset = tf.data.Dataset


def values(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def repeat_self(x):
    return Dataset.from_tensors(x).repeat(x)


# --- interleave ------------------------------------------------------------------------------------
def test_interleave_orders_match_tf():
    assert values(Dataset.range(1, 6).interleave(repeat_self, cycle_length=2, block_length=2)) == \
        [1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 4, 4, 5, 5, 5]
    assert values(Dataset.range(1, 6).interleave(repeat_self, cycle_length=3)) == \
        [1, 2, 3, 2, 3, 4, 3, 4, 5, 4, 5, 4, 5, 5, 5]
    ds = Dataset.range(4).interleave(lambda x: Dataset.range(10 * x, 10 * x + 3), cycle_length=2, block_length=1,
                                     num_parallel_calls=2, deterministic=True)
    assert values(ds) == [0, 10, 1, 11, 2, 12, 20, 30, 21, 31, 22, 32]
    assert values(Dataset.range(3).interleave(lambda x: Dataset.range(x), cycle_length=1)) == [0, 0, 1]
    assert int(Dataset.range(3).interleave(lambda x: Dataset.range(x)).cardinality()) == -2


def test_interleave_spec_reiteration_and_errors():
    ds = Dataset.range(3).interleave(lambda x: Dataset.from_tensors((x, tf.cast(x, tf.float32) / 2)).repeat(2),
                                     cycle_length=2).batch(4)
    assert str(ds.element_spec) == ("(TensorSpec(shape=(None,), dtype=tf.int64, name=None), "
                                    "TensorSpec(shape=(None,), dtype=tf.float32, name=None))")
    first = [(a.tolist(), b.tolist()) for a, b in ds.as_numpy_iterator()]
    assert first == [([0, 1, 0, 1], [0.0, 0.5, 0.0, 0.5]), ([2, 2], [1.0, 1.0])]
    assert [(a.tolist(), b.tolist()) for a, b in ds.as_numpy_iterator()] == first    # a fresh pass
    with pytest.raises(TypeError, match="`map_func` must return a `Dataset` object"):
        Dataset.range(3).interleave(lambda x: x).element_spec
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_parallel_calls must be greater than zero"):
        Dataset.range(3).interleave(repeat_self, num_parallel_calls=0)


# --- padded_batch ------------------------------------------------------------------------------------
def ragged():
    return Dataset.range(1, 6).map(lambda x: tf.fill([x], x))


def test_padded_batch_default_and_fixed_shapes_match_tf():
    pb = ragged().padded_batch(2)
    assert values(pb) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]], [[5, 5, 5, 5, 5]]]
    assert str(pb.element_spec) == "TensorSpec(shape=(None, None), dtype=tf.int64, name=None)"
    pb = ragged().padded_batch(2, padded_shapes=[6], padding_values=tf.constant(-1, tf.int64), drop_remainder=True)
    assert values(pb) == [[[1, -1, -1, -1, -1, -1], [2, 2, -1, -1, -1, -1]],
                          [[3, 3, 3, -1, -1, -1], [4, 4, 4, 4, -1, -1]]]
    assert str(pb.element_spec) == "TensorSpec(shape=(2, 6), dtype=tf.int64, name=None)"
    assert int(pb.cardinality()) == 2


def test_padded_batch_structures_and_strings_match_tf():
    dsd = Dataset.range(1, 4).map(lambda x: {"a": tf.range(x), "b": x})
    assert [{k: v.tolist() for k, v in e.items()} for e in dsd.padded_batch(2).as_numpy_iterator()] == \
        [{"a": [[0, 0], [0, 1]], "b": [1, 2]}, {"a": [[0, 1, 2]], "b": [3]}]

    def gen():
        for x in range(1, 4):
            yield np.full((x, 2), x, np.float32), str(x), x
    ds = Dataset.from_generator(gen, output_signature=(tf.TensorSpec([None, None], tf.float32),
                                                       tf.TensorSpec([], tf.string), tf.TensorSpec([], tf.int64)))
    pb = ds.padded_batch(3, padded_shapes=([None, 3], [], []), padding_values=(0.5, "pad", tf.constant(7, tf.int64)))
    assert str(pb.element_spec) == ("(TensorSpec(shape=(None, None, 3), dtype=tf.float32, name=None), "
                                    "TensorSpec(shape=(None,), dtype=tf.string, name=None), "
                                    "TensorSpec(shape=(None,), dtype=tf.int64, name=None))")
    (a, b, c), = list(pb.as_numpy_iterator())
    assert a.tolist() == [[[1.0, 1.0, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]],
                          [[2.0, 2.0, 0.5], [2.0, 2.0, 0.5], [0.5, 0.5, 0.5]],
                          [[3.0, 3.0, 0.5], [3.0, 3.0, 0.5], [3.0, 3.0, 0.5]]]
    assert b.tolist() == [b"1", b"2", b"3"] and c.tolist() == [1, 2, 3]


def test_padded_batch_errors():
    with pytest.raises(tf.errors.DataLossError, match="Attempted to pad to a smaller size than the input element"):
        list(ragged().padded_batch(2, padded_shapes=[2]))
    with pytest.raises(ValueError, match=r"The padded shape \(2, 2\) is not compatible with the shape \(None,\)"):
        ragged().padded_batch(2, padded_shapes=[2, 2])
    with pytest.raises(TypeError, match="Padding values must match the component dtype"):
        ragged().padded_batch(2, padding_values=tf.constant(-1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Batch size must be greater than zero"):
        ragged().padded_batch(0)


# --- from_generator --------------------------------------------------------------------------------
def test_from_generator_with_args_matches_tf():
    calls = []

    def gen(n, start):
        calls.append((type(n).__name__, int(n), int(start)))
        for i in range(int(n)):
            yield np.arange(i + 1) + int(start), float(i) / 2
    ds = Dataset.from_generator(gen, args=(3, 10), output_signature=(tf.TensorSpec([None], tf.int32),
                                                                     tf.TensorSpec([], tf.float32)))
    assert str(ds.element_spec) == ("(TensorSpec(shape=(None,), dtype=tf.int32, name=None), "
                                    "TensorSpec(shape=(), dtype=tf.float32, name=None))")
    assert [[a.tolist(), float(b)] for a, b in ds.as_numpy_iterator()] == \
        [[[10], 0.0], [[10, 11], 0.5], [[10, 11, 12], 1.0]]
    assert [c.dtype for c in next(iter(ds))] == [tf.int32, tf.float32]
    assert int(ds.cardinality()) == -2
    assert calls[0] == ("int32", 3, 10) and len(calls) == 2       # called anew for every pass, args as NumPy
    assert [a.tolist() for a, _ in ds.prefetch(2).as_numpy_iterator()] == [[10], [10, 11], [10, 11, 12]]


def test_from_generator_output_types_matches_tf():
    ds = Dataset.from_generator(lambda: iter([[1, 2], [3, 4]]), output_types=tf.float32, output_shapes=[2])
    assert values(ds) == [[1.0, 2.0], [3.0, 4.0]]
    assert str(ds.element_spec) == "TensorSpec(shape=(2,), dtype=tf.float32, name=None)"
    ds = Dataset.from_generator(lambda: iter([(1, [2, 3])]), output_types=(tf.int64, tf.int32))
    assert ds.element_spec[1].shape.rank is None
    assert [(int(a), b.tolist()) for a, b in ds.as_numpy_iterator()] == [(1, [2, 3])]


def test_from_generator_errors_match_tf():
    def bad(signature, items):
        return list(Dataset.from_generator(lambda: iter(items), output_signature=signature))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"TypeError: `generator` yielded an element of shape "
                                                             r"\(3,\) where an element of shape \(2,\) was expected."):
        bad(tf.TensorSpec([2], tf.int32), [[1, 2], [3, 4, 5]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="TypeError: `generator` yielded an element that could not be converted to the expected "
                             "type. The expected type was int32, but the yielded element was x."):
        bad(tf.TensorSpec([], tf.int32), ["x"])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"TypeError: `generator` yielded an element that did not match the expected structure. "
                             r"The expected structure was \(tf.int32,\), but the yielded element was \(1, 2\)."):
        bad((tf.TensorSpec([], tf.int32),), [(1, 2)])
    with pytest.raises(TypeError, match="To specify the output signature you need to provide either the "
                                        "`output_signature` argument or the `output_types` argument."):
        Dataset.from_generator(lambda: iter([1]))
    with pytest.raises(TypeError, match="The `output_types` argument can not be used together with the "
                                        "`output_signature` argument."):
        Dataset.from_generator(lambda: iter([1]), output_types=tf.int32, output_signature=tf.TensorSpec([], tf.int32))
    with pytest.raises(TypeError, match="^`generator` must be a Python callable.$"):
        Dataset.from_generator(5, output_types=tf.int32)


# --- unbatch, range dtype -------------------------------------------------------------------------
def test_unbatch_and_range_output_type_match_tf():
    assert values(Dataset.from_tensor_slices([[1, 2, 3], [4, 5, 6]]).unbatch()) == [1, 2, 3, 4, 5, 6]
    ds = Dataset.range(0, 3, 1, output_type=tf.float32)
    assert values(ds) == [0.0, 1.0, 2.0] and ds.element_spec.dtype == tf.float32
    assert values(ds.batch(2))[0] == [0.0, 1.0]                  # the batch fast path keeps the dtype
    assert str(Dataset.range(2, output_type=tf.int32).element_spec) == \
        "TensorSpec(shape=(), dtype=tf.int32, name=None)"


# --- group_by_window, bucket_by_sequence_length --------------------------------------------------
def test_group_by_window_matches_tf():
    gw = Dataset.range(10).group_by_window(key_func=lambda x: x % 3, reduce_func=lambda k, w: w.batch(2),
                                           window_size=2)
    assert values(gw) == [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]
    assert str(gw.element_spec) == "TensorSpec(shape=(None,), dtype=tf.int64, name=None)"
    gw = Dataset.range(10).group_by_window(key_func=lambda x: x % 2, reduce_func=lambda k, w: w.batch(10),
                                           window_size=3)
    assert values(gw) == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
    gw = Dataset.range(7).group_by_window(lambda x: x % 2, lambda k, w: w.batch(9),
                                          window_size_func=lambda k: k + 2)
    assert values(gw) == [[0, 2], [1, 3, 5], [4, 6]]
    with pytest.raises(ValueError, match="must return a single tf.int64 scalar tensor"):
        Dataset.range(3).group_by_window(lambda x: tf.cast(x, tf.int32), lambda k, w: w, window_size=2)
    with pytest.raises(ValueError, match="Either the `window_size` argument or the `window_size_func`"):
        Dataset.range(3).group_by_window(lambda x: x, lambda k, w: w)


SEQS = [[1], [2, 2], [3, 3, 3], [4, 4, 4, 4], [5] * 5, [6] * 6, [7], [8, 8]]


def sequences(items):
    return Dataset.from_generator(lambda: iter(items), output_signature=tf.TensorSpec([None], tf.int32))


def test_bucket_by_sequence_length_matches_tf():
    bk = sequences(SEQS).bucket_by_sequence_length(lambda x: tf.shape(x)[0], bucket_boundaries=[3, 5],
                                                   bucket_batch_sizes=[2, 2, 2])
    assert values(bk) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]], [[5, 5, 5, 5, 5, 0], [6, 6, 6, 6, 6, 6]],
                          [[7, 0], [8, 8]]]
    short = [s for s in SEQS if len(s) < 5]
    bk = sequences(short).bucket_by_sequence_length(lambda x: tf.shape(x)[0], bucket_boundaries=[3, 5],
                                                    bucket_batch_sizes=[2, 2, 2], pad_to_bucket_boundary=True,
                                                    padding_values=-1)
    assert values(bk) == [[[1, -1], [2, 2]], [[3, 3, 3, -1], [4, 4, 4, 4]], [[7, -1], [8, 8]]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="elements must have length < max\\(bucket_boundaries\\)"):
        list(sequences(SEQS).bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2, 2],
                                                       pad_to_bucket_boundary=True))
    with pytest.raises(ValueError, match="len\\(bucket_batch_sizes\\) must equal len\\(bucket_boundaries\\) \\+ 1"):
        sequences(SEQS).bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2])
