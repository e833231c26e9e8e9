"""What training across processes costs: ``python bench/multi_worker.py [--quick]``.

Every figure runs real processes on this machine, started by the launcher
(``engine.distribute.launch``) on ports of 127.0.0.1, talking gRPC:

1. **The ring all-reduce** of one float32 buffer across 2, 3 and 4 processes,
   for buffers of 1 KB to 64 MB: the time, the bytes each worker sent (payload,
   and on the wire with the headers) against the ring's bound 2(N-1)/N x size,
   and the throughput as a ratio of **raw gRPC** between two of these processes
   (one message of the same size, sent and acknowledged). The all-reduce's
   throughput is counted as NCCL's tests count a ring's "bus bandwidth":
   ``2(N-1)/N x size / time``, the bytes each worker moves per second, so 1.0
   would mean the ring is as fast as the raw transport.
2. **A training step of a small MLP** (global batch 256, 64-256-256-10, ReLU,
   softmax cross-entropy, SGD) with ``MultiWorkerMirroredStrategy`` at 1, 2 and
   4 workers, in a ``tf.function``, with the final weights of each run compared
   to the 1-worker run's. The processes share this machine's cores: more workers
   cannot make a step faster here; what this shows is the price of the
   all-reduce between processes.

``--quick``: 2 processes, small buffers, a few steps (a smoke test, not a measurement).
"""
import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))   # the project root: the nearest folder above with engine/
while not os.path.isdir(os.path.join(_here, "engine")) and os.path.dirname(_here) != _here:
    _here = os.path.dirname(_here)
sys.path.insert(0, _here)
import engine as tf  # noqa: E402
from engine.distribute import collective_ring, launch  # noqa: E402
from engine.distribute.collective_service import group_from_cluster_resolver  # noqa: E402

GLOBAL_BATCH, SIZES, LR = 256, (64, 256, 256, 10), 0.1
KB, MB = 1 << 10, 1 << 20


def _median_time(group, fn, repeat):
    """The median over ``repeat`` runs of ``fn()``, each started together on every task (a barrier first)."""
    times = []
    for _ in range(repeat):
        collective_ring.barrier(group)
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --------------------------------------------------------------------------------------
# The tasks (run by the launcher: this file with --task)
# --------------------------------------------------------------------------------------
def task_all_reduce(out, sizes, repeat):
    group = group_from_cluster_resolver(connect_timeout=60.0)
    rows = []
    for nbytes in sizes:
        buffer = np.ones(nbytes // 4, dtype=np.float32)
        collective_ring.ring_all_reduce(group, buffer)                       # warm up: connections, allocations
        seconds = _median_time(group, lambda b=buffer: collective_ring.ring_all_reduce(group, b), repeat)
        record = group.last_record
        rows.append({"bytes": nbytes, "seconds": seconds, "sent": record.bytes_sent()[group.rank],
                     "wire": record.wire_bytes_sent(), "bound": record.ring_bound()})
    everyone = collective_ring.all_gather(group, np.frombuffer(json.dumps(rows).encode(), dtype=np.uint8))
    if group.rank == 0:
        with open(out, "w") as f:
            json.dump([json.loads(bytes(r).decode()) for r in everyone], f)
    collective_ring.barrier(group)


def task_raw(out, sizes, repeat):
    """Rank 0 sends one message of each size to rank 1, which takes it from its mailbox: the raw transport."""
    group = group_from_cluster_resolver(connect_timeout=60.0)
    rows = []
    for nbytes in sizes:
        payload = np.ones(nbytes, dtype=np.uint8)

        def once(payload=payload):
            instance = group.next_instance()
            if group.rank == 0:
                group.send(1, instance, "raw", payload)[0].result()
            else:
                group.recv(0, instance, "raw")
        once()
        rows.append({"bytes": nbytes, "seconds": _median_time(group, once, repeat)})
    if group.rank == 0:
        with open(out, "w") as f:
            json.dump(rows, f)
    collective_ring.barrier(group)


def task_mlp(out, steps):
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(GLOBAL_BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], size=GLOBAL_BATCH).astype(np.int32)
    with strategy.scope():
        variables = [tf.Variable(rng.normal(scale=a ** -0.5, size=(a, b)).astype(np.float32))
                     for a, b in zip(SIZES[:-1], SIZES[1:])]
    n = strategy.num_replicas_in_sync
    per = GLOBAL_BATCH // n

    def replica_step(xs, ys):
        with tf.GradientTape() as tape:
            h = xs
            for i, w in enumerate(variables):
                h = h @ w
                if i < len(variables) - 1:
                    h = tf.nn.relu(h)
            loss = tf.nn.compute_average_loss(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ys, logits=h))
        grads = tf.distribute.get_replica_context().all_reduce("SUM", tape.gradient(loss, variables))
        for w, g in zip(variables, grads):
            w.assign_sub(LR * g)
        return loss

    @tf.function
    def step(xs, ys):
        return strategy.reduce("SUM", strategy.run(replica_step, args=(xs, ys)), axis=None)

    mine = strategy.experimental_distribute_values_from_function(
        lambda c: (tf.constant(x[c.replica_id_in_sync_group * per:(c.replica_id_in_sync_group + 1) * per]),
                   tf.constant(y[c.replica_id_in_sync_group * per:(c.replica_id_in_sync_group + 1) * per])))
    step(*mine)                                   # trace, warm up
    group = strategy._group
    times = []
    for _ in range(steps):
        if group.size > 1:
            collective_ring.barrier(group)
        start = time.perf_counter()
        step(*mine)
        times.append(time.perf_counter() - start)
    if strategy.extended.should_checkpoint:
        np.savez(out, *[v.numpy() for v in variables], seconds=statistics.median(times))
    if group.size > 1:
        collective_ring.barrier(group)


