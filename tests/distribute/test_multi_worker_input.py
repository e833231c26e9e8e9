"""Input under MultiWorkerMirroredStrategy on real processes: auto-sharding as TF 2.21, and Keras ``fit``.

``mwms_input_worker.py`` runs under the launcher with 2 and 3 workers. What each
worker gets from ``experimental_distribute_dataset`` for each ``AutoShardPolicy``
must be what TF 2.21 gave its workers (``tf_sharding_cases.py``, recorded on
localhost); ``distribute_datasets_from_function`` gets TF's ``InputContext``;
``model.fit`` (on arrays and on a dataset), ``evaluate`` and ``predict`` end with
what one process gives on the same global batches (TF 2.21's own Keras fails
there: a tuple of per-replica values passed to ``strategy.reduce``).
"""
import json

import numpy as np
import pytest

import engine as tf
from launched import launch_clusters
import mwms_input_worker
from tf_sharding_cases import TF_2_21

TIMEOUT_S = 60


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    results = {}
    for n, (status, stdout, stderr, out) in launch_clusters(tmp_path_factory, "mwms_input_worker.py",
                                                            timeout_s=TIMEOUT_S, prefix="input").items():
        assert status == 0, stdout + stderr
        results[n] = [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]
    return results
    return results


@pytest.mark.parametrize("n", [2, 3])
def test_each_worker_gets_what_tf_gives_it(runs, n):
    for rank, (got, expected) in enumerate(zip(runs[n], TF_2_21[n])):
        for key, value in expected.items():
            if isinstance(value, str):          # FILE on an in-memory dataset: TF's error class and words
                assert got[key].startswith(value), (rank, key, got[key])
            else:
                assert got[key] == value, (rank, key, got[key], value)


def test_data_sharding_is_the_kth_contiguous_piece_of_every_global_batch(runs):
    for rank, got in enumerate(runs[2]):
        assert got["DATA_16_8"] == [[list(range(8 * s + 4 * rank, 8 * s + 4 * rank + 4))] for s in range(2)]
    assert [got["DATA_10_4"] for got in runs[3]][2] == [[[]], [[]], [[]]]   # ceil(4 / 3) = 2: worker 2 gets none


def test_workers_out_of_data_get_empty_batches_until_all_are(runs):
    # dataset_fn makes 1 batch on worker 0, 2 on worker 1: both run 2 steps
    assert [got["dfn_uneven"] for got in runs[2]] == [[[[0, 1]], [[]]], [[[0, 1]], [[2, 3]]]]
    # none at all on worker 0: an empty batch made from the dataset's element_spec
    assert [got["dfn_none_on_0"] for got in runs[2]] == [[[[]]], [[[0, 1]]]]
    # (TF 2.21 gives the same, recorded.) One step's spec is this worker's: its one CPU replica's, as TF's
    assert runs[3][1]["element_spec"] == ["PerReplicaSpec(TensorSpec(shape=(None,), dtype=tf.int64, name=None),)"] * 2


@pytest.fixture(scope="module")
def one_process():
    return {"fit": mwms_input_worker.fit(None), "fit_dataset": mwms_input_worker.fit(None, from_dataset=True)}


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("kind", ["fit", "fit_dataset"])
def test_keras_fit_ends_with_the_weights_of_one_process(runs, one_process, n, kind):
    weights, losses, loss, predictions = one_process[kind]
    for got in runs[n]:
        got_weights, got_losses, got_loss, got_predictions = got[kind]
        for a, b in zip(got_weights, weights):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_losses, losses, rtol=1e-5)
        np.testing.assert_allclose(got_loss, loss, rtol=1e-5)
        np.testing.assert_allclose(got_predictions, predictions, rtol=1e-5, atol=1e-6)
    for got in runs[n][1:]:      # every worker holds the same weights, to the bit
        assert got[kind][0] == runs[n][0][kind][0]


@pytest.mark.parametrize("n", [2, 3])
def test_devices_are_named_after_the_task(runs, n):
    # TF 2.21, 2 workers (recorded): once the strategy joins the cluster every tensor and variable of worker k,
    # in the scope or not, and under tf.device("/CPU:0"), is on /job:worker/replica:0/task:k/device:CPU:0
    for rank, got in enumerate(runs[n]):
        name = f"/job:worker/replica:0/task:{rank}/device:CPU:0"
        assert got["devices"] == {"constant": name, "variable": name, "components": [name], "outside": name,
                                  "with_cpu": name, "worker_devices": [name]}


def test_one_worker_shards_nothing_and_policies_are_tfs(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    policy = tf.data.experimental.AutoShardPolicy
    assert [(p.name, int(p)) for p in policy] == [("OFF", -1), ("AUTO", 0), ("FILE", 1), ("DATA", 2), ("HINT", 3)]
    strategy = tf.distribute.MultiWorkerMirroredStrategy()     # no TF_CONFIG: one worker, devices unrenamed
    assert tf.constant(1.0).device == "/job:localhost/replica:0/task:0/device:CPU:0"
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = policy.FILE
    dataset = tf.data.Dataset.range(4).batch(2).with_options(options)
    assert [x.numpy().tolist() for x in strategy.experimental_distribute_dataset(dataset)] == [[0, 1], [2, 3]]
    assert list(tf.data.Dataset.range(7).shard(3, 1).as_numpy_iterator()) == [1, 4]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Index must be between 0 and 2"):
        tf.data.Dataset.range(7).shard(3, 3)
