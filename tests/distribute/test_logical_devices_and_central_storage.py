"""Strategies on devices the machine lacks, and CentralStorageStrategy, as in TF 2.21.

The guide ``site/en/guide/distributed_training.ipynb`` builds
``MirroredStrategy(devices=["/gpu:0", "/gpu:1"])`` and
``tf.distribute.experimental.CentralStorageStrategy()``; on a CPU-only machine
TF 2.21 builds both silently. ``logical_devices_cases.py`` runs the cases in a
fresh interpreter that sees no GPU (``CUDA_VISIBLE_DEVICES=""``), plainly and
with the CPU split into 2 logical devices; ``data/tf_logical_devices.json`` is
what the same script printed under TF 2.21. Every value must be TF's, except
the few deliberate differences listed in ``DIFFERENT``, each pinned to the
engine's value.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import engine

HERE = pathlib.Path(__file__).resolve().parent
ROOT = pathlib.Path(engine.__file__).resolve().parent.parent
GOLDEN = json.loads((HERE / "data" / "tf_logical_devices.json").read_text())
NONE_AGGREGATION = GOLDEN["plain"]["central_gpus"]["update_none_different"]

# (run, case, key) -> the engine's value where it deliberately differs from TF's (see each comment)
DIFFERENT = {
    # The duplicate check: TF raises AssertionError; the engine keeps the ValueError test_training.py pins
    # (same message, over the canonical names).
    ("plain", "mirrored_duplicated", None): GOLDEN["plain"]["mirrored_duplicated"].replace("AssertionError",
                                                                                           "ValueError"),
    ("plain", "mirrored_duplicated_spelling", None): GOLDEN["plain"]["mirrored_duplicated_spelling"].replace(
        "AssertionError", "ValueError"),
    ("plain", "mirrored_cpu_duplicated", None): GOLDEN["plain"]["mirrored_cpu_duplicated"].replace(
        "AssertionError", "ValueError"),
    # The class's bases: the engine's CentralStorageStrategy mixes in the replicas' GPU streams; TF's has StrategyBase.
    **{(run, case, "mro"): ["CentralStorageStrategy", "ReplicaStreams", "Strategy", "object"]
       for run, case in [("plain", "central_default"), ("plain", "central_gpus"),
                         ("plain", "central_gpus_parameter_cpu"), ("split", "central_cpus"),
                         ("split", "central_cpus_parameter_cpu1")]},
    # An AggregatingVariable (aggregation NONE) updated inside run with the same value on every replica: TF
    # refuses; the engine applies it once (the engine's Keras optimizer updates inside the replicas with
    # all-reduced gradients). With different values the engine refuses as TF does (update_none_different).
    **{(run, case, "update_none_same"): [
        "PerReplica:{\n  0: <tf.Tensor: shape=(), dtype=float32, numpy=7.0>,\n"
        "  1: <tf.Tensor: shape=(), dtype=float32, numpy=7.0>\n}", 7.0]
       for run, case in [("plain", "central_gpus"), ("plain", "central_gpus_parameter_cpu"),
                         ("split", "central_cpus"), ("split", "central_cpus_parameter_cpu1")]},
    # Keras 3.15 under TF's CentralStorageStrategy with 2 replicas logs a loss that is not the mean loss
    # (its weights are exactly the one-replica run's); the engine logs the mean, the one-replica run's values.
    ("plain", "train_central_gpus", "losses"): GOLDEN["plain"]["train_central_default"]["losses"],
    ("plain", "train_central_gpus", "evaluate"): GOLDEN["plain"]["train_central_default"]["evaluate"],
}

_runs = {}


def engine_results(run):
    if run not in _runs:
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "TF_CPP_MIN_LOG_LEVEL": "3",
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        args = [sys.executable, str(HERE / "logical_devices_cases.py"), "engine"] + ([run] if run == "split" else [])
        done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        lines = [line for line in done.stdout.splitlines() if line.startswith("RESULTS ")]
        assert done.returncode == 0 and lines, done.stdout[-2000:] + done.stderr[-4000:]
        _runs[run] = json.loads(lines[-1][len("RESULTS "):])
    return _runs[run]


def _cases():
    for run in ("plain", "split"):
        for case in GOLDEN[run]:
            yield run, case


@pytest.mark.parametrize("run,case", list(_cases()))
def test_case_matches_tf(run, case):
    ours = engine_results(run)[case]
    tf_value = GOLDEN[run][case]
    if (run, case, None) in DIFFERENT:
        assert ours == DIFFERENT[(run, case, None)]
        return
    if isinstance(tf_value, dict):
        assert isinstance(ours, dict), ours
        for key, expected in tf_value.items():
            expected = DIFFERENT.get((run, case, key), expected)
            assert ours[key] == expected, f"{case}[{key!r}]: engine {ours[key]!r}, expected {expected!r}"
        return
    assert ours == tf_value


# --------------------------------------------------------------------------------------
# The guide's values, spelled out
# --------------------------------------------------------------------------------------
def test_guide_mirrored_strategy_on_two_missing_gpus():
    got = engine_results("plain")["guide_mirrored"]
    assert got["n"] == 2
    assert got["worker_devices"] == ["/job:localhost/replica:0/task:0/device:GPU:0",
                                     "/job:localhost/replica:0/task:0/device:GPU:1"]
    assert got["var"] == "MirroredVariable"
    assert got["components"] == [["Variable:0", "/job:localhost/replica:0/task:0/device:CPU:0"],
                                 ["Variable/replica_1:0", "/job:localhost/replica:0/task:0/device:CPU:0"]]
    assert got["run"] == "PerReplica" and got["run_repr"].count("numpy=6.0") == 2
    assert got["reduce"] == 12.0 and got["reduce_mean"] == 6.0
    assert got["replica_ids"] == [0.0, 1.0]             # two distinct replicas, though both run on the host
    assert got["after_assign_add"] == [6.0, 6.0]
    assert got["gather"] == [1.0, 1.0]                  # (TF's all-gather waits forever here; not recorded)


def test_guide_central_storage_strategy_on_a_cpu_only_machine():
    got = engine_results("plain")["central_default"]
    assert got["n"] == 1
    assert got["worker_devices"] == ["/job:localhost/replica:0/task:0/device:CPU:0"]
    assert got["worker_devices_type"] == "list"
    assert got["parameter_devices"] == ["/job:localhost/replica:0/task:0/device:CPU:0"]
    assert got["var"] == "ResourceVariable"
    assert got["run"] == "EagerTensor" and got["reduce"] == "<tf.Tensor: shape=(), dtype=float32, numpy=6.0>"


def test_mirrored_on_missing_gpus_all_reduces_on_the_host():
    """TF's all-reduce waits forever on this setup; the engine's runs (ReductionToOneDevice on CPU:0)."""
    import engine as tf
    if tf.config.list_physical_devices("GPU"):
        pytest.skip("this machine has GPUs: '/gpu:1' may exist")
    strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
    assert type(strategy.extended._cross_device_ops).__name__ == "ReductionToOneDevice"

    def fn():
        ctx = tf.distribute.get_replica_context()
        return ctx.all_reduce("SUM", tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 1.0)
    result = strategy.run(fn)
    assert [float(x) for x in result.values] == [3.0, 3.0]
    assert repr(strategy) == ("<engine.distribute.MirroredStrategy: 2 replicas on GPU:0 on CPU:0, GPU:1 on CPU:0, "
                              "ReductionToOneDevice>")


def test_the_guides_mirrored_strategy_trains_as_tf_trains_one_replica():
    """TF cannot run it (its all-reduce waits forever); the engine's matches TF's one-replica run exactly."""
    got = engine_results("plain")["train_mirrored_gpus"]
    one = GOLDEN["plain"]["train_central_default"]
    for key in ("losses", "weights", "iterations", "evaluate", "predict", "custom_losses", "custom_w",
                "custom_iterations", "function_losses", "function_w"):
        assert got[key] == one[key], key
    assert got["custom_w_type"] == "MirroredVariable"


def test_central_storage_trains_like_tf():
    for case in ("train_central_default", "train_central_gpus"):
        got, tf_value = engine_results("plain")[case], GOLDEN["plain"][case]
        assert got["weights"] == tf_value["weights"]
        assert got["custom_w"] == tf_value["custom_w"]
        assert got["function_w"] == tf_value["function_w"]
        assert sum(got["custom_w"], []) == pytest.approx([0.75885, -0.59505, 0.42119], abs=1e-5)
        assert sum(got["function_w"], []) == pytest.approx([0.89577, -1.19608, 0.40135], abs=1e-5)
        assert got["iterations"] == 6 and got["custom_iterations"] == 2


def test_an_index_that_does_not_exist_of_a_type_that_does_still_raises():
    """A deliberate difference (TF soft-places ``/cpu:7`` too): with CPUs present, a missing CPU is a typo."""
    import engine as tf
    with pytest.raises(ValueError, match=r"MirroredStrategy: device '/cpu:7' does not exist\. The logical devices "
                                         r"are: CPU:0"):
        tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:7"])
    with pytest.raises(ValueError, match=r"CentralStorageStrategy: device '/cpu:7' does not exist"):
        tf.distribute.experimental.CentralStorageStrategy(compute_devices=["/cpu:7"])
