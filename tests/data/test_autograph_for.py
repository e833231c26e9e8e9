"""`for x in dataset:` inside tf.function, converted by AutoGraph (golden values from TF 2.21).

AutoGraph's ``for_stmt`` hands a dataset loop to ``Dataset._autograph_for_stmt``, which builds one
``ReduceDataset`` node: the loop runs when the function runs, on fresh data each call.
Skipped while AutoGraph is not converting functions (its package was a stub at first).
"""
import pytest

import engine as tf
import engine.data  # noqa: F401

R = tf.data.Dataset.range


def _probe(ds):
    s = tf.constant(0, tf.int64)
    for x in ds:
        s += x
    return s


pytestmark = pytest.mark.skipif(tf.autograph.to_graph(_probe) is _probe, reason="AutoGraph does not convert yet")


def op_types(fn, *args):
    return [op.type for op in fn.get_concrete_function(*args).graph.get_operations()]


def test_sum_traces_once_and_runs_as_one_reduce_node():
    traced = []

    @tf.function
    def loop(ds):
        s = tf.constant(0, tf.int64)
        for x in ds:
            traced.append(1)
            s += x
        return s
    ds = R(5)
    assert int(loop(ds)) == 10 and int(loop(ds)) == 10            # TF: 10, 10
    assert traced == [1] and loop.experimental_get_tracing_count() == 1
    types = op_types(loop, ds)
    assert "ReduceDataset" in types and "IteratorGetNext" not in types


def test_break():
    @tf.function
    def loopbreak(ds):
        s = tf.constant(0, tf.int64)
        for x in ds:
            if x > 2:
                break
            s += x
        return s
    assert int(loopbreak(R(10))) == 3                                # TF: 3


def test_tuple_elements_and_python_int_state():
    @tf.function
    def tup(ds):
        s = tf.constant(0, tf.int32)
        for x, y in ds:
            s += x * y
        return s
    assert int(tup(tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6])))) == 32      # TF: 32

    @tf.function
    def pyint(ds):
        s = 0
        for x in ds:
            s = s + tf.cast(x, tf.int32)
        return s
    out = pyint(R(4))
    assert int(out) == 6 and out.dtype == tf.int32                   # TF: 6, int32


def test_nested_loops_and_growing_state():
    @tf.function
    def nested(ds):
        s = tf.constant(0, tf.int64)
        for x in ds:
            for y in ds:
                s += x * y
        return s
    assert int(nested(R(3))) == 9                                    # TF: 9

    @tf.function
    def grow(ds):
        s = tf.zeros([0], tf.int64)
        for x in ds:
            s = tf.concat([s, tf.reshape(x, [1])], 0)
        return s
    assert grow(R(3)).numpy().tolist() == [0, 1, 2]                  # TF: [0 1 2]


def test_variables_updated_in_the_loop_on_every_call():
    v = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def varloop(ds):
        for x in ds:
            v.assign_add(x)
        return v.read_value()
    ds = R(4)
    assert int(varloop(ds)) == 6 and int(varloop(ds)) == 12          # TF: 6, 12


def test_return_inside_a_dataset_loop_is_tfs_error():
    @tf.function
    def ret(ds):
        for x in ds:
            if x > 2:
                return x
        return tf.constant(-1, tf.int64)
    with pytest.raises(NotImplementedError, match="a return statement cannot be placed inside this TensorFlow loop"):
        ret(R(10))
