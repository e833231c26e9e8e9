"""tf.keras layers: outputs with set weights against TF 2.21 goldens, building, weight order, training flag."""
import numpy as np
import pytest

import keras_golden as G
from kerastest import assert_close, f32, keras, tf

I = {k: f32(v) for k, v in G.INPUTS.items()}


def built(layer, shape, weights):
    layer.build(shape)
    layer.set_weights([f32(w) for w in weights])
    return layer


# --- outputs against TF ------------------------------------------------------------------------------
def test_dense_outputs_match_tf():
    assert_close(built(keras.layers.Dense(3, activation="relu"), (None, 4), [I["K43"], I["B3"]])(I["X24"]),
                 G.DENSE_RELU)
    assert_close(built(keras.layers.Dense(3), (None, 4), [I["K43"], I["B3"]])(I["X234"]), G.DENSE_RANK3)
    layer = built(keras.layers.Dense(3, activation="softmax", use_bias=False), (None, 4), [I["K43"]])
    assert_close(layer(I["X24"]), G.DENSE_SOFTMAX_NOBIAS)
    assert [(w.name, w.path) for w in layer.weights] == [("kernel", f"{layer.name}/kernel")]   # Keras 3's naming


def test_conv_and_pooling_outputs_match_tf():
    conv = built(keras.layers.Conv2D(3, 3, activation="relu"), (None, 5, 5, 2), [I["CK"], I["CB"]])
    assert_close(conv(I["IMG"]), G.CONV_VALID_RELU)
    conv = built(keras.layers.Conv2D(3, (3, 3), strides=2, padding="same"), (None, 5, 5, 2), [I["CK"], I["CB"]])
    assert_close(conv(I["IMG"]), G.CONV_SAME_S2)
    assert_close(keras.layers.MaxPooling2D()(I["IMG"]), G.MAXPOOL)
    assert_close(keras.layers.MaxPooling2D(pool_size=(2, 2), strides=1, padding="same")(I["IMG"]), G.MAXPOOL_SAME_S1)
    assert_close(keras.layers.AveragePooling2D(pool_size=3, strides=2)(I["IMG"]), G.AVGPOOL)
    assert keras.layers.Flatten()(I["IMG"]).shape.as_list() == G.FLATTEN_SHAPE


def test_relu_layer_and_activations_match_tf():
    assert_close(keras.layers.ReLU(max_value=6.0, negative_slope=0.1, threshold=1.0)(I["XR"]), G.RELU_LAYER)
    assert_close(keras.layers.ReLU(negative_slope=0.2)(I["XR"]), G.RELU_LAYER_SLOPE)
    assert_close(keras.layers.ReLU(max_value=1.5)(I["XR"]), G.RELU_LAYER_MAX)
    for name, want in G.ACTIVATIONS.items():
        assert_close(keras.layers.Activation(name)(I["XR"]), want)
    assert_close(keras.layers.Activation(tf.nn.relu)(I["XR"]), G.ACTIVATIONS["relu"])
    with pytest.raises(ValueError, match="Could not interpret activation function identifier: 'nope'"):
        keras.layers.Dense(2, activation="nope")
    with pytest.raises(ValueError, match="max_value of a ReLU layer cannot be a negative value"):
        keras.layers.ReLU(max_value=-1.0)


def test_batch_normalization_training_inference_and_moving_statistics():
    bn = built(keras.layers.BatchNormalization(momentum=0.9), (None, 3),
               [[1.0, 2.0, 0.5], [0.0, 0.1, -0.1], np.zeros(3), np.ones(3)])
    assert [w.name for w in bn.weights] == list(G.BN["weights"])
    assert [w.name for w in bn.trainable_weights] == ["gamma", "beta"]
    assert [w.name for w in bn.non_trainable_weights] == ["moving_mean", "moving_variance"]
    assert_close(bn(I["BNX"], training=True), G.BN["train_out1"])
    assert_close(bn.moving_mean, G.BN["moving_mean1"])
    assert_close(bn.moving_variance, G.BN["moving_var1"])
    assert_close(bn(I["BNX"] * 2, training=True), G.BN["train_out2"])
    assert_close(bn.moving_mean, G.BN["moving_mean2"])
    assert_close(bn.moving_variance, G.BN["moving_var2"])
    before = bn.get_weights()
    assert_close(bn(I["BNX"], training=False), G.BN["infer_out"])
    assert_close(bn(I["BNX"]), G.BN["infer_default"])   # inference is the default
    for a, b in zip(before, bn.get_weights()):           # and it leaves the statistics alone
        np.testing.assert_array_equal(a, b)
    bn4 = keras.layers.BatchNormalization(axis=1)
    assert_close(bn4(I["IMG"].transpose(0, 3, 1, 2), training=True), G.BN_AXIS1_TRAIN)
    assert_close(bn4.moving_mean, G.BN_AXIS1_MM)


