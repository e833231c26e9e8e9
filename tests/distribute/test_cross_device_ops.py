"""The all-reduce algorithms: same sums, and the steps and bytes each one records.

The algorithms work on arrays and ``Device`` objects, so most checks run here on
stand-in CPU devices (``Device("CPU", i)``, NumPy arrays); the same algorithms
inside ``strategy.run`` on real logical devices are checked through
``scenarios.py`` (``recorded_all_reduce``).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engine as tf
import engine.distribute  # noqa: F401  (binds tf.distribute)
from engine.distribute.cross_device_ops import chunk_bounds, nccl_problem, select_cross_device_ops
from engine.distribute.values import PerReplica
from engine.framework.device import Device

ALGORITHMS = [tf.distribute.ReductionToOneDevice, tf.distribute.HierarchicalCopyAllReduce,
              tf.distribute.RingAllReduce]


def cpus(n):
    return [Device("CPU", i) for i in range(n)]


def replicas_data(n, shapes, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [[rng.normal(size=s).astype(dtype) for s in shapes] for _ in range(n)]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_every_algorithm_sums_and_means(algorithm, n):
    shapes = [(3, 4), (), (7,)]
    data = replicas_data(n, shapes)
    for op, expected in [("SUM", [sum(d[k] for d in data) for k in range(3)]),
                         ("MEAN", [sum(d[k] for d in data) / n for k in range(3)])]:
        out = algorithm().all_reduce_arrays(op, cpus(n), data)
        for replica in out:
            for got, want, shape in zip(replica, expected, shapes):
                assert np.shape(got) == shape and np.asarray(got).dtype == np.float32
                np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
        if shapes[1] == ():
            assert isinstance(out[0][1], np.generic)   # rank 0: a NumPy scalar, as engine kernels return


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 6), size=st.integers(1, 40), seed=st.integers(0, 1000))
def test_algorithms_agree(n, size, seed):
    data = replicas_data(n, [(size,)], seed)
    results = [a().all_reduce_arrays("SUM", cpus(n), data) for a in ALGORITHMS]
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_allclose(a[0], b[0], rtol=1e-5, atol=1e-5)


def test_integers_and_mixed_dtypes_are_packed_per_dtype():
    data = [[np.array([1, 2], np.int32), np.array([0.5], np.float64)],
            [np.array([3, 4], np.int32), np.array([1.5], np.float64)]]
    algorithm = tf.distribute.RingAllReduce()
    with tf.distribute.record_all_reduce() as log:
        out = algorithm.all_reduce_arrays("SUM", cpus(2), data)
        mean = algorithm.all_reduce_arrays("MEAN", cpus(2), data)
    assert out[1][0].tolist() == [4, 6] and out[1][0].dtype == np.int32 and out[0][1].tolist() == [2.0]
    assert mean[0][0].tolist() == [2.0, 3.0] and mean[0][0].dtype == np.float64   # TF: MEAN of ints is float64
    assert [(r.dtype, r.num_elements) for r in log] == [("int32", 2), ("float64", 1)] * 2


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_ring_sends_two_n_minus_one_over_n_of_the_buffer(n):
    size = 24 * n   # divisible: every chunk has the same size
    algorithm = tf.distribute.RingAllReduce()
    algorithm.all_reduce_arrays("SUM", cpus(n), replicas_data(n, [(size,)]))
    record = algorithm.last_record
    assert record.num_steps == 2 * (n - 1)
    assert [s.phase for s in record.steps] == ["reduce-scatter"] * (n - 1) + ["all-gather"] * (n - 1)
    assert record.chunk_elements == (size // n,) * n
    assert all(len(s.sends) == n for s in record.steps)                    # every device sends in every step
    assert all({x.dst for x in s.sends} == set(range(n)) for s in record.steps)
    assert record.bytes_sent() == [2 * (n - 1) * size * 4 // n] * n == [record.ring_bound()] * n
    assert record.bytes_received() == record.bytes_sent()


def test_ring_schedule_step_by_step():
    algorithm = tf.distribute.RingAllReduce()
    algorithm.all_reduce_arrays("SUM", cpus(3), replicas_data(3, [(7,)]))
    record = algorithm.last_record
    assert record.chunk_elements == (3, 2, 2)   # 7 elements in 3 chunks: the first one larger
    # (src, dst, chunk) in each step: device i sends chunk (i - s) mod N, then complete chunks (i + 1 - s) mod N
    assert [[(x.src, x.dst, x.chunk) for x in s.sends] for s in record.steps] == [
        [(0, 1, 0), (1, 2, 1), (2, 0, 2)], [(0, 1, 2), (1, 2, 0), (2, 0, 1)],
        [(0, 1, 1), (1, 2, 2), (2, 0, 0)], [(0, 1, 0), (1, 2, 1), (2, 0, 2)]]
    assert sum(record.bytes_sent()) == 2 * 2 * 7 * 4   # 2(N-1) x size in total
    text = record.table()
    assert text.splitlines()[0] == ("RingAllReduce: all-reduce (SUM) of 7 x float32 (28 bytes) over 3 devices in "
                                    "4 steps")
    assert "step 1 [reduce-scatter]: CPU:0->CPU:1 chunk 0 (12 B), CPU:1->CPU:2 chunk 1 (8 B)" in text


def test_reduction_to_one_device_bottleneck():
    n, size = 4, 100
    algorithm = tf.distribute.ReductionToOneDevice()
    algorithm.all_reduce_arrays("SUM", cpus(n), replicas_data(n, [(size,)]))
    record = algorithm.last_record
    assert [s.phase for s in record.steps] == ["reduce to one device", "broadcast"]
    assert record.bytes_sent() == [(n - 1) * size * 4] + [size * 4] * (n - 1)   # the root sends (N-1) x size
    assert record.bytes_received() == record.bytes_sent()


def test_reduction_to_an_extra_device_and_accumulation_fn():
    calls = []

    def accumulate(arrays):
        calls.append(len(arrays))
        return np.sum(arrays, axis=0)
    devices = cpus(2)
    algorithm = tf.distribute.ReductionToOneDevice(reduce_to_device=Device("CPU", 9), accumulation_fn=accumulate)
    out = algorithm.all_reduce_arrays("SUM", devices, [[np.ones(3, np.float32)], [np.ones(3, np.float32)]])
    assert calls == [2] and out[1][0].tolist() == [2.0, 2.0, 2.0]


def test_hierarchical_copy_steps():
    algorithm = tf.distribute.HierarchicalCopyAllReduce()
    algorithm.all_reduce_arrays("SUM", cpus(4), replicas_data(4, [(10,)]))
    record = algorithm.last_record
    assert [[(x.src, x.dst) for x in s.sends] for s in record.steps] == [
        [(1, 0), (3, 2)], [(2, 0)], [(0, 2)], [(0, 1), (2, 3)]]
    with pytest.raises(ValueError, match="HierarchicalCopy requires num_packs >= 0, but -1 is specified"):
        tf.distribute.HierarchicalCopyAllReduce(num_packs=-1)


def test_results_are_deterministic():
    data = replicas_data(5, [(1000,)], seed=3)
    for algorithm in ALGORITHMS:
        first = algorithm().all_reduce_arrays("SUM", cpus(5), data)
        again = algorithm().all_reduce_arrays("SUM", cpus(5), data)
        assert all(a[0].tobytes() == b[0].tobytes() for a, b in zip(first, again))


def test_all_reduce_on_eager_per_replica_values():
    algorithm = tf.distribute.RingAllReduce()
    value = PerReplica([tf.constant([1.0, 2.0]), tf.constant([10.0, 20.0])])
    out = algorithm.all_reduce("MEAN", value)
    assert type(out) is PerReplica and [t.numpy().tolist() for t in out.values] == [[5.5, 11.0]] * 2
    assert float(algorithm.reduce("SUM", value, destinations="/cpu:0")[1]) == 22.0
    assert algorithm.broadcast(tf.constant(1.0), "/cpu:0").device.endswith("CPU:0")


def test_nccl_explains_why_it_cannot_run():
    assert "NcclAllReduce needs GPUs, but the replicas run on CPU:0, CPU:1" in nccl_problem(cpus(2))
    shared = [Device("GPU", 0, physical_index=0), Device("GPU", 1, physical_index=0)]
    problem = nccl_problem(shared)
    assert "one physical GPU per replica" in problem and "GPU:0, GPU:1" in problem and "[0, 0]" in problem
    with pytest.raises(ValueError, match="NcclAllReduce needs GPUs"):
        tf.distribute.NcclAllReduce().all_reduce_arrays("SUM", cpus(2), replicas_data(2, [(3,)]))
    with pytest.raises(ValueError, match="NCCL all-reduce requires num_packs >= 0, but -1 is specified"):
        tf.distribute.NcclAllReduce(num_packs=-1)
    assert type(select_cross_device_ops(cpus(4))).__name__ == "ReductionToOneDevice"
    assert type(select_cross_device_ops(shared)).__name__ == "ReductionToOneDevice"


def test_chunk_bounds():
    assert chunk_bounds(10, 4) == ([0, 3, 6, 8], [3, 3, 2, 2])
    assert chunk_bounds(2, 4) == ([0, 1, 2, 2], [1, 1, 0, 0])


# --------------------------------------------------------------------------------------
# Inside strategy.run on 4 logical CPUs (scenarios.py), eagerly and in a tf.function
# --------------------------------------------------------------------------------------
def test_recorded_all_reduce_inside_strategy_run(scenario):
    r = scenario("main", "recorded_all_reduce")
    ring, one, hier = r["ring"], r["one"], r["hier"]
    assert ring["nbytes"] == 4000 and ring["steps"] == 6 and ring["chunks"] == [250] * 4
    assert ring["sent"] == ring["received"] == [6000] * 4 and ring["bound"] == 6000.0   # 2(N-1)/N x size
    assert one["sent"] == [12000, 4000, 4000, 4000] and one["phases"] == ["reduce to one device", "broadcast"]
    assert hier["sent"] == [8000, 4000, 8000, 4000] and hier["steps"] == 4
    for name in r:
        assert r[name]["records"] == 1 and r[name]["same_in_function"] and r[name]["last_record"]
        assert r[name]["values"] == r[name]["values_fn"] == [6.0]   # 0 + 1 + 2 + 3 on every replica
    assert "bytes sent per device: CPU:0 6000 B, CPU:1 6000 B, CPU:2 6000 B, CPU:3 6000 B" in ring["table"]
