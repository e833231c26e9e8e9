"""The benchmark runs, prints every figure, and compares two programs that compute the same thing.

Timings are never asserted: they depend on the machine. What is checked is that the benchmark is
correct: the hand-written NumPy backward pass is right (finite differences), and the engine's MLP
gives the same loss, gradients and updated weights on the same start weights.
"""
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import engine as tf

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # `bench` is run from the project root, not installed
from bench import run as bench  # noqa: E402


def test_quick_run_prints_every_figure():
    done = subprocess.run([sys.executable, "-m", "bench", "--quick"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for text in ("eager dispatch, a + b on 1 element", "inside a GradientTape", "MLP train step, 64x784-256-256-10",
                 "a Variable op in a GradientTape, v + v", "~37 µs",
                 "engine", "NumPy", "ratio", "<= 2 µs/op", "<= 4 µs/op", "<= 1.3x NumPy", "~17 µs/op",
                 "~5.4 ms/step", "MLP gradients equal the hand-written NumPy gradients: yes"):
        assert text in out, f"missing {text!r} in:\n{out}"
    ratios = re.findall(r"\d\.\d\d (?:µs|ms) +\d+\.\d\d (?:µs|ms) +\d+\.\d\dx", out)
    assert len(ratios) == 4, out   # four figures, each beside NumPy's, with the ratio


def test_numpy_backward_matches_finite_differences():
    """The hand-written backward pass, checked in float64 on a small network."""
    rng = np.random.default_rng(3)
    sizes = (6, 5, 4, 3)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params += [rng.standard_normal((fan_in, fan_out)), rng.standard_normal(fan_out) * 0.1]
    x, labels = rng.standard_normal((4, sizes[0])), np.array([0, 2, 1, 2])
    _, grads = bench.numpy_loss_and_grads(params, x, labels)
    eps = 1e-6
    for p, g in zip(params, grads):
        numeric = np.zeros_like(p)
        for i in np.ndindex(p.shape):
            old = p[i]
            p[i] = old + eps
            up, _ = bench.numpy_loss_and_grads(params, x, labels)
            p[i] = old - eps
            down, _ = bench.numpy_loss_and_grads(params, x, labels)
            p[i] = old
            numeric[i] = (up - down) / (2 * eps)
        np.testing.assert_allclose(g, numeric, rtol=1e-5, atol=1e-7)


def test_engine_mlp_gradients_equal_numpy():
    params = bench.init_params(seed=5)
    x, labels = bench.make_batch(seed=6)
    loss_np, grads_np = bench.numpy_loss_and_grads([p.copy() for p in params], x, labels)
    loss_tf, grads_tf = bench.engine_loss_and_grads([tf.Variable(p) for p in params], tf.constant(x),
                                                    tf.constant(labels))
    assert loss_tf.dtype == tf.float32 and loss_tf.shape == ()
    np.testing.assert_allclose(float(loss_tf), loss_np, rtol=1e-5)
    assert len(grads_tf) == len(grads_np) == 6
    for g_tf, g_np in zip(grads_tf, grads_np):
        assert g_tf.dtype == tf.float32 and tuple(g_tf.shape) == g_np.shape
        np.testing.assert_allclose(g_tf.numpy(), g_np, rtol=1e-4, atol=1e-6 * np.abs(g_np).max())
    assert bench.gradient_difference() <= 1e-4


def test_engine_and_numpy_steps_update_weights_alike():
    params = bench.init_params(seed=7)
    x, labels = bench.make_batch(seed=8)
    np_params = [p.copy() for p in params]
    variables = [tf.Variable(p) for p in params]
    for _ in range(2):
        loss_np = bench.numpy_step(np_params, x, labels)
        loss_tf = bench.engine_step(variables, tf.constant(x), tf.constant(labels))
        np.testing.assert_allclose(float(loss_tf), loss_np, rtol=1e-4)
    for v, p, start in zip(variables, np_params, params):
        assert not np.array_equal(p, start)   # the step changed the weights
        np.testing.assert_allclose(v.numpy(), p, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("figure", ["dispatch", "mlp"])
def test_figures_are_positive_numbers(figure):
    result = bench.dispatch_figures(50, 1) if figure == "dispatch" else bench.mlp_figures(steps=1, warmup=0)
    assert all(np.isfinite(v) and v > 0 for v in result.values()), result
