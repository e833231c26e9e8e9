"""tf.TensorArray, eagerly and in tf.function (TensorList ops on variant flows). Golden values from TF 2.21."""
import numpy as np
import pytest

import engine as tf
from engine.framework.errors import InvalidArgumentError, OutOfRangeError


def _val(t):
    return t.dtype.name, tuple(t.shape), t.numpy().tolist()


# ---------------------------------------------------------------------------------------------
# Eager
# ---------------------------------------------------------------------------------------------
def test_eager_write_read_stack():
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
    ta = ta.write(0, 10.)
    ta = ta.write(1, 20)          # a Python int is converted with the array's dtype
    ta = ta.write(2, 30.)
    assert _val(ta.stack()) == ("float32", (3,), [10.0, 20.0, 30.0])
    assert _val(ta.read(1)) == ("float32", (), 20.0)
    assert _val(ta.size()) == ("int32", (), 3)
    assert _val(ta.flow) == ("int32", (), 0)
    assert ta.element_shape == tf.TensorShape([]) and ta.dtype == tf.float32 and ta.dynamic_size
    assert isinstance(ta, tf.TensorArray)


def test_eager_read_semantics_and_errors():
    ta = tf.TensorArray(tf.float32, size=2).write(0, 1.)
    assert _val(ta.read(0)) == ("float32", (), 1.0)
    with pytest.raises(InvalidArgumentError, match="Could not read index 0 twice"):
        ta.read(0)
    assert _val(ta.read(1)) == ("float32", (), 0.0)     # never written: zeros
    with pytest.raises(OutOfRangeError, match="Tried to write to index 5 but array is not resizeable and size is: 2"):
        ta.write(5, 1.)
    with pytest.raises(OutOfRangeError, match=r"Writing to negative indices \(index -1\)"):
        ta.write(-1, 1.)
    with pytest.raises(OutOfRangeError, match="Tried to read from index 7 but array size is: 2"):
        ta.read(7)
    with pytest.raises(InvalidArgumentError, match="TensorArray dtype is float32 but Op is trying to write dtype int32"):
        ta.write(1, tf.constant(1, tf.int32))
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(2,\)\), expected \(\(\)\)"):
        ta.write(1, tf.constant([1., 2.]))
    with pytest.raises(InvalidArgumentError, match="TensorArray dtype is int32 but Op is trying to write dtype float32"):
        tf.TensorArray(tf.int32, size=2).write(0, 1.5)
    with pytest.raises(ValueError, match="Size must be declared"):
        tf.TensorArray(tf.float32)


