"""``python -m bench.function``: what ``tf.function`` buys, measured next to eager and NumPy.

Four figures, each printed beside its target:

1. **A chain of 200 tiny elementwise ops** on 64 float32 values: the traced
   function (one fused kernel after the optimizer) against the same chain run
   eagerly op by op, and against NumPy running it op by op.
2. **The MLP training step** (batch 64, 784-256-256-10, ReLU, sparse softmax
   cross-entropy, SGD): traced, eager, and the hand-written NumPy step from
   ``bench/run.py``.
3. **The fixed cost of a call**: an identity ``tf.function`` called with one tensor.
4. **The first call** of the MLP step: tracing (the target), then optimize + compile + the first run.

    .venv/bin/python -m bench.function            # a measurement (several seconds)
    .venv/bin/python -m bench.function --quick    # a smoke test
"""
import argparse
import sys
import time

import numpy as np

import engine as tf

from . import run as mlp
from .run import _median_times

TARGETS = {"chain_vs_numpy": 0.5, "mlp_vs_numpy": 1.1, "identity_us": 10.0, "first_call_ms": 20.0}
TF_REFERENCE = {"mlp_ms": 1.46, "identity_us": 239.0, "chain_us": 375.0, "first_call_ms": 112.0}


def chain(x, a, b):
    """200 elementwise ops, written once for the engine and once for NumPy (same code, duck typing)."""
    y = x
    for _ in range(50):
        y = y * a + b       # 2 ops
        y = y - a * 0.5     # 2 ops
    return y


def chain_numpy(x, a, b):
    y = x
    for _ in range(50):
        y = y * a + b
        y = y - a * 0.5
    return y


def make_mlp_step(variables):
    """The training step of ``bench/run.py``, as a tf.function."""
    @tf.function
    def step(x, labels):
        return mlp.engine_step(variables, x, labels)
    return step


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.function", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few iterations only (a smoke test)")
    args = parser.parse_args(argv)
    rounds, steps = (2, 3) if args.quick else (7, 60)

    rng = np.random.default_rng(0)
    xn, an, bn = (rng.random(64, dtype=np.float32) for _ in range(3))
    x, a, b = tf.constant(xn), tf.constant(an), tf.constant(bn)
    traced_chain = tf.function(chain)
    np.testing.assert_allclose(traced_chain(x, a, b).numpy(), chain_numpy(xn, an, bn), rtol=1e-5)
    t = _median_times({"traced": lambda: traced_chain(x, a, b), "eager": lambda: chain(x, a, b),
                       "numpy": lambda: chain_numpy(xn, an, bn)}, rounds * 20, statistic=min)
    us = {k: v * 1e6 for k, v in t.items()}

    identity = tf.function(lambda v: v)
    identity(x)
    n = 200 if args.quick else 20000
    best = min(_timed(lambda: identity(x), n) for _ in range(rounds))
    identity_us = best / n * 1e6

    xb, labels = mlp.make_batch()
    variables = [tf.Variable(p) for p in mlp.init_params()]
    step = make_mlp_step(variables)
    tx, tl = tf.constant(xb), tf.constant(labels)
    start = time.perf_counter()
    step.get_concrete_function(tx, tl)          # trace (AutoGraph conversion included)
    trace_ms = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    step(tx, tl)                                # optimize + compile the plan, then the first run
    first_ms = trace_ms + (time.perf_counter() - start) * 1e3
    eager_vars = [tf.Variable(p) for p in mlp.init_params()]
    np_params = mlp.init_params()
    ms = _median_times({"traced": lambda: step(tx, tl), "eager": lambda: mlp.engine_step(eager_vars, tx, tl),
                        "numpy": lambda: mlp.numpy_step(np_params, xb, labels)}, steps, 3)
    ms = {k: v * 1e3 for k, v in ms.items()}

    print("tf.function next to eager and NumPy")
    if args.quick:
        print("quick mode: too few iterations for the timings to mean anything")
    print()
    _line("200-op elementwise chain (64 floats)", f"traced {us['traced']:.1f} µs, eager {us['eager']:.1f} µs, "
          f"NumPy {us['numpy']:.1f} µs", us["traced"] / us["numpy"], "x NumPy", TARGETS["chain_vs_numpy"],
          f"TF ~{TF_REFERENCE['chain_us']:g} µs")
    _line("MLP train step 64x784-256-256-10", f"traced {ms['traced']:.2f} ms, eager {ms['eager']:.2f} ms, "
          f"NumPy {ms['numpy']:.2f} ms", ms["traced"] / ms["numpy"], "x NumPy", TARGETS["mlp_vs_numpy"],
          f"TF ~{TF_REFERENCE['mlp_ms']:g} ms")
    _line("identity tf.function call", f"{identity_us:.2f} µs", identity_us, "µs", TARGETS["identity_us"],
          f"TF ~{TF_REFERENCE['identity_us']:g} µs")
    _line("tracing the MLP step", f"{trace_ms:.1f} ms (first call in all, with optimize + compile + first run: "
          f"{first_ms:.1f} ms)", trace_ms, "ms", TARGETS["first_call_ms"],
          f"TF first call ~{TF_REFERENCE['first_call_ms']:g} ms")
    print(f"\ntraces of the MLP step: {step.experimental_get_tracing_count()}")
    return 0


def _timed(fn, n):
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return time.perf_counter() - start


def _line(name, detail, value, unit, target, reference):
    verdict = "yes" if value <= target else "NO"
    print(f"{name:<38} {detail}")
    print(f"{'':<38} {value:.2f}{unit}  (target <= {target:g}{unit}: {verdict})   {reference}")


if __name__ == "__main__":
    sys.exit(main())
