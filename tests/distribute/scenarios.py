"""Distribution scenarios, run in a fresh interpreter by ``conftest.py``: ``python scenarios.py GROUP``.

Why a separate process: splitting the CPU into logical devices must happen
before the runtime initializes (before the first tensor exists), once per
process, exactly as in TensorFlow. The pytest process has long been initialized
by other test files, so the scenarios split the CPU into 4 logical devices here,
first thing, then run every scenario of the group and print one JSON object:
``{scenario name: {"value": ...} or {"error": traceback}}``. The tests in this
folder assert on those values (golden values recorded from TensorFlow 2.21).
"""
import json
import os
import sys
import time
import traceback

import numpy as np

import engine as tf
import engine.distribute  # noqa: F401  (binds tf.distribute even before engine/__init__ imports it)

CPU = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(CPU, [tf.config.LogicalDeviceConfiguration()] * 4)

SCENARIOS = {}


def scenario(group):
    def register(fn):
        SCENARIOS.setdefault(group, {})[fn.__name__] = fn
        return fn
    return register


def mirrored(n, algorithm=None):
    return tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)], cross_device_ops=algorithm)


def rid():
    return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)


def components(v):
    return [np.asarray(c.numpy()).tolist() for c in v.values]


def error_text(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    return None


# --------------------------------------------------------------------------------------
# API, values and contexts
# --------------------------------------------------------------------------------------
@scenario("main")
def basics():
    s4 = tf.distribute.MirroredStrategy()
    s = mirrored(2)
    with s.scope():
        v = tf.Variable(1.0)
        in_scope = [tf.distribute.in_cross_replica_context(), tf.distribute.has_strategy(),
                    tf.distribute.get_replica_context() is None, tf.distribute.get_strategy() is s]
        mixing = error_text(lambda: tf.distribute.OneDeviceStrategy("/cpu:0").scope().__enter__())
    out = s.run(lambda: rid() + 1.0)
    ids = s.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)

    def inside():
        rc = tf.distribute.get_replica_context()
        return [tf.distribute.in_cross_replica_context(), tf.distribute.get_strategy() is s,
                rc.num_replicas_in_sync, tf.distribute.has_strategy()]
    return {
        "default_replicas": s4.num_replicas_in_sync,
        "default_devices": list(s4.extended.worker_devices),
        "var_repr": repr(v), "var_type": type(v).__name__, "var_name": v.name, "var_device": v.device,
        "component_names": [c.name for c in v.values], "component_devices": [c.device for c in v.values],
        "aggregation": str(v.aggregation), "synchronization": str(v.synchronization),
        "is_variable": isinstance(v, tf.Variable), "trainable": v.trainable,
        "per_replica_repr": repr(ids), "per_replica_str": str(out),
        "outside": [tf.distribute.in_cross_replica_context(), tf.distribute.has_strategy(),
                    tf.distribute.get_replica_context() is not None],
        "in_scope": in_scope, "inside_run": s.run(inside), "mixing": mixing,
        "reduce_sum": float(s.reduce("SUM", out, axis=None)),
        "reduce_mean": float(s.reduce(tf.distribute.ReduceOp.MEAN, out, axis=None)),
        "local": [float(t) for t in s.experimental_local_results(out)],
        "local_plain": len(s.experimental_local_results(tf.constant(1.0))),
    }


