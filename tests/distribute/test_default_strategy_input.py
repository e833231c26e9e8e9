"""The default strategy's input functions (TF 2.21 returns the dataset itself; recorded values below)."""
import numpy as np

import engine as tf
from engine.distribute import input_lib


def test_default_strategy_distribute_dataset_yields_original_elements():
    ds = tf.data.Dataset.range(6).batch(4)
    dist = tf.distribute.get_strategy().experimental_distribute_dataset(ds)
    # TF 2.21: [array([0, 1, 2, 3]), array([4, 5])], element_spec TensorSpec(shape=(None,), dtype=tf.int64)
    assert [x.numpy().tolist() for x in dist] == [[0, 1, 2, 3], [4, 5]]
    assert dist.element_spec == tf.TensorSpec([None], tf.int64)


def test_default_strategy_accepts_unbatched_dataset():
    dist = tf.distribute.get_strategy().experimental_distribute_dataset(tf.data.Dataset.range(3))
    assert [int(x) for x in dist] == [0, 1, 2]          # TF: scalars 0, 1, 2


def test_default_strategy_datasets_from_function():
    seen = []

    def fn(ctx):
        seen.append((ctx.num_replicas_in_sync, ctx.input_pipeline_id, ctx.get_per_replica_batch_size(4)))
        return tf.data.Dataset.range(5).batch(2)
    dist = tf.distribute.get_strategy().distribute_datasets_from_function(fn)
    assert seen == [(1, 0, 4)]                          # TF: 1 0 4
    assert [x.numpy().tolist() for x in dist] == [[0, 1], [2, 3], [4]]


def test_split_global_batch_with_default_strategy_device():
    x = tf.constant(np.arange(4.0))
    out = input_lib.split_global_batch(tf.distribute.get_strategy(), x)
    np.testing.assert_array_equal(out.numpy(), np.arange(4.0))
