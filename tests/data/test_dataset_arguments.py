"""A ``tf.data.Dataset`` passed to a ``tf.function``, as TF 2.21 takes it.

Its trace type is its ``tf.data.DatasetSpec`` (the element_spec), so datasets of one
element_spec share one trace; the graph takes it as one ``variant`` input, and the loops,
iterators, reductions and cardinality over it read the dataset each call passes. The values
below were recorded from TF 2.21 (``tensorflow-cpu`` in a scratch venv) with the same programs.
"""
import pytest

import engine as tf


def R(*args):
    return tf.data.Dataset.range(*args)


def test_datasets_of_one_element_spec_share_a_trace_and_each_call_reads_its_own():
    traces = []

    @tf.function
    def train(dataset):
        traces.append(1)
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)
        return loss
    a = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [2, 4, 6]))
    b = tf.data.Dataset.from_tensor_slices(([1, 1], [5, 5]))
    assert (int(train(a)), int(train(b)), len(traces)) == (6, 8, 1)          # TF: 6 8 1
    concrete = train.get_concrete_function(a)
    assert [t.dtype.name for t in concrete.inputs] == ["variant"]
    assert concrete.inputs[0].op.type == "Placeholder" and concrete.inputs[0].op.name == "dataset"
    assert repr(concrete.structured_input_signature) == (
        "((DatasetSpec((TensorSpec(shape=(), dtype=tf.int32, name=None), TensorSpec(shape=(), dtype=tf.int32, "
        "name=None)), TensorShape([])),), {})")
    assert int(concrete(b)) == 8                                              # TF: 8
    floats = tf.data.Dataset.from_tensor_slices(([1.0], [5.0]))
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32 that does not match type int32"):
        train(floats)                                # a new trace, which fails; it is not counted
    assert train.experimental_get_tracing_count() == 1


def test_pipelines_iterators_reductions_and_cardinality_over_an_argument():
    @tf.function
    def total(ds):
        s = tf.constant(0, tf.int64)
        for x in ds.map(lambda v: v * 2).batch(2):
            s += tf.reduce_sum(x)
        return s
    assert (int(total(R(5))), int(total(R(3))), total.experimental_get_tracing_count()) == (20, 6, 1)

    @tf.function
    def first_two(ds):
        it = iter(ds)
        return next(it) + next(it)
    assert (int(first_two(R(10, 20))), int(first_two(R(3)))) == (21, 1)
    assert first_two.experimental_get_tracing_count() == 1

    @tf.function
    def red(ds):
        return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x)
    assert (int(red(R(4))), int(red(R(5))), red.experimental_get_tracing_count()) == (6, 10, 1)

    @tf.function
    def two(a, b):
        s = tf.constant(0, tf.int64)
        for x in a:
            s += x
        for y in b:
            s += 10 * y
        return s
    assert int(two(R(3), R(2))) == 13

    @tf.function
    def zipped(a, b):
        s = tf.constant(0, tf.int64)
        for x, y in tf.data.Dataset.zip((a, b)):
            s += x * y
        return s
    assert int(zipped(R(3), R(1, 4))) == 8

    @tf.function
    def card(ds):
        return ds.cardinality()
    assert int(card(R(7))) == 7 and int(card(R(2).repeat())) == -1            # counted when it runs


def test_an_input_signature_of_a_dataset_spec_and_a_wrong_dataset():
    f = tf.function(lambda ds: ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x))
    concrete = f.get_concrete_function(tf.data.DatasetSpec(tf.TensorSpec([], tf.int64)))
    assert repr(concrete.structured_input_signature) == \
        "((DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([])),), {})"
    assert int(concrete(R(6))) == 15
    with pytest.raises(tf.errors.InvalidArgumentError, match="Type mismatch: actual float vs. expect int64"):
        concrete(R(3).map(lambda v: tf.cast(v, tf.float32)))


def test_gradients_flow_to_the_other_arguments():
    @tf.function
    def withx(ds, x):
        s = x
        for v in ds:
            s += tf.cast(v, tf.float32)
        return s * x
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        r = withx(R(3), x)
    assert (float(r), float(tape.gradient(r, x))) == (10.0, 5.0)              # TF: 10.0 5.0
