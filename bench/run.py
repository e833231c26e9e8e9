"""What the engine costs, measured against NumPy doing the same work.

Two figures matter for an eager framework written in Python:

1. **Dispatch overhead**: the time to run one op on a tiny tensor, where the
   arithmetic is free and everything is bookkeeping (choose a device, find the
   kernel, wrap the result, offer it to the tapes). Measured on ``a + b`` for
   1-element float32 tensors, without and with a recording ``GradientTape``,
   and on ``v + v`` for a 1-element ``tf.Variable`` under a recording tape (two
   ``ReadVariableOp`` s, each telling the tape about the access, then ``AddV2``).
2. **A training step** of a small MLP (batch 64, 784-256-256-10, ReLU, softmax
   cross-entropy, SGD with lr 0.1), written as ordinary TF code (``GradientTape``
   + ``Variable.assign_sub``), against the same network written by hand in
   NumPy (forward, backward and update). Here big matrix products dominate, so
   the engine should cost little more than NumPy itself.

Each figure is printed beside NumPy's, as a ratio, with the project's target and
TensorFlow 2's own eager figure for reference. The run also checks that the
engine's gradients equal the hand-written ones on the same weights, so the
comparison is between two programs that compute the same thing.

    make bench                              # from the project root
    .venv/bin/python -m bench --quick       # a few iterations: a smoke test, not a measurement
"""
import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

import engine as tf

BATCH, SIZES, LR = 64, (784, 256, 256, 10), 0.1

TAPE_OPS = 1000   # ops recorded per tape in the dispatch-under-a-tape figure
TARGETS = {"dispatch_us": 2.0, "tape_dispatch_us": 4.0, "tape_variable_us": 4.0, "mlp_ratio": 1.3}
TF_EAGER = {"dispatch_us": 17.0, "tape_variable_us": 37.0, "mlp_ms": 5.4}   # TF 2 eager on CPU, for reference


# --------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------
def _median_times(work, rounds, warmup=1, statistic=statistics.median):
    """``work``: name -> function. Runs them in turn, ``rounds`` times; median (or ``statistic``) seconds of each.

    Alternating the contenders, instead of timing one and then the other, means that both see the
    same machine: other programs and CPU frequency changes hit them alike.
    """
    times = {name: [] for name in work}
    for k in range(warmup + rounds):
        for name, fn in work.items():
            start = time.perf_counter()
            fn()
            if k >= warmup:
                times[name].append(time.perf_counter() - start)
    return {name: statistic(t) for name, t in times.items()}


def dispatch_figures(number=20000, repeat=7):
    """Microseconds per ``a + b`` on 1-element float32 tensors: engine, engine under a tape, NumPy."""
    a, b = tf.constant([1.0]), tf.constant([2.0])
    x, y = np.array([1.0], np.float32), np.array([2.0], np.float32)

    def engine():
        for _ in range(number):
            a + b

    def taped():
        for chunk in range(0, number, TAPE_OPS):   # a fresh tape every TAPE_OPS ops, like one training step's
            with tf.GradientTape() as tape:
                tape.watch(a)
                for _ in range(min(TAPE_OPS, number - chunk)):
                    a + b

    v = tf.Variable([1.0])

    def taped_variable():
        for chunk in range(0, number, TAPE_OPS):
            with tf.GradientTape():
                for _ in range(min(TAPE_OPS, number - chunk)):
                    v + v

    def numpy():
        for _ in range(number):
            x + y

    # Best of the rounds, as timeit advises for micro-benchmarks: the fastest round is the one least
    # disturbed by the rest of the machine.
    seconds = _median_times({"engine": engine, "tape": taped, "variable": taped_variable, "numpy": numpy}, repeat,
                            statistic=min)
    return {name: 1e6 * s / number for name, s in seconds.items()}


