"""Array ops: shapes, creation, stacking, joining, splitting, padding, tiling, broadcasting, where, range.

Expected values and error messages marked "TF" were recorded from TensorFlow 2.21
(CPU) and pasted here as literals.
"""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as tf
from gradcheck import check_gradients, check_second_order

IAE = tf.errors.InvalidArgumentError
RNG = np.random.default_rng(1234)
A = RNG.normal(size=(3, 4))
B = RNG.normal(size=(3, 2))


def x34():
    return tf.reshape(tf.range(12.0), [3, 4])


def raises(cls, *fragments):
    """Context manager: expect ``cls`` whose message contains every fragment (TF's wording)."""
    return pytest.raises(cls, match="(?s)" + ".*".join(re.escape(f) for f in fragments))


# --------------------------------------------------------------------------------------
# Reshape, shape, size, rank
# --------------------------------------------------------------------------------------
def test_reshape_values_and_minus_one():
    x = x34()
    y = tf.reshape(x, [2, -1])
    assert y.shape == (2, 6) and y.dtype == tf.float32
    np.testing.assert_array_equal(y.numpy(), np.arange(12.0).reshape(2, 6))
    assert tf.reshape([5.0], []).shape == ()
    assert tf.reshape(x, tf.TensorShape([12])).shape == (12,)


def test_reshape_zero_sized_minus_one_like_tf():
    # TF: zero dims are left out when inferring -1, so [0, 3] -> [-1, 0] is [3, 0].
    assert tf.reshape(tf.zeros([0, 3]), [-1, 0]).shape == (3, 0)
    assert tf.reshape(tf.zeros([0, 3]), [-1, 3]).shape == (0, 3)


@pytest.mark.parametrize("shape, message", [
    ([5, -1], "Input to reshape is a tensor with 12 values, but the requested shape requires a multiple of 5"),
    ([5, 2], "Input to reshape is a tensor with 12 values, but the requested shape has 10"),
    ([-1, -1], "Only one input size may be -1, not both 0 and 1"),
    ([-2, 6], "Size 0 must be non-negative, not -2"),
    ([[3, 4]], "sizes input must be 1-D, not [1,2]"),
])
def test_reshape_errors(shape, message):  # TF messages
    with raises(IAE, message, "[Op:Reshape]"):
        tf.reshape(x34(), shape)


def test_reshape_gradient():
    check_gradients(lambda x: tf.reshape(x, [2, -1, 2]), A)


def test_shape_size_rank():
    x = x34()
    s = tf.shape(x)
    assert s.dtype == tf.int32 and s.numpy().tolist() == [3, 4]
    assert tf.shape(x, out_type=tf.int64).dtype == tf.int64
    assert tf.shape(3.0).numpy().tolist() == []
    n = tf.size(x, out_type=tf.int64)
    assert n.dtype == tf.int64 and int(n) == 12 and n.shape == ()
    assert int(tf.size([[1, 2, 3]])) == 3
    r = tf.rank([[1, 2, 3]])
    assert r.dtype == tf.int32 and int(r) == 2


# --------------------------------------------------------------------------------------
# identity, stop_gradient, zeros/ones, fill
# --------------------------------------------------------------------------------------
def test_identity_and_stop_gradient():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.identity(x) * 3.0
        z = tf.stop_gradient(x) * 3.0 + x
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), [1.0, 1.0])
    check_gradients(lambda v: tf.identity(v) * v, A)


def test_zeros_ones_like_and_fill():
    x = x34()
    z = tf.zeros_like(x, dtype=tf.int32)
    assert z.dtype == tf.int32 and z.shape == (3, 4) and not z.numpy().any()
    o = tf.ones_like([1, 2])
    assert o.dtype == tf.int32 and o.numpy().tolist() == [1, 1]
    assert tf.zeros([2], tf.bool).numpy().tolist() == [False, False]
    assert tf.ones([2], tf.bool).numpy().tolist() == [True, True]
    assert tf.ones(3).numpy().tolist() == [1.0, 1.0, 1.0]                  # TF: an int shape is a vector
    assert tf.ones(tf.constant([2, 1])).shape == (2, 1)
    assert tf.zeros([2, 3], tf.float64).dtype == tf.float64
    f = tf.fill([2], 3)
    assert f.dtype == tf.int32 and f.numpy().tolist() == [3, 3]
    assert tf.zeros([2], tf.string).numpy().tolist() == [b"", b""]          # TF