@scenario("main")
def reduce_and_gather():
    s = mirrored(2)
    r3 = s.run(lambda: tf.fill([2, 3], rid() + 1.0))
    return {
        "sum_axis0": s.reduce("SUM", r3, axis=0).numpy().tolist(),
        "mean_axis0": s.reduce("MEAN", r3, axis=0).numpy().tolist(),
        "mean_axis_both": float(s.reduce("MEAN", r3, axis=[0, 1])),
        "gather0": s.gather(r3, axis=0).numpy().tolist(),
        "gather1": s.gather(r3, axis=1).numpy().tolist(),
        "plain_sum": error_text(lambda: s.reduce("SUM", tf.constant(2.0), axis=None)),
        "plain_mean_axis": float(s.reduce("MEAN", tf.constant([2.0, 4.0]), axis=0)),
        "plain_mean": s.reduce("MEAN", tf.constant([2.0, 4.0]), axis=None).numpy().tolist(),
        "plain_gather": s.gather(tf.constant([2.0]), axis=0).numpy().tolist(),
        "bad_op": error_text(lambda: s.reduce("MAX", r3, axis=None)),
        "result_device": s.reduce("SUM", r3, axis=None).device,
        "values_from_fn": repr(s.experimental_distribute_values_from_function(
            lambda c: c.replica_id_in_sync_group * 2.0)),
    }


@scenario("main")
def assign_rules():
    s = mirrored(2)
    out = {}
    for agg in ["NONE", "SUM", "MEAN", "ONLY_FIRST_REPLICA"]:
        with s.scope():
            v = tf.Variable(1.0, aggregation=getattr(tf.VariableAggregation, agg))
        rows = []
        s.run(lambda: v.assign_add(rid() + 1.0))
        rows.append(components(v))
        s.run(lambda: v.assign(rid() + 10.0))
        rows.append(components(v))
        v.assign(5.0)
        rows.append(components(v))
        v.assign_add(1.0)
        rows.append(components(v))
        v.assign(s.run(rid))   # a PerReplica value: each component gets its own
        rows.append(components(v))
        reads = s.run(lambda: v.read_value())
        rows.append([float(t) for t in reads.values])
        out[agg] = rows
    return out


@scenario("main")
def sync_on_read():
    s = mirrored(2)
    out = {}
    for agg in ["SUM", "MEAN", "ONLY_FIRST_REPLICA", "NONE"]:
        with s.scope():
            v = tf.Variable(1.0, trainable=False, synchronization=tf.VariableSynchronization.ON_READ,
                            aggregation=getattr(tf.VariableAggregation, agg))
        s.run(lambda: v.assign_add(rid() + 1.0))
        row = [type(v).__name__, components(v)]
        row.append(error_text(lambda: v.read_value()) or float(v.read_value()))
        row.append([float(t) for t in s.run(lambda: v.read_value()).values])
        row.append(error_text(lambda: v.assign(6.0)) or components(v))
        row.append(error_text(lambda: v.assign_add(1.0)) or components(v))
        out[agg] = row
    with s.scope():
        out["none_sync"] = error_text(lambda: tf.Variable(1.0, synchronization=tf.VariableSynchronization.NONE))
        out["on_read_default"] = type(tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ)).__name__
    return out


@scenario("main")
def collectives():
    s = mirrored(2)
    rc = tf.distribute.get_replica_context

    def nested():
        return rc().all_reduce("MEAN", {"a": rid(), "b": [rid() * 2, rid() + 5]})
    n = s.run(nested)
    ints = s.run(lambda: rc().all_reduce("SUM", tf.cast(rid(), tf.int32) + 1))
    int_mean = s.run(lambda: rc().all_reduce("MEAN", tf.cast(rid(), tf.int32) * 3 + 1))
    merged = s.run(lambda: rc().merge_call(lambda strategy, x: (type(x).__name__, repr(x), strategy is s),
                                           args=(rid(),)))
    merged_reduce = s.run(lambda: rc().merge_call(lambda strategy, x: strategy.reduce("SUM", x, axis=None),
                                                  args=(rid() + 1,)))
    gathered = s.run(lambda: rc().all_gather(tf.fill([1, 2], rid()), axis=0))
    created = s.run(lambda: tf.Variable(rid() + 3.0))
    with s.scope():
        w = tf.Variable(2.0)

    def grad_of_mirrored():
        with tf.GradientTape() as tape:
            loss = w * w * (rid() + 1)
        return tape.gradient(loss, w), [type(x).__name__ for x in tape.watched_variables()]
    grads, watched = s.run(grad_of_mirrored)

    def grad_through_all_reduce():
        with tf.GradientTape() as tape:
            x = rid() + 1.0
            tape.watch(x)
            y = rc().all_reduce("SUM", x * x)
        return tape.gradient(y, x)
    return {
        "nested": {"a": [float(t) for t in n["a"].values], "b": [[float(t) for t in p.values] for p in n["b"]]},
        "int_sum": [[int(t), t.dtype.name] for t in ints.values],
        "int_mean": [[float(t), t.dtype.name] for t in int_mean.values],
        "bad_op": error_text(lambda: s.run(lambda: rc().all_reduce("MAX", rid()))),
        "not_callable": error_text(lambda: s.run(3)),
        "merge_call": list(merged),
        "merge_reduce": repr(merged_reduce),
        "all_gather": [t.numpy().tolist() for t in gathered.values],
        "created": repr(created),
        "grads": [float(g) for g in grads.values], "watched": watched,
        "grad_all_reduce": [float(g) for g in s.run(grad_through_all_reduce).values],
        "args": [float(t) for t in s.run(lambda a, b, c=None: a + b + c, args=(s.run(lambda: rid() * 10),
                                                                          tf.constant(1.0)),
                                          kwargs={"c": s.run(lambda: rid() * 10)}).values],
    }


