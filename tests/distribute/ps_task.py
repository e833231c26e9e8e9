"""A task of a parameter-server cluster, as TF's tutorial writes it: workers and parameter servers serve,
the chief (the coordinator) trains.

Run by ``python -m engine.distribute.launch --workers 2 --ps 2 ps_task.py OUT`` (every task runs this
file, with its TF_CONFIG), or started one task at a time by a test (``ps_task.py`` with no argument on a
worker or ps). The chief writes what it measured to ``OUT/result.json``.
"""
import json
import os
import sys

import numpy as np

import engine as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):
    server = tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                                  task_index=resolver.task_id)
    print(f"{resolver.task_type} {resolver.task_id} serving", flush=True)
    server.join()
    sys.exit(0)

out_dir = sys.argv[1]
STEPS = 24
LR = 0.125                                    # exact in binary: the final weights are exact
strategy = tf.distribute.ParameterServerStrategy(resolver)
coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)

with strategy.scope():
    counter = tf.Variable(0, dtype=tf.int64, name="counter")
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros")])
    model.build((None, 3))
    optimizer = tf.keras.optimizers.SGD(LR)
    seen = tf.Variable(tf.zeros([], tf.int64), name="seen")


def dataset_fn(input_context):
    # every worker its own copy of 1, 2, 3, 4, 1, 2, 3, 4...: every batch of 4 sums to 10
    return tf.data.Dataset.range(1, 5).repeat().batch(4)


per_worker_iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))
x = tf.constant([[1.0, 2.0, 3.0]])


@tf.function
def train_step(iterator):
    ids = next(iterator)

    def replica_fn(ids):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(x))                # linear in the weights: a constant gradient
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        counter.assign_add(1)
        seen.assign_add(tf.reduce_sum(ids))
        return loss

    return strategy.run(replica_fn, args=(ids,))


results = [coordinator.schedule(train_step, args=(per_worker_iterator,)) for _ in range(STEPS)]
coordinator.join()
assert coordinator.done()
losses = [float(r.fetch()) for r in results]

log = []
for i in range(len(strategy.extended.parameter_devices)):
    log += tf.distribute.ps_values.access_log(resolver.cluster_spec().task_address("ps", i))
clients = sorted({a.client for a in log if a.closure is not None})
stale = tf.distribute.ps_values.staleness(log)

with open(os.path.join(out_dir, "result.json"), "w") as f:
    json.dump({"devices": [v.device for v in [counter] + model.trainable_variables + [seen]],
               "parameter_devices": list(strategy.extended.parameter_devices),
               "num_replicas_in_sync": strategy.num_replicas_in_sync,
               "counter": int(counter.numpy()), "iterations": int(optimizer.iterations.numpy()),
               "kernel": np.asarray(model.trainable_variables[0].numpy()).tolist(),
               "bias": np.asarray(model.trainable_variables[1].numpy()).tolist(),
               "seen": int(seen.numpy()), "losses": losses, "clients": clients,
               "staleness": [s for _, _, s in stale]}, f)
print("chief done", flush=True)
