"""What data parallelism costs on one CPU split into logical devices: ``python bench/distribute.py [--quick]``.

Three figures:

1. **Step time of a small MLP** (global batch 256, 64-256-256-10, ReLU, softmax
   cross-entropy, SGD) at 1, 2 and 4 replicas, eagerly and in a ``tf.function``,
   against the same step without any strategy. Logical CPU devices share the
   same cores, so more replicas cannot make a CPU step faster: what this shows is
   the price of splitting the batch, running replica threads and all-reducing.
2. **All-reduce time per algorithm** at 4 replicas, for buffers of 4 KB to 4 MB,
   with the bytes each algorithm moves (max per device, from its record) against
   the ring bound 2(N-1)/N x size.
3. **The overhead of ``strategy.run``** over calling the function directly
   (a function that adds two scalars): thread hand-offs, contexts, regrouping.

The machine's own thread hand-off time (a lock ping-pong between two threads)
is printed first: it bounds every figure that synchronizes replicas.
"""
import argparse
import os
import statistics
import sys
import threading
import time

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))   # the project root: the nearest folder above with engine/
while not os.path.isdir(os.path.join(_here, "engine")) and os.path.dirname(_here) != _here:
    _here = os.path.dirname(_here)
sys.path.insert(0, _here)
import engine as tf  # noqa: E402
import engine.distribute  # noqa: E402,F401

CPU = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(CPU, [tf.config.LogicalDeviceConfiguration()] * 4)

GLOBAL_BATCH, SIZES, LR = 256, (64, 256, 256, 10), 0.1


def timeit(fn, repeat, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def ping_pong_us(repeat):
    a, b = threading.Lock(), threading.Lock()
    a.acquire()
    b.acquire()

    def partner():
        for _ in range(repeat + 10):
            a.acquire()
            b.release()
    t = threading.Thread(target=partner, daemon=True)
    t.start()
    for _ in range(10):
        a.release()
        b.acquire()
    start = time.perf_counter()
    for _ in range(repeat):
        a.release()
        b.acquire()
    return (time.perf_counter() - start) / repeat * 1e6


def mlp_data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(GLOBAL_BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], size=GLOBAL_BATCH).astype(np.int32)
    weights = [rng.normal(scale=fan_in ** -0.5, size=(fan_in, fan_out)).astype(np.float32)
               for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:])]
    return x, y, weights


def make_step(strategy, weights):
    """The training step on a global batch, on ``strategy`` (None: no strategy). Returns (step, variables).

    Under a strategy the batch is split inside the step (each replica slices its
    part on its own device), so the same step works eagerly and in a tf.function.
    """
    scope = strategy.scope() if strategy is not None else tf.distribute.get_strategy().scope()
    with scope:
        variables = [tf.Variable(w) for w in weights]

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            h = x
            for i, w in enumerate(variables):
                h = h @ w
                if i < len(variables) - 1:
                    h = tf.nn.relu(h)
            per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, variables)
        if strategy is not None:
            grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        for w, g in zip(variables, grads):
            w.assign_sub(LR * g)
        return loss
    if strategy is None:
        return replica_step, variables
    n = strategy.num_replicas_in_sync
    size = GLOBAL_BATCH // n

    def step(x, y):
        xs, ys = strategy.experimental_distribute_values_from_function(
            lambda c: (x[c.replica_id_in_sync_group * size:(c.replica_id_in_sync_group + 1) * size],
                       y[c.replica_id_in_sync_group * size:(c.replica_id_in_sync_group + 1) * size]))
        return strategy.reduce("SUM", strategy.run(replica_step, args=(xs, ys)), axis=None)
    return step, variables


