"""tf.distribute's API, values and rules, against golden values recorded from TensorFlow 2.21.

Multi-replica checks read the results of ``scenarios.py`` (run with the CPU
split into 4 logical devices, in a fresh interpreter; see ``conftest.py``).
Single-device checks run here, in the pytest process.
"""
import pytest

import engine as tf
import engine.distribute  # noqa: F401  (binds tf.distribute)
from engine.distribute.values import PerReplica

CPU = "/job:localhost/replica:0/task:0/device:CPU:"
# TF 2.21: print(v) for tf.Variable(1.0) created in MirroredStrategy(2 logical CPUs).scope()
MIRRORED_REPR = """MirroredVariable:{
  0: <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>,
  1: <tf.Variable 'Variable/replica_1:0' shape=() dtype=float32, numpy=1.0>
}"""


# --------------------------------------------------------------------------------------
# Multi-replica (4 logical CPUs, fresh interpreter)
# --------------------------------------------------------------------------------------
def test_default_strategy_uses_every_logical_cpu(scenario):
    r = scenario("main", "basics")
    assert r["default_replicas"] == 4
    assert r["default_devices"] == [CPU + str(i) for i in range(4)]


def test_mirrored_variable_repr_names_and_devices(scenario):
    r = scenario("main", "basics")
    assert r["var_repr"] == MIRRORED_REPR
    assert r["var_type"] == "MirroredVariable" and r["is_variable"] and r["trainable"]
    assert r["var_name"] == "Variable:0" and r["var_device"] == CPU + "0"
    assert r["component_names"] == ["Variable:0", "Variable/replica_1:0"]
    assert r["component_devices"] == [CPU + "0", CPU + "1"]
    assert r["aggregation"] == "VariableAggregation.NONE"
    assert r["synchronization"] == "VariableSynchronization.ON_WRITE"


def test_per_replica_repr_and_str(scenario):
    r = scenario("main", "basics")
    assert r["per_replica_repr"] == ("PerReplica:{\n  0: <tf.Tensor: shape=(), dtype=int32, numpy=0>,\n"
                                     "  1: <tf.Tensor: shape=(), dtype=int32, numpy=1>\n}")
    assert r["per_replica_str"] == ("PerReplica:{\n  0: tf.Tensor(1.0, shape=(), dtype=float32),\n"
                                    "  1: tf.Tensor(2.0, shape=(), dtype=float32)\n}")


def test_replica_and_cross_replica_contexts(scenario):
    r = scenario("main", "basics")
    assert r["outside"] == [False, False, True]            # default replica context outside any scope
    assert r["in_scope"] == [True, True, True, True]       # cross-replica: get_replica_context() is None
    assert r["inside_run"] == [False, True, 2, True]
    assert r["mixing"].startswith("RuntimeError: Mixing different tf.distribute.Strategy objects: ")


def test_reduce_gather_local_results(scenario):
    b = scenario("main", "basics")
    assert (b["reduce_sum"], b["reduce_mean"], b["local"], b["local_plain"]) == (3.0, 1.5, [1.0, 2.0], 1)
    r = scenario("main", "reduce_and_gather")
    assert r["sum_axis0"] == [6.0, 6.0, 6.0]
    assert r["mean_axis0"] == [1.5, 1.5, 1.5] and r["mean_axis_both"] == 1.5
    assert r["gather0"] == [[1.0] * 3, [1.0] * 3, [2.0] * 3, [2.0] * 3]
    assert r["gather1"] == [[1.0, 1.0, 1.0, 2.0, 2.0, 2.0]] * 2
    assert r["plain_sum"] == ("ValueError: A non-DistributedValues value tf.Tensor(2.0, shape=(), dtype=float32) "
                              "cannot be reduced with the given reduce op ReduceOp.SUM.")
    assert (r["plain_mean_axis"], r["plain_mean"], r["plain_gather"]) == (3.0, [2.0, 4.0], [2.0])
    assert r["bad_op"] == "ValueError: 'MAX' is not a valid ReduceOp"
    assert r["result_device"] == CPU + "0"
    assert r["values_from_fn"] == "PerReplica:{\n  0: 0.0,\n  1: 2.0\n}"


# TF 2.21, 2 replicas, v = 1.0 then: replica assign_add(id+1); replica assign(id+10); cross assign(5);
# cross assign_add(1); cross assign(PerReplica(id)); then the replicas' reads.
ASSIGN_GOLDEN = {
    "NONE": [[2.0, 3.0], [10.0, 11.0], [5.0, 5.0], [6.0, 6.0], [0.0, 1.0], [0.0, 1.0]],
    "SUM": [[4.0, 4.0], [21.0, 21.0], [5.0, 5.0], [6.0, 6.0], [0.0, 1.0], [0.0, 1.0]],
    "MEAN": [[2.5, 2.5], [10.5, 10.5], [5.0, 5.0], [6.0, 6.0], [0.0, 1.0], [0.0, 1.0]],
    "ONLY_FIRST_REPLICA": [[2.0, 2.0], [10.0, 10.0], [5.0, 5.0], [6.0, 6.0], [0.0, 1.0], [0.0, 1.0]],
}


