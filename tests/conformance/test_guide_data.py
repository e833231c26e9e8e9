"""Conformance with the guide "tf.data: Build TensorFlow input pipelines": element specs and
cardinalities recorded from TF 2.21."""
import numpy as np
import pytest

import engine as tf


def test_guide_basic_mechanics():
    dataset = tf.data.Dataset.from_tensor_slices([8, 3, 0, 8, 2, 1])
    assert int(dataset.reduce(0, lambda state, value: state + value)) == 22
    d2 = tf.data.Dataset.from_tensor_slices((tf.random.uniform([4]), tf.random.uniform([4, 100], maxval=100,
                                                                                         dtype=tf.int32)))
    assert repr(d2.element_spec) == ("(TensorSpec(shape=(), dtype=tf.float32, name=None), "
                                     "TensorSpec(shape=(100,), dtype=tf.int32, name=None))")
    batched = tf.data.Dataset.zip((tf.data.Dataset.range(100), tf.data.Dataset.range(0, -100, -1))).batch(4)
    assert repr(batched) == ("<_BatchDataset element_spec=(TensorSpec(shape=(None,), dtype=tf.int64, name=None), "
                             "TensorSpec(shape=(None,), dtype=tf.int64, name=None))>")
    assert repr(tf.data.Dataset.range(100).batch(7, drop_remainder=True).element_spec) == \
        "TensorSpec(shape=(7,), dtype=tf.int64, name=None)"


def test_guide_cardinalities_and_len():
    r = tf.data.Dataset.range(10)
    assert [int(d.cardinality()) for d in (r.repeat(3).batch(4), r.batch(4).repeat(3), r.shuffle(5),
                                           r.filter(lambda x: x > 2), r.repeat())] == [8, 9, 10, -2, -1]
    assert len(r.batch(4)) == 3
    with pytest.raises(TypeError, match="The dataset is infinite"):
        len(r.repeat())
    with pytest.raises(TypeError, match="The dataset length is unknown"):
        len(r.filter(lambda x: x > 1))


def test_guide_generator_and_padded_batch():
    def count(stop):
        i = 0
        while i < stop:
            yield i
            i += 1
    ds = tf.data.Dataset.from_generator(count, args=[25], output_types=tf.int32, output_shapes=())
    assert [b.numpy().tolist() for b in ds.repeat().batch(10).take(3)][2] == [20, 21, 22, 23, 24, 0, 1, 2, 3, 4]
    padded = tf.data.Dataset.range(100).map(lambda x: tf.fill([tf.cast(x, tf.int32)], x)).padded_batch(
        4, padded_shapes=(None,))
    np.testing.assert_array_equal(next(iter(padded)).numpy(), [[0, 0, 0], [1, 0, 0], [2, 2, 0], [3, 3, 3]])


def test_guide_time_series_batches():
    batches = tf.data.Dataset.range(100000).batch(10, drop_remainder=True)
    features, label = next(iter(batches.map(lambda b: (b[:-1], b[1:]))))
    assert features.numpy().tolist() == list(range(9)) and label.numpy().tolist() == list(range(1, 10))
    labels = tf.data.Dataset.range(100000).batch(10).skip(1).map(lambda b: b[:3])
    f, l = next(iter(tf.data.Dataset.zip((batches, labels))))
    assert l.numpy().tolist() == [10, 11, 12]


def test_iterator_end_of_sequence():
    with pytest.raises(StopIteration):
        next(iter(tf.data.Dataset.range(0)))
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        iter(tf.data.Dataset.range(0)).get_next()
