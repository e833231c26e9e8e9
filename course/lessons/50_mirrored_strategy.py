# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 50. Data-parallel training with MirroredStrategy (syllabus 4.1–4.5)
#
# `MirroredStrategy` is **synchronous data parallelism**: every device (a *replica*) holds a full
# copy of the model, each replica runs the forward and backward pass on its own slice of the
# global batch, and at the end of the step the gradients are **all-reduced** (summed across
# replicas) so that every replica applies the same update and the copies stay identical (4.1).
#
# We have no GPUs here, so we do what TensorFlow allows on a laptop: split the one physical CPU
# into several *logical* devices. That must happen **before anything initializes the runtime**
# (the first tensor, the first `list_logical_devices`), so it is the very first thing we do.

# %%
import json
import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # one BLAS thread per replica thread (see "Measured")
import time
import warnings
import numpy as np
import matplotlib.pyplot as plt
import engine as tf
from engine import viz

cpu = tf.config.list_physical_devices("CPU")[0]          # does not initialize the runtime
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 8)
print([d.name for d in tf.config.list_logical_devices()])  # this call initializes it
try:
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
except RuntimeError as e:
    print("too late now -> RuntimeError:", e)

# %% [markdown]
# ## The strategy, and the picture of one step
# `MirroredStrategy()` with no arguments takes every GPU, or, with none, every logical CPU (all 8
# here). We name the devices, so the lesson behaves the same on a machine that has GPUs. On CPUs
# the engine's default all-reduce algorithm is `ReductionToOneDevice`, TF's fallback when NCCL
# can't run (TF 2's own default today is an internal `CollectiveAllReduce`).

# %%
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
print(strategy)
print("replicas in sync:", strategy.num_replicas_in_sync)


def draw_data_parallel(n=2, batch=8):
    """One synchronous step on n replicas: split, compute, all-reduce, identical updates."""
    g = viz.digraph(f"One MirroredStrategy step: global batch {batch} over {n} replicas", rankdir="LR")
    g.node("batch", f"global batch\n{batch} examples", **viz.STYLES["source"])
    g.node("ar", "all-reduce\n(SUM of gradients)", **viz.STYLES["op"], penwidth="2")
    for i in range(n):
        g.node(f"r{i}", f"CPU:{i}\nfull model copy\nforward + backward", **viz.STYLES["device"])
        g.node(f"u{i}", f"CPU:{i}\nw -= lr * Σ grads", **viz.STYLES["variable"])
        g.edge("batch", f"r{i}", label=f"{batch // n} examples")
        g.edge(f"r{i}", "ar", label=f"grads of replica {i}")
        g.edge("ar", f"u{i}", label="the same Σ grads")
    return g


draw_data_parallel()

# %% [markdown]
# ## `strategy.scope()`: variables become MirroredVariables (4.5)
# A `tf.Variable` created inside the scope is made *by the strategy*: one ordinary variable per
# device (its *components*), behind one `MirroredVariable`. It is still a `tf.Variable`, so model
# code does not change. An assignment outside `strategy.run` (the *cross-replica context*) is
# applied to every copy.

# %%
with strategy.scope():
    w = tf.Variable([1.0, 2.0], name="w")
print(w)
print(type(w).__name__, "| isinstance tf.Variable:", isinstance(w, tf.Variable))
print([(c.name, c.device.split("/")[-1], c.numpy()) for c in w.values])
w.assign([3.0, 4.0])                        # cross-replica context: every copy
print([c.numpy() for c in w.values])

# %% [markdown]
# ## `strategy.run` and `PerReplica` values
# `strategy.run(fn)` calls `fn` once per replica, each in its own thread with its own device
# (engine/distribute/mirrored_run.py). Inside, `get_replica_context()` says which replica this is
# (the *replica context*); in the scope but outside `run` it returns `None`. The results come back
# as one `PerReplica` value holding every replica's result, which `strategy.reduce` combines.

# %%
def who_am_i():
    ctx = tf.distribute.get_replica_context()
    return tf.cast(ctx.replica_id_in_sync_group, tf.float32) * w    # each replica reads its own copy

per_replica = strategy.run(who_am_i)
print(per_replica)
print("components:", [t.device.split("/")[-1] for t in strategy.experimental_local_results(per_replica)])
print("reduce SUM:", strategy.reduce("SUM", per_replica, axis=None))
with strategy.scope():
    print("replica context in the scope, outside run:", tf.distribute.get_replica_context())

# %% [markdown]
# ## `experimental_distribute_dataset`: the dataset yields GLOBAL batches, the strategy splits them
# Each global batch is cut along its first axis into N slices, one per replica, each placed on its
# replica's device. As in TF, the slice sizes differ by at most one, the larger ones first (10 over
# 4 replicas: 3, 3, 2, 2). A short last batch fills the same slices in order and can leave a replica
# with nothing; that is why the loss must be divided by the *global* batch size, never by the
# slice's own size.

# %%
data = tf.data.Dataset.from_tensor_slices(np.arange(8, dtype=np.float32).reshape(8, 1)).batch(8)
first = next(iter(strategy.experimental_distribute_dataset(data)))
print(first)
strategy4 = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(4)])
short = tf.data.Dataset.from_tensor_slices(np.arange(5, dtype=np.float32).reshape(5, 1)).batch(5)
split = next(iter(strategy4.experimental_distribute_dataset(short)))
print("5 examples over 4 replicas:", [int(t.shape[0]) for t in split.values])

# %% [markdown]
# ## All-reduce: the ring algorithm, step by step
# After the backward pass each replica holds *its* gradients; every replica needs *the sum*. The
# ring all-reduce (what NCCL does inside) cuts the buffer into N chunks and passes them around a
# ring of devices:
#
# * **reduce-scatter**, N−1 steps: every device sends one chunk to its right neighbour, which adds
#   it to its own copy of that chunk. Afterwards each device owns one chunk's complete sum.
# * **all-gather**, N−1 steps: the complete chunks travel around the ring, overwriting.
#
# 2(N−1) steps in all. The engine's `RingAllReduce` records every send it makes; we replay the
# record to draw who holds which partial sum after each step.

# %%
N = 4
ring = tf.distribute.RingAllReduce()
strategy_ring = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(N)], cross_device_ops=ring)
grads = strategy_ring.experimental_distribute_values_from_function(   # replica i's "gradient": 8 values
    lambda c: tf.constant(np.arange(8, dtype=np.float32) + 100.0 * c.replica_id_in_sync_group))
