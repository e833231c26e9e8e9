"""Tensor.__getitem__, tf.strided_slice and tf.slice (StridedSlice, StridedSliceGrad, Slice ops).

Expected values and messages marked "TF" were recorded from TensorFlow 2.21 (CPU).
"""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as tf
from engine.framework.registry import get_op
from engine.ops._dispatch import execute
from gradcheck import check_gradients, check_second_order

IAE = tf.errors.InvalidArgumentError
X = np.arange(12.0, dtype=np.float32).reshape(3, 4)
A = np.random.default_rng(3).normal(size=(3, 4))


def x34():
    return tf.constant(X)


def raises(cls, *fragments):
    return pytest.raises(cls, match="(?s)" + ".*".join(re.escape(f) for f in fragments))


# --------------------------------------------------------------------------------------
# __getitem__ values
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", [
    1, -1, (0, 2), (-1, -4), slice(1, None), slice(None, None, -1), (slice(None, None, -1), slice(None, None, -2)),
    (slice(5, -7, -1),), (Ellipsis, None, 1), (None, Ellipsis, None), (1, Ellipsis, 1), (Ellipsis, 1, None),
    (), Ellipsis, None, (slice(3, 1),), (slice(-100, 100),), (slice(1, 3), slice(None, None, 3)),
    (slice(None), None, slice(1, 2)), (None, None, 0), (slice(2, 0, -1), -2), (slice(None, None, 5),)])
def test_getitem_matches_numpy_basic_indexing(key):
    got = x34()[key]
    expected = X[key]
    assert got.shape == np.shape(expected)
    assert got.dtype == tf.float32
    np.testing.assert_array_equal(got.numpy(), expected)


def test_getitem_goldens():  # TF values
    x = x34()
    assert x[::-1, ::-2].numpy().tolist() == [[11.0, 9.0], [7.0, 5.0], [3.0, 1.0]]
    assert x[..., None, 1].numpy().tolist() == [[1.0], [5.0], [9.0]]
    assert x[None, ..., None].shape == (1, 3, 4, 1)
    assert float(x[1, ..., 1]) == 5.0
    assert x[3:1].shape == (0, 4)
    assert x[:2 ** 40].shape == (3, 4)                 # int64 bounds
    assert x[-2 ** 40:].shape == (3, 4)
    assert x[[0, 1]].shape == ()                       # TF: a list key is a tuple, x[0, 1]
    assert float(x[[0, 1]]) == 1.0


def test_getitem_tensor_indices():  # TF values
    x = x34()
    assert x[tf.constant(1, tf.int64)].numpy().tolist() == [4.0, 5.0, 6.0, 7.0]
    assert x[tf.constant(1, tf.int16)].numpy().tolist() == [4.0, 5.0, 6.0, 7.0]
    assert float(x[tf.constant(-1, tf.int64), 2]) == 10.0
    assert x[tf.constant(1):tf.constant(3)].shape == (2, 4)
    assert x[tf.constant(1, tf.int64):].shape == (2, 4)
    assert x[np.int64(2)].numpy().tolist() == [8.0, 9.0, 10.0, 11.0]
    assert x[1, tf.constant(1):].numpy().tolist() == [5.0, 6.0, 7.0]
    assert x[:, tf.Variable(2)].numpy().tolist() == [2.0, 6.0, 10.0]
    assert x[tf.constant(1, tf.int16), 1:].numpy().tolist() == [5.0, 6.0, 7.0]
    assert x[np.array(1)].numpy().tolist() == [4.0, 5.0, 6.0, 7.0]
    # TF packs begin/end with tf.stack, which refuses to mix int32 and int64 tensors
    with raises(IAE, "cannot compute Pack as input #1(zero-based) was expected to be a int32 tensor but is a int64"):
        x[tf.constant(1):, tf.constant(2, tf.int64)]


def test_getitem_scalar_and_rank0():
    s = tf.constant(3.0)
    assert s[...].shape == () and float(s[...]) == 3.0         # TF
    assert s[None].numpy().tolist() == [3.0]
    assert s[()].shape == ()
    with raises(IAE, "Attempting to slice scalar input.", "[Op:StridedSlice]"):
        s[0]


def test_getitem_bool_mask_like_tf():  # TF: a bool tensor/array key is tf.boolean_mask
    x = x34()
    assert x[tf.constant([True, False, True])].numpy().tolist() == [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]]
    assert x[np.array([True, False, True])].shape == (2, 4)
    assert x[x > 9].numpy().tolist() == [10.0, 11.0]
    with raises(ValueError, "mask cannot be scalar."):
        x[True]


