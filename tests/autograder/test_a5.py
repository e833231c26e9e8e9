"""A5 (all-reduce and data parallelism): what the generic assignment tests do not cover.

* An honest A5 written differently from the reference (other index arithmetic, other phase names, the
  loss scaled by hand, the distributed step inside a ``tf.function``) gets full marks.
* Code that leans on the engine's own algorithms scores nothing in the sandbox: they are absent there.
* The expected records are the ring's and TF's hierarchical schedule: 2(N-1) steps, each device sending
  exactly the reference's chunks (2(N-1)/N of the buffer when N divides it), for random N and lengths.
* The plan's fixed core holds the edge cases the issue names, for every seed.
* The solution notebook runs top to bottom in a kernel, well under a minute.
"""
import os
import time

import assignment_kit as kit
import numpy as np
import pytest

from autograder import grading
from autograder.assignments import a5
from autograder.sandbox import REPO

FAST = {"n": 4, "item_timeout": 8.0, "total_timeout": 90.0}

REDUCE_SCATTER = '''
def _cut(buffer, n):
    offsets, sizes = chunk_bounds(buffer.size, n)
    return [buffer[offsets[c]:offsets[c] + sizes[c]] for c in range(n)]


def reduce_scatter(buffers, devices):
    n = len(devices)
    work = [_cut(b, n) for b in buffers]
    for step in range(n - 1):
        begin_step("scatter step %d" % step)
        incoming = {}
        for src in range(n):
            dst = (src + 1) % n
            c = (src - step + n) % n
            incoming[dst] = (c, send(work[src][c], devices[src], devices[dst], chunk=c))
        for dst, (c, part) in incoming.items():
            work[dst][c] = np.add(work[dst][c], part)
    return work
'''

ALL_GATHER = '''
def all_gather(work, devices):
    n = len(devices)
    rows = [list(row) for row in work]
    for step in range(n - 1):
        begin_step("gather")
        sent = []
        for i in range(n):
            c, j = (i - step + 1) % n, (i + 1) % n
            sent.append((j, c, send(rows[i][c], devices[i], devices[j], chunk=c)))
        for j, c, part in sent:
            rows[j][c] = part
    return rows
'''

HIERARCHICAL = '''
class HierarchicalAllReduce:
    """Two groups, reduce to roots, roots combine, broadcast back."""

    def all_reduce_sum(self, buffers, devices):
        n = len(devices)
        h = -(-n // 2)
        first, second = list(range(h)), list(range(h, n))
        begin_step("in-group reduce")
        sums = []
        for group in (first, second):
            total = buffers[group[0]]
            for member in group[1:]:
                total = np.add(total, send(buffers[member], devices[member], devices[group[0]]))
            sums.append(total)
        begin_step("roots: h -> 0")
        grand = np.add(sums[0], send(sums[1], devices[h], devices[0]))
        begin_step("roots: 0 -> h")
        second_copy = send(grand, devices[0], devices[h])
        begin_step("in-group broadcast")
        result = {0: grand, h: second_copy}
        for group in (first, second):
            for member in group[1:]:
                result[member] = send(result[group[0]], devices[group[0]], devices[member])
        return [result[i] for i in range(n)]
'''

TRAIN = '''
def replica_step(model, optimizer, x, y, global_batch_size):
    with tf.GradientTape() as tape:
        per_example = per_example_loss(model, x, y)
        loss = tf.reduce_sum(per_example) * (1.0 / global_batch_size)
    variables = model.trainable_variables
    optimizer.apply_gradients(list(zip(tape.gradient(loss, variables), variables)))
    return loss


def train(strategy, model, optimizer, dataset, global_batch_size, epochs=1):
    @tf.function
    def distributed_step(x, y):
        per_replica = strategy.run(replica_step, args=(model, optimizer, x, y, global_batch_size))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    history = []
    for epoch in range(epochs):
        for batch in strategy.experimental_distribute_dataset(dataset):
            history.append(distributed_step(*batch).numpy().item())
    return history
'''

HONEST = {"reduce_scatter": REDUCE_SCATTER, "all_gather": ALL_GATHER, "hierarchical": HIERARCHICAL, "train": TRAIN}

ENGINE_OWN = {
    "reduce_scatter": '''
def reduce_scatter(buffers, devices):
    n = len(devices)
    total = tf.distribute.RingAllReduce().all_reduce_sum(buffers, devices)
    offsets, sizes = chunk_bounds(buffers[0].size, n)
    return [[t[o:o + s] for o, s in zip(offsets, sizes)] for t in total]
''',
    "hierarchical": '''
class HierarchicalAllReduce(tf.distribute.HierarchicalCopyAllReduce):
    pass
''',
}


