"""Conformance with the tf.GradientTape API page (gradient, jacobian, batch_jacobian, watch, watched_variables,
stop_recording, reset, persistent, watch_accessed_variables, output_gradients, unconnected_gradients), corner
cases included. Every expected value, error class and message fragment was recorded from TF 2.21."""
import logging

import numpy as np
import pytest

import engine as tf
from engine.eager import tape as tape_module
from engine.framework.errors import InvalidArgumentError

WATCH_WARNING = "The dtype of the watched tensor must be floating (e.g. tf.float32), got "
INSIDE_WARNING = "Calling GradientTape.gradient on a persistent tape inside its context"
USED_TAPE = "A non-persistent GradientTape can only be used to compute one set of gradients"


@pytest.fixture(autouse=True)
def _fresh_log_counts():
    """TF logs these warnings only the first n times per call site: start every test from zero."""
    tape_module._LOG_COUNTS.clear()
    yield
    tape_module._LOG_COUNTS.clear()


def _warnings(caplog, fragment):
    return [r.getMessage() for r in caplog.records if r.name == "tensorflow" and fragment in r.getMessage()]


def _x():
    return tf.constant([1.0, 2.0])


def _square_tape(x, persistent=False):
    with tf.GradientTape(persistent=persistent) as t:
        t.watch(x)
        y = x * x
    return t, y


# --- batch_jacobian -------------------------------------------------------------------------------------
def _bj(fn, source=None, persistent=True, **kwargs):
    xx = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=persistent) as t:
        t.watch(xx)
        y = fn(xx)
    return t.batch_jacobian(y, xx if source is None else source(xx), **kwargs)


@pytest.mark.parametrize("target, source", [
    (lambda a: a[:, 0], None),                    # rank-1 target
    (lambda a: a * a, lambda a: a[:, 0]),         # rank-1 source
    (lambda a: a[0], lambda a: a[:1]),            # rank-1 target, even with a matching first dimension
])
def test_batch_jacobian_needs_rank_2(target, source):
    with pytest.raises(ValueError, match=r"^Shape \(2,\) must have rank at least 2$"):
        _bj(target, source)


def test_batch_jacobian_scalar_source_and_target():
    with pytest.raises(ValueError, match=r"Shape \(\) must have rank at least 2"):
        _bj(lambda a: a * 1.0, lambda a: a[0, 0])
    with pytest.raises(IndexError):            # TF: "list index out of range"
        _bj(lambda a: tf.reduce_sum(a))


def test_batch_jacobian_batch_dimensions_must_match():
    with pytest.raises(ValueError, match=r"^Need first dimension of target shape \(\(4, 2\)\) and source shape "
                                         r"\(\(2, 2\)\) to match\.$"):
        _bj(lambda a: tf.concat([a, a], 0))


def test_batch_jacobian_target_must_be_one_tensor():
    with pytest.raises(AttributeError, match="'list' object has no attribute 'shape'"):
        _bj(lambda a: [a, a])


def test_batch_jacobian_without_pfor_needs_persistent_tape():
    xx = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    t, y = _square_tape(xx)
    with pytest.raises(RuntimeError, match="GradientTape must be created with persistent=True to compute the "
                                           "batch_jacobian with eager execution enabled and"):
        t.batch_jacobian(y, xx, experimental_use_pfor=False)
    np.testing.assert_array_equal(t.gradient(y, xx).numpy(), [[2, 4], [6, 8]])   # the tape is still usable
    out = _bj(lambda a: a * a, experimental_use_pfor=False)
    np.testing.assert_array_equal(out.numpy(), [[[2, 0], [0, 4]], [[6, 0], [0, 8]]])


def test_batch_jacobian_rank_3_target():
    out = _bj(lambda a: tf.stack([a, 2 * a], axis=2))
    assert out.shape == (2, 2, 2, 2) and out.dtype == tf.float32
    assert out.numpy().ravel().tolist() == [1, 0, 2, 0, 0, 1, 0, 2, 1, 0, 2, 0, 0, 1, 0, 2]


