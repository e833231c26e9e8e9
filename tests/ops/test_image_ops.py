"""``tf.image`` basics against TF 2.21: values, dtypes and shapes from ``image_goldens.json`` (recorded by
``record_image_goldens.py`` from ``image_cases.py``), gradients by finite differences."""
import json
import os
import sys

import numpy as np
import pytest

import engine as tf
from tests.gradcheck import check_gradients, check_second_order

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import image_cases  # noqa: E402

with open(os.path.join(HERE, "image_goldens.json")) as _f:
    GOLDENS = json.load(_f)


def _compare(got, want, where):
    if isinstance(want, dict) and "value" in want:
        assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), where
        np.testing.assert_allclose(np.asarray(got["value"], np.float64), np.asarray(want["value"], np.float64),
                                   rtol=2e-6, atol=2e-5, err_msg=where)
    elif isinstance(want, list) and want and isinstance(want[0], list) and not isinstance(want[0], str):
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-5,
                                   atol=1e-4, err_msg=where)
    else:
        assert got == want, where


def test_goldens_cover_every_case():
    assert GOLDENS["tensorflow"] == "2.21.0"
    assert set(GOLDENS["cases"]) == set(image_cases.CASES)


@pytest.mark.parametrize("name", sorted(image_cases.CASES))
def test_case_matches_tf(name):
    got = json.loads(json.dumps(image_cases.run(tf, name)))
    for key, want in GOLDENS["cases"][name].items():
        _compare(got[key], want, f"{name}[{key!r}]")


@pytest.mark.parametrize("size", [(5, 3), (2, 7), (3, 4)])
def test_resize_bilinear_gradient_matches_finite_differences(size):
    x = np.random.default_rng(0).normal(size=(2, 3, 4, 2))
    check_gradients(lambda t: tf.image.resize(t, size), x, atol=1e-4, rtol=1e-3, delta=1e-3)


def test_resize_nearest_gradient_matches_finite_differences():
    x = np.random.default_rng(1).normal(size=(1, 3, 4, 1))
    check_gradients(lambda t: tf.image.resize(t, [5, 2], method="nearest"), x)


def test_resize_second_order_and_in_a_function():
    x = np.random.default_rng(2).normal(size=(1, 3, 3, 1))
    check_second_order(lambda t: tf.reduce_sum(tf.square(tf.image.resize(t, [4, 5]))), x, atol=1e-3, rtol=1e-2,
                       delta=1e-3)

    @tf.function
    def f(t):
        return tf.image.resize(t, [6, 6])

    t = tf.constant(x, tf.float32)
    np.testing.assert_allclose(f(t).numpy(), tf.image.resize(t, [6, 6]).numpy(), rtol=1e-6)
    assert f.get_concrete_function(tf.TensorSpec([None, 3, 3, 1], tf.float32)).outputs[0].shape.as_list() == \
        [None, 6, 6, 1]


def test_resize_op_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="output dimensions must be positive"):
        tf.image.resize(np.ones((1, 2, 2, 1), np.float32), [0, 2])
    with pytest.raises(NotImplementedError):
        tf.image.resize(np.ones((1, 2, 2, 1), np.float32), [3, 3], method="bicubic")


def test_resize_forward_mode_is_the_resize_of_the_tangent():
    x = tf.constant(np.ones((1, 2, 2, 1), np.float32))
    v = tf.constant(np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1))
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = tf.image.resize(x, [3, 3])
    np.testing.assert_allclose(acc.jvp(y).numpy(), tf.image.resize(v, [3, 3]).numpy(), rtol=1e-6)
