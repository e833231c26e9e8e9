"""The ``all_reduce`` seam: tf.distribute's reductions on all-reduce algorithms written here, as a student writes them.

``NaiveAllReduce`` (everything summed on device 0, the sum sent back) and ``TinyRing`` (reduce-scatter, then
all-gather) fill the protocol, ``all_reduce_sum(buffers, devices)``, with the helpers ``send``, ``begin_step``
and ``chunk_bounds``. On stand-in CPU devices every ``CrossDeviceOps`` sums with them inside
``engine.seams.using(all_reduce=...)``; in fresh interpreters split into 2 logical CPUs, the seed example
(``../shared/seed_examples/mirrored_strategy.py``: Keras ``fit`` in a ``MirroredStrategy`` scope), a custom loop
with ``optimizer.apply_gradients``, ``strategy.reduce`` and ``extended.reduce_to``/``batch_reduce_to`` run on
them and give the reference's results.

Run as a script (``python tests/test_seam_all_reduce.py MODE``) this file is that fresh interpreter.
"""
import json
import os
import pathlib
import runpy
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED = ROOT / ".." / "shared" / "seed_examples" / "mirrored_strategy.py"
sys.path.insert(0, str(ROOT))     # as a script: this checkout's engine

import engine as tf  # noqa: E402
import engine.distribute  # noqa: E402,F401  (binds tf.distribute)
from engine import seams  # noqa: E402
from engine.distribute.cross_device_ops import (ALL_REDUCE_PROTOCOL, CrossDeviceOps, begin_step,  # noqa: E402
                                                chunk_bounds, send)
from engine.distribute.values import PerReplica  # noqa: E402
from engine.framework.device import Device  # noqa: E402


# --------------------------------------------------------------------------------------
# The student's algorithms
# --------------------------------------------------------------------------------------
class NaiveAllReduce:
    """Device 0 adds every buffer, then sends the sum to every other device."""

    calls = 0   # class-wide: `using(all_reduce=NaiveAllReduce)` builds one per all-reduce

    def all_reduce_sum(self, buffers, devices):
        type(self).calls += 1
        begin_step("gather on device 0")
        total = buffers[0]
        for i in range(1, len(devices)):
            total = total + send(buffers[i], devices[i], devices[0])
        begin_step("send the sum back")
        return [total] + [send(total, devices[0], d) for d in devices[1:]]


class TinyRing:
    """Reduce-scatter (each device ends up owning one chunk's sum), then all-gather (pass the sums around)."""

    calls = 0

    def all_reduce_sum(self, buffers, devices):
        type(self).calls += 1
        n = len(devices)
        offsets, sizes = chunk_bounds(buffers[0].size, n)
        chunks = [[b[o:o + s] for o, s in zip(offsets, sizes)] for b in buffers]
        for step in range(n - 1):
            begin_step("reduce-scatter")
            moves = [(i, (i + 1) % n, (i - step) % n) for i in range(n)]
            arrived = [send(chunks[i][c], devices[i], devices[j], chunk=c) for i, j, c in moves]
            for (_, j, c), part in zip(moves, arrived):
                chunks[j][c] = chunks[j][c] + part
        for step in range(n - 1):
            begin_step("all-gather")
            moves = [(i, (i + 1) % n, (i + 1 - step) % n) for i in range(n)]
            arrived = [send(chunks[i][c], devices[i], devices[j], chunk=c) for i, j, c in moves]
            for (_, j, c), part in zip(moves, arrived):
                chunks[j][c] = part
        return [np.concatenate(row) for row in chunks]


STUDENTS = {"naive": NaiveAllReduce, "ring": TinyRing}


# ======================================================================================
# The fresh interpreter: ``python tests/test_seam_all_reduce.py reference|naive|ring``
# ======================================================================================
def _seed_example(mode):
    """Run the seed example (it splits the CPU into 2 logical devices), on the student's algorithm unless
    ``mode`` is ``reference``; return its losses, final weights and every all-reduce's record."""
    student = STUDENTS.get(mode)
    with tf.distribute.record_all_reduce() as log, seams.using(all_reduce=student):
        namespace = runpy.run_path(str(SEED), run_name="seed_example")
    history = namespace["history"].history["loss"]
    return namespace["strategy"], {
        "losses": [float(v) for v in history],
        "weights": [np.asarray(w.numpy()).tolist() for w in namespace["model"].weights],
        "algorithms": sorted({r.algorithm for r in log}),
        "gradient_all_reduces": sum(r.num_elements == 49 for r in log),   # 4*8 + 8 + 8*1 + 1 trainable values
        "calls": student.calls if student else 0,
        "ring_steps": sorted({tuple(s.phase for s in r.steps) for r in log}),
    }


