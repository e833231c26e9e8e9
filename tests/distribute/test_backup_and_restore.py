"""``tf.keras.callbacks.BackupAndRestore``: a job whose worker dies resumes from the last backup and ends
with the weights of a run that never failed (MultiWorkerMirroredStrategy, 2 processes), and the callback's
Keras 3 behaviour in one process."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import engine as tf

from launched import HERE, ROOT

SCRIPT = str(HERE / "mwms_backup_worker.py")


def _launch(out_dir, *args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "engine.distribute.launch", "--workers", "2", "--timeout", "90",
                           SCRIPT, str(out_dir), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=150)


def test_a_lost_worker_job_resumes_and_ends_with_the_no_fault_weights(tmp_path):
    clean, faulty = tmp_path / "clean", tmp_path / "faulty"
    clean.mkdir(), faulty.mkdir()
    run = _launch(clean)
    assert run.returncode == 0, run.stdout + run.stderr
    first = _launch(faulty, "2")                     # worker 1 dies at the end of epoch 2
    assert first.returncode == 17, first.stdout + first.stderr
    assert "worker 1 exited with status 17" in first.stderr + first.stdout
    metadata = json.loads((faulty / "backup" / "training_metadata.json").read_text())
    assert metadata == {"epoch": 3, "batch": 0}      # the chief's backup of the end of epoch 2
    second = _launch(faulty, "2")                    # the job restarted: it resumes from the backup
    assert second.returncode == 0, second.stdout + second.stderr
    assert json.loads((faulty / "epochs.json").read_text()) == [3, 4]
    assert json.loads((clean / "epochs.json").read_text()) == [0, 1, 2, 3, 4]
    expected, resumed = np.load(clean / "weights.npz"), np.load(faulty / "weights.npz")
    for key in expected.files:
        np.testing.assert_array_equal(resumed[key], expected[key])
    assert not (faulty / "backup").exists()          # deleted when fit completed


def _model():
    tf.random.set_seed(5)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="relu"), tf.keras.layers.Dense(1)])
    model.build((None, 2))
    model.compile(optimizer=tf.keras.optimizers.Adam(0.1), loss="mse")
    return model


class _Interrupt(Exception):
    pass


class _StopAt(tf.keras.callbacks.Callback):
    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.epoch:
            raise _Interrupt


def test_resuming_in_one_process_restores_weights_optimizer_state_and_epoch(tmp_path):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((32, 2)).astype(np.float32), rng.standard_normal((32, 1)).astype(np.float32)
    reference = _model()
    reference.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0)
    backup = str(tmp_path / "backup")
    interrupted = _model()
    with pytest.raises(_Interrupt):
        interrupted.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0,
                        callbacks=[tf.keras.callbacks.BackupAndRestore(backup), _StopAt(1)])
    assert sorted(os.listdir(backup)) == ["latest.weights.h5", "training_metadata.json"]
    resumed = _model()
    history = resumed.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0,
                          callbacks=[tf.keras.callbacks.BackupAndRestore(backup)])
    assert history.epoch == [2, 3]
    assert int(resumed.optimizer.iterations.numpy()) == 16            # Adam's step count was restored too
    for a, b in zip(reference.weights, resumed.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not os.path.exists(backup)


def test_batch_frequency_double_checkpoint_and_errors(tmp_path):
    x, y = np.ones((16, 2), np.float32), np.ones((16, 1), np.float32)
    backup = str(tmp_path / "b")
    model = _model()
    with pytest.raises(_Interrupt):
        model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0,
                  callbacks=[tf.keras.callbacks.BackupAndRestore(backup, save_freq=3, double_checkpoint=True),
                             _StopAt(0)])
    assert json.loads(open(os.path.join(backup, "training_metadata.json")).read()) == {"epoch": 0, "batch": 2}
    assert os.path.exists(os.path.join(backup, "latest.weights.h5"))
    with pytest.raises(ValueError, match="Empty `backup_dir` argument passed"):
        tf.keras.callbacks.BackupAndRestore("")
    with pytest.raises(ValueError, match="Invalid value for argument `save_freq`"):
        tf.keras.callbacks.BackupAndRestore(backup, save_freq="batch")
    unbuilt = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    unbuilt.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="you model must be built before you call `fit\\(\\)`"):
        unbuilt.fit(x, y, verbose=0, callbacks=[tf.keras.callbacks.BackupAndRestore(backup)])
