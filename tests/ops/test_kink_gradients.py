"""Gradients at kinks, poles and other special points equal TF 2.21's, for every differentiable elementwise op.

The goldens (``kink_gradients_golden.json``) were recorded from real TF 2.21 by
``record_math_goldens.py`` (rerun it under a TensorFlow venv to re-record): for each unary function of
``tf.math`` / ``tf.nn``, the value, the tape gradient and the gradient of that gradient at x in {-1, 0, 1}
(float32); for each binary function, both tape gradients at pairs such as (0, 0), (0, 1), (1, 0). NaN and
inf are compared as such; a gradient TF gives as ``None`` must be ``None`` here too. Where TF has no
second-order rule (``SoftsignGrad``) it recorded a ``LookupError``; the engine's rule is then checked by
finite differences instead.
"""
import json
import os

import numpy as np
import pytest

import engine as tf
from gradcheck import check_gradients, check_second_order

with open(os.path.join(os.path.dirname(__file__), "kink_gradients_golden.json")) as _f:
    GOLDEN = json.load(_f)

COMPOSED = {
    "sqrt(softsign)": lambda x: tf.sqrt(tf.nn.softsign(x)),
    "gelu_approximate": lambda x: tf.nn.gelu(x, approximate=True),
}
SCALE = 1.0507009873554804934193349852946


def lookup(path):
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def function_of(key):
    name = key.split("@")[0]
    return COMPOSED.get(name) or lookup(name)


def as_list(t):
    return None if t is None else np.asarray(t).astype(np.float64).tolist()


def assert_same(actual, expected, what, signed_zeros=False):
    """Equal within float32 rounding, with NaN where TF has NaN and inf (of the same sign) where it has inf.

    ``signed_zeros``: also -0. where TF has -0. (checked for values; a gradient's zero sign is left alone,
    TF's vectorized kernels do not agree with their own scalar path on it)."""
    if expected is None or actual is None:
        assert actual is expected, f"{what}: engine {actual}, TF {expected}"
        return
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=what)
    if signed_zeros:
        zeros = expected == 0
        np.testing.assert_array_equal(np.signbit(actual[zeros]), np.signbit(expected[zeros]), err_msg=what + " (-0.)")


def tape_grads(f, points, dtype):
    x = tf.constant(points, dtype)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    gg = outer.gradient(g, x) if g is not None else None
    return as_list(y), as_list(g), as_list(gg)


@pytest.mark.parametrize("key", sorted(GOLDEN["unary"]))
def test_unary_gradient_at_special_points_equals_tf(key):
    rec = GOLDEN["unary"][key]
    dtype = tf.float64 if key.endswith("float64") else tf.float32
    y, g, gg = tape_grads(function_of(key), rec["x"], dtype)
    assert_same(y, rec["y"], f"{key}({rec['x']})", signed_zeros=True)
    assert_same(g, rec["grad"], f"d/dx {key} at {rec['x']}")
    if isinstance(rec["grad2"], str):   # TF: no second-order rule; ours is checked by finite differences below
        assert rec["grad2"].startswith("LookupError")
    else:
        assert_same(gg, rec["grad2"], f"d2/dx2 {key} at {rec['x']}")


@pytest.mark.parametrize("key", sorted(GOLDEN["binary"]))
def test_binary_gradients_at_ties_and_zeros_equal_tf(key):
    rec = GOLDEN["binary"][key]
    x, y = tf.constant(rec["x"], tf.float32), tf.constant(rec["y"], tf.float32)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = lookup(key)(x, y)
    gx, gy = tape.gradient(z, [x, y])
    pairs = list(zip(rec["x"], rec["y"]))
    assert_same(as_list(z), rec["z"], f"{key} at {pairs}", signed_zeros=True)
    assert_same(as_list(gx), rec["grad_x"], f"d/dx {key} at {pairs}")
    assert_same(as_list(gy), rec["grad_y"], f"d/dy {key} at {pairs}")


