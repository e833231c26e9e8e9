"""Conformance with the guide "Introduction to Variables" (tensorflow.org/guide/variable) and the
tf.Variable API page. Golden values recorded from TF 2.21."""
import numpy as np
import pytest

import engine as tf


def test_complex_variable_from_the_guide():
    complex_variable = tf.Variable([5 + 4j, 6 + 1j])
    assert complex_variable.dtype == tf.complex128
    assert repr(complex_variable) == ("<tf.Variable 'Variable:0' shape=(2,) dtype=complex128, "
                                      "numpy=array([5.+4.j, 6.+1.j])>")


@pytest.mark.parametrize("update,message", [
    (lambda v: v.__iadd__(1.0), r"`variable \+= value` with `tf.Variable`s is not supported. Use "
                                r"`variable.assign_add\(value\)`"),
    (lambda v: v.__isub__(1.0), r"`variable -= value` with `tf.Variable`s is not supported. Use "
                                r"`variable.assign_sub\(value\)`"),
    (lambda v: v.__imul__(2.0), r"`var \*= value` with `tf.Variable`s is not supported"),
    (lambda v: v.__itruediv__(2.0), r"`var /= value` with `tf.Variable`s is not supported"),
    (lambda v: v.__ipow__(2.0), r"`var \*\*= value` with `tf.Variable`s is not supported"),
])
def test_in_place_operators_raise_runtime_error(update, message):
    v = tf.Variable(2.0)
    with pytest.raises(RuntimeError, match=message):
        update(v)
    assert float(v) == 2.0


def test_augmented_assignment_statement_does_not_rebind_to_a_tensor():
    v = tf.Variable(2.0)
    with pytest.raises(RuntimeError, match="assign_add"):
        v += 1
    assert isinstance(v, tf.Variable) and float(v) == 2.0


def test_eager_variable_names_take_the_name_scope():
    with tf.name_scope("scope"):
        assert tf.Variable(1.0, name="q").name == "scope/q:0"
        assert tf.Variable(1.0).name == "scope/Variable:0"
        with tf.name_scope("inner"):
            assert tf.Variable(1.0, name="w").name == "scope/inner/w:0"
    assert tf.Variable(1.0, name="q").name == "q:0"
    assert tf.Variable(1.0, name="Mark").name == "Mark:0"   # no uniquification eagerly (guide: two "Mark:0")


def test_initial_value_tensor_of_another_dtype_is_an_error():
    with pytest.raises(ValueError, match="initial_value: Tensor conversion requested dtype float32 for Tensor "
                                         "with dtype int32"):
        tf.Variable(tf.constant([1, 2]), dtype=tf.float32)
    with pytest.raises(ValueError, match="initial_value: Tensor conversion requested dtype float64 for Tensor "
                                         "with dtype float32"):
        tf.Variable(lambda: tf.ones([2]), dtype=tf.float64)
    # Python and NumPy values are converted to the requested dtype.
    assert tf.Variable(1, dtype=tf.float32).dtype == tf.float32
    assert tf.Variable(np.array([1, 2]), dtype=tf.float64).numpy().tolist() == [1.0, 2.0]
    assert tf.Variable(lambda: tf.ones([2]), dtype=tf.float32).dtype == tf.float32


def test_read_helpers_and_eager_only_methods():
    v = tf.Variable([1., 2., 3.])
    r = v.sparse_read([0, 2])
    assert r.dtype == tf.float32 and r.numpy().tolist() == [1.0, 3.0]
    m = tf.Variable([[1., 2.], [3., 4.]])
    assert m.gather_nd([[1, 0]]).numpy().tolist() == [3.0]
    init = v.is_initialized()
    assert isinstance(init, tf.Tensor) and init.dtype == tf.bool and bool(init)
    with pytest.raises(RuntimeError, match="This operation is not supported when eager execution is enabled."):
        v.eval()
    u = tf.Variable([1.0], shape=[None])
    u.set_shape([1])
    assert u.shape == (1,)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v.sparse_read([1, 1]))
    assert tf.convert_to_tensor(tape.gradient(y, v)).numpy().tolist() == [0.0, 2.0, 0.0]


def test_placing_variables_on_devices():
    assert tf.debugging.set_log_device_placement(False) is None
    with tf.device("CPU:0"):
        a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        c = tf.matmul(a, b)
    assert c.numpy().tolist() == [[22.0, 28.0], [49.0, 64.0]]
    assert a.device.endswith("device:CPU:0") and c.device.endswith("device:CPU:0")