# --------------------------------------------------------------------------------------
# The MLP, twice: by hand in NumPy, and as TF code on the engine
# --------------------------------------------------------------------------------------
def init_params(seed=0):
    """He-initialised weights and zero biases, float32: ``[W1, b1, W2, b2, W3, b3]``."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32))
        params.append(np.zeros(fan_out, np.float32))
    return params


def make_batch(seed=1):
    """A batch of MNIST-shaped inputs in [0, 1) and int32 labels in [0, 10)."""
    rng = np.random.default_rng(seed)
    return (rng.random((BATCH, SIZES[0]), dtype=np.float32),
            rng.integers(0, SIZES[-1], BATCH).astype(np.int32))


def numpy_loss_and_grads(params, x, labels):
    """Forward and backward by hand: mean softmax cross-entropy and its gradient per parameter."""
    w1, b1, w2, b2, w3, b3 = params
    z1 = x @ w1 + b1
    h1 = np.maximum(z1, 0)
    z2 = h1 @ w2 + b2
    h2 = np.maximum(z2, 0)
    logits = h2 @ w3 + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    rows = np.arange(len(labels))
    loss = np.mean(np.log(total[:, 0]) - shifted[rows, labels])

    d_logits = exp / total                  # softmax - one_hot(labels), averaged over the batch
    d_logits[rows, labels] -= 1
    d_logits /= len(labels)
    d_h2 = d_logits @ w3.T
    d_h2 *= z2 > 0                          # ReLU passes gradient where its input was positive
    d_h1 = d_h2 @ w2.T
    d_h1 *= z1 > 0
    grads = [x.T @ d_h1, d_h1.sum(axis=0), h1.T @ d_h2, d_h2.sum(axis=0), h2.T @ d_logits, d_logits.sum(axis=0)]
    return loss, grads


def numpy_step(params, x, labels, lr=LR):
    """One SGD step, updating ``params`` in place."""
    loss, grads = numpy_loss_and_grads(params, x, labels)
    for p, g in zip(params, grads):
        p -= lr * g
    return loss


def engine_loss_and_grads(variables, x, labels):
    """The same network as ordinary TensorFlow code."""
    w1, b1, w2, b2, w3, b3 = variables
    with tf.GradientTape() as tape:
        h1 = tf.nn.relu(tf.matmul(x, w1) + b1)
        h2 = tf.nn.relu(tf.matmul(h1, w2) + b2)
        logits = tf.matmul(h2, w3) + b3
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    return loss, tape.gradient(loss, variables)


def engine_step(variables, x, labels, lr=LR):
    loss, grads = engine_loss_and_grads(variables, x, labels)
    for v, g in zip(variables, grads):
        v.assign_sub(lr * g)
    return loss


def gradient_difference(seed=0):
    """Largest difference between engine and hand-written gradients (and losses), relative to their size."""
    params = init_params(seed)
    x, labels = make_batch(seed + 1)
    loss_np, grads_np = numpy_loss_and_grads([p.copy() for p in params], x, labels)
    loss_tf, grads_tf = engine_loss_and_grads([tf.Variable(p) for p in params], tf.constant(x),
                                              tf.constant(labels))
    worst = abs(float(loss_tf) - float(loss_np)) / max(abs(float(loss_np)), 1e-12)
    for g_tf, g_np in zip(grads_tf, grads_np):
        g_tf = np.asarray(g_tf)
        if g_tf.shape != g_np.shape or g_tf.dtype != g_np.dtype:
            return float("inf")
        worst = max(worst, float(np.max(np.abs(g_tf - g_np))) / max(float(np.max(np.abs(g_np))), 1e-12))
    return worst


def mlp_figures(steps=30, warmup=3):
    """Median milliseconds per training step: engine and hand-written NumPy, from the same start weights."""
    x, labels = make_batch()
    np_params = init_params()
    variables = [tf.Variable(p) for p in init_params()]
    tx, tlabels = tf.constant(x), tf.constant(labels)
    seconds = _median_times({"engine": lambda: engine_step(variables, tx, tlabels),
                             "numpy": lambda: numpy_step(np_params, x, labels)}, steps, warmup)
    return {name: 1e3 * s for name, s in seconds.items()}


# --------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------
def _row(name, engine, numpy, unit, target, met, reference):
    verdict = "yes" if met else "NO"
    return (f"{name:<40}{engine:>9.2f} {unit:<3}{numpy:>9.2f} {unit:<3}{engine / numpy:>7.2f}x   "
            f"{target + ': ' + verdict:<22}{reference}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few iterations only (a smoke test)")
    parser.add_argument("--steps", type=int, default=None, help="MLP steps to time (default 100)")
    args = parser.parse_args(argv)
    number, repeat, steps, warmup = (200, 3, 2, 1) if args.quick else (20000, 7, 100, 5)
    steps = args.steps or steps

    print(f"Engine speed next to NumPy  (Python {platform.python_version()}, NumPy {np.__version__}, "
          f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
          f"BLAS threads {os.environ.get('OPENBLAS_NUM_THREADS', 'default')})")
    if args.quick:
        print("quick mode: too few iterations for the timings to mean anything")
    print()
    print(f"{'':<40}{'engine':>9}    {'NumPy':>9}    {'ratio':>7}    {'target: met?':<22}TF 2 eager")

    d = dispatch_figures(number, repeat)
    print(_row("eager dispatch, a + b on 1 element", d["engine"], d["numpy"], "µs",
               f"<= {TARGETS['dispatch_us']:g} µs/op", d["engine"] <= TARGETS["dispatch_us"],
               f"~{TF_EAGER['dispatch_us']:g} µs/op"))
    print(_row("  the same, inside a GradientTape", d["tape"], d["numpy"], "µs",
               f"<= {TARGETS['tape_dispatch_us']:g} µs/op", d["tape"] <= TARGETS["tape_dispatch_us"], ""))
    print(_row("a Variable op in a GradientTape, v + v", d["variable"], d["numpy"], "µs",
               f"<= {TARGETS['tape_variable_us']:g} µs", d["variable"] <= TARGETS["tape_variable_us"],
               f"~{TF_EAGER['tape_variable_us']:g} µs"))
    print(f"  (best of {repeat} rounds of {number} ops)")

    m = mlp_figures(steps, warmup)
    ratio = m["engine"] / m["numpy"]
    print(_row(f"MLP train step, {BATCH}x{'-'.join(map(str, SIZES))}", m["engine"], m["numpy"], "ms",
               f"<= {TARGETS['mlp_ratio']:g}x NumPy", ratio <= TARGETS["mlp_ratio"],
               f"~{TF_EAGER['mlp_ms']:g} ms/step"))
    print(f"  (median of {steps} steps; NumPy = the same network written by hand: forward, backward, SGD)")

    diff = gradient_difference()
    same = diff <= 1e-4
    print()
    print(f"MLP gradients equal the hand-written NumPy gradients: {'yes' if same else 'NO'} "
          f"(largest relative difference {diff:.1e})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