@pytest.mark.parametrize("table", ["zeta", "polygamma"])
def test_zeta_and_polygamma_at_their_poles_equal_tf(table):
    """Behind digamma's gradient (``polygamma(1, x)``) at 0, -1, -2: inf in TF (Eigen's convention), not NaN."""
    rec = GOLDEN[table]
    first, second = ("s", "q") if table == "zeta" else ("n", "x")
    got = lookup("math." + table)(tf.constant(rec[first]), tf.constant(rec[second]))
    assert_same(as_list(got), rec["value"], f"{table} at {list(zip(rec[first], rec[second]))}")


# --- the cases the issue names, spelled out ---------------------------------------------------------------------
def test_selu_gradient_at_zero_is_scale():
    for dtype in (tf.float32, tf.float64):
        x = tf.constant([0.0, -0.0], dtype)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.selu(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), [SCALE, SCALE], rtol=1e-7)


def test_selu_gradient_at_zero_is_scale_in_a_tf_function_too():
    @tf.function
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.selu(x)
        return tape.gradient(y, x)
    np.testing.assert_allclose(grad(tf.constant([0.0, -1.0, 2.0])).numpy(),
                               [SCALE, SCALE * 1.6732632423543772 * np.exp(-1.0), SCALE], rtol=1e-6)


def test_sqrt_of_softsign_has_an_infinite_slope_at_zero():
    x = tf.constant(0.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.sqrt(tf.nn.softsign(x))
    assert tape.gradient(y, x).numpy() == np.inf


def test_selu_and_softsign_are_single_ops_with_tfs_gradient_ops():
    """As in TF: one ``Selu`` / ``Softsign`` node, and their gradients are ``SeluGrad`` / ``SoftsignGrad``."""
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        fetches = []
        for fn, op_type in [(tf.nn.selu, "Selu"), (tf.nn.softsign, "Softsign")]:
            y = fn(x)
            assert y.op.type == op_type and y.shape.as_list() == [None, 3]
            (dx,) = tf.gradients(y, x)
            assert dx.op.type == op_type + "Grad"
            fetches += [y, dx]
    xs = np.array([[-1.0, 0.0, 2.0]], np.float32)
    with tf.compat.v1.Session(graph=g) as sess:
        selu, dselu, softsign, dsoftsign = sess.run(fetches, {x: xs})
    np.testing.assert_allclose(selu, SCALE * np.where(xs > 0, xs, 1.6732632423543772 * np.expm1(xs)), rtol=1e-6)
    np.testing.assert_allclose(dselu, [[SCALE * 1.6732632423543772 * np.exp(-1.0), SCALE, SCALE]], rtol=1e-6)
    np.testing.assert_allclose(softsign, xs / (1 + np.abs(xs)), rtol=1e-6)
    np.testing.assert_allclose(dsoftsign, 1 / (1 + np.abs(xs)) ** 2, rtol=1e-6)


@pytest.mark.parametrize("fn", [tf.nn.selu, tf.nn.softsign])
def test_selu_and_softsign_gradients_match_finite_differences(fn):
    points = np.array([-2.5, -0.7, -1e-3, 0.4, 1.9])
    check_gradients(fn, points)
    check_second_order(fn, points)    # through SeluGrad / SoftsignGrad's own gradients


@pytest.mark.parametrize("fn", [tf.nn.selu, tf.nn.softsign])
def test_selu_and_softsign_refuse_integers_as_tf(fn):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int32 is not in the list"):
        fn(tf.constant([1, 2]))
    assert fn(tf.constant([1.0], tf.float16)).dtype == tf.float16


def test_digamma_and_lgamma_gradients_at_poles_are_infinite():
    x = tf.constant([-1.0, 0.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.lgamma(x)
        g = tape.gradient(y, x)
        with tf.GradientTape() as tape2:
            tape2.watch(x)
            d = tf.math.digamma(x)
        dg = tape2.gradient(d, x)
    assert np.all(dg.numpy() == np.inf)
    assert np.all(outer.gradient(g, x).numpy() == np.inf)
