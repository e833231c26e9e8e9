"""Summary writers, the default writer and step, ``record_if``: TF's return values and errors (goldens)."""
import builtins
import threading

import numpy as np
import pytest

import engine as tf

from summary_testlib import GOLDEN, event_files, read_events, values_by_tag


def _check(error, fn):
    kind, text = GOLDEN["errors"][error]
    with pytest.raises(getattr(builtins, kind)) as info:
        fn()
    assert str(info.value) == text
    return info


def test_return_values_as_tf(tmp_path):
    r = GOLDEN["returns"]
    writer = tf.summary.create_file_writer(str(tmp_path))
    no_writer = tf.summary.scalar("x", 1.0, step=0)
    assert isinstance(no_writer, tf.Tensor) and no_writer.dtype == tf.bool and bool(no_writer) is r["no_writer"]
    assert bool(tf.summary.should_record_summaries()) is r["should_record_no_writer"]
    with writer.as_default():
        assert bool(tf.summary.scalar("loss", 0.5, step=3)) is r["written"]
        with tf.summary.record_if(False):
            assert bool(tf.summary.scalar("skipped", 1.0, step=0)) is r["record_if_false"]
            assert bool(tf.summary.should_record_summaries()) is r["should_record_false"]
        assert bool(tf.summary.should_record_summaries()) is r["should_record_true"]
        with tf.summary.record_if(lambda: tf.constant(True)):
            assert bool(tf.summary.scalar("recorded", 2.0, step=0)) is r["record_if_callable"]
    with tf.summary.create_noop_writer().as_default():
        assert bool(tf.summary.scalar("x", 1.0, step=0)) is r["noop_writer"]
    writer.close()
    assert sorted(values_by_tag(str(tmp_path))) == ["loss", "recorded"]


def test_errors_as_tf(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        _check("no_step", lambda: tf.summary.scalar("x", 1.0))
        _check("scalar_not_scalar", lambda: tf.summary.scalar("x", [1.0, 2.0], step=0))
        _check("text_not_string", lambda: tf.summary.text("x", 1.0, step=0))
        _check("graph_bad_argument", lambda: tf.summary.graph(3))
        _check("trace_export_without_trace_on", lambda: tf.summary.trace_export("x", step=0))
        _check("image_rank3", lambda: tf.summary.image("x", tf.zeros([2, 2, 3]), step=0))
    writer.close()
    _, text = GOLDEN["errors"]["closed_writer_as_default"]
    with pytest.raises(RuntimeError) as info:
        writer.as_default()
    assert str(info.value) == text.replace("<writer>", repr(writer))
    with pytest.raises(RuntimeError):
        writer.set_as_default()
    writer.flush()
    writer.close()   # flush and close of a closed writer do nothing, as in TF


def test_no_step_is_fine_without_a_writer():
    assert not bool(tf.summary.scalar("x", 1.0))


def test_scalars_steps_tags_and_descriptions_as_tensorboard_reads_them(tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=9):
        tf.summary.scalar("default_step", 1.5)
        tf.summary.scalar("loss", 0.5, step=3)
        with tf.name_scope("train"):
            tf.summary.scalar("acc", 2, step=1, description="an *int* scalar")
        tf.summary.scalar("neg_step", -1.25, step=-4)
        tf.summary.scalar("big_step", 3.0e38, step=2 ** 40 + 7)
    assert tf.summary.experimental.get_step() is None   # as_default(step) restores the step on exit
    writer.close()
    acc = accumulator.EventAccumulator(str(tmp_path), size_guidance={accumulator.TENSORS: 0})
    acc.Reload()
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    for tag in ["default_step", "loss", "train/acc", "neg_step", "big_step"]:
        g = GOLDEN["events"][tag]
        (event,) = acc.Tensors(tag)
        assert event.step == g["step"]
        assert tensor_util.make_ndarray(event.tensor_proto).tolist() == g["value"]
        assert acc.SummaryMetadata(tag).plugin_data.plugin_name == "scalars"
        assert acc.SummaryMetadata(tag).summary_description == g["description"]


def test_set_step_and_get_step(tmp_path):
    assert tf.summary.experimental.get_step() is None
    step = tf.Variable(4, dtype=tf.int64)
    tf.summary.experimental.set_step(step)
    try:
        assert tf.summary.experimental.get_step() is step
        writer = tf.summary.create_file_writer(str(tmp_path))
        writer.set_as_default()
        tf.summary.scalar("a", 1.0)
        step.assign_add(1)
        tf.summary.scalar("a", 2.0)
        writer.close()
    finally:
        tf.summary.experimental.set_step(None)
        tf.summary.create_noop_writer().set_as_default()   # does nothing: the closed writer stays default...
        from engine.summary import writer as writer_module
        writer_module._state.writer = None                  # ...so reset the thread's state for other tests
    assert [(s, float(v)) for s, v in values_by_tag(str(tmp_path))["a"]] == [(4, 1.0), (5, 2.0)]


def test_events_wait_in_the_queue_until_flushed(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path), max_queue=3, flush_millis=10 ** 9)
    with writer.as_default():
        for i in range(3):
            tf.summary.scalar("q", float(i), step=i)
        assert len(read_events(str(tmp_path))) == 1       # only the file_version record so far
        tf.summary.scalar("q", 3.0, step=3)                 # the 4th: more than max_queue wait -> flush
        assert len(read_events(str(tmp_path))) == 5
        tf.summary.scalar("q", 4.0, step=4)
        assert len(read_events(str(tmp_path))) == 5
        tf.summary.flush()
        assert len(read_events(str(tmp_path))) == 6
        tf.summary.scalar("q", 5.0, step=5)
    assert len(read_events(str(tmp_path))) == 7             # leaving as_default flushes
    writer.close()
    with pytest.raises(ValueError, match="Invalid argument to flush"):
        tf.summary.flush(writer=3)


