"""``tf.image.adjust_contrast`` (op ``AdjustContrastv2``): values, integer images, errors, and TF's missing
gradient (guide/autodiff shows the ``LookupError``). Expected values recorded from TF 2.21."""
import numpy as np
import pytest

import engine as tf

# TF 2.21: tf.image.adjust_contrast(np.arange(24, dtype=float32).reshape(2,2,2,3) / 10, 1.7), first 6 values
TF_FLOAT = [-0.3150000274181366, -0.21500003337860107, -0.11500000953674316, 0.19499999284744263,
            0.29499998688697815, 0.39500001072883606]
# TF 2.21: tf.image.adjust_contrast(uint8 arange(12).reshape(2,2,3) * 20, 2.0)
TF_UINT8 = [0, 0, 0, 30, 50, 70, 150, 170, 190, 255, 255, 255]


def test_values_as_tf():
    x = np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3) / 10
    np.testing.assert_allclose(tf.image.adjust_contrast(x, 1.7).numpy().ravel()[:6], TF_FLOAT, rtol=0, atol=1e-6)
    image = tf.constant(np.arange(12, dtype=np.uint8).reshape(2, 2, 3) * 20)
    out = tf.image.adjust_contrast(image, 2.0)
    assert out.dtype == tf.uint8 and out.numpy().ravel().tolist() == TF_UINT8
    assert tf.function(lambda v: tf.image.adjust_contrast(v, 1.7))(tf.constant(x)).shape == (2, 2, 2, 3)


def test_errors_and_no_gradient():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input must be at least 3-D, got shape\[2,2\] "
                                                             r"\[Op:AdjustContrastv2\]"):
        tf.image.adjust_contrast(tf.ones([2, 2]), 1.0)
    image, delta = tf.Variable([[[0.5, 0.0, 0.0]]]), tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    with pytest.raises(LookupError, match="^gradient registry has no entry for: AdjustContrastv2$"):
        tape.gradient(new_image, [image, delta])