def test_variable_getitem_and_iteration():
    v = tf.Variable(X)
    assert v[1:, 2].numpy().tolist() == [6.0, 10.0]
    rows = [r for r in tf.constant([[1, 2], [3, 4]])]
    assert [r.numpy().tolist() for r in rows] == [[1, 2], [3, 4]] and rows[0].dtype == tf.int32
    assert [float(e) for e in tf.constant([1.0, 2.0])] == [1.0, 2.0]
    with tf.GradientTape() as tape:
        y = v[0, 1] * 3.0
    g = tape.gradient(y, v)
    assert g.numpy()[0, 1] == 3.0 and g.numpy().sum() == 3.0


# --------------------------------------------------------------------------------------
# __getitem__ errors
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("key, message", [  # TF messages
    (3, "slice index 3 of dimension 0 out of bounds."),
    (-4, "slice index -1 of dimension 0 out of bounds."),
    (-5, "slice index -2 of dimension 0 out of bounds."),
    ((0, 4), "slice index 4 of dimension 1 out of bounds."),
    ((0, 1, 2), "Index out of range using input dim 2; input has only 2 dims"),
    ([0, 1, 2], "Index out of range using input dim 2; input has only 2 dims"),
    ((Ellipsis, Ellipsis), "Multiple ellipses in slice spec not allowed"),
    (slice(None, None, 0), "strides[0] must be non-zero"),
])
def test_getitem_errors(key, message):
    with raises(IAE, message, "[Op:StridedSlice]"):
        x34()[key]


def test_getitem_out_of_range_fragment():
    x = tf.reshape(tf.range(10), [10, 1])
    with raises(IAE, "slice index 5 of dimension 0 out of bounds.", "[Op:StridedSlice]"):
        x[:5][5]


@pytest.mark.parametrize("key", [1.5, "a", tf.constant([0, 1]), tf.constant(1, tf.uint8), tf.constant(1.0),
                                 np.array([0, 1]), (0, 1.0), slice(0.5, None)])