def test_eager_stack_gather_concat_split_scatter_unstack():
    assert _val(tf.TensorArray(tf.float32, size=3).write(0, [1., 2.]).stack()) == \
        ("float32", (3, 2), [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]])
    assert _val(tf.TensorArray(tf.float32, size=0).stack()) == ("float32", (0,), [])
    assert _val(tf.TensorArray(tf.float32, size=0, element_shape=[2]).stack()) == ("float32", (0, 2), [])
    ta = tf.TensorArray(tf.float32, size=3).unstack([[1., 2.], [3., 4.], [5., 6.]])
    assert _val(ta.gather([2, 0])) == ("float32", (2, 2), [[5.0, 6.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(1,\)\), expected \(\(2,\)\)"):
        tf.TensorArray(tf.float32, size=2).write(0, [1., 2.]).write(1, [3.])
    assert _val(tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1., 2.]).write(1, [3.]).concat()) == \
        ("float32", (3,), [1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match="Concat saw a scalar shape at index 0"):
        tf.TensorArray(tf.float32, size=2).write(0, 1.).write(1, 2.).concat()
    assert _val(tf.TensorArray(tf.float32, size=2).split([1., 2., 3.], [1, 2]).read(1)) == ("float32", (2,), [2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match="sum of lengths is 2 and value's shape is: \\[3\\]"):
        tf.TensorArray(tf.float32, size=2).split([1., 2., 3.], [1, 1])
    assert _val(tf.TensorArray(tf.float32, size=3).scatter([2, 0], [[1.], [2.]]).write(1, [0.]).stack()) == \
        ("float32", (3, 1), [[2.0], [0.0], [1.0]])
    with pytest.raises(ValueError, match="Cannot unstack 3 tensors into a TensorArray of static size 2"):
        tf.TensorArray(tf.float32, size=2).unstack([1., 2., 3.])
    assert _val(tf.TensorArray(tf.float32, size=2).unstack([1, 2]).stack()) == ("float32", (2,), [1.0, 2.0])
    assert tf.TensorArray(tf.float32, size=2).close() is None


def test_eager_gradient():
    x = tf.constant([1., 2., 3.])
    with tf.GradientTape() as t:
        t.watch(x)
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        ta = ta.write(1, ta.read(1) * 5.)
        y = tf.reduce_sum(ta.stack() * [1., 2., 3.])
    assert _val(t.gradient(y, x)) == ("float32", (3,), [1.0, 10.0, 3.0])


def test_eager_while_loop_carries_tensor_array():
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    _, ta = tf.while_loop(lambda i, ta: i < 4, lambda i, ta: (i + 1, ta.write(i, i * i)), (0, ta))
    assert _val(ta.stack()) == ("int32", (4,), [0, 1, 4, 9])


# ---------------------------------------------------------------------------------------------
# tf.function: TensorList ops on a variant flow
# ---------------------------------------------------------------------------------------------
def test_autograph_loop_idiom_values_shapes_tracing():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i, tf.float32) ** 2)
        return ta.stack()
    assert _val(f(tf.constant(5))) == ("float32", (5,), [0.0, 1.0, 4.0, 9.0, 16.0])
    assert _val(f(tf.constant(0))) == ("float32", (0,), [])
    assert f.experimental_get_tracing_count() == 1
    out = f.get_concrete_function(tf.TensorSpec([], tf.int32)).structured_outputs
    assert out.shape.as_list() == [None] and out.dtype == tf.float32


def test_flow_is_variant_and_loop_gradient():
    seen = []

    @tf.function
    def g(x):
        ta = tf.TensorArray(tf.float32, size=3)
        seen.append(ta.flow)
        for i in tf.range(3):
            ta = ta.write(i, x * tf.cast(i, tf.float32))
        return ta.stack()
    out = g.get_concrete_function(tf.TensorSpec([2], tf.float32)).structured_outputs
    assert out.shape.as_list() == [3, 2]          # the body's write told the outer array its element shape
    assert seen[0].dtype == tf.variant and seen[0].shape == tf.TensorShape([])
    x = tf.constant([1., 2.])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(g(x) ** 2)
    assert _val(t.gradient(y, x)) == ("float32", (2,), [10.0, 20.0])


def test_graph_static_shapes():
    @tf.function
    def h(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[2])
        for i in tf.range(3):
            ta = ta.write(i, x)
        return ta.stack(), ta.size(), ta.read(1), ta.concat(), ta.gather([0, 2])
    shapes = [t.shape.as_list() for t in h.get_concrete_function(tf.TensorSpec([2], tf.float32)).structured_outputs]
    assert shapes == [[None, 2], [], [2], [None], [2, 2]]

    @tf.function
    def h2(x):
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        return ta.stack(), ta.size(), ta.read(1), ta.concat(), ta.gather([0, 2])
    for spec in (tf.TensorSpec([3, 2], tf.float32), tf.TensorSpec([None, 2], tf.float32)):
        cf = tf.function(h2.python_function).get_concrete_function(spec)
        assert [t.shape.as_list() for t in cf.structured_outputs] == [[3, 2], [], [2], [None], [2, 2]]
    out = h2(tf.constant([[1., 2.], [3., 4.], [5., 6.]]))
    assert [o.numpy().tolist() for o in out] == [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], 3, [3.0, 4.0],
                                                  [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [[1.0, 2.0], [5.0, 6.0]]]


