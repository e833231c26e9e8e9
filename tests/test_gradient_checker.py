"""``tf.test.compute_gradient`` as TF 2.21's: its default step, what it returns, what it refuses.

Golden values recorded from TF 2.21 (CPU) with the same calls."""
import numpy as np
import pytest

import engine as tf


def test_default_step_is_one_over_1024_for_every_dtype():
    # TF 2.21: the numerical Jacobian of sin at [0.5, 1.0] in float64 with delta = 1/1024
    _, numerical = tf.test.compute_gradient(tf.sin, [tf.constant([0.5, 1.0], tf.float64)])
    golden = [[0.8775824224023836, 0.0], [0.0, 0.5403022199893712]]
    np.testing.assert_allclose(numerical[0], golden, rtol=0, atol=1e-15)
    assert numerical[0].dtype == np.float64
    h = 1.0 / 1024   # the same central difference, by hand
    assert numerical[0][0, 0] == pytest.approx((np.sin(0.5 + h) - np.sin(0.5 - h)) / (2 * h), abs=1e-15)


def test_returns_tuples_of_jacobians_in_the_result_dtype():
    theoretical, numerical = tf.test.compute_gradient(lambda x, y: x * y, [1.0, 3.0])
    assert isinstance(theoretical, tuple) and isinstance(numerical, tuple) and len(theoretical) == 2
    assert [a.tolist() for a in theoretical] == [[[3.0]], [[1.0]]]
    np.testing.assert_allclose([a.tolist() for a in numerical], [[[3.0]], [[1.0]]], rtol=1e-6)
    assert theoretical[0].dtype == np.float32 and numerical[0].dtype == np.float32


def test_x_must_be_a_list_or_tuple():
    with pytest.raises(ValueError, match="must be a list or tuple"):
        tf.test.compute_gradient(tf.sin, tf.constant(1.0))