def test_fill_errors():  # TF messages
    with raises(IAE, "value must represent a scalar, got shape [3]", "[Op:Fill]"):
        tf.fill([2, 3], [1.0, 2.0, 3.0])
    with raises(IAE, "Dimension -3 must be >= 0", "[Op:Fill]"):
        tf.fill([2, -3], 1.0)
    with raises(IAE, "Dimension -1 must be >= 0"):
        tf.zeros([-1])


def test_fill_gradient_reaches_value():
    check_gradients(lambda v: tf.fill([2, 3], v[0, 0]) * v[0, 1], A)


# --------------------------------------------------------------------------------------
# expand_dims, squeeze
# --------------------------------------------------------------------------------------
def test_expand_dims_and_squeeze():
    x = x34()
    assert tf.expand_dims(x, 0).shape == (1, 3, 4)
    assert tf.expand_dims(x, -1).shape == (3, 4, 1)
    assert tf.expand_dims(x, -3).shape == (1, 3, 4)   # TF
    assert tf.expand_dims(x, [1]).shape == (3, 1, 4)  # TF accepts a one-element list
    assert tf.squeeze(tf.zeros([1, 3, 1])).shape == (3,)
    assert tf.squeeze(tf.zeros([1, 3, 1]), [-1]).shape == (1, 3)
    assert tf.squeeze(tf.zeros([1, 3]), np.int64(0)).shape == (3,)


def test_expand_dims_squeeze_errors():  # TF messages
    with raises(IAE, "Tried to expand dim index 3 for tensor with 2 dimensions.", "[Op:ExpandDims]"):
        tf.expand_dims(x34(), 3)
    with raises(IAE, "'dim' must be a tensor with a single value", "[Op:ExpandDims]"):
        tf.expand_dims(x34(), [1, 2])
    with raises(IAE, "Can not squeeze dim[0], expected a dimension of 1, got 3", "[Op:Squeeze]"):
        tf.squeeze(x34(), [0])
    with raises(IAE, "Tried to squeeze dim index 2 for tensor with 2 dimensions.", "[Op:Squeeze]"):
        tf.squeeze(tf.zeros([1, 3]), [2])


def test_expand_squeeze_gradients():
    check_gradients(lambda x: tf.squeeze(tf.expand_dims(x, 1) * 2.0, [1]), A)


# --------------------------------------------------------------------------------------
# stack / unstack
# --------------------------------------------------------------------------------------
def test_stack_values_and_axes():
    a, b = np.arange(6.0).reshape(2, 3), -np.arange(6.0).reshape(2, 3)
    for axis in (0, 1, 2, -1, -3):
        np.testing.assert_array_equal(tf.stack([a, b], axis=axis).numpy(), np.stack([a, b], axis=axis))


def test_stack_conversion_rules_like_tf():
    # TF: a list of plain values stacked on axis 0 is one constant.
    s = tf.stack([1, 2.5])
    assert s.dtype == tf.float32 and s.numpy().tolist() == [1.0, 2.5]
    assert tf.stack([1, tf.constant(2, tf.int64)]).dtype == tf.int64
    with raises(TypeError, "Cannot convert 2.5 to EagerTensor of dtype int32"):
        tf.stack([tf.constant(1), 2.5])
    assert tf.stack([1, 2 ** 40]).dtype == tf.int64


def test_stack_errors():
    with raises(IAE, "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]",
                "[Op:Pack]"):
        tf.stack([tf.zeros([2]), tf.zeros([3])])
    with raises(ValueError, "Argument `axis` = 3 not in range [-3, 3)"):
        tf.stack([x34(), x34()], axis=3)
    with raises(IAE, "Pack", "expected to be a float tensor but is a double tensor"):
        tf.stack([tf.zeros([2]), tf.zeros([2], tf.float64)])


def test_unstack_values_and_errors():
    x = x34()
    cols = tf.unstack(x, axis=1)
    assert len(cols) == 4 and cols[2].numpy().tolist() == [2.0, 6.0, 10.0]
    rows = tf.unstack(x, num=3)
    assert [r.shape for r in rows] == [(4,)] * 3
    assert tf.unstack(tf.zeros([0, 2])) == []
    assert tf.unstack(tf.constant([1.0, 2.0]))[1].shape == ()
    with raises(IAE, "Input shape axis 0 must equal 2, got shape [3,4]", "[Op:Unpack]"):  # TF
        tf.unstack(x, num=2)
    with raises(ValueError, "Argument `axis` = 0 not in range"):
        tf.unstack(tf.constant(1.0))