# --------------------------------------------------------------------------------------
# The figures (this process starts the tasks)
# --------------------------------------------------------------------------------------
def _launch(workers, *task_args):
    out, err = io.StringIO(), io.StringIO()
    status = launch.launch(os.path.abspath(__file__), ["--task", *map(str, task_args)], workers=workers,
                           stdout=out, stderr=err, timeout=600, grace=2.0)
    if status != 0:
        raise RuntimeError(f"the {workers} tasks of {task_args[0]} failed (status {status}):\n{out.getvalue()}\n"
                           f"{err.getvalue()[-4000:]}")


def _size(nbytes):
    return f"{nbytes // MB} MB" if nbytes >= MB else f"{nbytes // KB} KB"


def bench_all_reduce(tmp, counts, sizes, repeat):
    raw_file = os.path.join(tmp, "raw.json")
    _launch(2, "raw", raw_file, ",".join(map(str, sizes)), repeat)
    raw = {r["bytes"]: r["bytes"] / r["seconds"] for r in json.load(open(raw_file))}
    print("\n1. Ring all-reduce of one float32 buffer across processes over gRPC (127.0.0.1)")
    print(f"   {'N':<3}{'size':>7}{'time':>11}{'bus GB/s':>10}{'raw gRPC GB/s':>15}{'ratio':>7}"
          f"{'sent/worker':>13}{'ring bound':>12}{'on the wire':>13}")
    for n in counts:
        path = os.path.join(tmp, f"ring{n}.json")
        _launch(n, "all_reduce", path, ",".join(map(str, sizes)), repeat)
        per_rank = json.load(open(path))
        for k, nbytes in enumerate(sizes):
            rows = [ranks[k] for ranks in per_rank]
            seconds = max(r["seconds"] for r in rows)                      # the slowest worker's median
            bus = 2 * (n - 1) / n * nbytes / seconds
            sent = max(r["sent"] for r in rows)
            print(f"   {n:<3}{_size(nbytes):>7}{seconds * 1e3:9.2f}ms{bus / 1e9:10.3f}{raw[nbytes] / 1e9:15.3f}"
                  f"{bus / raw[nbytes]:7.2f}{sent:>13}{rows[0]['bound']:>12.0f}{max(r['wire'] for r in rows):>13}")
    print("   (sent/worker: payload bytes, exactly the bound when N divides the buffer; on the wire: with our\n"
          "   message headers, one per piece of at most 4 MB. bus GB/s = 2(N-1)/N x size / time.)")


def bench_mlp(tmp, counts, steps):
    print("\n2. MLP training step, global batch 256, 64-256-256-10, MultiWorkerMirroredStrategy, tf.function")
    print(f"   {'workers':<9}{'ms/step':>9}{'vs 1 worker':>13}")
    results = {}
    for n in counts:
        path = os.path.join(tmp, f"mlp{n}.npz")
        _launch(n, "mlp", path, steps)
        data = np.load(path)
        results[n] = (float(data["seconds"]), [data[f"arr_{i}"] for i in range(len(SIZES) - 1)])
    base = results[counts[0]][0]
    for n, (seconds, _) in results.items():
        print(f"   {n:<9}{seconds * 1e3:9.2f}{seconds / base:12.2f}x")
    reference = results[counts[0]][1]
    worst = max(float(np.abs(a - b).max()) for _, ws in results.values() for a, b in zip(ws, reference))
    print(f"   after {steps + 1} steps every run's weights equal the {counts[0]}-worker ones to {worst:.1e}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--task"]:
        kind, out, *rest = argv[1:]
        if kind == "all_reduce":
            return task_all_reduce(out, [int(s) for s in rest[0].split(",")], int(rest[1]))
        if kind == "raw":
            return task_raw(out, [int(s) for s in rest[0].split(",")], int(rest[1]))
        return task_mlp(out, int(rest[0]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 processes, small buffers, a few steps")
    args = parser.parse_args(argv)
    if args.quick:
        counts, sizes, repeat, mlp_counts, steps = [2], [1 * KB, 64 * KB], 2, [1, 2], 2
    else:
        counts, sizes, repeat, mlp_counts, steps = [2, 3, 4], [KB, 16 * KB, 256 * KB, 4 * MB, 64 * MB], 5, \
            [1, 2, 4], 20
    print(f"CPU cores: {os.cpu_count()}; every worker is a process of this machine")
    with tempfile.TemporaryDirectory() as tmp:
        bench_all_reduce(tmp, counts, sizes, repeat)
        bench_mlp(tmp, mlp_counts, steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
