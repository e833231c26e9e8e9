"""tf.math.tan/asin/acos/atan/atan2/sinh/cosh/asinh/acosh/atanh/expm1: values, dtypes, errors, gradients.
Golden values recorded from TF 2.21."""
import numpy as np
import pytest
from gradcheck import check_gradients, check_second_order

import engine as tf

X = np.array([-0.5, 0.0, 0.3, 0.9])
UNARY = {  # name: (NumPy reference, domain sample, top-level in TF 2?)
    "tan": (np.tan, X, True), "asin": (np.arcsin, X, True), "acos": (np.arccos, X, True),
    "atan": (np.arctan, X, True), "sinh": (np.sinh, X, True), "cosh": (np.cosh, X, True),
    "asinh": (np.arcsinh, X, True), "atanh": (np.arctanh, X, True), "expm1": (np.expm1, X, False),
    "acosh": (np.arccosh, np.array([1.2, 1.5, 3.0]), True),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_values_and_dtypes(name, dtype):
    ref, sample, _ = UNARY[name]
    y = getattr(tf.math, name)(tf.constant(sample, dtype))
    assert y.dtype == dtype and y.shape == sample.shape
    np.testing.assert_allclose(y.numpy(), ref(sample.astype(dtype.as_numpy_dtype)), rtol=2e-3 if dtype == tf.float16
                               else 1e-6)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_namespaces(name):
    assert hasattr(tf, name) == UNARY[name][2]


@pytest.mark.parametrize("name", sorted(UNARY))
def test_gradients(name):
    _, sample, _ = UNARY[name]
    check_gradients(getattr(tf.math, name), sample)
    check_second_order(getattr(tf.math, name), sample)


def test_golden_gradients_float32():
    # recorded from TF 2.21 at x = [-0.5, 0, 0.3, 0.9]
    x = tf.constant([-0.5, 0.0, 0.3, 0.9])
    golden = {"tan": [1.2984464, 1.0, 1.0956889, 2.5879986], "atan": [0.8, 1.0, 0.9174312, 0.55248624],
              "atanh": [1.3333334, 1.0, 1.0989012, 5.263158]}
    for name, expected in golden.items():
        with tf.GradientTape() as t:
            t.watch(x)
            y = getattr(tf.math, name)(x)
        np.testing.assert_allclose(t.gradient(y, x).numpy(), expected, rtol=1e-6)


def test_atan2_values_broadcasting_and_gradients():
    a = np.array([[1.0], [-2.0]])
    b = np.array([3.0, -1.0, 0.5])
    y = tf.math.atan2(tf.constant(a), tf.constant(b))
    assert y.shape == (2, 3) and y.dtype == tf.float64
    np.testing.assert_allclose(y.numpy(), np.arctan2(a, b))
    assert tf.atan2 is tf.math.atan2
    check_gradients(tf.math.atan2, a, b)
    assert float(tf.math.atan2(0.0, 0.0)) == 0.0


def test_out_of_domain_is_nan_not_an_error():
    assert np.isnan(tf.math.asin(2.0).numpy())
    assert np.isnan(tf.math.acosh(0.5).numpy())


def test_dtype_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tan"):
        tf.math.tan(1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Atan2"):
        tf.math.atan2(tf.constant(1.0), tf.constant(1.0, tf.float64))


def test_in_a_function():
    @tf.function
    def f(x):
        return tf.math.atan2(x, 1.0) + tf.sinh(x)
    assert float(f(tf.constant(0.5))) == pytest.approx(np.arctan2(0.5, 1.0) + np.sinh(0.5), rel=1e-6)


def test_math_aliases():
    assert tf.math.l2_normalize([3.0, 4.0]).numpy().tolist() == pytest.approx([0.6, 0.8])
    np.testing.assert_allclose(tf.math.softmax([1.0, 2.0]).numpy(), [0.26894142, 0.7310586], rtol=1e-6)
    np.testing.assert_allclose(tf.math.softsign([1.0, -2.0]).numpy(), [0.5, -2.0 / 3.0], rtol=1e-6)
