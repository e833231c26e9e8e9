"""A5's harness (sandbox side): run the student's all-reduce pieces and training loop inside MirroredStrategy.

Every all-reduce runs the real path: ``strategy.run`` on N logical CPUs, each replica calling
``get_replica_context().all_reduce("SUM", tensors)``, with the student's algorithm in the
``all_reduce`` seam (``engine.seams.using``). The engine's own algorithms are absent here (see
``assignments/a5.py``), so nothing else can sum. Tasks 1 and 2 are graded on their own: the
harness completes the reduce-scatter (task 1) or prepares the all-gather's input (task 2) itself,
with plain NumPy and no ``send``, so the record holds the student's sends only.

The grader process imports :func:`build_model`, :func:`per_example_loss` and
:func:`one_device` to train the same model on one device with the pristine engine.
"""
import numpy as np

from .common import encode

N_DEVICES = 8


def setup(tf, state):
    """Split the CPU into 8 logical devices before anything starts the runtime (the setup cell does it too)."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    try:
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * N_DEVICES)
    except RuntimeError:
        pass


def _strategy(tf, state, n):
    """One MirroredStrategy at a time (each holds n replica threads): reuse it for cases with the same n."""
    held = state.get("a5_strategy")
    if held is not None and held.num_replicas_in_sync == n:
        return held
    if held is not None:
        pool = getattr(held, "_replica_pool", None)
        if pool is not None:
            pool.shutdown()
            for t in pool.threads:
                t.join(timeout=2.0)
    state["a5_strategy"] = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])
    return state["a5_strategy"]


def case_arrays(case):
    """``arrays[r][k]``: replica r's tensor k, as NumPy, from the case."""
    return [[np.asarray(flat, dtype=t["dtype"]).reshape(t["shape"]) for flat, t in zip(replica, case["tensors"])]
            for replica in case["values"]]


def _record(r):
    return {"algorithm": r.algorithm, "dtype": r.dtype, "elements": r.num_elements,
            "steps": [[s.phase, [[x.src, x.dst, x.chunk, x.elements] for x in s.sends]] for s in r.steps]}


def run_all_reduce(tf, state, case, algorithm):
    """All-reduce (SUM) the case's tensors in ``strategy.run`` with ``algorithm`` in the seam."""
    from engine import seams
    n = case["n"]
    strategy = _strategy(tf, state, n)
    arrays = case_arrays(case)
    inputs = []
    for r in range(n):
        with tf.device(f"/cpu:{r}"):
            inputs.append([tf.constant(a.copy()) for a in arrays[r]])
    per_replica = strategy.experimental_distribute_values_from_function(
        lambda c: list(inputs[c.replica_id_in_sync_group]))

    def replica_fn(values):
        return tf.distribute.get_replica_context().all_reduce("SUM", list(values))

    with tf.distribute.record_all_reduce() as log, seams.using(all_reduce=algorithm):
        out = strategy.run(replica_fn, args=(per_replica,))
    out = out if isinstance(out, (list, tuple)) else [out]
    results = [[t.numpy() for t in strategy.experimental_local_results(v)] for v in out]   # [k][r]
    intact = all(np.array_equal(np.asarray(inputs[r][k].numpy()), arrays[r][k])
                 for r in range(n) for k in range(len(arrays[r])))
    return {"values": [[encode(results[k][r]) for k in range(len(results))] for r in range(n)],
            "dtypes": [[np.asarray(results[k][r]).dtype.name for k in range(len(results))] for r in range(n)],
            "records": [_record(r) for r in log], "intact": bool(intact)}


def _check_work(what, work, n, sizes):
    """A clear error when ``work`` is not N lists of N chunks of the sizes ``chunk_bounds`` gives."""
    if not isinstance(work, (list, tuple)) or len(work) != n or not all(
            isinstance(row, (list, tuple)) and len(row) == n for row in work):
        raise ValueError(f"{what} must return work: a list of {n} lists (one per device) of {n} chunks each")
    for i, row in enumerate(work):
        for c, part in enumerate(row):
            size = getattr(part, "size", None)
            if size is not None and size != sizes[c]:
                raise ValueError(f"{what} returned device {i}'s chunk {c} with {size} elements, but chunk_bounds "
                                 f"makes chunk {c} {sizes[c]} elements long")


