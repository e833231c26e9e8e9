"""ParameterServerStrategy and ClusterCoordinator on real processes (127.0.0.1, ports chosen at run time).

* a launched cluster (chief + 2 workers + 2 ps) trains a Keras model from scheduled closures: the
  variables are placed round-robin on the ps tasks, every closure's updates arrive (exact final
  weights: a linear loss, a learning rate exact in binary), both workers ran closures, staleness is
  recorded;
* a worker killed (SIGKILL) while its closure runs: the closure is rescheduled, the worker restarted on
  its address is used again, ``join`` returns with the no-fault result;
* a lost parameter server: ``join`` raises TF's ``UnavailableError``;
* a function that raises: its error comes out of ``join``, the closures queued behind it are cancelled,
  and the coordinator schedules again afterwards.

No process or port is left behind: every task process is killed in a ``finally``, and each server of
this process is stopped.
"""
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import engine as tf
from engine.distribute import ps_values
from engine.distribute.launch import free_ports

from launched import HERE, ROOT

TASK = str(HERE / "ps_task.py")


def _env(cluster, task_type, index):
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            "OMP_NUM_THREADS": "1",
            "TF_CONFIG": json.dumps({"cluster": cluster, "task": {"type": task_type, "index": index}})}


def _start(cluster, task_type, index):
    process = subprocess.Popen([sys.executable, TASK], cwd=ROOT, env=_env(cluster, task_type, index),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    line = process.stdout.readline()      # "<type> <index> serving": its server is up
    assert "serving" in line, line + process.stdout.read()
    return process


def _kill(process):
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    process.stdout.close()


@pytest.fixture
def cluster():
    """A chief (this process: the coordinator), 2 workers and 1 ps, each task a process of its own."""
    ports = free_ports(4)
    spec = {"chief": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{p}" for p in ports[1:3]],
            "ps": [f"127.0.0.1:{ports[3]}"]}
    processes = {("ps", 0): _start(spec, "ps", 0)}
    for i in range(2):
        processes[("worker", i)] = _start(spec, "worker", i)
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(tf.train.ClusterSpec(spec), task_type="chief",
                                                                    task_id=0)
    strategy = tf.distribute.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    try:
        yield spec, processes, strategy, coordinator
    finally:
        coordinator._shutdown()
        for process in processes.values():
            _kill(process)
        strategy._coordinator_server.stop(0)
        tf.distribute.rpc.close_channels()


def _wait_for(condition, what, timeout_s=30.0):
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def test_launched_cluster_trains_from_scheduled_closures(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, "-m", "engine.distribute.launch", "--workers", "2", "--ps", "2",
                          "--timeout", "90", TASK, str(tmp_path)], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=150)
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    ps0, ps1 = (f"/job:ps/replica:0/task:{i}/device:CPU:0" for i in range(2))
    # round-robin in creation order: counter, kernel, bias, (the optimizer's), seen
    assert result["devices"][:3] == [ps0, ps1, ps0]
    assert result["parameter_devices"] == [ps0, ps1]
    assert result["num_replicas_in_sync"] == 1
    steps, lr = 24, 0.125
    assert result["counter"] == steps and result["iterations"] == steps
    # loss = sum(x @ kernel + bias) with x = [1, 2, 3]: d/dkernel[i, j] = x[i], d/dbias[j] = 1, every step
    np.testing.assert_array_equal(result["kernel"], 1 - steps * lr * np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]))
    np.testing.assert_array_equal(result["bias"], [-steps * lr] * 2)
    assert result["seen"] == 10 * steps                  # each closure took one batch [1, 2, 3, 4]
    assert result["clients"] == ["/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"]
    assert len(result["staleness"]) > 0 and min(result["staleness"]) >= 0
    # each loss is computed on weights that took a kernel updates and b bias updates so far (stale, the
    # two variables read at different moments), a, b < steps: loss = 12 - 3.5 a - 0.25 b
    for loss in result["losses"]:
        assert any((12 - loss - 3.5 * a) / 0.25 == round((12 - loss - 3.5 * a) / 0.25) and
                   0 <= (12 - loss - 3.5 * a) / 0.25 < steps for a in range(steps)), loss