with tf.distribute.record_all_reduce() as log:
    summed = ring.all_reduce("SUM", grads)
record = log[-1]
print(record.table())
expected = sum(g.numpy() for g in grads.values)
print("every replica holds the sum:", all(np.array_equal(s.numpy(), expected) for s in summed.values))


def ring_states(record):
    """Replay a ring record: states[k][device][chunk] = the set of replicas summed in, after step k."""
    n = record.num_devices
    state = [[frozenset([d]) for _ in range(n)] for d in range(n)]
    states = [state]
    for step in record.steps:
        new = [list(row) for row in state]
        for s in step.sends:                      # all sends of a step happen at once
            incoming = state[s.src][s.chunk]
            new[s.dst][s.chunk] = (state[s.dst][s.chunk] | incoming) if step.phase == "reduce-scatter" \
                else incoming
        state = new
        states.append(state)
    return states


def draw_ring(record, step):
    """The ring after `step` (0 = before any send): each device's chunks, and the sends of that step."""
    n = record.num_devices
    state = ring_states(record)[step]
    sends = record.steps[step - 1].sends if step else ()
    sending = {(s.src, s.chunk) for s in sends}
    phase = record.steps[step - 1].phase if step else "start: each device holds only its own gradient"
    g = viz.digraph(f"Ring all-reduce, {n} devices: step {step} of {record.num_steps} ({phase})",
                    layout="circo")
    for d in range(n):
        cells = []
        for c in range(n):
            have = state[d][c]
            text = "Σ" if len(have) == n else "+".join(str(r) for r in sorted(have))
            colour = "#c8e6c9" if len(have) == n else ("#fbd9c4" if len(have) > 1 else "white")
            border = ' border="3" color="#b03a00"' if (d, c) in sending else ""
            cells.append(f'<td bgcolor="{colour}"{border}>c{c}: {text}</td>')
        label = (f'<<table border="0" cellborder="1" cellspacing="2"><tr><td colspan="{n}"><b>'
                 f'{record.devices[d]}</b></td></tr><tr>{"".join(cells)}</tr></table>>')
        g.node(f"d{d}", label=label, shape="plaintext")
    for d in range(n):
        send = next((s for s in sends if s.src == d), None)
        if send is None:
            g.edge(f"d{d}", f"d{(d + 1) % n}", color="#cccccc")
        else:
            colour = "#d2691e" if phase == "reduce-scatter" else "#2e7d32"
            g.edge(f"d{d}", f"d{send.dst}", label=f"chunk {send.chunk}\n{send.nbytes} B", color=colour,
                   fontcolor=colour, penwidth="2.5")
    return g


draw_ring(record, 0)

# %% [markdown]
# Step 1: every device sends one chunk (outlined) to its right neighbour, which adds it in.

# %%
draw_ring(record, 1)

# %% [markdown]
# After N−1 = 3 steps the reduce-scatter is done: each device owns one complete chunk (Σ, green).

# %%
draw_ring(record, N - 1)

# %% [markdown]
# The all-gather passes the complete chunks around; after 2(N−1) = 6 steps every device has every Σ.

# %%
draw_ring(record, 2 * (N - 1))

# %% [markdown]
# All the steps at once: how many replicas' values each (device, chunk) holds, replayed from the
# engine's record (white 1 = only its own, dark N = the complete sum).

# %%
states = ring_states(record)
fig, axes = plt.subplots(1, len(states), figsize=(2 * len(states), 2.2))
for k, (ax, st) in enumerate(zip(axes, states)):
    counts = np.array([[len(st[d][c]) for c in range(N)] for d in range(N)])
    ax.imshow(counts, cmap="Greens", vmin=0, vmax=N)
    for d in range(N):
        for c in range(N):
            ax.text(c, d, counts[d, c], ha="center", va="center", fontsize=8,
                    color="white" if counts[d, c] > N / 2 else "black")
    ax.set_xticks(range(N)); ax.set_yticks(range(N))
    ax.set_title(f"step {k}" + ("" if k == 0 else f"\n{record.steps[k - 1].phase}"), fontsize=8)
    ax.set_xlabel("chunk", fontsize=8)
axes[0].set_ylabel("device")
plt.tight_layout(); plt.show()

# %% [markdown]
# ## Why a ring: bytes each device sends, measured from the records
# Three algorithms, the same all-reduce of one float32 buffer on N = 2…8 replicas. Each record
# counts the bytes every device sent:
#
# * `ReductionToOneDevice`: the root receives N−1 buffers and sends N−1 back: (N−1)·size,
#   a bottleneck that grows with N;
# * `HierarchicalCopyAllReduce` (TF's DGX-1 algorithm): two groups, each reduced to its root;
#   the roots exchange, then broadcast: better, still growing;
# * `RingAllReduce`: exactly 2(N−1)/N·size per device, below 2·size whatever N, and that is the
#   least any all-reduce can send.

# %%
SIZE = 840                      # float32 elements, divisible by 1..8: the chunks are equal
algorithms = [tf.distribute.ReductionToOneDevice(), tf.distribute.HierarchicalCopyAllReduce(),
              tf.distribute.RingAllReduce()]
ns = list(range(2, 9))
max_sent = {type(a).__name__: [] for a in algorithms}
per_device_at_4 = {}
for n in ns:
    s_n = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])
    values = s_n.experimental_distribute_values_from_function(
        lambda c: tf.constant(np.full(SIZE, 1.0 + c.replica_id_in_sync_group, np.float32)))
    for a in algorithms:
        out = a.all_reduce("SUM", values)
        assert np.allclose(out.values[-1].numpy(), n * (n + 1) / 2)
        sent = a.last_record.bytes_sent()
        max_sent[type(a).__name__].append(max(sent) / a.last_record.nbytes)
        if n == 4:
            per_device_at_4[type(a).__name__] = sent
bound = [2 * (n - 1) / n for n in ns]
for name, row in max_sent.items():
    print(f"{name:<26}", " ".join(f"{v:5.2f}" for v in row), " (max bytes sent per device / size)")
print(f"{'bound 2(N-1)/N':<26}", " ".join(f"{v:5.2f}" for v in bound))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.2))
for name, row in max_sent.items():
    ax1.plot(ns, row, "o-", label=name)
ax1.plot(ns, bound, "k--", label="2(N-1)/N bound")
ax1.set_xlabel("replicas N"); ax1.set_ylabel("max bytes sent by a device / size")
ax1.set_title("The busiest device's traffic"); ax1.legend(fontsize=8)
for k, (name, sent) in enumerate(per_device_at_4.items()):
    ax2.bar(np.arange(4) + 0.27 * (k - 1), np.array(sent) / 1000, width=0.27, label=name)