def test_stack_unstack_gradients():
    check_gradients(lambda x, y: tf.stack([x[:, :2], y, y * x[:, 2:]], axis=1), A, B)
    check_gradients(lambda x: tf.unstack(x, axis=1)[2] * tf.unstack(x)[1][:3], A)


# --------------------------------------------------------------------------------------
# concat
# --------------------------------------------------------------------------------------
def test_concat_values():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(4.0).reshape(2, 2)
    np.testing.assert_array_equal(tf.concat([a, b], 1).numpy(), np.concatenate([a, b], 1))
    np.testing.assert_array_equal(tf.concat([a, b], -1).numpy(), np.concatenate([a, b], 1))
    np.testing.assert_array_equal(tf.concat([a, a, a], axis=0).numpy(), np.concatenate([a, a, a], 0))
    np.testing.assert_array_equal(tf.concat([a, b], tf.constant(1)).numpy(), np.concatenate([a, b], 1))
    c = tf.concat([[1, 2], [3]], 0)  # TF
    assert c.dtype == tf.int32 and c.numpy().tolist() == [1, 2, 3]
    assert tf.concat([[1.5], [3]], 0).numpy().tolist() == [1.5, 3.0]
    single = tf.concat([a], 1)
    np.testing.assert_array_equal(single.numpy(), a)
    assert tf.concat([tf.zeros([0, 2]), tf.ones([1, 2])], 0).shape == (1, 2)


@pytest.mark.parametrize("values, axis, message", [  # TF messages
    ([np.zeros((3, 4)), np.zeros((3, 4))], 2,
     "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2"),
    ([np.zeros((3, 4)), np.zeros((3, 5))], 0,
     "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [3,4] vs. shape[1] = [3,5]"),
    ([np.zeros((3, 4)), np.zeros(3)], 0,
     "ConcatOp : Ranks of all input tensors should match: shape[0] = [3,4] vs. shape[1] = [3]"),
    ([1.0, 2.0], 0, "ConcatOp : Can't concatenate scalars (use tf.stack instead)"),
])
def test_concat_errors(values, axis, message):
    with raises(IAE, message, "[Op:ConcatV2]"):
        tf.concat(values, axis)


def test_concat_dtype_errors():
    with raises(IAE, "ConcatV2", "expected to be a float tensor but is a double tensor"):
        tf.concat([tf.zeros([2]), tf.zeros([2], tf.float64)], 0)
    with raises(TypeError, "Cannot convert [3.5] to EagerTensor of dtype int32"):  # TF
        tf.concat([[1, 2], [3.5]], 0)
    with pytest.raises(IAE):
        tf.concat([], 0)


def test_concat_gradients():
    check_gradients(lambda x, y: tf.concat([x, y * y, x], 1), A, B)
    check_gradients(lambda x: tf.concat([x[:1], x], axis=-2), A)
    check_second_order(lambda x: tf.concat([x, x * x], 0) ** 2, A[:2, :2])


# --------------------------------------------------------------------------------------
# split
# --------------------------------------------------------------------------------------
def test_split_values():
    x = x34()
    a, b = tf.split(x, 2, axis=1)
    np.testing.assert_array_equal(a.numpy(), [[0, 1], [4, 5], [8, 9]])
    np.testing.assert_array_equal(b.numpy(), [[2, 3], [6, 7], [10, 11]])
    parts = tf.split(x, [1, -1], axis=1)  # TF: -1 takes the rest
    assert [p.shape for p in parts] == [(3, 1), (3, 3)]
    np.testing.assert_array_equal(parts[1].numpy(), [[1, 2, 3], [5, 6, 7], [9, 10, 11]])
    parts = tf.split(x, [1, 0, 2], axis=0)
    assert [p.shape for p in parts] == [(1, 4), (0, 4), (2, 4)]
    assert len(tf.split(x, np.int64(3))) == 3
    assert [p.shape for p in tf.split(x, tf.constant([2, 2]), axis=-1)] == [(3, 2), (3, 2)]