def _reductions(strategy, student):
    """strategy.reduce, extended.reduce_to/batch_reduce_to, apply_gradients in strategy.run (eagerly and in a
    tf.function, on an explicit ``cross_device_ops``): on the student's algorithm, then on the reference."""
    def rid():
        return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)

    per_replica = strategy.run(lambda: tf.stack([rid() + 1.0, 10.0 * rid() - 0.5]))
    ring = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"], cross_device_ops=tf.distribute.RingAllReduce())

    def run_all():
        out, calls = {}, []

        def note(name, value):
            out[name] = value
            calls.append((name, student.calls))
        note("reduce_sum", strategy.reduce("SUM", per_replica, axis=None).numpy().tolist())
        note("reduce_mean", strategy.reduce(tf.distribute.ReduceOp.MEAN, per_replica, axis=None).numpy().tolist())
        to_one = strategy.extended.reduce_to("SUM", per_replica, "/cpu:1")
        note("reduce_to", [to_one.numpy().tolist(), to_one.device.split("/")[-1]])
        batch = strategy.extended.batch_reduce_to("MEAN", [(per_replica, "/cpu:0"), (per_replica, per_replica)])
        note("batch_reduce_to", [batch[0].numpy().tolist(), type(batch[1]).__name__,
                                 [[c.numpy().tolist(), c.device.split("/")[-1]] for c in batch[1].values]])
        with ring.scope():
            w = tf.Variable([1.0, -2.0])
            optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)

        def step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * w) * x
            optimizer.apply_gradients([(tape.gradient(loss, w), w)])   # all-reduces the gradient (SUM)
            return loss
        data = ring.experimental_distribute_values_from_function(
            lambda c: tf.constant(1.0 + c.replica_id_in_sync_group))
        ring.run(step, args=(data,))
        note("apply_gradients_eager", [c.numpy().tolist() for c in w.values])
        ring_fn = tf.function(lambda x: ring.run(step, args=(x,)))
        ring_fn(data)
        ring_fn(data)
        note("apply_gradients_function", [c.numpy().tolist() for c in w.values])
        return out, calls

    try:     # TF: only in cross-replica context
        strategy.run(lambda: strategy.extended.reduce_to("SUM", 1.0, "/cpu:0"))
        in_replica = None
    except RuntimeError as error:
        in_replica = str(error)
    student.calls = 0
    reference, reference_calls = run_all()
    student.calls = 0
    with tf.distribute.record_all_reduce() as log, seams.using(all_reduce=student):
        got, calls = run_all()
    return {"reference": reference, "student": got, "calls": calls, "reference_calls": reference_calls,
            "algorithms": sorted({r.algorithm for r in log}), "reduce_to_in_replica": in_replica}


def _main(mode):
    strategy, seed = _seed_example(mode)
    result = {"seed": seed, "seam_restored": seams.current("all_reduce") is CrossDeviceOps}
    if mode in STUDENTS:
        result["reductions"] = _reductions(strategy, STUDENTS[mode])
    print("RESULT " + json.dumps(result))


# ======================================================================================
# The tests
# ======================================================================================
def cpus(n):
    return [Device("CPU", i) for i in range(n)]