@pytest.mark.parametrize("aggregation", sorted(ASSIGN_GOLDEN))
def test_mirrored_assign_aggregation_rules(scenario, aggregation):
    assert scenario("main", "assign_rules")[aggregation] == ASSIGN_GOLDEN[aggregation]


def test_sync_on_read_variables(scenario):
    r = scenario("main", "sync_on_read")
    sum_error = ("ValueError: SyncOnReadVariable does not support `assign_add` in cross-replica context when "
                 "aggregation is set to `tf.VariableAggregation.SUM`.")
    assert r["SUM"] == ["SyncOnReadVariable", [2.0, 3.0], 5.0, [2.0, 3.0], [3.0, 3.0], sum_error]
    assert r["MEAN"] == ["SyncOnReadVariable", [2.0, 3.0], 2.5, [2.0, 3.0], [6.0, 6.0], [7.0, 7.0]]
    assert r["ONLY_FIRST_REPLICA"] == ["SyncOnReadVariable", [2.0, 3.0], 2.0, [2.0, 3.0], [6.0, 6.0], [7.0, 7.0]]
    none = r["NONE"]
    assert none[:2] == ["SyncOnReadVariable", [2.0, 3.0]] and none[3] == [2.0, 3.0]
    for error in (none[2], none[4], none[5]):   # TF names the enum VariableAggregationV2
        assert error.startswith("ValueError: Could not convert from `tf.VariableAggregation` VariableAggregation")
    assert r["none_sync"].startswith("ValueError: `NONE` variable synchronization mode is not supported with "
                                     "tf.distribute strategy.")
    assert r["on_read_default"] == "SyncOnReadVariable"


def test_all_reduce_merge_call_all_gather(scenario):
    r = scenario("main", "collectives")
    assert r["nested"] == {"a": [0.5, 0.5], "b": [[1.0, 1.0], [5.5, 5.5]]}
    assert r["int_sum"] == [[3, "int32"], [3, "int32"]]
    assert r["int_mean"] == [[2.5, "float64"], [2.5, "float64"]]   # TF: MEAN of int32 is float64
    assert r["bad_op"] == "ValueError: 'MAX' is not a valid ReduceOp"
    assert r["not_callable"] == "TypeError: 'int' object is not callable"
    assert r["merge_call"] == ["PerReplica", "PerReplica:{\n  0: <tf.Tensor: shape=(), dtype=float32, numpy=0.0>,\n"
                                             "  1: <tf.Tensor: shape=(), dtype=float32, numpy=1.0>\n}", True]
    assert r["merge_reduce"] == "<tf.Tensor: shape=(), dtype=float32, numpy=3.0>"
    assert r["all_gather"] == [[[0.0, 0.0], [1.0, 1.0]]] * 2
    assert r["args"] == [1.0, 21.0]


def test_variable_created_inside_a_replica_is_created_once(scenario):
    assert scenario("main", "collectives")["created"] == MIRRORED_REPR.replace("1.0", "3.0")


def test_gradients_inside_replicas(scenario):
    r = scenario("main", "collectives")
    assert r["grads"] == [4.0, 8.0] and r["watched"] == ["MirroredVariable"]   # d(w*w*(id+1))/dw, w = 2
    assert r["grad_all_reduce"] == [4.0, 8.0]   # the gradient of an all-reduce is the all-reduce of gradients


def test_distributed_datasets(scenario):
    r = scenario("main", "datasets")
    # TF's rebatching: slices of sizes that differ by at most one, larger first ([2, 1, 1, 1] for 5 over 4);
    # the short last batch [8, 9] fills the same slices in order ([2, 2] for a global batch of 4 over 2)
    assert r["steps"] == [[[[0, 1], "CPU:0"], [[2, 3], "CPU:1"]], [[[4, 5], "CPU:0"], [[6, 7], "CPU:1"]],
                          [[[8, 9], "CPU:0"], [[], "CPU:1"]]]
    assert r["five_over_four"] == [[[0, 1], [2], [3], [4]], [[5, 6], [7], [8], [9]]]
    assert r["dict"] == [[0, 1, 2], [3, 4, 5]] and r["labels"] == [[0, 10, 20], [30, 40, 50]]
    assert r["element_spec"] == ("PerReplicaSpec(TensorSpec(shape=(None,), dtype=tf.int64, name=None), "
                                 "TensorSpec(shape=(None,), dtype=tf.int64, name=None))")
    assert r["from_fn"] == [[[0, 1, 2, 3], [4, 5, 6, 7]]] and r["input_context"] == [[1, 0, 2, 4]]
    assert r["end"] == "OutOfRangeError: End of sequence"
    assert "needs a batched dataset" in r["unbatched"] and "dataset.batch(global_batch_size)" in r["unbatched"]
    assert r["bad_batch"] == "ValueError: The `global_batch_size` 7 is not divisible by `num_replicas_in_sync` 2 "
    assert r["input_context_str"] == "tf.distribute.InputContext(input pipeline id 0, total: 1)"


