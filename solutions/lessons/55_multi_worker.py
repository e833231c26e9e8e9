# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 55. Training across processes: MultiWorkerMirroredStrategy and parameter servers (syllabus 4.2–4.4)
#
# Lesson 50 kept every replica in one process. `MultiWorkerMirroredStrategy` (MWMS) is the same
# synchronous data parallelism across **processes**, the *workers* of a cluster, usually one per
# machine, each with its own devices. Nothing is shared: each worker holds its own copy of the
# variables, and the gradients meet over the network, in an all-reduce between the workers' gRPC
# servers. Three things change from lesson 50:
#
# * **Every worker runs the same script.** Nobody calls the workers from a central process; a
#   cluster manager (Kubernetes, Slurm, or here the engine's launcher) starts one copy per worker.
# * **`TF_CONFIG`** tells each copy the cluster (every task's `host:port`) and which task it is.
# * **The all-reduce crosses processes**: TF's collective ops, `RING` (TF's ring algorithms over
#   gRPC) or `NCCL` (GPUs). The engine's is a ring all-reduce over gRPC that records every send.
#
# In this lesson two real processes train on this machine (127.0.0.1), talking over gRPC. We check
# that they end with the weights one process gets on the same global batch, and draw who sent how
# many bytes to whom. The first cell also splits this process's CPU into 4 logical devices, for the
# TPU section at the end (it must happen before anything initializes the runtime).

# %%
import importlib.util
import json
import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

import engine as tf
from engine import viz
from engine.distribute import launch
from engine.distribute.collective_log import CollectiveRecord, merge_records

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 4)
WORKDIR = tempfile.mkdtemp(prefix="lesson55_")
print("scratch folder for the workers:", WORKDIR)

# %% [markdown]
# ## The worker script
# This is the program every worker runs. A custom training loop of a small MLP: the model is built in
# `strategy.scope()`, the dataset of global batches goes through `experimental_distribute_dataset`,
# which shards it across the workers as TF does (for an in-memory dataset, `AutoShardPolicy.DATA`:
# worker k gets the k-th contiguous piece of every global batch), the per-replica loss is
# `compute_average_loss(per_example_loss, global_batch_size=GLOBAL_BATCH)`, that is
# `sum(per_example_loss) / GLOBAL_BATCH` (TF's definition), and the gradients are all-reduced (SUM)
# before the update. So the summed update is the gradient of the mean over the *global* batch.
#
# Two details make the check below mean something:
#
# * each worker starts its variables from **its own** random seed (`100 + task index`). MWMS, like
#   TF's, broadcasts the chief's initial values when the variables are created, so all must end up
#   with the chief's;
# * `train(None)` is the same loop without a strategy, on whole global batches: the notebook
#   imports the script and runs it as the one-process reference.
#
# Each worker writes what it saw (its `TF_CONFIG`, its weights, its losses, the records of every
# all-reduce it took part in) into the scratch folder.

