"""tf.keras models: Sequential, functional, subclassed; summary() text, weights get/set/save/load."""
import os

import numpy as np
import pytest

import keras_golden as G
from kerastest import assert_close, f32, keras, tf

I = {k: f32(v) for k, v in G.INPUTS.items()}


def branchy():
    a = keras.Input(shape=(4,), name="a")
    h1 = keras.layers.Dense(3, name="d1")(a)
    h2 = keras.layers.Dense(3, activation="tanh", name="d2")(a)
    out = keras.layers.Dense(1, name="out")(keras.layers.Add(name="add")([h1, h2]))
    return keras.Model(a, out, name="branchy")


def capture_summary(model):
    lines = []
    model.summary(print_fn=lines.append)   # Keras 3: one call with the whole text, ending with a newline
    return "".join(lines)


def cnn():
    return keras.Sequential([
        keras.Input(shape=(8, 8, 1)), keras.layers.Conv2D(4, 3, activation="relu", name="conv"),
        keras.layers.MaxPooling2D(name="pool"), keras.layers.Flatten(name="flat"),
        keras.layers.BatchNormalization(name="bn"), keras.layers.Dropout(0.5, name="drop"),
        keras.layers.Dense(10, name="logits")], name="cnn")


def test_functional_model_matches_tf_output_and_summary_text():
    model = branchy()
    assert type(model).__name__ == "Functional" and isinstance(model, keras.Model)
    assert [layer.name for layer in model.layers] == ["a", "d1", "d2", "add", "out"]
    assert [w.path for w in model.weights] == G.FUNCTIONAL_WEIGHT_PATHS
    model.set_weights([f32(w) for w in G.FUNCTIONAL_WEIGHTS])
    assert_close(model(I["X24"]), G.FUNCTIONAL_OUT)
    assert_close(model.predict(I["X24"], verbose=0), G.FUNCTIONAL_OUT)
    assert capture_summary(model) == G.FUNCTIONAL_SUMMARY
    # the graph is reusable as a layer: a functional model called on a KerasTensor
    x = keras.Input(shape=(4,))
    outer = keras.Model(x, keras.layers.Activation("relu")(model(x)))
    assert_close(outer(I["X24"]), np.maximum(np.array(G.FUNCTIONAL_OUT), 0))


def test_keras_tensors_describe_shapes_without_values():
    x = keras.Input(shape=(8, 8, 1))
    assert x.shape == (None, 8, 8, 1) and x.dtype == tf.float32
    y = keras.layers.Conv2D(4, 3, strides=2, padding="same")(x)
    assert y.shape == (None, 4, 4, 4)
    assert keras.layers.Flatten()(y).shape == (None, 64)
    assert "KerasTensor shape=(None, 4, 4, 4), dtype=float32" in repr(y)
    with pytest.raises(TypeError, match="symbolic placeholder of the functional API"):
        tf.nn.relu(y)


def test_functional_errors():
    a = keras.Input(shape=(3,))
    b = keras.Input(shape=(3,))
    out = keras.layers.Dense(1)(a)
    with pytest.raises(ValueError, match="Graph disconnected"):
        keras.Model(b, keras.layers.Add()([out, keras.layers.Dense(1)(b)]))
    with pytest.raises(ValueError, match="must be KerasTensors"):
        keras.Model(a, np.ones(3))
    with pytest.raises(ValueError, match="expects 1 input"):
        keras.Model(a, out)([np.ones((1, 3)), np.ones((1, 3))])


def test_sequential_builds_from_input_or_on_first_call():
    model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(16, activation="relu")])
    model.add(keras.layers.Dense(2))
    assert model.built and [l.output.shape for l in model.layers] == [(None, 16), (None, 2)]
    assert len(model.trainable_variables) == 4
    deferred = keras.Sequential()
    deferred.add(keras.layers.Dense(3))
    deferred.add(keras.layers.Dense(1))
    assert not deferred.built and deferred.weights == []
    assert deferred(np.ones((5, 7))).shape.as_list() == [5, 1]
    assert deferred.built and deferred.layers[0].kernel.shape.as_list() == [7, 3]
    legacy = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])   # Keras 2 style input_shape
    assert legacy.built and legacy.count_params() == 8
    with pytest.raises(ValueError, match="Only instances of `keras.Layer` can be added to a Sequential model"):
        keras.Sequential().add(3)
    with pytest.raises(ValueError, match="should have unique names"):
        keras.Sequential([keras.layers.Dense(1, name="x"), keras.layers.Dense(1, name="x")])