@pytest.mark.parametrize("unconnected", ["none", "zero"])
def test_batch_jacobian_unconnected_source_is_zeros_never_none(unconnected):
    out = _bj(lambda a: a * a, lambda a: tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
              unconnected_gradients=unconnected)
    assert out.shape == (2, 2, 3) and out.dtype == tf.float32
    assert not out.numpy().any()
    out = _bj(lambda a: a * 1.0, lambda a: tf.reshape(a, [2, 1, 2]))   # computed after y: unconnected
    assert out.shape == (2, 2, 1, 2) and not out.numpy().any()


def test_batch_jacobian_dtypes():
    out = _bj(lambda a: tf.cast(a, tf.int32))        # no gradient: zeros of the TARGET's dtype
    assert out.shape == (2, 2, 2) and out.dtype == tf.int32 and not out.numpy().any()
    out = _bj(lambda a: tf.cast(a, tf.float64))      # a gradient: the SOURCE's dtype
    assert out.dtype == tf.float32
    assert out.numpy().ravel().tolist() == [1, 0, 0, 1, 1, 0, 0, 1]


def test_batch_jacobian_unknown_unconnected_gradients():
    with pytest.raises(ValueError, match="Encountered an exception while vectorizing the batch_jacobian "
                                         "computation. Vectorization can be disabled"):
        _bj(lambda a: a * a, unconnected_gradients="bad")


def test_batch_jacobian_twice_on_non_persistent_tape():
    xx = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    t, y = _square_tape(xx)
    np.testing.assert_array_equal(t.batch_jacobian(y, xx).numpy(), [[[2, 0], [0, 4]], [[6, 0], [0, 8]]])
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used to"):
        t.batch_jacobian(y, xx)


# --- jacobian -------------------------------------------------------------------------------------------
def _jac(fn, persistent=True, **kwargs):
    xx = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=persistent) as t:
        t.watch(xx)
        y = fn(xx)
    return t.jacobian(y, xx, **kwargs)


def test_jacobian_without_pfor_needs_persistent_tape():
    with pytest.raises(RuntimeError, match="GradientTape must be created with persistent=True to compute the "
                                           "jacobian with eager execution enabled and"):
        _jac(lambda a: a * a, persistent=False, experimental_use_pfor=False)
    out = _jac(lambda a: a * a, experimental_use_pfor=False)
    assert out.numpy().ravel().tolist() == [2, 0, 0, 0, 0, 4, 0, 0, 0, 0, 6, 0, 0, 0, 0, 8]


def test_jacobian_shapes_and_dtypes():
    out = _jac(lambda a: tf.reduce_sum(a * a))
    assert out.shape == (2, 2) and out.numpy().ravel().tolist() == [2, 4, 6, 8]
    out = _jac(lambda a: a[:0])
    assert out.shape == (0, 2, 2, 2) and out.dtype == tf.float32
    out = _jac(lambda a: tf.cast(a, tf.float64))
    assert out.dtype == tf.float32 and out.numpy().ravel().tolist() == np.eye(4).ravel().tolist()


def test_jacobian_of_integer_target():
    assert _jac(lambda a: tf.cast(a, tf.int32)) is None
    out = _jac(lambda a: tf.cast(a, tf.int32), unconnected_gradients="zero")
    assert out.shape == (2, 2, 2, 2) and out.dtype == tf.float32 and not out.numpy().any()


def test_jacobian_target_must_be_one_tensor():
    with pytest.raises(AttributeError, match="'list' object has no attribute 'shape'"):
        _jac(lambda a: [a, a])


def test_jacobian_targets_tf_converts():
    x = _x()
    t, _ = _square_tape(x, persistent=True)
    assert t.jacobian(np.ones(2), x) is None
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        v * 2.0
    np.testing.assert_array_equal(t.jacobian(v, v).numpy(), np.eye(2))


def _jac_sources(sources):
    xx, v = tf.constant([1.0, 2.0]), tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(xx)
        y = xx * v
    return t.jacobian(y, sources(xx, v))


def test_jacobian_sources_structure():
    out = _jac_sources(lambda a, v: {"x": a, "v": v})
    assert out["x"].numpy().tolist() == [[3, 0], [0, 3]] and out["v"].numpy().tolist() == [1, 2]
    out = _jac_sources(lambda a, v: [a, tf.constant(1.0)])
    assert out[0].numpy().tolist() == [[3, 0], [0, 3]] and out[1] is None


