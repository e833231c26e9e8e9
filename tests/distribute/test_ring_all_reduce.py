"""The ring all-reduce between tasks over gRPC: the sums, the bytes on the wire, the records, the failures.

Two kinds of runs:

* real processes: ``python -m engine.distribute.launch --workers N ring_worker.py``
  for N = 2 and 3 (started together, once per module), each task on its own
  port of 127.0.0.1 chosen at run time; afterwards no task is alive and every
  port is free;
* N tasks' servers in this process, one thread per task: the same code path
  (gRPC over loopback), cheap enough for the edge cases.
"""
import json
import os
import re
import socket
import threading
import time

import numpy as np
import pytest

import engine as tf
from launched import launch_clusters
from engine.distribute import collective_ring
from engine.distribute.collective_log import CollectiveRecord, merge_records
from engine.distribute.collective_service import CollectiveGroup
from engine.distribute.cross_device_ops import chunk_bounds
from ring_worker import CASES, inputs

TIMEOUT_S = 90


def _nobody_listens(port):
    """True if a new server could listen on ``port`` (connections closing there, in TIME_WAIT, do not count)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as gRPC's and TF's servers set it
        probe.bind(("127.0.0.1", port))
        probe.listen()
    return True


# --------------------------------------------------------------------------------------
# Real processes, started by the launcher
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """``{N: (exit status, stdout, stderr, out_dir)}`` of the launcher runs with 2 and 3 workers (in parallel)."""
    return launch_clusters(tmp_path_factory, "ring_worker.py", timeout_s=TIMEOUT_S, prefix="ring")


def _run(runs, n):
    status, stdout, stderr, out = runs[n]
    assert status == 0, stdout + stderr
    summaries = [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]
    arrays = [dict(np.load(out / f"rank{r}.npz")) for r in range(n)]
    return summaries, arrays, stdout, stderr


@pytest.mark.parametrize("n", [2, 3])
def test_every_task_gets_the_sum(runs, n):
    _, arrays, _, _ = _run(runs, n)
    for name, elements, dtype, _ in CASES:
        expected = sum(inputs(r, elements, dtype) for r in range(n))   # exact: multiples of 1/4
        for r in range(n):
            got = arrays[r][name]
            assert got.dtype == np.dtype(dtype) and got.shape == (elements,), (name, r)
            np.testing.assert_array_equal(got, expected, err_msg=f"{name} on task {r}")
    mean = sum(inputs(r, 12, "float64") for r in range(n)) / n
    for r in range(n):
        np.testing.assert_allclose(arrays[r]["mean"], mean, rtol=1e-15)
        np.testing.assert_array_equal(arrays[r]["broadcast"], np.arange(6.0).reshape(2, 3))
        for i in range(n):
            np.testing.assert_array_equal(arrays[r][f"gathered_{i}"], np.full(i + 1, i))


@pytest.mark.parametrize("n", [2, 3])
def test_bytes_per_task_are_the_rings(runs, n):
    """Each task sends 2(N-1) chunks: 2(N-1)/N x size bytes of payload when N divides the size."""
    summaries, _, _, _ = _run(runs, n)
    for name, elements, dtype, piece_bytes in CASES:
        records = [CollectiveRecord.from_dict(s["records"][name]) for s in summaries]
        itemsize = np.dtype(dtype).itemsize
        _, sizes = chunk_bounds(elements, n)
        for r, record in enumerate(records):
            assert record.rank == r and record.num_steps == 2 * (n - 1)
            sent = record.bytes_sent()
            assert sent[r] == sum(sent)            # a task records its own sends only
            # chunks r+1 (reduce-scatter) and r+2 (all-gather) are the two a task never sends
            expected = (2 * elements - sizes[(r + 1) % n] - sizes[(r + 2) % n]) * itemsize
            assert sent[r] == expected, (name, r)
            if elements % n == 0:
                assert sent[r] == 2 * (n - 1) * elements * itemsize / n == record.ring_bound()
            assert record.bytes_received()[r] == (2 * elements - sizes[r] - sizes[(r + 1) % n]) * itemsize
            assert record.wire_bytes_sent() > sent[r]   # the headers travel too
            for step in record.steps:
                (s,) = step.sends
                assert s.src == r and s.dst == (r + 1) % n and s.end >= s.start > 0
                if piece_bytes and s.elements:
                    assert s.messages == -(-s.elements * itemsize // piece_bytes)
        merged = merge_records(records)   # the whole ring: at each step every task sends to its right
        assert [len(step.sends) for step in merged.steps] == [n] * (2 * (n - 1))
        if elements % n == 0:
            assert merged.bytes_sent() == [merged.ring_bound()] * n


@pytest.mark.parametrize("n", [2, 3])
def test_records_reach_record_all_reduce_and_nothing_is_left_over(runs, n):
    summaries, _, stdout, _ = _run(runs, n)
    for r, s in enumerate(summaries):
        assert s["logged"] == len(CASES) + 1    # every ring all-reduce (and the MEAN) was published
        assert s["task"] == f"/job:worker/task:{r}" and s["size"] == n
        assert f"[worker {r}] done rank {r}" in stdout
    assert len(re.findall(r"^\[worker \d\] pending 0$", stdout, re.M)) == n, stdout


@pytest.mark.parametrize("n", [2, 3])
def test_no_process_and_no_port_left_behind(runs, n):
    summaries, _, _, stderr = _run(runs, n)
    for s in summaries:
        with pytest.raises(ProcessLookupError):
            os.kill(s["pid"], 0)
    ports = [int(p) for p in re.findall(r"127\.0\.0\.1:(\d+)", stderr.split("\n", 1)[0])]
    assert len(ports) == n
    for port in ports:
        assert _nobody_listens(port)


# --------------------------------------------------------------------------------------
# In one process: N servers, one thread per task
# --------------------------------------------------------------------------------------
def _groups(n, **options):
    servers = [tf.distribute.Server({"worker": {i: "localhost:0"}}, job_name="worker", task_index=i)
               for i in range(n)]
    members = [("worker", i, f"127.0.0.1:{s.port}") for i, s in enumerate(servers)]
    return servers, [CollectiveGroup(s, members, i, **options) for i, s in enumerate(servers)]


def _on_every_task(groups, fn, timeout=30):
    results, failures = [None] * len(groups), [None] * len(groups)

    def run(i):
        try:
            results[i] = fn(groups[i], i)
        except BaseException as error:  # noqa: B902
            failures[i] = error
    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(groups))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), "a task did not finish (a deadlock?)"
    return results, failures


@pytest.fixture
def cluster():
    made = []

    def make(n, **options):
        servers, groups = _groups(n, **options)
        made.extend(servers)
        return servers, groups
    yield make
    for s in made:
        s.stop(0)


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("elements", [0, 1, 3, 1001])
def test_in_process_ring_sums_any_size(cluster, n, elements):
    _, groups = cluster(n)
    bufs = [np.random.default_rng(r).standard_normal(elements) for r in range(n)]
    results, failures = _on_every_task(groups, lambda g, r: collective_ring.ring_all_reduce(g, bufs[r],
                                                                                             piece_bytes=80))
    assert failures == [None] * n
    for got in results:
        np.testing.assert_allclose(got, np.sum(bufs, axis=0), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(got, results[0])    # the same bits everywhere (all-gather copies)
    assert all(g.service.pending() == 0 for g in groups)


def test_broadcast_and_all_gather_keep_shapes_scalars_included(cluster):
    _, groups = cluster(3)
    results, failures = _on_every_task(groups, lambda g, r: (
        collective_ring.broadcast(g, np.float32(5.0) if r == 0 else None),
        collective_ring.broadcast(g, np.arange(6).reshape(2, 3) if r == 0 else None),
        collective_ring.all_gather(g, np.full((r, 2), r, dtype=np.float64))))
    assert failures == [None] * 3
    for scalar, matrix, gathered in results:
        assert scalar.shape == () and scalar.dtype == np.float32 and scalar == 5.0
        np.testing.assert_array_equal(matrix, np.arange(6).reshape(2, 3))
        assert [g.shape for g in gathered] == [(0, 2), (1, 2), (2, 2)]


def test_localhost_addresses_work(cluster):
    servers, _ = cluster(2)
    members = [("worker", i, f"localhost:{s.port}") for i, s in enumerate(servers)]
    groups = [CollectiveGroup(s, members, i) for i, s in enumerate(servers)]
    results, failures = _on_every_task(groups, lambda g, r: collective_ring.ring_all_reduce(g, np.full(4, r + 1.0)))
    assert failures == [None, None] and all((x == 3.0).all() for x in results)


def test_mismatched_buffers_are_an_invalid_argument(cluster):
    _, groups = cluster(2)
    _, failures = _on_every_task(groups, lambda g, r: collective_ring.ring_all_reduce(
        g, np.ones(10 + 2 * r, dtype=np.float32)))
    assert all(isinstance(f, tf.errors.InvalidArgumentError) for f in failures), failures
    assert "Shape mismatch in the collective instance 1" in str(failures[0])


def test_a_task_that_never_comes_is_a_deadline_with_a_timeout(cluster):
    _, groups = cluster(2, timeout=0.5, health_interval=0.2)
    start = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError, match="waited for 'reduce-scatter/1/0'"):
        collective_ring.ring_all_reduce(groups[0], np.ones(4))
    assert time.monotonic() - start < 5


def test_a_dead_peer_is_unavailable(cluster):
    servers, groups = cluster(2, health_interval=0.2, connect_timeout=5.0)
    groups[0].connect()
    servers[1].stop(0)
    start = time.monotonic()
    with pytest.raises(tf.errors.UnavailableError, match="Collective ops is aborted by"):
        collective_ring.ring_all_reduce(groups[0], np.ones(4))
    assert time.monotonic() - start < 5


def test_the_records_draw_the_ring(cluster):
    _, groups = cluster(3)
    with tf.distribute.record_all_reduce() as log:
        _on_every_task(groups, lambda g, r: collective_ring.ring_all_reduce(g, np.ones(6, np.float32)))
    assert len(log) == 3 and {rec.rank for rec in log} == {0, 1, 2}
    merged = merge_records(list(log))
    assert merged.bytes_sent() == [32, 32, 32] == [merged.ring_bound()] * 3
    table = merged.table()
    # 6 float32 in 3 chunks of 2
    assert "step 1 [reduce-scatter]: /job:worker/task:0->/job:worker/task:1 chunk 0 (8 B)" in table
    assert "step 4 [all-gather]" in table
    again = CollectiveRecord.from_dict(json.loads(json.dumps(log[0].to_dict())))
    assert again.bytes_sent() == log[0].bytes_sent() and again.steps == log[0].steps