def test_frozen_batch_normalization_runs_in_inference_mode():
    bn = keras.layers.BatchNormalization()
    bn.build((None, 3))
    bn.trainable = False
    assert bn.trainable_weights == [] and len(bn.non_trainable_weights) == 4
    out = bn(I["BNX"], training=True)
    assert_close(out, I["BNX"] / np.sqrt(1 + 1e-3))   # moving stats 0/1: the identity up to epsilon
    assert_close(bn.moving_mean, np.zeros(3))


def test_embedding_matches_tf_and_gradient_reaches_only_used_rows():
    emb = built(keras.layers.Embedding(5, 2), None, [I["EMB"]])
    ids = np.array([[0, 4], [2, 2]])
    assert_close(emb(ids), G.EMBEDDING)
    with tf.GradientTape() as tape:
        out = tf.reduce_sum(emb(ids))
    grad = tf.convert_to_tensor(tape.gradient(out, emb.embeddings))
    assert_close(grad, [[1, 1], [0, 0], [2, 2], [0, 0], [1, 1]])


def test_dropout_scales_kept_values_only_while_training():
    tf.random.set_seed(3)
    x = np.ones((200, 50), np.float32)
    layer = keras.layers.Dropout(0.25)
    assert layer.built
    out = layer(x, training=True).numpy()
    kept = out != 0
    assert set(np.unique(out)) == {0.0, np.float32(1 / 0.75)}
    assert 0.70 < kept.mean() < 0.80
    np.testing.assert_array_equal(layer(x).numpy(), x)                  # inference: identity
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
    tf.random.set_seed(3)
    np.testing.assert_array_equal(keras.layers.Dropout(0.25)(x, training=True).numpy(), out)  # reproducible


def test_training_flag_reaches_nested_layers_through_the_call_context():
    seen = []

    class Probe(keras.layers.Layer):
        def call(self, inputs, training=None):
            seen.append(training)
            return inputs

    class Block(keras.layers.Layer):   # its call does not pass `training` on
        def __init__(self):
            super().__init__()
            self.probe = Probe()

        def call(self, inputs):
            return self.probe(inputs)

    model = keras.Sequential([keras.Input(shape=(2,)), Block()])
    assert seen == [None]   # the symbolic build pass (training unset)
    seen.clear()
    model(np.ones((1, 2)), training=True)
    model(np.ones((1, 2)))
    model(np.ones((1, 2)), training=False)
    Probe()(np.ones((1, 2)))
    assert seen == [True, None, False, None]


def test_custom_layer_build_call_add_weight():
    class Scale(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
            self.c = self.add_weight(shape=(), initializer=keras.initializers.Constant(2.0), trainable=False,
                                     name="c")

        def call(self, inputs):
            return inputs * self.w * self.c

    layer = Scale(name="scale")
    assert not layer.built
    assert_close(layer(np.array([[1.0, 2.0]])), [[2.0, 4.0]])
    assert layer.built and layer._build_input_shape == (1, 2)
    assert [w.path for w in layer.weights] == ["scale/w", "scale/c"]
    assert [w.name for w in layer.trainable_variables] == ["w"]
    assert layer.count_params() == 3
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(np.array([[1.0, 2.0]])))
    assert_close(tape.gradient(y, layer.w), [2.0, 4.0])


