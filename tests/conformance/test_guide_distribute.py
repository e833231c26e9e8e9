"""Conformance with "Custom training with tf.distribute.Strategy" and "Distributed training with Keras"
on two logical CPUs (in a fresh interpreter: logical devices must be set before the runtime starts).
Golden values recorded from TF 2.21."""
import json
import os
import pathlib
import subprocess
import sys

import engine

ROOT = pathlib.Path(engine.__file__).resolve().parent.parent
SCRIPT = r'''
import json
import numpy as np
import engine as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
keras = tf.keras
out = {}
strategy = tf.distribute.MirroredStrategy()
out["replicas"] = strategy.num_replicas_in_sync
rs = np.random.RandomState(0)
x = rs.rand(32, 8, 8, 1).astype("float32"); y = rs.randint(0, 10, 32).astype("int64")
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
dist = strategy.experimental_distribute_dataset(ds)
out["dist_type"] = type(dist).__name__
out["spec"] = repr(dist.element_spec)
out["avg_loss"] = [float(tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 3.0, 4.0]))),
                   float(tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 3.0, 4.0]), global_batch_size=8))]
pr = strategy.run(lambda a: a * 2.0, args=(tf.constant(1.0),))
out["pr_type"] = type(pr).__name__
out["reduce"] = [float(strategy.reduce("SUM", pr, axis=None)),
                 float(strategy.reduce(tf.distribute.ReduceOp.MEAN, pr, axis=None))]
dv = strategy.experimental_distribute_values_from_function(lambda ctx: tf.constant(float(ctx.replica_id_in_sync_group)))
out["ids_sum"] = float(strategy.reduce("SUM", dv, axis=None))
out["first_batch"] = type(next(iter(dist))[0]).__name__
with strategy.scope():
    m = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Flatten(), keras.layers.Dense(10)])
    m.compile(loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), optimizer=keras.optimizers.Adam(),
              metrics=["accuracy"])
    out["in_scope"] = [tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context()]
out["history"] = sorted(m.fit(ds, epochs=2, verbose=0).history)
out["evaluate_len"] = len(m.evaluate(ds, verbose=0))
out["model_strategy"] = m.distribute_strategy is strategy
print(json.dumps(out))
'''


def test_guide_custom_training_and_keras_with_mirrored_strategy():
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["replicas"] == 2 and out["dist_type"] == "DistributedDataset"
    assert out["spec"] == ("(PerReplicaSpec(TensorSpec(shape=(None, 8, 8, 1), dtype=tf.float32, name=None), "
                           "TensorSpec(shape=(None, 8, 8, 1), dtype=tf.float32, name=None)), "
                           "PerReplicaSpec(TensorSpec(shape=(None,), dtype=tf.int64, name=None), "
                           "TensorSpec(shape=(None,), dtype=tf.int64, name=None)))")
    assert out["avg_loss"] == [2.5, 1.25]
    assert out["pr_type"] == "PerReplica" and out["reduce"] == [4.0, 2.0] and out["ids_sum"] == 1.0
    assert out["first_batch"] == "PerReplica"
    assert out["in_scope"] == [True, True]
    assert out["history"] == ["accuracy", "loss"] and out["evaluate_len"] == 2 and out["model_strategy"]
