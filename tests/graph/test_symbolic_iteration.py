"""Iterating over a symbolic tensor: refused, as in TF 2.21 (recorded), except AutoGraph `for` loops."""
import numpy as np
import pytest

import engine as tf
from engine.errors import OperatorNotAllowedInGraphError

MESSAGE = "Iterating over a symbolic `tf.Tensor` is not allowed"


@pytest.mark.parametrize("body", [
    lambda x: [a for a in x],
    lambda x: tuple(x),
    lambda x: iter(x),
])
def test_tf_function_without_autograph_refuses_even_known_length(body):
    f = tf.function(body, autograph=False)
    with pytest.raises(OperatorNotAllowedInGraphError, match=MESSAGE):
        f(tf.constant([1., 2.]))


def test_unpacking_refused_and_unknown_length_refused():
    @tf.function(autograph=False)
    def unpack(x):
        a, b = x
        return a + b

    with pytest.raises(OperatorNotAllowedInGraphError, match=MESSAGE):
        unpack(tf.constant([1., 2.]))
    f = tf.function(lambda x: [a for a in x], autograph=False, input_signature=[tf.TensorSpec([None])])
    with pytest.raises(OperatorNotAllowedInGraphError, match=MESSAGE):
        f(tf.constant([1., 2.]))
    assert issubclass(OperatorNotAllowedInGraphError, TypeError)


def test_tf1_graph_refuses():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2])
        with pytest.raises(OperatorNotAllowedInGraphError, match=MESSAGE):
            list(x)
        with pytest.raises(OperatorNotAllowedInGraphError, match=MESSAGE):
            [a for a in tf.constant([1, 2])]
        with pytest.raises(TypeError, match="len is not well defined for a symbolic Tensor"):
            len(x)


def test_autograph_for_loop_becomes_a_loop():
    @tf.function
    def total(x):
        s = tf.constant(0.)
        for a in x:
            s += tf.reduce_sum(a)
        return s

    assert float(total(tf.constant([1., 2., 3.]))) == 6.0
    assert float(total(tf.constant([[1., 2.], [3., 4.]]))) == 10.0
    unknown = tf.function(total.python_function, input_signature=[tf.TensorSpec([None])])
    assert float(unknown(tf.constant([1., 2., 3.]))) == 6.0


def test_autograph_comprehension_still_refused_and_unstack_works():
    @tf.function
    def comp(x):
        return [a for a in x]

    with pytest.raises(OperatorNotAllowedInGraphError, match=MESSAGE):
        comp(tf.constant([1., 2.]))
    f = tf.function(lambda x: tf.add_n([a for a in tf.unstack(x)]), autograph=False)
    assert float(f(tf.constant([1., 2.]))) == 3.0


def test_eager_iteration_unchanged():
    assert [float(a) for a in tf.constant([1., 2.])] == [1., 2.]
    np.testing.assert_array_equal([a.numpy() for a in tf.constant([[1, 2], [3, 4]])], [[1, 2], [3, 4]])