# %%
WORKER = r'''
"""One worker of lesson 55: python worker.py OUT_DIR (the launcher sets TF_CONFIG)."""
import json, os, sys
import numpy as np
import engine as tf

GLOBAL_BATCH, STEPS, LR, SIZES = 24, 6, 0.05, (6, 32, 1)


def batches():                      # the same global batches on every worker (and in the notebook)
    rng = np.random.default_rng(55)
    for _ in range(STEPS):
        x = rng.normal(size=(GLOBAL_BATCH, SIZES[0])).astype(np.float32)
        yield x, np.sin(x.sum(axis=1, keepdims=True)).astype(np.float32)


def initial_values(seed):
    rng = np.random.default_rng(seed)
    return [v for a, b in zip(SIZES[:-1], SIZES[1:])
            for v in ((rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32), np.zeros(b, np.float32))]


def train(strategy=None, seed=0):
    """(initial weights, final weights, global loss per step); strategy None: one process, global batches."""
    with (strategy.scope() if strategy else tf.distribute.get_strategy().scope()):
        params = [tf.Variable(v) for v in initial_values(seed)]
    start = [p.numpy() for p in params]

    def step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(x @ params[0] + params[1])
            per_example = tf.reduce_sum((h @ params[2] + params[3] - y) ** 2, axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, params)
        if strategy:
            grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        for p, g in zip(params, grads):
            p.assign_sub(LR * g)
        return loss

    losses = []
    if strategy is None:
        for x, y in batches():
            losses.append(float(step(x, y)))
        return start, [p.numpy() for p in params], losses
    xs, ys = zip(*batches())
    dataset = tf.data.Dataset.from_tensor_slices((np.concatenate(xs), np.concatenate(ys))).batch(GLOBAL_BATCH)
    # auto-sharded (AutoShardPolicy DATA for an in-memory dataset): this worker gets its contiguous piece
    # of every global batch, and each of its replicas a piece of that
    for x, y in strategy.experimental_distribute_dataset(dataset):
        per_replica = strategy.run(step, args=(x, y))
        losses.append(float(strategy.reduce("SUM", per_replica, axis=None)))    # the global mean loss
    return start, [p.numpy() for p in params], losses


if __name__ == "__main__":
    out = sys.argv[1]
    strategy = tf.distribute.MultiWorkerMirroredStrategy()    # reads TF_CONFIG, starts this task's server
    rank = strategy.cluster_resolver.task_id
    with tf.distribute.record_all_reduce() as log:
        start, weights, losses = train(strategy, seed=100 + rank)
    np.savez(os.path.join(out, f"worker{rank}.npz"), *start, *weights)
    with open(os.path.join(out, f"worker{rank}.json"), "w") as f:
        json.dump({"TF_CONFIG": os.environ["TF_CONFIG"], "replicas": strategy.num_replicas_in_sync,
                   "device": strategy.extended.worker_devices[0], "chief": strategy.extended.should_checkpoint,
                   "losses": losses, "records": [r.to_dict() for r in log if hasattr(r, "to_dict")]}, f)
    print(f"{strategy.extended.worker_devices[0]}: {len(losses)} steps, last loss {losses[-1]:.4f}", flush=True)
'''
script = os.path.join(WORKDIR, "worker.py")


def write_worker_script():
    os.makedirs(WORKDIR, exist_ok=True)
    with open(script, "w") as f:
        f.write(WORKER)


write_worker_script()
spec = importlib.util.spec_from_file_location("worker", script)
worker = importlib.util.module_from_spec(spec)
spec.loader.exec_module(worker)               # the notebook's own copy: for the one-process reference
print(f"wrote {script} ({len(WORKER.splitlines())} lines)")

# %% [markdown]
# ## Launch two workers
# `python -m engine.distribute.launch --workers 2 worker.py OUT` picks two free ports on 127.0.0.1,
# starts one process per worker with its own `TF_CONFIG`, prefixes each line a worker prints with
# its name, and stops them all if one fails (otherwise the survivors would wait for the dead one in
# their next all-reduce). Each worker's `MultiWorkerMirroredStrategy()` reads its `TF_CONFIG`, starts
# its gRPC server at its own address and connects to the others.

# %%
def run_workers(n):
    write_worker_script()                       # (again, in case the last cell has cleaned up)
    out = tempfile.mkdtemp(prefix=f"{n}workers_", dir=WORKDIR)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "engine.distribute.launch", "--workers", str(n), "--timeout", "40",
                           script, out], capture_output=True, text=True, timeout=50)
    seconds = time.perf_counter() - t0
    print(done.stderr.strip())
    print(done.stdout.strip())
    if done.returncode != 0:
        raise RuntimeError(f"the launcher exited with status {done.returncode}")
    results = []
    for rank in range(n):
        with open(os.path.join(out, f"worker{rank}.json")) as f:
            summary = json.load(f)
        arrays = np.load(os.path.join(out, f"worker{rank}.npz"))
        k = len(arrays.files) // 2
        summary["start"] = [arrays[f"arr_{i}"] for i in range(k)]
        summary["weights"] = [arrays[f"arr_{i}"] for i in range(k, 2 * k)]
        results.append(summary)
    print(f"{n} workers: {seconds:.1f} s from launch to exit, process start-up included")
    return results


two = run_workers(2)

