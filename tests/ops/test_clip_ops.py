"""Norms and clipping, composed from registered ops (golden values recorded from TF 2.21)."""
import numpy as np
import pytest

import engine as tf
from gradcheck import check_gradients


def test_norm_values_match_tf():
    assert float(tf.norm([3.0, 4.0])) == 5.0
    np.testing.assert_allclose(tf.norm([[1.0, -2.0], [3.0, 4.0]], ord=1, axis=1).numpy(), [3.0, 7.0])
    assert float(tf.norm([1.0, -5.0], ord=np.inf)) == 5.0
    assert tf.norm(tf.ones([2, 3]), axis=1, keepdims=True).shape == (2, 1)
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm"):
        tf.norm([1.0], ord=3)


def test_clip_by_norm_matches_tf():
    np.testing.assert_allclose(tf.clip_by_norm([3.0, 4.0], 1.0).numpy(), [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(tf.clip_by_norm([[3.0, 4.0], [0.3, 0.4]], 1.0, axes=[1]).numpy(),
                               [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)


def test_clip_by_global_norm_matches_tf():
    clipped, g = tf.clip_by_global_norm([tf.constant([3.0, 0.0]), tf.constant([0.0, 4.0]), None], 2.5)
    assert float(g) == 5.0 and clipped[2] is None
    np.testing.assert_allclose(clipped[0].numpy(), [1.5, 0.0])
    np.testing.assert_allclose(clipped[1].numpy(), [0.0, 2.0])


def test_l2_normalize_matches_tf():
    np.testing.assert_allclose(tf.nn.l2_normalize([3.0, 4.0]).numpy(), [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(tf.nn.l2_normalize([[3.0, 4.0], [0.0, 0.0]], axis=1).numpy(),
                               [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)


def test_gradients_of_norm_and_clipping():
    x = np.array([[0.3, -1.2, 2.0], [0.5, 0.1, -0.7]])
    check_gradients(lambda t: tf.norm(t), x)
    check_gradients(lambda t: tf.norm(t, axis=1), x)
    check_gradients(lambda t: tf.clip_by_norm(t, 1.0), x)
    check_gradients(lambda t: tf.nn.l2_normalize(t, axis=1), x)
    check_gradients(lambda a, b: tf.clip_by_global_norm([a, b], 1.0)[0][0], x, x[::-1])
