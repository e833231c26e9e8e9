"""Finite-difference gradient checks used by every op test.

``check_gradients(f, *arrays)`` runs ``f`` on float64 tensors and compares the
tape's Jacobian with central differences (``engine.test.compute_gradient``).
``check_second_order(f, x)`` does the same for the gradient of the gradient,
which exercises gradients written in engine ops.
"""
import numpy as np

import engine as tf


def check_gradients(f, *arrays, atol=1e-6, rtol=1e-5, delta=1e-6):
    """Assert tape gradients of ``f`` match finite differences at ``arrays`` (made float64)."""
    xs = [tf.constant(np.asarray(a, dtype=np.float64)) for a in arrays]
    theoretical, numerical = tf.test.compute_gradient(f, xs, delta=delta)
    for i, (t, n) in enumerate(zip(theoretical, numerical)):
        np.testing.assert_allclose(t, n, atol=atol, rtol=rtol,
                                   err_msg=f"gradient of argument {i} disagrees with finite differences")
    return theoretical


def check_second_order(f, x, atol=1e-5, rtol=1e-4, delta=1e-5):
    """Assert d/dx (sum of df/dx) from nested tapes matches finite differences of the first gradient."""
    x = np.asarray(x, dtype=np.float64)

    def first_grad(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = f(v)
        return tape.gradient(y, v)

    check_gradients(first_grad, x, atol=atol, rtol=rtol, delta=delta)
