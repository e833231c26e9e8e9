"""tf.keras.regularizers, layer.losses / add_loss, regularized training, sample_weight / class_weight and
weighted_metrics, against values recorded from TF 2.21 / Keras 3.15 (keras_extras_golden.py)."""
import numpy as np
import pytest

from keras_extras_golden import KERAS_EXTRAS as G, r
from kerastest import assert_close, keras, tf

RX = np.array([[1.0, -2.0], [0.5, 3.0]], "float32")
X24, K43, B3 = r((2, 4), 1), r((4, 3), 2), np.array([0.1, -0.2, 0.3], "float32")
XT, YT = r((6, 4), 7), r((6, 1), 8)


# --- the regularizers themselves -------------------------------------------------------------------
def test_penalties_match_tf():
    regs = keras.regularizers
    assert_close(regs.L1(0.1)(RX), G["reg_l1"], 1e-6)
    assert_close(regs.L2(0.2)(RX), G["reg_l2"], 1e-6)
    assert_close(regs.L1L2(l1=0.1, l2=0.2)(RX), G["reg_l1l2"], 1e-6)
    assert float(regs.L1L2()(RX)) == 0.0                       # L1L2 defaults to no penalty at all
    assert regs.L2(0.2)(tf.constant(RX)).dtype == tf.float32
    v = tf.Variable(RX)
    with tf.GradientTape() as tape:
        penalty = regs.L2(0.5)(v)
    assert_close(tape.gradient(penalty, v), RX, 1e-6)          # d/dx 0.5 * sum(x^2) = x


def test_get_by_name_and_config():
    regs = keras.regularizers
    assert regs.get("l1").get_config() == G["reg_l1_config"]
    assert regs.get("l2").get_config() == G["reg_l2_config"]
    assert isinstance(regs.get("L1L2"), regs.L1L2) and isinstance(regs.get("l1l2"), regs.L1L2)
    assert regs.get(None) is None
    reg = regs.L2(0.3)
    assert regs.get(reg) is reg
    assert regs.get({"class_name": "L1", "config": {"l1": 0.5}}).l1 == 0.5
    assert regs.l1_l2 is regs.L1L2
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier: l1_l2"):
        regs.get("l1_l2")                                       # Keras 3.15's get() does not know this name
    with pytest.raises(ValueError, match="Invalid value for argument l2: expected a non-negative float"):
        regs.L2(-1)


# --- layer.losses --------------------------------------------------------------------------------
def test_dense_losses_weight_and_activity_penalties():
    layer = keras.layers.Dense(3, kernel_regularizer=keras.regularizers.L2(0.1),
                               bias_regularizer=keras.regularizers.L1(0.2),
                               activity_regularizer=keras.regularizers.L2(0.05))
    layer.build((None, 4))
    layer.set_weights([K43, B3])
    assert len(layer.losses) == 2                                # weight penalties exist before any call
    layer(X24)
    assert_close([float(v) for v in layer.losses], G["dense_losses"])   # activity first, then kernel, bias
    layer(X24[:1])                                               # a new call replaces the activity term
    assert_close([float(v) for v in layer.losses], G["dense_losses_batch1"])


def test_conv_and_embedding_regularizers_by_name():
    conv = keras.layers.Conv2D(2, 3, kernel_regularizer="l2", bias_regularizer="l1", activity_regularizer="l1")
    conv.build((None, 4, 4, 2))
    conv.set_weights([r((3, 3, 2, 2), 4), np.array([0.5, -0.5], "float32")])
    conv(r((2, 4, 4, 2), 3))
    assert_close([float(v) for v in conv.losses], G["conv_losses"])
    emb = keras.layers.Embedding(5, 2, embeddings_regularizer=keras.regularizers.L1(0.1))
    emb.build((None,))
    emb.set_weights([r((5, 2), 5)])
    assert_close([float(v) for v in emb.losses], G["embedding_losses"])


def test_losses_are_collected_recursively_and_frozen_layers_have_no_weight_penalty():
    inner = keras.layers.Dense(2, kernel_regularizer=keras.regularizers.L1(1.0), kernel_initializer="ones")
    outer = keras.Sequential([keras.Input((3,)), keras.Sequential([inner])])
    assert [float(v) for v in outer.losses] == [6.0]
    inner.trainable = False
    assert outer.losses == []


def test_add_loss_belongs_to_the_latest_outermost_call():
    class Penalty(keras.layers.Layer):
        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x

    class Outer(keras.Model):
        def __init__(self):
            super().__init__()
            self.p1, self.p2 = Penalty(), Penalty()

        def call(self, x):
            return self.p2(self.p1(x) * 2.0)

    model = Outer()
    model(np.ones((1, 2), "float32"))
    assert [float(v) for v in model.losses] == [2.0, 4.0]      # sub-layers' terms, in order
    model(np.ones((1, 2), "float32"))
    assert len(model.losses) == 2                               # not accumulated across calls
    with pytest.raises(ValueError, match="can only be called from inside `build\\(\\)` or `call\\(\\)`"):
        model.p1.add_loss(1.0)


def test_functional_add_loss_model_matches_tf():
    class AddLoss(keras.layers.Layer):
        def call(self, x):
            self.add_loss(0.1 * tf.reduce_sum(tf.square(x)))
            return x

    inp = keras.Input((4,))
    model = keras.Model(inp, keras.layers.Dense(1)(AddLoss()(inp)))
    model.layers[-1].set_weights([r((4, 1), 9), np.array([0.0], "float32")])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    assert len(model.losses) == G["add_loss_model_losses_before_call"]   # symbolic tracing records nothing
    assert_close(model.train_on_batch(XT, YT), G["add_loss_train_on_batch"])
    model(XT[:2])
    assert_close([float(v) for v in model.losses], G["add_loss_after_call"])


