"""Conformance with the guides "Introduction to gradients and automatic differentiation" and "Advanced
automatic differentiation", and the tf.custom_gradient API page. Golden values recorded from TF 2.21."""
import numpy as np
import pytest

import engine as tf


def test_custom_gradient_doc_log1pexp():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

    x = tf.constant(100.)
    with tf.GradientTape() as t:
        t.watch(x)
        y = log1pexp(x)
    assert float(t.gradient(y, x)) == 1.0


def test_custom_gradient_returning_too_many_gradients():
    # The API page's op_with_fused_backprop: its inner grad returns (ddy * 5.0, None) for ONE input.
    @tf.custom_gradient
    def op_with_fused_backprop(x):
        y, x_grad = x * 2, tf.ones_like(x) * 3

        def first_order_gradient(dy):
            @tf.custom_gradient
            def first_order_custom(unused_x):
                def second_order_and_transpose(ddy):
                    return ddy * 5.0, None
                return x_grad, second_order_and_transpose
            return dy * first_order_custom(x)
        return y, first_order_gradient

    x = tf.constant(4.0)
    with tf.GradientTape() as t1:
        t1.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            y = op_with_fused_backprop(x)
        g = t2.gradient(y, x)
    assert float(g) == 3.0
    with pytest.raises(ValueError, match="custom_gradient function expected to return 1 gradients, but returned 2 "
                                         "instead."):
        t1.gradient(g, x)


def test_custom_gradient_with_variables_needs_a_variables_argument():
    weights = tf.Variable(tf.ones([2]))

    @tf.custom_gradient
    def bad(x):
        poly = weights[1] * x

        def grad_fn(dpoly):
            return dpoly
        return poly, grad_fn

    x = tf.constant(3.)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match="@tf.custom_gradient grad_fn must accept keyword argument "
                                            "'variables', since function uses variables"):
            bad(x)

    @tf.custom_gradient
    def good(x):
        poly = weights[1] * x

        def grad_fn(dpoly, variables=None):
            return dpoly * weights[1], [tf.stack([0.0, dpoly * x])]
        return poly, grad_fn

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        p = good(x)
    assert float(tape.gradient(p, x)) == 1.0
    assert tape.gradient(p, weights).numpy().tolist() == [0.0, 3.0]

    @tf.custom_gradient
    def kwargs_ok(x):
        poly = weights[0] * x

        def grad_fn(dpoly, **kwargs):
            return dpoly, [tf.stack([dpoly * x, 0.0])]
        return poly, grad_fn

    with tf.GradientTape() as tape:
        tape.watch(x)
        p = kwargs_ok(x)
    assert tape.gradient(p, weights).numpy().tolist() == [3.0, 0.0]


@pytest.mark.parametrize("fn,expected", [
    (lambda x: tf.where(x > 0., tf.sqrt(x), 0.), [0.0, 0.25]),
    (lambda x: tf.where(x > 0., tf.math.rsqrt(x), 0.), [0.0, -0.0625]),
    (lambda x: tf.where(x > 0., tf.math.reciprocal(x), 0.), [0.0, -0.0625]),
    # no such rule for RealDiv and Log: 0 * inf stays NaN, as in TF
    (lambda x: tf.where(x > 0., 1 / x, 0.), [np.nan, -0.0625]),
    (lambda x: tf.where(x > 0., tf.math.log(x), 0.), [np.nan, 0.25]),
    (lambda x: tf.sqrt(x), [np.inf, 0.25]),
    (lambda x: tf.math.rsqrt(x), [-np.inf, -0.0625]),
    (lambda x: tf.math.reciprocal(x), [-np.inf, -0.0625]),
])
def test_masked_gradients_of_sqrt_rsqrt_reciprocal(fn, expected):
    # TF's SqrtGrad/RsqrtGrad/ReciprocalGrad kernels return 0 where the incoming gradient is 0.
    x = tf.constant([0., 4.])
    with tf.GradientTape() as t:
        t.watch(x)
        y = fn(x)
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), np.array(expected, np.float32))


def test_second_derivative_of_sqrt():
    x = tf.constant([0., 4.])
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.sqrt(x)
        d = t1.gradient(y, x)
    np.testing.assert_array_equal(d.numpy(), [np.inf, 0.25])
    np.testing.assert_array_equal(t2.gradient(d, x).numpy(), np.array([-np.inf, -0.03125], np.float32))
