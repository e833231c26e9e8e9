"""Byte level: the engine's Event records are TF's, byte for byte (TF's records are in the goldens).

These tests need no TensorBoard: they compare the engine's encoder with the raw bytes TF 2.21 wrote.
"""
import os
import re
import socket
import struct
import time

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given

import engine as tf
from engine.io.tf_record import tf_record_iterator
from engine.summary import events, wire
from engine.summary.histogram import histogram_buckets

from summary_testlib import GOLDEN, event_files


def _decode_varint(data, pos=0):
    shift = result = 0
    while True:
        byte = data[pos]
        result |= (byte & 0x7F) << shift
        pos += 1
        if not byte & 0x80:
            return result, pos
        shift += 7


def test_varints_as_the_protobuf_documentation_gives_them():
    assert wire.varint(0) == b"\x00"
    assert wire.varint(1) == b"\x01"
    assert wire.varint(300) == b"\xac\x02"
    assert wire.varint(-1) == b"\xff" * 9 + b"\x01"     # a negative int64: ten bytes
    assert wire.key(1, wire.FIXED64) == b"\x09" and wire.key(5, wire.LENGTH_DELIMITED) == b"\x2a"


@given(st.integers(min_value=-(2 ** 63), max_value=2 ** 63 - 1))
def test_varint_round_trip(n):
    value, end = _decode_varint(wire.varint(n))
    assert end == len(wire.varint(n))
    assert value == n % 2 ** 64


def test_proto3_defaults_are_left_out_and_set_messages_kept():
    assert wire.uint(2, 0) == b"" and wire.double(1, 0.0) == b"" and wire.length_delimited(1, "") == b""
    assert wire.message(2, b"") == b"\x12\x00"          # a set, empty message (a scalar's tensor_shape)
    assert wire.double(1, -0.0) != b""                   # -0.0 is not the default


@pytest.mark.parametrize("tag", [t for t, e in GOLDEN["events"].items() if e["plugin"] in ("scalars", "text", "")])
def test_scalar_and_text_events_equal_tfs_bytes(tag):
    g = GOLDEN["events"][tag]
    value = np.array(g["value"], dtype={"scalars": np.float32, "text": object, "": np.int64}[g["plugin"]])
    if g["plugin"] == "text":
        value = np.array([s.encode("utf-8") for s in g["value"]], dtype=object).reshape(g["shape"])
    metadata = events.summary_metadata(g["plugin"], description=g["description"]) if g["plugin"] else b""
    record = events.event(g["wall_time"], step=g["step"],
                          summary=events.summary(events.summary_value(tag, events.tensor_proto(value), metadata)))
    assert record.hex() == g["hex"]


@pytest.mark.parametrize("case", sorted(GOLDEN["histogram"]))
def test_histogram_events_equal_tfs_bytes(case):
    g = GOLDEN["histogram"][case]
    raw = bytes.fromhex(g["event_hex"])
    (wall_time,) = struct.unpack("<d", raw[1:9])
    step, _ = _decode_varint(raw, 10) if raw[9] == 0x10 else (0, 9)
    data = np.array(g["data"], dtype=g["dtype"])
    kwargs = {} if g["buckets"] is None else {"bucket_count": g["buckets"]}
    buckets = histogram_buckets(data, **kwargs)
    value = events.summary_value(case, events.tensor_proto(buckets), events.summary_metadata("histograms"))
    assert events.event(wall_time, step=step, summary=events.summary(value)).hex() == g["event_hex"]


def test_the_first_record_is_tfs_file_version_event():
    expected = events.event(GOLDEN["first_record_wall_time"], file_version="brain.Event:2",
                            source_writer="tensorflow.core.util.events_writer")
    assert expected.hex() == GOLDEN["first_record_hex"]


def test_a_written_file_holds_tfs_bytes_apart_from_the_wall_time(tmp_path):
    """End to end: the file the engine writes, record by record, is TF's (the wall times aside)."""
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf.summary.scalar("loss", 0.5, step=3)
        with tf.name_scope("train"):
            tf.summary.scalar("acc", 2, step=1, description="an *int* scalar")
        tf.summary.text("table", [["a", "b"], ["c", "d"]], step=2)
        tf.summary.write("raw", tf.constant([1, 2, 3], tf.int64), step=5)
    writer.close()
    (path,) = event_files(str(tmp_path))
    records = list(tf_record_iterator(path))
    first = bytes.fromhex(GOLDEN["first_record_hex"])
    assert records[0][0] == 0x09 and records[0][9:] == first[9:]
    for record, tag in zip(records[1:], ["loss", "train/acc", "table", "raw"]):
        assert record[0] == 0x09 and record[9:] == bytes.fromhex(GOLDEN["events"][tag]["hex"])[9:], tag
    (wall_time,) = struct.unpack("<d", records[1][1:9])
    assert abs(wall_time - time.time()) < 600


def test_file_name_follows_tfs_pattern(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    writer.close()
    (path,) = event_files(str(tmp_path))
    pattern = re.escape(GOLDEN["file_name_pattern"]).replace(re.escape("<time>"), r"\d{10}") \
        .replace(re.escape("<pid>"), str(os.getpid())).replace(re.escape(".vm."), "." + re.escape(socket.gethostname()) + ".")
    pattern = pattern.replace(r"\.1\.v2", r"\.\d+\.v2")
    assert re.fullmatch(pattern, os.path.basename(path)), os.path.basename(path)
    other = tf.summary.create_file_writer(str(tmp_path / "b"), filename_suffix=".mine")
    other.close()
    assert event_files(str(tmp_path / "b"))[0].endswith(".mine")
