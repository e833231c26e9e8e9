"""compile/fit/evaluate/predict: a deterministic fit against TF 2.21, History, callbacks, tracing, data inputs."""
import re

import numpy as np
import pytest

import keras_golden as G
from kerastest import assert_close, f32, keras, tf

FIT = G.FIT
X, Y = f32(FIT["x"]), np.array(FIT["y"], np.int32)


def golden_classifier(**compile_kwargs):
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4, activation="tanh"),
                              keras.layers.Dense(2)])
    model.set_weights([f32(w) for w in FIT["w0"]])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1, momentum=0.5),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"],
                  **compile_kwargs)
    return model


def assert_history_close(got, want, tol=2e-6):
    assert list(got) == list(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=tol, atol=tol)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_evaluate_predict_match_tf(run_eagerly):
    model = golden_classifier(run_eagerly=run_eagerly)
    history = model.fit(X, Y, batch_size=16, epochs=3, verbose=0, shuffle=False, validation_data=(X[:10], Y[:10]))
    assert isinstance(history, keras.callbacks.History) and model.history is history
    assert list(history.history) == FIT["keys"] == ["accuracy", "loss", "val_accuracy", "val_loss"]
    assert_history_close(history.history, FIT["history"])
    assert history.params == FIT["params"] and history.epoch == [0, 1, 2]
    for got, want in zip(model.get_weights(), FIT["weights_after"]):
        assert_close(got, want, 2e-6)
    np.testing.assert_allclose(model.evaluate(X, Y, verbose=0), FIT["evaluate"], rtol=2e-6)
    logs = model.evaluate(X, Y, verbose=0, return_dict=True)
    assert list(logs) == ["accuracy", "loss"] and all(isinstance(v, float) for v in logs.values())
    assert_close(model.predict(X[:3], verbose=0), FIT["predict"], 2e-6)
    assert model.metrics_names == ["loss", "compile_metrics"]


def test_fit_with_mse_validation_split_matches_tf():
    want = G.FIT_MSE
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    model.set_weights([f32([[0.2], [-0.1], [0.4]]), f32([0.05])])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05), loss="mse", metrics=["mae"])
    history = model.fit(X, X[:, :1] * 2.0, batch_size=8, epochs=2, verbose=0, shuffle=False, validation_split=0.25)
    assert_history_close(history.history, want["history"])
    for got, w in zip(model.get_weights(), want["weights_after"]):
        assert_close(got, w, 2e-6)
    np.testing.assert_allclose(model.evaluate(X, X[:, :1] * 2.0, verbose=0), want["evaluate"], rtol=2e-6)
    with pytest.raises(ValueError, match="not sufficient to split it"):
        model.fit(X[:1], X[:1, :1], validation_split=0.5, verbose=0)


def test_train_step_is_traced_once_even_with_a_partial_last_batch():
    model = golden_classifier()
    model.fit(X, Y, batch_size=16, epochs=3, verbose=0)   # 40 samples: batches of 16, 16 and 8
    assert model.train_function.experimental_get_tracing_count() == 1
    model.evaluate(X, Y, batch_size=16, verbose=0)
    model.predict(X, batch_size=16, verbose=0)
    assert model.test_function.experimental_get_tracing_count() == 1
    assert model.predict_function.experimental_get_tracing_count() == 1
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)   # recompiling resets the functions
    assert model.train_function is None


def test_verbose_2_prints_one_line_per_epoch(capsys):
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    model.set_weights([f32([[0.2], [-0.1], [0.4]]), f32([0.05])])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05), loss="mse", metrics=["mae"])
    model.fit(X, X[:, :1] * 2.0, batch_size=8, epochs=2, verbose=0, shuffle=False, validation_split=0.25)
    model.fit(X, X[:, :1] * 2.0, batch_size=8, epochs=2, verbose=2, shuffle=False)   # as recorded in TF
    timing = re.compile(r"\d+(us|ms|s)/step")
    assert timing.sub("T", capsys.readouterr().out) == timing.sub("T", G.VERBOSE2_TEXT)