ax2.axhline(2 * 3 / 4 * SIZE * 4 / 1000, color="k", ls="--", label="ring bound")
ax2.set_xticks(range(4), [f"CPU:{i}" for i in range(4)]); ax2.set_ylabel("kB sent")
ax2.set_title(f"N = 4, buffer {SIZE * 4 / 1000:.2f} kB"); ax2.legend(fontsize=7)
plt.tight_layout(); plt.show()

# %% [markdown]
# On *these* devices a send is free (logical CPUs share one memory), so timing the algorithms here
# would only measure Python bookkeeping (`bench/distribute.py` does, and the ring loses). Between
# GPUs, bytes on the link are what cost time, and the ring sends the fewest.
#
# ## The GPU path: NCCL
# On a machine with one physical GPU per replica the engine's default is `NcclAllReduce`: one call
# into NVIDIA's NCCL library (via CuPy), which runs its own ring schedule inside; its record is the
# ring schedule NCCL implies, marked *simulated*. TF's GPU path ends in NCCL too (4.1): the
# `NcclAllReduce` class, or, in recent versions, collective ops that call NCCL. NCCL cannot run on
# CPUs, nor with two logical GPUs on one physical GPU; the engine says so at construction:

# %%
try:
    tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"], cross_device_ops=tf.distribute.NcclAllReduce())
except ValueError as e:
    print("ValueError:", e)

# %% [markdown]
# ## Training: N replicas reach the same weights as one device
# The custom training loop, written once. `compute_average_loss` divides the summed per-example
# loss by the **global** batch size; the optimizer all-reduces (SUM) the gradients before applying
# them, so the update is the gradient of the mean over the whole global batch, on every replica.

# %%
rng = np.random.default_rng(0)
X = rng.normal(size=(256, 8)).astype(np.float32)
Y = np.sin(X @ rng.normal(size=(8, 1))).astype(np.float32)
GLOBAL_BATCH, LR, EPOCHS = 64, 0.2, 3
dataset = tf.data.Dataset.from_tensor_slices((X, Y)).batch(GLOBAL_BATCH)


def create_model():
    return tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(16, activation="relu"),
                                tf.keras.layers.Dense(1)])


tf.random.set_seed(0)
W0 = create_model().get_weights()          # every run starts from the same weights


def train(n, scale="global", lr=LR, epochs=EPOCHS):
    """Train on n replicas (n=0: no strategy at all). Returns (final weights, per-step losses)."""
    strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)]) if n else None
    with (strategy.scope() if strategy else tf.distribute.get_strategy().scope()):
        model = create_model()
        model.set_weights(W0)
        optimizer = tf.keras.optimizers.SGD(lr)

    def train_step(x, y):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum((model(x) - y) ** 2, axis=1)
            if scale == "global":
                loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
            else:                                  # the single-device habit: mean over *this* batch
                loss = tf.reduce_mean(per_example)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = []
    for _ in range(epochs):
        batches = strategy.experimental_distribute_dataset(dataset) if strategy else dataset
        for x, y in batches:
            if strategy is None:
                loss = train_step(x, y)
            else:
                loss = strategy.reduce("SUM", strategy.run(train_step, args=(x, y)), axis=None)
            losses.append(float(loss))
            if not np.isfinite(losses[-1]) or losses[-1] > 1e3:
                return model.get_weights(), losses   # diverged: stop before it overflows
    return model.get_weights(), losses


reference, ref_losses = train(0)
results = {n: train(n) for n in [1, 2, 4]}
for n, (weights, losses) in results.items():
    diff = max(float(np.abs(a - b).max()) for a, b in zip(weights, reference))
    print(f"{n} replica(s): final loss {losses[-1]:.4f}, max |w - w_one_device| = {diff:.1e}")

# %%
fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(ref_losses, "k-", lw=4, alpha=0.3, label="one device, no strategy")
for n, (_, losses) in results.items():
    ax.plot(losses, "o--", ms=3, label=f"{n} replica(s)")
ax.set_xlabel("step"); ax.set_ylabel("loss (global mean)"); ax.legend(fontsize=8)
ax.set_title("Same data, same weights, any N"); plt.show()

# %% [markdown]
# The differences are float rounding (~1e-7): the replicas add the gradients in a different order.
# Otherwise N replicas with B/N examples each compute *exactly* one step on B examples.
#
# ## "No code changes"? What goes wrong (the article is imprecise)
# The article says the training code "runs unchanged, automatically distributed". For
# `model.fit` that is nearly true (Keras splits the batch and scales the loss for you). For a
# custom loop it is not. Three mistakes, each measured:
#
# **1. Scaling the loss by the per-replica batch (`reduce_mean`).** Each replica's mean is over
# B/N examples; the all-reduce then *sums* N such gradients: N times the true gradient. We
# all-reduce the gradient of one step both ways and compare with one device.

# %%
def summed_gradient(n, scale, distribute=True):
    """One step's all-reduced gradient on n replicas, flattened (as every replica holds it)."""
    strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])
    with strategy.scope():
        model = create_model()
        model.set_weights(W0)

    def step(x, y):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum((model(x) - y) ** 2, axis=1)
            if scale == "global":
                loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
            else:
                loss = tf.reduce_mean(per_example)
        g = tape.gradient(loss, model.trainable_variables)
        return tf.distribute.get_replica_context().all_reduce("SUM", g)

    batches = strategy.experimental_distribute_dataset(dataset) if distribute else dataset
    x, y = next(iter(batches))
    g = strategy.run(step, args=(x, y))
    return np.concatenate([np.ravel(strategy.experimental_local_results(t)[0].numpy()) for t in g])


x0, y0 = next(iter(dataset))
one = create_model(); one.set_weights(W0)
with tf.GradientTape() as tape:
    true_loss = tf.reduce_mean(tf.reduce_sum((one(x0) - y0) ** 2, axis=1))
true_grad = np.concatenate([np.ravel(g.numpy()) for g in tape.gradient(true_loss, one.trainable_variables)])
ratios = {}
for n in [1, 2, 4, 8]:
    ratios[n] = {s: float(np.linalg.norm(summed_gradient(n, s)) / np.linalg.norm(true_grad))
                 for s in ["global", "per-replica"]}
    print(f"N={n}: |grad| / |true grad| = {ratios[n]['global']:.3f} with compute_average_loss, "
          f"{ratios[n]['per-replica']:.3f} with reduce_mean")

