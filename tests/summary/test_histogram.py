"""``tf.summary.histogram``: TF 2's buckets (edges and counts), read back by TensorBoard."""
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import engine as tf
from engine.summary.histogram import histogram_buckets

from summary_testlib import GOLDEN, values_by_tag


@pytest.mark.parametrize("case", sorted(GOLDEN["histogram"]))
def test_buckets_equal_tfs(case):
    g = GOLDEN["histogram"][case]
    data = np.array(g["data"], dtype=g["dtype"])
    expected = np.array(g["result"], dtype=np.float64).reshape(-1, 3)
    got = histogram_buckets(data) if g["buckets"] is None else histogram_buckets(data, g["buckets"])
    np.testing.assert_array_equal(got, expected)


def test_histograms_written_and_read_by_tensorboard(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for i, case in enumerate(sorted(GOLDEN["histogram"])):
            g = GOLDEN["histogram"][case]
            assert bool(tf.summary.histogram(case, tf.constant(np.array(g["data"], dtype=g["dtype"])), step=i,
                                             buckets=g["buckets"]))
    writer.close()
    written = values_by_tag(str(tmp_path))
    for i, case in enumerate(sorted(GOLDEN["histogram"])):
        ((step, value),) = written[case]
        assert step == i and value.dtype == np.float64
        np.testing.assert_array_equal(value, np.array(GOLDEN["histogram"][case]["result"]).reshape(-1, 3))


def test_tensorboard_histogram_plugin_reads_the_buckets(tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.plugin_event_accumulator")
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf.summary.histogram("weights", tf.constant([0.0, 1.0, 1.0, 4.0]), step=2, buckets=4)
    writer.close()
    acc = accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert acc.PluginTagToContent("histograms") == {"weights": b""}
    (event,) = acc.Tensors("weights")
    np.testing.assert_array_equal(tensor_util.make_ndarray(event.tensor_proto),
                                  [[0, 1, 1], [1, 2, 2], [2, 3, 0], [3, 4, 1]])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=50), st.integers(1, 40))
def test_buckets_cover_the_data(values, bucket_count):
    buckets = histogram_buckets(np.array(values), bucket_count)
    assert buckets.shape == (bucket_count, 3)
    assert buckets[:, 2].sum() == len(values)
    assert buckets[0, 0] == min(values) and buckets[-1, 1] == max(values)
    assert np.all(np.diff(buckets[:, 0]) >= 0)


def test_histogram_in_a_tf_function_and_gradients_stop(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    x = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def step_fn(step):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(x * x)
            tf.summary.histogram("x", x * 1.0, step=step, buckets=3)
        return tape.gradient(y, x)

    with writer.as_default():
        g1 = step_fn(tf.constant(1, tf.int64))
        x.assign([2.0, 2.0, 2.0])
        step_fn(tf.constant(2, tf.int64))
    writer.close()
    np.testing.assert_allclose(g1.numpy(), [2.0, 4.0, 6.0])
    (s1, v1), (s2, v2) = values_by_tag(str(tmp_path))["x"]
    assert (s1, s2) == (1, 2)
    np.testing.assert_array_equal(v1, histogram_buckets([1.0, 2.0, 3.0], 3))
    np.testing.assert_array_equal(v2, [[2, 2, 0], [2, 2, 0], [2, 2, 3]])
