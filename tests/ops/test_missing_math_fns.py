"""``tf.math.reduce_euclidean_norm``, ``tf.math.reciprocal_no_nan``, ``tf.math.log_sigmoid``, ``tf.math.rint`` and
``tf.dtypes.cast``, checked against TF 2.21.

Built as TF builds them: ``EuclideanNorm`` and ``Rint`` are ops; ``reciprocal_no_nan`` is ``DivNoNan(1, x)``
and ``log_sigmoid`` is ``-softplus(-x)``; ``tf.dtypes.cast`` is ``tf.cast`` itself. The goldens
(``missing_math_fns_golden.json``: values, dtypes, static shapes, gradients, errors and the op types of the
traced graph) were recorded from real TF 2.21 by ``record_math_goldens.py``.
"""
import builtins
import json
import os

import numpy as np
import pytest

import engine as tf
from gradcheck import check_gradients, check_second_order

with open(os.path.join(os.path.dirname(__file__), "missing_math_fns_golden.json")) as _f:
    GOLDEN = json.load(_f)
EEN = GOLDEN["reduce_euclidean_norm"]
DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "bool"]
FUNCTIONS = {"reciprocal_no_nan": tf.math.reciprocal_no_nan, "log_sigmoid": tf.math.log_sigmoid,
             "rint": tf.math.rint}


def assert_value(t, rec, what):
    assert t.dtype.name == rec["dtype"], what
    assert list(t.shape) == rec["shape"], what
    actual = np.asarray(t.numpy(), np.float64)
    expected = np.asarray(rec["value"], np.float64).reshape(rec["shape"])
    # TF's CPU kernels flush subnormal results to zero (log_sigmoid(100.) in float32 is -0.); NumPy keeps them
    # (-3.8e-44): the deliberate difference of engine/ops/math_ops.py. So: equal up to the smallest normal number.
    tiny = float(np.finfo(t.dtype.as_numpy_dtype).tiny) if t.dtype.is_floating else 0
    np.testing.assert_allclose(actual, expected, rtol=1e-6 if rec["dtype"] != "float16" else 1e-3, atol=tiny,
                               equal_nan=True, err_msg=what)
    # signed zeros: -0.0 where TF has -0.0 (rint(-0.5), reciprocal_no_nan(-inf), log_sigmoid(100.))
    np.testing.assert_array_equal(np.signbit(actual), np.signbit(expected), err_msg=what + " (signs)")


def traced_op_types(fn):
    graph = tf.function(fn).get_concrete_function(tf.TensorSpec([None, 3], tf.float32)).graph
    return [o.type for o in graph.get_operations() if o.type not in ("Placeholder", "Identity", "NoOp")]


def check_dtype_table(fn, table):
    for name in DTYPES:
        x = tf.constant([True, True]) if name == "bool" else tf.constant([1, 2], tf.as_dtype(name))
        expected = table[name]
        if ":" not in expected:
            assert fn(x).dtype.name == expected, name
            continue
        error, message = expected.split(": ", 1)
        with pytest.raises(getattr(tf.errors, error, None) or getattr(builtins, error)) as info:
            fn(x)
        assert type(info.value).__name__ == error, name
        head = message.split(" list of allowed values")[0]   # TF's own list of dtype names differs in spelling
        assert str(info.value).startswith(head), (name, str(info.value))


# --- tf.dtypes.cast ----------------------------------------------------------------------------------------------
def test_tf_dtypes_cast_is_tf_cast():
    assert GOLDEN["cast_is_tf_cast"] is True
    assert tf.dtypes.cast is tf.cast
    assert_value(tf.dtypes.cast([1.7, -1.7], tf.int32), GOLDEN["cast"]["value"], "cast")
    assert traced_op_types(lambda x: tf.dtypes.cast(x, tf.int32)) == GOLDEN["cast"]["graph_ops"]


def test_the_new_names_live_where_tf_puts_them():
    for name in ("reduce_euclidean_norm", "reciprocal_no_nan", "log_sigmoid", "rint"):
        assert hasattr(tf.math, name) and not hasattr(tf, name) and not hasattr(tf.nn, name)
        assert getattr(tf.math, name).__name__ == name
    assert not hasattr(tf.math, "cast")


