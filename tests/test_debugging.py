"""tf.debugging assertions, eagerly and inside tf.function (messages as in TF 2.21)."""
import numpy as np
import pytest

import engine as tf


def test_eager_assertions_pass_and_fail_with_tf_wording():
    assert tf.debugging.assert_equal(1, 1) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x == y did not hold"):
        tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x < y did not hold"):
        tf.debugging.assert_less(tf.constant(2), tf.constant(1))
    tf.debugging.assert_greater_equal(tf.constant([2, 3]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="x and y not equal to tolerance"):
        tf.debugging.assert_near(tf.constant(1.0), tf.constant(1.1))
    tf.debugging.assert_near(tf.constant(1.0), tf.constant(1.0 + 1e-7))
    with pytest.raises(ValueError, match="must have rank 2.  Received rank 1"):
        tf.debugging.assert_rank(tf.constant([1.0]), 2)


def test_check_numerics():
    x = tf.constant([1.0, 2.0])
    assert tf.debugging.check_numerics(x, "ok") is x
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad : Tensor had NaN values"):
        tf.debugging.check_numerics(tf.constant([1.0, np.nan]), "bad")
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad : Tensor had Inf values"):
        tf.debugging.check_numerics(tf.constant([np.inf]), "bad")


def test_assertions_inside_a_function_fail_when_they_run():
    @tf.function
    def positive_sqrt(x):
        tf.debugging.assert_greater_equal(x, 0.0)
        return tf.sqrt(tf.debugging.check_numerics(x, "x"))

    assert float(positive_sqrt(tf.constant(4.0))) == 2.0
    with pytest.raises(tf.errors.InvalidArgumentError):
        positive_sqrt(tf.constant(-1.0))
    assert positive_sqrt.experimental_get_tracing_count() == 1