@pytest.mark.parametrize("spec, axis, op, message", [  # TF messages
    (2, 0, "Split", "Number of ways to split should evenly divide the split dimension, but got split_dim 0 "
                    "(size = 3) and num_split 2"),
    (2, 2, "Split", "-input rank(-2) <= split_dim < input rank (2), but got 2"),
    ([1, 2], 1, "SplitV", "Determined shape must either match input shape along split_dim exactly if fully "
                          "specified, or be less than the size of the input along split_dim if not fully "
                          "specified.  Got: 3"),
    ([5, -1], 1, "SplitV", "Got: 5"),
    ([-1, -1], 1, "SplitV", "There can only be one -1 in the input."),
    (0, 1, "Split", "Value for attr 'num_split' of 0 must be at least minimum 1"),
])
def test_split_errors(spec, axis, op, message):
    with raises(IAE, message, f"[Op:{op}]"):
        tf.split(x34(), spec, axis=axis)


def test_split_rank0_tensor_is_value_error():  # TF
    with raises(ValueError, "Rank-0 tensors are not supported as the num_or_size_splits argument to split"):
        tf.split(x34(), tf.constant(2), axis=1)


def test_split_gradients():
    check_gradients(lambda x: tf.split(x, 2, axis=1)[1] * 2.0, A)
    check_gradients(lambda x: tf.split(x, [1, -1, 2], axis=1)[1], A)
    # both outputs used, one of them twice
    check_gradients(lambda x: tf.concat(tf.split(x, [3, 1], axis=1)[::-1], 1) * x, A)
    check_second_order(lambda x: tf.split(x, [3, 1], 1)[0] ** 3, A)


# --------------------------------------------------------------------------------------
# pad
# --------------------------------------------------------------------------------------
def test_pad_constant_values():
    x = x34()
    np.testing.assert_array_equal(tf.pad(x, [[1, 0], [0, 2]]).numpy(),
                                  np.pad(np.arange(12.0).reshape(3, 4), [[1, 0], [0, 2]]))
    y = tf.pad(x, [[1, 0], [0, 2]], constant_values=-1)
    assert y.dtype == tf.float32
    np.testing.assert_array_equal(y.numpy(), np.pad(np.arange(12.0).reshape(3, 4), [[1, 0], [0, 2]],
                                                   constant_values=-1))
    assert tf.pad(tf.constant([1, 2]), [[1, 1]]).numpy().tolist() == [0, 1, 2, 0]
    assert float(tf.pad(tf.constant(3.0), tf.zeros([0, 2], tf.int32))) == 3.0


def test_pad_mirror_values():  # TF values
    x = x34()
    assert tf.pad(x, [[2, 1], [3, 1]], mode="REFLECT").numpy().tolist() == [
        [11.0, 10.0, 9.0, 8.0, 9.0, 10.0, 11.0, 10.0], [7.0, 6.0, 5.0, 4.0, 5.0, 6.0, 7.0, 6.0],
        [3.0, 2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0], [7.0, 6.0, 5.0, 4.0, 5.0, 6.0, 7.0, 6.0],
        [11.0, 10.0, 9.0, 8.0, 9.0, 10.0, 11.0, 10.0], [7.0, 6.0, 5.0, 4.0, 5.0, 6.0, 7.0, 6.0]]
    assert tf.pad(x, [[2, 3], [1, 4]], mode="symmetric").numpy().tolist() == [
        [4.0, 4.0, 5.0, 6.0, 7.0, 7.0, 6.0, 5.0, 4.0], [0.0, 0.0, 1.0, 2.0, 3.0, 3.0, 2.0, 1.0, 0.0],
        [0.0, 0.0, 1.0, 2.0, 3.0, 3.0, 2.0, 1.0, 0.0], [4.0, 4.0, 5.0, 6.0, 7.0, 7.0, 6.0, 5.0, 4.0],
        [8.0, 8.0, 9.0, 10.0, 11.0, 11.0, 10.0, 9.0, 8.0], [8.0, 8.0, 9.0, 10.0, 11.0, 11.0, 10.0, 9.0, 8.0],
        [4.0, 4.0, 5.0, 6.0, 7.0, 7.0, 6.0, 5.0, 4.0], [0.0, 0.0, 1.0, 2.0, 3.0, 3.0, 2.0, 1.0, 0.0]]