def test_jacobian_bad_sources():
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`: None"):
        _jac_sources(lambda a, v: [a, None])
    with pytest.raises(AttributeError, match="'float' object has no attribute 'dtype'"):
        _jac_sources(lambda a, v: 3.0)


def test_jacobian_unconnected_gradients():
    x = _x()
    other = tf.constant([1.0, 2.0, 3.0])
    t, y = _square_tape(x, persistent=True)
    assert t.jacobian(y, other, unconnected_gradients="none") is None
    zero = t.jacobian(y, other, unconnected_gradients="zero")
    assert zero.shape == (2, 3) and zero.dtype == tf.float32 and not zero.numpy().any()
    with pytest.raises(ValueError, match="Encountered an exception while vectorizing the jacobian computation"):
        t.jacobian(y, other, unconnected_gradients="bad")


def test_jacobian_uses_up_a_non_persistent_tape():
    x = _x()
    t, y = _square_tape(x)
    t.jacobian(y, x)
    with pytest.raises(RuntimeError, match=USED_TAPE):
        t.jacobian(y, x)
    t, y = _square_tape(x)
    t.jacobian(y, x)
    with pytest.raises(RuntimeError, match=USED_TAPE):
        t.gradient(y, x)


# --- gradient: arguments --------------------------------------------------------------------------------
def test_gradient_target_none():
    t, _ = _square_tape(_x())
    with pytest.raises(TypeError, match=r"^Argument `target` should be a list or nested structure of Tensors, "
                                        r"Variables or CompositeTensors to be differentiated, but received None\.$"):
        t.gradient(None, _x())


@pytest.mark.parametrize("target, error, fragment", [
    (lambda y: [y, None], TypeError, "Cannot convert the argument `type_value`: None to a TensorFlow DType."),
    (lambda y: "abc", TypeError, "Cannot convert the argument `type_value`: 'abc' to a TensorFlow DType."),
    (lambda y: object(), TypeError, "Cannot convert the argument `type_value`: <object object"),
    (lambda y: 3.0, AttributeError, "'float' object has no attribute 'dtype'"),
    (lambda y: 3, AttributeError, "'int' object has no attribute 'dtype'"),
    (lambda y: [y, 3.0], AttributeError, "'float' object has no attribute 'dtype'"),
    (lambda y: np.ones(2), AttributeError, "'numpy.ndarray' object has no attribute '_id'"),
])
def test_gradient_bad_targets(target, error, fragment):
    x = _x()
    t, y = _square_tape(x)
    with pytest.raises(error) as info:
        t.gradient(target(y), x)
    assert str(info.value).startswith(fragment)


@pytest.mark.parametrize("sources, error, fragment", [
    (lambda x: None, TypeError, "Cannot convert the argument `type_value`: None to a TensorFlow DType."),
    (lambda x: [x, None], TypeError, "Cannot convert the argument `type_value`: None to a TensorFlow DType."),
    (lambda x: {"a": x, "b": None}, TypeError, "Cannot convert the argument `type_value`: None"),
    (lambda x: "abc", TypeError, "Cannot convert the argument `type_value`: 'abc' to a TensorFlow DType."),
    (lambda x: object(), TypeError, "Cannot convert the argument `type_value`: <object object"),
    (lambda x: 3, AttributeError, "'int' object has no attribute 'dtype'"),
    (lambda x: 3.0, AttributeError, "'float' object has no attribute 'dtype'"),
    (lambda x: True, AttributeError, "'bool' object has no attribute '_id'"),
    (lambda x: np.float32(1.0), AttributeError, "'numpy.float32' object has no attribute '_id'"),
    (lambda x: np.ones(2), ValueError, ""),
])
def test_gradient_bad_sources(sources, error, fragment):
    x = _x()
    t, y = _square_tape(x)
    with pytest.raises(error) as info:
        t.gradient(y, sources(x))
    assert str(info.value).startswith(fragment)


def test_gradient_structures():
    x = _x()
    t, y = _square_tape(x)
    assert t.gradient(y, []) == []
    t, y = _square_tape(x)
    assert t.gradient([], x) is None
    t, y = _square_tape(x)
    g1, g2 = t.gradient(y, [x, x])               # a source listed twice gets its gradient twice
    assert g1.numpy().tolist() == g2.numpy().tolist() == [2, 4]
    t, y = _square_tape(x)
    g = t.gradient(y, (x, [x], {"k": x}))
    assert isinstance(g, tuple) and isinstance(g[1], list) and isinstance(g[2], dict)
    assert g[2]["k"].numpy().tolist() == [2, 4]
    t, y = _square_tape(x)
    assert t.gradient({"a": y, "b": [y]}, x).numpy().tolist() == [4, 8]   # targets of any nest are summed


def test_gradient_target_list_with_a_variable():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as t:
        y = v * 2.0
    assert t.gradient([y, v], v).numpy().tolist() == [3, 3]


@pytest.mark.parametrize("persistent", [False, True])
def test_gradient_on_a_tape_never_entered(persistent):
    with pytest.raises(RuntimeError, match=USED_TAPE):
        tf.GradientTape(persistent=persistent).gradient(_x(), _x())
    with pytest.raises(RuntimeError, match=USED_TAPE):
        tf.GradientTape(persistent=True).jacobian(_x(), _x())


# --- gradient: inside the tape's own context ------------------------------------------------------------
def test_gradient_inside_non_persistent_context_stops_the_tape(caplog):
    x = _x()
    caplog.set_level(logging.WARNING, logger="tensorflow")
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
        assert t.gradient(y, x).numpy().tolist() == [2, 4]
        z = y * 2.0                        # the tape no longer records
        with pytest.raises(ValueError, match="^Tape is not recording.$"):
            t.reset()
        with pytest.raises(AttributeError):
            t.watch(x)
    with pytest.raises(RuntimeError, match=USED_TAPE):
        t.gradient(z, x)
    assert not _warnings(caplog, INSIDE_WARNING)


def test_gradient_inside_persistent_context_records_the_gradient(caplog):
    x = tf.constant(3.0)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = x * x * x
            g = t.gradient(y, x)
    assert float(g) == 27.0
    assert float(t.gradient(g, x)) == 18.0     # the gradient's ops were recorded: 6x
    logged = _warnings(caplog, INSIDE_WARNING)
    assert len(logged) == 1 and "significantly less efficient" in logged[0] and "higher order derivatives" in logged[0]


def test_gradient_inside_persistent_context_warns_once_per_call_site(caplog):
    x = _x()
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = x * x
            for _ in range(3):
                assert t.gradient(y, x).numpy().tolist() == [2, 4]
            t.gradient(y, x)                   # another line: warned again
    assert len(_warnings(caplog, INSIDE_WARNING)) == 2


# --- gradient: dtypes -----------------------------------------------------------------------------------
def test_integer_targets_and_sources():
    x = _x()
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.cast(x, tf.int32) * 2
    assert t.gradient(y, x) is None
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.cast(x, tf.int32) * 2
    zero = t.gradient(y, x, unconnected_gradients="zero")
    assert zero.dtype == tf.float32 and zero.numpy().tolist() == [0, 0]

    xi = tf.constant([1, 2])
    with tf.GradientTape() as t:
        t.watch(xi)
    g = t.gradient(xi, xi)                       # an integer target that is the source: its seed, ones
    assert g.dtype == tf.int32 and g.numpy().tolist() == [1, 1]
    with tf.GradientTape() as t:
        t.watch(xi)
        y = xi * 2
    zero = t.gradient(y, xi, unconnected_gradients="zero")
    assert zero.dtype == tf.int32 and zero.numpy().tolist() == [0, 0]


def test_target_that_is_the_source():
    x = _x()
    with tf.GradientTape() as t:
        pass                                     # not even watched
    assert t.gradient(x, x).numpy().tolist() == [1, 1]
    with tf.GradientTape() as t:
        pass
    assert t.gradient(x, x, output_gradients=tf.constant([5.0, 6.0])).numpy().tolist() == [5, 6]


@pytest.mark.parametrize("dtype", [tf.float16, tf.float64])
def test_float_dtypes(dtype):
    x = tf.constant([1.0, 2.0], dtype)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x * x
    g = t.gradient(y, x)
    assert g.dtype == dtype and g.numpy().tolist() == [3, 12]


def test_complex_unconnected_zero():
    xc = tf.constant([1 + 2j], tf.complex64)
    x = _x()
    with tf.GradientTape() as t:
        t.watch(xc)
        t.watch(x)
        y = x * 2.0
    zero = t.gradient(y, xc, unconnected_gradients="zero")
    assert zero.dtype == tf.complex64 and zero.numpy().tolist() == [0j]


# --- unconnected_gradients ------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["zero", tf.UnconnectedGradients.ZERO])
def test_unconnected_zero(value):
    t, y = _square_tape(_x())
    g = t.gradient(y, tf.constant(1.0), unconnected_gradients=value)
    assert g.dtype == tf.float32 and float(g) == 0.0


@pytest.mark.parametrize("value", ["none", tf.UnconnectedGradients.NONE])
def test_unconnected_none(value):
    t, y = _square_tape(_x())
    assert t.gradient(y, tf.constant(1.0), unconnected_gradients=value) is None


@pytest.mark.parametrize("value", ["ZERO", "Zero", "zeros", None, 1])
def test_unconnected_unknown_value(value):
    t, y = _square_tape(_x())
    with pytest.raises(ValueError) as info:
        t.gradient(y, tf.constant(1.0), unconnected_gradients=value)
    assert str(info.value) == f"Unknown value for unconnected_gradients: {value!r}"


def test_unconnected_variable_zero():
    v, w = tf.Variable([1.0, 2.0]), tf.Variable(1.0)
    with tf.GradientTape() as t:
        y = v * 2.0
    g = t.gradient(y, w, unconnected_gradients="zero")
    assert g.shape == () and float(g) == 0.0


def test_stop_gradient_inside():
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        y = tf.stop_gradient(v * v) * v + v
    assert float(t.gradient(y, v)) == 5.0
    with tf.GradientTape() as t:
        y = tf.stop_gradient(v * v)
    assert float(t.gradient(y, v, unconnected_gradients="zero")) == 0.0


# --- output_gradients -----------------------------------------------------------------------------------
def _og(target, output_gradients, x=None):
    x = _x() if x is None else x
    with tf.GradientTape() as t:
        t.watch(x)
        y = target(x)
    return t.gradient(y, x, output_gradients=output_gradients)


@pytest.mark.parametrize("seed, expected", [
    ([3.0, 4.0], [6, 12]),              # flattened to two scalars: the first seeds the single target
    ([[3.0, 4.0]], [6, 12]),
    (3.0, [6, 12]),
    (tf.constant(3.0), [6, 12]),
    ([tf.constant([3.0, 4.0])], [6, 16]),
    (tf.Variable([3.0, 4.0]), [6, 16]),
])
def test_output_gradients_single_target(seed, expected):
    g = _og(lambda x: x * x, seed)
    assert g.dtype == tf.float32 and g.numpy().tolist() == expected


@pytest.mark.parametrize("seed, expected", [
    ([tf.constant([1.0, 1.0]), tf.constant([2.0, 2.0])], [8, 10]),
    ([tf.constant([2.0, 2.0])], [7, 11]),                 # missing seeds are ones
    ([tf.constant([2.0, 2.0])] * 3, [10, 14]),            # extra seeds are ignored
])
def test_output_gradients_list_of_targets(seed, expected):
    assert _og(lambda x: [x * x, x * 3.0], seed).numpy().tolist() == expected


def test_output_gradients_follow_the_flattened_target_structure():
    seeds = {"b": tf.constant([2.0, 2.0]), "a": tf.constant([1.0, 1.0])}
    assert _og(lambda x: {"a": x * x, "b": x * 3.0}, seeds).numpy().tolist() == [8, 10]
    seeds = [tf.constant([1.0, 1.0]), tf.constant([2.0, 2.0])]
    assert _og(lambda x: {"a": x * x, "b": x * 3.0}, seeds).numpy().tolist() == [8, 10]


@pytest.mark.parametrize("seed", [[None, tf.constant([2.0, 2.0])], [None]])
def test_output_gradients_none_entry(seed):
    with pytest.raises(ValueError, match=r"Attempt to convert a value \(None\) with an unsupported type"):
        _og(lambda x: [x * x, x * 3.0], seed)


@pytest.mark.parametrize("seed, fragment", [
    ([3, 4], "expected to be a int32 tensor but is a float tensor"),
    (np.array([3.0, 4.0]), "expected to be a double tensor but is a float tensor"),
    (tf.constant([3.0, 4.0], tf.float64), "expected to be a double tensor but is a float tensor"),
    (tf.constant([3, 4]), "expected to be a int32 tensor but is a float tensor"),
    (tf.constant([3.0, 4.0, 5.0]), r"Incompatible shapes: \[3\] vs. \[2\]"),
])
def test_output_gradients_wrong_dtype_or_shape(seed, fragment):
    with pytest.raises(InvalidArgumentError, match=fragment):
        _og(lambda x: x * x, seed)


def test_output_gradients_python_floats_are_float32():
    x64 = tf.constant([1.0, 2.0], tf.float64)
    for seed in ([3.0, 4.0], np.array([3.0, 4.0], np.float32)):
        with pytest.raises(InvalidArgumentError, match="expected to be a float tensor but is a double tensor"):
            _og(lambda x: x * x, seed, x=x64)


# --- watch ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype, warns", [
    (tf.int32, True), (tf.int64, True), (tf.bool, True), (tf.uint8, True), (tf.string, True),
    (tf.float16, False), (tf.float32, False), (tf.float64, False), (tf.complex64, False),
])
def test_watch_warns_for_dtypes_without_gradients(caplog, dtype, warns):
    x = tf.constant(["a"]) if dtype == tf.string else tf.zeros([2], dtype=dtype)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with tf.GradientTape() as t:
            t.watch(x)
    assert _warnings(caplog, WATCH_WARNING) == ([WATCH_WARNING + f"tf.{dtype.name}"] if warns else [])


def test_watch_int_gives_none_and_warns_five_times_per_call_site(caplog):
    xi = tf.constant(3)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        for _ in range(8):
            with tf.GradientTape() as t:
                t.watch(xi)
                y = xi * xi
        assert t.gradient(y, xi) is None
    assert _warnings(caplog, WATCH_WARNING) == [WATCH_WARNING + "tf.int32"] * 5


def test_watch_int_variable(caplog):
    v = tf.Variable(3)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with tf.GradientTape() as t:
            t.watch(v)
            y = v * v
    assert _warnings(caplog, WATCH_WARNING) == [WATCH_WARNING + "tf.int32"]
    assert t.gradient(y, v) is None and t.watched_variables() == (v,)
    with tf.GradientTape() as t:
        v * v
    assert t.watched_variables() == (v,)            # read, and trainable: watched whatever its dtype


@pytest.mark.parametrize("bad, text", [
    (None, "Passed in object None of type 'NoneType', not tf.Tensor or tf.Variable or ExtensionType."),
    (3.0, "Passed in object 3.0 of type 'float', not tf.Tensor or tf.Variable or ExtensionType."),
    (np.ones(2), "Passed in object [1. 1.] of type 'ndarray', not tf.Tensor or tf.Variable or ExtensionType."),
])
def test_watch_rejects_non_tensors(bad, text):
    with tf.GradientTape() as t:
        with pytest.raises(ValueError) as info:
            t.watch(bad)
        with pytest.raises(ValueError) as info_in_list:
            t.watch([_x(), bad])
    assert str(info.value) == str(info_in_list.value) == text


def test_watch_of_a_nest_watches_what_comes_before_a_bad_element():
    x = _x()
    with tf.GradientTape() as t:
        with pytest.raises(ValueError):
            t.watch([x, None])
        y = x * x
    assert t.gradient(y, x).numpy().tolist() == [2, 4]


def test_watch_nested_structures_of_tensors_and_variables():
    a, b, v, w = tf.constant(1.0), tf.constant(2.0), tf.Variable(3.0), tf.Variable(4.0)
    with tf.GradientTape(watch_accessed_variables=False) as t:
        t.watch({"b": [b, w], "a": (a, v)})
        y = a * b * v * w
    assert [float(u.numpy()) for u in t.watched_variables()] == [3.0, 4.0]
    g = t.gradient(y, {"a": a, "b": b, "v": v, "w": w})
    assert {k: float(u) for k, u in g.items()} == {"a": 24.0, "b": 12.0, "v": 8.0, "w": 6.0}


def test_watch_outside_recording_does_nothing():
    x = _x()
    t = tf.GradientTape()
    with t:
        pass
    t.watch(x)                      # no tape records on this thread: nothing happens
    y = x * x
    assert t.gradient(y, x) is None
    t = tf.GradientTape()
    with t:
        pass
    t.watch(x)
    with t:
        y = x * x
    assert t.gradient(y, x) is None


def test_watch_outside_recording_works_while_another_tape_records():
    x = _x()
    inner = tf.GradientTape()
    with inner:
        pass
    with tf.GradientTape():
        inner.watch(x)
    with inner:
        y = x * x
    assert inner.gradient(y, x).numpy().tolist() == [2, 4]
    with tf.GradientTape():
        with tf.GradientTape() as t:
            with t.stop_recording():
                t.watch(x)
            y = x * x
    assert t.gradient(y, x).numpy().tolist() == [2, 4]


def test_watch_inside_stop_recording_does_nothing():
    x, v = _x(), tf.Variable(2.0)
    with tf.GradientTape() as t:
        with t.stop_recording():
            t.watch(x)
        y = x * x
    assert t.gradient(y, x) is None
    with tf.GradientTape(watch_accessed_variables=False) as t:
        with t.stop_recording():
            t.watch(v)
        y = v * v
    assert t.gradient(y, v) is None and t.watched_variables() == ()
    t = tf.GradientTape(watch_accessed_variables=False)
    with t:
        pass
    t.watch(v)
    with t:
        y = v * v
    assert t.gradient(y, v) is None and t.watched_variables() == ()


def test_watch_without_a_tape_raises_attribute_error():
    x = _x()
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute '_tape'"):
        tf.GradientTape().watch(x)              # never entered
    t, y = _square_tape(x)
    t.gradient(y, x)
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute '_tape'"):
        t.watch(x)                              # used up


# --- watched_variables and watch_accessed_variables ----------------------------------------------------
def test_watched_variables_in_order_of_construction():
    a, b, c = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b"), tf.Variable(3.0, name="c")
    with tf.GradientTape() as t:
        c * a
        t.watch(b)
        a * c
    assert [v.name for v in t.watched_variables()] == ["a:0", "b:0", "c:0"]
    vs = [tf.Variable(float(i), name=f"v{i}") for i in range(5)]
    with tf.GradientTape() as t:
        y = vs[3] + vs[1]
        y + vs[4] + vs[0] + vs[2]
    assert [v.name for v in t.watched_variables()] == ["v0:0", "v1:0", "v2:0", "v3:0", "v4:0"]


def test_watched_variables_lifecycle():
    assert tf.GradientTape().watched_variables() == ()
    a = tf.Variable(1.0)
    with tf.GradientTape() as t:
        y = a * a
    t.gradient(y, a)
    assert t.watched_variables() == (a,)         # kept after a non-persistent tape is used up


def test_non_trainable_variable_watched_after_use():
    a = tf.Variable(1.0, trainable=False)
    with tf.GradientTape() as t:
        y = a * a
        t.watch(a)
    assert len(t.watched_variables()) == 1 and t.gradient(y, a) is None


def test_watch_accessed_variables_false():
    a = tf.Variable(1.0)
    with tf.GradientTape(watch_accessed_variables=False) as t:
        y = a * a
    assert t.watched_variables() == () and t.gradient(y, a) is None
    with tf.GradientTape(watch_accessed_variables=False) as t:
        t.watch(a)
        y = a * a
    assert len(t.watched_variables()) == 1 and float(t.gradient(y, a)) == 2.0
    with tf.GradientTape(watch_accessed_variables=False) as t:
        y = a * a
        t.watch(a)                              # too late for y
    assert len(t.watched_variables()) == 1 and t.gradient(y, a) is None


def test_gradient_through_assign():
    v, x = tf.Variable(1.0), tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        v.assign(x * 3.0)
        y = x * 1.0
    assert t.gradient(y, v) is None             # an assignment carries no gradient
    with tf.GradientTape() as t:
        t.watch(x)
        v.assign(x * 3.0)
        y = v * 2.0
    gv, gx = t.gradient(y, [v, x])
    assert float(gv) == 2.0 and gx is None
    v = tf.Variable(1.0)
    with tf.GradientTape() as t:
        v.assign_add(2.0)
        y = v * v
    assert float(t.gradient(y, v)) == 6.0


def test_assign_alone_watches_the_variable():
    v = tf.Variable(1.0)
    with tf.GradientTape() as t:
        v.assign(3.0)
    assert t.watched_variables() == (v,)


# --- stop_recording ------------------------------------------------------------------------------------
def test_stop_recording_errors():
    t = tf.GradientTape()
    with pytest.raises(RuntimeError, match="^Trying to stop recording a tape which is not recording.$"):
        with t.stop_recording():
            pass
    with t:
        pass
    with pytest.raises(ValueError, match="^Tape is not recording.$"):
        with t.stop_recording():
            pass
    with tf.GradientTape() as t:
        with t.stop_recording():
            with pytest.raises(ValueError, match="^Tape is not recording.$"):
                with t.stop_recording():
                    pass
    with tf.GradientTape(persistent=True) as t:
        pass
    with pytest.raises(ValueError, match="^Tape is not recording.$"):
        with t.stop_recording():
            pass


def test_stop_recording_yields_none_and_resumes():
    x = tf.constant(4.0)
    with tf.GradientTape() as t:
        t.watch(x)
        with t.stop_recording() as s:
            y = x ** 2
        z = x * 3.0
    assert s is None
    assert t.gradient([y, z], x).numpy() == 3.0


def test_variables_read_inside_stop_recording_are_not_watched():
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        with t.stop_recording():
            v * v
    assert t.watched_variables() == ()
    with tf.GradientTape() as t:
        with t.stop_recording():
            v * v
        z = v * 3.0
    assert float(t.gradient(z, v)) == 3.0 and len(t.watched_variables()) == 1


# --- reset ---------------------------------------------------------------------------------------------
def test_reset_errors():
    with pytest.raises(ValueError, match="^Tape is not recording.$"):
        tf.GradientTape().reset()
    x = _x()
    t, _ = _square_tape(x)
    with pytest.raises(ValueError, match="^Tape is not recording.$"):
        t.reset()
    with tf.GradientTape() as t:
        with t.stop_recording():
            with pytest.raises(ValueError, match="^Tape is not recording.$"):
                t.reset()


def test_reset_forgets_records_watches_and_variables():
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape() as t:
        a * a
        t.reset()
        z = b * b
    assert t.watched_variables() == (b,)
    ga, gb = t.gradient(z, [a, b])
    assert ga is None and float(gb) == 4.0
    x = _x()
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        t.reset()
        t.watch(x)
        z = x * 3.0
    assert t.gradient(z, x).numpy().tolist() == [3, 3] and t.gradient(y, x) is None


# --- entering a tape more than once --------------------------------------------------------------------
def test_nested_reentry_raises():
    t = tf.GradientTape()
    with t:
        with pytest.raises(ValueError, match="^Tape is still recording, This can happen if you try to re-enter an "
                                             "already-active tape.$"):
            with t:
                pass


def test_reentry_after_gradient():
    x = _x()
    t = tf.GradientTape()
    with t:
        t.watch(x)
        y = x * x
    t.gradient(y, x)
    with t:                                     # a used non-persistent tape starts afresh
        t.watch(x)
        z = x * 3.0
    assert t.gradient(z, x).numpy().tolist() == [3, 3]
    t = tf.GradientTape(persistent=True)
    with t:
        t.watch(x)
        y = x * x
    t.gradient(y, x)
    with t:                                     # a persistent one goes on recording
        z = y * 3.0
    assert t.gradient(z, x).numpy().tolist() == [6, 12]
