"""Property tests for broadcasting: shapes follow NumPy, gradients reduce back to each input's shape.

Hypothesis draws pairs of broadcast-compatible shapes (some dimensions 1, different
ranks). For each pair the result shape must equal ``np.broadcast_shapes``, and the
gradients of add, multiply and maximum must have each input's own shape and equal
the NumPy-computed "unbroadcast" sum of the upstream gradient.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine as tf
from engine.framework.errors import InvalidArgumentError

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def broadcastable_shapes(draw, max_rank=4, max_side=4):
    """Two shapes that broadcast: start from a common shape, then drop leading dims and set some to 1."""
    rank = draw(st.integers(0, max_rank))
    full = draw(st.lists(st.integers(1, max_side), min_size=rank, max_size=rank))

    def derive():
        keep = draw(st.integers(0, rank))
        dims = full[rank - keep:]
        return tuple(1 if draw(st.booleans()) else d for d in dims)
    return derive(), derive()


def unbroadcast_numpy(grad, shape):
    """What the gradient for an input of ``shape`` must be: ``grad`` summed over the broadcast axes."""
    lead = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True).reshape(shape)


def _values(shape, seed):
    return np.random.default_rng(seed).uniform(-2, 2, size=shape)


OPS = [("add", tf.add), ("subtract", tf.subtract), ("multiply", tf.multiply), ("maximum", tf.maximum),
       ("minimum", tf.minimum), ("divide", tf.divide), ("squared_difference", tf.math.squared_difference),
       ("pow", tf.pow), ("equal", tf.equal), ("less", tf.less), ("floormod", tf.math.floormod)]


@SETTINGS
@given(shapes=broadcastable_shapes())
def test_result_shape_is_numpy_broadcast_shape(shapes):
    sa, sb = shapes
    expected = list(np.broadcast_shapes(sa, sb))
    a, b = tf.constant(_values(sa, 0)), tf.constant(np.abs(_values(sb, 1)) + 0.5)
    for name, fn in OPS:
        out = fn(a, b)
        assert out.shape.as_list() == expected, name
        assert out.numpy().shape == tuple(expected), name


@SETTINGS
@given(shapes=broadcastable_shapes(), seed=st.integers(0, 2 ** 16))
def test_gradients_reduce_back_to_each_input_shape(shapes, seed):
    sa, sb = shapes
    a_np, b_np = _values(sa, seed), _values(sb, seed + 1)
    out_shape = np.broadcast_shapes(sa, sb)
    upstream_np = _values(out_shape, seed + 2)
    a, b, upstream = tf.constant(a_np), tf.constant(b_np), tf.constant(upstream_np)
    local = {   # d(out)/d(a) and d(out)/d(b) elementwise, broadcast to the output shape
        "add": (np.ones(out_shape), np.ones(out_shape)),
        "multiply": (np.broadcast_to(b_np, out_shape), np.broadcast_to(a_np, out_shape)),
        "maximum": ((np.broadcast_to(a_np, out_shape) >= np.broadcast_to(b_np, out_shape)).astype(float),
                    (np.broadcast_to(a_np, out_shape) < np.broadcast_to(b_np, out_shape)).astype(float)),
    }
    for name, fn in (("add", tf.add), ("multiply", tf.multiply), ("maximum", tf.maximum)):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = fn(a, b)
        ga, gb = tape.gradient(y, [a, b], output_gradients=upstream)
        assert ga.shape.as_list() == list(sa) and gb.shape.as_list() == list(sb), name
        np.testing.assert_allclose(ga.numpy(), unbroadcast_numpy(upstream_np * local[name][0], sa), rtol=1e-12,
                                   atol=1e-12, err_msg=name)
        np.testing.assert_allclose(gb.numpy(), unbroadcast_numpy(upstream_np * local[name][1], sb), rtol=1e-12,
                                   atol=1e-12, err_msg=name)


@SETTINGS
@given(shapes=broadcastable_shapes(max_rank=3, max_side=3), seed=st.integers(0, 2 ** 16))
def test_operator_and_function_agree_under_broadcasting(shapes, seed):
    sa, sb = shapes
    a, b = tf.constant(_values(sa, seed)), tf.constant(_values(sb, seed + 1))
    np.testing.assert_array_equal((a + b).numpy(), tf.add(a, b).numpy())
    np.testing.assert_array_equal((a * b).numpy(), tf.multiply(a, b).numpy())
    np.testing.assert_array_equal((a - b).numpy(), tf.subtract(a, b).numpy())


@st.composite
def incompatible_shapes(draw):
    """Two shapes that do not broadcast: one aligned dimension differs and neither side is 1."""
    sa, sb = draw(broadcastable_shapes(max_rank=3))
    rank = max(len(sa), len(sb), 1)
    sa = (1,) * (rank - len(sa)) + sa
    sb = (1,) * (rank - len(sb)) + sb
    i = draw(st.integers(0, rank - 1))
    x = draw(st.integers(2, 4))
    sa = sa[:i] + (x,) + sa[i + 1:]
    sb = sb[:i] + (x + draw(st.integers(1, 3)),) + sb[i + 1:]
    return sa, sb


@SETTINGS
@given(shapes=incompatible_shapes())
def test_incompatible_shapes_raise_invalid_argument_naming_both(shapes):
    sa, sb = shapes
    with pytest.raises(InvalidArgumentError) as info:
        tf.add(tf.zeros(sa), tf.zeros(sb))
    message = str(info.value)
    assert "Incompatible shapes" in message and "AddV2" in message
    assert "[" + ",".join(map(str, sa)) + "]" in message and "[" + ",".join(map(str, sb)) + "]" in message


def test_unbroadcast_helper_on_known_cases():
    g = np.arange(24.).reshape(2, 3, 4)
    np.testing.assert_array_equal(unbroadcast_numpy(g, (3, 1)), g.sum(axis=(0, 2)).reshape(3, 1))
    np.testing.assert_array_equal(unbroadcast_numpy(g, ()), g.sum())
    np.testing.assert_array_equal(unbroadcast_numpy(g, (2, 3, 4)), g)
