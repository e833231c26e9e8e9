"""``tf.keras.callbacks.TensorBoard``: the event files Keras 3 writes (``train/``, ``validation/``; goldens)."""
import json
import os

import numpy as np
import pytest

import engine as tf

from summary_testlib import GOLDEN, read_events, values_by_tag


@pytest.fixture(autouse=True)
def _fresh_names():
    tf.keras.backend.clear_session()   # layer names as in a fresh process (TF's goldens were): "sequential", "dense"


def _fit(log_dir, **kwargs):
    rs = np.random.RandomState(0)
    x = rs.uniform(size=(8, 2)).astype("float32")
    y = (x[:, 0] > 0.5).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, epochs=2, batch_size=4, validation_data=(x, y), verbose=0,
                        callbacks=[tf.keras.callbacks.TensorBoard(log_dir, **kwargs)])
    return model, history


def _tags(logdir):
    return [[ev.step, v.tag, v.metadata.plugin_data.plugin_name] for ev in read_events(logdir)
            for v in ev.summary.value]


def test_keras_writes_what_keras_3_writes(tmp_path):
    _, history = _fit(str(tmp_path), histogram_freq=1)
    assert sorted(os.listdir(tmp_path)) == ["train", "validation"]
    assert _tags(str(tmp_path / "train")) == GOLDEN["keras"]["train"]
    assert _tags(str(tmp_path / "validation")) == GOLDEN["keras"]["validation"]
    train = values_by_tag(str(tmp_path / "train"))
    validation = values_by_tag(str(tmp_path / "validation"))
    np.testing.assert_allclose([float(v) for _, v in train["epoch_loss"]], history.history["loss"], rtol=1e-6)
    np.testing.assert_allclose([float(v) for _, v in validation["epoch_loss"]], history.history["val_loss"],
                               rtol=1e-6)
    np.testing.assert_allclose([float(v) for _, v in train["epoch_learning_rate"]], [0.01, 0.01], rtol=1e-6)
    config = json.loads(train["keras"][0][1].item().decode())
    assert config["class_name"] == "Sequential"
    (_, kernel_histogram), _ = train["sequential/dense/kernel/histogram"]
    assert kernel_histogram.shape == (30, 3) and kernel_histogram[:, 2].sum() == 2


def test_no_histograms_and_no_graph_when_asked(tmp_path):
    _fit(str(tmp_path), write_graph=False)
    tags = {t for _, t, _ in _tags(str(tmp_path / "train"))}
    assert tags == {"epoch_accuracy", "epoch_loss", "epoch_learning_rate"}


def test_update_freq_batch_writes_batch_scalars(tmp_path):
    _fit(str(tmp_path), write_graph=False, update_freq="batch")
    assert _tags(str(tmp_path / "train")) == GOLDEN["keras_update_freq_batch"]   # batches count from 1


def test_write_images_and_steps_per_second(tmp_path):
    _fit(str(tmp_path), write_graph=False, histogram_freq=1, write_images=True, write_steps_per_second=True)
    tags = [(s, t, p) for s, t, p in _tags(str(tmp_path / "train"))]
    assert (0, "sequential/dense/kernel/image", "images") in tags
    assert not [t for _, t, _ in tags if t == "sequential/dense/bias/image"]   # a 1-element bias squeezes to ()
    assert [s for s, t, _ in tags if t == "epoch_steps_per_second"] == [0, 1]
    assert [s for s, t, _ in tags if t == "batch_steps_per_second"] == []   # no writer at batch level by default
    images = values_by_tag(str(tmp_path / "train"))["sequential/dense/kernel/image"]
    assert images[0][1][:2].tolist() == [b"1", b"2"]   # the [2, 1] kernel squeezes to [2]: 1 wide, 2 high
