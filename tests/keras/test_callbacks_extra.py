"""ModelCheckpoint, ReduceLROnPlateau, LearningRateScheduler, TerminateOnNaN, CSVLogger against TF 2.21 /
Keras 3.15 (values, printed messages and files recorded with the same data, model and optimizer)."""
import os
import warnings

import numpy as np
import pytest

from kerastest import keras

X = np.round(np.random.default_rng(0).normal(size=(8, 3)), 2).astype("float32")
Y = np.round(np.random.default_rng(1).normal(size=(8, 1)), 2).astype("float32")
CB = keras.callbacks


def model():
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, kernel_initializer="ones")])
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    return m


def close(got, want):
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


def test_learning_rate_scheduler_sets_rate_prints_and_logs(capsys):
    h = model().fit(X, Y, epochs=3, batch_size=4, verbose=0, shuffle=False,
                    callbacks=[CB.LearningRateScheduler(lambda e, lr: lr * 0.5, verbose=1)])
    assert capsys.readouterr().out == (
        "\nEpoch 1: LearningRateScheduler setting learning rate to 0.05000000074505806.\n"
        "\nEpoch 2: LearningRateScheduler setting learning rate to 0.02500000037252903.\n"
        "\nEpoch 3: LearningRateScheduler setting learning rate to 0.012500000186264515.\n")
    close(h.history["loss"], [3.8950676918029785, 2.313335657119751, 1.8731797933578491])
    assert h.history["learning_rate"] == [0.05000000074505806, 0.02500000037252903, 0.012500000186264515]


def test_learning_rate_scheduler_old_api_and_bad_output():
    m = model()
    m.fit(X, Y, epochs=2, batch_size=8, verbose=0, shuffle=False, callbacks=[CB.LearningRateScheduler(lambda e: 0.01 * (e + 1))])
    assert np.isclose(float(m.optimizer.learning_rate.numpy()), 0.02)
    with pytest.raises(ValueError, match="The output of the `schedule` function should be a float"):
        model().fit(X, Y, epochs=1, verbose=0, shuffle=False, callbacks=[CB.LearningRateScheduler(lambda e, lr: "x")])


def test_reduce_lr_on_plateau(capsys):
    h = model().fit(X, Y, epochs=6, batch_size=4, verbose=0, shuffle=False, validation_data=(X, -Y),
                    callbacks=[CB.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1, verbose=1,
                                                    min_lr=0.02)])
    assert capsys.readouterr().out == (
        "\nEpoch 4: ReduceLROnPlateau reducing learning rate to 0.05000000074505806.\n"
        "\nEpoch 5: ReduceLROnPlateau reducing learning rate to 0.02500000037252903.\n"
        "\nEpoch 6: ReduceLROnPlateau reducing learning rate to 0.02.\n")
    close(h.history["val_loss"], [0.9170408248901367, 0.5792552828788757, 0.5708689093589783, 0.5936000347137451,
                                  0.5944567918777466, 0.5935481786727905])
    close(h.history["learning_rate"], [0.1, 0.1, 0.1, 0.1, 0.05, 0.025])
    with pytest.raises(ValueError, match="does not support a factor >= 1.0"):
        CB.ReduceLROnPlateau(factor=1.0)


def test_terminate_on_nan(capsys):
    y = Y.copy()
    y[5] = np.nan
    h = model().fit(X, y, epochs=3, batch_size=4, verbose=0, shuffle=False, callbacks=[CB.TerminateOnNaN()])
    assert capsys.readouterr().out == "Batch 1: Invalid loss, terminating training\n"
    assert len(h.history["loss"]) == 1 and np.isnan(h.history["loss"][0])
    with pytest.raises(RuntimeError, match="NaN or Inf loss encountered at batch 1"):
        model().fit(X, y, epochs=1, batch_size=4, verbose=0, shuffle=False, callbacks=[CB.TerminateOnNaN(raise_error=True)])


def _rows(path, sep=","):
    with open(path) as f:
        return [line.rstrip("\n").split(sep) for line in f]


def test_csv_logger(tmp_path):
    path = str(tmp_path / "log.csv")
    m = model()
    m.fit(X, Y, epochs=2, batch_size=4, verbose=0, shuffle=False, validation_data=(X, Y), callbacks=[CB.CSVLogger(path)])
    rows = _rows(path)
    # TF: 'epoch,loss,val_loss\n0,3.706817388534546,1.271612524986267\n1,1.344516396522522,0.8082774877548218\n'
    assert rows[0] == ["epoch", "loss", "val_loss"] and [r[0] for r in rows[1:]] == ["0", "1"]
    close([[float(v) for v in r[1:]] for r in rows[1:]], [[3.706817388534546, 1.271612524986267],
                                                          [1.344516396522522, 0.8082774877548218]])
    m.fit(X, Y, epochs=1, batch_size=4, verbose=0, shuffle=False, callbacks=[CB.CSVLogger(path, append=True, separator=";")])
    last = _rows(path, ";")[-1]       # TF: '0;0.9220097661018372;NA' (no second header, val column NA)
    assert len(_rows(path)) == 4 and last[0] == "0" and last[2] == "NA"
    close(float(last[1]), 0.9220097661018372)