# %% [markdown]
# ## What each worker found in `TF_CONFIG`
# The same `"cluster"` on every worker; only `"task"` differs. This is TF's format
# (`{"cluster": {"worker": ["host:port", ...]}, "task": {"type": "worker", "index": i}}`, as in the
# `MultiWorkerMirroredStrategy` docstring). With no `"chief"` job, worker 0 is the chief: it trains
# like the others, and its `extended.should_checkpoint` is the only true one. (In TF every worker
# still calls `save`, because saving may run collectives that need everyone; only the chief's copy
# goes to the real path, the others write to temporary folders they delete.)

# %%
for summary in two:
    print(summary["TF_CONFIG"])
for rank, summary in enumerate(two):
    print(f"worker {rank}: {summary['device']}, replicas in sync = {summary['replicas']}, "
          f"chief = {summary['chief']}")
configs = [json.loads(s["TF_CONFIG"]) for s in two]
same_cluster = all(c["cluster"] == configs[0]["cluster"] for c in configs)
print("the same cluster on every worker:", same_cluster, "| tasks:", [c["task"] for c in configs])

# %% [markdown]
# ## Two workers, one process: the same weights
# The reference: the same script's `train(None, seed=100)` in this notebook, one process, the whole
# global batch at each step, starting from the chief's (worker 0's) seed.

# %%
ref_start, ref_weights, ref_losses = worker.train(None, seed=100)
own_start = worker.initial_values(101)               # what worker 1 would have started from on its own
for rank, s in enumerate(two):
    print(f"worker {rank}: initial kernel equals the chief's: {np.array_equal(s['start'][0], ref_start[0])}"
          f" (its own seed's would differ by {np.abs(own_start[0] - ref_start[0]).max():.2f})")
diffs = [max(float(np.abs(a - b).max()) for a, b in zip(s["weights"], ref_weights)) for s in two]
identical = all(np.array_equal(a, b) for a, b in zip(two[0]["weights"], two[1]["weights"]))
loss_diff = max(abs(a - b) for s in two for a, b in zip(s["losses"], ref_losses))
for rank, d in enumerate(diffs):
    print(f"worker {rank}: max |w - w_one_process| = {d:.1e}")
print("the two workers' weights are identical to the bit:", identical)
print(f"max |loss - loss_one_process| over {len(ref_losses)} steps = {loss_diff:.1e}")
verdict = "the same as" if max(diffs) < 1e-5 and identical else "NOT the same as"
print(f"conclusion: 2 workers on half the batch each end {verdict} one process on the whole batch "
      f"(differences up to {max(diffs):.0e}: float rounding, the sums are added in another order)")

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(ref_losses, "k-", lw=4, alpha=0.3, label="one process, global batch")
for rank, s in enumerate(two):
    ax.plot(s["losses"], "o--", ms=4, label=f"worker {rank} (reduced global loss)")
ax.set_xlabel("step"); ax.set_ylabel("loss (mean over the global batch)"); ax.legend(fontsize=8)
ax.set_title("Two processes, one training run"); plt.show()

# %% [markdown]
# ## The all-reduce across processes, from the records
# Each worker recorded only **its** part of each all-reduce: what it sent, to whom, how many bytes,
# when. Put side by side (`merge_records`), the records of one all-reduce show the whole ring. Per
# training step there are two all-reduces: the gradients (all the model's variables packed into one
# buffer) and the loss (`strategy.reduce`, one float). Here is the first gradient all-reduce.

# %%
def merged_all_reduces(results):
    """{instance: merged record} over the workers' records, in the order they ran."""
    by_instance = defaultdict(list)
    for s in results:
        for d in s["records"]:
            by_instance[d["instance"]].append(CollectiveRecord.from_dict(d))
    return {k: merge_records(v) for k, v in sorted(by_instance.items())}


records = merged_all_reduces(two)
n_params = sum(w.size for w in ref_weights)
gradient_records = [r for r in records.values() if r.num_elements == n_params]
loss_records = [r for r in records.values() if r.num_elements == 1]
print(f"{len(records)} all-reduces over {len(ref_losses)} steps: {len(gradient_records)} of the gradients "
      f"({n_params} floats each), {len(loss_records)} of the loss")
print(gradient_records[0].table())


