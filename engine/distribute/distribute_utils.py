"""Helpers for the layers above ``tf.distribute``: Keras's optimizer and ``model.fit``.

* :func:`all_reduce_gradients`: inside a replica, SUM each gradient over the
  replicas (what ``optimizer.apply_gradients`` does before updating, as Keras
  does). Outside a strategy it returns the gradients unchanged.
* :func:`call_in_cross_replica_context`: run a function once for all replicas
  (e.g. ``optimizer.build``, which creates slot variables) instead of once per
  replica thread.
* :func:`distributed_step`: ``model.fit``/``evaluate``/``predict`` under a
  strategy: split the global batch (under several workers: first this worker's
  contiguous piece, as TF's DATA auto-sharding), run the model's step on every
  replica, and read the metrics in cross-replica context (their variables are
  all-reduced over every worker, so each worker logs the global loss).
  Every worker must see the same global batches: ``fit(shuffle=True)`` draws its
  permutation with ``tf.random.shuffle``, so set the same ``tf.random.set_seed``
  on every worker (TF's advice for a shuffled dataset under MWMS too). With
  pieces of unequal size (a global batch not divisible by the workers), Keras's
  per-replica mean loss / ``num_replicas_in_sync`` is not the global mean, as in TF.
* :func:`gather_across_workers`: ``predict`` under several workers: each worker
  predicted its piece of the batch; every worker gets the whole batch's
  outputs in worker order (Keras 2's ``concat`` reduction did the same with
  ``strategy.gather``).

Why gradients are *summed*, not averaged: each replica's loss is already divided
by the global batch size (``tf.nn.compute_average_loss``, or Keras's loss scaling
by ``1 / num_replicas``), so the sum of the replicas' gradients is exactly the
gradient of the mean loss over the global batch.
"""
from ..framework.context import ctx
from ..framework.tensor import Tensor
from .input_lib import split_global_batch
from .values import DistributedValues, _map_structure

__all__ = ["in_replica_context", "all_reduce_gradients", "call_in_cross_replica_context", "distributed_step",
           "gather_across_workers"]


def in_replica_context():
    """True inside ``strategy.run`` (a real strategy's replica)."""
    return ctx.replica_context is not None


def all_reduce_gradients(grads_and_vars, reduce_op="SUM"):
    """``[(g, v)]`` -> ``[(all-reduced g, v)]`` inside a replica (one packed all-reduce); unchanged outside.

    ``None`` gradients stay ``None`` (every replica must have the same ``None`` s).
    """
    grads_and_vars = list(grads_and_vars)
    replica = ctx.replica_context
    if replica is None or not grads_and_vars:
        return grads_and_vars
    present = [i for i, (g, _) in enumerate(grads_and_vars) if g is not None]
    reduced = replica.all_reduce(reduce_op, [grads_and_vars[i][0] for i in present])
    out = list(grads_and_vars)
    for i, g in zip(present, reduced):
        out[i] = (g, grads_and_vars[i][1])
    return out


def call_in_cross_replica_context(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` once: inside a replica via ``merge_call`` (every replica gets the result)."""
    replica = ctx.replica_context
    if replica is None:
        return fn(*args, **kwargs)
    return replica.merge_call(lambda strategy: fn(*args, **kwargs))


def distributed_step(model, kind, data):
    """One ``train``/``test``/``predict`` step of ``model`` under ``model.distribute_strategy``.

    ``data`` is one *global* batch (what ``train_step`` receives without a
    strategy). It is split across the replicas (``split_global_batch``: works
    eagerly and inside ``tf.function`` with an unknown batch size), the model's
    ``{kind}_step`` runs on every replica (gradients are all-reduced by the
    optimizer), and the result is:

    * train/test: ``model.get_metrics_result()`` read in cross-replica context, so
      metrics whose variables are per replica (``ON_READ``) are summed;
    * predict: the replicas' predictions concatenated in replica order.
    """
    strategy = model.distribute_strategy
    if kind == "train" and getattr(model, "optimizer", None) is not None and not model.optimizer.built:
        with strategy.scope():   # create the slot variables once, here, not in each replica thread
            model.optimizer.build(model.trainable_variables)
    per_replica = split_global_batch(strategy, data)
    outputs = strategy.run(getattr(model, f"{kind}_step"), args=(per_replica,))
    if kind == "predict":
        input_worker = getattr(strategy, "_input_worker", None)
        if input_worker is not None and input_worker()[0] > 1:
            return outputs      # gathered from every worker outside the tf.function (gather_across_workers)
        return _map_structure(lambda v: strategy.gather(v, axis=0) if isinstance(v, DistributedValues) else v,
                              outputs)
    return model.get_metrics_result()


def gather_across_workers(strategy, outputs):
    """``outputs`` (this worker's predictions for its piece of a batch) gathered from every worker, eagerly.

    Unchanged without a strategy of several workers (``strategy._input_worker()``).
    """
    input_worker = getattr(strategy, "_input_worker", None)
    if input_worker is None or input_worker()[0] == 1:
        return outputs
    return _map_structure(lambda v: strategy.gather(v, axis=0) if isinstance(v, (Tensor, DistributedValues)) else v,
                          outputs)
