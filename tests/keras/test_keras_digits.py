"""Real data: the shipped digits dataset; an MLP reaches >= 95% test accuracy, a small CNN trains; the seed example."""
import os
import pathlib
import subprocess
import sys

import numpy as np

from kerastest import keras, tf

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load():
    (x_train, y_train), (x_test, y_test) = keras.datasets.digits.load_data()
    return (x_train.astype(np.float32) / 16.0, y_train), (x_test.astype(np.float32) / 16.0, y_test)


def test_digits_dataset_is_shipped_with_a_fixed_split():
    (x_train, y_train), (x_test, y_test) = keras.datasets.digits.load_data()
    assert x_train.shape == (1437, 8, 8) and x_test.shape == (360, 8, 8)
    assert x_train.dtype == np.uint8 and y_train.dtype == np.uint8
    assert x_train.max() == 16 and x_train.min() == 0
    assert sorted(set(y_train.tolist())) == list(range(10)) and np.bincount(y_test).min() >= 27
    assert y_train[:10].tolist() == [6, 5, 3, 4, 4, 4, 8, 8, 7, 0]   # the stored split, not a fresh shuffle
    assert os.path.getsize(ROOT / "engine" / "keras" / "datasets" / "digits.npz") < 200_000


def test_mlp_reaches_95_percent_test_accuracy():
    tf.random.set_seed(0)
    (x_train, y_train), (x_test, y_test) = load()
    model = keras.Sequential([
        keras.Input(shape=(8, 8)), keras.layers.Flatten(),
        keras.layers.Dense(64, activation="relu"), keras.layers.Dense(10)])
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.003),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(x_train, y_train, batch_size=32, epochs=12, verbose=0, validation_split=0.1)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    assert accuracy >= 0.95, (accuracy, history.history)
    assert history.history["loss"][-1] < 0.25 * history.history["loss"][0]
    predictions = model.predict(x_test, verbose=0).argmax(-1)
    np.testing.assert_allclose(np.mean(predictions == y_test), accuracy, rtol=1e-6)
    assert model.train_function.experimental_get_tracing_count() == 1


def test_small_cnn_trains_on_digits():
    tf.random.set_seed(1)
    (x_train, y_train), (x_test, y_test) = load()
    model = keras.Sequential([
        keras.Input(shape=(8, 8, 1)),
        keras.layers.Conv2D(16, 3, activation="relu"), keras.layers.MaxPooling2D(),
        keras.layers.Flatten(), keras.layers.Dropout(0.2), keras.layers.Dense(10)])
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(x_train[..., None], y_train, batch_size=32, epochs=4, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.25 * losses[0] and all(b < a for a, b in zip(losses, losses[1:])), losses
    assert model.evaluate(x_test[..., None], y_test, verbose=0)[1] > 0.9


def test_seed_example_function_train_step():
    """../shared/seed_examples/function_train_step.py (traces[-1] == traces[0] <= 2).

    Run with ``engine.keras`` imported first, until ``engine/__init__.py`` imports it as ``tf.keras``.
    """
    script = ROOT.parent / "shared" / "seed_examples" / "function_train_step.py"
    assert script.is_file(), f"{script} is missing: the shared folder must be checked out beside the project"
    code = f"import engine.keras, runpy; runpy.run_path({str(script)!r}, run_name='__main__')"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    # TF 2.21 prints [2, 2, ...]: Adam's slots are created in the first trace, so it traces twice, once
    assert "traces per epoch [2, 2, 2" in done.stdout
