"""Conformance with the guide "Introduction to Tensors" (tensorflow.org/guide/tensor) and the dtype
rules it relies on. Golden values recorded from TF 2.21."""
import numpy as np
import pytest

import engine as tf


@pytest.mark.parametrize("value,dtype", [
    ([np.float64(1.5)], tf.float64),                       # a NumPy first element sets the float dtype
    ([np.float64(2.0), 1.5], tf.float64),
    ([1.5, np.float64(2.0)], tf.float32),                   # ... a Python float first does not
    ([np.array([1., 2.]), np.array([3., 4.])], tf.float64),
    ([np.float16(1), np.float16(2)], tf.float16),
    ([[np.float64(1.0)], [2.0]], tf.float64),
    ([np.float32(1.0), np.float64(2.0)], tf.float32),
    ([np.array(1.0), 2.0], tf.float64),
    ([2.0, np.array(1.0)], tf.float32),
    ([np.array([1.], np.float16), [2.0]], tf.float16),
    ([np.int64(1), 2], tf.int32),                           # NumPy ints in a list: int32 when they fit
    ([np.array([1, 2])], tf.int32),
    ([np.int8(1)], tf.int32),
    ([np.int64(2 ** 40)], tf.int64),
    ([np.int64(1), 2.5], tf.float32),
    ([True, np.bool_(False)], tf.bool),
    (np.array([1.0, 2.0]), tf.float64),                     # an array keeps its dtype
    ([1.0, 2.0], tf.float32),
])
def test_dtype_inference_from_lists_with_numpy_elements(value, dtype):
    assert tf.constant(value).dtype == dtype
    assert tf.convert_to_tensor(value).dtype == dtype


def test_complex_tensors_are_stored_and_printed():
    # The Variables guide: complex_variable = tf.Variable([5 + 4j, 6 + 1j])
    t = tf.constant([5 + 4j, 6 + 1j])
    assert t.dtype == tf.complex128 and t.dtype.is_complex and not t.dtype.is_floating
    assert tf.constant(1j).dtype == tf.complex128
    assert tf.constant(np.array([1j], np.complex64)).dtype == tf.complex64
    assert tf.complex64.real_dtype == tf.float32 and tf.complex128.real_dtype == tf.float64
    assert tf.float32.real_dtype == tf.float32 and not tf.float32.is_complex
    assert tf.complex64.as_datatype_enum == 8 and tf.complex128.as_datatype_enum == 18
    assert tf.as_dtype(np.complex64) is tf.complex64 and tf.as_dtype("complex128") is tf.complex128
    assert repr(tf.constant(1j)) == "<tf.Tensor: shape=(), dtype=complex128, numpy=1j>"
    assert str(tf.constant(np.array([1j], np.complex64))) == "tf.Tensor([0.+1.j], shape=(1,), dtype=complex64)"
    c = tf.cast(tf.constant([1.5]), tf.complex64)
    assert c.dtype == tf.complex64 and c.numpy().tolist() == [1.5 + 0j]
    with pytest.raises(TypeError, match="Cannot find minimum value"):
        tf.complex64.min


def test_count_nonzero():
    r = tf.math.count_nonzero([0, 1, 2])
    assert r.dtype == tf.int64 and r.shape == () and int(r) == 2
    m = tf.constant([[0., 1.], [2., 0.]])
    assert tf.math.count_nonzero(m, axis=1).numpy().tolist() == [1, 1]
    k = tf.math.count_nonzero(m, axis=0, keepdims=True, dtype=tf.int32)
    assert k.dtype == tf.int32 and k.shape == (1, 2) and k.numpy().tolist() == [[1, 1]]
    assert int(tf.math.count_nonzero(tf.constant([True, False, True]))) == 2
    assert int(tf.math.count_nonzero(tf.zeros([0]))) == 0
    f = tf.math.count_nonzero(tf.constant([1, 0]), dtype=tf.float32)
    assert f.dtype == tf.float32 and float(f) == 1.0
    assert not hasattr(tf, "count_nonzero")   # TF 2: only tf.math.count_nonzero


def test_tensor_shape_rank_assertions_and_subtypes():
    s = tf.TensorShape([2, None, 3])
    s.assert_has_rank(3)
    tf.TensorShape(None).assert_has_rank(2)
    with pytest.raises(ValueError, match=r"Shape \(2, None, 3\) must have rank 2"):
        s.assert_has_rank(2)
    tf.TensorShape([1]).assert_same_rank([2])
    tf.TensorShape([1]).assert_same_rank(tf.TensorShape(None))
    with pytest.raises(ValueError):
        tf.TensorShape([1]).assert_same_rank([2, 3])
    assert tf.TensorShape([3, 2]).is_subtype_of(tf.TensorShape([None, 2]))
    assert not tf.TensorShape([None, 2]).is_subtype_of(tf.TensorShape([3, 2]))
    assert not tf.TensorShape(None).is_subtype_of(tf.TensorShape([3, 2]))
    assert tf.TensorShape(None).is_subtype_of(tf.TensorShape(None))
    assert tf.TensorShape([3, 2]).is_subtype_of(tf.TensorShape(None))
    assert not tf.TensorShape([3]).is_subtype_of(tf.TensorShape([3, 1]))
