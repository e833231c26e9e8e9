"""One worker of the lost-worker test (``test_backup_and_restore.py``), started by the launcher.

``python mwms_backup_worker.py OUT_DIR [KILL_EPOCH]``: Keras ``fit`` of a small model under
MultiWorkerMirroredStrategy with ``BackupAndRestore(OUT_DIR/backup)``. With ``KILL_EPOCH``, worker 1
dies (``os._exit``, as a killed process does: no clean-up) at the end of that epoch, once (a marker
file says it already did): the launcher then stops the whole job, as a cluster manager would, and
the test starts it again. The chief writes its final weights to ``OUT_DIR/weights.npz`` and the
epochs it ran to ``OUT_DIR/epochs.json``.
"""
import json
import os
import sys

import numpy as np

import engine as tf

out_dir = sys.argv[1]
kill_epoch = int(sys.argv[2]) if len(sys.argv) > 2 else None
EPOCHS, GLOBAL_BATCH = 5, 16

tf.random.set_seed(3)                     # the same initial weights in every run of the job
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rng = np.random.default_rng(7)
x = rng.standard_normal((64, 3)).astype(np.float32)
y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.1).astype(np.float32)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", kernel_initializer="glorot_uniform"),
                                 tf.keras.layers.Dense(1)])
    model.build((None, 3))
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse")


class DieOnce(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        marker = os.path.join(out_dir, "died")
        if epoch == kill_epoch and strategy.extended._task_id == 1 and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(17)


class Epochs(tf.keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self.seen = getattr(self, "seen", []) + [epoch]


epochs = Epochs()
model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=EPOCHS, shuffle=False, verbose=0,
          callbacks=[tf.keras.callbacks.BackupAndRestore(os.path.join(out_dir, "backup")), DieOnce(), epochs])
if strategy.extended.should_checkpoint:
    np.savez(os.path.join(out_dir, "weights.npz"), *[np.asarray(w.numpy()) for w in model.weights])
    with open(os.path.join(out_dir, "epochs.json"), "w") as f:
        json.dump(epochs.seen, f)
