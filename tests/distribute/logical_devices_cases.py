"""Strategies on devices the machine does not have, and CentralStorageStrategy: what TF 2.21 does.

Run in a fresh interpreter, on a CPU-only machine (``CUDA_VISIBLE_DEVICES=""``)::

    python logical_devices_cases.py engine [split]     # under the engine (the tests do this)
    python logical_devices_cases.py tf [split]         # under TensorFlow 2.21: how the golden values were recorded

``split``: the CPU split into 2 logical devices first. Prints one line ``RESULTS {json}``:
``{case: value}``, where a case that raised is ``"ErrorClass: message"``.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

if sys.argv[1] == "tf":
    import keras  # noqa: E402
    import tensorflow as tf  # noqa: E402
else:
    import engine as tf  # noqa: E402
    import engine.distribute  # noqa: E402,F401
    keras = tf.keras

SPLIT = "split" in sys.argv[2:]
if SPLIT:
    tf.config.set_logical_device_configuration(tf.config.list_physical_devices("CPU")[0],
                                               [tf.config.LogicalDeviceConfiguration()] * 2)

RESULTS = {}


def case(fn):
    try:
        RESULTS[fn.__name__] = fn()
    except Exception as e:  # noqa: BLE001
        RESULTS[fn.__name__] = f"{type(e).__name__}: {e}"
    return fn


def num(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t).tolist()


def local(strategy, value):
    return [num(x) for x in strategy.experimental_local_results(value)]


def devices_of(strategy, value):
    return [x.device for x in strategy.experimental_local_results(value)]


def components(v):
    return [[c.name, c.device] for c in getattr(v, "values", [v])]


def summary(strategy):
    """What a strategy built on a device list is, through the public API."""
    with strategy.scope():
        v = tf.Variable(2.0)
    r = strategy.run(lambda: tf.constant(3.0) * 2)
    return {"n": strategy.num_replicas_in_sync, "worker_devices": list(strategy.extended.worker_devices),
            "var": type(v).__name__, "components": components(v), "run": type(r).__name__,
            "run_values": local(strategy, r), "run_devices": devices_of(strategy, r),
            "reduce": num(strategy.reduce("SUM", r, axis=None))}


def made(fn):
    try:
        return summary(fn())
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"


# --------------------------------------------------------------------------------------
# MirroredStrategy / OneDeviceStrategy on device names
# --------------------------------------------------------------------------------------
if not SPLIT:
    @case
    def guide_mirrored():
        s = tf.distribute.MirroredStrategy(devices=["/gpu:0", "/gpu:1"])
        out = {"n": s.num_replicas_in_sync, "worker_devices": list(s.extended.worker_devices),
               "parameter_devices": list(s.extended.parameter_devices)}
        with s.scope():
            v = tf.Variable(1.0)
        out["var"] = type(v).__name__
        out["var_repr"] = repr(v)
        out["components"] = components(v)
        out["var_device"] = v.device
        r = s.run(lambda: tf.constant(3.0) * 2)
        out["run"] = type(r).__name__
        out["run_repr"] = repr(r)
        out["run_devices"] = devices_of(s, r)
        red = s.reduce(tf.distribute.ReduceOp.SUM, r, axis=None)
        out["reduce"], out["reduce_device"] = num(red), red.device
        out["reduce_mean"] = num(s.reduce("MEAN", r, axis=None))
        out["replica_ids"] = local(s, s.run(lambda: tf.cast(
            tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)))
        v.assign(5.0)
        out["after_assign"] = [num(c) for c in v.values]
        v.assign_add(1.0)
        out["after_assign_add"] = [num(c) for c in v.values]
        out["local_results"] = [repr(x) for x in s.experimental_local_results(v)]
        batches = []
        for b in s.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4)):
            batches.append([local(s, b), devices_of(s, b)])
        out["batches"] = batches
        out["reduce_to_variable"] = repr(s.extended.reduce_to("SUM", r, v))
        if sys.argv[1] != "tf":   # TF: its CollectiveAllReduce's all-gather waits forever on a CPU-only machine
            out["gather"] = num(s.gather(s.run(lambda: tf.constant([1.0])), axis=0))
        out["values_from_function"] = local(s, s.experimental_distribute_values_from_function(
            lambda ctx: tf.constant(float(ctx.replica_id_in_sync_group))))
        return out

    MIRRORED_LISTS = {
        "duplicated": ["/gpu:0", "/gpu:0"], "duplicated_spelling": ["/gpu:0", "/GPU:0"],
        "cpu_duplicated": ["/CPU:0", "/cpu:0"], "mixed": ["/cpu:0", "/gpu:0"], "bad_name": ["/foo:0"],
        "empty": [], "gpu5": ["/gpu:5"], "one_gpu": ["/gpu:0"], "spellings": ["GPU:1", "/device:GPU:0"],
        "three_gpus": ["/gpu:0", "/gpu:1", "/gpu:2"], "tuple": ("/gpu:0", "/gpu:1"),
        "full_name": ["/job:localhost/replica:0/task:0/device:GPU:3"], "no_slash": ["gpu:0"],
        "no_index": ["/gpu"], "upper": ["GPU"], "device_lowercase": ["/device:foo:0"],
        "not_a_number": ["/gpu:a"], "two_types": ["/cpu:0/gpu:1"], "extra_field": ["/gpu:0:1"],
        "no_job": ["/replica:0/task:0/device:GPU:2"], "localhost_gpu": ["/job:localhost/gpu:1"],
        "bare_word": ["foo"], "a_string": "/gpu:0", "tpu": ["/tpu:0"], "logical_device": None,
    }
    MIRRORED_LISTS["logical_device"] = tf.config.list_logical_devices("CPU")[:1]   # a LogicalDevice, not a string
    for _name, _devices in MIRRORED_LISTS.items():
        RESULTS[f"mirrored_{_name}"] = made(lambda d=_devices: tf.distribute.MirroredStrategy(d))

    @case
    def one_device_gpu():
        o = tf.distribute.OneDeviceStrategy("/gpu:0")
        with o.scope():
            x = tf.Variable(1.0)
        return {"worker_devices": list(o.extended.worker_devices), "var_device": x.device,
                "run_device": o.run(lambda: tf.constant(1.0) * 2).device}

    @case
    def one_device_bad_name():
        return repr(tf.distribute.OneDeviceStrategy("/foo:0"))


    @case
    def reduce_plain_values():
        """``reduce`` of a value that is not per-replica, with one replica: a tensor for SUM (Mirrored, Central)."""
        out = {}
        for name, s in [("central", tf.distribute.experimental.CentralStorageStrategy()),
                        ("mirrored", tf.distribute.MirroredStrategy()),
                        ("one_device", tf.distribute.OneDeviceStrategy("/cpu:0")),
                        ("default", tf.distribute.get_strategy())]:
            v = tf.Variable(3.0)
            out[name] = {op: [repr(s.reduce(op, x, axis=None)) for x in (v, tf.constant(2.0), 2.0)]
                         for op in ("SUM", "MEAN")}
        return out


# --------------------------------------------------------------------------------------
# CentralStorageStrategy
# --------------------------------------------------------------------------------------
def central(**kw):
    s = tf.distribute.experimental.CentralStorageStrategy(**kw)
    out = {"type": type(s).__name__, "mro": [c.__name__ for c in type(s).__mro__],
           "is_strategy": isinstance(s, tf.distribute.Strategy),
           "is_mirrored": isinstance(s, tf.distribute.MirroredStrategy),
           "n": s.num_replicas_in_sync, "worker_devices": s.extended.worker_devices,
           "worker_devices_type": type(s.extended.worker_devices).__name__,
           "parameter_devices": list(s.extended.parameter_devices),
           "parameter_devices_type": type(s.extended.parameter_devices).__name__}
    with s.scope():
        out["scope"] = [tf.distribute.has_strategy(), tf.distribute.get_strategy() is s,
                        tf.distribute.in_cross_replica_context(), tf.distribute.get_replica_context() is None]
        v = tf.Variable(1.0)
        w = tf.Variable([1.0, 2.0], name="w")
        u = tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN)
        m = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
    out["var"] = type(v).__name__
    out["var_repr"], out["var_str"] = repr(v), str(v)
    out["names_devices"] = [v.name, v.device, w.name, w.device]
    out["is_variable"] = isinstance(v, tf.Variable)
    out["has_values"] = hasattr(v, "values")
    out["created_in_scope"] = s.extended.variable_created_in_scope(v)
    out["not_created_in_scope"] = s.extended.variable_created_in_scope(tf.Variable(1.0))
    out["aggregation"] = [str(v.aggregation), str(v.synchronization), v.trainable]
    out["on_read"] = [type(m).__name__, repr(m)]
    r = s.run(lambda: tf.constant(3.0) * 2)
    out["run"] = type(r).__name__
    out["run_repr"] = repr(r)
    out["run_devices"] = devices_of(s, r)
    red = s.reduce("SUM", r, axis=None)
    out["reduce"], out["reduce_device"] = repr(red), red.device
    out["reduce_mean"] = repr(s.reduce("MEAN", r, axis=None))
    out["local_results"] = local(s, r)
    v.assign(5.0)
    out["after_assign"] = [repr(v), num(v)]
    v.assign_add(1.0)
    out["after_assign_add"] = num(v)

    def all_reduce():
        ctx = tf.distribute.get_replica_context()
        return ctx.all_reduce("SUM", tf.constant(2.0) * tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32))
    out["all_reduce"] = repr(s.run(all_reduce))
    batches = []
    for b in s.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4)):
        batches.append([repr(b), devices_of(s, b)])
    out["batches"] = batches
    seen = []

    def in_replica():
        seen.append([type(v).__name__, v.device, v.name])
        return tf.identity(v)
    out["in_replica"] = [repr(s.run(in_replica)), sorted(seen)]

    def same_update():
        v.assign_add(1.0)
        return v.read_value()
    try:
        out["update_none_same"] = [repr(s.run(same_update)), num(v)]
    except Exception as e:  # noqa: BLE001
        out["update_none_same"] = f"{type(e).__name__}: {e}"

    def different_update():
        ctx = tf.distribute.get_replica_context()
        v.assign_add(tf.cast(ctx.replica_id_in_sync_group, tf.float32))
        return v.read_value()
    try:
        out["update_none_different"] = [repr(s.run(different_update)), num(v)]
    except Exception as e:  # noqa: BLE001
        out["update_none_different"] = f"{type(e).__name__}: {e}"

    v.assign(6.0)    # as before the two updates (the engine applied the first, TF refused it)

    def mean_update():
        u.assign_add(1.0)
        return u.read_value()
    out["update_mean"] = [repr(s.run(mean_update)), num(u)]

    def sum_update():
        ctx = tf.distribute.get_replica_context()
        m.assign_add(tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 1.0)
        return tf.constant(0.0)
    s.run(sum_update)
    out["update_sum"] = num(m)
    out["gather"] = num(s.gather(s.run(lambda: tf.constant([1.0])), axis=0))
    out["convert"] = repr(tf.convert_to_tensor(v))
    out["times_two"] = repr(v * 2)
    with tf.GradientTape() as tape:
        loss = v * v
    out["gradient"] = repr(tape.gradient(loss, v))
    try:
        out["reduce_variable"] = repr(s.reduce("SUM", v, axis=None))
    except Exception as e:  # noqa: BLE001
        out["reduce_variable"] = f"{type(e).__name__}: {e}"
    out["local_results_variable"] = [repr(x) for x in s.experimental_local_results(v)]
    out["update"] = repr(s.extended.update(v, lambda c, x: c.assign(x), args=(7.0,)))
    out["after_update"] = num(v)
    return out


if SPLIT:
    @case
    def central_default():
        s = tf.distribute.experimental.CentralStorageStrategy()
        return [s.num_replicas_in_sync, s.extended.worker_devices, list(s.extended.parameter_devices)]

    for _name, _kw in {"cpus": dict(compute_devices=["/cpu:0", "/cpu:1"]),
                       "cpus_parameter_cpu1": dict(compute_devices=["/cpu:0", "/cpu:1"], parameter_device="/cpu:1")
                       }.items():
        try:
            RESULTS[f"central_{_name}"] = central(**_kw)
        except Exception as e:  # noqa: BLE001
            RESULTS[f"central_{_name}"] = f"{type(e).__name__}: {e}"
    RESULTS["mirrored_cpu_and_missing_gpu"] = made(lambda: tf.distribute.MirroredStrategy(["/cpu:0", "/gpu:0"]))
else:
    for _name, _kw in {"default": {}, "gpus": dict(compute_devices=["/gpu:0", "/gpu:1"]),
                       "gpus_parameter_cpu": dict(compute_devices=["/gpu:0", "/gpu:1"], parameter_device="/cpu:0")
                       }.items():
        try:
            RESULTS[f"central_{_name}"] = central(**_kw)
        except Exception as e:  # noqa: BLE001
            RESULTS[f"central_{_name}"] = f"{type(e).__name__}: {e}"

    def central_summary(**kw):
        try:
            s = tf.distribute.experimental.CentralStorageStrategy(**kw)
            with s.scope():
                v = tf.Variable(1.0)
            return [s.num_replicas_in_sync, list(s.extended.worker_devices), list(s.extended.parameter_devices),
                    type(v).__name__, v.device]
        except Exception as e:  # noqa: BLE001
            return f"{type(e).__name__}: {e}"
    for _name, _kw in {"empty": dict(compute_devices=[]), "one_gpu": dict(compute_devices=["/gpu:0"]),
                       "duplicated": dict(compute_devices=["/gpu:0", "/gpu:0"]),
                       "bad_name": dict(compute_devices=["/foo:0"]), "parameter_gpu": dict(parameter_device="/gpu:0"),
                       "parameter_bad_name": dict(parameter_device="/foo:0"),
                       "mixed": dict(compute_devices=["/cpu:0", "/gpu:0"]),
                       "gpu1_parameter_cpu": dict(compute_devices=["/gpu:1"], parameter_device="/cpu:0"),
                       "tuple": dict(compute_devices=("/gpu:0", "/gpu:1")), "cpu": dict(compute_devices=["/cpu:0"])
                       }.items():
        RESULTS[f"central_args_{_name}"] = central_summary(**_kw)


# --------------------------------------------------------------------------------------
# Training: Keras fit and a custom loop under CentralStorageStrategy (and the guide's MirroredStrategy)
# --------------------------------------------------------------------------------------
def training(strategy, keras_fit=True):
    out = {}
    rng = np.random.RandomState(0)
    X = rng.randn(16, 3).astype("float32")
    Y = (X @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")
    weights = [rng.randn(3, 4).astype("float32") * 0.5, np.zeros(4, "float32") + 0.1,
               rng.randn(4, 1).astype("float32") * 0.5, np.zeros(1, "float32")]
    if keras_fit:
        with strategy.scope():
            model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                                      keras.layers.Dense(1)])
            model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
        model.set_weights(weights)
        history = model.fit(X, Y, batch_size=8, epochs=3, shuffle=False, verbose=0)
        out["losses"] = [round(float(x), 5) for x in history.history["loss"]]
        out["weights"] = [np.round(w, 5).tolist() for w in model.get_weights()]
        out["iterations"] = int(model.optimizer.iterations.numpy())
        out["evaluate"] = round(float(model.evaluate(X, Y, batch_size=8, verbose=0)), 5)
        out["predict"] = np.round(model.predict(X[:4], batch_size=4, verbose=0), 5).tolist()
    with strategy.scope():
        w = tf.Variable([[0.5], [0.5], [0.5]], name="w")
        opt = keras.optimizers.SGD(0.1)
    ds = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((X, Y)).batch(8))

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(tf.reduce_sum((tf.matmul(x, w) - y) ** 2, axis=1),
                                              global_batch_size=8)
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return loss
    out["custom_losses"] = [round(float(strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None)), 5)
                            for x, y in ds]
    out["custom_w"] = np.round(w.numpy(), 5).tolist()
    out["custom_w_type"] = type(w).__name__
    out["custom_iterations"] = int(opt.iterations.numpy())

    @tf.function
    def function_step(x, y):
        return strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None)
    out["function_losses"] = [round(float(function_step(x, y)), 5) for x, y in ds]
    out["function_w"] = np.round(w.numpy(), 5).tolist()
    return out


if not SPLIT:
    RESULTS["train_central_default"] = training(tf.distribute.experimental.CentralStorageStrategy())
    RESULTS["train_central_gpus"] = training(tf.distribute.experimental.CentralStorageStrategy(
        compute_devices=["/gpu:0", "/gpu:1"]))
    if sys.argv[1] != "tf":   # TF: an all-reduce of MirroredStrategy(["/gpu:0", "/gpu:1"]) waits forever here
        RESULTS["train_mirrored_gpus"] = training(tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"]))

print("RESULTS " + json.dumps(RESULTS))