def test_compute_average_loss_divides_by_the_global_batch(scenario):
    r = scenario("main", "compute_average_loss")
    # 4 replicas, x = 0..7 split in pairs, per-example loss x*x: each replica sums its pair / 8
    assert r["default"] == r["explicit"] == [0.125, 1.625, 5.125, 10.625]
    assert r["summed"] == 17.5                                  # = mean of x*x over the global batch
    assert r["cross_replica"].startswith("RuntimeError: You are calling `compute_average_loss` in cross replica")


# --------------------------------------------------------------------------------------
# One device (in this process)
# --------------------------------------------------------------------------------------
def test_default_strategy_and_replica_context():
    assert not tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context()
    rc = tf.distribute.get_replica_context()
    assert rc is not None and (rc.num_replicas_in_sync, rc.replica_id_in_sync_group) == (1, 0)
    assert rc.all_reduce("SUM", tf.constant([1.0, 2.0])).numpy().tolist() == [1.0, 2.0]
    assert float(rc.merge_call(lambda s, x: x * 2, args=(tf.constant(3.0),))) == 6.0
    strategy = tf.distribute.get_strategy()
    assert strategy.num_replicas_in_sync == 1
    assert float(strategy.run(lambda x: x + 1, args=(tf.constant(1.0),))) == 2.0
    assert float(strategy.reduce("SUM", tf.constant(2.0), axis=None)) == 2.0


def test_one_device_strategy():
    s = tf.distribute.OneDeviceStrategy("/cpu:0")
    rid, total, cross = s.run(lambda: (tf.distribute.get_replica_context().replica_id_in_sync_group,
                                       tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(2.0)),
                                       tf.distribute.in_cross_replica_context()))
    assert repr(rid) == "<tf.Tensor: shape=(), dtype=int32, numpy=0>" and float(total) == 2.0 and cross is False
    assert float(s.reduce("SUM", s.run(lambda: tf.constant([1.0, 2.0])), axis=0)) == 3.0
    with s.scope():
        v = tf.Variable(1.0)
        assert tf.distribute.in_cross_replica_context() and tf.distribute.get_strategy() is s
        assert tf.distribute.get_replica_context() is None
    assert type(v).__name__ == "ResourceVariable" and v.device == CPU + "0"   # TF: a plain ResourceVariable
    assert len(s.experimental_local_results(s.run(lambda: tf.constant(1.0)))) == 1


def test_single_device_mirrored_strategy():
    s = tf.distribute.MirroredStrategy(["/cpu:0"])
    with s.scope():
        v = tf.Variable(1.0)
    assert repr(v) == "MirroredVariable:{\n  0: <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>\n}"
    out = s.run(lambda: v * 2)
    assert type(out).__name__ == "EagerTensor" and float(out) == 2.0   # one replica: the value itself
    mean = s.run(lambda: tf.distribute.get_replica_context().all_reduce("MEAN", tf.constant(3)))
    assert repr(mean) == "<tf.Tensor: shape=(), dtype=int32, numpy=3>"   # TF: one replica, no division


def test_reduce_op_and_input_context():
    assert tf.distribute.ReduceOp("MEAN") is tf.distribute.ReduceOp.MEAN
    assert repr(tf.distribute.ReduceOp.SUM) == "<ReduceOp.SUM: 'SUM'>"
    context = tf.distribute.InputContext(1, 0, 4)
    assert context.get_per_replica_batch_size(64) == 16
    with pytest.raises(ValueError, match="is not divisible by `num_replicas_in_sync` 4"):
        context.get_per_replica_batch_size(30)


def test_per_replica_follows_the_nest_protocol():
    value = PerReplica([tf.constant(1.0), tf.constant(2.0)])
    metadata, components = value.__tf_flatten__()
    rebuilt = PerReplica.__tf_unflatten__(metadata, components)
    assert type(rebuilt) is PerReplica and rebuilt.values == value.values