def test_summary_text_and_param_counts_match_tf():
    model = cnn()
    assert capture_summary(model) == G.CNN_SUMMARY
    total, trainable, non_trainable = G.CNN_COUNTS
    assert model.count_params() == total
    assert sum(int(np.prod(w.shape.as_list())) for w in model.trainable_weights) == trainable
    assert sum(int(np.prod(w.shape.as_list())) for w in model.non_trainable_weights) == non_trainable
    assert [w.path for w in model.weights] == G.CNN_WEIGHT_NAMES
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.optimizer.build(model.trainable_variables)
    assert capture_summary(model) == G.CNN_SUMMARY_OPT   # with the "Optimizer params" line


def test_subclassed_model_builds_on_first_call_and_tracks_layers_in_order():
    class Net(keras.Model):
        def __init__(self):
            super().__init__(name="net")
            self.hidden = keras.layers.Dense(3, activation="relu", name="hidden")
            self.drop = keras.layers.Dropout(0.5, name="drop")
            self.head = keras.layers.Dense(1, name="head")

        def call(self, x, training=False):
            return self.head(self.drop(self.hidden(x), training=training))

    net = Net()
    text = capture_summary(net)
    assert "hidden (Dense)" in text and "0 (unbuilt)" in text and " Total params: 0 (0.00 B)" in text
    net(np.ones((2, 5), np.float32))
    assert [v.path for v in net.trainable_variables] == ["net/hidden/kernel", "net/hidden/bias", "net/head/kernel",
                                                         "net/head/bias"]
    assert net.layers == [net.hidden, net.drop, net.head]
    text = capture_summary(net)
    assert "│ hidden (Dense)                  │ (2, 3)                 │            18 │" in text
    assert " Total params: 22 (88.00 B)" in text
    other = Net()
    other.build((None, 5))   # symbolic build
    assert other.count_params() == 22 and other.built


def test_get_set_save_load_weights_round_trip(tmp_path):
    model = cnn()
    x = np.random.default_rng(0).normal(size=(3, 8, 8, 1)).astype(np.float32)
    model.layers[3](np.ones((4, 36), np.float32), training=True)   # move the BN statistics off their defaults
    reference = model.predict(x, verbose=0)
    path = os.fspath(tmp_path / "cnn.weights.h5")
    model.save_weights(path)
    clone = cnn()
    assert not np.allclose(clone.predict(x, verbose=0), reference)
    clone.load_weights(path)
    np.testing.assert_array_equal(clone.predict(x, verbose=0), reference)
    for a, b in zip(model.get_weights(), clone.get_weights()):
        np.testing.assert_array_equal(a, b)
    third = cnn()
    third.set_weights(model.get_weights())
    np.testing.assert_array_equal(third.predict(x, verbose=0), reference)
    with np.load(path) as data:   # the documented format
        assert str(data["__format__"]) == "engine.keras.weights/1" and "0000:cnn/conv/kernel" in data.files
    with pytest.raises(ValueError, match=r"The filename must end in `.weights.h5`"):
        model.save_weights(os.fspath(tmp_path / "cnn.h5"))
    with pytest.raises(ValueError, match="Weight count mismatch"):
        keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)]).load_weights(path)
    with pytest.raises(ValueError, match="set_weights"):
        model.set_weights(model.get_weights()[:-1])


def test_get_layer():
    model = branchy()
    assert model.get_layer("d2") is model.layers[2]
    assert model.get_layer(index=0).name == "a"
    with pytest.raises(ValueError, match="No such layer: zz"):
        model.get_layer("zz")