def test_verbose_1_draws_a_live_progress_bar(capsys):
    model = golden_classifier()
    model.fit(X, Y, batch_size=16, epochs=2, verbose=1, shuffle=False, validation_data=(X[:10], Y[:10]))
    out = capsys.readouterr().out
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert plain.startswith("Epoch 1/2\n") and "Epoch 2/2\n" in plain
    assert "\r" in out and "━" * 20 in plain   # the line is redrawn in place; the full bar at the end
    last = plain.split("Epoch 2/2\n")[1].split("\r")[-1]
    assert re.fullmatch(r"3/3 ━{20} \d+s \d+(us|ms|s)/step - accuracy: 0\.\d{4} - loss: 0\.\d{4} - "
                        r"val_accuracy: 0\.\d{4} - val_loss: 0\.\d{4}\n", last.replace("\b", "")), repr(last)
    model.evaluate(X, Y, verbose=1)
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out).replace("\b", "")
    final = r"\r2/2 ━{20} \d+s \d+(us|ms|s)/step - accuracy: 0\.\d{4} - loss: 0\.\d{4}\n"
    assert re.fullmatch(r"(\r1/2 .*)?" + final, out), repr(out)
    model.fit(X, Y, epochs=1, verbose=0)
    assert capsys.readouterr().out == ""


class FakeModel:
    def __init__(self):
        self.stop_training, self.metrics, self.w = False, [], 0

    def get_weights(self):
        return [self.w]

    def set_weights(self, weights):
        self.w = weights[0]


def run_early_stopping(values, monitor="val_loss", **kwargs):
    es = keras.callbacks.EarlyStopping(monitor=monitor, **kwargs)
    model = FakeModel()
    es.set_model(model)
    es.on_train_begin()
    stopped_at = None
    for epoch, value in enumerate(values):
        model.w = epoch
        es.on_epoch_end(epoch, {monitor: value})
        if model.stop_training:
            stopped_at = epoch
            break
    es.on_train_end()
    return {"stopped_at": stopped_at, "stopped_epoch": es.stopped_epoch, "best": es.best, "wait": es.wait,
            "best_epoch": es.best_epoch, "weights": model.w}


SEQ = [1.0, 0.8, 0.85, 0.79, 0.9, 0.95, 0.7, 0.99, 1.0]
ACC = [0.5, 0.6, 0.55, 0.58, 0.7, 0.65, 0.64]
EARLY = {
    "p0": (SEQ, {}), "p2": (SEQ, {"patience": 2}), "p2_delta": (SEQ, {"patience": 2, "min_delta": 0.05}),
    "p1_restore": (SEQ, {"patience": 1, "restore_best_weights": True}),
    "p3_restore": (SEQ, {"patience": 3, "restore_best_weights": True}),
    "baseline": (SEQ, {"patience": 2, "baseline": 0.75}), "start_from": (SEQ, {"patience": 1, "start_from_epoch": 3}),
    "max_mode": (ACC, {"monitor": "val_accuracy", "patience": 1, "mode": "max"}),
    "max_mode_p2": (ACC, {"monitor": "val_accuracy", "patience": 2, "mode": "max", "restore_best_weights": True}),
}


@pytest.mark.parametrize("case", sorted(EARLY))
def test_early_stopping_matches_tf(case):
    values, kwargs = EARLY[case]
    assert run_early_stopping(values, **kwargs) == G.EARLY_STOPPING[case]


def test_early_stopping_inside_fit_and_auto_mode_for_accuracy():
    model = golden_classifier()
    stopper = keras.callbacks.EarlyStopping(monitor="val_accuracy", patience=0, restore_best_weights=True)
    history = model.fit(X, Y, batch_size=16, epochs=50, verbose=0, shuffle=False,
                        validation_data=(X[:10], np.zeros(10, np.int32)), callbacks=[stopper])
    assert stopper.monitor_op is np.greater   # "accuracy" is maximized in mode="auto"
    epochs_run = len(history.history["loss"])
    assert 1 < epochs_run < 50 and stopper.stopped_epoch == epochs_run - 1
    with pytest.raises(ValueError, match="isn't able to automatically determine"):
        run_early_stopping([1.0], monitor="val_custom")


