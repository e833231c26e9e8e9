"""The eager Tensor API and TF's conversion rules (golden values from TensorFlow 2.21)."""
import numpy as np
import pytest

import engine as tf


def test_repr_and_str_match_tf():
    assert repr(tf.constant([1.0, 2.0])) == \
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert repr(tf.constant(0.1)) == "<tf.Tensor: shape=(), dtype=float32, numpy=0.10000000149011612>"
    assert repr(tf.constant(3, tf.int64)) == "<tf.Tensor: shape=(), dtype=int64, numpy=3>"
    assert repr(tf.constant(True)) == "<tf.Tensor: shape=(), dtype=bool, numpy=True>"
    assert repr(tf.constant([[1.0, 2.0], [3.0, 4.0]])) == \
        "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1., 2.],\n       [3., 4.]], dtype=float32)>"
    assert str(tf.constant([1.5, 2.0])) == "tf.Tensor([1.5 2. ], shape=(2,), dtype=float32)"
    assert str(tf.constant(0.1)) == "tf.Tensor(0.1, shape=(), dtype=float32)"
    assert str(tf.constant(3)) == "tf.Tensor(3, shape=(), dtype=int32)"
    assert str(tf.constant([[1.0, 2.0], [3.0, 4.0]])) == "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)"
    assert repr(tf.constant("hi")) == "<tf.Tensor: shape=(), dtype=string, numpy=b'hi'>"


def test_metadata():
    t = tf.constant(np.zeros((2, 3), np.float32))
    assert t.shape == (2, 3) and t.ndim == 2 and t.dtype == tf.float32
    assert t.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert isinstance(t, tf.Tensor) and tf.is_tensor(t)
    with pytest.raises(AttributeError, match="Tensor.name is undefined when eager execution is enabled"):
        t.name


def test_numpy_interop():
    t = tf.constant([1.0, 2.0])
    assert isinstance(t.numpy(), np.ndarray)
    assert type(tf.constant(1.0).numpy()) is np.float32
    np.testing.assert_array_equal(np.asarray(t), [1.0, 2.0])
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    r = np.array([1.0, 1.0], dtype=np.float32) + t  # NumPy defers to the tensor
    assert isinstance(r, tf.Tensor) and r.dtype == tf.float32
    assert float(np.sum(t)) == 3.0


def test_scalar_conversions():
    assert bool(tf.constant(True)) is True and float(tf.constant(2.5)) == 2.5 and int(tf.constant(7)) == 7
    assert [10, 20, 30][tf.constant(1)] == 20
    with pytest.raises(ValueError, match="truth value of an array with more than one element is ambiguous"):
        bool(tf.constant([1, 2]))
    with pytest.raises(TypeError):
        float(tf.constant([1.0, 2.0]))


def test_len_and_iteration():
    t = tf.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3 and rows[1].numpy().tolist() == [3, 4]
    with pytest.raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
        len(tf.constant(1))
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
        iter(tf.constant(1)).__next__()


def test_tensors_are_unhashable_but_have_refs():
    t = tf.constant(1)
    with pytest.raises(TypeError, match="Tensor is unhashable. Instead, use tensor.ref\\(\\) as the key."):
        hash(t)
    d = {t.ref(): "a"}
    assert d[t.ref()] == "a" and t.ref().deref() is t


def test_equality_semantics():
    assert (tf.constant(1) == None) is False  # noqa: E711
    r = tf.constant([1, 2]) == tf.constant([1, 2, 3])
    assert isinstance(r, tf.Tensor) and r.dtype == tf.bool and bool(r) is False
    np.testing.assert_array_equal((tf.constant([1, 2]) == tf.constant([1, 3])).numpy(), [True, False])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute Equal as input #1"):
        tf.constant(1) == tf.constant(1.0)
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.constant(1) == 1.5


def test_no_implicit_promotion_between_tensors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a int32 tensor"):
        tf.constant(1) + tf.constant(1.5)


def test_python_scalars_adopt_the_tensor_dtype():
    assert (tf.constant(1.5) + 1).dtype == tf.float32
    assert (2 * tf.constant(3, tf.int64)).dtype == tf.int64
    assert (tf.constant([1.0], tf.float16) * 0.5).dtype == tf.float16
    assert (1.0 - tf.constant(3.0, tf.float64)).dtype == tf.float64
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.constant(1) * 1.5
    # TF 2.21: ``+`` lets AddV2 itself refuse the mix
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute AddV2 as input #1"):
        tf.constant(1) + 1.5