class YourReduceScatter:
    """Task 1: your reduce-scatter, then every device takes chunk c from its owner (c-1) mod N (no send)."""

    def __init__(self, reduce_scatter, chunk_bounds):
        self.reduce_scatter = reduce_scatter
        self.chunk_bounds = chunk_bounds

    def all_reduce_sum(self, buffers, devices):
        n = len(devices)
        work = self.reduce_scatter(list(buffers), list(devices))
        _check_work("reduce_scatter", work, n, self.chunk_bounds(buffers[0].size, n)[1])
        total = np.concatenate([np.asarray(work[(c - 1) % n][c]) for c in range(n)])
        return [d.put(total.copy()) for d in devices]


class YourAllGather:
    """Task 2: the state a reduce-scatter leaves (device i: chunk (i+1) mod N complete; its own values elsewhere),
    made without sends, then your all-gather."""

    def __init__(self, all_gather, chunk_bounds):
        self.all_gather = all_gather
        self.chunk_bounds = chunk_bounds

    def all_reduce_sum(self, buffers, devices):
        n = len(devices)
        offsets, sizes = self.chunk_bounds(buffers[0].size, n)
        total = buffers[0]
        for b in buffers[1:]:
            total = total + b
        work = [[(total if c == (i + 1) % n else buffers[i])[o:o + s] for c, (o, s) in enumerate(zip(offsets, sizes))]
                for i in range(n)]
        work = self.all_gather(work, list(devices))
        _check_work("all_gather", work, n, sizes)
        return [np.concatenate([np.asarray(part) for part in row]) for row in work]


def h_reduce_scatter(tf, ctx, ns, case, state):
    from engine.distribute.cross_device_ops import chunk_bounds
    return run_all_reduce(tf, state, case, YourReduceScatter(ns["reduce_scatter"], chunk_bounds))


def h_all_gather(tf, ctx, ns, case, state):
    from engine.distribute.cross_device_ops import chunk_bounds
    return run_all_reduce(tf, state, case, YourAllGather(ns["all_gather"], chunk_bounds))


def h_hierarchical(tf, ctx, ns, case, state):
    return run_all_reduce(tf, state, case, ns["HierarchicalAllReduce"])


# --------------------------------------------------------------------------------------------
# Task 4: the training loop
# --------------------------------------------------------------------------------------------
def build_model(tf, weights):
    """The model every training case uses: Dense(tanh) then Dense, with the given initial weights."""
    kernel0 = np.asarray(weights[0])
    model = tf.keras.Sequential([tf.keras.Input(shape=(kernel0.shape[0],)),
                                 tf.keras.layers.Dense(kernel0.shape[1], activation="tanh"),
                                 tf.keras.layers.Dense(np.asarray(weights[2]).shape[1])])
    model.set_weights([np.asarray(w, dtype=np.float32) for w in weights])
    return model


def per_example_loss(tf, model, x, y):
    return tf.reduce_sum((model(x) - y) ** 2, axis=1)


def train_data(case):
    shape = case["x_shape"]
    x = np.asarray(case["x"], dtype=np.float32).reshape(shape)
    y = np.asarray(case["y"], dtype=np.float32).reshape(shape[0], -1)
    weights = [np.asarray(w["data"], dtype=np.float32).reshape(w["shape"]) for w in case["weights"]]
    return x, y, weights


def one_device(tf, case):
    """The reference: the same training on one device, no strategy (loss: the mean over each batch)."""
    x, y, weights = train_data(case)
    model = build_model(tf, weights)
    optimizer = tf.keras.optimizers.SGD(case["lr"])
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(case["batch"])
    losses = []
    for _ in range(case["epochs"]):
        for bx, by in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(per_example_loss(tf, model, bx, by))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            losses.append(float(loss))
    return {"weights": [encode(w) for w in model.get_weights()], "losses": losses}


def h_train(tf, ctx, ns, case, state):
    from engine import seams
    x, y, weights = train_data(case)
    strategy = _strategy(tf, state, case["n"])
    with strategy.scope():
        model = build_model(tf, weights)
        optimizer = tf.keras.optimizers.SGD(case["lr"])
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(case["batch"])
    with seams.using(all_reduce=ns["StudentRing"]):
        losses = ns["train"](strategy, model, optimizer, dataset, case["batch"], case["epochs"])
    losses = [float(v) for v in losses] if isinstance(losses, (list, tuple)) else "not a list"
    copies = [[np.asarray(c.numpy()) for c in getattr(v, "values", (v,))] for v in model.weights]
    spread = max((float(np.max(np.abs(c - cs[0]), initial=0.0)) for cs in copies for c in cs), default=0.0)
    return {"weights": [encode(cs[0]) for cs in copies], "losses": losses, "spread": spread}


HARNESS = {"reduce_scatter": h_reduce_scatter, "all_gather": h_all_gather, "hierarchical": h_hierarchical,
           "train": h_train}
