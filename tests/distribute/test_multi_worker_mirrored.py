"""MultiWorkerMirroredStrategy on real processes: 2 and 3 workers train to the weights of one process.

``mwms_worker.py`` runs a custom training loop (eager steps, then ``tf.function``
steps) under the launcher; each worker starts from its own seed, so equal
results also show that the chief's initial values were broadcast. The reference
is the same loop in this process, without a strategy, on the whole global batch.
"""
import json

import numpy as np
import pytest

import engine as tf
from launched import launch_clusters
import mwms_worker

TIMEOUT_S = 90


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    results = {}
    for n, (status, stdout, stderr, out) in launch_clusters(tmp_path_factory, "mwms_worker.py",
                                                            timeout_s=TIMEOUT_S, prefix="mwms").items():
        assert status == 0, stdout + stderr
        results[n] = [(json.loads((out / f"rank{r}.json").read_text()), dict(np.load(out / f"rank{r}.npz")))
                      for r in range(n)]
    return results
    return results


@pytest.fixture(scope="module")
def reference():
    return mwms_worker.train(None, seed=0)   # one process, global batches, the chief's initial values


@pytest.mark.parametrize("n", [2, 3])
def test_workers_end_with_the_weights_of_one_process(runs, reference, n):
    weights, losses = reference
    for summary, arrays in runs[n]:
        for i, expected in enumerate(weights):
            np.testing.assert_allclose(arrays[f"arr_{i}"], expected, rtol=1e-5, atol=1e-6)
        # strategy.reduce("SUM", per-replica loss) is the global mean loss, at every step
        np.testing.assert_allclose(summary["losses"], losses, rtol=1e-5)
    first = runs[n][0][1]
    for _, arrays in runs[n][1:]:     # and every worker holds the same weights, to the bit
        for i in range(len(weights)):
            np.testing.assert_array_equal(arrays[f"arr_{i}"], first[f"arr_{i}"])


@pytest.mark.parametrize("n", [2, 3])
def test_what_each_worker_is_told(runs, n):
    for rank, (summary, arrays) in enumerate(runs[n]):
        assert summary["num_replicas_in_sync"] == n
        assert summary["replica_ids"] == [rank]
        assert summary["scalar"] == 7.0
        assert summary["should_checkpoint"] is (rank == 0)
        assert summary["worker_devices"] == [f"/job:worker/replica:0/task:{rank}/device:CPU:0"]
        assert summary["repr"] == (f"<engine.distribute.MultiWorkerMirroredStrategy: /job:worker/task:{rank}, {n} "
                                   f"workers, {n} replicas in sync>")
        np.testing.assert_array_equal(arrays["gathered"], [[r, r] for r in range(n)])
        steps = mwms_worker.EAGER_STEPS + mwms_worker.FUNCTION_STEPS
        assert summary["ring_all_reduces"] == 2 * steps     # per step: the gradients (one pack), the loss


def test_without_a_cluster_it_is_one_worker(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    assert strategy.num_replicas_in_sync == 1 and strategy.extended.should_checkpoint
    weights, losses = mwms_worker.train(strategy, seed=0)
    ref_weights, ref_losses = mwms_worker.train(None, seed=0)
    for got, expected in zip(weights, ref_weights):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-6)
    per_replica = strategy.run(lambda: tf.constant([1.0, 2.0, 3.0]))
    assert float(strategy.reduce("MEAN", per_replica, axis=0)) == 2.0
    assert strategy.gather(per_replica, axis=0).numpy().tolist() == [1.0, 2.0, 3.0]
    # one worker: nothing to shard, each global batch goes to its one replica (test_multi_worker_input.py: several)
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(2))
    assert [x.numpy().tolist() for x in dataset] == [[0, 1], [2, 3]]