@pytest.mark.parametrize("kwargs, op, message", [  # TF messages
    (dict(paddings=[[-1, 0], [0, 2]]), "Pad", "Paddings must be non-negative: -1 0"),
    (dict(paddings=[[1, 0]]), "Pad", "The first dimension of paddings must be the rank of inputs[1,2] [3,4]"),
    (dict(paddings=[[3, 0], [0, 0]], mode="REFLECT"), "MirrorPad",
     "paddings must be less than the dimension size: 3, 0 not less than 3"),
    (dict(paddings=[[4, 0], [0, 0]], mode="SYMMETRIC"), "MirrorPad",
     "paddings must be no greater than the dimension size: 4, 0 greater than 3"),
])
def test_pad_errors(kwargs, op, message):
    with raises(IAE, message, f"[Op:{op}]"):
        tf.pad(x34(), **kwargs)


def test_pad_argument_errors():  # TF
    with raises(ValueError, 'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                            "Received `mode` = WRAP"):
        tf.pad(x34(), [[1, 0], [0, 0]], mode="wrap")
    with raises(TypeError, "Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.pad(tf.constant([1, 2]), [[1, 1]], constant_values=1.5)


@pytest.mark.parametrize("mode, paddings", [
    ("CONSTANT", [[1, 0], [2, 1]]), ("REFLECT", [[2, 1], [3, 2]]), ("SYMMETRIC", [[3, 2], [1, 4]]),
    ("REFLECT", [[0, 0], [0, 0]]), ("SYMMETRIC", [[0, 3], [4, 0]])])
def test_pad_gradients(mode, paddings):
    check_gradients(lambda x: tf.pad(x, paddings, mode=mode), A)


def test_pad_gradient_with_constant_and_second_order():
    check_gradients(lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=3.0) ** 2, A)
    check_second_order(lambda x: tf.pad(x, [[1, 0], [2, 1]]) ** 3, A)
    check_second_order(lambda x: tf.pad(x, [[1, 1], [2, 1]], mode="REFLECT") ** 3, A)


# --------------------------------------------------------------------------------------
# tile, broadcast_to, BroadcastGradientArgs
# --------------------------------------------------------------------------------------
def test_tile_values_and_errors():
    x = x34()
    np.testing.assert_array_equal(tf.tile(x, [2, 3]).numpy(), np.tile(np.arange(12.0).reshape(3, 4), [2, 3]))
    assert tf.tile(x, [0, 2]).shape == (0, 8)
    assert float(tf.tile(tf.constant(1.0), [])) == 1.0
    assert tf.tile(tf.constant([True]), [3]).numpy().tolist() == [True] * 3
    with raises(IAE, "Expected multiples[1] >= 0, but got -1", "[Op:Tile]"):  # TF
        tf.tile(x, [1, -1])
    with raises(IAE, "Expected multiples argument to be a vector of length 2 but got length 1", "[Op:Tile]"):
        tf.tile(x, [1])


def test_tile_gradients():
    check_gradients(lambda x: tf.tile(x, [2, 3]), A)
    check_gradients(lambda x: tf.tile(x[0], [3]) * tf.range(12.0, dtype=tf.float64), A)
    check_second_order(lambda x: tf.tile(x, [1, 2]) ** 3, A)


def test_broadcast_to_values_and_errors():
    b = tf.broadcast_to(tf.constant([1, 2, 3]), [2, 3])
    assert b.dtype == tf.int32 and b.numpy().tolist() == [[1, 2, 3], [1, 2, 3]]
    assert tf.broadcast_to([1.0, 2.0], [2, 2]).shape == (2, 2)
    assert tf.broadcast_to(1.0, tf.TensorShape([2])).numpy().tolist() == [1.0, 1.0]
    assert float(tf.broadcast_to(tf.constant(1.0), [])) == 1.0
    assert b.numpy().flags.writeable  # a real array, not a read-only broadcast view
    with raises(IAE, "Incompatible shapes: [3] vs. [3,2]", "[Op:BroadcastTo]"):  # TF
        tf.broadcast_to(tf.constant([1, 2, 3]), [3, 2])
    with raises(IAE, "Unable to broadcast tensor of shape [3] to tensor of shape [3,1]"):
        tf.broadcast_to(tf.constant([1, 2, 3]), [3, 1])
    with raises(IAE, "Rank of input (1) must be no greater than rank of output shape (0)."):
        tf.broadcast_to(tf.constant([1, 2, 3]), [])
    with raises(IAE, "Rank of input (2) must be no greater than rank of output shape (1)."):
        tf.broadcast_to(tf.zeros([1, 3]), [3])


def test_broadcast_to_gradients():
    check_gradients(lambda x: tf.broadcast_to(x[:, :1], [2, 3, 4]), A)
    check_gradients(lambda x: tf.broadcast_to(x[0], [2, 4]) * x[:2], A)


@pytest.mark.parametrize("s0, s1, r0, r1", [  # TF values
    ([1], [1], [], []), ([2, 1, 3], [1, 1, 3], [1], [0, 1]), ([3], [2, 1, 3], [0, 1], [1]),
    ([2, 3], [2, 3], [], [])])
def test_broadcast_gradient_args(s0, s1, r0, r1):
    from engine.ops.array_ops import broadcast_gradient_args
    a, b = broadcast_gradient_args(s0, s1)
    assert a.numpy().tolist() == r0 and b.numpy().tolist() == r1 and a.dtype == tf.int32


def test_broadcast_gradient_args_error():
    from engine.ops.array_ops import broadcast_gradient_args
    with raises(IAE, "Incompatible shapes: [2] vs. [3]", "[Op:BroadcastGradientArgs]"):
        broadcast_gradient_args([2], [3])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=0, max_size=3), st.lists(st.integers(1, 3), min_size=0, max_size=2),
       st.data())