def draw_ring(results, title):
    """Who sent how many bytes to whom, over the whole run (every all-reduce), with the ring's bound."""
    recs = list(merged_all_reduces(results).values())
    n = len(results)
    traffic = defaultdict(lambda: [0, 0])                       # (src, dst) -> [sends, bytes]
    for r in recs:
        for step in r.steps:
            for s in step.sends:
                if s.nbytes:
                    traffic[(s.src, s.dst)][0] += 1
                    traffic[(s.src, s.dst)][1] += s.nbytes
    sent = np.sum([r.bytes_sent() for r in recs], axis=0)
    bound = sum(r.ring_bound() for r in recs)
    addresses = json.loads(results[0]["TF_CONFIG"])["cluster"]["worker"]
    nodes = {f"w{k}": {"label": f"worker {k}\n{addresses[k]}\nsent {sent[k]} B\n(bound {bound:.0f} B)",
                       "kind": "device"} for k in range(n)}
    edges = [(f"w{a}", f"w{b}", f"{c} sends\n{nb} B") for (a, b), (c, nb) in sorted(traffic.items())]
    return viz.draw_graph(nodes, edges, title=title, layout="circo" if n > 2 else None, rankdir="LR"), sent, bound


ring2, sent2, bound2 = draw_ring(two, f"2 workers over gRPC: every all-reduce of the run ({len(records)})")
ring2

# %% [markdown]
# Each worker sends only to its right neighbour in the ring (with 2 workers, to the other one). A
# chunk with no elements is not sent: in the one-float loss all-reduce only chunk 0 travels, which is
# why worker 0 makes more sends than the others on 3 workers. Is
# that the least an all-reduce can send? The ring's bound is 2(N−1)/N·size per worker: in the
# reduce-scatter each worker sends N−1 of the N chunks, in the all-gather N−1 again. We compare the
# bytes each worker actually sent (summed over the run) with the bound, and also run the same script
# on **3** workers, where the ring is a real ring and the global batch of 24 splits 8 + 8 + 8.

# %%
three = run_workers(3)
diffs3 = [max(float(np.abs(a - b).max()) for a, b in zip(s["weights"], ref_weights)) for s in three]
print(f"3 workers: max |w - w_one_process| = {max(diffs3):.1e}")
ring3, sent3, bound3 = draw_ring(three, "3 workers over gRPC: a ring")
display(ring3)
for n, sent, bound in [(2, sent2, bound2), (3, sent3, bound3)]:
    worst = max(abs(int(b) - bound) / bound for b in sent)
    mean = float(np.mean(sent))
    why = (f"; the mean, {mean:.1f} B, {'is' if abs(mean - bound) < 1e-6 else 'is NOT'} the bound (chunks are "
           f"whole floats: when N does not divide the buffer they differ by one float, and each worker skips "
           f"other chunks)") if worst else ""
    print(f"N = {n}: bytes sent per worker {[int(b) for b in sent]}, ring bound 2(N-1)/N x size = {bound:.1f} B "
          f"-> {'exactly the bound' if not worst else f'within {100 * worst:.2f}% of it'}{why}")

# %% [markdown]
# **Payload and wire.** The bytes above are the tensors' bytes. Every message also carries a gRPC
# and protocol header. The records keep the bytes that went on the wire too: for a 1 KB gradient the
# headers are a fraction; for the one-float loss they are nearly all of it. That is why real
# systems pack many small tensors into one buffer before all-reducing (the engine packs all the
# gradients into one; in TF, `tf.distribute.experimental.CommunicationOptions(bytes_per_pack=...)`
# sets the size of the packs).

# %%
local = [CollectiveRecord.from_dict(d) for d in two[0]["records"]]      # worker 0's own records
for name, size in [("gradients", n_params), ("loss", 1)]:
    mine = [r for r in local if r.num_elements == size]
    payload = sum(sum(r.bytes_sent()) for r in mine)
    wire = sum(r.wire_bytes_sent() for r in mine)
    seconds = np.median([r.seconds for r in mine]) * 1e3
    print(f"{name:<9}: worker 0 sent {payload:6d} B of tensors in {wire:6d} B of messages "
          f"(headers {100 * (wire - payload) / wire:4.1f}%), median {seconds:.1f} ms per all-reduce")

