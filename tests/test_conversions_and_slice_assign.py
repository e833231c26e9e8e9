"""tf.constant conversions (complex, out-of-range ints, string printing) and v[...].assign(...), recorded from
TF 2.21."""
import numpy as np
import pytest

import engine as tf
from engine.framework.errors import InvalidArgumentError


def test_complex_conversions():
    t = tf.constant([1.0], dtype=tf.complex64)
    assert t.dtype == tf.complex64 and t.numpy().tolist() == [1 + 0j]
    assert tf.constant(1.5, dtype=tf.complex64).numpy() == 1.5 + 0j
    assert tf.constant([1, 2], dtype=tf.complex128).dtype == tf.complex128
    with pytest.raises(TypeError, match="Cannot convert 1j to EagerTensor of dtype float32"):
        tf.constant(1j, dtype=tf.float32)
    with pytest.raises(TypeError, match=r"Cannot convert \[1j\] to EagerTensor of dtype int32"):
        tf.constant([1j], dtype=tf.int32)
    with pytest.raises(TypeError, match="Cannot convert True to EagerTensor of dtype complex64"):
        tf.constant(True, dtype=tf.complex64)


@pytest.mark.parametrize("value, dtype, expected", [
    (-1, tf.uint8, 255), (256, tf.uint8, 0), ([1, 300], tf.uint8, [1, 44]), (2 ** 31, tf.int32, -2147483648),
    (-129, tf.int8, 127), (2 ** 40, tf.int32, 0), ([1, 2 ** 40], tf.int16, [1, 0]),
    ([1, 2 ** 63], tf.uint64, [1, 2 ** 63]), (True, tf.int32, 1),
])
def test_python_ints_wrap_around_like_tf(value, dtype, expected):
    t = tf.constant(value, dtype=dtype)
    assert t.dtype == dtype and t.numpy().tolist() == expected
    assert tf.convert_to_tensor(value, dtype=dtype).numpy().tolist() == expected


@pytest.mark.parametrize("value, dtype", [(2 ** 63, tf.int64), (2 ** 64, tf.int32), (-2 ** 63 - 1, tf.int64),
                                          (-1, tf.uint64), (2 ** 64, tf.uint64)])
def test_ints_beyond_64_bits_raise_value_error(value, dtype):
    with pytest.raises(ValueError, match="Can't convert Python sequence with out-of-range integer to Tensor."):
        tf.constant(value, dtype=dtype)


def test_other_conversion_rules_kept():
    with pytest.raises(TypeError, match="Cannot convert 3 to EagerTensor of dtype bool"):
        tf.constant(3, dtype=tf.bool)
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.constant(1.5, dtype=tf.int32)
    assert tf.constant(np.array([-1, 300]), dtype=tf.uint8).numpy().tolist() == [255, 44]


def test_string_printing_matches_tf():
    assert str(tf.constant("abc")) == "tf.Tensor(b'abc', shape=(), dtype=string)"
    assert str(tf.constant(b"abc")) == "tf.Tensor(b'abc', shape=(), dtype=string)"
    assert repr(tf.constant("abc")) == "<tf.Tensor: shape=(), dtype=string, numpy=b'abc'>"
    assert str(tf.constant(["a", "bc"])) == "tf.Tensor([b'a' b'bc'], shape=(2,), dtype=string)"
    assert str(tf.constant(1.5)) == "tf.Tensor(1.5, shape=(), dtype=float32)"


def test_slice_assign_eagerly():
    v = tf.Variable([1., 2., 3., 4.])
    r = v[0].assign(10)   # TF: an _UnreadVariable, a view of the whole of v
    assert r.name == "UnreadVariable" and r.numpy().tolist() == v.numpy().tolist()
    assert v.numpy().tolist() == [10., 2., 3., 4.]
    v[1:3].assign([5., 6.])
    assert v.numpy().tolist() == [10., 5., 6., 4.]
    v[1:3].assign([5.])           # broadcasts, as TF 2.21
    v[::2].assign([7., 8.])
    assert v.numpy().tolist() == [7., 5., 8., 4.]
    m = tf.Variable([[1, 2], [3, 4]])
    m[:, 1].assign([9, 9])
    m[1].assign([7, 7])
    m[..., 0].assign([0, 0])
    assert m.numpy().tolist() == [[0, 9], [0, 7]]


def test_slice_is_still_a_tensor_and_reads_are_snapshots():
    v = tf.Variable([1., 2., 3.])
    before = v.read_value()
    s = v[1]
    assert isinstance(s, tf.Tensor) and float(s + 1.) == 3.0
    v[1].assign(5.)
    assert before.numpy().tolist() == [1., 2., 3.] and float(s) == 2.0
    with tf.GradientTape() as tape:
        y = v[1] * 2.
    assert tape.gradient(y, v).numpy().tolist() == [0., 2., 0.]


def test_slice_assign_errors():
    v = tf.Variable([1., 2., 3., 4.])
    with pytest.raises(InvalidArgumentError, match=r"sliced l-value shape \[2\] does not match r-value shape \[3\]"):
        v[1:3].assign([1., 2., 3.])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32 for Tensor with dtype int32"):
        v[0].assign(tf.constant(1, tf.int32))
    assert v.numpy().tolist() == [1., 2., 3., 4.]


def test_slice_assign_in_tf_function_matches_eager():
    v = tf.Variable([1., 2., 3., 4.])
    w = tf.Variable([1., 2., 3., 4.])

    @tf.function
    def f(i):
        v[2:].assign([0., 0.])
        v[i].assign(42.)
        return v.read_value()

    out = f(tf.constant(1))
    w[2:].assign([0., 0.])
    w[1].assign(42.)
    assert out.numpy().tolist() == w.numpy().tolist() == v.numpy().tolist() == [1., 42., 0., 0.]


def test_slice_assign_in_graph_session():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1., 2., 3.])
        init = tf.compat.v1.global_variables_initializer()
        out = v[1:].assign([7., 8.])
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        assert sess.run(out).tolist() == [1., 7., 8.]
