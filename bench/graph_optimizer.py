"""``python -m bench.graph_optimizer``: what the graph optimizer buys, measured.

Two graphs, each compiled twice: with every optimizer pass switched off
(``disable_meta_optimizer``), and with the default passes. Both plans compute
the same values (checked here); the figures compare them, next to the same
computation written directly in NumPy:

1. **200 tiny elementwise ops** on a 64-element float32 vector
   (``y = tanh(y * a + b)``, repeated, then a few more ops). Each op is almost
   free; what costs is running 200 kernels. Fusion makes one generated kernel
   out of them, which works in one reused buffer.
2. **The MLP forward pass**, batch 64, 784-256-256-10, ReLU, written with
   ``tf.matmul`` + ``tf.nn.bias_add`` + ``tf.nn.relu`` on variables. Here the
   matrix products dominate; fusion saves the separate bias and ReLU passes and
   their intermediate tensors.

For each: kernels called per run, time per run of the compiled plan (best of
rounds, the contenders alternating), and peak memory: the optimizer's static estimate
(values alive at once, from static shapes) and the peak NumPy actually
allocated during one run, measured with ``tracemalloc``.

    .venv/bin/python -m bench.graph_optimizer            # a measurement (a few seconds)
    .venv/bin/python -m bench.graph_optimizer --quick    # a smoke test
"""
import argparse
import sys

import numpy as np

import engine as tf
from engine.framework.executor import compile_plan

from .run import _median_times

OFF = {"disable_meta_optimizer": True}
ON = {}
CHAIN_OPS, CHAIN_SIZE = 200, 64
BATCH, SIZES = 64, (784, 256, 256, 10)


# --------------------------------------------------------------------------------------
# The two graphs, and the same computations in NumPy
# --------------------------------------------------------------------------------------
def chain_constants(seed=0):
    rng = np.random.default_rng(seed)
    return [np.float32(v) for v in rng.uniform(0.5, 1.5, size=CHAIN_OPS)]


def chain_graph(consts):
    """``CHAIN_OPS`` elementwise nodes after a placeholder: ``tanh(y * a + b)`` blocks, then ``+ c`` s."""
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [CHAIN_SIZE], name="x")
        y, i = x, 0
        while i + 3 <= CHAIN_OPS:
            y = tf.tanh(y * consts[i] + consts[i + 1])
            i += 3
        while i < CHAIN_OPS:
            y = y + consts[i]
            i += 1
    return g, x, y


def chain_numpy(x, consts):
    y, i = x, 0
    while i + 3 <= CHAIN_OPS:
        y = np.tanh(y * consts[i] + consts[i + 1])
        i += 3
    while i < CHAIN_OPS:
        y = y + consts[i]
        i += 1
    return y


def mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32))
        params.append(rng.standard_normal(fan_out).astype(np.float32) * 0.1)
    return params


def mlp_graph(params):
    """The forward pass on (eager) variables, read by the graph as TF1 graphs read resource variables."""
    variables = [tf.Variable(p) for p in params]
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [BATCH, SIZES[0]], name="x")
        h = x
        for k in range(0, len(variables), 2):
            h = tf.nn.bias_add(tf.matmul(h, variables[k]), variables[k + 1])
            if k + 2 < len(variables):
                h = tf.nn.relu(h)
    return g, x, h, variables


def mlp_numpy(x, params):
    h = x
    for k in range(0, len(params), 2):
        h = h @ params[k] + params[k + 1]
        if k + 2 < len(params):
            h = np.maximum(h, 0)
    return h


# --------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------
def measure(fetch, feed, value, numpy_fn, rounds, number):
    """Compile ``fetch`` with the optimizer off and on; time both against ``numpy_fn``; compare results."""
    plans = {"off": compile_plan([fetch], [], [feed], options=OFF), "on": compile_plan([fetch], [], [feed], options=ON)}
    feeds = [value]
    expected = numpy_fn()
    results = {name: plan(feeds)[0] for name, plan in plans.items()}
    equal = all(np.allclose(r, expected, rtol=1e-5, atol=1e-6) for r in results.values()) and \
        np.array_equal(results["off"], results["on"])

    def repeat(fn):
        def work():
            for _ in range(number):
                fn()
        return work

    # Best of the rounds (as timeit advises): the fastest round is the one least disturbed by the machine.
    seconds = _median_times({"off": repeat(lambda: plans["off"](feeds)), "on": repeat(lambda: plans["on"](feeds)),
                             "numpy": repeat(numpy_fn)}, rounds, statistic=min)
    per_run = {name: s / number for name, s in seconds.items()}
    measured = {name: min(plan.measure_peak_bytes(feeds) for _ in range(3)) for name, plan in plans.items()}
    return {"plans": plans, "time": per_run, "measured": measured, "equal": equal}


def _kernels(plan):
    """Nodes whose kernel runs: constants are bound into the generated code, NoOps generate none."""
    return sum(op.type not in ("Const", "NoOp") for op in plan.ops)


def _time(seconds):
    return f"{seconds * 1e6:9.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:9.3f} ms"


def _bytes(n):
    return f"{n / 1024:8.1f} KiB"


def report(title, figures):
    off, on = figures["plans"]["off"], figures["plans"]["on"]
    t = figures["time"]
    lines = [title,
             f"  {'':28}{'optimizer off':>16}{'optimizer on':>16}{'NumPy':>14}",
             f"  {'kernels called per run':28}{_kernels(off):>16}{_kernels(on):>16}{'':>14}",
             f"  {'time per run':28}{_time(t['off']):>16}{_time(t['on']):>16}{_time(t['numpy']):>14}",
             f"  {'  ratio to NumPy':28}{t['off'] / t['numpy']:>15.2f}x{t['on'] / t['numpy']:>15.2f}x",
             f"  {'  speed-up from optimizing':28}{'':>16}{t['off'] / t['on']:>15.2f}x",
             f"  {'peak bytes, static plan':28}{_bytes(on.memory.peak_before):>16}{_bytes(on.memory.peak_after):>16}",
             f"  {'peak bytes, measured':28}{_bytes(figures['measured']['off']):>16}"
             f"{_bytes(figures['measured']['on']):>16}",
             f"  passes: {on.report.summary()}",
             f"  optimized and unoptimized results equal (and equal to NumPy): {'yes' if figures['equal'] else 'NO'}"]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few iterations: a smoke test, not a measurement")
    args = parser.parse_args(argv)
    rounds, chain_number, mlp_number = (2, 20, 3) if args.quick else (15, 500, 40)

    consts = chain_constants()
    _, x, y = chain_graph(consts)
    xv = np.random.default_rng(1).uniform(-1, 1, CHAIN_SIZE).astype(np.float32)
    chain = measure(y, x, xv, lambda: chain_numpy(xv, consts), rounds, chain_number)

    params = mlp_params()
    _, x, logits, _variables = mlp_graph(params)
    batch = np.random.default_rng(2).random((BATCH, SIZES[0]), dtype=np.float32)
    mlp = measure(logits, x, batch, lambda: mlp_numpy(batch, params), rounds, mlp_number)

    print("Graph optimizer: compiled plans with every pass off, and with the default passes")
    print(report(f"{CHAIN_OPS} tiny elementwise ops ({CHAIN_SIZE} float32 elements)", chain))
    print(report(f"MLP forward pass, {BATCH}x{'-'.join(map(str, SIZES))}, MatMul + BiasAdd + Relu", mlp))
    return 0 if chain["equal"] and mlp["equal"] else 1


if __name__ == "__main__":
    sys.exit(main())
