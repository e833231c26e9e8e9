"""tf.py_function and tf.numpy_function, eager and in tf.function. Golden behaviour from TF 2.21."""
import numpy as np
import pytest

import engine as tf
from engine.framework.errors import InvalidArgumentError, UnknownError


def _val(t):
    if isinstance(t, (list, tuple)):
        return [_val(v) for v in t]
    return t.dtype.name, tuple(t.shape), t.numpy().tolist()


def test_py_function_eager_values():
    seen = []

    def pyf(a, b):
        seen.append((type(a).__name__, a.dtype.name))
        return a * b, a + b
    out = tf.py_function(pyf, [tf.constant(2.), tf.constant(3.)], [tf.float32, tf.float32])
    assert _val(out) == [("float32", (), 6.0), ("float32", (), 5.0)] and seen == [("EagerTensor", "float32")]
    assert _val(tf.py_function(lambda a: a * 2., [tf.constant([1., 2.])], tf.float32)) == ("float32", (2,), [2.0, 4.0])
    assert _val(tf.py_function(lambda a: a * 2., [1.5], tf.float32)) == ("float32", (), 3.0)
    assert _val(tf.py_function(lambda a: (a, a), [tf.constant(1.)], [tf.float32])) == [("float32", (), 1.0)]
    assert tf.py_function(lambda a: None, [tf.constant(1.)], []) == []
    assert _val(tf.py_function(lambda a: np.array([1, 2]), [tf.constant(1.)], tf.int32)) == ("int32", (2,), [1, 2])
    assert _val(tf.py_function(lambda a: 3.0, [tf.constant(1.)], tf.float32)) == ("float32", (), 3.0)
    assert _val(tf.py_function(lambda a: 7, [tf.constant(1.)], tf.int64)) == ("int64", (), 7)
    assert _val(tf.py_function(func=lambda a: a, inp=[tf.constant(1.)], Tout=tf.float32)) == ("float32", (), 1.0)
    assert _val(tf.py_function(Tout=tf.float32)(lambda a: a * 3.)(tf.constant(2.))) == ("float32", (), 6.0)


@pytest.mark.parametrize("fn, cls, message", [
    (lambda: tf.py_function(lambda a: a * 2., [tf.constant(1.)], tf.int32), InvalidArgumentError,
     "ValueError: Tensor conversion requested dtype int32 for Tensor with dtype float32"),
    (lambda: tf.py_function(lambda a: 1 / 0, [tf.constant(1.)], tf.float32), UnknownError,
     "ZeroDivisionError: division by zero"),
    (lambda: tf.py_function(lambda a: (_ for _ in ()).throw(ValueError("boom")), [tf.constant(1.)], tf.float32),
     InvalidArgumentError, "ValueError: boom"),
    (lambda: tf.py_function(lambda a: (a,), [tf.constant(1.)], [tf.float32, tf.float32]), InvalidArgumentError,
     "returns 1 values, but expects to see 2 values"),
    (lambda: tf.py_function(lambda a: None, [tf.constant(1.)], None), TypeError, "Missing required argument: 'Tout'"),
    (lambda: tf.py_function(3, [tf.constant(1.)], tf.float32), ValueError, "Expected func to be callable"),
    (lambda: tf.numpy_function(lambda a: 1 / 0, [tf.constant(1.)], tf.float32), ZeroDivisionError, "division by zero"),
])
def test_eager_errors(fn, cls, message):
    with pytest.raises(cls, match=message):
        fn()


