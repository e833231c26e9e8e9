"""One task of the ring all-reduce tests (``test_ring_all_reduce.py``), started by the launcher with its TF_CONFIG.

``python ring_worker.py OUT_DIR [MODE]``. Each task all-reduces the buffers of
:data:`CASES` (inputs a function of the task's rank, so the test can compute the
expected sums), then writes ``OUT_DIR/rank<r>.npz`` (the results) and
``OUT_DIR/rank<r>.json`` (the records, the mailbox left over, the task's pid).

MODE ``fail``: rank 1 exits with status 3 before its first all-reduce, the other
ranks wait for it in the ring (until the launcher stops them).
"""
import json
import os
import sys

import numpy as np

import engine as tf
from engine.distribute import collective_ring
from engine.distribute.collective_service import group_from_cluster_resolver

# (name, elements, dtype, piece_bytes): sizes divisible by 2 and 3 have exact ring bytes; 1001 has uneven chunks,
# 7 fewer elements than pieces of 8 bytes; piece_bytes 1024 cuts a chunk into several messages
CASES = [("f32", 6000, "float32", None), ("f64", 6000, "float64", None), ("f32_pieces", 6000, "float32", 1024),
         ("f64_uneven", 1001, "float64", 64), ("f32_tiny", 2, "float32", None)]


def inputs(rank, elements, dtype):
    """Task ``rank``'s buffer: multiples of 1/4 in [-8, 8), so any order of summing is exact."""
    rng = np.random.default_rng(1000 + rank)
    return (rng.integers(-32, 32, size=elements) / 4).astype(dtype)


def main():
    out_dir, mode = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "ok")
    print(f"pid {os.getpid()}", flush=True)
    group = group_from_cluster_resolver(connect_timeout=30.0)
    rank = group.rank
    if mode == "fail":
        if rank == 1:
            print("failing on purpose", flush=True)
            sys.exit(3)
        collective_ring.ring_all_reduce(group, inputs(rank, 10, "float32"))   # waits for rank 1, forever
        return
    results, records = {}, {}
    with tf.distribute.record_all_reduce() as log:
        for name, elements, dtype, piece_bytes in CASES:
            kw = {} if piece_bytes is None else {"piece_bytes": piece_bytes}
            results[name] = collective_ring.ring_all_reduce(group, inputs(rank, elements, dtype), **kw)
            records[name] = group.last_record.to_dict()
        results["mean"] = collective_ring.ring_all_reduce(group, inputs(rank, 12, "float64"), "MEAN")
        results["broadcast"] = collective_ring.broadcast(group, np.arange(6.0).reshape(2, 3) if rank == 0 else None)
        gathered = collective_ring.all_gather(group, np.full(rank + 1, rank, dtype=np.int64))
        collective_ring.barrier(group)
    for i, g in enumerate(gathered):
        results[f"gathered_{i}"] = g
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **results)
    summary = {"rank": rank, "size": group.size, "pid": os.getpid(), "records": records,
               "logged": len(log), "pending": group.service.pending(), "task": group.name}
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(summary, f)
    collective_ring.barrier(group)     # nobody stops its server while another still sends to it
    print(f"pending {group.service.pending()}", flush=True)   # every message was taken by its collective
    print(f"done rank {rank}", flush=True)


if __name__ == "__main__":
    main()
