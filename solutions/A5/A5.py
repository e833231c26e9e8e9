# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] nbgrader={"grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false, "task": false}
# # A5: all-reduce and data parallelism
#
# `MirroredStrategy` trains one copy of the model per device (a *replica*). Each replica computes
# gradients on its slice of the global batch; an **all-reduce** then leaves the sum of every replica's
# gradients on every replica, and each applies the same update (syllabus 4.1). Lesson
# `course/lessons/50_mirrored_strategy.py` shows the engine's algorithms at work. Here you write them
# yourself and plug them into the engine through the `all_reduce` seam:
#
# ```python
# with engine.seams.using(all_reduce=StudentRing):
#     strategy.run(step, args=(batch,))      # every all-reduce of the step sums with StudentRing
# ```
#
# The seam's protocol is one method, `all_reduce_sum(buffers, devices)`: `buffers[i]` is device i's
# 1-D NumPy array (all N of the same size and dtype), `devices[i]` the engine `Device` of replica i
# (N = `len(devices)` >= 2); it returns N 1-D arrays, the i-th on device i, each the element-wise sum
# of all the buffers, with the buffers' size and dtype. The engine does the rest: it packs a step's
# tensors into one buffer per dtype, divides for MEAN, unpacks, and keeps a *record* of what your
# algorithm sent. Three helpers (`engine.distribute.cross_device_ops`, imported below) are all you need:
#
# * `send(array, src, dst, chunk=None)`: copy `array` from device `src` to device `dst` (`Device`
#   objects) and return the copy; the record notes who sent how many elements to whom. `chunk`: the
#   index of the chunk sent, for an algorithm that cuts the buffer into chunks.
# * `begin_step(phase)`: the sends that follow, up to the next `begin_step`, happen at the same time:
#   one *step* of the record, named `phase`. A step in which nothing is sent leaves no step.
# * `chunk_bounds(size, n)`: `(offsets, sizes)` of `n` nearly equal chunks, the first ones one larger.
#
# Four independent tasks (when one is graded, the grader uses reference versions of the others, so a
# mistake in one task never costs points in another):
#
# | task | what | points |
# |---|---|---|
# | 1 | `reduce_scatter`: cut the buffers into chunks, the first half of the ring | 6 |
# | 2 | `all_gather`: the second half of the ring | 4 |
# | 3 | `HierarchicalAllReduce`: TF's two-level all-reduce | 5 |
# | 4 | `train`: a data-parallel training loop, the loss scaled by the **global** batch | 5 |
#
# Rules:
# * Move data between devices **only with `send`**, and mark each step with `begin_step`: the grader
#   compares your record with the engine's, step by step and send by send (who sends to whom, which
#   chunk, how many elements), and that is how it counts the bytes each device sends. Do the sums with
#   NumPy on the arrays (`a + b`).
# * **Never write into a buffer or a chunk** (`+=`, `a[...] = ...`): a buffer may be the memory of a
#   replica's own tensor. Slicing (a view) to read or to send is fine; build new arrays for results.
# * The engine's own algorithms (`RingAllReduce`, `HierarchicalCopyAllReduce`, `ReductionToOneDevice`)
#   are **absent** while grading: their `all_reduce_sum` raises `NotImplementedError`, so every
#   all-reduce the grader runs goes through your code. (Here, in your notebook, they are present, and
#   the visible tests compare your records with theirs.)
# * Keep demos and experiments in your own cells; answer cells should only define things.
# * The hidden tests run your code through `MirroredStrategy.run` on N = 2…8 logical CPUs, on tensors of
#   dtypes float32, float64, int32 and int64, of lengths that N divides and that it does not, shorter
#   than N, of length 1 and 0, and several tensors packed together; task 4 trains on N random replicas
#   and compares with training on one device. Each all-reduce case gives half its credit for the sums
#   and half for the record (with the buffers left untouched).
#
# Run `python -m autograder check A5.ipynb` for a quick self-check.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # one BLAS thread per replica thread
import numpy as np
import engine as tf
from engine import seams
from engine.distribute.all_reduce_log import AllReduceRecord, recording
from engine.distribute.cross_device_ops import begin_step, chunk_bounds, send
from engine.framework.device import lookup_device