fig, ax = plt.subplots(figsize=(4.5, 3))
ax.plot(list(ratios), [r["per-replica"] for r in ratios.values()], "o-", label="reduce_mean (per replica)")
ax.plot(list(ratios), [r["global"] for r in ratios.values()], "s-", label="compute_average_loss (global)")
ax.set_xlabel("replicas N"); ax.set_ylabel("gradient norm / one device's")
ax.legend(fontsize=8); ax.set_title("Wrong scaling: N times the gradient"); plt.show()

# %% [markdown]
# N times the gradient is N times the learning rate: a model that trains on one device diverges on
# four, and the reported loss (a SUM over replicas of per-replica means) is N times too big as well.

# %%
with warnings.catch_warnings():
    warnings.simplefilter("ignore", RuntimeWarning)
    _, bad_losses = train(4, scale="per-replica")
fig, ax = plt.subplots(figsize=(5, 3))
ax.semilogy(results[4][1], "o-", ms=3, label="4 replicas, compute_average_loss")
ax.semilogy(bad_losses, "x-", color="C3", label="4 replicas, reduce_mean")
ax.set_xlabel("step"); ax.set_ylabel("reported loss"); ax.legend(fontsize=8); plt.show()
print("reduce_mean run stopped after", len(bad_losses), "steps at loss", f"{bad_losses[-1]:.3g}")

# %% [markdown]
# **2. Not distributing the dataset.** Pass the global batch itself to `strategy.run` and every
# replica gets *all* of it: N times the work, and, with the loss divided by the global batch,
# N times the gradient again. (Leave out `global_batch_size` and `compute_average_loss` divides by
# the batch it sees times N, which hides the gradient error but not the wasted work.)

# %%
print("4 replicas, dataset not distributed: |grad| / |true grad| =",
      f"{np.linalg.norm(summed_gradient(4, 'global', distribute=False)) / np.linalg.norm(true_grad):.3f}")
x_full, y_full = next(iter(dataset))
seen = strategy4.run(lambda x, y: tf.shape(x)[0], args=(x_full, y_full))
print("examples per replica, not distributed:", [int(t) for t in strategy4.experimental_local_results(seen)])
xs, ys = next(iter(strategy4.experimental_distribute_dataset(dataset)))
seen = strategy4.run(lambda x, y: tf.shape(x)[0], args=(xs, ys))
print("examples per replica, distributed:    ", [int(t) for t in strategy4.experimental_local_results(seen)])

# %% [markdown]
# **3. Creating the model outside `strategy.scope()` (4.5).** Then it holds plain variables: one
# copy, on one device, shared by every replica thread. Each replica applies the all-reduced update
# to that same variable: the engine silently applies it N times. (What TF does here depends on the
# version; the rule, "create the model and the optimizer in the scope", does not.)

# %%
outside = tf.Variable([1.0])                     # NOT in the scope
with strategy.scope():
    opt = tf.keras.optimizers.SGD(0.1)


def step_outside(x):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(tf.reduce_sum(x * outside, axis=1))   # d loss / d w = 1
    g = tape.gradient(loss, [outside])
    opt.apply_gradients(zip(g, [outside]))


ones = tf.data.Dataset.from_tensor_slices(np.ones((4, 1), np.float32)).batch(4)
strategy.run(step_outside, args=(next(iter(strategy.experimental_distribute_dataset(ones))),))
print(type(outside).__name__, float(outside[0]), "(one device would give 1 - 0.1 * 1 = 0.9)")

# %% [markdown]
# And `model.fit`, the seed's example: build and compile in the scope, then the usual `fit`. Here
# Keras distributes the batches and scales the loss itself, so this part really is unchanged: the
# same `fit` on 4 replicas and on one device ends at the same weights.

# %%
def fit(strategy):
    with (strategy.scope() if strategy else tf.distribute.get_strategy().scope()):
        model = create_model()                      # the model must be built inside the scope
        model.set_weights(W0)
        model.compile(optimizer=tf.keras.optimizers.SGD(LR), loss="mse")
    history = model.fit(X, Y, batch_size=GLOBAL_BATCH, epochs=3, verbose=0, shuffle=False)
    return model, history.history["loss"]


fit4, loss4 = fit(strategy4)
fit1, loss1 = fit(None)
print(type(fit4.layers[0].kernel).__name__, "loss per epoch:", [round(v, 4) for v in loss4])
print("max |w_4_replicas - w_one_device| =",
      f"{max(float(np.abs(a - b).max()) for a, b in zip(fit4.get_weights(), fit1.get_weights())):.1e}")

# %% [markdown]
# ## Measured: do 4 replicas train 4 times faster here? No.
# We time one training step (global batch 512, a 32-256-256-10 MLP) with no strategy and with 1, 2
# and 4 replicas, and, for comparison, one step on a B/N slice alone: what each replica would take
# on perfectly parallel hardware (its own processor, free communication). The configurations are
# timed in turns and the best of 12 runs is kept, so that other work on the machine disturbs them
# all alike.

# %%
B, SIZES = 512, (32, 256, 256, 10)
xb = rng.normal(size=(B, SIZES[0])).astype(np.float32)
yb = rng.integers(0, SIZES[-1], size=B).astype(np.int32)
init = [rng.normal(scale=a ** -0.5, size=(a, b)).astype(np.float32) for a, b in zip(SIZES[:-1], SIZES[1:])]
timing_data = tf.data.Dataset.from_tensor_slices((xb, yb)).batch(B)


def mlp_step_fn(variables, global_batch):
    def step(x, y):
        with tf.GradientTape() as tape:
            h = x
            for i, v in enumerate(variables):
                h = h @ v
                if i < len(variables) - 1:
                    h = tf.nn.relu(h)
            loss = tf.nn.compute_average_loss(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h), global_batch_size=global_batch)
        g = tape.gradient(loss, variables)
        if tf.distribute.has_strategy():
            g = tf.distribute.get_replica_context().all_reduce("SUM", g)
        for v, gi in zip(variables, g):
            v.assign_sub(0.1 * gi)
        return loss
    return step


def make_runner(n, rows=B):
    """A function running one training step on n replicas (n=0: no strategy), global batch `rows`."""
    data = tf.data.Dataset.from_tensor_slices((xb[:rows], yb[:rows])).batch(rows)
    if n == 0:
        variables = [tf.Variable(v) for v in init]
        step, batch = mlp_step_fn(variables, rows), next(iter(data))
        return lambda: step(*batch)
    s_n = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)],
                                         cross_device_ops=tf.distribute.RingAllReduce())
    with s_n.scope():
        variables = [tf.Variable(v) for v in init]
    step, batch = mlp_step_fn(variables, rows), next(iter(s_n.experimental_distribute_dataset(data)))
    return lambda: s_n.run(step, args=batch)