def test_py_function_eager_gradient_and_numpy_function_none():
    x = tf.constant(3.)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.py_function(lambda a: a * a * a, [x], tf.float32)
    assert _val(t.gradient(y, x)) == ("float32", (), 27.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.numpy_function(lambda a: a * a, [x], tf.float32)
    assert t.gradient(y, x) is None


def test_numpy_function_eager():
    seen = []

    def npf(a, b):
        seen.append((type(a).__name__, type(b).__name__))
        return a + b
    assert _val(tf.numpy_function(npf, [tf.constant([1, 2]), tf.constant([3, 4])], tf.int32)) == \
        ("int32", (2,), [4, 6])
    assert seen == [("ndarray", "ndarray")]
    # eagerly, TF 2.21 converts what the function returns without checking Tout
    assert _val(tf.numpy_function(lambda a: a.astype(np.float64), [tf.constant([1., 2.])], tf.float32)) == \
        ("float64", (2,), [1.0, 2.0])
    assert _val(tf.numpy_function(lambda a: 1.5, [tf.constant(1.)], tf.float64)) == ("float32", (), 1.5)
    assert _val(tf.numpy_function(Tout=tf.float32)(lambda a: a * 3.)(tf.constant(2.))) == ("float32", (), 6.0)


def test_in_function_values_shapes_and_gradients():
    shapes = []

    @tf.function
    def gpy(x):
        y = tf.py_function(lambda a: a * a, [x], tf.float32)
        z = tf.numpy_function(lambda a: a + 1, [x], tf.float32)
        shapes.append((y.shape.rank, z.shape.rank, z.dtype))
        return y, z
    x = tf.constant([1., 2.])
    assert _val(gpy(x)) == [("float32", (2,), [1.0, 4.0]), ("float32", (2,), [2.0, 3.0])]
    assert shapes == [(None, None, tf.float32)]
    out = gpy.get_concrete_function(tf.TensorSpec([2], tf.float32)).structured_outputs
    assert [o.shape.rank for o in out] == [None, None]
    assert [o.type for o in gpy.get_concrete_function(x).graph.get_operations()
            if o.type in ("EagerPyFunc", "PyFunc")] == ["EagerPyFunc", "PyFunc"]
    for _ in range(2):   # the recorded tape of each forward run is used once
        with tf.GradientTape() as t:
            t.watch(x)
            y, _ = gpy(x)
        assert _val(t.gradient(y, x)) == ("float32", (2,), [2.0, 4.0])


def test_py_function_in_a_loop_gradient():
    @tf.function
    def f(x):
        acc = x
        for _ in tf.range(3):
            acc = tf.py_function(lambda a: a * 2. + 1., [acc], tf.float32)
            acc.set_shape(x.shape)
        return acc
    x = tf.constant([1., 2.])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(f(x))
    assert _val(f(x)) == ("float32", (2,), [15.0, 23.0])
    assert _val(t.gradient(y, x)) == ("float32", (2,), [8.0, 8.0])


def test_side_effect_runs_every_call():
    printed = []

    @tf.function
    def gstate(x):
        tf.py_function(lambda a: printed.append(float(a.numpy())), [x], [])
        return x + 1
    assert _val(gstate(tf.constant(1.))) == ("float32", (), 2.0)
    gstate(tf.constant(5.))
    assert printed == [1.0, 5.0]


@pytest.mark.parametrize("body, cls, message", [
    (lambda x: tf.py_function(lambda a: a * 2, [x], tf.int32), InvalidArgumentError,
     "ValueError: Tensor conversion requested dtype int32 for Tensor with dtype float32"),
    (lambda x: tf.numpy_function(lambda a: 1 / 0, [x], tf.float32), UnknownError, "ZeroDivisionError: division by zero"),
    (lambda x: tf.numpy_function(lambda a: a.astype(np.float64), [x], tf.float32), InvalidArgumentError,
     "0-th value returned by pyfunc_[0-9]+ is double, but expects float"),
    (lambda x: tf.py_function(lambda a: (a,), [x], [tf.float32, tf.float32]), InvalidArgumentError,
     "pyfunc_[0-9]+ returns 1 values, but expects to see 2 values."),
    (lambda x: tf.py_function(lambda a: (_ for _ in ()).throw(ValueError("boom")), [x], tf.float32),
     InvalidArgumentError, "ValueError: boom"),
])
def test_in_function_errors(body, cls, message):
    with pytest.raises(cls, match=message):
        tf.function(body)(tf.constant(1.))