# --- reduce_euclidean_norm ----------------------------------------------------------------------------------------
def _input(key):
    rec = EEN["inputs"][key]
    value = np.asarray(rec["value"])
    return tf.constant(value if value.size else value.reshape(0, 3), tf.as_dtype(rec["dtype"]))   # f32_empty: (0, 3)


@pytest.mark.parametrize("case", EEN["cases"], ids=lambda c: f"{c['input']}-axis={c['axis']}-keep={c['keepdims']}")
def test_reduce_euclidean_norm_values_dtypes_and_shapes_equal_tf(case):
    x = _input(case["input"])
    out = tf.math.reduce_euclidean_norm(x, axis=case["axis"], keepdims=case["keepdims"])
    assert_value(out, case, f"reduce_euclidean_norm({case['input']}, axis={case['axis']}, keepdims={case['keepdims']})")


def test_reduce_euclidean_norm_integer_overflow_as_tf():
    """Integers square and sum in their own dtype: a sum that wraps negative has no root (TF on x86: INT_MIN)."""
    # recorded from TF 2.21: [[50000, 50000]] -> 26552; [[40000, 40000]], [[46341]] -> -2147483648 (int32);
    # int8 [[10, 10]] -> 0; uint8 [[200, 100]] -> 8; int64 [[3037000500, 3037000500]] -> 17057
    norm = tf.math.reduce_euclidean_norm
    assert norm(tf.constant([[50000, 50000]]), axis=1).numpy().tolist() == [26552]
    assert norm(tf.constant([[40000, 40000]]), axis=1).numpy().tolist() == [-2147483648]
    assert norm(tf.constant([[46341]]), axis=1).numpy().tolist() == [-2147483648]
    assert norm(tf.constant([[10, 10]], tf.int8), axis=1).numpy().tolist() == [0]
    assert norm(tf.constant([[200, 100]], tf.uint8), axis=1).numpy().tolist() == [8]
    assert norm(tf.constant([[3037000500, 3037000500]], tf.int64), axis=1).numpy().tolist() == [17057]


@pytest.mark.parametrize("rec", EEN["static_shapes"], ids=str)
def test_reduce_euclidean_norm_static_shapes_equal_tf(rec):
    fn = tf.function(lambda x: tf.math.reduce_euclidean_norm(x, axis=rec["axis"], keepdims=rec["keepdims"]))
    shape = fn.get_concrete_function(tf.TensorSpec(rec["input_shape"], tf.float32)).structured_outputs.shape
    assert (None if shape.rank is None else shape.as_list()) == rec["shape"]


def test_reduce_euclidean_norm_is_one_op_as_in_tf():
    assert traced_op_types(lambda x: tf.math.reduce_euclidean_norm(x, axis=1)) == EEN["graph_ops"]


@pytest.mark.parametrize("rec", EEN["grads"], ids=str)
def test_reduce_euclidean_norm_gradient_equals_tf(rec):
    x = tf.constant(rec["x"])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.reduce_euclidean_norm(x, axis=rec["axis"], keepdims=rec["keepdims"])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), rec["grad"], rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), ([0, 2], False), (-1, True)])
def test_reduce_euclidean_norm_gradient_matches_finite_differences(axis, keepdims):
    x = np.random.default_rng(0).uniform(-2, 2, (2, 3, 4))
    check_gradients(lambda v: tf.math.reduce_euclidean_norm(v, axis=axis, keepdims=keepdims), x)
    check_second_order(lambda v: tf.math.reduce_euclidean_norm(v, axis=axis, keepdims=keepdims), x)


def test_reduce_euclidean_norm_gradient_in_a_graph_of_unknown_shape():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, None])
        y = tf.math.reduce_euclidean_norm(x, axis=1)
        (dx,) = tf.gradients(y, x)
    with tf.compat.v1.Session(graph=g) as sess:
        got = sess.run(dx, {x: np.array([[3.0, 4.0], [0.0, 0.0]], np.float32)})
    np.testing.assert_allclose(got, [[0.6, 0.8], [np.nan, np.nan]], rtol=1e-6, equal_nan=True)


