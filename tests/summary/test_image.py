"""``tf.summary.image``: PNGs (zlib + struct) whose pixels are TF's, and the ``[width, height, png...]`` layout."""
import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import engine as tf
from engine.summary.png import decode_png, encode_png, to_uint8

from summary_testlib import GOLDEN, read_events


@pytest.mark.parametrize("case", sorted(GOLDEN["images"]))
def test_image_pixels_equal_tfs(tmp_path, case):
    g = GOLDEN["images"][case]
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert bool(tf.summary.image(case, tf.constant(np.array(g["data"], dtype=g["dtype"])), step=1,
                                     max_outputs=g["max_outputs"]))
    writer.close()
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    (event,) = [ev for ev in read_events(str(tmp_path)) if ev.summary.value]
    value = event.summary.value[0]
    assert value.metadata.plugin_data.plugin_name == g["plugin"] == "images"
    strings = tensor_util.make_ndarray(value.tensor).tolist()
    assert strings[0].decode() == g["width"] and strings[1].decode() == g["height"]
    assert len(strings) - 2 == len(g["pixels"])
    for png, pixels in zip(strings[2:], g["pixels"]):
        np.testing.assert_array_equal(decode_png(png), np.array(pixels, dtype=np.uint8))


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.uint8, st.tuples(st.integers(1, 6), st.integers(1, 6), st.sampled_from([1, 2, 3, 4]))))
def test_png_round_trip(image):
    assert encode_png(image)[:8] == b"\x89PNG\r\n\x1a\n"
    np.testing.assert_array_equal(decode_png(encode_png(image)), image)


def test_tensorboard_image_plugin_reads_the_pngs(tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.plugin_event_accumulator")
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf.summary.image("batch", tf.ones([4, 2, 5, 3]) * 0.5, step=0)   # 3 of the 4 images (max_outputs=3)
    writer.close()
    acc = accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert "batch" in acc.PluginTagToContent("images")
    (event,) = acc.Tensors("batch")
    strings = tensor_util.make_ndarray(event.tensor_proto).tolist()
    assert strings[:2] == [b"5", b"2"] and len(strings) == 5
    assert np.all(decode_png(strings[2]) == 127)


def test_uint8_conversion_as_convert_image_dtype():
    np.testing.assert_array_equal(to_uint8(np.array([0.0, 0.5, 1.0, 1.5, -1.0, 0.999], np.float32)),
                                  [0, 127, 255, 255, 0, 255])
    np.testing.assert_array_equal(to_uint8(np.array([0, 2 ** 15 - 1, 256], np.int16)), [0, 255, 2])