@scenario("main")
def datasets():
    s2, s4 = mirrored(2), mirrored(4)
    ds = tf.data.Dataset.range(10).batch(4)
    steps = [[[t.numpy().tolist(), t.device[-5:]] for t in s2.experimental_local_results(b)]
             for b in s2.experimental_distribute_dataset(ds)]
    five = [[t.numpy().tolist() for t in s4.experimental_local_results(b)]
            for b in s4.experimental_distribute_dataset(tf.data.Dataset.range(10).batch(5))]
    dsd = tf.data.Dataset.from_tensor_slices(({"a": tf.range(6)}, tf.range(6) * 10)).batch(6)
    (xd, y), = list(s2.experimental_distribute_dataset(dsd))

    def dataset_fn(context):
        seen.append([context.num_input_pipelines, context.input_pipeline_id, context.num_replicas_in_sync,
                     context.get_per_replica_batch_size(8)])
        return tf.data.Dataset.range(8).batch(context.get_per_replica_batch_size(8))
    seen = []
    from_fn = [[t.numpy().tolist() for t in b.values] for b in s2.distribute_datasets_from_function(dataset_fn)]
    it = iter(s2.experimental_distribute_dataset(ds))
    next(it), it.get_next(), it.get_next()
    return {
        "steps": steps, "five_over_four": five,
        "dict": [t.numpy().tolist() for t in xd["a"].values], "labels": [t.numpy().tolist() for t in y.values],
        "element_spec": repr(s2.experimental_distribute_dataset(ds).element_spec),
        "from_fn": from_fn, "input_context": seen,
        "end": error_text(it.get_next),
        "unbatched": error_text(lambda: s2.experimental_distribute_dataset(tf.data.Dataset.range(3))),
        "bad_batch": error_text(lambda: tf.distribute.InputContext(1, 0, 2).get_per_replica_batch_size(7)),
        "input_context_str": str(tf.distribute.InputContext()),
    }


@scenario("main")
def compute_average_loss():
    s = mirrored(4)

    def per_replica(x):
        per_example = x * x
        return (tf.nn.compute_average_loss(per_example),
                tf.nn.compute_average_loss(per_example, global_batch_size=8))
    data = s.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(
        np.arange(8, dtype=np.float32)).batch(8))
    (x,) = list(data)
    default, explicit = s.run(per_replica, args=(x,))
    with s.scope():
        cross = error_text(lambda: tf.nn.compute_average_loss(tf.constant([1.0, 2.0])))
    return {"default": [float(t) for t in default.values], "explicit": [float(t) for t in explicit.values],
            "summed": float(s.reduce("SUM", default, axis=None)), "cross_replica": cross}


