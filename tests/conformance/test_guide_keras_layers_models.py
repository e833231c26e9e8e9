"""Conformance with the Keras guides "The Sequential model", "The Functional API" and
"Writing a training loop from scratch" (GAN models): golden values recorded from TF 2.21 / Keras 3.15."""
import numpy as np
import pytest

import engine as tf

keras = tf.keras
layers = keras.layers


def test_weight_path_is_layer_name_slash_weight_name():
    layer = layers.Dense(3, name="probe")
    layer(tf.ones((1, 4)))
    assert [w.path for w in layer.weights] == ["probe/kernel", "probe/bias"]
    assert [tuple(w.shape) for w in layer.weights] == [(4, 3), (3,)]


def test_sequential_inputs_outputs_and_shapes():
    model = keras.Sequential()
    model.add(keras.Input(shape=(4,)))
    model.add(layers.Dense(2, activation="relu"))
    assert model.input_shape == (None, 4) and model.output_shape == (None, 2)
    assert [tuple(t.shape) for t in model.outputs] == [(None, 2)]
    features = keras.Model(inputs=model.inputs, outputs=model.outputs)(np.ones((3, 4), "float32"))
    assert isinstance(features, list) and features[0].shape == (3, 2)   # outputs=[...] gives a list


def test_guide_gan_discriminator_and_generator_shapes():
    disc = keras.Sequential([keras.Input(shape=(28, 28, 1)),
                             layers.Conv2D(4, (3, 3), strides=(2, 2), padding="same"), layers.LeakyReLU(negative_slope=0.2),
                             layers.GlobalMaxPooling2D(), layers.Dense(1)], name="discriminator")
    assert disc.output_shape == (None, 1)
    assert [tuple(layer.output.shape) for layer in disc.layers] == [(None, 14, 14, 4), (None, 14, 14, 4), (None, 4),
                                                                   (None, 1)]
    gen = keras.Sequential([keras.Input(shape=(8,)), layers.Dense(7 * 7 * 2), layers.Reshape((7, 7, 2)),
                            layers.Conv2DTranspose(3, (4, 4), strides=(2, 2), padding="same")])
    assert gen.output_shape == (None, 14, 14, 3)
    assert gen.count_params() == 8 * 98 + 98 + 4 * 4 * 3 * 2 + 3   # kernel (4, 4, filters, in_channels)


@pytest.mark.parametrize("padding,shape,corner", [
    ("same", (2, 10, 12, 3), [[0.2347, 0.3105], [0.466, 0.6227]]),
    ("valid", (2, 12, 12, 3), [[0.0072, 0.083], [0.2347, 0.3105]]),
])
def test_conv2d_transpose_matches_keras(padding, shape, corner):
    layer = layers.Conv2DTranspose(3, (4, 3), strides=(2, 3), padding=padding)
    x = np.random.RandomState(0).rand(2, 5, 4, 2).astype("float32")
    assert layer(x).shape == shape and [tuple(w.shape) for w in layer.weights] == [(4, 3, 3, 2), (3,)]
    layer.kernel.assign(np.arange(72, dtype="float32").reshape(4, 3, 3, 2) / 100)
    np.testing.assert_allclose(np.asarray(layer(x))[0, :2, :2, 0], corner, atol=1e-4)
    assert tuple(layer(keras.Input((None, None, 2))).shape) == (None, None, None, 3)


def test_small_layers_from_the_guides():
    np.testing.assert_allclose(layers.LeakyReLU()(np.array([-1.0, 2.0], "float32")), [-0.3, 2.0])   # slope 0.3
    assert layers.Reshape((2, -1))(np.ones((3, 6), "float32")).shape == (3, 2, 3)
    assert tuple(layers.Reshape((2, 3))(keras.Input((6,))).shape) == (None, 2, 3)
    assert tuple(layers.concatenate([keras.Input((2,)), keras.Input((3,))]).shape) == (None, 5)
    np.testing.assert_allclose(layers.average([np.ones((1, 2), "float32"), np.zeros((1, 2), "float32")]), [[0.5, 0.5]])
    assert layers.GlobalAveragePooling2D()(np.ones((2, 3, 3, 4), "float32")).shape == (2, 4)
    assert layers.GlobalMaxPooling1D(keepdims=True)(np.ones((2, 3, 4), "float32")).shape == (2, 1, 4)
    np.testing.assert_allclose(layers.subtract([np.ones((1, 2), "float32"), np.ones((1, 2), "float32")]), [[0, 0]])


def test_functional_model_fed_a_dict_matches_inputs_by_name():
    title = keras.Input(shape=(3,), name="title")
    tags = keras.Input(shape=(2,), name="tags")
    out = layers.concatenate([title, tags])
    model = keras.Model(inputs=[title, tags], outputs=out)
    y = model({"title": np.zeros((1, 3), "float32"), "tags": np.ones((1, 2), "float32")})
    np.testing.assert_allclose(y, [[0, 0, 0, 1, 1]])
    assert model.output_names == ["concatenate"] or model.output_names == [out._keras_history.operation.name]
    assert model.input_shape == [(None, 3), (None, 2)] and model.output_shape == (None, 5)