def _run(body):
    return tf.function(body, autograph=False)()


def test_graph_values():
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.).read(1))) == ("float32", (), 0.0)
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=3).write(0, [1., 2.]).stack())) == \
        ("float32", (3, 2), [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]])
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=0, element_shape=[2]).stack())) == ("float32", (0, 2), [])
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1., 2.])
                     .write(1, [3.]).concat())) == ("float32", (3,), [1.0, 2.0, 3.0])
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=2).split([1., 2., 3.], [1, 2]).read(1))) == \
        ("float32", (2,), [2.0, 3.0])
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=2).split([[1.], [2.], [3.], [4.]], [2, 2]).stack())) == \
        ("float32", (2, 2, 1), [[[1.0], [2.0]], [[3.0], [4.0]]])
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=3).scatter([2, 0], [[1.], [2.]]).write(1, [0.])
                     .stack())) == ("float32", (3, 1), [[2.0], [0.0], [1.0]])
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=1, dynamic_size=True).scatter([2, 0], [[1.], [2.]])
                     .size())) == ("int32", (), 3)
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=2).unstack([1., 2., 3.]).size())) == ("int32", (), 2)
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=2, dynamic_size=True).write(4, 1.).size())) == \
        ("int32", (), 5)
    assert _val(_run(lambda: tf.TensorArray(tf.float32, size=2, dynamic_size=True).write(3, 1.).stack())) == \
        ("float32", (4,), [0.0, 0.0, 0.0, 1.0])
    assert _val(_run(lambda: (lambda t: t.read(0) + t.read(0))(tf.TensorArray(tf.float32, size=2).write(0, 1.)))) \
        == ("float32", (), 2.0)      # graph arrays ignore clear_after_read
    assert _val(_run(lambda: tf.TensorArray(tf.int32, size=2).write(0, 3).write(1, 4).stack())) == \
        ("int32", (2,), [3, 4])


@pytest.mark.parametrize("body, cls, message", [
    (lambda: tf.TensorArray(tf.float32, size=2).write(3, 1.).stack(), InvalidArgumentError,
     "Trying to modify element 3 in a list with 2 elements."),
    (lambda: tf.TensorArray(tf.float32, size=2).write(-1, 1.).stack(), InvalidArgumentError,
     "Trying to modify element -1 in a list with 2 elements."),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.).read(5), InvalidArgumentError,
     "Trying to access element 5 in a list with 2 elements."),
    (lambda: tf.TensorArray(tf.float32, size=0).stack(), InvalidArgumentError,
     "Tried to stack elements of an empty list with non-fully-defined element_shape: <unknown>"),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, tf.constant(1, tf.int32)).stack(), InvalidArgumentError,
     "Invalid data types; op elements int32 but list elements float"),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.).write(1, [1., 2.]).stack(), ValueError,
     r"Inconsistent shapes: saw \(2,\) but expected \(\)"),
    (lambda: tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, 1.).write(1, [1., 2.]).stack(),
     InvalidArgumentError, "Incompatible ranks during merge: 0 vs. 1"),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.).write(1, 2.).concat(), InvalidArgumentError,
     "Concat saw a scalar shape at index 0 but requires at least vectors."),
    (lambda: tf.TensorArray(tf.float32, size=2).split([1., 2., 3.], [1, 1]).read(1), InvalidArgumentError,
     "Unused values in tensor. Length of tensor: 3 Values used: 2"),
    (lambda: tf.TensorArray(tf.float32, size=1).scatter([2, 0], [[1.], [2.]]).stack(), InvalidArgumentError,
     "Operation expected a list with 1 elements but got a list with 3 elements."),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.).write(1, 2.).gather([0, 4]), InvalidArgumentError,
     "Trying to gather element 4 in a list with 2 elements."),
])
def test_graph_errors(body, cls, message):
    with pytest.raises(cls, match=message):
        _run(body)