def test_default_writer_is_per_thread(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    seen = []
    with writer.as_default():
        t = threading.Thread(target=lambda: seen.append(bool(tf.summary.scalar("other", 1.0, step=0))))
        t.start()
        t.join()
        assert bool(tf.summary.scalar("main", 1.0, step=0))
    writer.close()
    assert seen == [False]
    assert sorted(values_by_tag(str(tmp_path))) == ["main"]


def test_text_summaries_as_tf(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf.summary.text("greeting", "hello", step=1)
        tf.summary.text("table", tf.constant([["a", "b"], ["c", "d"]]), step=2)
        tf.summary.text("unicode", "h\u00e9llo \u2603", step=3, description="snow")
    writer.close()
    events = {ev.summary.value[0].tag: ev for ev in read_events(str(tmp_path))[1:]}
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    for tag in ["greeting", "table", "unicode"]:
        g = GOLDEN["events"][tag]
        value = events[tag].summary.value[0]
        array = tensor_util.make_ndarray(value.tensor)
        assert list(array.shape) == g["shape"] and events[tag].step == g["step"]
        assert [s.decode("utf-8") for s in array.reshape(-1).tolist()] == g["value"]
        assert value.metadata.plugin_data.plugin_name == "text"
        assert value.metadata.summary_description == g["description"]


def test_two_writers_two_files(tmp_path):
    a = tf.summary.create_file_writer(str(tmp_path / "a"))
    b = tf.summary.create_file_writer(str(tmp_path / "a"))
    with a.as_default():
        tf.summary.scalar("x", 1.0, step=0)
        with b.as_default():
            tf.summary.scalar("x", 2.0, step=0)
        tf.summary.scalar("x", 3.0, step=1)
    a.close()
    b.close()
    first, second = event_files(str(tmp_path / "a"))
    if a.path != first:
        first, second = second, first
    loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")

    def values(path):
        return [(ev.step, float(tensor_util.make_ndarray(ev.summary.value[0].tensor)))
                for ev in loader.LegacyEventFileLoader(path).Load() if ev.summary.value]
    assert values(first) == [(0, 1.0), (1, 3.0)] and values(second) == [(0, 2.0)]
    assert np.diff([int(p.split(".")[-2]) for p in (first, second)]) == [1]   # the writer counter


def test_write_takes_a_metadata_proto_and_a_callable(tmp_path):
    summary_pb2 = pytest.importorskip("tensorboard.compat.proto.summary_pb2")
    metadata = summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = "custom"
    metadata.plugin_data.content = b"\x01\x02"
    calls = []
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert bool(tf.summary.write("w", lambda: calls.append(1) or tf.constant([1, 2]), step=4, metadata=metadata))
        with tf.summary.record_if(False):
            assert not bool(tf.summary.write("w", lambda: calls.append(2) or tf.constant([3]), step=5))
    writer.close()
    assert calls == [1]                   # the callable runs only when the summary is written
    (event,) = [ev for ev in read_events(str(tmp_path)) if ev.summary.value]
    value = event.summary.value[0]
    assert value.metadata == metadata and event.step == 4