def test_reduce_euclidean_norm_dtypes_and_errors_as_tf():
    check_dtype_table(tf.math.reduce_euclidean_norm, EEN["dtypes"])
    errors = EEN["errors"]
    x = tf.constant([[1.0, 2.0]])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.math.reduce_euclidean_norm(x, axis=2)
    assert errors["axis_out_of_range"]["error"] == "InvalidArgumentError"
    assert "Invalid reduction dimension (2 for input with 2 dimension(s)" in str(info.value)
    assert errors["axis_out_of_range"]["message"].endswith("[Op:EuclideanNorm] name: ")
    assert str(info.value).endswith("[Op:EuclideanNorm] name: ")   # TF's eager ending
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.math.reduce_euclidean_norm(x, axis=[0, -2])
    assert "Invalid reduction arguments: Axes contains duplicate dimension: 0" in errors["axis_duplicate"]["message"]
    assert "Invalid reduction arguments: Axes contains duplicate dimension: 0" in str(info.value)
    with pytest.raises(TypeError, match="Cannot convert 0.5 to EagerTensor of dtype int32"):
        tf.math.reduce_euclidean_norm(x, axis=0.5)
    assert errors["axis_float"]["message"] == "Cannot convert 0.5 to EagerTensor of dtype int32"


# --- reciprocal_no_nan, log_sigmoid, rint ----------------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(FUNCTIONS))
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_values_equal_tf(key, dtype):
    rec = GOLDEN[key]["values"][dtype]
    fn = FUNCTIONS[key]
    if "error" in rec:   # rint: TF's CPU has no float16 kernel
        with pytest.raises(getattr(tf.errors, rec["error"])) as info:
            fn(tf.constant(rec.get("x", [1.0]), tf.as_dtype(dtype)))
        assert str(info.value).startswith(rec["message"])
        return
    assert_value(fn(tf.constant(rec["x"], tf.as_dtype(dtype))), rec, f"{key}[{dtype}]")


@pytest.mark.parametrize("key", sorted(FUNCTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_equal_tf(key, dtype):
    rec = GOLDEN[key]["grads"][dtype]
    x = tf.constant(rec["x"], tf.as_dtype(dtype))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = FUNCTIONS[key](x)
        g = tape.gradient(y, x)
    if rec["grad"] is None:   # rint: no gradient, as TF
        assert g is None
        return
    np.testing.assert_allclose(g.numpy(), rec["grad"], rtol=1e-6, atol=1e-30, equal_nan=True)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), rec["grad2"], rtol=1e-6, atol=1e-30, equal_nan=True)


@pytest.mark.parametrize("key", sorted(FUNCTIONS))
def test_dtype_errors_static_shapes_and_graph_ops_equal_tf(key):
    rec = GOLDEN[key]
    check_dtype_table(FUNCTIONS[key], rec["dtypes"])
    assert traced_op_types(FUNCTIONS[key]) == rec["graph_ops"]
    out = tf.function(FUNCTIONS[key]).get_concrete_function(tf.TensorSpec([None, 3], tf.float32)).structured_outputs
    assert out.shape.as_list() == rec["static_shape"]
    assert_value(FUNCTIONS[key]([1.0, 4.0]), rec["python_list"], f"{key} of a Python list")


@pytest.mark.parametrize("key,points", [("reciprocal_no_nan", [-3.0, -0.4, 0.7, 2.5]),
                                        ("log_sigmoid", [-30.0, -2.0, 0.0, 0.3, 15.0])])
def test_gradients_match_finite_differences(key, points):
    check_gradients(FUNCTIONS[key], np.array(points))
    check_second_order(FUNCTIONS[key], np.array(points))


def test_rint_in_a_graph_is_one_op_without_gradient():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float64, [None])
        y = tf.math.rint(x)
        assert y.op.type == "Rint" and tf.gradients(y, x) == [None]
    with tf.compat.v1.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [0.5, 1.5, -2.5, 3.7]}), [0.0, 2.0, -2.0, 4.0])