# %% [markdown]
# On this machine the "network" is the loopback interface, so the milliseconds measure gRPC's and
# Python's overheads, not a link's bandwidth. On real machines the link is what costs, and the ring
# keeps every worker's traffic at the bound, whatever N (`bench/multi_worker.py` times the engine's
# all-reduce from 1 KB to 64 MB against raw gRPC).
#
# What this lesson's run did not show, and TF does: sharding by *files* (`AutoShardPolicy.FILE`, for a
# dataset read from several files: each worker reads its own files; the engine reads no files, and
# for an in-memory dataset TF falls back to DATA, as above). With several GPUs per worker, TF puts
# every GPU of every worker into one collective group (its size: workers × GPUs per worker), and
# NCCL, or TF's ring, moves the data inside and between the machines; the engine instead sums a
# worker's local devices first, then runs the ring between the workers.
#
# ## Parameter servers (4.3): asynchronous training, run live
# `ParameterServerStrategy` is the other architecture. The variables are not copied into every
# worker: each lives in exactly one place, a **parameter server** (a `"ps"` task; a large variable
# can be split into shards over several). **Workers** run step functions that read the variables,
# compute gradients on their own batches and send updates back. One **coordinator** (the `"chief"`
# task) runs the training program: `ClusterCoordinator.schedule(step)` traces the step, queues it and
# returns at once; each worker takes the next step from the queue as soon as it is free. Nobody
# waits for anybody: training is **asynchronous**. A slow worker does not stall the others; the
# price is *staleness*, gradients computed on values that other workers have updated since they
# were read.
#
# The script below is what every task runs, as in TF's tutorial: workers and parameter servers start
# their server and serve; the chief trains. Worker 1's input pipeline is made slow on purpose
# (`dataset_fn` gets an `InputContext` saying which worker it is for).

# %%
PS_SCRIPT = '''
import json, sys, time
import numpy as np
import engine as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):             # workers and parameter servers only serve
    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                         task_index=resolver.task_id).join()

strategy = tf.distribute.ParameterServerStrategy(resolver)
coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
W_TRUE = np.array([[2.0], [-3.0], [0.5]], np.float32)
with strategy.scope():
    w = tf.Variable(tf.zeros([3, 1]), name="w")         # lives on /job:ps/task:0
    b = tf.Variable(0.0, name="b")


def dataset_fn(input_context):
    slow = input_context.input_pipeline_id == 1        # worker 1's copy of the data comes slowly
    def batches():
        rng = np.random.default_rng(input_context.input_pipeline_id)
        while True:
            if slow:
                time.sleep(0.03)
            x = rng.standard_normal((16, 3)).astype(np.float32)
            yield x, x @ W_TRUE + 1.0
    return tf.data.Dataset.from_generator(batches, output_signature=(
        tf.TensorSpec([16, 3], tf.float32), tf.TensorSpec([16, 1], tf.float32)))


iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))


@tf.function
def step(iterator):
    x, y = next(iterator)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w + b - y) ** 2)
    gw, gb = tape.gradient(loss, [w, b])
    w.assign_sub(0.1 * gw)                              # applied on the parameter server, atomically
    b.assign_sub(0.1 * gb)
    return loss


losses = [coordinator.schedule(step, args=(iterator,)) for _ in range(60)]
coordinator.join()
log = tf.distribute.ps_values.access_log(resolver.cluster_spec().task_address("ps", 0))
json.dump({"devices": [w.device, b.device], "losses": [float(l.fetch()) for l in losses],
           "w": w.numpy().ravel().tolist(), "b": float(b.numpy()),
           "log": [list(a) for a in log]}, open(sys.argv[1], "w"))
'''
ps_script = os.path.join(WORKDIR, "ps_train.py")
with open(ps_script, "w") as f:
    f.write(PS_SCRIPT)
ps_out = os.path.join(WORKDIR, "ps_result.json")
t0 = time.perf_counter()
done = subprocess.run([sys.executable, "-m", "engine.distribute.launch", "--workers", "2", "--ps", "1",
                       "--timeout", "40", ps_script, ps_out], capture_output=True, text=True, timeout=50)
print(done.stderr.strip().splitlines()[0])
if done.returncode != 0:
    raise RuntimeError(done.stdout + done.stderr)
