"""Shared helpers of the tf.keras tests: the engine's keras package and float comparisons.

Until the lead wires ``tf.keras`` in ``engine/__init__.py``, importing ``engine.keras``
also makes ``engine.keras`` available as ``tf.keras`` (a submodule import sets the
package attribute).
"""
import numpy as np

import engine as tf
import engine.keras as keras  # noqa: F401

F32 = np.float32


def f32(x):
    return np.asarray(x, dtype=np.float32)


def assert_close(got, want, tol=1e-5):
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


__all__ = ["tf", "keras", "f32", "assert_close", "F32"]
