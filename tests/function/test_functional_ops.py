"""tf.map_fn, tf.scan, tf.foldl, tf.foldr, tf.vectorized_map: eager and in tf.function. Golden values from TF 2.21."""
import numpy as np
import pytest

import engine as tf
from engine.framework.errors import InvalidArgumentError, OutOfRangeError


def _val(t):
    if isinstance(t, (list, tuple)):
        return type(t)(_val(v) for v in t)
    if isinstance(t, dict):
        return {k: _val(v) for k, v in t.items()}
    return t.dtype.name, tuple(t.shape), t.numpy().tolist()


X = [[1., 2.], [3., 4.], [5., 6.]]

CASES = [
    ("map sq", lambda: tf.map_fn(lambda t: t * t, tf.constant(X)),
     ("float32", (3, 2), [[1.0, 4.0], [9.0, 16.0], [25.0, 36.0]])),
    ("map sum", lambda: tf.map_fn(tf.reduce_sum, tf.constant(X)), ("float32", (3,), [3.0, 7.0, 11.0])),
    ("map int", lambda: tf.map_fn(lambda t: t * 2, tf.constant([1, 2, 3])), ("int32", (3,), [2, 4, 6])),
    ("map sig", lambda: tf.map_fn(lambda t: tf.cast(t, tf.int64), tf.constant([1., 2.]), fn_output_signature=tf.int64),
     ("int64", (2,), [1, 2])),
    ("map tuple", lambda: tf.map_fn(lambda t: (t[0], t[1] * 2.), (tf.constant([1., 2.]), tf.constant([3., 4.]))),
     (("float32", (2,), [1.0, 2.0]), ("float32", (2,), [6.0, 8.0]))),
    ("map tuple sig", lambda: tf.map_fn(lambda t: t[0] + t[1], (tf.constant([1., 2.]), tf.constant([3., 4.])),
                                        fn_output_signature=tf.float32), ("float32", (2,), [4.0, 6.0])),
    ("map dict", lambda: tf.map_fn(lambda t: {"a": t["a"] + 1.}, {"a": tf.constant([1., 2.])}),
     {"a": ("float32", (2,), [2.0, 3.0])}),
    ("map TensorSpec", lambda: tf.map_fn(lambda t: tf.zeros([2]) + t, tf.constant([1., 2.]),
                                         fn_output_signature=tf.TensorSpec([2], tf.float32)),
     ("float32", (2, 2), [[1.0, 1.0], [2.0, 2.0]])),
    ("scan", lambda: tf.scan(lambda a, t: a + t, tf.constant([1., 2., 3., 4.])), ("float32", (4,), [1.0, 3.0, 6.0, 10.0])),
    ("scan init", lambda: tf.scan(lambda a, t: a * t, tf.constant([1., 2., 3., 4.]), initializer=tf.constant(2.)),
     ("float32", (4,), [2.0, 4.0, 12.0, 48.0])),
    ("scan rev", lambda: tf.scan(lambda a, t: a + t, tf.constant([1., 2., 3., 4.]), reverse=True),
     ("float32", (4,), [10.0, 9.0, 7.0, 4.0])),
    ("scan tuple", lambda: tf.scan(lambda a, t: (a[0] + t, a[1] * t), tf.constant([1., 2., 3.]),
                                   initializer=(tf.constant(0.), tf.constant(1.))),
     (("float32", (3,), [1.0, 3.0, 6.0]), ("float32", (3,), [1.0, 2.0, 6.0]))),
    ("scan empty init", lambda: tf.scan(lambda a, t: a + t, tf.zeros([0]), initializer=tf.constant(1.)),
     ("float32", (0,), [])),
    ("foldl", lambda: tf.foldl(lambda a, t: a + t, tf.constant([1., 2., 3.])), ("float32", (), 6.0)),
    ("foldl init", lambda: tf.foldl(lambda a, t: a - t, tf.constant([1., 2., 3.]), initializer=tf.constant(10.)),
     ("float32", (), 4.0)),
    ("foldr", lambda: tf.foldr(lambda a, t: a - t, tf.constant([1., 2., 3.])), ("float32", (), 0.0)),
    ("foldr init", lambda: tf.foldr(lambda a, t: a * 10. + t, tf.constant([1., 2., 3.]), initializer=tf.constant(0.)),
     ("float32", (), 321.0)),
    ("foldl tuple", lambda: tf.foldl(lambda a, t: a + t[0] * t[1], (tf.constant([1., 2.]), tf.constant([3., 4.])),
                                     initializer=tf.constant(0.)), ("float32", (), 11.0)),
    ("vmap", lambda: tf.vectorized_map(lambda t: t * 2., tf.constant(X)),
     ("float32", (3, 2), [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]])),
    ("vmap tuple", lambda: tf.vectorized_map(lambda t: t[0] * t[1], (tf.constant([1., 2.]), tf.constant([3., 4.]))),
     ("float32", (2,), [3.0, 8.0])),
    ("vmap cast", lambda: tf.vectorized_map(lambda t: tf.cast(t, tf.int32), tf.constant([1.5, 2.5])),
     ("int32", (2,), [1, 2])),
]


@pytest.mark.parametrize("name, fn, want", CASES, ids=[c[0] for c in CASES])
def test_values_eager_and_in_function(name, fn, want):
    assert _val(fn()) == want
    assert _val(tf.function(fn)()) == want


