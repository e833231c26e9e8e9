"""get_config / from_config for Sequential and Functional models, and model.save("x.keras") +
tf.keras.models.load_model round trips (same predictions, also in a fresh process)."""
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from kerastest import assert_close, keras, tf

L = keras.layers
X = np.random.default_rng(0).normal(size=(4, 6)).astype("float32")


def sequential():
    return keras.Sequential([keras.Input((6,)), L.Dense(5, activation="relu", kernel_regularizer="l2"),
                             L.Dropout(0.3), L.Dense(3, activation="softmax", name="probs")], name="seq")


def functional():
    a = keras.Input((6,), name="a")
    b = keras.Input((None, 3), name="b")
    h = L.Dense(4, activation="tanh")(a)
    shared = L.Dense(4, use_bias=False, name="shared")
    s1, s2 = shared(h), shared(L.GRU(4, name="gru")(b))   # a layer called twice
    merged = L.concatenate([s1, s2])
    out = L.Dense(2, name="out")(L.Reshape((2, 4))(merged))
    return keras.Model([a, b], [out, s1], name="two_in")


B = np.random.default_rng(1).normal(size=(4, 5, 3)).astype("float32")


def test_layer_config_round_trip():
    layer = L.Dense(7, activation="relu", use_bias=False, kernel_initializer=keras.initializers.Constant(0.5),
                    kernel_regularizer=keras.regularizers.L2(0.1), name="d")
    config = layer.get_config()
    # Keras 3.15 gives these entries too (among others, e.g. a DTypePolicy dict for dtype)
    assert config["units"] == 7 and config["activation"] == "relu" and config["use_bias"] is False
    assert config["name"] == "d" and config["trainable"] is True
    assert config["kernel_regularizer"]["class_name"] == "L2"
    assert config["kernel_regularizer"]["config"] == {"l2": 0.1}
    json.dumps(config)
    clone = L.Dense.from_config(config)
    clone.build((None, 2))
    assert clone.units == 7 and clone.bias is None and clone.name == "d"
    np.testing.assert_array_equal(clone.kernel.numpy(), np.full((2, 7), 0.5, "float32"))
    assert clone.kernel.regularizer.l2 == pytest.approx(0.1)


def test_sequential_config_round_trip():
    model = sequential()
    config = model.get_config()
    assert config["name"] == "seq"
    assert [c["class_name"] for c in config["layers"]] == ["InputLayer", "Dense", "Dropout", "Dense"]
    assert config["layers"][0]["config"]["batch_shape"] == [None, 6]     # Keras 3: batch_shape [None, 6]
    clone = keras.Sequential.from_config(json.loads(json.dumps(config)))
    assert [type(x).__name__ for x in clone.layers] == ["Dense", "Dropout", "Dense"]
    assert clone.layers[2].name == "probs"
    clone.set_weights(model.get_weights())
    assert_close(clone(X), model(X).numpy(), 1e-6)


def test_functional_config_round_trip():
    model = functional()
    config = model.get_config()
    assert config["input_layers"] == [["a", 0, 0], ["b", 0, 0]]        # Keras 3 layout
    assert config["output_layers"] == [["out", 0, 0], ["shared", 0, 0]]
    shared = next(c for c in config["layers"] if c["name"] == "shared")
    assert len(shared["inbound_nodes"]) == 2
    assert shared["inbound_nodes"][1]["args"][0]["config"]["keras_history"] == ["gru", 0, 0]
    clone = keras.Model.from_config(json.loads(json.dumps(config)))
    assert [x.name for x in clone.layers] == [x.name for x in model.layers]
    clone.set_weights(model.get_weights())
    for got, want in zip(clone([X, B]), model([X, B])):
        assert_close(got, want.numpy(), 1e-6)
    assert clone.output_shape == [(None, 2, 2), (None, 4)]


def test_save_and_load_in_process(tmp_path):
    model = functional()
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=["mse", "mse"])
    path = str(tmp_path / "m.keras")
    model.save(path)
    assert zipfile.is_zipfile(path)
    assert set(zipfile.ZipFile(path).namelist()) == {"metadata.json", "config.json", "model.weights.npz"}
    loaded = keras.models.load_model(path)
    for got, want in zip(loaded.predict([X, B], verbose=0), model.predict([X, B], verbose=0)):
        assert_close(got, want, 1e-6)
    assert type(loaded.optimizer).__name__ == "Adam"
    assert float(loaded.optimizer.learning_rate.numpy()) == pytest.approx(0.01)
    loaded.fit([X, B], [np.zeros((4, 2, 2), "float32"), np.zeros((4, 4), "float32")], epochs=1, verbose=0)
    assert keras.models.load_model(path, compile=False).optimizer is None


_CHILD = """
import sys, numpy as np
sys.path.insert(0, {root!r})
import engine as tf
m = tf.keras.models.load_model({path!r})
x = np.load({x!r})
np.save({out!r}, m.predict(x, verbose=0))
print(m.loss)
"""


def test_save_and_load_in_a_fresh_process(tmp_path):
    model = sequential()
    model.compile(optimizer="sgd", loss="categorical_crossentropy", metrics=["accuracy"])
    model.fit(X, np.eye(3, dtype="float32")[[0, 1, 2, 0]], epochs=2, verbose=0)
    path, xfile, out = str(tmp_path / "s.keras"), str(tmp_path / "x.npy"), str(tmp_path / "y.npy")
    model.save(path)
    np.save(xfile, X)
    root = os.path.dirname(os.path.dirname(tf.__file__))
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(root=root, path=path, x=xfile, out=out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "categorical_crossentropy"
    assert_close(np.load(out), model.predict(X, verbose=0), 1e-6)


def test_save_errors(tmp_path):
    model = sequential()
    with pytest.raises(ValueError, match="Invalid filepath extension for saving"):
        model.save(str(tmp_path / "m.ckpt"))
    with pytest.raises(NotImplementedError, match="HDF5"):
        model.save(str(tmp_path / "m.h5"))
    model.save(str(tmp_path / "m.keras"))
    with pytest.raises(FileExistsError):
        model.save(str(tmp_path / "m.keras"), overwrite=False)
    with pytest.raises(ValueError, match="File not found"):
        keras.models.load_model(str(tmp_path / "missing.keras"))
    bad = tmp_path / "bad.keras"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("metadata.json", json.dumps({"keras_version": "3.15.0"}))
    with pytest.raises(ValueError, match="not written by the engine"):
        keras.models.load_model(str(bad))