# --- regularized training --------------------------------------------------------------------------
def reg_model():
    model = keras.Sequential([keras.Input((4,)),
                              keras.layers.Dense(3, activation="tanh", kernel_regularizer=keras.regularizers.L2(0.1),
                                                 activity_regularizer=keras.regularizers.L1(0.01)),
                              keras.layers.Dense(1, bias_regularizer=keras.regularizers.L2(0.5))])
    model.set_weights([K43, B3, r((3, 1), 6), np.array([0.7], "float32")])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    return model


def test_train_on_batch_adds_penalties_to_the_loss_and_its_gradient():
    model = reg_model()
    assert_close([float(v) for v in model.losses], G["reg_model_losses_before"])
    logs = [model.train_on_batch(XT, YT), model.train_on_batch(XT, YT)]
    assert_close(logs, G["reg_model_train_on_batch"], 2e-5)
    for got, want in zip(model.get_weights(), G["reg_model_weights_after"]):
        assert_close(got, want, 2e-5)
    assert_close(model.evaluate(XT, YT, verbose=0), G["reg_model_evaluate"], 2e-5)
    assert model.train_function.experimental_get_tracing_count() == 1


def test_fit_reports_the_regularized_loss():
    history = reg_model().fit(XT, YT, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    assert_close(history["loss"], G["reg_model_fit"], 2e-5)


def test_compute_loss_without_compiled_loss_uses_model_losses():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, kernel_regularizer=keras.regularizers.L2(1.0),
                                                                   kernel_initializer="ones", use_bias=False)])
    model.compile(optimizer=keras.optimizers.SGD(0.25))
    logs = model.train_on_batch(np.ones((3, 2), "float32"), np.zeros((3, 1), "float32"), return_dict=True)
    assert logs["loss"] == pytest.approx(2.0)
    assert_close(model.get_weights()[0], [[0.5], [0.5]])        # w - 0.25 * 2w


# --- sample_weight, class_weight, weighted_metrics ------------------------------------------------
XC, YC = r((6, 3), 10), np.array([0, 1, 2, 1, 0, 2])
SW = np.array([1.0, 2.0, 0.5, 0.0, 1.0, 3.0], "float32")
CW = {0: 1.0, 1: 3.0, 2: 0.5}


def cls_model(weighted=False):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(3)])
    model.set_weights([r((3, 3), 11), np.zeros(3, "float32")])
    model.compile(optimizer=keras.optimizers.SGD(0.1),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"],
                  weighted_metrics=["accuracy"] if weighted else None)
    return model


def test_fit_with_sample_weight_matches_tf():
    model = cls_model()
    history = model.fit(XC, YC, sample_weight=SW, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    assert_close(history["loss"], G["fit_sample_weight"]["loss"])
    assert_close(history["accuracy"], G["fit_sample_weight"]["accuracy"])   # `metrics` ignore sample weights
    assert_close(model.get_weights()[0], G["fit_sample_weight_kernel"])


def test_fit_with_class_weight_matches_tf_for_arrays_and_datasets():
    model = cls_model()
    history = model.fit(XC, YC, class_weight=CW, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    assert_close(history["loss"], G["fit_class_weight"]["loss"])
    assert_close(model.get_weights()[0], G["fit_class_weight_kernel"])
    ds = tf.data.Dataset.from_tensor_slices((XC, YC)).batch(4)
    history = cls_model().fit(ds, class_weight=CW, epochs=1, verbose=0).history
    assert_close(history["loss"], G["fit_class_weight_dataset"]["loss"])
    # one-hot labels pick their class with argmax: the same weights, so the same loss as sparse labels
    onehot = keras.Sequential([keras.Input((3,)), keras.layers.Dense(3)])
    onehot.set_weights([r((3, 3), 11), np.zeros(3, "float32")])
    onehot.compile(optimizer=keras.optimizers.SGD(0.1), loss=keras.losses.CategoricalCrossentropy(from_logits=True))
    history = onehot.fit(XC, np.eye(3, dtype="float32")[YC], class_weight=CW, batch_size=4, epochs=2,
                         shuffle=False, verbose=0).history
    assert_close(history["loss"], G["fit_class_weight"]["loss"])
    with pytest.raises(ValueError, match="You cannot `class_weight` and `sample_weight` at the same time."):
        cls_model().fit(XC, YC, sample_weight=SW, class_weight=CW, verbose=0)


def test_class_weight_to_sample_weights_rule():
    from engine.keras.data_adapter import class_weight_to_sample_weights
    got = class_weight_to_sample_weights(np.array([[0.2], [0.9], [2.0]]), {1: 5.0})
    assert got.dtype == np.float32 and got.tolist() == [1.0, 5.0, 1.0]   # rounded labels; missing classes 1.0


def test_evaluate_sample_weight_and_weighted_metrics_match_tf():
    model = cls_model(weighted=True)
    logs = model.evaluate(XC, YC, sample_weight=SW, batch_size=4, verbose=0, return_dict=True)
    assert sorted(logs) == ["accuracy", "loss", "weighted_accuracy"]
    for key, want in G["evaluate_weighted_metrics"].items():
        assert_close(logs[key], want)
    assert_close(cls_model().evaluate(XC, YC, sample_weight=SW, batch_size=4, verbose=0),
                 G["evaluate_sample_weight"])
