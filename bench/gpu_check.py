"""MirroredStrategy on GPUs, checked against the CPU: ``python bench/gpu_check.py`` on a machine with a GPU.

One short script for a lent GPU machine. It

1. trains a small MLP (the custom loop: ``strategy.run``, gradients all-reduced
   with SUM, ``compute_average_loss``) on one CPU device: the reference;
2. with one physical GPU: splits it into two logical GPUs and trains on them with
   every algorithm that can run there (ReductionToOneDevice, HierarchicalCopy,
   Ring), and checks that ``NcclAllReduce`` refuses with its clear error and that
   the default algorithm falls back; with several physical GPUs: trains on two of
   them with ``NcclAllReduce`` too;
3. checks every result equals the CPU's (to 1e-4: GPU matmuls round differently),
   and prints the step times.

Exit status 0 when every check passes.
"""
import os
import sys
import time

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))   # the project root: the nearest folder above with engine/
while not os.path.isdir(os.path.join(_here, "engine")) and os.path.dirname(_here) != _here:
    _here = os.path.dirname(_here)
sys.path.insert(0, _here)
import engine as tf  # noqa: E402
import engine.distribute  # noqa: E402,F401
from engine.framework.backend import gpu_count  # noqa: E402

GLOBAL_BATCH, SIZES, LR, STEPS, TOLERANCE = 256, (64, 256, 256, 10), 0.1, 20, 1e-4


def train(devices, algorithm):
    """STEPS steps of the MLP on ``devices``; returns (final weights of every replica, ms per step)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(GLOBAL_BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], size=GLOBAL_BATCH).astype(np.int32)
    weights = [rng.normal(scale=a ** -0.5, size=(a, b)).astype(np.float32) for a, b in zip(SIZES[:-1], SIZES[1:])]
    strategy = tf.distribute.MirroredStrategy(devices, cross_device_ops=algorithm)
    with strategy.scope():
        variables = [tf.Variable(w) for w in weights]

    def step(xb, yb):
        with tf.GradientTape() as tape:
            h = xb
            for i, w in enumerate(variables):
                h = h @ w
                h = tf.nn.relu(h) if i < len(variables) - 1 else h
            loss = tf.nn.compute_average_loss(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=h),
                                              global_batch_size=GLOBAL_BATCH)
        grads = tf.distribute.get_replica_context().all_reduce("SUM", tape.gradient(loss, variables))
        for w, g in zip(variables, grads):
            w.assign_sub(LR * g)
    (batch,) = list(strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y))
                                                             .batch(GLOBAL_BATCH)))
    strategy.run(step, args=batch)   # warm-up (CuPy compiles its kernels)
    start = time.perf_counter()
    for _ in range(STEPS - 1):
        strategy.run(step, args=batch)
    seconds = (time.perf_counter() - start) / (STEPS - 1)
    return [[np.asarray(c.numpy()) for c in v.values] for v in variables], seconds * 1e3


def main():
    physical = gpu_count()
    if physical == 0:
        print("no GPU (CuPy and a CUDA GPU are needed): nothing to check")
        return 1
    if physical == 1:
        gpu = tf.config.list_physical_devices("GPU")[0]
        tf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=2048)] * 2)
    gpus = ["/gpu:0", "/gpu:1"]
    print(f"physical GPUs: {physical}; replicas on {gpus}" + (" (2 logical GPUs on GPU 0)" if physical == 1 else ""))
    reference, cpu_ms = train(["/cpu:0"], tf.distribute.ReductionToOneDevice())
    print(f"{'CPU:0, one replica':<40}{cpu_ms:8.2f} ms/step")
    algorithms = [tf.distribute.ReductionToOneDevice(), tf.distribute.HierarchicalCopyAllReduce(),
                  tf.distribute.RingAllReduce()]
    failures = 0
    if physical >= 2:
        algorithms.append(tf.distribute.NcclAllReduce())
    else:
        try:
            tf.distribute.MirroredStrategy(gpus, cross_device_ops=tf.distribute.NcclAllReduce())
            print("FAIL: NcclAllReduce accepted two logical GPUs on one physical GPU")
            failures += 1
        except ValueError as error:
            print(f"ok: NcclAllReduce refuses: {error}")
        default = type(tf.distribute.MirroredStrategy(gpus).extended._cross_device_ops).__name__
        print(f"{'ok' if default == 'ReductionToOneDevice' else 'FAIL'}: default algorithm {default}")
        failures += default != "ReductionToOneDevice"
    for algorithm in algorithms:
        weights, ms = train(gpus, algorithm)
        diff = max(float(np.abs(replica - ref[0]).max()) for var, ref in zip(weights, reference) for replica in var)
        ok = diff < TOLERANCE
        failures += not ok
        print(f"{type(algorithm).__name__ + ', 2 replicas':<40}{ms:8.2f} ms/step   max |w - w_cpu| = {diff:.1e} "
              f"{'ok' if ok else 'FAIL'}")
        record = algorithm.last_record
        print(f"    last all-reduce: {record.nbytes} bytes, {record.num_steps} steps, sent per device "
              f"{record.bytes_sent()}")
    print("all checks passed" if not failures else f"{failures} check(s) FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
