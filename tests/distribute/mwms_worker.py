"""One worker of the MultiWorkerMirroredStrategy tests (``test_multi_worker_mirrored.py``), started by the launcher.

``python mwms_worker.py OUT_DIR``: a custom training loop of a small MLP, eagerly
for a few steps and then in a ``tf.function``. Each worker starts its variables
from a *different* seed: the strategy must broadcast the chief's values. Each
replica gets its contiguous slice of every global batch
(``experimental_distribute_values_from_function``). The worker writes its
final weights, losses and what the strategy told it to ``OUT_DIR/rank<r>.npz``
and ``.json``.

:func:`train` without a strategy, on the whole global batch, is the reference the
test compares with (the same data, the chief's initial values).
"""
import json
import os
import sys

import numpy as np

import engine as tf

GLOBAL_BATCH, SIZES, LR, EAGER_STEPS, FUNCTION_STEPS = 12, (4, 8, 3), 0.5, 3, 3


def batches():
    rng = np.random.default_rng(42)
    for _ in range(EAGER_STEPS + FUNCTION_STEPS):
        yield (rng.standard_normal((GLOBAL_BATCH, SIZES[0])).astype(np.float32),
               rng.integers(0, SIZES[-1], GLOBAL_BATCH).astype(np.int32))


def initial_values(seed):
    rng = np.random.default_rng(seed)
    out = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        out += [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32), np.zeros(b, np.float32)]
    return out


def make_step(params):
    def step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, params[0]) + params[1])
            logits = tf.matmul(h, params[2]) + params[3]
            per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            loss = tf.nn.compute_average_loss(per_example)     # / the global batch (every replica of every worker)
        grads = tape.gradient(loss, params)
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        for p, g in zip(params, grads):
            p.assign_sub(LR * g)
        return loss
    return step


def train(strategy=None, seed=0):
    """The weights and per-step global losses after the training loop (no strategy: one process, global batches)."""
    if strategy is None:
        params = [tf.Variable(v) for v in initial_values(seed)]
        step = make_step(params)
        fstep = tf.function(step)
        losses = [float((step if i < EAGER_STEPS else fstep)(x, y)) for i, (x, y) in enumerate(batches())]
        return [p.numpy() for p in params], losses
    with strategy.scope():
        params = [tf.Variable(v) for v in initial_values(seed)]
    step = make_step(params)
    n = strategy.num_replicas_in_sync

    def mine(batch):   # this replica's contiguous slice of the global batch
        per = GLOBAL_BATCH // n
        return strategy.experimental_distribute_values_from_function(
            lambda ctx: batch[ctx.replica_id_in_sync_group * per:(ctx.replica_id_in_sync_group + 1) * per])

    @tf.function
    def fstep(x, y):
        return strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None)

    losses = []
    for i, (x, y) in enumerate(batches()):
        if i < EAGER_STEPS:
            losses.append(float(strategy.reduce("SUM", strategy.run(step, args=(mine(x), mine(y))), axis=None)))
        else:
            losses.append(float(fstep(mine(x), mine(y))))
    return [p.numpy() for p in params], losses


def main():
    out_dir = sys.argv[1]
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.extended._id_in_cluster
    with tf.distribute.record_all_reduce() as log:
        weights, losses = train(strategy, seed=rank)     # a different seed on each worker: the chief's must win
    ids = strategy.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
    with strategy.scope():
        scalar = tf.Variable(float(rank) + 7.0)     # a scalar: the chief's 7.0 everywhere
    gathered = strategy.gather(tf.constant([[rank, rank]]), axis=0)
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), *weights, gathered=gathered.numpy())
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump({"losses": losses, "num_replicas_in_sync": strategy.num_replicas_in_sync,
                   "replica_ids": [int(ids)], "scalar": float(scalar.numpy()),
                   "should_checkpoint": strategy.extended.should_checkpoint,
                   "worker_devices": list(strategy.extended.worker_devices), "repr": repr(strategy),
                   "ring_all_reduces": sum(1 for r in log if r.algorithm.startswith("RingAllReduce")),
                   "bytes_sent": sum(r.bytes_sent()[r.rank] for r in log if hasattr(r, "rank"))}, f)
    print(f"done {strategy.extended.worker_devices[0]}", flush=True)


if __name__ == "__main__":
    main()