# --------------------------------------------------------------------------------------
# Training: N replicas == one device on the global batch
# --------------------------------------------------------------------------------------
DATA_RNG = np.random.default_rng(0)
X = DATA_RNG.normal(size=(64, 5)).astype(np.float32)
Y = (X @ DATA_RNG.normal(size=(5, 1))).astype(np.float32)
GLOBAL_BATCH = 16
EPOCHS = 2


def reference_weights():
    """Plain training on one device, on the same global batches (mean squared error, SGD)."""
    w, b = tf.Variable(np.zeros((5, 1), np.float32)), tf.Variable(np.zeros((1,), np.float32))
    for _ in range(EPOCHS):
        for i in range(0, len(X), GLOBAL_BATCH):
            x, y = X[i:i + GLOBAL_BATCH], Y[i:i + GLOBAL_BATCH]
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.reduce_sum((x @ w + b - y) ** 2, axis=1))
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(0.1 * gw)
            b.assign_sub(0.1 * gb)
    return w.numpy(), b.numpy()


def train_distributed(strategy, mode="eager"):
    """The custom loop: per-replica loss over the global batch, all-reduced gradients, local updates.

    ``mode``: ``"eager"``; ``"function"``: a tf.function receiving the distributed (PerReplica)
    batch, as in TF's tutorials; ``"function_global"``: a tf.function receiving the global batch
    and splitting it inside with ``experimental_distribute_values_from_function``.
    """
    n = strategy.num_replicas_in_sync
    with strategy.scope():
        w = tf.Variable(np.zeros((5, 1), np.float32))
        b = tf.Variable(np.zeros((1,), np.float32))

    def step(x, y):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum((x @ w + b - y) ** 2, axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        gw, gb = tape.gradient(loss, [w, b])
        gw, gb = tf.distribute.get_replica_context().all_reduce("SUM", [gw, gb])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        return loss

    def train_step(x, y):
        return strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None)

    def train_global(x, y):
        size = GLOBAL_BATCH // n
        x, y = strategy.experimental_distribute_values_from_function(
            lambda c: (x[c.replica_id_in_sync_group * size:(c.replica_id_in_sync_group + 1) * size],
                       y[c.replica_id_in_sync_group * size:(c.replica_id_in_sync_group + 1) * size]))
        return train_step(x, y)
    if mode == "function":
        train_step = tf.function(train_step)
    losses = []
    if mode == "function_global":
        fn = tf.function(train_global)
        for _ in range(EPOCHS):
            for x, y in tf.data.Dataset.from_tensor_slices((X, Y)).batch(GLOBAL_BATCH):
                losses.append(float(fn(x, y)))
        return w, b, losses, fn.experimental_get_tracing_count()
    data = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((X, Y)).batch(GLOBAL_BATCH))
    for _ in range(EPOCHS):
        for x, y in data:
            losses.append(float(train_step(x, y)))
    traces = train_step.experimental_get_tracing_count() if mode == "function" else None
    return w, b, losses, traces


@scenario("main")
def custom_loop():
    ref_w, ref_b = reference_weights()
    algorithms = {"default": None, "one_device": tf.distribute.ReductionToOneDevice(),
                  "hierarchical": tf.distribute.HierarchicalCopyAllReduce(), "ring": tf.distribute.RingAllReduce()}
    out = {}
    for n in [1, 2, 4]:
        for name, algorithm in algorithms.items():
            w, b, losses, _ = train_distributed(mirrored(n, algorithm))
            diffs = [float(np.abs(c.numpy() - ref_w).max()) for c in w.values]
            diffs += [float(np.abs(c.numpy() - ref_b).max()) for c in b.values]
            out[f"{n}/{name}"] = {"max_diff": max(diffs), "last_loss": losses[-1]}
    return out