# 8 logical CPUs; this must happen before the runtime starts (before the first tensor).
_cpu = tf.config.list_physical_devices("CPU")[0]
try:
    tf.config.set_logical_device_configuration(_cpu, [tf.config.LogicalDeviceConfiguration()] * 8)
except RuntimeError:   # this cell ran before in this kernel: the split is already made (restart to change it)
    pass


def cpus(n):
    """The engine Devices of the first n logical CPUs."""
    return [lookup_device(f"/cpu:{i}") for i in range(n)]


def strategy_on(n):
    """A MirroredStrategy on the first n logical CPUs."""
    return tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])


def all_reduce_with(algorithm, strategy, values):
    """All-reduce (SUM) ``values[r]`` (replica r's NumPy array) inside ``strategy.run``, with ``algorithm`` in
    the all_reduce seam. Returns (each replica's result as NumPy, the record of the all-reduce)."""
    per_replica = strategy.experimental_distribute_values_from_function(
        lambda c: tf.constant(values[c.replica_id_in_sync_group]))
    with seams.using(all_reduce=algorithm), tf.distribute.record_all_reduce() as log:
        out = strategy.run(lambda v: tf.distribute.get_replica_context().all_reduce("SUM", v), args=(per_replica,))
    return [t.numpy() for t in strategy.experimental_local_results(out)], log[-1]


def recorded(fn, arg, devices):
    """Call ``fn(arg, devices)`` with a record running, outside any strategy: (its result, the record)."""
    first = arg[0] if not isinstance(arg[0], list) else arg[0][0]
    record = AllReduceRecord(fn.__name__, "SUM", [d.short_name.lstrip("/") for d in devices], 0,
                             first.dtype.name, first.dtype.itemsize)
    with recording(record, devices):
        out = fn(arg, devices)
    return out, record


def sends_of(record):
    """The record as lists, one per step, of (src, dst, chunk, elements)."""
    return [[(s.src, s.dst, s.chunk, s.elements) for s in step.sends] for step in record.steps]


class StudentRing:
    """Your ring (tasks 1 and 2), in the shape the all_reduce seam wants."""

    def all_reduce_sum(self, buffers, devices):
        work = reduce_scatter(buffers, devices)
        work = all_gather(work, devices)
        return [np.concatenate(row) for row in work]


# --- task 4's model, loss and the one-device reference --------------------------------------
def make_model(weights):
    """Dense(tanh) then Dense, starting from ``weights`` ([kernel, bias, kernel, bias])."""
    model = tf.keras.Sequential([tf.keras.Input(shape=(weights[0].shape[0],)),
                                 tf.keras.layers.Dense(weights[0].shape[1], activation="tanh"),
                                 tf.keras.layers.Dense(weights[2].shape[1])])
    model.set_weights(weights)
    return model


def per_example_loss(model, x, y):
    """One loss per example: the squared error summed over the outputs."""
    return tf.reduce_sum((model(x) - y) ** 2, axis=1)