print(f"chief, 2 workers and 1 ps: {time.perf_counter() - t0:.1f} s from launch to exit")
with open(ps_out) as f:
    ps = json.load(f)
print("w and b live on:", ps["devices"])
print("learned w:", np.round(ps["w"], 3), "b:", round(ps["b"], 3), "(the data's: [2, -3, 0.5] and 1)")

# %% [markdown]
# The parameter server recorded every access: who (which worker), which closure, which variable, and
# the variable's *version* (how many updates it had taken). So we can count how many steps each
# worker ran, and how stale each update was: the number of updates *other* workers made to the
# variable between this closure's read and its own update.

# %%
from engine.distribute.ps_values import VariableAccess, staleness

log = [VariableAccess(*a) for a in ps["log"]]
w_key = next(a.key for a in log if a.kind == "create" and a.key.startswith("w"))
worker_of = {a.closure: a.client.split("task:")[1] for a in log if a.closure is not None}
workers = ("0", "1")                                  # the cluster's workers, whether or not both got steps
steps_by = {t: 0 for t in workers}
for closure, task in worker_of.items():
    steps_by[task] += 1
stale = [(worker_of[c], s) for c, key, s in staleness(log) if key == w_key]
stale_by = {t: [s for u, s in stale if u == t] for t in workers}
for t in workers:
    if stale_by[t]:
        print(f"worker {t}: ran {steps_by[t]} of the 60 steps; its updates of w were {np.mean(stale_by[t]):.2f} "
              f"updates stale on average")
    else:   # on a busy machine one worker can take every step before the other is ready: asynchronous
        print(f"worker {t}: ran {steps_by[t]} of the 60 steps, so it made no update of w")
fast, slow = sorted(workers, key=lambda t: -steps_by[t])     # (a tie keeps the order 0, 1)
print(f"worker {fast} did not wait for worker {slow}: it ran {steps_by[fast] / max(steps_by[slow], 1):.1f}x as "
      f"many steps" if steps_by[fast] > steps_by[slow] else "the two workers ran as many steps")
if stale_by[slow] and stale_by[fast]:
    slow_stale, fast_stale = np.mean(stale_by[slow]), np.mean(stale_by[fast])
    print(f"the slow worker's updates were {'staler' if slow_stale > fast_stale else 'not staler'} than the "
          f"fast one's: {slow_stale:.2f} against {fast_stale:.2f} updates")
else:
    print(f"only worker {fast} updated w in this run: no staleness to compare")

# who talked to whom: the chief sent each worker its steps; each worker read and updated the variables
traffic = defaultdict(lambda: [0, 0, 0])              # worker -> [reads, updates, bytes]
for a in log:
    if a.closure is not None:
        entry = traffic[worker_of[a.closure]]
        entry[0 if a.kind == "read" else 1] += 1
        entry[2] += a.nbytes
nodes = {"chief": {"label": "chief (coordinator)\nschedule / join", "kind": "op"},
         "ps0": {"label": f"ps 0\nw, b: {sum(1 for a in log if a.kind != 'read' and a.kind != 'create')} updates",
                 "kind": "var_handle"}}
edges = []
for t in workers:
    nodes[f"w{t}"] = {"label": f"worker {t}", "kind": "device"}
    edges.append(("chief", f"w{t}", f"{steps_by[t]} steps"))
    reads, writes, nbytes = traffic[t]
    edges.append((f"w{t}", "ps0", f"{reads} reads, {writes} updates\n{nbytes} B of values"))
display(viz.draw_graph(nodes, edges, title="the parameter-server run: who talked to whom", rankdir="LR"))

updates = [a for a in log if a.key == w_key and a.kind == "assign_sub"]
t_start = min(a.time for a in updates)
stale_of = {c: s for c, key, s in staleness(log) if key == w_key}
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.2))
for t, color in (("0", "tab:blue"), ("1", "tab:orange")):
    mine = [a for a in updates if worker_of[a.closure] == t]
    ax1.scatter([a.time - t_start for a in mine], [stale_of[a.closure] for a in mine], color=color, s=14,
                label=f"worker {t}")
ax1.set(xlabel="seconds", ylabel="staleness of the update of w", title="each update of w, when it arrived")
ax1.legend()
ax2.plot(ps["losses"], ".-")
ax2.set(xlabel="scheduled step", ylabel="loss", yscale="log", title="loss of each step, as its worker saw it")
plt.tight_layout()
plt.show()