@scenario("main")
def custom_loop_in_function():
    out = {}
    for n in [1, 2, 4]:
        we, be, eager_losses, _ = train_distributed(mirrored(n, tf.distribute.RingAllReduce()))
        for mode in ["function", "function_global"]:
            wf, bf, losses, traces = train_distributed(mirrored(n, tf.distribute.RingAllReduce()), mode)
            out[f"{n}/{mode}"] = {
                "weights_diff": float(max(np.abs(a.numpy() - c.numpy()).max()
                                          for a, c in zip(we.values + be.values, wf.values + bf.values))),
                "loss_diff": float(np.abs(np.array(eager_losses) - np.array(losses)).max()), "traces": traces}
    return out


@scenario("main")
def per_replica_through_function():
    """A PerReplica argument and result of a tf.function (needs tf.nest to honour __tf_flatten__)."""
    s = mirrored(2)
    double = tf.function(lambda x: s.run(lambda y: y * 2, args=(x,)))
    results = []
    for k in range(3):
        value = s.experimental_distribute_values_from_function(
            lambda c: tf.constant(float(c.replica_id_in_sync_group + k)))
        results.append([float(t) for t in double(value).values])
    return {"results": results, "traces": double.experimental_get_tracing_count()}


@scenario("main")
def determinism():
    """The same training twice (threads scheduled differently each time) gives the same bits."""
    runs = []
    for _ in range(2):
        w, b, losses, _ = train_distributed(mirrored(4, tf.distribute.RingAllReduce()))
        runs.append([w.values[0].numpy().tobytes().hex(), b.values[3].numpy().tobytes().hex(), losses])
    return {"same": runs[0] == runs[1]}


@scenario("main")
def recorded_all_reduce():
    """The ring's record inside strategy.run, eagerly and in a tf.function."""
    size = 1000
    out = {}
    for name, algorithm in [("ring", tf.distribute.RingAllReduce()), ("one", tf.distribute.ReductionToOneDevice()),
                            ("hier", tf.distribute.HierarchicalCopyAllReduce())]:
        s = mirrored(4, algorithm)

        def fn():
            return tf.distribute.get_replica_context().all_reduce("SUM", tf.fill([size], rid()))
        with tf.distribute.record_all_reduce() as log:
            result = s.run(fn)
        with tf.distribute.record_all_reduce() as log_fn:
            result_fn = tf.function(lambda: s.experimental_local_results(s.run(fn)))()
        record = log[-1]
        out[name] = {"records": len(log), "steps": record.num_steps, "phases": [st.phase for st in record.steps],
                     "sent": record.bytes_sent(), "received": record.bytes_received(), "nbytes": record.nbytes,
                     "bound": record.ring_bound(), "chunks": record.chunk_elements,
                     "same_in_function": [r.bytes_sent() for r in log_fn] == [record.bytes_sent()],
                     "values": sorted({float(v) for t in result.values for v in t.numpy()}),
                     "values_fn": sorted({float(v) for t in result_fn for v in t.numpy()}),
                     "last_record": algorithm.last_record is log_fn[-1],
                     "table": record.table()}
    return out


