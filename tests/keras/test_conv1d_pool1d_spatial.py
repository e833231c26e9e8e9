"""Conv1D (valid/same/causal, strides, dilation), MaxPooling1D / AveragePooling1D, UpSampling2D (nearest,
bilinear), ZeroPadding2D and Cropping2D against values recorded from TF 2.21 / Keras 3.15 with the same
weights (layers_1d_golden.py)."""
import numpy as np
import pytest

from kerastest import assert_close, keras
from layers_1d_golden import G

L = keras.layers


def r(shape, seed):
    return np.round(np.random.default_rng(seed).normal(size=shape), 2).astype("float32")


X1 = r((2, 7, 3), 1)
X2 = r((1, 2, 3, 2), 4)
X3 = r((1, 5, 6, 1), 5)


@pytest.mark.parametrize("padding, strides, dilation", [
    ("valid", 1, 1), ("valid", 2, 1), ("valid", 1, 2), ("same", 1, 1), ("same", 2, 1), ("same", 1, 2),
    ("causal", 1, 1), ("causal", 2, 1), ("causal", 1, 2)])
def test_conv1d_matches_keras(padding, strides, dilation):
    layer = L.Conv1D(2, 3, strides=strides, padding=padding, dilation_rate=dilation, activation="relu")
    layer.build((None, 7, 3))
    assert [tuple(w.shape.as_list()) for w in layer.weights] == [(3, 3, 2), (2,)]
    layer.set_weights([r((3, 3, 2), 2), r((2,), 3)])
    assert_close(layer(X1), G[f"conv1d_{padding}_{strides}_{dilation}"], 1e-4)


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pooling1d_matches_keras(padding):
    assert_close(L.MaxPooling1D(3, strides=2, padding=padding)(X1), G[f"max1d_{padding}"], 1e-6)
    assert_close(L.AveragePooling1D(3, strides=2, padding=padding)(X1), G[f"avg1d_{padding}"], 1e-5)
    assert tuple(L.MaxPooling1D()(X1).shape.as_list()) == tuple(G["max1d_default"])


def test_upsampling_padding_cropping_match_keras():
    assert_close(L.UpSampling2D((2, 3))(X2), G["up_nearest"], 0)
    assert_close(L.UpSampling2D(2, interpolation="bilinear")(X2), G["up_bilinear"], 2e-5)
    assert tuple(L.ZeroPadding2D(((1, 0), (2, 1)))(X2).shape.as_list()) == tuple(G["zp"])
    assert_close(L.ZeroPadding2D()(X2)[0, :, :, 0], G["zp1"], 0)
    assert_close(L.Cropping2D(((1, 2), (2, 1)))(X3)[0, :, :, 0], G["crop"], 0)
    assert tuple(L.Cropping2D(1)(X3).shape.as_list()) == tuple(G["crop1"])


def test_symbolic_shapes_match_keras():
    shapes = [L.Conv1D(2, 3, padding="causal")(keras.Input((None, 3))).shape,
              L.Conv1D(2, 3, strides=2)(keras.Input((7, 3))).shape,
              L.UpSampling2D(2)(keras.Input((None, 4, 2))).shape,
              L.Cropping2D(1)(keras.Input((5, 6, 1))).shape,
              L.MaxPooling1D(2)(keras.Input((7, 3))).shape]
    assert shapes == [tuple(s) for s in G["sym"]]


def test_errors_and_gradients_and_config():
    cls, msg = G["err"]
    with pytest.raises(ValueError, match=r"`strides > 1` not supported in conjunction with `dilation_rate > 1`"):
        L.Conv1D(2, 3, strides=2, dilation_rate=2)
    assert cls == "ValueError" and "strides=(2,)" in msg
    with pytest.raises(ValueError, match="padding"):
        L.Conv1D(2, 3, padding="full")
    with pytest.raises(ValueError, match="cropping"):
        L.Cropping2D(3)(X3)
    model = keras.Sequential([keras.Input((7, 3)), L.Conv1D(4, 3, padding="causal"), L.MaxPooling1D(2),
                              L.Flatten(), L.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    before = model.evaluate(X1, np.ones((2, 1), "float32"), verbose=0)
    model.fit(X1, np.ones((2, 1), "float32"), epochs=5, verbose=0)
    assert model.evaluate(X1, np.ones((2, 1), "float32"), verbose=0) < before
    clone = keras.Sequential.from_config(model.get_config())
    assert clone.layers[0].padding == "causal" and clone.layers[0].kernel_size == (3,)
    clone.set_weights(model.get_weights())
    assert_close(clone(X1), model(X1).numpy(), 1e-6)