def bench_mlp(repeat):
    x, y, weights = mlp_data()
    batch = (tf.constant(x), tf.constant(y))
    rows, final = [], {}
    for n in [0, 1, 2, 4]:
        strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)],
                                                  cross_device_ops=tf.distribute.RingAllReduce()) if n else None
        for mode in ["eager", "tf.function"]:
            step, variables = make_step(strategy, weights)
            fn = tf.function(step) if mode == "tf.function" else step
            rows.append((n, mode, timeit(lambda: fn(*batch), repeat)))
            final[(n, mode)] = [np.asarray(v.numpy()) for v in variables]   # same number of steps everywhere
    base = {mode: s for n, mode, s in rows if n == 0}
    print("\n1. MLP training step, global batch 256, 64-256-256-10 (RingAllReduce)")
    print(f"   {'replicas':<10}{'mode':<13}{'ms/step':>9}{'vs no strategy':>16}")
    for n, mode, seconds in rows:
        label = "none" if n == 0 else str(n)
        print(f"   {label:<10}{mode:<13}{seconds * 1e3:9.2f}{seconds / base[mode]:15.2f}x")
    reference = final[(0, "eager")]
    worst = max(float(np.abs(a - b).max()) for key, ws in final.items() for a, b in zip(ws, reference))
    print(f"   after {repeat + 2} steps every configuration's weights equal the no-strategy ones to {worst:.1e}")


def bench_all_reduce(repeat):
    devices = [tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(4)]).extended._devices][0]
    algorithms = [tf.distribute.ReductionToOneDevice(), tf.distribute.HierarchicalCopyAllReduce(),
                  tf.distribute.RingAllReduce()]
    print("\n2. All-reduce of one float32 buffer over 4 logical CPUs")
    print(f"   {'algorithm':<28}{'bytes':>10}{'time':>11}{'GB/s':>8}{'max sent/device':>17}{'ring bound':>12}")
    rng = np.random.default_rng(1)
    for size in [1_000, 100_000, 1_000_000]:
        data = [[rng.normal(size=size).astype(np.float32)] for _ in devices]
        for algorithm in algorithms:
            seconds = timeit(lambda: algorithm.all_reduce_arrays("SUM", devices, data), repeat)
            record = algorithm.last_record
            print(f"   {type(algorithm).__name__:<28}{record.nbytes:>10}{seconds * 1e6:9.0f}µs"
                  f"{record.nbytes / seconds / 1e9:8.2f}{max(record.bytes_sent()):>17}{record.ring_bound():>12.0f}")
    print("   (logical CPUs share one memory: a 'send' costs nothing here, so the ring's 2(N-1) steps only add\n"
          "   Python work. Between GPUs the bytes each device sends are what takes time, and the ring sends the least.)")


def bench_run_overhead(repeat):
    x = tf.constant(1.0)

    def fn():
        return x + 1.0
    plain = timeit(fn, repeat * 20)
    print("\n3. strategy.run(fn) against fn() (fn adds two scalars)")
    print(f"   {'':<26}{'µs/call':>9}{'overhead':>10}")
    print(f"   {'fn()':<26}{plain * 1e6:9.1f}")
    for n in [1, 2, 4]:
        strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])
        seconds = timeit(lambda: strategy.run(fn), repeat * 5)
        print(f"   {f'strategy.run, {n} replica(s)':<26}{seconds * 1e6:9.1f}{(seconds - plain) * 1e6:9.1f}µs")
        with_reduce = timeit(lambda: strategy.run(lambda: tf.distribute.get_replica_context().all_reduce(
            "SUM", fn())), repeat * 5)
        print(f"   {'  + one all_reduce':<26}{with_reduce * 1e6:9.1f}{(with_reduce - plain) * 1e6:9.1f}µs")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few iterations: a smoke test, not a measurement")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 30
    print(f"CPU cores: {os.cpu_count()}; logical CPU devices: 4; thread hand-off (lock ping-pong): "
          f"{ping_pong_us(200 if args.quick else 2000):.0f} µs")
    bench_mlp(repeat)
    bench_all_reduce(repeat)
    bench_run_overhead(repeat)


if __name__ == "__main__":
    main()