def test_model_checkpoint_best_only_formats_names(tmp_path, capsys):
    d = str(tmp_path)
    pattern = os.path.join(d, "w-{epoch:02d}-{val_loss:.2f}.weights.h5")
    m = model()
    h = m.fit(X, Y, epochs=4, batch_size=4, verbose=0, shuffle=False, validation_data=(X, -Y),
              callbacks=[CB.ModelCheckpoint(pattern, save_weights_only=True, save_best_only=True, verbose=1)])
    assert sorted(os.listdir(d)) == ["w-01-0.92.weights.h5", "w-02-0.58.weights.h5", "w-03-0.57.weights.h5"]
    f1, f3 = os.path.join(d, "w-01-0.92.weights.h5"), os.path.join(d, "w-03-0.57.weights.h5")
    assert capsys.readouterr().out == (
        f"\nEpoch 1: val_loss improved from None to 0.91704, saving model to {f1}\n"
        f"\nEpoch 1: finished saving model to {f1}\n"
        f"\nEpoch 2: val_loss improved from 0.91704 to 0.57926, saving model to {f1.replace('01-0.92', '02-0.58')}\n"
        f"\nEpoch 2: finished saving model to {f1.replace('01-0.92', '02-0.58')}\n"
        f"\nEpoch 3: val_loss improved from 0.57926 to 0.57087, saving model to {f3}\n"
        f"\nEpoch 3: finished saving model to {f3}\n"
        f"\nEpoch 4: val_loss did not improve from 0.57087\n")
    close(h.history["val_loss"], [0.9170408248901367, 0.5792552828788757, 0.5708689093589783, 0.5936000347137451])
    # the best file holds epoch 3's weights: loading it gives epoch 3's val_loss
    fresh = model()
    fresh.load_weights(f3)
    close(fresh.evaluate(X, -Y, verbose=0), 0.5708689093589783)


def test_model_checkpoint_mode_max_and_every_epoch(tmp_path, capsys):
    d = str(tmp_path)
    m = model()
    m.fit(X, Y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    capsys.readouterr()
    m.fit(X, Y, epochs=2, batch_size=4, verbose=0, shuffle=False,
          callbacks=[CB.ModelCheckpoint(os.path.join(d, "m-{epoch}.weights.h5"), save_weights_only=True,
                                        monitor="loss", mode="max", save_best_only=True, verbose=1)])
    assert sorted(os.listdir(d)) == ["m-1.weights.h5"]
    out = capsys.readouterr().out
    assert out.startswith("\nEpoch 1: loss improved from None to 0.92201, saving model to ")
    assert out.endswith("\nEpoch 2: loss did not improve from 0.92201\n")
    model().fit(X, Y, epochs=3, batch_size=4, verbose=0, shuffle=False,
                callbacks=[CB.ModelCheckpoint(os.path.join(d, "all-{epoch}.weights.h5"), save_weights_only=True)])
    assert sorted(f for f in os.listdir(d) if f.startswith("all")) == [f"all-{i}.weights.h5" for i in (1, 2, 3)]


def test_model_checkpoint_save_freq_batches_and_errors(tmp_path):
    d = str(tmp_path)
    model().fit(X, Y, epochs=2, batch_size=2, verbose=0, shuffle=False,
                callbacks=[CB.ModelCheckpoint(os.path.join(d, "e{epoch}-b{batch}.weights.h5"),
                                              save_weights_only=True, save_freq=3)])
    assert sorted(os.listdir(d)) == ["e1-b3.weights.h5", "e2-b2.weights.h5"]
    with pytest.raises(ValueError, match=r"must end in `.weights.h5` \(Keras weights format\). Received: "
                                         r"filepath=x.h5"):
        CB.ModelCheckpoint("x.h5", save_weights_only=True)
    with pytest.raises(ValueError, match="must end in `.keras`"):
        CB.ModelCheckpoint("x.ckpt")
    with pytest.raises(ValueError, match="Unrecognized save_freq"):
        CB.ModelCheckpoint("x.keras", save_freq="batch")
    with pytest.raises(ValueError, match="ModelCheckpoint callback received monitor=nope, but Keras isn't able"):
        model().fit(X, Y, epochs=1, verbose=0, shuffle=False, callbacks=[
            CB.ModelCheckpoint(os.path.join(d, "b.weights.h5"), save_weights_only=True, monitor="nope",
                               save_best_only=True)])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        model().fit(X, Y, epochs=1, verbose=0, shuffle=False, callbacks=[
            CB.ModelCheckpoint(os.path.join(d, "c.weights.h5"), save_weights_only=True, monitor="val_loss",
                               save_best_only=True)])
    assert any("Can save best model only with val_loss available." in str(x.message) for x in w)
    assert os.path.exists(os.path.join(d, "c.weights.h5"))


def test_model_checkpoint_full_model(tmp_path):
    path = str(tmp_path / "best.keras")
    m = model()
    m.fit(X, Y, epochs=2, batch_size=4, verbose=0, shuffle=False, callbacks=[CB.ModelCheckpoint(path, monitor="loss")])
    loaded = keras.models.load_model(path)
    close(loaded.predict(X, verbose=0), m.predict(X, verbose=0))