# %% [markdown]
# Why a slow worker's updates tend to be staler: while it computes (or waits for its batch), the fast
# worker keeps updating the variables, so the slow one's gradient is computed on older values
# (compare the two averages printed above, measured in this run). With many workers the
# average staleness grows with their number, which is why asynchronous training often uses smaller
# learning rates, and why synchronous all-reduce (MWMS) is the default on fast networks.
#
# ## TPUStrategy (4.4): what maps onto the engine
# On a TPU the replicas are TPU cores; the input is sharded across them as
# `experimental_distribute_dataset` does; the gradients are all-reduced over the TPUs' own
# interconnect. The difference that matters for your code: `TPUStrategy.run` always turns the step
# into a graph, even when called eagerly (a comment in TF's `tpu_strategy.py` says so), and XLA
# compiles that graph for the cores. What the engine can show is the step it compiles:
# `strategy.run` inside a `tf.function`, replicated over logical devices, with every replica's ops
# placed on its device and one all-reduce node joining them. There is no XLA here: the engine runs
# the traced graph with its executor.

# %%
tpu_like = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(4)])   # 4 "cores"
with tpu_like.scope():
    params = [tf.Variable(v) for v in worker.initial_values(100)]


def core_step(x, y):
    with tf.GradientTape() as tape:
        h = tf.nn.relu(x @ params[0] + params[1])
        per_example = tf.reduce_sum((h @ params[2] + params[3] - y) ** 2, axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=worker.GLOBAL_BATCH)
    grads = tf.distribute.get_replica_context().all_reduce("SUM", tape.gradient(loss, params))
    for p, g in zip(params, grads):
        p.assign_sub(worker.LR * g)
    return loss


@tf.function
def compiled_step(x, y):
    return tpu_like.reduce("SUM", tpu_like.run(core_step, args=(x, y)), axis=None)


batch = tf.data.Dataset.from_tensor_slices(next(worker.batches())).batch(worker.GLOBAL_BATCH)
xd, yd = next(iter(tpu_like.experimental_distribute_dataset(batch)))
first_loss = float(compiled_step(xd, yd))
ops = compiled_step.get_concrete_function(xd, yd).graph.get_operations()
per_device = defaultdict(int)
for op in ops:
    per_device[op.device.split("/")[-1].replace("device:", "") or "(no device)"] += 1
all_reduces = [op for op in ops if op.type == "MirroredAllReduce"]
print("ops per device in the one traced graph:", dict(per_device))
print(f"{len(all_reduces)} all-reduce node(s), {len(all_reduces[0].inputs)} inputs")
print(f"first compiled step's loss {first_loss:.6f}, one process's first step {ref_losses[0]:.6f}: "
      f"{'equal' if abs(first_loss - ref_losses[0]) < 1e-5 else 'different'} (the same start, the same batch)")

# %% [markdown]
# ## Exercise (self-checked)
# Fill in the function in the cell below (replace `raise NotImplementedError()`), then run the
# self-check cell after it.
#
# **The ring's bytes, exactly (4.2).** `ring_bytes_sent(num_elements, itemsize, n)`: the bytes each of
# the `n` workers sends in one ring all-reduce of `num_elements` values of `itemsize` bytes, as a list
# in rank order. The engine's ring (engine/distribute/collective_ring.py) does what the records above
# show:
#
# * the buffer is cut into `n` chunks as evenly as possible, **the first ones one element larger**
#   (257 floats over 3 workers: 86, 86, 85);
# * worker `r` always sends to worker `(r + 1) % n`, one chunk per step;
# * in step `s` (0 … n−2) of the reduce-scatter it sends chunk `(r − s) % n`; in step `s` of the
#   all-gather, chunk `(r + 1 − s) % n`.
#
# Your numbers must be the ones this run's workers recorded (for example 8280, 8256, 8232 bytes over
# the 3-worker run, for the 6 gradient and the 6 loss all-reduces together), and their mean the bound
# 2(N−1)/N·size. Which chunk does each worker never send in each phase?