# --------------------------------------------------------------------------------------
# Failures: no deadlock, clear errors
# --------------------------------------------------------------------------------------
@scenario("errors")
def exception_in_one_replica():
    s = mirrored(4)

    def boom():
        if int(tf.distribute.get_replica_context().replica_id_in_sync_group) == 2:
            raise ValueError("boom in replica 2")
        return tf.distribute.get_replica_context().all_reduce("SUM", 1.0)   # the others wait here
    start = time.perf_counter()
    error = error_text(lambda: s.run(boom))
    elapsed = time.perf_counter() - start
    after = [float(t) for t in s.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", rid())).values]
    return {"error": error, "seconds": elapsed, "after": after}


@scenario("errors")
def exception_while_tracing():
    s = mirrored(2)

    def fn():
        if tf.distribute.get_replica_context()._replica_id == 1:
            raise KeyError("replica 1 failed while tracing")
        return tf.distribute.get_replica_context().all_reduce("SUM", rid())
    return {"error": error_text(lambda: tf.function(lambda: s.run(fn))())}


@scenario("errors")
def replicas_disagree():
    s = mirrored(2)

    def fn():
        if tf.distribute.get_replica_context()._replica_id == 0:
            return tf.distribute.get_replica_context().all_reduce("SUM", rid())
        return rid()

    def fn2():
        rc = tf.distribute.get_replica_context()
        if rc._replica_id == 0:
            return rc.all_reduce("SUM", rid())
        return rc.merge_call(lambda strategy: 1)

    def fn3():
        return tf.distribute.get_replica_context().all_reduce("SUM", tf.fill([rc_id() + 1], 1.0))

    def rc_id():
        return tf.distribute.get_replica_context()._replica_id
    return {"finished": error_text(lambda: s.run(fn)), "different": error_text(lambda: s.run(fn2)),
            "shapes": error_text(lambda: s.run(fn3)),
            "after": [float(t) for t in s.run(lambda: tf.distribute.get_replica_context().all_reduce(
                "SUM", rid())).values]}


@scenario("errors")
def bad_configuration():
    return {
        "nccl_on_cpu": error_text(lambda: mirrored(2, tf.distribute.NcclAllReduce())),
        "duplicates": error_text(lambda: tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:0"])),
        "missing": error_text(lambda: tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:7"])),
        "default_algorithm": type(tf.distribute.MirroredStrategy().extended._cross_device_ops).__name__,
        "not_cross_device_ops": error_text(lambda: tf.distribute.MirroredStrategy(cross_device_ops="ring")),
    }


# --------------------------------------------------------------------------------------
# Keras: model.fit under the scope
# --------------------------------------------------------------------------------------
def wire_keras_if_needed():
    """Until the lead wires Model._distributed_*_step to tf.distribute, route them here (see the report)."""
    import inspect
    from engine.keras.trainer import Trainer
    from engine.distribute.distribute_utils import distributed_step
    if "distributed_step" in inspect.getsource(Trainer._distributed_train_step):
        return False
    for kind in ("train", "test", "predict"):
        setattr(Trainer, f"_distributed_{kind}_step", lambda self, data, kind=kind: distributed_step(self, kind, data))
    return True


@scenario("keras")
def keras_fit():
    patched = wire_keras_if_needed()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    init, results = None, {}
    for n in [0, 1, 2, 4]:
        for optimizer in ["sgd", "adam"]:
            strategy = mirrored(n) if n else tf.distribute.get_strategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(8, activation="relu"),
                                             tf.keras.layers.Dense(1)])
                opt = tf.keras.optimizers.SGD(0.1) if optimizer == "sgd" else tf.keras.optimizers.Adam(0.01)
                model.compile(optimizer=opt, loss="mse", metrics=["mae"])
            if init is None:
                init = [w.numpy() for w in model.weights]
            for w, v in zip(model.weights, init):
                w.assign(v)
            history = model.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
            evaluated = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
            predicted = model.predict(x, batch_size=16, verbose=0)
            results[(n, optimizer)] = ([w.numpy() for w in model.weights], history.history["loss"], evaluated,
                                       predicted, type(model.weights[0]).__name__, int(opt.iterations.numpy()))
    out = {"patched": patched}
    for (n, optimizer), (weights, losses, evaluated, predicted, kind, iterations) in results.items():
        base = results[(0, optimizer)]
        out[f"{n}/{optimizer}"] = {
            "weights": max(float(np.abs(a - b).max()) for a, b in zip(weights, base[0])),
            "losses": float(np.abs(np.array(losses) - np.array(base[1])).max()),
            "evaluate": max(abs(evaluated[k] - base[2][k]) for k in evaluated),
            "predict": float(np.abs(predicted - base[3]).max()), "type": kind, "iterations": iterations}
    return out


def main(group):
    results = {}
    for name, fn in SCENARIOS[group].items():
        try:
            results[name] = {"value": fn()}
        except BaseException:  # noqa: B902  (reported to the test, which fails with it)
            results[name] = {"error": traceback.format_exc()}
    sys.stdout.write("RESULTS " + json.dumps(results, default=repr) + "\n")


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    main(sys.argv[1])