def test_callback_hooks_order_and_stop_training():
    events = []

    class Recorder(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            events.append("train_begin")

        def on_epoch_begin(self, epoch, logs=None):
            events.append(f"epoch_begin {epoch}")

        def on_train_batch_end(self, batch, logs=None):
            events.append(f"batch_end {batch} {sorted(logs)}")

        def on_test_begin(self, logs=None):
            events.append("test_begin")

        def on_epoch_end(self, epoch, logs=None):
            events.append(f"epoch_end {epoch} {sorted(logs)}")
            if epoch == 1:
                self.model.stop_training = True

        def on_train_end(self, logs=None):
            events.append(f"train_end {sorted(logs)}")

    model = golden_classifier()
    model.fit(X, Y, batch_size=32, epochs=5, verbose=0, callbacks=[Recorder()], validation_data=(X, Y))
    assert events == [
        "train_begin", "epoch_begin 0", "batch_end 0 ['accuracy', 'loss']", "batch_end 1 ['accuracy', 'loss']",
        "test_begin", "epoch_end 0 ['accuracy', 'loss', 'val_accuracy', 'val_loss']",
        "epoch_begin 1", "batch_end 0 ['accuracy', 'loss']", "batch_end 1 ['accuracy', 'loss']", "test_begin",
        "epoch_end 1 ['accuracy', 'loss', 'val_accuracy', 'val_loss']",
        "train_end ['accuracy', 'loss', 'val_accuracy', 'val_loss']"]
    seen = []
    model.fit(X, Y, epochs=1, verbose=0,
              callbacks=[keras.callbacks.LambdaCallback(on_batch_end=lambda batch, logs: seen.append(batch))])
    assert seen == [0, 1]


class Batches:
    """A minimal re-iterable dataset with a length (what tf.data.Dataset offers too)."""

    def __init__(self, batches):
        self.batches = batches

    def __iter__(self):
        return iter(self.batches)

    def __len__(self):
        return len(self.batches)


def test_fit_accepts_iterables_of_batches():
    batches = [(X[i:i + 16], Y[i:i + 16]) for i in range(0, 40, 16)]
    a = golden_classifier()
    history_a = a.fit(batches, epochs=3, verbose=0, validation_data=Batches([(X[:10], Y[:10])]))
    b = golden_classifier()
    history_b = b.fit(X, Y, batch_size=16, epochs=3, verbose=0, shuffle=False, validation_data=(X[:10], Y[:10]))
    assert_history_close(history_a.history, history_b.history, 1e-6)
    assert history_a.params["steps"] == 3

    def generator():
        while True:
            for x, y in batches:
                yield tf.constant(x), tf.constant(y)
    c = golden_classifier()
    history_c = c.fit(generator(), steps_per_epoch=3, epochs=3, verbose=0)
    np.testing.assert_allclose(history_c.history["loss"], history_b.history["loss"], rtol=1e-6)
    assert c.predict([(X[:5],), (X[5:8],)], verbose=0).shape == (8, 2)
    with pytest.raises(ValueError, match="`y` should not be passed"):
        c.fit(batches, Y, verbose=0)


def test_sample_weight_and_shuffle():
    model = golden_classifier()
    weights = np.where(Y == 1, 2.0, 0.0).astype(np.float32)
    logs = model.evaluate(X, Y, sample_weight=weights, verbose=0, return_dict=True)
    ones = Y == 1
    only_ones = model.evaluate(X[ones], Y[ones], verbose=0, return_dict=True)
    # the loss is sum(w * l) / n; compiled `metrics` ignore sample weights in Keras 3 (only
    # `weighted_metrics` use them; checked against TF in tests/keras/test_regularizers.py)
    assert_close(logs["loss"], only_ones["loss"] * 2 * ones.sum() / len(Y), 1e-5)
    unweighted = model.evaluate(X, Y, verbose=0, return_dict=True)
    assert_close(logs["accuracy"], unweighted["accuracy"], 1e-6)
    model.compile(optimizer=model.optimizer, loss=model.loss, metrics=["accuracy"], weighted_metrics=["accuracy"])
    logs = model.evaluate(X, Y, sample_weight=weights, verbose=0, return_dict=True)
    assert_close(logs["weighted_accuracy"], only_ones["accuracy"], 1e-6)
    assert_close(logs["accuracy"], unweighted["accuracy"], 1e-6)
    tf.random.set_seed(5)
    first = golden_classifier().fit(X, Y, batch_size=8, epochs=2, verbose=0).history
    tf.random.set_seed(5)
    again = golden_classifier().fit(X, Y, batch_size=8, epochs=2, verbose=0).history
    unshuffled = golden_classifier().fit(X, Y, batch_size=8, epochs=2, verbose=0, shuffle=False).history
    assert first == again and first != unshuffled


def test_custom_train_step_and_tracked_metrics():
    class Custom(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)
            self.tracker = keras.metrics.Mean(name="custom_loss")

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((self(x, training=True) - y) ** 2)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.tracker.update_state(loss)
            return {"custom_loss": self.tracker.result()}

    model = Custom()
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1))
    history = model.fit(X, X[:, :1], batch_size=40, epochs=3, verbose=0)
    losses = history.history["custom_loss"]
    assert list(history.history) == ["custom_loss"] and losses[2] < losses[1] < losses[0]
    assert model.tracker in model.metrics and float(model.tracker.count.numpy()) == 1.0   # reset every epoch


