"""Conformance with the Keras guide "Training & evaluation with the built-in methods" (multi-output
models, custom callbacks, metrics): golden values recorded from TF 2.21 / Keras 3.15."""
import numpy as np
import pytest

import engine as tf

keras = tf.keras
layers = keras.layers
RS = np.random.RandomState(0)
X = [RS.rand(40, 8).astype("float32"), RS.rand(40, 5).astype("float32")]
Y = [RS.rand(40, 1).astype("float32"), np.eye(5, dtype="float32")[RS.randint(0, 5, 40)]]


def _two_output_model():
    a_in = keras.Input(shape=(8,), name="img_input")
    b_in = keras.Input(shape=(5,), name="ts_input")
    x = layers.Add()([layers.Dense(4)(a_in), layers.Dense(4)(b_in)])
    score = layers.Dense(1, name="score_output")(x)
    cls = layers.Dense(5, name="class_output", activation="softmax")(x)
    return keras.Model(inputs=[a_in, b_in], outputs=[score, cls])


@pytest.mark.parametrize("kwargs,keys", [
    (dict(loss=["mse", "categorical_crossentropy"]), ["class_output_loss", "loss", "score_output_loss"]),
    (dict(loss="mse"), ["class_output_loss", "loss", "score_output_loss"]),
    (dict(loss=["mse", "categorical_crossentropy"], metrics=[["mae"], ["accuracy"]]),
     ["class_output_accuracy", "class_output_loss", "loss", "score_output_loss", "score_output_mae"]),
    (dict(loss=["mse", "categorical_crossentropy"],
          metrics=[[keras.metrics.MeanAbsoluteError()], [keras.metrics.CategoricalAccuracy()]]),
     ["class_output_categorical_accuracy", "class_output_loss", "loss", "score_output_loss",
      "score_output_mean_absolute_error"]),
    (dict(loss={"score_output": "mse", "class_output": "categorical_crossentropy"},
          metrics={"class_output": "accuracy"}), ["class_output_accuracy", "class_output_loss", "loss",
                                                  "score_output_loss"]),
    (dict(loss=["mse", "categorical_crossentropy"],
          metrics={"score_output": ["mae", "mse"], "class_output": ["accuracy"]}),
     ["class_output_accuracy", "class_output_loss", "loss", "score_output_loss", "score_output_mae",
      "score_output_mse"]),
    (dict(loss=[None, "categorical_crossentropy"]), ["loss"]),   # one loss: no per-output trackers
])
def test_multi_output_history_keys(kwargs, keys):
    model = _two_output_model()
    model.compile(optimizer="sgd", **kwargs)
    history = model.fit(X, Y, batch_size=20, epochs=1, verbose=0)
    assert sorted(history.history) == keys
    assert sorted(model.evaluate(X, Y, verbose=0, return_dict=True)) == keys


def test_multi_output_metrics_names_and_evaluate_order():
    model = _two_output_model()
    model.compile(optimizer="sgd", loss=["mse", "categorical_crossentropy"], metrics=[["mae"], ["accuracy"]],
                  loss_weights=[2.0, 1.0])
    assert model.output_names == ["score_output", "class_output"]
    as_list = model.evaluate(X, Y, verbose=0, batch_size=40)
    logs = model.evaluate(X, Y, verbose=0, batch_size=40, return_dict=True)
    assert model.metrics_names == ["loss", "compile_metrics", "score_output_loss", "class_output_loss"]
    # [loss, score_output_loss, class_output_loss, then the other metrics sorted by name]
    assert as_list == [logs[k] for k in ["loss", "score_output_loss", "class_output_loss", "class_output_accuracy",
                                         "score_output_mae"]]
    # per-output losses are reported unweighted; the total is weighted
    assert logs["loss"] == pytest.approx(2 * logs["score_output_loss"] + logs["class_output_loss"], rel=1e-5)


def test_multi_output_errors():
    model = _two_output_model()
    model.compile(optimizer="sgd", loss=["mse", "categorical_crossentropy"], metrics=["mae"])
    with pytest.raises(ValueError, match="metrics"):
        model.fit(X, Y, verbose=0)
    model.compile(optimizer="sgd", loss={"class_output": "categorical_crossentropy"})
    with pytest.raises(ValueError, match=r"Expected keys \['score_output', 'class_output'\] in loss dict"):
        model.fit(X, Y, verbose=0)


def test_dict_outputs_use_the_dict_keys():
    inp = keras.Input(shape=(3,))
    model = keras.Model(inp, {"a": layers.Dense(1, name="da")(inp), "b": layers.Dense(2, name="db")(inp)})
    model.compile(optimizer="sgd", loss={"a": "mse", "b": "mse"}, metrics={"a": ["mae"]})
    h = model.fit(RS.rand(8, 3).astype("float32"), {"a": RS.rand(8, 1).astype("float32"),
                                                    "b": RS.rand(8, 2).astype("float32")}, verbose=0)
    assert sorted(h.history) == ["a_loss", "a_mae", "b_loss", "loss"]


def test_mean_absolute_percentage_error():
    y_true, y_pred = np.array([[1.0, 2.0], [4.0, 0.0]], "float32"), np.array([[2.0, 2.0], [2.0, 1.0]], "float32")
    # 100 * mean(|t - p| / max(|t|, 1e-7)) per sample: [50, 50 + 0.5e9]
    np.testing.assert_allclose(keras.losses.MAPE(y_true, y_pred), [50.0, 5.0e8 + 25.0],
                               rtol=1e-6)
    metric = keras.metrics.MeanAbsolutePercentageError()
    assert metric.name == "mean_absolute_percentage_error"
    metric.update_state(y_true[:1], y_pred[:1])
    assert float(metric.result()) == pytest.approx(50.0)
    assert keras.losses.MeanAbsolutePercentageError().name == "mean_absolute_percentage_error"


def test_callback_hooks_receive_logs_positionally():
    class LossHistory(keras.callbacks.Callback):   # the guide's callback: `logs` has no default
        def on_train_begin(self, logs):
            self.per_batch_losses = []

        def on_batch_end(self, batch, logs):
            self.per_batch_losses.append(logs.get("loss"))

    model = keras.Sequential([keras.Input((8,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    cb = LossHistory()
    model.fit(X[0], Y[0], batch_size=20, epochs=1, callbacks=[cb], verbose=0)
    assert len(cb.per_batch_losses) == 2 and isinstance(cb.per_batch_losses[0], float)


def test_validation_split_needs_arrays():
    model = keras.Sequential([keras.Input((8,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    ds = tf.data.Dataset.from_tensor_slices((X[0], Y[0])).batch(8)
    with pytest.raises(ValueError, match="Argument `validation_split` is only supported for tensors or NumPy arrays"):
        model.fit(ds, validation_split=0.2, verbose=0)