configs = [0, 1, 2, 4]
runners = {("step", n): make_runner(n) for n in configs}
runners.update({("slice", n): make_runner(0, rows=B // n) for n in [2, 4]})   # one replica's share, alone
times = {key: [] for key in runners}
for run in runners.values():
    run(); run()                                  # warm up
for _ in range(12):                               # round robin: a busy moment hits every configuration
    for key, run in runners.items():
        t0 = time.perf_counter()
        run()
        times[key].append(time.perf_counter() - t0)
best = {key: min(t) for key, t in times.items()}  # the least disturbed run of each
measured = {n: best[("step", n)] for n in configs}
ideal = {0: best[("step", 0)], 1: best[("step", 0)], 2: best[("slice", 2)], 4: best[("slice", 4)]}
print(f"CPU cores: {os.cpu_count()}")
for n in configs:
    label = "no strategy" if n == 0 else f"{n} replica(s)"
    print(f"{label:<13} {measured[n] * 1e3:6.2f} ms/step = {measured[0] / measured[n]:4.2f}x the speed of no "
          f"strategy   (perfect parallelism: {ideal[n] * 1e3:5.2f} ms)")

fig, ax = plt.subplots(figsize=(5, 3))
labels = ["none" if n == 0 else str(n) for n in configs]
ax.bar(labels, [measured[n] * 1e3 for n in configs], label="measured step")
ax.plot(labels, [ideal[n] * 1e3 for n in configs], "ko--", label="perfect: one slice's work")
ax.set_xlabel("replicas"); ax.set_ylabel("ms / step"); ax.legend(fontsize=8)
ax.set_title("Logical CPUs share the same cores"); plt.show()

# %% [markdown]
# Reading the plot honestly: perfect data parallelism would follow the dashed line down. The bars
# do not: 4 replicas are no faster than one device, usually slower, and 2 replicas on this 2-core
# machine gain little if anything (the exact numbers change from run to run). Why:
#
# * **The same cores.** Logical devices are a bookkeeping split of one CPU: four replica threads
#   compete for the same few cores and the same memory bandwidth. (The first cell pinned BLAS to
#   one thread, as the autograder does: otherwise BLAS's own threads fight the replica threads
#   for the cores, and on a busy 2-core machine a 256×256 matmul can take 100 times longer.)
# * **Python threads.** Each replica is a Python thread (engine/distribute/mirrored_run.py). NumPy
#   releases the GIL inside a kernel, but all the Python between kernels (op dispatch, the tape)
#   runs one thread at a time.
# * **Smaller kernels, fixed overheads.** Each replica multiplies B/N rows: less work per call,
#   the same per-op dispatch cost; plus thread hand-offs at every synchronization point and the
#   all-reduce itself.
#
# On real GPUs each replica has its own processor and memory, kernels are asynchronous, and the
# all-reduce is one NCCL call: there the step time stays near the one-slice line, and N GPUs
# process N times the examples per second. The *semantics* (same weights as one device) are what
# the logical devices show faithfully; the *speed* needs separate hardware.
#
# ## Inside `tf.function`: one graph, one all-reduce node
# Traced, the replicas' ops all land in one graph, each op placed on its replica's device, joined
# by a single `MirroredAllReduce` node (engine/distribute/collective_ops.py; TF places a
# `CollectiveReduceV2` or `NcclAllReduce` node per replica instead). We count the traced ops per
# device and draw the summary.

# %%
with strategy.scope():
    traced_model = create_model()
    traced_model.set_weights(W0)
    traced_opt = tf.keras.optimizers.SGD(LR)


def traced_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(tf.reduce_sum((traced_model(x) - y) ** 2, axis=1))
    grads = tape.gradient(loss, traced_model.trainable_variables)
    traced_opt.apply_gradients(zip(grads, traced_model.trainable_variables))
    return loss


@tf.function
def distributed_train_step(x, y):
    return strategy.reduce("SUM", strategy.run(traced_step, args=(x, y)), axis=None)


xd, yd = next(iter(strategy.experimental_distribute_dataset(dataset)))
print("loss:", float(distributed_train_step(xd, yd)))
graph = distributed_train_step.get_concrete_function(xd, yd).graph
ops_by_device = {}
for op in graph.get_operations():
    ops_by_device.setdefault(op.device.split("/")[-1].replace("device:", "") or "(none)", []).append(op.type)
print({d: len(t) for d, t in ops_by_device.items()})
all_reduce_ops = [op for op in graph.get_operations() if op.type == "MirroredAllReduce"]
print(len(all_reduce_ops), "MirroredAllReduce node with", len(all_reduce_ops[0].inputs), "inputs")

g = viz.digraph("The traced distributed step", rankdir="LR")
g.node("ar", f"MirroredAllReduce\n{len(all_reduce_ops[0].inputs)} in, {len(all_reduce_ops[0].outputs)} out",
       **viz.STYLES["op"], penwidth="2")
for i, d in enumerate(k for k in ops_by_device if k.startswith("CPU")):
    g.node(f"fwd{i}", f"{d}\n{len(ops_by_device[d])} ops: forward,\nbackward, update", **viz.STYLES["device"])
    g.node(f"upd{i}", f"{d}: apply Σ gradients", **viz.STYLES["variable"])
    g.edge(f"fwd{i}", "ar", label="gradients")
    g.edge("ar", f"upd{i}", label="Σ gradients")
g

# %% [markdown]
# ## Beyond one machine (4.2–4.4), mapped to what the engine shows
# This lesson stays in one process. The other strategies change *where the replicas live* and
# *how gradients meet*, not the training-loop contract you just learned (scope, `run`, distributed
# datasets, global-batch loss scaling). Lesson 55 runs the next one live: MultiWorkerMirroredStrategy
# with two and three worker processes talking over gRPC on this machine.
#
# **MultiWorkerMirroredStrategy (4.2).** The same synchronous all-reduce, across machines
# ("workers"), each with its own GPUs. Every worker runs the *same* script; the `TF_CONFIG`
# environment variable tells each process the cluster and which task it is. The all-reduce runs
# over the network (gRPC, or RDMA/NCCL between GPUs) with collective ops: within a machine NCCL,
# across machines a ring (or a tree) just like the one drawn above, now with network links as the
# edges (lesson 55 draws it from the sends the workers recorded). The replica count is workers × GPUs
# per worker, and the global batch is split across all of them.

# %%
tf_config = {"cluster": {"worker": ["host0:12345", "host1:12345", "host2:12345"]},
             "task": {"type": "worker", "index": 1}}
os.environ["TF_CONFIG"] = json.dumps(tf_config)      # what each worker's launcher sets (index differs)
cfg = json.loads(os.environ.pop("TF_CONFIG"))
workers, gpus_per_worker = len(cfg["cluster"]["worker"]), 8
print(f"I am {cfg['task']['type']} {cfg['task']['index']} of {workers}; "
      f"replicas in sync = {workers} x {gpus_per_worker} = {workers * gpus_per_worker}; "
      f"ring bound per device = {2 * (workers * gpus_per_worker - 1) / (workers * gpus_per_worker):.3f} x size")

# %% [markdown]
# **ParameterServerStrategy (4.3).** A different architecture: *parameter servers* hold the
# variables (sharded across them for very large models); *workers* read the current variables,
# compute gradients on their own batches and push them back; a coordinator dispatches steps. It
# can be **asynchronous**: a worker does not wait for the others, so a slow or failed worker does
# not stall training, at the price of *stale* gradients (computed on variables that others have
# since updated). In the engine's terms: replace the all-reduce by `ReductionToOneDevice` with the
# variables living only on the root (the parameter server), and drop the requirement that every
# replica reach the same synchronization point. The root's traffic measured above, (N−1)·size, is
# exactly why the variables are sharded across several servers. The engine has no
# `ParameterServerStrategy` yet, so the course does not run one (exercise 3 below simulates the
# asynchronous updates).
#
# **TPUStrategy (4.4).** TPU cores play the replicas; `experimental_distribute_dataset` shards
# the input across cores as it does here; gradients are all-reduced over the TPUs' own
# interconnect (a 2D/3D torus, reduced with ring-like collectives along each dimension). The
# difference: the whole replicated step must be a compiled graph (`tf.function`, compiled by XLA),
# which is the "one graph, one all-reduce node" picture above, compiled instead of interpreted.
# There is no TPU here; the mapping is the picture plus the ring.
#
# | strategy | replicas | gradients meet by | sync | engine analogue |
# |---|---|---|---|---|
# | MirroredStrategy | GPUs of one machine | all-reduce (NCCL) | sync | everything in this lesson |
# | MultiWorkerMirrored | GPUs of many machines (`TF_CONFIG`) | collective all-reduce over network | sync | lesson 55: the ring over gRPC between processes |
# | ParameterServer | workers + parameter servers | push to / pull from servers | async possible | `ReductionToOneDevice`, root = server |
# | TPUStrategy | TPU cores | all-reduce on the TPU interconnect | sync, compiled | `tf.function` step with `MirroredAllReduce` |

# %% [markdown]
# ## Exercises (self-checked)
# Fill in each function in the cell below (replace `raise NotImplementedError()`), then run the
# self-check cell after it: it says, exercise by exercise, what is right and what is not yet.
#
# 1. **Loss scaling (4.1, 4.5)**: `distributed_gradient(strategy, w0, x, y)`. Create a variable
#    `w = tf.Variable(w0)` the way a model must be created for `strategy`; distribute the global
#    batch `(x, y)` (one batch of `len(x)` examples) with `experimental_distribute_dataset`; on
#    every replica compute the gradient of the squared error `sum((x @ w - y)**2, axis=1)` averaged
#    over the **global** batch, and all-reduce it (SUM). Return `(w, grads)`, `grads` a list of
#    every replica's all-reduced gradient as NumPy arrays. Each must equal the one-device gradient
#    of the mean loss, also when the batch does not split evenly (10 examples over 4 replicas).
# 2. **MultiWorkerMirroredStrategy's `TF_CONFIG` (4.2)**: `parse_tf_config(tf_config,
#    gpus_per_worker, per_replica_batch)`. `tf_config` is the JSON string each process finds in its
#    `TF_CONFIG` variable: `"cluster"` maps each job (`"chief"`, `"worker"`) to its list of
#    `"host:port"` addresses (the same on every machine); `"task"` says which entry of it *this*
#    process is (`"type"`, `"index"`, the only part that differs between machines). Return a dict:
#    * `"address"`: this task's own address;
#    * `"is_chief"`: TF's rule: the `chief` task, or, when the cluster has no `"chief"` job,
#      worker 0 (the chief also saves checkpoints and writes summaries);
#    * `"worker_id"`: this task's rank among all training tasks, as TF numbers them: the chief is
#      0 and, after it, worker *i* is *i* + (number of chiefs);
#    * `"num_replicas"`: every training task (the chief trains too) times `gpus_per_worker`;
#    * `"global_batch"`: the global batch that `per_replica_batch` examples per replica make.
# 3. **ParameterServerStrategy's asynchronous updates, simulated (4.3)**: the engine has no
#    parameter servers, so we play one. `async_parameter_server(loss_fn, w0, lr, schedule)` keeps the
#    variables in one `tf.Variable` (the server) and replays `schedule`, a list of events
#    `("pull", k)` (worker `k` reads the current variables: a *copy*, not the variable itself;
#    `tf.identity(server)` is one, and the tape must `watch` it) and `("push", k)` (worker `k` sends
#    the gradient of `loss_fn` taken *at the values it pulled*, and the server at once applies
#    `w -= lr * gradient`, without waiting for anyone). Every pull of a worker is followed by exactly
#    one push of the same worker. Return `(w, staleness)`: the server's final value (NumPy) and, for
#    each push in order, how many updates *other* pushes had applied to the server between that
#    worker's pull and its push (0 in synchronous training). (In TF 2 the worker's step function
#    itself runs the optimizer's update on the servers' variables, dispatched by a
#    `ClusterCoordinator`; the arithmetic is the same.)
# 4. **A TPUStrategy-style compiled step (4.4, 4.5)**: `train_epoch_compiled(strategy)`. TPUStrategy
#    runs replicated steps only when compiled: `strategy.run` inside a `tf.function`. Do the same
#    with the engine's `MirroredStrategy` on 8 logical devices (8 TPU cores): build `create_model()`
#    with the weights `W0` and an `SGD(LR)` optimizer (where must they be created?), let the strategy
#    shard `dataset` (global batch `GLOBAL_BATCH`, 8 examples per core), and define `step(x, y)`,
#    a `tf.function` that runs one training step on every replica with `strategy.run` (the loss of
#    the "Training" section, scaled by the global batch) and aggregates the replicas' losses into the
#    global loss with `strategy.reduce`. Run it over one epoch of `dataset`. Return
#    `(model, losses, step)`, `losses` the global loss of each step as floats. It must reach the same
#    losses and weights as one epoch on one device (`train(0, epochs=1)`). What is simulated: the
#    engine traces the step into one graph (the check looks for ops on all 8 devices and the
#    all-reduce node); a TPU would also compile that graph with XLA and all-reduce over its
#    interconnect.

# %% nbgrader={"grade": false, "grade_id": "ex50", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["4.1", "4.2", "4.3", "4.4", "4.5"]
strategy8 = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(8)])   # 8 "TPU cores"


def distributed_gradient(strategy, w0, x, y):
    # YOUR CODE HERE
    raise NotImplementedError()


def parse_tf_config(tf_config, gpus_per_worker, per_replica_batch):
    # YOUR CODE HERE
    raise NotImplementedError()


def async_parameter_server(loss_fn, w0, lr, schedule):
    # YOUR CODE HERE
    raise NotImplementedError()


def train_epoch_compiled(strategy):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% nbgrader={"grade": false, "grade_id": "check50", "locked": true, "schema_version": 3, "solution": false, "task": false}
from autograder.selfcheck import check, run_checks


def _check_gradient():
    rng_c = np.random.default_rng(50)
    for n, batch in [(1, 8), (4, 16), (4, 10)]:
        s_n = strategy4 if n == 4 else tf.distribute.MirroredStrategy(["/cpu:0"])
        w0 = rng_c.normal(size=(3, 2)).astype(np.float32)
        x = rng_c.normal(size=(batch, 3)).astype(np.float32)
        y = rng_c.normal(size=(batch, 2)).astype(np.float32)
        w, grads = distributed_gradient(s_n, w0, x, y)
        check(isinstance(w, tf.distribute.MirroredVariable),
              f"w is a {type(w).__name__}: create it inside `strategy.scope()` so that it is mirrored")
        check(len(w.values) == n, f"w has {len(w.values)} copies on {n} replicas: use the `strategy` passed in")
        check(len(grads) == n, f"expected one gradient per replica ({n}), got {len(grads)}")
        true = 2 * x.T @ (x @ w0 - y) / batch                   # d/dw of mean_i sum_j (x w - y)_ij^2
        grads = [np.asarray(g) for g in grads]
        for i, g in enumerate(grads):
            check(g.shape == true.shape, f"replica {i}'s gradient has shape {g.shape}, expected {true.shape}")
        check(all(np.allclose(g, grads[0], atol=1e-6) for g in grads),
              f"{n} replicas: the replicas' gradients differ: each holds only its slice's share until you "
              f"all-reduce them (SUM) with the replica context")
        ratio = float(np.linalg.norm(grads[0]) / np.linalg.norm(true))
        where = f"{n} replica(s), global batch {batch}: the all-reduced gradient is {ratio:.3f} x the one-device one"
        check(n == 1 or not np.isclose(ratio, n, rtol=1e-3),
              f"{where}: each replica divided its loss by its own slice (reduce_mean), or got the whole global "
              f"batch (the dataset not distributed); divide the summed per-example loss by the GLOBAL batch")
        check(np.allclose(grads[0], true, rtol=1e-4, atol=1e-5),
              f"{where}, and not equal to it: use `compute_average_loss(..., global_batch_size=len(x))` (without "
              f"`global_batch_size` it divides by the slice times N, wrong when the slices differ)")


def _check_tf_config():
    port, gpus, per_replica = 2222 + int(np.random.default_rng().integers(100)), 4, 16
    workers = [f"worker{i}.example:{port}" for i in range(3)]
    chief = [f"chief0.example:{port}"]

    def parse(cluster, kind, index):
        os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": kind, "index": index}})
        try:
            return parse_tf_config(os.environ["TF_CONFIG"], gpus, per_replica)
        finally:
            del os.environ["TF_CONFIG"]

    cases = [({"worker": workers}, "worker", 1, workers[1], False, 1, 3),
             ({"worker": workers}, "worker", 0, workers[0], True, 0, 3),
             ({"chief": chief, "worker": workers}, "worker", 0, workers[0], False, 1, 4),
             ({"chief": chief, "worker": workers}, "worker", 2, workers[2], False, 3, 4),
             ({"chief": chief, "worker": workers}, "chief", 0, chief[0], True, 0, 4)]
    for cluster, kind, index, address, chief_, rank, tasks in cases:
        where = f"cluster {sorted(cluster)} ({tasks} training tasks), task {kind} {index}"
        got = parse(cluster, kind, index)
        check(isinstance(got, dict), f"return a dict, not {type(got).__name__}")
        check(got.get("address") == address, f"{where}: address should be {address!r}, got {got.get('address')!r}")
        check(got.get("is_chief") == chief_, f"{where}: is_chief should be {chief_} (the chief job if there is "
                                              f"one, else worker 0), got {got.get('is_chief')!r}")
        check(got.get("worker_id") == rank, f"{where}: worker_id should be {rank} (the chief is 0, then the "
                                            f"workers), got {got.get('worker_id')!r}")
        check(got.get("num_replicas") == tasks * gpus,
              f"{where}, {gpus} GPUs each: num_replicas should be {tasks} x {gpus} = {tasks * gpus} (the chief "
              f"trains too), got {got.get('num_replicas')!r}")
        check(got.get("global_batch") == tasks * gpus * per_replica,
              f"{where}: {per_replica} examples on each of {tasks * gpus} replicas make a global batch of "
              f"{tasks * gpus * per_replica}, got {got.get('global_batch')!r}")


def _check_async():
    scale, target, lr = np.array([1.0, 4.0], np.float32), np.array([2.0, -1.0], np.float32), 0.1
    w0 = np.zeros(2, np.float32)
    loss_fn = lambda w: 0.5 * tf.reduce_sum(scale * (w - target) ** 2)
    grad = lambda w: scale * (w - target)

    def reference(schedule):                       # the same replay in NumPy
        w, updates, pulled, stale = w0.copy(), 0, {}, []
        for event, k in schedule:
            if event == "pull":
                pulled[k] = (w.copy(), updates)
            else:
                wk, seen = pulled.pop(k)
                w = w - lr * grad(wk)
                stale.append(updates - seen)
                updates += 1
        return w, stale

    def current_value_sgd(schedule):               # the typical mistake: each gradient at the current w
        w = w0.copy()
        for event, _ in schedule:
            if event == "push":
                w = w - lr * grad(w)
        return w

    sync = [(e, k) for _ in range(3) for k in range(3) for e in ("pull", "push")]
    rng_c = np.random.default_rng()
    holding, steps, shuffled = set(), {k: 0 for k in range(4)}, []
    while len(shuffled) < 2 * 4 * 5:               # 4 workers, 5 steps each, in a random interleaving
        k = int(rng_c.choice([k for k in range(4) if steps[k] < 5 or k in holding]))
        if k in holding:
            shuffled.append(("push", k)); holding.discard(k); steps[k] += 1
        else:
            shuffled.append(("pull", k)); holding.add(k)
    all_at_once = [("pull", k) for k in range(3)] + [("push", k) for k in range(3)]
    for name, schedule in [("synchronous (pull, push, one worker at a time)", sync),
                           ("3 workers pull, then all 3 push", all_at_once),
                           ("a random interleaving of 4 workers", shuffled)]:
        w, stale = async_parameter_server(loss_fn, w0, lr, schedule)
        w_ref, stale_ref = reference(schedule)
        check(list(stale) == stale_ref, f"{name}: staleness should be {stale_ref}, got {list(stale)}")
        fresh = current_value_sgd(schedule)
        check(np.allclose(w, w_ref, atol=1e-5),
              f"{name}: final w should be {w_ref}, got {np.asarray(w)}"
              + (" -- that is plain SGD: take each gradient at the values the worker PULLED (a copy, e.g. "
                 "tf.identity(server)), not at the server's current values" if np.allclose(w, fresh, atol=1e-5)
                 and not np.allclose(w_ref, fresh, atol=1e-5) else ""))


def _check_compiled():
    model, losses, step = train_epoch_compiled(strategy8)
    check(hasattr(step, "get_concrete_function"),
          "step must be a tf.function (decorate it with @tf.function): TPUStrategy runs compiled steps only")
    kernel = model.layers[0].kernel
    check(isinstance(kernel, tf.distribute.MirroredVariable) and len(kernel.values) == 8,
          f"the model's kernel is a {type(kernel).__name__}: build the model (and the optimizer) inside "
          f"`strategy.scope()`")
    ref_weights, ref_losses = train(0, epochs=1)
    check(len(losses) == len(ref_losses), f"one epoch of `dataset` is {len(ref_losses)} steps, got {len(losses)} losses")
    ratio = float(losses[0]) / ref_losses[0]
    hint = {8: "8 x: each replica divided its loss by its own 8 examples (reduce_mean), or got the whole global "
               "batch (distribute `dataset` with the strategy)",
            1 / 8: "1/8: reduce the replicas' losses with SUM (each is already divided by the global batch), "
                   "not MEAN"}
    why = next((h for r, h in hint.items() if np.isclose(ratio, r, rtol=1e-3)),
               f"{ratio:.3f} x: start from W0, use SGD(LR) and the loss of the Training section, scaled by "
               f"GLOBAL_BATCH")
    check(np.allclose(losses, ref_losses, rtol=1e-4),
          f"losses {np.round(losses, 4).tolist()} should be the one-device losses "
          f"{np.round(ref_losses, 4).tolist()}; the first is {why}")
    diff = max(float(np.abs(a - b).max()) for a, b in zip(model.get_weights(), ref_weights))
    check(diff < 1e-5, f"after one epoch the weights differ from one device's by up to {diff:.2e}")
    xd, yd = next(iter(strategy8.experimental_distribute_dataset(dataset)))
    ops = step.get_concrete_function(xd, yd).graph.get_operations()
    devices = {op.device.split("/")[-1] for op in ops if "CPU" in op.device}
    check(len(devices) == 8, f"the traced step places ops on {len(devices)} devices, expected all 8: call "
                             f"`strategy.run` inside the tf.function")
    check(any(op.type == "MirroredAllReduce" for op in ops), "the traced step has no all-reduce node")


run_checks({"1. distributed_gradient, scaled by the global batch (4.1, 4.5)": _check_gradient,
            "2. parse_tf_config (4.2)": _check_tf_config,
            "3. async_parameter_server, stale gradients (4.3)": _check_async,
            "4. train_epoch_compiled on 8 replicas (4.4, 4.5)": _check_compiled})

# %% [markdown]
# ## Interview question
# > *"In large-model training, how does TensorFlow support distributed training? What strategies
# > are there?"*
#
# Runnable answer: one API, `tf.distribute.Strategy`. MirroredStrategy: a full model copy per
# device, the global batch split across them, gradients all-reduced every step (NCCL's ring on
# GPUs: 2(N−1)/N·size per device), identical updates. MultiWorkerMirrored: the same across machines
# (`TF_CONFIG`). ParameterServer: variables on servers, workers push gradients, possibly
# asynchronously. TPUStrategy: the same on TPU cores, compiled. And the correction to "no code
# changes": build the model and optimizer in `scope()`, distribute the dataset, and divide the loss
# by the **global** batch size.

# %%
answer = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"],
                                        cross_device_ops=tf.distribute.RingAllReduce())
