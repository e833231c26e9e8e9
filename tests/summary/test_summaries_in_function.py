"""Summaries inside ``tf.function`` and Session graphs: ``WriteSummary`` is a stateful op that writes on every run."""
import numpy as np
import pytest

import engine as tf
from engine.framework.registry import get_op

from summary_testlib import GOLDEN, values_by_tag


def test_write_summary_is_a_stateful_row():
    row = get_op("WriteSummary")
    assert row.stateful and not row.differentiable


def test_each_call_writes_at_its_step_as_tf(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def train_step(x):
        tf.summary.scalar("var_step", tf.reduce_sum(x), step=step)      # a Variable step: read on each call
        tf.summary.scalar("python_step", tf.reduce_mean(x), step=7)      # a Python step: baked into the graph
        with tf.summary.record_if(lambda: tf.equal(step % 2, 0)):       # a condition evaluated on each call
            tf.summary.scalar("even_steps", tf.reduce_max(x), step=step)
        return x * 2.0

    with writer.as_default():
        for i in range(4):
            step.assign(10 + i)
            np.testing.assert_allclose(train_step(tf.constant([1.0, float(i)])).numpy(), [2.0, 2.0 * i])
    writer.close()
    assert train_step.experimental_get_tracing_count() == 1
    written = {tag: [[s, float(v)] for s, v in items] for tag, items in values_by_tag(str(tmp_path)).items()}
    assert written == GOLDEN["function"]


def test_the_traced_writer_is_the_one_default_at_trace_time(tmp_path):
    a = tf.summary.create_file_writer(str(tmp_path / "a"))

    @tf.function
    def f(x):
        return tf.summary.scalar("x", x, step=0)

    with a.as_default():
        assert bool(f(tf.constant(1.0)))
    assert bool(f(tf.constant(2.0)))     # TF too: the writer captured when traced keeps receiving
    a.close()
    assert [float(v) for _, v in values_by_tag(str(tmp_path / "a"))["x"]] == [1.0, 2.0]


def test_a_function_traced_without_a_writer_writes_nothing(tmp_path):
    @tf.function
    def f(x):
        return tf.summary.scalar("x", x, step=0)

    assert not bool(f(tf.constant(1.0)))


def test_the_write_op_returns_true_in_a_function_and_false_when_record_if_says_no(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    flag = tf.Variable(True)

    @tf.function
    def f(x):
        with tf.summary.record_if(flag):
            return tf.summary.scalar("x", x, step=1)

    with writer.as_default():
        assert bool(f(tf.constant(1.0)))
        flag.assign(False)
        assert not bool(f(tf.constant(2.0)))
    writer.close()
    assert [float(v) for _, v in values_by_tag(str(tmp_path))["x"]] == [1.0]


def test_session_graph_writes_on_every_run(tmp_path):
    tf1 = tf.compat.v1
    writer = tf.summary.create_file_writer(str(tmp_path))
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [])
        step = tf1.placeholder(tf.int64, [])
        with writer.as_default():
            written = tf.summary.scalar("fed", x * 2.0, step=step)
    with tf1.Session(graph=graph) as sess:
        for i in range(3):
            assert sess.run(written, feed_dict={x: float(i), step: i + 1})
    writer.close()
    assert [(s, float(v)) for s, v in values_by_tag(str(tmp_path))["fed"]] == [(1, 0.0), (2, 2.0), (3, 4.0)]


def test_step_none_inside_a_function_raises_when_traced(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def f(x):
        return tf.summary.scalar("x", x)

    with writer.as_default(), pytest.raises(ValueError, match="No step set"):
        f(tf.constant(1.0))
    writer.close()