def test_killed_worker_closure_is_rescheduled_and_join_returns_the_no_fault_result(cluster):
    spec, processes, strategy, coordinator = cluster
    with strategy.scope():
        iterations = tf.Variable(0, dtype=tf.int64)
        keep_going = tf.Variable(True)

    @tf.function
    def step():
        # loops (reading keep_going on the ps each time) until the test lets it finish: TF's own
        # fault-tolerance test holds its closures in flight the same way
        tf.while_loop(lambda i: keep_going.read_value(), lambda i: i + 1, [tf.constant(0)])
        iterations.assign_add(1)
        return iterations.read_value()

    results = [coordinator.schedule(step) for _ in range(6)]
    _wait_for(lambda: coordinator._queue._inflight == 2, "both workers to run a closure")
    assert not coordinator.done()
    _kill(processes[("worker", 0)])                       # worker 0 dies in the middle of its closure
    _wait_for(lambda: coordinator._workers[0].failures == 1, "the coordinator to notice")
    processes[("worker", 0)] = _start(spec, "worker", 0)  # the cluster manager restarts it, same address
    _wait_for(lambda: coordinator._workers[0].available, "the coordinator to use worker 0 again")
    _wait_for(lambda: coordinator._queue._inflight == 2, "the restarted worker to run the rescheduled closure")
    keep_going.assign(False)
    coordinator.join()
    assert iterations.numpy() == 6                        # every closure ran exactly once to completion
    # (each read follows its own update, but another worker's may come between: values may repeat)
    values = [int(r.fetch()) for r in results]
    assert all(1 <= v <= 6 for v in values) and max(values) == 6
    assert coordinator._workers[0].failures == 1 and coordinator._workers[1].failures == 0
    # the restarted worker was given the function again and ran closures
    log = ps_values.access_log(spec["ps"][0])
    assert any(a.client == "/job:worker/replica:0/task:0" and a.kind == "assign_add" for a in log)


def test_lost_parameter_server_raises_unavailable_error(cluster):
    spec, processes, strategy, coordinator = cluster
    with strategy.scope():
        v = tf.Variable(1.0)

    @tf.function
    def step():
        v.assign_add(1.0)
        return v.read_value()

    assert coordinator.schedule(step).fetch() == 2.0
    _kill(processes[("ps", 0)])
    result = coordinator.schedule(step)
    with pytest.raises(tf.errors.UnavailableError):
        coordinator.join()
    with pytest.raises(tf.errors.UnavailableError):
        result.fetch()


def test_function_error_comes_out_of_join_and_cancels_what_waits(cluster):
    spec, processes, strategy, coordinator = cluster
    with strategy.scope():
        v = tf.Variable(0.0)

    @tf.function
    def bad(x):
        tf.debugging.assert_greater(x, 0.0, message="x must be positive")
        v.assign_add(x)
        return x

    first = coordinator.schedule(bad, args=(tf.constant(-1.0),))
    queued = [coordinator.schedule(bad, args=(tf.constant(1.0),)) for _ in range(10)]
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
        coordinator.join()
    with pytest.raises(tf.errors.InvalidArgumentError):
        first.fetch()
    outcomes = []
    for r in queued:
        try:
            outcomes.append(r.fetch())
        except tf.errors.CancelledError:
            outcomes.append("cancelled")
    assert "cancelled" in outcomes                       # those still queued were cancelled
    assert v.numpy() == outcomes.count(1.0)              # the others ran (they were in flight)
    coordinator.join()                                   # the error was reported once
    assert coordinator.schedule(bad, args=(tf.constant(2.0),)).fetch() == 2.0


def test_per_worker_datasets_give_each_worker_its_own_iterator(cluster):
    spec, processes, strategy, coordinator = cluster
    with strategy.scope():
        total = tf.Variable(tf.zeros([], tf.int64))
    per_worker = coordinator.create_per_worker_dataset(lambda: tf.data.Dataset.range(8).batch(2).repeat())
    iterator = iter(per_worker)

    @tf.function
    def take(it):
        batch = next(it)
        total.assign_add(tf.reduce_sum(batch))
        return batch

    # whichever worker takes which closure, each worker reads its own copy of the dataset in order
    results = [coordinator.schedule(take, args=(iterator,)) for _ in range(10)]
    coordinator.join()
    batches = [tuple(r.fetch().tolist()) for r in results]
    assert all(b in [(0, 1), (2, 3), (4, 5), (6, 7)] for b in batches)
    log = ps_values.access_log(spec["ps"][0])
    by_worker = {}
    for a in log:
        if a.kind == "assign_add":
            by_worker.setdefault(a.client, []).append(a.closure)
    for closures in by_worker.values():
        mine = [batches[c] for c in closures]
        assert mine == ([(0, 1), (2, 3), (4, 5), (6, 7)] * 3)[:len(mine)]
    assert total.numpy() == sum(sum(b) for b in batches)


