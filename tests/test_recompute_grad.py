"""tf.recompute_grad: same gradients as the plain function, forward recomputed in the backward pass."""
import numpy as np

import engine as tf

RNG = np.random.default_rng(1)


def test_gradients_equal_the_plain_function_and_forward_is_recomputed():
    w = tf.Variable(RNG.standard_normal((3, 2)))
    b = tf.Variable(RNG.standard_normal((2,)))
    calls = []

    def block(x, scale=1.0):
        calls.append(1)
        return tf.tanh(tf.matmul(x, w) + b) * scale

    x = tf.constant(RNG.standard_normal((4, 3)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(block(x, scale=2.0) ** 2)
    expected = tape.gradient(y, [x, w, b])

    wrapped = tf.recompute_grad(block)
    calls.clear()
    with tf.GradientTape() as tape:
        tape.watch(x)
        y2 = tf.reduce_sum(wrapped(x, scale=2.0) ** 2)
        assert len(calls) == 1
    # The whole block is ONE recorded op (its intermediates are not kept), then Pow and Sum.
    assert [e.type for e in tape._entries] == ["block", "Pow", "Sum"]
    got = tape.gradient(y2, [x, w, b])
    assert len(calls) == 2          # the backward pass ran the forward again
    np.testing.assert_allclose(y2.numpy(), y.numpy())
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12)


def test_several_inputs_without_variables():
    f = tf.recompute_grad(lambda a, b: tf.sin(a) * b)
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = f(a, b)
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_allclose(ga.numpy(), np.cos([1.0, 2.0]) * [3.0, 4.0], rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), np.sin([1.0, 2.0]), rtol=1e-6)


def test_second_order_through_recompute_grad():
    a = tf.constant([1.0, 2.0])
    with tf.GradientTape() as outer:
        outer.watch(a)
        with tf.GradientTape() as inner:
            inner.watch(a)
            y = tf.reduce_sum(tf.recompute_grad(lambda q: q ** 3)(a))
        g = inner.gradient(y, a)
    np.testing.assert_allclose(g.numpy(), [3.0, 12.0])
    np.testing.assert_allclose(outer.gradient(g, a).numpy(), [6.0, 12.0])


def test_keeps_name_and_values():
    def my_block(x):
        return x * 2.0
    wrapped = tf.recompute_grad(my_block)
    assert wrapped.__name__ == "my_block"
    np.testing.assert_allclose(wrapped(tf.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