# %% nbgrader={"grade": false, "grade_id": "ex55", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["4.2"]
def ring_bytes_sent(num_elements, itemsize, n):
    ### BEGIN SOLUTION
    base, extra = divmod(num_elements, n)
    chunks = [(base + 1 if c < extra else base) * itemsize for c in range(n)]
    if n == 1:
        return [0]
    sent = []
    for r in range(n):
        reduce_scatter = sum(chunks[(r - s) % n] for s in range(n - 1))   # every chunk but (r + 1) % n
        all_gather = sum(chunks[(r + 1 - s) % n] for s in range(n - 1))   # every chunk but (r + 2) % n
        sent.append(reduce_scatter + all_gather)
    return sent
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "check55", "locked": true, "schema_version": 3, "solution": false, "task": false}
from autograder.selfcheck import check, run_checks


def _check_ring_bytes():
    def reference(size, itemsize, n):             # replays the schedule above, chunk by chunk
        base, extra = divmod(size, n)
        chunks = [(base + 1 if c < extra else base) * itemsize for c in range(n)]
        return [sum(chunks[(r - s) % n] + chunks[(r + 1 - s) % n] for s in range(n - 1)) for r in range(n)]

    def hint(size, itemsize, n, got):
        total = size * itemsize
        if np.allclose(got, [2 * (n - 1) * total / n] * n):
            return " -- that is the bound 2(N-1)/N x size for every worker: the chunks are whole elements"
        if np.allclose(got, [2 * total] * n):
            return " -- each phase has N-1 steps, not N: in each phase a worker sends every chunk but one"
        return ""

    for runs, n in [(two, 2), (three, 3)]:        # against what the workers of this run recorded
        for r in merged_all_reduces(runs).values():
            expected = ring_bytes_sent(r.num_elements, r.itemsize, n)
            check(len(expected) == n, f"{n} workers: return one number per worker, got {len(expected)}")
            got = r.bytes_sent()
            check([int(b) for b in expected] == got,
                  f"{n} workers, {r.num_elements} x {r.dtype}: the workers sent {got} bytes, you say "
                  f"{list(expected)}{hint(r.num_elements, r.itemsize, n, expected)}")
    rng_c = np.random.default_rng()
    for size, itemsize, n in [(10, 4, 4), (7, 8, 5), (3, 4, 4), (1, 4, 3), (1000, 2, 8),
                              (int(rng_c.integers(1, 500)), 4, int(rng_c.integers(2, 9)))]:
        got = [int(b) for b in ring_bytes_sent(size, itemsize, n)]
        want = reference(size, itemsize, n)
        check(got == want, f"{size} x {itemsize}-byte values over {n} workers: each worker sends {want} bytes, "
                           f"you say {got}{hint(size, itemsize, n, got)}")


run_checks({"1. ring_bytes_sent, chunk by chunk (4.2)": _check_ring_bytes})

# %% [markdown]
# ## Summary
#
# | strategy | replicas | gradients meet by | in this course |
# |---|---|---|---|
# | MirroredStrategy | devices of one process | all-reduce inside the process | lesson 50, live |
# | MultiWorkerMirrored | devices of several processes (`TF_CONFIG`) | all-reduce over gRPC (ring) | this lesson, live: 2 and 3 processes |
# | ParameterServer | workers, ps tasks, a coordinator | updates sent to the servers, asynchronous | this lesson, live: 2 workers, 1 ps, staleness measured |
# | TPUStrategy | TPU cores | all-reduce on the interconnect, compiled step | the traced replicated step above, no XLA |
#
# The training-loop contract is the same everywhere: variables in `scope()`, each replica on its
# slice of the global batch, the loss divided by the **global** batch size, gradients summed.

# %%
print(f"this run: the weights of 2 workers within {max(diffs):.0e} and of 3 workers within {max(diffs3):.0e} of "
      f"one process's; parameter servers: {steps_by[fast]} and {steps_by[slow]} asynchronous steps by the fast "
      f"and the slow worker; "
      f"bytes per worker {[int(b) for b in sent2]} (N=2) and {[int(b) for b in sent3]} (N=3) against ring "
      f"bounds {bound2:.0f} and {bound3:.1f} B")
shutil.rmtree(WORKDIR)                            # the workers' scratch folder: nothing left behind