def test_empty_map_eager():
    assert _val(tf.map_fn(lambda t: t * 2., tf.zeros([0, 3]))) == ("float32", (0,), [])


@pytest.mark.parametrize("fn, cls, message", [
    (lambda: tf.map_fn(lambda t: tf.cast(t, tf.int64), tf.constant([1., 2.])), InvalidArgumentError,
     "TensorArray dtype is float32 but Op is trying to write dtype int64"),
    (lambda: tf.map_fn(lambda t: t, tf.constant(1.)), ValueError,
     "Elements in elems must be 1\\+ dimensional Tensors, not scalars"),
    (lambda: tf.map_fn(lambda t: t * 2, [1., 2.]), ValueError, "not scalars"),
    (lambda: tf.map_fn(lambda t: t, (tf.constant([1., 2.]), tf.constant([1., 2., 3.]))), ValueError,
     "Dimensions 2 and 3 are not compatible"),
    (lambda: tf.map_fn(lambda t: tf.range(t), tf.constant([1, 2])), ValueError,
     r"Incompatible shape for value \(\(2,\)\), expected \(\(1,\)\)"),
    (lambda: tf.scan(lambda a, t: a + t, tf.zeros([0])), OutOfRangeError,
     "Tried to read from index 0 but array size is: 0"),
    (lambda: tf.foldl(lambda a, t: a + t, tf.zeros([0])), OutOfRangeError,
     "Tried to read from index 0 but array size is: 0"),
    (lambda: tf.map_fn(3, tf.constant([1.])), TypeError, "not callable"),
    (lambda: tf.scan(3, tf.constant([1.])), TypeError, "not callable"),
    (lambda: tf.foldl(3, tf.constant([1.])), TypeError, "not callable"),
])
def test_errors(fn, cls, message):
    with pytest.raises(cls, match=message):
        fn()


def _shape(fn, spec):
    out = tf.function(fn).get_concrete_function(spec).structured_outputs
    return None if out.shape.rank is None else out.shape.as_list()


def test_static_shapes_in_function():
    m = lambda x: tf.map_fn(lambda t: t * t, x)            # noqa: E731
    s = lambda x: tf.scan(lambda a, t: a + t, x)           # noqa: E731
    f = lambda x: tf.foldl(lambda a, t: a + t, x)          # noqa: E731
    r = lambda x: tf.foldr(lambda a, t: a + t, x)          # noqa: E731
    known, partial, unknown = (tf.TensorSpec([3, 2], tf.float32), tf.TensorSpec([None, 2], tf.float32),
                               tf.TensorSpec(None, tf.float32))
    assert [_shape(g, known) for g in (m, s, f)] == [[3, 2], [3, 2], [2]]
    assert [_shape(g, partial) for g in (m, s, f, r)] == [[None, 2], [None, 2], [2], [2]]
    assert [_shape(g, unknown) for g in (m, s, f)] == [None, None, None]
    sig = lambda x: tf.map_fn(tf.reduce_sum, x, fn_output_signature=tf.TensorSpec([], tf.float32))  # noqa: E731
    assert _shape(sig, partial) == [None]


def test_tracing_count():
    traces = []

    @tf.function
    def tc(x):
        traces.append(1)
        return tf.map_fn(lambda t: t + 1., x)
    tc(tf.constant([1., 2.]))
    tc(tf.constant([3., 4.]))
    assert _val(tc(tf.constant([1., 2., 3.]))) == ("float32", (3,), [2.0, 3.0, 4.0])
    assert tc.experimental_get_tracing_count() == 2 and len(traces) == 2


def _losses(x, w):
    return (tf.reduce_sum(tf.map_fn(lambda e: e * e * w, x)),
            tf.reduce_sum(tf.scan(lambda a, e: a * e + w, x)),
            tf.foldl(lambda a, e: a * e, x, initializer=w))


GRADS = [(("float32", (3,), [4.0, 8.0, 12.0]), ("float32", (), 14.0)),
         (("float32", (3,), [9.0, 4.0, 4.0]), ("float32", (), 5.0)),
         (("float32", (3,), [12.0, 6.0, 4.0]), ("float32", (), 6.0))]


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_gradients(mode):
    x, w = tf.constant([1., 2., 3.]), tf.constant(2.)
    fn = _losses if mode == "eager" else tf.function(_losses)
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, w])
        ys = fn(x, w)
    assert [tuple(_val(g) for g in t.gradient(y, [x, w])) for y in ys] == GRADS


def test_gradients_match_finite_differences_float64():
    def loss(x):
        a = tf.map_fn(lambda r: tf.sin(r) * r, x)
        b = tf.scan(lambda acc, r: acc * 0.5 + r * r, x, reverse=True)
        c = tf.foldr(lambda acc, r: acc * tf.reduce_sum(r), x, initializer=tf.constant(1., tf.float64))
        return tf.reduce_sum(a) + tf.reduce_sum(b * b) + c
    x0 = np.linspace(-1., 1., 6).reshape(3, 2)
    for fn in (loss, tf.function(loss)):
        x = tf.constant(x0)
        with tf.GradientTape() as t:
            t.watch(x)
            y = fn(x)
        got = t.gradient(y, x).numpy()
        want = np.zeros_like(x0)
        for idx in np.ndindex(*x0.shape):
            d = np.zeros_like(x0)
            d[idx] = 1e-6
            want[idx] = (float(loss(tf.constant(x0 + d))) - float(loss(tf.constant(x0 - d)))) / 2e-6
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
