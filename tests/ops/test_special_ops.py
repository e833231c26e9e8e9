"""tf.math special functions: values recorded from TF 2.21 (float64), finite-difference gradients, dtype errors."""
import numpy as np
import pytest
from gradcheck import check_gradients, check_second_order

import engine as tf
from engine.framework.errors import InvalidArgumentError, NotFoundError

X = [0.5, 1.0, 2.5, -1.5]


@pytest.mark.parametrize("fn, x, expected", [
    (tf.math.lgamma, X, [0.57236494, 0., 0.28468287, 0.86004702]),
    (tf.math.lgamma, [0., -1., -2.5, 1e-300], [np.inf, np.inf, -5.62437165e-02, 6.90775528e+02]),
    (tf.math.digamma, X, [-1.96351003, -0.57721566, 0.70315664, 0.70315664]),
    (tf.math.digamma, [0., -1., -2.5, 1e-8, 100.], [np.nan, np.nan, 1.10315664e+00, -1.00000001e+08, 4.60016185]),
    (tf.math.erfinv, [-0.5, 0., 0.9, 1.], [-0.47693628, 0., 1.16308715, np.inf]),
    (tf.math.erfinv, [-2., 2.], [np.nan, np.nan]),
    (tf.math.ndtri, [0.1, 0.5], [-1.2815516, 0.]),
    (tf.math.bessel_i0e, [0., 1., -2., 10., 100.], [1., 0.46575961, 0.30850832, 0.12783334, 0.03994438]),
    (tf.math.bessel_i1e, [0., 1., -2., 10., 100.], [0., 0.20791042, -0.21526929, 0.12126268, 0.03974415]),
])
def test_unary_values_match_tf(fn, x, expected):
    out = fn(tf.constant(x, tf.float64))
    assert out.dtype == tf.float64 and out.shape == (len(x),)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-7, atol=1e-8)


def test_binary_values_match_tf():
    x, y = tf.constant([0., 1., 2.]), tf.constant([0., 2., 3.])
    np.testing.assert_allclose(tf.math.xlogy(x, y).numpy(), [0., 0.6931472, 2.1972246], rtol=1e-6)
    np.testing.assert_allclose(tf.math.xdivy(x, y).numpy(), [0., 0.5, 0.6666667], rtol=1e-6)
    np.testing.assert_allclose(tf.math.xlog1py(x, tf.constant([-1., 2., 3.])).numpy(), [0., 1.0986123, 2.7725887],
                               rtol=1e-6)
    np.testing.assert_allclose(tf.math.polygamma(tf.constant([1., 2.]), tf.constant([1.5, 2.5])).numpy(),
                               [0.93480223, -0.23620404], rtol=1e-6)
    np.testing.assert_allclose(tf.math.zeta(tf.constant([2.0], tf.float64), tf.constant([1.0], tf.float64)).numpy(),
                               [np.pi ** 2 / 6], rtol=1e-12)
    assert tf.math.lgamma(tf.constant([1.5], tf.float16)).dtype == tf.float16


def test_xlogy_xdivy_gradients_at_zero_match_tf():
    x, y = tf.constant([0., 1., 2.]), tf.constant([0., 2., 0.])
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, y])
        a, b = tf.math.xlogy(x, y), tf.math.xdivy(x, y)
    np.testing.assert_allclose([g.numpy() for g in t.gradient(a, [x, y])], [[0., 0.6931472, -np.inf], [0., 0.5, np.inf]],
                               rtol=1e-6)
    np.testing.assert_allclose([g.numpy() for g in t.gradient(b, [x, y])], [[0., 0.5, np.inf], [0., -0.25, -np.inf]],
                               rtol=1e-6)


@pytest.mark.parametrize("fn, x", [
    (tf.math.lgamma, [0.3, 0.7, 2.5, -1.5]), (tf.math.digamma, [0.3, 0.7, 2.5, -1.5, 12.0]),
    (tf.math.erfinv, [-0.7, 0.1, 0.9]), (tf.math.ndtri, [0.2, 0.6]),
    (tf.math.bessel_i0e, [-3., -0.5, 0.7, 9.]), (tf.math.bessel_i1e, [-3., -0.5, 0.7, 9.]),
])
def test_unary_gradients(fn, x):
    check_gradients(fn, np.array(x))
    check_second_order(fn, np.array(x))


def test_golden_gradients_match_tf():
    xx = tf.constant([0.3, 0.7], tf.float64)
    for fn, expected in [(tf.math.lgamma, [-3.50252422, -1.22002355]), (tf.math.digamma, [12.24536455, 2.83404916]),
                         (tf.math.erfinv, [0.95452036, 1.51636322]), (tf.math.bessel_i0e, [-0.64520306, -0.37463554])]:
        with tf.GradientTape() as t:
            t.watch(xx)
            y = fn(xx)
        np.testing.assert_allclose(t.gradient(y, xx).numpy(), expected, rtol=1e-7)


def test_binary_gradients():
    rng = np.random.default_rng(0)
    y = rng.uniform(0.5, 2.0, (2, 3))
    check_gradients(tf.math.xlogy, rng.standard_normal((2, 3)), y[0])
    check_gradients(tf.math.xdivy, rng.standard_normal((2, 3)), y)
    check_gradients(tf.math.xlog1py, rng.standard_normal(3), y)
    check_gradients(lambda x: tf.math.polygamma(tf.constant([1., 2.], tf.float64), x), np.array([0.8, 1.9]))
    check_gradients(lambda q: tf.math.zeta(tf.constant([2.5, 3.], tf.float64), q), np.array([0.8, 1.9]))


def test_dtype_errors_match_tf():
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of int32.*Lgamma"):
        tf.math.lgamma(tf.constant([1, 2]))
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of int32.*Xlogy"):
        tf.math.xlogy(tf.constant([1, 2]), tf.constant([1, 2]))
    with pytest.raises(InvalidArgumentError, match="input #1.*Xlogy"):
        tf.math.xlogy(tf.constant([1.]), tf.constant([1.], tf.float64))
    with pytest.raises(NotFoundError, match="Erfinv"):
        tf.math.erfinv(tf.constant([0.5], tf.float16))