def test_compile_and_data_errors():
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    with pytest.raises(ValueError, match=r"^You must call `compile\(\)` before using the model\.$"):   # Keras 3
        model.fit(X, Y)
    model.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="No loss to compute"):
        model.fit(X, Y, verbose=0)
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="Data cardinality is ambiguous"):
        model.fit(X, Y[:5], verbose=0)
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        model.compile(loss="nope")


def test_distribution_seam():
    """A model created under a strategy's scope remembers it; fit then goes through the distribution hook."""
    from engine.framework.context import ctx

    class FakeStrategy:
        num_replicas_in_sync = 1
    ctx.strategy_stack.append(FakeStrategy())
    try:
        model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    finally:
        ctx.strategy_stack.pop()
    assert isinstance(model.distribute_strategy, FakeStrategy)
    calls = []

    class Hooked(keras.Sequential):
        def _distributed_train_step(self, data):
            calls.append(1)
            return self.train_step(data)
    ctx.strategy_stack.append(FakeStrategy())
    try:
        hooked = Hooked([keras.Input(shape=(3,)), keras.layers.Dense(1)])
        hooked.compile(optimizer="sgd", loss="mse")
    finally:
        ctx.strategy_stack.pop()
    hooked.fit(X, X[:, :1], batch_size=20, epochs=2, verbose=0)
    assert calls == [1]   # traced once, then run as a tf.function
    assert keras.Sequential([keras.layers.Dense(1)]).distribute_strategy is None


def test_fit_under_a_one_device_mirrored_strategy_matches_plain_fit():
    import engine as tf
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])

    def build():
        tf.random.set_seed(3)
        m = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
        m.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
        return m

    with strategy.scope():
        mirrored = build()
    plain = build()
    assert mirrored.distribute_strategy is strategy
    h1 = mirrored.fit(X, X[:, :1], batch_size=20, epochs=3, shuffle=False, verbose=0)
    h2 = plain.fit(X, X[:, :1], batch_size=20, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(h1.history["loss"], h2.history["loss"], rtol=1e-5)