def test_broadcast_to_property(in_shape, lead, data):
    """broadcast_to agrees with NumPy on which targets are legal and on the result."""
    target = lead + [d if d != 1 else data.draw(st.integers(0, 3)) for d in in_shape]
    if data.draw(st.booleans()) and target:
        target[-1] = data.draw(st.integers(0, 4))
    x = np.arange(int(np.prod(in_shape)), dtype=np.float32).reshape(in_shape)
    try:
        expected = np.broadcast_to(x, target)
    except ValueError:
        with pytest.raises(IAE, match=r"\[Op:BroadcastTo\]"):
            tf.broadcast_to(x, target)
        return
    got = tf.broadcast_to(x, target)
    assert got.shape == tuple(target)
    np.testing.assert_array_equal(got.numpy(), expected)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=0, max_size=3), st.data())
def test_tile_property(in_shape, data):
    multiples = [data.draw(st.integers(0, 3)) for _ in in_shape]
    x = np.arange(int(np.prod(in_shape)), dtype=np.int32).reshape(in_shape)
    got = tf.tile(x, multiples)
    assert got.shape == tuple(d * m for d, m in zip(in_shape, multiples))
    np.testing.assert_array_equal(got.numpy(), np.tile(x, multiples) if in_shape else x)


# --------------------------------------------------------------------------------------
# reverse, transpose, invert_permutation
# --------------------------------------------------------------------------------------
def test_reverse():
    x = x34()
    np.testing.assert_array_equal(tf.reverse(x, [1]).numpy(), np.arange(12.0).reshape(3, 4)[:, ::-1])
    np.testing.assert_array_equal(tf.reverse(x, [-1, 0]).numpy(), np.arange(12.0).reshape(3, 4)[::-1, ::-1])
    np.testing.assert_array_equal(tf.reverse(x, []).numpy(), np.arange(12.0).reshape(3, 4))
    with raises(IAE, "axis 1 specified more than once.", "[Op:ReverseV2]"):  # TF
        tf.reverse(x, [1, 1])
    with raises(IAE, "'axis'[0] = 2 is out of valid range [0, 1", "[Op:ReverseV2]"):  # TF
        tf.reverse(x, [2])
    check_gradients(lambda v: tf.reverse(v, [0, -1]) * v, A)


def test_transpose_values_and_negative_perm():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(tf.transpose(x).numpy(), x.T)
    np.testing.assert_array_equal(tf.transpose(x, [1, 0, 2]).numpy(), x.transpose(1, 0, 2))
    assert tf.transpose(tf.zeros([2, 3, 4]), [-1, 0, 1]).shape == (4, 2, 3)  # TF allows negative entries
    assert tf.transpose(tf.zeros([2, 3, 4]), [-3, -1, 1]).shape == (2, 4, 3)


@pytest.mark.parametrize("perm, message", [  # TF messages
    ([0, 0, 1], "2 is missing from {0,0,1}."), ([0, 1], "transpose expects a vector of size 3. But input(1) is a "
                                                     "vector of size 2"),
    ([3, 0, 1], "3 is out of range [0 .. 3)"), ([-1, 2, 1], "0 is missing from {2,2,1}.")])
def test_transpose_errors(perm, message):
    with raises(IAE, message, "[Op:Transpose]"):
        tf.transpose(tf.zeros([2, 3, 4]), perm)


