"""The eager fast paths in reshape/expand_dims/broadcast_to, reductions, matmul and ``int_tensor``.

Each fast path claims to give exactly what the general path gives. These tests hold them to it:
the same values and dtypes as NumPy or as the graph path (``tf.function``), the same errors, and
caches that never hand out a tensor for a different value.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as tf
from engine.framework.errors import InvalidArgumentError
from engine.ops import _dispatch, array_ops


# --------------------------------------------------------------------------------------
# int_tensor's cache
# --------------------------------------------------------------------------------------
def test_int_tensor_caches_plain_ints_by_value_and_freezes_them():
    a, b = _dispatch.int_tensor([2, -1]), _dispatch.int_tensor((2, -1))
    assert a is b                                   # same values, same tensor
    assert a.dtype == tf.int32 and a.numpy().tolist() == [2, -1]
    assert not a.numpy().flags.writeable            # shared, so nobody may write into it
    assert _dispatch.int_tensor([2, 1]) is not a
    assert _dispatch.int_tensor(3) is _dispatch.int_tensor(3)
    assert _dispatch.int_tensor(3) is not _dispatch.int_tensor((3,))


def test_int_tensor_does_not_cache_other_kinds_of_values():
    t = _dispatch.int_tensor([True, False])         # bools are not ints for the cache key
    assert t is not _dispatch.int_tensor([1, 0]) and t.numpy().tolist() == [1, 0]
    assert _dispatch.int_tensor([np.int64(4)]) is not _dispatch.int_tensor([np.int64(4)])
    assert _dispatch.int_tensor([4], dtype=tf.int64).dtype == tf.int64
    g = tf.Graph()
    with g.as_default():
        s = _dispatch.int_tensor([2, 3])
    assert not isinstance(s, type(_dispatch.int_tensor([2, 3])))   # a graph constant, not the eager one


def test_int_tensor_out_of_range_still_raises_every_time():
    for _ in range(2):
        with pytest.raises(OverflowError):
            _dispatch.int_tensor([2 ** 40])


# --------------------------------------------------------------------------------------
# Reshape's shape rule
# --------------------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=0, max_size=4),
       st.lists(st.sampled_from([-2, -1, 0, 1, 2, 3, 4, 6]), min_size=0, max_size=4))
def test_resolve_reshape_matches_numpy(in_dims, dims):
    n = int(np.prod(in_dims, dtype=np.int64))
    try:
        out = array_ops._resolve_reshape(n, list(dims), list(in_dims))
    except array_ops._ReshapeError:
        out = None
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        assert out is None
        return
    if 0 not in dims:   # NumPy and TF agree (TF leaves zeros out of the -1 inference; NumPy refuses)
        try:
            expected = list(np.empty(in_dims).reshape(dims).shape)
        except ValueError:
            expected = None
        assert out == expected
    elif out is not None:
        assert int(np.prod(out, dtype=np.int64)) == n and all(d >= 0 for d in out)


def test_reshape_results_and_errors():
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert tf.reshape(x, [-1]).shape == [6]
    assert tf.reshape(x, (3, -1)).numpy().tolist() == [[0, 1], [2, 3], [4, 5]]
    assert tf.reshape(tf.constant([5.0]), []).numpy() == np.float32(5.0)
    assert tf.reshape(tf.zeros([0, 3]), [-1, 0]).shape == [3, 0]
    with pytest.raises(InvalidArgumentError, match=r"requires a multiple of 4.*\[Op:Reshape\]"):
        tf.reshape(x, [-1, 4])
    with pytest.raises(InvalidArgumentError, match=r"6 values, but the requested shape has 8.*\[Op:Reshape\]"):
        tf.reshape(x, [4, 2])


# --------------------------------------------------------------------------------------
# ExpandDims and BroadcastTo kernels
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 1, 4)])
def test_expand_dims_matches_numpy_for_every_axis(shape):
    value = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    x = tf.constant(value)
    for axis in range(-len(shape) - 1, len(shape) + 1):
        out = tf.expand_dims(x, axis)
        expected = np.expand_dims(value, axis)
        assert out.shape == list(expected.shape) and np.array_equal(out.numpy(), expected)
    with pytest.raises(InvalidArgumentError, match=r"Tried to expand dim index .*\[Op:ExpandDims\]"):
        tf.expand_dims(x, len(shape) + 1)


@pytest.mark.parametrize("source,target", [((), (4,)), ((3,), (2, 3)), ((2, 1), (2, 5)), ((2, 3), (2, 3)),
                                           ((1, 1), (0, 3)), ((), ())])
def test_broadcast_to_gives_a_fresh_writable_copy(source, target):
    value = np.arange(int(np.prod(source)), dtype=np.float32).reshape(source) + 1
    x = tf.constant(value)
    out = tf.broadcast_to(x, list(target)).numpy()
    assert np.array_equal(out, np.broadcast_to(value, target)) and out.dtype == np.float32
    if target:
        assert out.flags.writeable and out.flags.c_contiguous and not np.shares_memory(out, x.numpy())


def test_broadcast_to_errors():
    x = tf.ones([2, 3])
    with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. \[3,3\]"):
        tf.broadcast_to(x, [3, 3])
    with pytest.raises(InvalidArgumentError, match="Dimension -1 must be >= 0"):
        tf.broadcast_to(x, [-1, 3])


# --------------------------------------------------------------------------------------
# Reduction gradients: the eager fast path equals the graph path, bit for bit
# --------------------------------------------------------------------------------------
_AXES = [None, 0, 1, -1, [0, 2], [2, 0], (1,), []]


def _reduction_grads(x, fn, axis, keepdims):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(x * x, axis=axis, keepdims=keepdims)
        g = inner.gradient(y, x, output_gradients=tf.ones_like(y) * 1.5)
        z = tf.reduce_sum(g * g * x)
    return y, g, outer.gradient(z, x)


@pytest.mark.parametrize("fn", [tf.reduce_mean, tf.reduce_sum, tf.reduce_max, tf.reduce_prod])
def test_reduction_gradients_eager_equal_graph(fn):
    x = tf.constant(np.random.default_rng(0).standard_normal((2, 3, 4)))
    for axis in _AXES:
        for keepdims in (False, True):
            eager = _reduction_grads(x, fn, axis, keepdims)
            graph = tf.function(lambda t: _reduction_grads(t, fn, axis, keepdims))(x)
            for e, g in zip(eager, graph):
                assert e.dtype == g.dtype and np.array_equal(e.numpy(), g.numpy()), (fn, axis, keepdims)


def test_axis_cache_does_not_hide_errors():
    x = tf.ones([2, 3])
    assert tf.reduce_sum(x, 1).shape == [2]
    with pytest.raises(InvalidArgumentError, match=r"Invalid reduction dimension \(2 for input with 2"):
        tf.reduce_sum(x, 2)
    assert tf.reduce_sum(tf.ones([2, 3, 4]), 2).shape == [2, 3]   # the same axis value, another rank
    with pytest.raises(InvalidArgumentError, match="duplicate dimension"):
        tf.reduce_mean(x, [0, -2])


def test_mean_kernel_dtypes():
    assert tf.reduce_mean(tf.constant([[-7, 0], [3, 4]]), 0).numpy().tolist() == [-2, 2]
    assert tf.reduce_mean(tf.constant([1, 2, 4], tf.float16)).dtype == tf.float16
    assert np.isnan(tf.reduce_mean(tf.zeros([0, 3]), 0).numpy()).all()


# --------------------------------------------------------------------------------------
# MatMul
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_gradients_eager_equal_graph(ta, tb):
    rng = np.random.default_rng(1)
    a = tf.constant(rng.standard_normal((3, 4)))
    b = tf.Variable(rng.standard_normal((4, 5)))

    def grads(a):
        with tf.GradientTape() as tape:
            tape.watch(a)
            lhs = tf.transpose(a) if ta else a
            rhs = tf.transpose(b) if tb else b
            y = tf.reduce_sum(tf.matmul(lhs, rhs, transpose_a=ta, transpose_b=tb) ** 2)
        return tape.gradient(y, [a, b])

    for e, g in zip(grads(a), tf.function(grads)(a)):
        assert np.array_equal(e.numpy(), g.numpy())


def test_matmul_gradient_with_a_bad_output_gradient_still_gets_the_matmul_error():
    x = tf.ones([2, 3])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.matmul(x, tf.ones([3, 2]))
    with pytest.raises(InvalidArgumentError, match=r"Matrix size-incompatible: In\[0\]: \[2,5\].*\[Op:MatMul\]"):
        tape.gradient(y, x, output_gradients=tf.ones([2, 5]))


def test_matmul_with_a_variable_and_errors():
    v = tf.Variable(np.ones((3, 2), np.float32))
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert tf.matmul(x, v).numpy().tolist() == [[3, 3], [12, 12]]
    with pytest.raises(InvalidArgumentError, match=r"expected to be a float tensor but is a double tensor"):
        tf.matmul(x, tf.ones([3, 2], tf.float64))
    with pytest.raises(InvalidArgumentError, match=r"Matrix size-incompatible.*\[Op:MatMul\]"):
        tf.matmul(x, v, transpose_a=True)
