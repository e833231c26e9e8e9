"""How experimental_distribute_dataset splits a global batch across replicas: TF 2.21's sizes.

TF's rule (``tf.data.experimental`` rebatching, ``batch_sizes_for_worker``): the per-replica sizes differ by
at most one, the larger ones first, and a short last batch fills the same slices in order.
"""
import subprocess
import sys
import textwrap

import pytest

from engine.distribute.input_lib import _slice_bounds, slice_sizes


@pytest.mark.parametrize("batch, n, sizes", [
    (10, 4, [3, 3, 2, 2]), (5, 4, [2, 1, 1, 1]), (8, 4, [2, 2, 2, 2]), (3, 4, [1, 1, 1, 0]), (7, 2, [4, 3]),
    (1, 3, [1, 0, 0]), (0, 2, [0, 0]),
])
def test_slice_sizes_differ_by_at_most_one_larger_first(batch, n, sizes):
    assert slice_sizes(batch, n) == sizes
    bounds = _slice_bounds(batch, n)
    assert [end - start for start, end in bounds] == sizes
    assert bounds[0][0] == 0 and bounds[-1][1] == batch and all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))


def test_a_short_last_batch_fills_the_slices_in_order():
    assert [end - start for start, end in _slice_bounds(5, 4, global_batch=10)] == [3, 2, 0, 0]
    assert [end - start for start, end in _slice_bounds(9, 4, global_batch=10)] == [3, 3, 2, 1]


def test_distributed_dataset_and_the_symbolic_split_give_tf_sizes():
    code = textwrap.dedent("""
        import numpy as np, engine as tf
        from engine.distribute.input_lib import split_global_batch
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 4)
        s = tf.distribute.MirroredStrategy()
        for batch, total in [(10, 15), (5, 5)]:
            ds = tf.data.Dataset.from_tensor_slices(np.arange(total, dtype=np.float32)).batch(batch)
            for step in s.experimental_distribute_dataset(ds):
                parts = s.experimental_local_results(step)
                print(batch, [int(t.shape[0]) for t in parts], [float(t.numpy()[0]) if t.shape[0] else None
                                                                for t in parts])
        g = tf.function(lambda x: split_global_batch(s, x).values)
        print("traced", [int(t.shape[0]) for t in g(tf.constant(np.arange(10.0)))])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "10 [3, 3, 2, 2] [0.0, 3.0, 6.0, 8.0]"
    assert lines[1] == "10 [3, 2, 0, 0] [10.0, 13.0, None, None]"
    assert lines[2] == "5 [2, 1, 1, 1] [0.0, 2.0, 3.0, 4.0]"
    assert lines[3] == "traced [3, 3, 2, 2]"
