"""LayerNormalization against values recorded from TF 2.21 / Keras 3.15 (keras_extras_golden.py)."""
import numpy as np
import pytest

from keras_extras_golden import KERAS_EXTRAS as G, r
from kerastest import assert_close, keras, tf

LX = r((2, 3, 4), 12)
GAMMA, BETA = np.array([1.0, 2.0, 0.5, -1.0], "float32"), np.array([0.0, 0.1, -0.1, 0.2], "float32")


def last_axis_layer():
    layer = keras.layers.LayerNormalization()
    layer.build((None, 3, 4))
    layer.set_weights([GAMMA, BETA])
    return layer


def test_last_axis_matches_tf_and_weights():
    layer = last_axis_layer()
    assert [w.name for w in layer.weights] == ["gamma", "beta"]
    assert layer.epsilon == 1e-3
    assert_close(layer(LX), G["ln_last"])
    # the statistics are per sample: normalizing one sample alone gives the same rows
    assert_close(layer(LX[1:]), np.asarray(G["ln_last"])[1:])


def test_several_axes_and_no_center_or_scale_match_tf():
    layer = keras.layers.LayerNormalization(axis=[1, 2], epsilon=1e-5, center=False)
    layer.build((None, 3, 4))
    assert [tuple(w.shape.as_list()) for w in layer.weights] == [(3, 4)]
    layer.set_weights([r((3, 4), 13)])
    assert_close(layer(LX), G["ln_axes12"])
    layer = keras.layers.LayerNormalization(axis=1, scale=False)     # a middle axis: beta broadcast along it
    layer.build((None, 3, 4))
    layer.set_weights([np.array([0.5, 0.0, -0.5], "float32")])
    assert_close(layer(LX), G["ln_axis1"])


def test_gradients_match_tf():
    layer = last_axis_layer()
    x = tf.constant(LX)
    with tf.GradientTape() as tape:
        tape.watch(x)
        s = tf.reduce_sum(layer(x) * tf.constant(r((2, 3, 4), 14)))
    for got, want in zip(tape.gradient(s, [x, layer.gamma, layer.beta]), G["ln_grads"]):
        assert_close(got, want, 2e-5)


def test_in_a_trained_model_and_float16():
    model = keras.Sequential([keras.Input((3, 4)), keras.layers.LayerNormalization(), keras.layers.Flatten(),
                              keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    before = model.layers[0].get_weights()[0].copy()
    model.fit(LX, np.ones((2, 1), "float32"), epochs=2, verbose=0)
    assert not np.allclose(model.layers[0].get_weights()[0], before)      # gamma was trained
    half = keras.layers.LayerNormalization(dtype="float16")
    out = half(LX.astype(np.float16))
    assert out.dtype == tf.float16
    assert_close(out.numpy().astype(np.float32), keras.layers.LayerNormalization()(LX), 2e-3)


def test_bad_axis_is_refused():
    with pytest.raises(ValueError, match="Invalid value for `axis` argument"):
        keras.layers.LayerNormalization(axis=3)(LX)
    with pytest.raises(TypeError, match="Expected an int or a list/tuple of ints"):
        keras.layers.LayerNormalization(axis="last")