def test_getitem_bad_index_types_raise_type_error(key):  # TF: TypeError with this message
    with raises(TypeError, "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                           "tf.int32/tf.int64 tensors are valid indices, got"):
        x34()[key]


# --------------------------------------------------------------------------------------
# tf.strided_slice
# --------------------------------------------------------------------------------------
def test_strided_slice_masks():  # TF values
    x = x34()
    assert tf.strided_slice(x, [0, 1], [3, 3], [1, 1], new_axis_mask=1, shrink_axis_mask=2).numpy().tolist() == [
        [4.0, 5.0, 6.0, 7.0]]
    nm = tf.strided_slice(x, [1, 1], [2, 3], [1, 1], new_axis_mask=1, shrink_axis_mask=1)  # new axis wins
    assert nm.shape == (1, 2, 4) and nm.numpy().tolist() == [[[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]]
    ell = tf.strided_slice(x, [1, 1], [2, 3], [1, 1], new_axis_mask=1, ellipsis_mask=1)    # ellipsis wins
    assert ell.numpy().tolist() == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]
    # shrink ignores begin_mask and uses the begin value
    assert tf.strided_slice(x, [2], [3], [1], begin_mask=1, shrink_axis_mask=1).numpy().tolist() == [
        8.0, 9.0, 10.0, 11.0]
    assert tf.strided_slice(x, [1, 1], [2, 3]).numpy().tolist() == [[5.0, 6.0]]              # default strides
    assert tf.strided_slice(x, tf.constant([1], tf.int64), [2]).shape == (1, 4)              # mixed index dtypes
    assert tf.strided_slice(x, [0, 3], [3, 0], [2, -1], begin_mask=2, end_mask=2).numpy().tolist() == [
        [3.0, 2.0, 1.0, 0.0], [11.0, 10.0, 9.0, 8.0]]


def test_strided_slice_errors():  # TF messages
    with raises(IAE, "only stride 1 allowed on non-range indexing.", "[Op:StridedSlice]"):
        tf.strided_slice(x34(), [1], [2], [-1], shrink_axis_mask=1)
    with raises(IAE, "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [2], [2], and "
                     "[1] instead.", "[Op:StridedSlice]"):
        tf.strided_slice(x34(), [1, 1], [2, 3], [1])
    with raises(IAE, "Value for attr 'Index' of float32 is not in the list of allowed values: int16, int32, int64"):
        tf.strided_slice(x34(), [1.0], [2.0], [1.0])


def test_strided_slice_grad_op_and_its_gradient():
    """StridedSliceGrad writes dy into zeros; its own gradient slices the incoming gradient."""
    ssg = get_op("StridedSliceGrad")
    attrs = {"begin_mask": 0, "end_mask": 1, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}
    spec = [tf.constant([1]), tf.constant([0]), tf.constant([1])]
    dy = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    out = execute(ssg, (tf.constant([3, 2]),) + tuple(spec) + (dy,), attrs)
    assert out.numpy().tolist() == [[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]]
    check_gradients(lambda d: execute(ssg, (tf.constant([3, 2]),) + tuple(spec) + (d,), attrs) * 2.0,
                    np.ones((2, 2)))


# --------------------------------------------------------------------------------------
# tf.slice
# --------------------------------------------------------------------------------------
def test_slice_values():  # TF values
    x = x34()
    assert tf.slice(x, [1, 1], [-1, 2]).numpy().tolist() == [[5.0, 6.0], [9.0, 10.0]]
    assert tf.slice(x, [1, 0], [-1, -1]).shape == (2, 4)
    assert tf.slice(x, tf.constant([1, 0], tf.int64), [1, 2]).numpy().tolist() == [[4.0, 5.0]]
    assert tf.slice(x, [3, 4], [0, 0]).shape == (0, 0)
    assert float(tf.slice(tf.constant(2.0), [], [])) == 2.0


@pytest.mark.parametrize("begin, size, message", [  # TF messages
    ([4, 0], [1, 1], "Expected begin[0] in [0, 3], but got 4"),
    ([-1, 0], [1, 1], "Expected begin[0] in [0, 3], but got -1"),
    ([1, 0], [5, 1], "Expected size[0] in [0, 2], but got 5"),
    ([1, 0], [-2, -1], "Expected size[0] in [0, 2], but got -2"),
    ([1], [1], "Expected begin and size arguments to be 1-D tensors of size 2, but got shapes [1] and [1] instead."),
])
def test_slice_errors(begin, size, message):
    with raises(IAE, message, "[Op:Slice]"):
        tf.slice(x34(), begin, size)


# --------------------------------------------------------------------------------------
# Gradients
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("f", [
    lambda x: x[1:, ::-2, None],
    lambda x: x[-1, 1:3],
    lambda x: x[..., 0, None],
    lambda x: x[None, ::2, 3],
    lambda x: x[::-1][1] * x[0],
    lambda x: x[2:0:-1, -3:],
    lambda x: tf.strided_slice(x, [0, 3], [3, 0], [2, -1]),
    lambda x: tf.slice(x, [1, 1], [-1, 2]),
    lambda x: x[tf.constant(1, tf.int64):, tf.constant(2, tf.int64)],
])
def test_slicing_gradients(f):
    check_gradients(f, A)


def test_slicing_second_order():
    check_second_order(lambda x: x[1:, ::-2] ** 3, A)
    check_second_order(lambda x: x[None, 1, ..., 2] ** 3 * x[0, 0], A)
    check_second_order(lambda x: tf.slice(x, [1, 1], [2, 2]) ** 3, A)


# --------------------------------------------------------------------------------------
# Property tests: random shapes and keys against NumPy's basic indexing
# --------------------------------------------------------------------------------------
_bound = st.none() | st.integers(-7, 7)


@st.composite
def shapes_and_keys(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    items = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["int", "slice", "slice", "ellipsis", "newaxis"]))
        if kind == "int":
            items.append(draw(st.integers(-5, 5)))
        elif kind == "slice":
            items.append(slice(draw(_bound), draw(_bound), draw(st.none() | st.integers(-3, 3))))
        elif kind == "ellipsis":
            items.append(Ellipsis)
        else:
            items.append(None)
    key = items[0] if len(items) == 1 and draw(st.booleans()) else tuple(items)
    return shape, key


@settings(max_examples=300, deadline=None)
@given(shapes_and_keys())
def test_getitem_property_matches_numpy(shape_and_key):
    """Where NumPy's basic indexing succeeds, x[key] gives the same values; where it fails, IAE."""
    shape, key = shape_and_key
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    try:
        expected = x[key]
    except (IndexError, ValueError):
        with pytest.raises(IAE, match=r"\[Op:StridedSlice\]"):
            tf.constant(x)[key]
        return
    got = tf.constant(x)[key]
    assert got.shape == np.shape(expected)
    np.testing.assert_array_equal(got.numpy(), expected)


@settings(max_examples=100, deadline=None)
@given(shapes_and_keys())
def test_getitem_gradient_property(shape_and_key):
    """d/dx sum(x[key] * w) puts w at the selected positions: compare with NumPy's view assignment."""
    shape, key = shape_and_key
    x_np = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    try:
        picked = x_np[key]
    except (IndexError, ValueError):
        return
    w = np.random.default_rng(0).normal(size=np.shape(picked))
    expected = np.zeros(shape)
    view = expected[key]
    if np.ndim(view):
        view[...] = w
    else:
        expected[key] = w
    x = tf.constant(x_np)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x[key] * tf.constant(w)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), expected)