with answer.scope():
    w_answer = tf.Variable(np.zeros((8, 1), np.float32))       # a MirroredVariable: 4 copies


def answer_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(tf.reduce_sum((x @ w_answer - y) ** 2, axis=1),
                                          global_batch_size=GLOBAL_BATCH)
    g = tf.distribute.get_replica_context().all_reduce("SUM", tape.gradient(loss, w_answer))
    w_answer.assign_sub(0.1 * g)
    return loss


with tf.distribute.record_all_reduce() as answer_log:
    for xa, ya in answer.experimental_distribute_dataset(dataset):
        answer.run(answer_step, args=(xa, ya))
print("copies identical:", all(np.array_equal(c.numpy(), w_answer.values[0].numpy()) for c in w_answer.values))
print(answer_log[-1].table().splitlines()[0])
print("bytes sent per device:", answer_log[-1].bytes_sent(), "= ring bound", answer_log[-1].ring_bound())

# %% [markdown]
# ## Build it yourself
#
# **A5, all-reduce and data parallelism** (20 points, 4–6 h): the ring all-reduce (reduce-scatter,
# then all-gather), TF's hierarchical all-reduce, and a data-parallel training loop with the loss
# scaled by the global batch size, plugged into `MirroredStrategy` through the `all_reduce` seam.
#
# Fetch it from the *Assignment List* (Nbgrader menu): it lands in a folder of its name in the course
# root. Work there, and check your work with `python -m autograder check <name>.ipynb` in that folder.
