"""One worker of ``test_multi_worker_input.py``: distributed datasets and Keras ``fit`` under MWMS.

``python mwms_input_worker.py OUT_DIR``, started by the launcher. The worker
writes ``OUT_DIR/rank<r>.json`` with what each ``AutoShardPolicy`` gave it (the
cases recorded from TF 2.21 in the test) and the weights after ``model.fit``
on arrays and on a ``tf.data`` dataset; :func:`fit` without a strategy is the
one-process reference.
"""
import json
import os
import sys

import numpy as np

import engine as tf

GLOBAL_BATCH, EPOCHS = 12, 2   # 12: the same piece on each of 2 or 3 workers (Keras averages per replica)
CASES = [(16, 8), (14, 7), (10, 4), (9, 4), (11, 8), (15, 5)]   # (T, B): range(T).batch(B)
POLICIES = ["AUTO", "DATA", "OFF", "FILE", "HINT"]


def data():
    rng = np.random.default_rng(7)
    return rng.standard_normal((24, 4)).astype(np.float32), rng.integers(0, 3, 24).astype(np.int32)


def fit(strategy=None, from_dataset=False):
    """Weights, the loss history, evaluate's loss and predict's outputs of a small MLP trained with ``fit``."""
    x, y = data()

    def build():
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(5, activation="relu"),
                                     tf.keras.layers.Dense(3)])
        rng = np.random.default_rng(0)
        model.set_weights([rng.standard_normal(w.shape).astype(np.float32) * 0.5 for w in model.get_weights()])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.3),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        return model
    if strategy is None:
        model = build()
    else:
        with strategy.scope():
            model = build()
    if from_dataset:
        history = model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH), epochs=EPOCHS, verbose=0)
    else:
        history = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=EPOCHS, shuffle=False, verbose=0)
    loss = model.evaluate(x, y, batch_size=GLOBAL_BATCH, verbose=0)
    predictions = model.predict(x, batch_size=GLOBAL_BATCH, verbose=0)
    return ([w.tolist() for w in model.get_weights()], history.history["loss"], float(loss),
            np.asarray(predictions).tolist())


def shards(strategy):
    """What this worker gets from each policy and case: its local results, step by step (or the error)."""
    out = {}
    for name in POLICIES:
        for total, batch in CASES:
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = getattr(tf.data.experimental.AutoShardPolicy, name)
            dataset = tf.data.Dataset.from_tensor_slices(tf.range(total)).batch(batch).with_options(options)
            try:
                out[f"{name}_{total}_{batch}"] = [
                    [v.numpy().tolist() for v in strategy.experimental_local_results(x)]
                    for x in strategy.experimental_distribute_dataset(dataset)]
            except tf.errors.OpError as e:
                out[f"{name}_{total}_{batch}"] = f"{type(e).__name__}: {e.message[:40]}"
    contexts = []

    def dataset_fn(context):
        contexts.append([context.num_input_pipelines, context.input_pipeline_id, context.num_replicas_in_sync,
                         context.get_per_replica_batch_size({3: 6}.get(context.num_input_pipelines, 8))])
        return tf.data.Dataset.from_tensor_slices(tf.range(16)).shard(
            context.num_input_pipelines, context.input_pipeline_id).batch(4)
    out["dfn"] = [[v.numpy().tolist() for v in strategy.experimental_local_results(x)]
                  for x in strategy.distribute_datasets_from_function(dataset_fn)]
    out["dfn_context"] = contexts
    # a worker with fewer batches than the other gets empty ones until both are done
    out["dfn_uneven"] = [[v.numpy().tolist() for v in strategy.experimental_local_results(x)]
                         for x in strategy.distribute_datasets_from_function(
                             lambda c: tf.data.Dataset.range(2 + 2 * c.input_pipeline_id).batch(2))]
    out["dfn_none_on_0"] = [[v.numpy().tolist() for v in strategy.experimental_local_results(x)]
                            for x in strategy.distribute_datasets_from_function(
                                lambda c: tf.data.Dataset.range(2 * c.input_pipeline_id).batch(2))]
    out["element_spec"] = [repr(strategy.experimental_distribute_dataset(
                               tf.data.Dataset.range(8).batch(4)).element_spec),
                           repr(strategy.distribute_datasets_from_function(
                               lambda c: tf.data.Dataset.range(2).batch(2)).element_spec)]
    return out


def main():
    out_dir = sys.argv[1]
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.extended._id_in_cluster
    result = shards(strategy)
    with strategy.scope():
        in_scope = tf.Variable(1.0)
    with tf.device("/CPU:0"):
        with_cpu = tf.constant(1.0)
    result["devices"] = {"constant": tf.constant(1.0).device, "variable": in_scope.device,
                         "components": [v.device for v in strategy.experimental_local_results(in_scope)],
                         "outside": tf.Variable(2.0).device, "with_cpu": with_cpu.device,
                         "worker_devices": list(strategy.extended.worker_devices)}
    result["fit"] = fit(strategy)
    result["fit_dataset"] = fit(strategy, from_dataset=True)
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