def test_autograph_unrolled_python_loop_and_variable_side_effects():
    @tf.function
    def fib(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = ta.unstack([0., 1.])
        for i in range(2, n):
            ta = ta.write(i, ta.read(i - 1) + ta.read(i - 2))
        return ta.stack()
    assert _val(fib(7)) == ("float32", (7,), [0.0, 1.0, 1.0, 2.0, 3.0, 5.0, 8.0])

    v = tf.Variable(1)

    @tf.function
    def fv(x):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(x):
            v.assign_add(i)
            ta = ta.write(i, v)
        return ta.stack()
    assert _val(fv(5)) == ("int32", (5,), [1, 2, 4, 7, 11])


def test_tensor_array_through_cond_with_gradient():
    @tf.function
    def in_cond(x):
        ta = tf.TensorArray(tf.float32, size=2)
        if x > 0:
            ta = ta.write(0, x)
        else:
            ta = ta.write(0, -x)
        ta = ta.write(1, 3.)
        return ta.stack()
    x = tf.constant(-2.)
    assert _val(in_cond(x)) == ("float32", (2,), [2.0, 3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(in_cond(x) * 2.)
    assert _val(t.gradient(y, x)) == ("float32", (), -2.0)


def test_gradients_multi_read_and_loop_reads():
    @tf.function
    def multi_read(x):
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        return ta.read(0) * ta.read(2) + tf.reduce_sum(ta.stack())
    x = tf.constant([1., 2., 3.])
    with tf.GradientTape() as t:
        t.watch(x)
        y = multi_read(x)
    assert _val(t.gradient(y, x)) == ("float32", (3,), [4.0, 1.0, 2.0])   # list gradients are summed (AddN)

    @tf.function
    def loop_read(x):
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        acc = tf.constant(0.)
        out = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            acc = acc + ta.read(i) * ta.read(i)
            out = out.write(i, acc)
        return out.stack()
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(loop_read(x))
    assert _val(loop_read(x)) == ("float32", (3,), [1.0, 5.0, 14.0])
    assert _val(t.gradient(y, x)) == ("float32", (3,), [6.0, 8.0, 6.0])


def test_graph_gradients_of_gather_scatter_concat_split_match_finite_differences():
    def fn(x):
        ta = tf.TensorArray(tf.float64, size=4, infer_shape=False)
        ta = ta.scatter([3, 0], x[:2])
        ta = ta.write(1, x[2] * x[3])
        g = ta.gather([3, 1])
        ta2 = tf.TensorArray(tf.float64, size=2, infer_shape=False).split(tf.reshape(x, [-1]), [3, 9])
        return tf.reduce_sum(g * g) + tf.reduce_sum(ta2.concat() ** 3)
    x = tf.constant(np.arange(12.).reshape(4, 3) / 7.)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.function(fn)(x)
    got = t.gradient(y, x).numpy()
    eps, want = 1e-6, np.zeros((4, 3))
    base = x.numpy()
    for idx in np.ndindex(4, 3):
        d = np.zeros((4, 3))
        d[idx] = eps
        want[idx] = (float(fn(tf.constant(base + d))) - float(fn(tf.constant(base - d)))) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_tape_inside_tf_function_differentiates_through_a_tensor_array():
    """Recorded with TF 2.21: [1, 10, 3] (the gradient flows back through the variant flow tensor)."""
    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            ta = tf.TensorArray(tf.float32, size=3)
            ta = ta.write(0, x[0])
            ta = ta.write(1, x[1] * 10.0)
            ta = ta.write(2, x[2] * 3.0)
            y = tf.reduce_sum(ta.stack())
        return t.gradient(y, x)
    np.testing.assert_allclose(f(tf.constant([1.0, 2.0, 3.0])).numpy(), [1.0, 10.0, 3.0])