def test_strategy_api_in_one_process():
    ports = free_ports(4)
    spec = tf.train.ClusterSpec({"chief": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{ports[1]}"],
                                 "ps": [f"127.0.0.1:{p}" for p in ports[2:]]})
    servers = [tf.distribute.Server(spec, job_name="worker", task_index=0)] + \
        [tf.distribute.Server(spec, job_name="ps", task_index=i) for i in range(2)]
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, task_type="chief", task_id=0)
    partitioner = tf.distribute.experimental.partitioners.FixedShardsPartitioner(2)
    strategy = tf.distribute.ParameterServerStrategy(resolver, variable_partitioner=partitioner)
    try:
        with pytest.raises(ValueError, match="Only `tf.distribute.experimental.ParameterServerStrategy`"):
            tf.distribute.coordinator.ClusterCoordinator(tf.distribute.OneDeviceStrategy("/cpu:0"))
        coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
        assert tf.distribute.coordinator.ClusterCoordinator(strategy) is coordinator   # one per strategy
        with strategy.scope():
            table = tf.Variable(np.arange(10.0, dtype=np.float32).reshape(5, 2), name="table")
            scalar = tf.Variable(3.0)
        assert isinstance(table, tf.distribute.ShardedVariable)
        assert [tuple(v.shape) for v in table.variables] == [(3, 2), (2, 2)]
        assert [v.device for v in table.variables] == ["/job:ps/replica:0/task:0/device:CPU:0",
                                                       "/job:ps/replica:0/task:1/device:CPU:0"]
        assert scalar.device == "/job:ps/replica:0/task:0/device:CPU:0"
        np.testing.assert_array_equal(table.numpy(), np.arange(10.0).reshape(5, 2))
        np.testing.assert_array_equal(tf.nn.embedding_lookup(table, [4, 0]).numpy(), [[8.0, 9.0], [0.0, 1.0]])
        assert strategy.extended.should_checkpoint and strategy.num_replicas_in_sync == 1

        @tf.function
        def lookup_step(ids):   # on the worker: reads both shards, updates the rows it looked up
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids) * scalar)
            grads = tape.gradient(loss, table.variables)
            for shard, g in zip(table.variables, grads):
                shard.assign_sub(tf.convert_to_tensor(g))
            return loss

        assert coordinator.schedule(lookup_step, args=(tf.constant([4, 0]),)).fetch() == 3.0 * (8 + 9 + 0 + 1)
        expected = np.arange(10.0).reshape(5, 2)
        expected[[0, 4]] -= 3.0
        np.testing.assert_array_equal(table.numpy(), expected)
        with pytest.raises(ValueError):
            tf.distribute.experimental.partitioners.MinSizePartitioner(min_shard_bytes=0)
        coordinator._shutdown()
    finally:
        for server in servers + [strategy._coordinator_server]:
            server.stop(0)
        tf.distribute.rpc.close_channels()


def test_malformed_parameter_server_clusters_raise_value_error():
    with pytest.raises(ValueError, match="There must be at least one ps."):
        tf.distribute.ParameterServerStrategy(tf.distribute.cluster_resolver.SimpleClusterResolver(
            tf.train.ClusterSpec({"chief": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]}), task_type="chief",
            task_id=0))
    with pytest.raises(ValueError, match="There must be at least one worker."):
        tf.distribute.ParameterServerStrategy(tf.distribute.cluster_resolver.SimpleClusterResolver(
            tf.train.ClusterSpec({"chief": ["127.0.0.1:1"], "ps": ["127.0.0.1:2"]}), task_type="chief",
            task_id=0))


def test_partitioners_give_tf_shard_counts():
    cases = json.loads((pathlib.Path(__file__).parent / "data" / "tf_partitioner_cases.json").read_text())
    P = tf.distribute.experimental.partitioners
    partitioners = {"fixed2": P.FixedShardsPartitioner(2), "fixed5": P.FixedShardsPartitioner(5),
                    "min256k_4": P.MinSizePartitioner(256 << 10, 4), "min100_3": P.MinSizePartitioner(100, 3),
                    "min1_10": P.MinSizePartitioner(1, 10), "max100": P.MaxSizePartitioner(100),
                    "max1000_3": P.MaxSizePartitioner(1000, 3), "max4": P.MaxSizePartitioner(4)}
    assert len(cases) == 112
    for shape, dtype, name, expected in cases:
        assert list(partitioners[name](tf.TensorShape(shape), tf.as_dtype(dtype))) == expected, (shape, dtype, name)