def data(n, shapes=((3, 4), (), (7,)), seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [[rng.normal(size=s).astype(dtype) for s in shapes] for _ in range(n)]

ALGORITHMS = [tf.distribute.ReductionToOneDevice, tf.distribute.HierarchicalCopyAllReduce,
              tf.distribute.RingAllReduce]

@pytest.fixture(autouse=True)
def _counts():
    NaiveAllReduce.calls = TinyRing.calls = 0
    yield
    assert seams.current("all_reduce") is CrossDeviceOps   # no test leaves the seam replaced

def test_the_protocol_is_declared_and_the_engine_algorithms_fill_it():
    slot = seams.seam("all_reduce")
    assert slot.protocol == ALL_REDUCE_PROTOCOL == ("all_reduce_sum",)
    assert slot.reference is CrossDeviceOps and not slot.replaced
    for algorithm in ALGORITHMS + [tf.distribute.NcclAllReduce]:
        assert slot.check(algorithm) is algorithm and slot.check(algorithm()) is not None
    # the engine's ring *is* a protocol implementation: called directly, it sums
    buffers = [np.arange(5, dtype=np.float32) * (i + 1) for i in range(3)]
    for out in tf.distribute.RingAllReduce().all_reduce_sum(buffers, cpus(3)):
        np.testing.assert_array_equal(out, np.arange(5, dtype=np.float32) * 6)

@pytest.mark.parametrize("student", [NaiveAllReduce, TinyRing])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("n", [2, 3, 5])
def test_every_cross_device_ops_sums_with_the_student_algorithm(student, algorithm, n):
    values = data(n)
    expected = {op: algorithm().all_reduce_arrays(op, cpus(n), values) for op in ("SUM", "MEAN")}
    chosen = algorithm()
    with seams.using(all_reduce=student):
        got = {op: chosen.all_reduce_arrays(op, cpus(n), values) for op in ("SUM", "MEAN")}
        assert chosen.last_record.algorithm == student.__name__
    assert student.calls == 2   # one packed buffer (one dtype) per all-reduce
    for op in got:
        for replica_got, replica_expected in zip(got[op], expected[op]):
            for a, b in zip(replica_got, replica_expected):
                assert np.shape(a) == np.shape(b) and np.asarray(a).dtype == np.asarray(b).dtype
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    assert isinstance(got["SUM"][0][1], np.generic)   # rank 0 stays a NumPy scalar, as engine kernels return

def test_mixed_dtypes_are_packed_per_dtype_and_integer_mean_is_float64():
    values = [[np.array([1, 2], np.int32), np.array([0.5], np.float64)],
              [np.array([3, 4], np.int32), np.array([1.5], np.float64)]]
    with seams.using(all_reduce=NaiveAllReduce), tf.distribute.record_all_reduce() as log:
        out = tf.distribute.RingAllReduce().all_reduce_arrays("SUM", cpus(2), values)
        mean = tf.distribute.RingAllReduce().all_reduce_arrays("MEAN", cpus(2), values)
    assert NaiveAllReduce.calls == 4 and [(r.dtype, r.algorithm) for r in log] == [
        ("int32", "NaiveAllReduce"), ("float64", "NaiveAllReduce")] * 2
    assert out[1][0].tolist() == [4, 6] and out[1][0].dtype == np.int32 and out[0][1].tolist() == [2.0]
    assert mean[0][0].tolist() == [2.0, 3.0] and mean[0][0].dtype == np.float64

def test_the_student_ring_sums_and_records_exactly_as_the_reference_ring():
    n, values = 4, data(4, [(10,)], seed=3)
    reference = tf.distribute.RingAllReduce()
    expected = reference.all_reduce_arrays("SUM", cpus(n), values)
    chosen = tf.distribute.ReductionToOneDevice()
    with seams.using(all_reduce=TinyRing):
        got = chosen.all_reduce_arrays("SUM", cpus(n), values)
    for a, b in zip(got, expected):
        assert a[0].tobytes() == b[0].tobytes()     # the same additions in the same order
    mine, ref = chosen.last_record, reference.last_record
    assert mine.algorithm == "TinyRing" and mine.chunk_elements == ref.chunk_elements == (3, 3, 2, 2)
    assert [(s.phase, s.sends) for s in mine.steps] == [(s.phase, s.sends) for s in ref.steps]
    assert mine.bytes_sent() == ref.bytes_sent() and mine.num_steps == 2 * (n - 1)

def test_the_naive_record_shows_the_bottleneck():
    n, size = 4, 100
    chosen = tf.distribute.RingAllReduce()
    with seams.using(all_reduce=NaiveAllReduce):
        chosen.all_reduce_arrays("SUM", cpus(n), data(n, [(size,)]))
    record = chosen.last_record
    assert [s.phase for s in record.steps] == ["gather on device 0", "send the sum back"]
    assert [[(x.src, x.dst) for x in s.sends] for s in record.steps] == [[(1, 0), (2, 0), (3, 0)],
                                                                         [(0, 1), (0, 2), (0, 3)]]
    assert record.bytes_sent() == [(n - 1) * size * 4] + [size * 4] * (n - 1)

def test_sends_without_begin_step_are_one_step_each():
    class Unstepped:
        def all_reduce_sum(self, buffers, devices):
            total = buffers[0] + send(buffers[1], devices[1], devices[0])
            return [total, send(total, devices[0], devices[1])]
    chosen = tf.distribute.RingAllReduce()
    with seams.using(all_reduce=Unstepped):
        out = chosen.all_reduce_arrays("SUM", cpus(2), [[np.ones(3, np.float32)], [np.ones(3, np.float32)]])
    assert out[1][0].tolist() == [2.0, 2.0, 2.0]
    assert [(s.phase, [(x.src, x.dst) for x in s.sends]) for s in chosen.last_record.steps] == [
        ("send", [(1, 0)]), ("send", [(0, 1)])]

def test_an_instance_is_used_as_it_is_a_class_is_built_per_all_reduce():
    class Counting(NaiveAllReduce):
        built = 0

        def __init__(self):
            type(self).built += 1
            self.mine = 0

        def all_reduce_sum(self, buffers, devices):
            self.mine += 1
            return super().all_reduce_sum(buffers, devices)
    one = Counting()
    with seams.using(all_reduce=one):
        for _ in range(3):
            tf.distribute.RingAllReduce().all_reduce_arrays("SUM", cpus(2), data(2))
    assert (one.mine, Counting.built) == (3, 1)
    with seams.using(all_reduce=Counting):
        for _ in range(2):
            tf.distribute.RingAllReduce().all_reduce_arrays("SUM", cpus(2), data(2))
    assert Counting.built == 3

def test_eager_per_replica_values_and_cross_device_ops_reduce():
    algorithm = tf.distribute.HierarchicalCopyAllReduce()
    value = PerReplica([tf.constant([1.0, 2.0]), tf.constant([10.0, 20.0])])
    expected = [t.numpy().tolist() for t in algorithm.all_reduce("MEAN", value).values]
    with seams.using(all_reduce=NaiveAllReduce):
        got = [t.numpy().tolist() for t in algorithm.all_reduce("MEAN", value).values]
    assert got == expected == [[5.5, 11.0]] * 2 and NaiveAllReduce.calls == 1

def test_the_block_restores_the_reference_on_exit_and_on_exceptions():
    class Broken:
        def all_reduce_sum(self, buffers, devices):
            raise RuntimeError("my algorithm has a bug")
    chosen = tf.distribute.ReductionToOneDevice()
    with pytest.raises(RuntimeError, match="my algorithm has a bug"):
        with seams.using(all_reduce=Broken):
            chosen.all_reduce_arrays("SUM", cpus(2), data(2))
    assert seams.current("all_reduce") is CrossDeviceOps
    with pytest.raises(KeyError):
        with seams.using(all_reduce=NaiveAllReduce):
            raise KeyError("the user's code failed")
    assert seams.current("all_reduce") is CrossDeviceOps
    chosen.all_reduce_arrays("SUM", cpus(2), data(2))
    assert chosen.last_record.algorithm == "ReductionToOneDevice" and NaiveAllReduce.calls == 0

def test_nested_blocks_the_innermost_wins():
    chosen = tf.distribute.RingAllReduce()
    with seams.using(all_reduce=NaiveAllReduce):
        with seams.using(all_reduce=TinyRing):
            assert seams.current("all_reduce") is TinyRing
            chosen.all_reduce_arrays("SUM", cpus(3), data(3))
            assert chosen.last_record.algorithm == "TinyRing"
        assert seams.current("all_reduce") is NaiveAllReduce
        chosen.all_reduce_arrays("SUM", cpus(3), data(3))
        assert chosen.last_record.algorithm == "NaiveAllReduce"
    assert (NaiveAllReduce.calls, TinyRing.calls) == (1, 1)
    chosen.all_reduce_arrays("SUM", cpus(3), data(3))
    assert chosen.last_record.algorithm == "RingAllReduce"

def test_an_implementation_missing_the_protocol_method_is_refused_by_name():
    class Misnamed:
        def allreduce(self, buffers, devices):
            return buffers
    with pytest.raises(TypeError, match=r"Misnamed cannot fill the 'all_reduce' seam: it has no all_reduce_sum"):
        with seams.using(all_reduce=Misnamed):
            pass
    with pytest.raises(TypeError, match="it has no all_reduce_sum"):
        with seams.using(all_reduce=object()):
            pass
    assert seams.current("all_reduce") is CrossDeviceOps

def test_a_wrong_result_is_refused_with_what_was_expected():
    class OneBufferOnly:
        def all_reduce_sum(self, buffers, devices):
            return [sum(buffers)]
    with seams.using(all_reduce=OneBufferOnly), pytest.raises(
            ValueError, match=r"OneBufferOnly.all_reduce_sum must return 2 1-D buffers of 3 x float32"):
        tf.distribute.RingAllReduce().all_reduce_arrays("SUM", cpus(2), data(2, [(3,)]))

# --- fresh interpreters, 2 logical CPUs ---------------------------------------------------
@pytest.fixture(scope="module")
def runs():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "TF_CPP_MIN_LOG_LEVEL": "3"}
    processes = {mode: subprocess.Popen([sys.executable, __file__, mode], cwd=ROOT, env=env, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for mode in ("reference", "naive", "ring")}
    results = {}
    for mode, process in processes.items():
        out, err = process.communicate(timeout=300)
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        assert process.returncode == 0 and lines, f"{mode} failed:\n{out[-2000:]}\n{err[-4000:]}"
        results[mode] = json.loads(lines[-1][len("RESULT "):])
    return results

def test_the_seed_example_trains_on_the_student_algorithms_as_on_the_reference(runs):
    reference = runs["reference"]["seed"]
    assert reference["algorithms"] == ["ReductionToOneDevice"] and reference["gradient_all_reduces"] == 160
    for mode, name in (("naive", "NaiveAllReduce"), ("ring", "TinyRing")):
        seed = runs[mode]["seed"]
        assert seed["algorithms"] == [name]          # every all-reduce of fit went through the student's code
        assert seed["gradient_all_reduces"] == 160   # 20 epochs x 8 batches, one packed gradient each
        assert seed["calls"] >= 160
        np.testing.assert_allclose(seed["losses"], reference["losses"], rtol=1e-6, atol=1e-7)
        for got, expected in zip(seed["weights"], reference["weights"]):
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
        assert runs[mode]["seam_restored"]
    assert runs["ring"]["seed"]["ring_steps"] == [["reduce-scatter", "all-gather"]]   # 2 devices: 2(N-1) steps

@pytest.mark.parametrize("mode", ["naive", "ring"])
def test_every_reduction_of_the_strategy_goes_through_the_student_algorithm(runs, mode):
    r = runs[mode]["reductions"]
    assert r["algorithms"] == [STUDENTS[mode].__name__]
    assert r["reference"].keys() == r["student"].keys()
    for name, expected in r["reference"].items():
        got = r["student"][name]
        if name == "reduce_to":
            assert got[1] == expected[1]                                   # the device
        if name == "batch_reduce_to":
            assert got[1] == expected[1] and [d for _, d in got[2]] == [d for _, d in expected[2]]
        np.testing.assert_allclose(np.array(_numbers(got)), np.array(_numbers(expected)), rtol=1e-6)
    assert r["student"]["reduce_to"][1] == "device:CPU:1" and r["student"]["batch_reduce_to"][1] == "Mirrored"
    assert [d for _, d in r["student"]["batch_reduce_to"][2]] == ["device:CPU:0", "device:CPU:1"]
    # each reduction called the student's algorithm (cumulative counts after each), none outside the block
    calls = dict(r["calls"])
    assert calls["reduce_sum"] == 1 and calls["reduce_mean"] == 2 and calls["reduce_to"] == 3
    assert calls["batch_reduce_to"] == 5                            # one to CPU:0, one to both devices
    assert calls["apply_gradients_eager"] == calls["batch_reduce_to"] + 1          # the gradient's all-reduce
    assert calls["apply_gradients_function"] == calls["apply_gradients_eager"] + 2   # when the graph runs, per call
    assert all(count == 0 for _, count in r["reference_calls"])
    assert r["reduce_to_in_replica"] == ("Method requires being in cross-replica context, use "
                                         "get_replica_context().merge_call()")   # TF 2.21's RuntimeError

def _numbers(value):
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _numbers(v)]
    return [value] if isinstance(value, (int, float)) else []


if __name__ == "__main__":
    _main(sys.argv[1])
