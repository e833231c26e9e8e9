"""DType and TensorShape behaviour, with values recorded from TensorFlow 2.21."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import engine as tf


@pytest.mark.parametrize("value, dtype", [
    (1.5, tf.float32), (1, tf.int32), (2 ** 40, tf.int64), ([1, 2.5], tf.float32), (True, tf.bool),
    (np.array([1.0]), tf.float64), (np.array([1]), tf.int64), (np.float16(1), tf.float16),
    (np.array([1], dtype=np.uint8), tf.uint8), ("hi", tf.string), ([[1, 2], [3, 4]], tf.int32),
])
def test_dtype_inference(value, dtype):
    assert tf.constant(value).dtype == dtype


def test_dtype_properties():
    assert tf.float16.is_floating and not tf.int32.is_floating
    assert tf.int32.is_integer and tf.uint8.is_unsigned and not tf.int8.is_unsigned
    assert tf.bool.is_bool and not tf.bool.is_integer
    assert (tf.float64.size, tf.int8.size, tf.float16.size) == (8, 1, 2)
    assert (tf.int8.min, tf.int8.max, tf.uint8.max) == (-128, 127, 255)
    assert tf.float32.as_numpy_dtype is np.float32
    assert tf.float32.name == "float32" and tf.float32.base_dtype is tf.float32


def test_dtype_printing_and_equality():
    assert str(tf.float32) == "<dtype: 'float32'>"
    assert repr(tf.float32) == "tf.float32"
    assert tf.float32 == "float32" and tf.float32 == np.float32 and tf.float32 == np.dtype("float32")
    assert tf.float32 != tf.float64 and tf.float32 != "int32"
    assert tf.double is tf.float64 and tf.half is tf.float16


def test_as_dtype_follows_tf_2_21():
    assert tf.as_dtype(float) is tf.float32
    assert tf.as_dtype("int64") is tf.int64
    assert tf.as_dtype(np.int16) is tf.int16
    assert tf.as_dtype(bool) is tf.bool
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`"):
        tf.as_dtype(int)
    with pytest.raises(TypeError):
        tf.as_dtype("no_such_type")


def test_dtype_limits_and_compatibility():
    assert tf.float32.is_compatible_with("float32")
    assert not tf.float32.is_compatible_with(tf.float64)
    with pytest.raises(TypeError):
        tf.bool.min


def test_tensor_shape_printing():
    assert str(tf.TensorShape([None, 3])) == "(None, 3)"
    assert repr(tf.TensorShape([None, 3])) == "TensorShape([None, 3])"
    assert str(tf.TensorShape(None)) == "<unknown>"
    assert repr(tf.TensorShape(None)) == "TensorShape(None)"
    assert str(tf.TensorShape([2])) == "(2,)"


def test_tensor_shape_equality():
    assert tf.TensorShape([None]) == tf.TensorShape([None])
    assert tf.TensorShape([1, 2]) == (1, 2) and tf.TensorShape([1, 2]) == [1, 2]
    assert tf.TensorShape(None) == tf.TensorShape(None)
    assert tf.TensorShape([1, 2]) != tf.TensorShape([2, 1])


def test_tensor_shape_merge_and_compatibility():
    assert tf.TensorShape([None, 3]).merge_with([2, None]) == [2, 3]
    with pytest.raises(ValueError, match=r"Shapes \(2, 3\) and \(3, 3\) are not compatible"):
        tf.TensorShape([2, 3]).merge_with([3, 3])
    assert tf.TensorShape([None, 3]).is_compatible_with([2, 3])
    assert not tf.TensorShape([2]).is_compatible_with([2, 3])
    assert tf.TensorShape(None).is_compatible_with([5])
    assert tf.TensorShape(None).merge_with([5]) == [5]


def test_tensor_shape_queries():
    s = tf.TensorShape([1, None, 3])
    assert s[1] is None and s[1:] == tf.TensorShape([None, 3])
    assert s.rank == 3 and s.ndims == 3 and len(s) == 3 and s.as_list() == [1, None, 3]
    assert tf.TensorShape(None).rank is None
    assert tf.TensorShape([2, 3]).num_elements() == 6 and s.num_elements() is None
    assert bool(tf.TensorShape([])) and not bool(tf.TensorShape(None))
    assert tf.TensorShape([2]).concatenate([3]) == [2, 3]
    assert tf.TensorShape([2, 3]).most_specific_compatible_shape([2, 4]) == [2, None]
    with pytest.raises(ValueError, match="as_list\\(\\) is not defined on an unknown TensorShape"):
        tf.TensorShape(None).as_list()
    with pytest.raises(ValueError, match="Cannot take the length of shape with unknown rank"):
        len(tf.TensorShape(None))


dims = st.lists(st.one_of(st.none(), st.integers(0, 4)), max_size=4)


@given(dims, dims)
def test_merge_is_compatible_with_both(a, b):
    sa, sb = tf.TensorShape(a), tf.TensorShape(b)
    if sa.is_compatible_with(sb):
        merged = sa.merge_with(sb)
        assert merged.is_compatible_with(sa) and merged.is_compatible_with(sb)
        assert merged == sb.merge_with(sa)
    else:
        with pytest.raises(ValueError):
            sa.merge_with(sb)


@given(dims, dims)
def test_most_specific_compatible_shape_covers_both(a, b):
    relaxed = tf.TensorShape(a).most_specific_compatible_shape(tf.TensorShape(b))
    assert relaxed.is_compatible_with(a) and relaxed.is_compatible_with(b)


def test_a_python_number_never_takes_a_string_dtype():
    # TF 2.21: string + 1 -> InvalidArgumentError (the op sees a string and an int32 tensor);
    # strings * 2 -> TypeError "Cannot convert 2 to EagerTensor of dtype string" (Mul converts with the dtype)
    import pytest
    import engine as tf
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a string tensor but is a int32 tensor"):
        tf.constant("a") + 1
    with pytest.raises(TypeError, match="Cannot convert 2 to EagerTensor of dtype string"):
        tf.constant(["a", "b"]) * 2
    assert (tf.constant("a") + "b").numpy() == b"ab"


# --- a Python int beyond the tensor's integer dtype wraps around, as TF 2.21 converts it -----------
import pytest as _pytest  # noqa: E402


@_pytest.mark.parametrize("expr, expected, dtype", [
    # (recorded from TF 2.21: tf.constant(1, tf.int8) + 300 is 45, and so on)
    ("tf.constant(1, tf.int8) + 300", 45, "int8"),
    ("tf.constant(1, tf.uint8) + 300", 45, "uint8"),
    ("tf.constant(1, tf.uint8) + -1", 0, "uint8"),
    ("tf.constant(1, tf.int8) * 1000", -24, "int8"),
    ("tf.constant(1, tf.int32) + 2**40", 1, "int32"),
    ("tf.add(tf.constant(1, tf.int8), 300)", 45, "int8"),
])
def test_python_int_out_of_the_dtype_range_wraps_around(expr, expected, dtype):
    import engine as tf  # noqa: F401 - eval'd below
    eager = eval(expr)
    assert eager.dtype.name == dtype and eager.numpy() == expected
    traced = tf.function(lambda: eval(expr))()
    assert traced.dtype.name == dtype and traced.numpy() == expected


def test_python_int_beyond_int64_is_tf_s_value_error():
    import engine as tf
    with _pytest.raises(ValueError, match="out-of-range integer"):
        tf.constant(1, tf.int32) + 2 ** 70