def test_transpose_gradients():
    check_gradients(lambda x: tf.transpose(tf.reshape(x, [2, 3, 2]), [-1, 0, 1]), A)
    check_gradients(lambda x: tf.transpose(x) * 2.0, A)


def test_invert_permutation():
    y = tf.invert_permutation([2, 0, 1])
    assert y.dtype == tf.int32 and y.numpy().tolist() == [1, 2, 0]
    with raises(IAE, "2 is duplicated in the input.", "[Op:InvertPermutation]"):  # TF
        tf.invert_permutation([2, 2, 1])
    with raises(IAE, "3 is not between 0 and 3", "[Op:InvertPermutation]"):
        tf.invert_permutation([3, 0, 1])


# --------------------------------------------------------------------------------------
# one_hot, where
# --------------------------------------------------------------------------------------
def test_one_hot_values():  # TF values
    assert tf.one_hot([0, 2, -1, 5], 3).numpy().tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
    assert tf.one_hot([[0, 2], [1, 1]], 3, axis=0).numpy().tolist() == [
        [[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [1.0, 1.0]], [[0.0, 1.0], [0.0, 0.0]]]
    assert tf.one_hot([[0, 2], [1, 1]], 3, axis=1).shape == (2, 3, 2)
    y = tf.one_hot([0, 2], 3, on_value=5, off_value=-1)
    assert y.dtype == tf.int32 and y.numpy().tolist() == [[5, -1, -1], [-1, -1, 5]]
    assert tf.one_hot([0, 2], 3, on_value=5).numpy().tolist() == [[5, 0, 0], [0, 0, 5]]
    assert tf.one_hot([0, 2], 3, off_value=-1.0).numpy().tolist() == [[1, -1, -1], [-1, -1, 1]]
    assert tf.one_hot(1, 3).numpy().tolist() == [0, 1, 0]
    big = tf.one_hot(tf.constant([0, 200], tf.uint8), 300)  # no uint8 overflow in the comparison
    assert big.numpy()[:, 200].tolist() == [0.0, 1.0]


def test_one_hot_errors():  # TF messages
    with raises(IAE, "depth must be non-negative, got: -1", "[Op:OneHot]"):
        tf.one_hot([0, 2], -1)
    with raises(IAE, "Expected axis to be -1 or between [0, 2).  But received: -2", "[Op:OneHot]"):
        tf.one_hot([0, 2], 3, axis=-2)
    with raises(IAE, "Value for attr 'TI' of int16 is not in the list of allowed values: uint8, int8, int32, int64"):
        tf.one_hot(tf.constant([0, 2], tf.int16), 3)
    with raises(TypeError, "dtype <dtype: 'float32'> of on_value does not match dtype parameter "
                           "<dtype: 'int32'>"):
        tf.one_hot([0, 2], 3, on_value=1.0, dtype=tf.int32)
    with raises(TypeError, "dtype <dtype: 'int32'> of on_value does not match dtype <dtype: 'float32'> of "
                           "off_value"):
        tf.one_hot([0, 2], 3, on_value=5, off_value=-1.0)


def test_where_select_values():
    y = tf.where([True, False], [[1.0], [2.0]], 0.0)  # TF: broadcast of all three
    assert y.numpy().tolist() == [[1.0, 0.0], [2.0, 0.0]]
    assert tf.where([True, False], [1.0, 2.0], [1, 2]).dtype == tf.float32  # TF: y adopts x's dtype
    c = tf.constant([[True, False, True]])
    np.testing.assert_array_equal(tf.where(c, A[:1, :3], B[:1, :1]).numpy(),
                                  np.where([[True, False, True]], A[:1, :3], B[:1, :1]))


def test_where_select_errors():  # TF
    with raises(IAE, "condition [3], then [2], and else [] must be broadcastable", "[Op:SelectV2]"):
        tf.where([True, False, True], [1.0, 2.0], 0.0)
    with raises(TypeError, "Cannot convert [1, 0, 2] to EagerTensor of dtype bool"):
        tf.where([1, 0, 2], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    with raises(ValueError, "Tensor conversion requested dtype bool for Tensor with dtype int32"):
        tf.where(tf.constant([1, 0]), [1.0, 2.0], [3.0, 4.0])
    with raises(ValueError, "x and y must both be non-None or both be None."):
        tf.where([True], [1.0])


def test_where_indices():  # TF values
    w = tf.where([[1, 0], [0, 2]])
    assert w.dtype == tf.int64 and w.numpy().tolist() == [[0, 0], [1, 1]]
    assert tf.where([0.5, 0.0]).numpy().tolist() == [[0]]
    assert tf.where(tf.zeros([2, 3], tf.bool)).shape == (0, 2)
    with raises(IAE, "WhereOp : Unhandled input dimensions: 0", "[Op:Where]"):
        tf.where(True)


def test_where_gradients():
    mask = [[True], [False], [True]]
    check_gradients(lambda x, y: tf.where(mask, x[:, :2], y), A, B)
    check_gradients(lambda x, y: tf.where(tf.constant([True, False]), x[:, :2], y[:1, :1]), A, B)


# --------------------------------------------------------------------------------------
# range, linspace, eye
# --------------------------------------------------------------------------------------
def test_range_values_and_dtypes():  # TF values
    r = tf.range(0, 1, 0.1)
    assert r.dtype == tf.float32
    assert r.numpy().tolist() == [0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896,
                                  0.4000000059604645, 0.5, 0.6000000238418579, 0.699999988079071,
                                  0.800000011920929, 0.9000000357627869]
    assert tf.range(1.0, 0.0, -0.3).numpy().tolist() == [1.0, 0.699999988079071, 0.3999999761581421,
                                                        0.09999996423721313]
    assert tf.range(5, 0, -2).numpy().tolist() == [5, 3, 1]
    assert tf.range(0, 5.5).numpy().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert tf.range(tf.constant(3, tf.int64)).dtype == tf.int64
    assert tf.range(3, dtype=tf.float64).dtype == tf.float64
    assert tf.range(0).shape == (0,)


def test_range_errors():  # TF messages
    with raises(IAE, "Requires start <= limit when delta > 0: 5/0", "[Op:Range]"):
        tf.range(5, 0, 1)
    with raises(IAE, "Requires delta != 0: 0", "[Op:Range]"):
        tf.range(0, 5, 0)
    with raises(IAE, "Requires start >= limit when delta < 0: 0/5"):
        tf.range(0, 5, -1)


def test_linspace_values():  # TF values
    assert tf.linspace(0.0, 1.0, 5).numpy().tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert tf.linspace(0.0, 1.0, 4).numpy().tolist() == [0.0, 0.3333333432674408, 0.6666666865348816, 1.0]
    f64 = tf.linspace(tf.constant(0.0, tf.float64), 1.0, 7)
    assert f64.dtype == tf.float64
    np.testing.assert_allclose(f64.numpy(), np.linspace(0, 1, 7), rtol=0, atol=1e-16)
    i = tf.linspace(0, 10, 5)
    assert i.dtype == tf.float64 and i.numpy().tolist() == [0.0, 2.5, 5.0, 7.5, 10.0]
    assert tf.linspace(2.0, 5.0, 1).numpy().tolist() == [2.0]
    assert tf.linspace(2.0, 5.0, 0).shape == (0,)
    nd = tf.linspace([0.0, 1.0], [1.0, 3.0], 3)
    assert nd.shape == (3, 2) and nd.numpy().tolist() == [[0.0, 1.0], [0.5, 2.0], [1.0, 3.0]]
    assert tf.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=-1).numpy().tolist() == [[0.0, 0.5, 1.0], [1.0, 2.0, 3.0]]
    assert tf.linspace([0.0, 1.0], 2.0, 2).numpy().tolist() == [[0.0, 1.0], [2.0, 2.0]]  # broadcast endpoints
    with pytest.raises(IAE):
        tf.linspace(2.0, 5.0, -1)


def test_linspace_gradients():
    check_gradients(lambda a, b: tf.linspace(a[0, 0], b[0, 0], 5), A, B)
    check_gradients(lambda a, b: tf.linspace(a[0, 0], b[0, 0], 1), A, B)
    check_gradients(lambda a, b: tf.linspace(a[:, 0], b[:, 0], 4, axis=1), A, B)
    check_second_order(lambda x: tf.linspace(x[0, 0], x[0, 1], 4) ** 3, A)


def test_eye():  # TF values
    assert tf.eye(2, 3).numpy().tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    e = tf.eye(2, batch_shape=[2], dtype=tf.int32)
    assert e.dtype == tf.int32 and e.numpy().tolist() == [[[1, 0], [0, 1]], [[1, 0], [0, 1]]]
    assert tf.eye(3).shape == (3, 3)
    assert tf.eye(2, dtype=tf.bool).numpy().tolist() == [[True, False], [False, True]]