def test_numpy_arrays_are_cast_to_the_tensor_dtype():
    r = tf.constant([1.0]) + np.array([1.0])  # float64 NumPy data becomes float32, as TF does
    assert r.dtype == tf.float32
    r = tf.constant([1]) + np.array([1.5])
    assert r.dtype == tf.int32 and r.numpy().tolist() == [2]


@pytest.mark.parametrize("expr, expected", [
    (lambda a, b: a + b, [5.0, 2.0]), (lambda a, b: a - b, [-3.0, 2.0]), (lambda a, b: a * b, [4.0, 0.0]),
    (lambda a, b: a / b, [0.25, np.inf]), (lambda a, b: b ** 2, [16.0, 0.0]), (lambda a, b: -a, [-1.0, -2.0]),
    (lambda a, b: abs(-a), [1.0, 2.0]), (lambda a, b: 10 - a, [9.0, 8.0]), (lambda a, b: 8 / b, [2.0, np.inf]),
    (lambda a, b: 2 ** a, [2.0, 4.0]), (lambda a, b: a // 2, [0.0, 1.0]), (lambda a, b: a % 2, [1.0, 0.0]),
])
def test_arithmetic_operators(expr, expected):
    a, b = tf.constant([1.0, 2.0]), tf.constant([4.0, 0.0])
    np.testing.assert_array_equal(expr(a, b).numpy(), np.array(expected, np.float32))


def test_comparison_and_logical_operators():
    a, b = tf.constant([1, 5]), tf.constant([3, 3])
    assert (a < b).numpy().tolist() == [True, False]
    assert (a <= 1).numpy().tolist() == [True, False]
    assert (a > b).numpy().tolist() == [False, True]
    assert (a >= 5).numpy().tolist() == [False, True]
    assert (a != b).numpy().tolist() == [True, True]
    p, q = tf.constant([True, False]), tf.constant([True, True])
    assert (p & q).numpy().tolist() == [True, False]
    assert (p | q).numpy().tolist() == [True, True]
    assert (p ^ q).numpy().tolist() == [False, True]
    assert (~p).numpy().tolist() == [False, True]


def test_matmul_operator():
    a = tf.constant([[1.0, 2.0]])
    b = tf.constant([[3.0], [4.0]])
    assert (a @ b).numpy().tolist() == [[11.0]]


def test_constant_shape_argument():
    assert tf.constant(0, shape=[2, 2]).numpy().tolist() == [[0, 0], [0, 0]]
    assert tf.constant([1, 2, 3, 4], shape=[2, 2]).shape == (2, 2)
    with pytest.raises(TypeError, match="Eager execution of tf.constant with unsupported shape"):
        tf.constant([1, 2, 3], shape=[2, 2])


def test_constant_refuses_lossy_python_conversion():
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.constant(1.5, dtype=tf.int32)
    assert tf.constant(np.array([1.5]), dtype=tf.int32).numpy().tolist() == [1]


def test_convert_to_tensor_rules():
    t = tf.constant(1.0)
    assert tf.convert_to_tensor(t) is t
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32 for Tensor with dtype float32"):
        tf.convert_to_tensor(t, dtype=tf.int32)
    with pytest.raises(ValueError, match="Attempt to convert a value \\(None\\) with an unsupported type"):
        tf.convert_to_tensor(None)
    with pytest.raises(ValueError, match="unsupported type"):
        tf.convert_to_tensor(object())
    assert tf.convert_to_tensor(1, dtype_hint=tf.float32).dtype == tf.float32
    assert tf.convert_to_tensor([1, 2], dtype=tf.int64).dtype == tf.int64


def test_executing_eagerly():
    assert tf.executing_eagerly() is True


def test_kernel_errors_become_invalid_argument_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\].*\[Op:AddV2\]"):
        tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Matrix size-incompatible: In\[0\]: \[2,3\], "
                                                             r"In\[1\]: \[4,5\]"):
        tf.matmul(tf.ones((2, 3)), tf.ones((4, 5)))


def test_errors_are_op_errors():
    assert issubclass(tf.errors.InvalidArgumentError, tf.errors.OpError)
    e = tf.errors.InvalidArgumentError(None, None, "boom")
    assert e.message == "boom" and str(e) == "boom" and e.error_code == tf.errors.INVALID_ARGUMENT