def train_one_device(weights, dataset, lr, epochs=1):
    """The same training with no strategy: loss = the mean over each batch. Returns (weights, losses)."""
    model, optimizer, losses = make_model(weights), tf.keras.optimizers.SGD(lr), []
    for _ in range(epochs):
        for x, y in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(per_example_loss(model, x, y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            losses.append(float(loss))
    return model.get_weights(), losses


# %% [markdown] nbgrader={"grade": false, "grade_id": "task1_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 1: chunks and the reduce-scatter (6 points)
#
# The ring all-reduce arranges the N devices in a ring (device i's right neighbour is (i + 1) mod N)
# and cuts every buffer into N chunks. Its first half, the **reduce-scatter**, leaves on each device one
# chunk's complete sum.
#
# `reduce_scatter(buffers, devices)`:
# * Cut each buffer into N chunks with `offsets, sizes = chunk_bounds(buffers[0].size, N)`: chunk c of
#   buffer b is `b[offsets[c]:offsets[c] + sizes[c]]`. When N does not divide the size, the first chunks
#   are one element longer; when the size is smaller than N, some chunks are empty: they are sent
#   all the same (the record then shows sends of 0 elements).
# * `work[i][c]` is device i's current copy of chunk c (at first, the slices of its own buffer).
# * N − 1 steps. At step s (s = 0, 1, …, N − 2): call `begin_step("reduce-scatter")`; then **every**
#   device i sends its copy of chunk c = (i − s) mod N to its right neighbour j = (i + 1) mod N, with
#   `send(work[i][c], devices[i], devices[j], chunk=c)`, and j replaces its copy of chunk c by a new
#   array, its copy plus what arrived.
# * Return `work` (a list of N lists of N arrays). After the N − 1 steps device i holds the complete
#   sum of chunk (i + 1) mod N; its other chunks hold partial sums, which the all-gather overwrites.
#
# Each device sends N − 1 chunks, (N − 1)/N of the buffer, whatever N. The grader runs your
# `reduce_scatter` in `strategy.run`, then lets each device take chunk c from device (c − 1) mod N (its
# owner) without sending anything, and checks the sums and the record: N − 1 steps, and in each the N
# sends above (source, destination, chunk index, elements).

# %% nbgrader={"grade": false, "grade_id": "reduce_scatter", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["4.1"]
def reduce_scatter(buffers, devices):
    ### BEGIN SOLUTION
    n = len(devices)
    offsets, sizes = chunk_bounds(buffers[0].size, n)
    work = [[b[o:o + s] for o, s in zip(offsets, sizes)] for b in buffers]
    for step in range(n - 1):
        begin_step("reduce-scatter")
        moves = [(i, (i + 1) % n, (i - step) % n) for i in range(n)]
        arrived = [send(work[i][c], devices[i], devices[j], chunk=c) for i, j, c in moves]
        for (_, j, c), part in zip(moves, arrived):
            work[j][c] = work[j][c] + part
    return work
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_reduce_scatter", "locked": true, "points": 6, "schema_version": 3, "solution": false, "task": false}
_bufs = [np.arange(7, dtype=np.float32) * (r + 1) for r in range(3)]     # 7 elements: chunks of 3, 2, 2
_work, _rec = recorded(reduce_scatter, _bufs, cpus(3))
_total, (_off, _size) = _bufs[0] + _bufs[1] + _bufs[2], chunk_bounds(7, 3)
for _i in range(3):
    _c = (_i + 1) % 3                                                     # the chunk device i owns
    assert np.array_equal(_work[_i][_c], _total[_off[_c]:_off[_c] + _size[_c]]), (_i, _work[_i][_c])
assert sends_of(_rec) == [[(0, 1, 0, 3), (1, 2, 1, 2), (2, 0, 2, 2)],
                          [(0, 1, 2, 2), (1, 2, 0, 3), (2, 0, 1, 2)]], sends_of(_rec)
assert _rec.bytes_sent() == [20, 20, 16]
assert np.array_equal(_bufs[1], np.arange(7, dtype=np.float32) * 2), "a buffer was written into"
_work, _rec = recorded(reduce_scatter, [np.array([5], np.int32), np.array([7], np.int32)], cpus(2))
assert _work[1][0].tolist() == [12] and sends_of(_rec) == [[(0, 1, 0, 1), (1, 0, 1, 0)]], sends_of(_rec)
### BEGIN HIDDEN TESTS
# hidden: random N (2..8), dtypes, lengths (N not dividing, < N, 0, 1), packed tensors, in strategy.run;
# the owned chunks' sums and the record (N-1 steps, every send) against the engine's RingAllReduce
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "task2_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 2: the all-gather completes the ring (4 points)
#
# `all_gather(work, devices)` gets `work` as the reduce-scatter leaves it: device i holds the complete
# sum of chunk (i + 1) mod N. In N − 1 more steps the complete chunks travel around the ring:
# * At step s (s = 0, 1, …, N − 2): call `begin_step("all-gather")`; then **every** device i sends its
#   copy of chunk c = (i + 1 − s) mod N to j = (i + 1) mod N (`send(..., chunk=c)`), and j's copy of
#   chunk c **becomes** what arrived (nothing to add: it is already the complete sum).
# * Return `work`, now with every chunk complete on every device. (`StudentRing` in the setup cell
#   concatenates each device's chunks into its result.)
#
# With both halves, each device sends 2(N − 1) chunks, 2(N − 1)/N of the buffer: the least any
# all-reduce can send, nearly independent of N. The grader gives your `all_gather` the state a
# reduce-scatter leaves (made without sends), runs it in `strategy.run` and checks every device's sums
# and the record: N − 1 steps, every send.

# %% nbgrader={"grade": false, "grade_id": "all_gather", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["4.1"]
def all_gather(work, devices):
    ### BEGIN SOLUTION
    n = len(devices)
    for step in range(n - 1):
        begin_step("all-gather")
        moves = [(i, (i + 1) % n, (i + 1 - step) % n) for i in range(n)]
        arrived = [send(work[i][c], devices[i], devices[j], chunk=c) for i, j, c in moves]
        for (_, j, c), part in zip(moves, arrived):
            work[j][c] = part
    return work
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_all_gather", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
_sum = np.arange(10, dtype=np.int64)                                     # chunks of 3, 3, 2, 2 over 4 devices
_off, _size = chunk_bounds(10, 4)
_chunks = [_sum[o:o + s] for o, s in zip(_off, _size)]
_work = [[_chunks[c] if c == (i + 1) % 4 else np.zeros(_size[c], np.int64) for c in range(4)] for i in range(4)]
_work, _rec = recorded(all_gather, _work, cpus(4))
assert all(np.array_equal(np.concatenate(row), _sum) for row in _work), _work
assert sends_of(_rec)[0] == [(0, 1, 1, 3), (1, 2, 2, 2), (2, 3, 3, 2), (3, 0, 0, 3)], sends_of(_rec)
assert _rec.num_steps == 3
# The whole ring in strategy.run, against the engine's RingAllReduce: the same sums, the same record.
_strategy = strategy_on(4)
_values = [np.arange(10, dtype=np.float32) * (r + 1) for r in range(4)]
_mine, _my_rec = all_reduce_with(StudentRing, _strategy, _values)
_ref, _ref_rec = all_reduce_with(tf.distribute.RingAllReduce(), _strategy, _values)
assert all(np.array_equal(a, b) for a, b in zip(_mine, _ref)) and np.array_equal(_mine[0], sum(_values))
assert sends_of(_my_rec) == sends_of(_ref_rec) and _my_rec.num_steps == 2 * (4 - 1)
assert _my_rec.bytes_sent() == _ref_rec.bytes_sent() == [60, 64, 60, 56]   # 2(N-1)/N x 40 bytes, uneven chunks
### BEGIN HIDDEN TESTS
# hidden: random N (2..8), dtypes, lengths (N not dividing, < N, 0, 1), packed tensors, in strategy.run;
# every replica's sums and the record (N-1 steps, every send) against the engine's RingAllReduce
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "task3_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 3: TF's hierarchical all-reduce (5 points)
#
# TF's `HierarchicalCopyAllReduce` was designed for the 8-GPU DGX-1, whose GPUs form two fully
# connected groups of four: reduce inside each group, combine the two groups, broadcast back. Write
# it, generalized to any N as the engine does, as a class `HierarchicalAllReduce` with the method
# `all_reduce_sum(buffers, devices)`. No chunks here: every send carries a whole buffer (no `chunk=`).
#
# * **Groups.** With h = ⌈N/2⌉, group 0 is devices 0 … h − 1 and group 1 is devices h … N − 1. Each
#   group's *root* is its first device (0 and h).
# * Step `begin_step("reduce within groups")`: every device of a group other than its root sends its
#   buffer to the root; the root adds them, in device order, to its own buffer (its group's partial sum).
# * Step `begin_step("exchange between group roots")`: root h sends its group's partial sum to root 0,
#   which adds it to its own: the total.
# * Step `begin_step("broadcast to group roots")`: root 0 sends the total to root h.
# * Step `begin_step("broadcast within groups")`: each root sends the total to every other device of its
#   group.
# * Return the N totals, the i-th the one device i holds.
#
# (With N = 2 the groups have one device each: the first and the last steps send nothing and leave no
# step in the record.) Root 0 sends and receives about N/2 buffers: less than `ReductionToOneDevice`'s
# N − 1, more than the ring. The grader checks the sums and the record against the engine's
# `HierarchicalCopyAllReduce`.

# %% nbgrader={"grade": false, "grade_id": "hierarchical", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["4.1"]
class HierarchicalAllReduce:
    def all_reduce_sum(self, buffers, devices):
        ### BEGIN SOLUTION
        n = len(devices)
        half = (n + 1) // 2
        groups = [list(range(half)), list(range(half, n))]
        partial = {}
        begin_step("reduce within groups")
        for group in groups:
            root = group[0]
            acc = buffers[root]
            for m in group[1:]:
                acc = acc + send(buffers[m], devices[m], devices[root])
            partial[root] = acc
        begin_step("exchange between group roots")
        total = partial[0] + send(partial[half], devices[half], devices[0])
        begin_step("broadcast to group roots")
        at_root = {0: total, half: send(total, devices[0], devices[half])}
        begin_step("broadcast within groups")
        out = [None] * n
        for group in groups:
            root = group[0]
            out[root] = at_root[root]
            for m in group[1:]:
                out[m] = send(at_root[root], devices[root], devices[m])
        return out
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_hierarchical", "locked": true, "points": 5, "schema_version": 3, "solution": false, "task": false}
_bufs = [np.full(4, 10.0 ** r, np.float64) for r in range(3)]
_out, _rec = recorded(HierarchicalAllReduce().all_reduce_sum, _bufs, cpus(3))
assert all(np.array_equal(o, np.full(4, 111.0)) for o in _out), _out
assert sends_of(_rec) == [[(1, 0, None, 4)], [(2, 0, None, 4)], [(0, 2, None, 4)], [(0, 1, None, 4)]], sends_of(_rec)
for _n, _dtype in ((2, np.int32), (5, np.float32)):
    _strategy = strategy_on(_n)
    _values = [np.arange(6).astype(_dtype) + r for r in range(_n)]
    _mine, _my_rec = all_reduce_with(HierarchicalAllReduce, _strategy, _values)
    _ref, _ref_rec = all_reduce_with(tf.distribute.HierarchicalCopyAllReduce(), _strategy, _values)
    assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(_mine, _ref)), (_mine, _ref)
    assert sends_of(_my_rec) == sends_of(_ref_rec), (sends_of(_my_rec), sends_of(_ref_rec))
### BEGIN HIDDEN TESTS
# hidden: random N (2..8, odd and even), dtypes, lengths (0 and 1 too), packed tensors, in strategy.run;
# every replica's sums and the record against the engine's HierarchicalCopyAllReduce
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "task4_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 4: a data-parallel training loop (5 points)
#
# The article says that with `MirroredStrategy` the training code runs unchanged (4.5). For
# `model.fit` that is nearly true; for a custom training loop it is not. Write
# `train(strategy, model, optimizer, dataset, global_batch_size, epochs=1)`:
#
# * `model` and `optimizer` were created in `strategy.scope()` (so the model's variables are
#   `MirroredVariable`s, one copy per replica); `dataset` yields global batches `(x, y)` of
#   `global_batch_size` examples; the loss of an example is `per_example_loss(model, x, y)` (setup cell).
# * For every global batch of every epoch, run one step on every replica with `strategy.run`: each
#   replica computes its loss with a `tf.GradientTape`, takes the gradients of its
#   `model.trainable_variables` and calls `optimizer.apply_gradients` (which all-reduces them, SUM,
#   across the replicas before applying them: do not all-reduce them yourself as well).
# * Return the list of the steps' losses (Python floats), each the **mean over the global batch**: the
#   replicas' losses reduced with `strategy.reduce`.
# * `replica_step` is there to organize your code (one replica's part of a step); only `train` is graded.
#
# What the grader checks: after training on N replicas (N random, 2…8, global batches that N divides
# and that it does not), the final weights (every replica's copy) and the losses equal those of the
# same training on one device, `train_one_device` in the setup cell (up to float rounding). It runs
# with your ring in the seam (the reference ring while this task is graded). Three things the
# "unchanged" code gets wrong:
#
# * **The dataset must be distributed**: `strategy.experimental_distribute_dataset(dataset)` splits each
#   global batch across the replicas (slice sizes differ by at most one, the larger first). Given the
#   global batch itself, every replica computes on all of it.
# * **The loss must be divided by the global batch size**, not by the replica's own slice: the
#   all-reduce *sums* the replicas' gradients, so a per-replica mean (`tf.reduce_mean`) gives about N
#   times the gradient. `tf.nn.compute_average_loss(per_example, global_batch_size=...)` divides the sum
#   of the per-example losses by the number you give it.
# * Without `global_batch_size`, `compute_average_loss` divides by the replica's own batch size times
#   N, which is the global batch only when N divides it evenly.

# %% nbgrader={"grade": false, "grade_id": "train", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["4.1", "4.5"]
def replica_step(model, optimizer, x, y, global_batch_size):
    """One replica's part of a step (it runs in strategy.run); returns this replica's share of the loss."""
    ### BEGIN SOLUTION
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(per_example_loss(model, x, y), global_batch_size=global_batch_size)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
    ### END SOLUTION


def train(strategy, model, optimizer, dataset, global_batch_size, epochs=1):
    ### BEGIN SOLUTION
    losses = []
    for _ in range(epochs):
        for x, y in strategy.experimental_distribute_dataset(dataset):
            per_replica = strategy.run(replica_step, args=(model, optimizer, x, y, global_batch_size))
            losses.append(float(strategy.reduce("SUM", per_replica, axis=None)))
    return losses
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_train", "locked": true, "points": 5, "schema_version": 3, "solution": false, "task": false}
_rng = np.random.default_rng(5)
_w0 = [_rng.normal(size=(3, 4)).astype(np.float32) * 0.5, np.zeros(4, np.float32),
       _rng.normal(size=(4, 2)).astype(np.float32) * 0.5, np.zeros(2, np.float32)]
_x, _y = _rng.normal(size=(16, 3)).astype(np.float32), _rng.normal(size=(16, 2)).astype(np.float32)
_data = tf.data.Dataset.from_tensor_slices((_x, _y)).batch(8)          # 2 global batches of 8
_ref_w, _ref_losses = train_one_device(_w0, _data, lr=0.1, epochs=2)
for _n in (2, 3):                                                      # 8 = 4 + 4; 8 = 3 + 3 + 2
    _strategy = strategy_on(_n)
    with _strategy.scope():
        _model, _opt = make_model(_w0), tf.keras.optimizers.SGD(0.1)
    _losses = train(_strategy, _model, _opt, _data, global_batch_size=8, epochs=2)
    assert np.allclose(_losses, _ref_losses, rtol=1e-5, atol=1e-6), (_n, _losses, _ref_losses)
    for _v, _w in zip(_model.weights, _ref_w):
        for _copy in _v.values:                                        # every replica's copy
            assert np.allclose(_copy.numpy(), _w, rtol=1e-5, atol=1e-6), (_n, _v.name)
### BEGIN HIDDEN TESTS
# hidden: random N (2..8), global batches N divides and does not, 1-2 epochs, random models and data;
# every replica's final weights and the losses against one-device training
### END HIDDEN TESTS