@pytest.fixture(scope="module")
def pool():
    with kit.pool("A5") as p:
        yield p


def test_an_honest_variant_gets_full_marks(pool, tmp_path):
    path = kit.submission("A5", str(tmp_path / "A5.ipynb"), replace=HONEST)
    res = grading.grade_notebook(path, 11, assignment="A5", pool=pool, **FAST)
    assert kit.scores(res, "A5") == {t.name: t.points for t in a5.TASKS}, grading.report(res, "A5")


def test_the_engine_algorithms_are_absent_in_the_sandbox(pool, tmp_path):
    path = kit.submission("A5", str(tmp_path / "A5.ipynb"), replace=ENGINE_OWN)
    res = grading.grade_notebook(path, 12, assignment="A5", pool=pool, **FAST)
    got = kit.scores(res, "A5")
    assert got["reduce_scatter"] == 0 and got["hierarchical"] == 0, grading.report(res, "A5")
    assert got["all_gather"] == 4 and got["train"] == 5
    assert "absent" in res["hierarchical"]["messages"][0], res["hierarchical"]["messages"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_expected_ring_records_count_steps_and_bytes(seed):
    """2(N-1) steps, N sends each; every device sends the chunks the schedule names: 2(N-1)/N x size when N
    divides the size, and exactly the reference's uneven chunks otherwise. Tasks 1 and 2 expect its halves."""
    import engine as tf
    from engine.distribute.cross_device_ops import chunk_bounds
    plan = a5.make_plan(seed, n=6)
    for task in plan["tasks"][:2]:
        for case, half in zip(task["cases"], a5.expected(task)):
            n = case["n"]
            full = a5._reference_all_reduce(case, tf.distribute.RingAllReduce())
            for record, half_record in zip(full["records"], half["records"]):
                steps = record["steps"]
                assert half_record["steps"] == (steps[:n - 1] if task["name"] == "reduce_scatter" else steps[n - 1:])
                assert len(steps) == 2 * (n - 1) and all(len(sends) == n for _, sends in steps)
                size = record["elements"]
                _, sizes = chunk_bounds(size, n)
                sent = [0] * n
                for _, sends in steps:
                    for src, dst, chunk, elements in sends:
                        assert dst == (src + 1) % n and elements == sizes[chunk]
                        sent[src] += elements
                for i in range(n):   # all chunks but (i+1) in the reduce-scatter, all but (i+2) in the all-gather
                    assert sent[i] == 2 * size - sizes[(i + 1) % n] - sizes[(i + 2) % n]
                if size % n == 0:
                    assert sent == [2 * (n - 1) * size // n] * n


def test_expected_hierarchical_records():
    plan = a5.make_plan(5, n=6)
    task = next(t for t in plan["tasks"] if t["name"] == "hierarchical")
    for case, exp in zip(task["cases"], a5.expected(task)):
        n, h = case["n"], (case["n"] + 1) // 2
        for record in exp["records"]:
            flat = [(s, d) for _, sends in record["steps"] for s, d, _, _ in sends]
            assert (h, 0) in flat and (0, h) in flat and len(flat) == 2 * (n - 2) + 2


def test_the_fixed_core_is_in_every_plan():
    for seed in (0, 99):
        plan = a5.make_plan(seed, n=2)
        for task in plan["tasks"][:3]:
            cases = task["cases"]
            ns = [c["n"] for c in cases]
            sizes = [sum(int(np.prod(t["shape"], dtype=np.int64)) for t in c["tensors"]) for c in cases]
            assert 2 in ns and 8 in ns and any(n % 2 for n in ns)
            assert any(s % n for s, n in zip(sizes, ns)) and any(0 < s < n for s, n in zip(sizes, ns))
            assert 0 in sizes and 1 in sizes
            assert any(t["dtype"].startswith("int") for c in cases for t in c["tensors"])
            assert any(len({t["dtype"] for t in c["tensors"]}) > 1 for c in cases)
        train = plan["tasks"][3]["cases"]
        assert any(c["batch"] % c["n"] for c in train) and any(c["n"] == 2 for c in train)


def test_the_solution_notebook_runs_in_a_kernel():
    nbclient = pytest.importorskip("nbclient")
    import nbformat
    path = os.path.join(REPO, "solutions", "A5", "A5.ipynb")
    nb = nbformat.read(path, as_version=4)
    t = time.perf_counter()
    nbclient.NotebookClient(nb, timeout=60, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}}).execute()
    assert time.perf_counter() - t < 60