def test_weights_follow_keras_order_not_alphabetical():
    class Net(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.zeta = keras.layers.Dense(2, name="zeta")
            self.alpha = keras.layers.Dense(1, name="alpha")
            self.blocks = [keras.layers.Dense(3, name="b0"), keras.layers.BatchNormalization(name="b1")]

        def build(self, input_shape):
            self.own = self.add_weight(shape=(1,), name="own")

        def call(self, x):
            return self.alpha(self.zeta(self.blocks[1](self.blocks[0](x))))

    net = Net()
    net(np.ones((2, 4)))
    assert not isinstance(net, tf.Module)   # TF 2.21: Keras 3 layers are not tf.Modules
    n = net.name   # Keras 3's paths: the sub-layers were built inside the net's call (TF 2.21 gives the same)
    assert [w.path for w in net.weights] == [
        f"{n}/own", f"{n}/zeta/kernel", f"{n}/zeta/bias", f"{n}/alpha/kernel", f"{n}/alpha/bias", f"{n}/b0/kernel",
        f"{n}/b0/bias", f"{n}/b1/gamma", f"{n}/b1/beta", f"{n}/b1/moving_mean", f"{n}/b1/moving_variance"]
    assert [w.path for w in net.non_trainable_variables] == [f"{n}/b1/moving_mean", f"{n}/b1/moving_variance"]
    assert len(net.trainable_variables) == 9
    net.blocks[0].trainable = False
    assert f"{n}/b0/kernel" not in [w.path for w in net.trainable_weights]
    assert [w.path for w in net.non_trainable_weights][:2] == [f"{n}/b0/kernel", f"{n}/b0/bias"]


def test_autocast_float64_inputs_and_keep_integers():
    out = keras.layers.Dense(2)(np.ones((1, 3), np.float64))
    assert out.dtype == tf.float32
    assert keras.layers.Embedding(3, 2)(np.array([1, 2], np.int64)).dtype == tf.float32


def test_layer_errors():
    with pytest.raises(ValueError, match="the last dimension of the inputs to a Dense layer should be defined"):
        keras.layers.Dense(2).build((None, None))
    with pytest.raises(ValueError, match="expected a positive integer. Received: units=0"):
        keras.layers.Dense(0)
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    with pytest.raises(ValueError, match="with a weight list of length 1, but the layer was expecting 2 weights"):
        layer.set_weights([np.zeros((3, 2))])
    with pytest.raises(ValueError, match=r"weight shape \(3, 2\) is not compatible with provided weight shape"):
        layer.set_weights([np.zeros((2, 2)), np.zeros(2)])
    with pytest.raises(ValueError, match="isn't built"):
        keras.layers.Dense(2).count_params()
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Dense"):
        keras.layers.Dense(2, bogus=1)

    class Forgot(keras.layers.Layer):
        def __init__(self):
            self.d = keras.layers.Dense(1)
    with pytest.raises(RuntimeError, match=r"forgot to call `super\(\).__init__\(\)`"):
        Forgot()


def test_layer_names_are_unique_per_class():
    keras.backend.clear_session()
    names = [keras.layers.Dense(1).name, keras.layers.Dense(1).name, keras.layers.BatchNormalization().name,
             keras.layers.Conv2D(1, 1).name]
    assert names == ["dense", "dense_1", "batch_normalization", "conv2d"]


def test_initializers_by_name_and_object_and_seeding():
    init = keras.initializers
    assert_close(init.get("zeros")((2,)), [0, 0])
    assert_close(init.Ones()((2,)), [1, 1])
    assert_close(init.Constant(3.0)((2,)), [3, 3])
    assert isinstance(init.get("glorot_uniform"), init.GlorotUniform)
    assert isinstance(init.get("HeNormal"), init.HeNormal)
    limit = np.sqrt(6 / (300 + 200))
    w = init.GlorotUniform()((300, 200)).numpy()
    assert w.min() >= -limit and w.max() <= limit and abs(w.std() - limit / np.sqrt(3)) < 0.002
    h = init.HeNormal()((3, 3, 64, 32)).numpy()   # fan_in = 3 * 3 * 64
    assert abs(h.std() - np.sqrt(2 / 576)) < 0.003 and np.abs(h).max() <= 2 * np.sqrt(2 / 576) / 0.8796 + 1e-6
    assert abs(init.RandomNormal(stddev=2.0)((20000,)).numpy().std() - 2.0) < 0.05
    u = init.RandomUniform(-1, 3)((20000,)).numpy()
    assert u.min() >= -1 and u.max() < 3
    # an integer seed: the same values on every call (Keras 3)
    seeded = init.RandomNormal(seed=7)
    np.testing.assert_array_equal(seeded((4,)).numpy(), seeded((4,)).numpy())
    # the global seed makes the whole sequence of initializations reproducible
    tf.random.set_seed(11)
    a = keras.layers.Dense(4)
    a.build((None, 3))
    tf.random.set_seed(11)
    b = keras.layers.Dense(4)
    b.build((None, 3))
    np.testing.assert_array_equal(a.kernel.numpy(), b.kernel.numpy())
    assert not np.array_equal(a.kernel.numpy(), keras.layers.Dense(4, kernel_initializer="he_normal")
                              (np.ones((1, 3))).numpy())
    with pytest.raises(ValueError, match="Could not interpret initializer identifier"):
        init.get("nope")
