"""tf.Variable scatter methods: values, duplicate indices, errors (goldens from TF 2.21), tf.function."""
import numpy as np
import pytest

import engine as tf
from engine.framework.errors import InvalidArgumentError


class Slices:
    """A minimal tf.IndexedSlices stand-in (``indices`` and ``values``)."""

    def __init__(self, values, indices):
        self.values, self.indices = values, indices


def test_sequence_matches_tf():
    # The same sequence run in TF 2.21 gave these values.
    v = tf.Variable([[1., 2.], [3., 4.], [5., 6.]])
    assert v.scatter_nd_update([[0, 1], [2, 0]], [10., 20.]) is v
    assert v.numpy().tolist() == [[1.0, 10.0], [3.0, 4.0], [20.0, 6.0]]
    v.scatter_nd_add([[1]], [[100., 200.]])
    assert v.numpy().tolist() == [[1.0, 10.0], [103.0, 204.0], [20.0, 6.0]]
    v.scatter_nd_sub(tf.constant([[1, 1], [1, 1]], tf.int64), [1., 1.])   # duplicates accumulate
    assert v.numpy().tolist() == [[1.0, 10.0], [103.0, 202.0], [20.0, 6.0]]
    v.scatter_update(Slices(tf.constant([[7., 7.]]), tf.constant([2])))
    assert v.numpy().tolist() == [[1.0, 10.0], [103.0, 202.0], [7.0, 7.0]]
    v.scatter_add(Slices(tf.constant([[1., 1.], [1., 1.]]), tf.constant([0, 0])))
    assert v.numpy().tolist() == [[3.0, 12.0], [103.0, 202.0], [7.0, 7.0]]
    v.scatter_nd_update([[0, 0], [0, 0]], [1., 2.])                       # TF: the last update wins
    assert v.numpy()[0, 0] == 2.0


def test_pairs_sub_max_min_and_integer_variables():
    v = tf.Variable([1.0, 5.0, 3.0])
    v.scatter_sub(([0, 2], [1.0, 1.0]))
    v.scatter_max(([0, 1], [4.0, 4.0]))
    v.scatter_min(([1, 2], [0.5, 9.0]))
    assert v.numpy().tolist() == [4.0, 0.5, 2.0]
    v.scatter_nd_max([[2]], [7.0])
    v.scatter_nd_min([[0]], [-1.0])
    assert v.numpy().tolist() == [-1.0, 0.5, 7.0]
    w = tf.Variable([1, 2, 3])
    w.scatter_nd_update([[0]], [9])
    assert w.numpy().tolist() == [9, 2, 3] and w.dtype == tf.int32
    v.scatter_update(([1], 8.0))                                          # scalar updates broadcast
    assert v.numpy().tolist() == [-1.0, 8.0, 7.0]


def test_snapshots_read_before_are_unchanged():
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    v.scatter_nd_add([[0]], [10.0])
    assert before.numpy().tolist() == [1.0, 2.0] and v.numpy().tolist() == [11.0, 2.0]


@pytest.mark.parametrize("call, error, message", [
    (lambda v: v.scatter_nd_update([[3, 0]], [1.]), InvalidArgumentError,
     r"indices\[0\] = \[3, 0\] does not index into shape \[3,2\] \[Op:ResourceScatterNdUpdate\]"),
    (lambda v: v.scatter_nd_add([[-1, 0]], [1.]), InvalidArgumentError,
     r"indices\[0\] = \[-1, 0\] does not index into shape \[3,2\] \[Op:ResourceScatterNdAdd\]"),
    (lambda v: v.scatter_nd_update([[0, 0]], [1., 2.]), InvalidArgumentError,
     r"Dimensions \[0,1\) of indices\[shape=\[1,2\]\] = 1 must match dimensions \[0,1\) of updates\[shape=\[2\]\] = 2"),
    (lambda v: v.scatter_nd_update([[0, 0, 0]], [1.]), InvalidArgumentError,
     r"Dimensions \[3,2\) of input\[shape=\[3,2\]\] must match dimensions \[3,1\) of updates\[shape=\[1\]\]"),
    (lambda v: v.scatter_nd_update([[0, 0]], tf.constant([1], tf.int32)), ValueError,
     "Tensor conversion requested dtype float32 for Tensor with dtype int32"),
    (lambda v: v.scatter_nd_update([[0.0, 0.0]], [1.]), InvalidArgumentError,
     "Value for attr 'Tindices' of float32 is not in the list of allowed values: int32, int64"),
    (lambda v: v.scatter_update(Slices(tf.constant([[7., 7.]]), tf.constant([5]))), InvalidArgumentError,
     r"indices\[0\] = 5 is not in \[0, 3\) \[Op:ResourceScatterUpdate\]"),
    (lambda v: v.scatter_update(Slices(tf.constant([[7., 7., 7.]]), tf.constant([0]))), InvalidArgumentError,
     r"Must have updates.shape = indices.shape \+ params.shape\[1:\]"),
    (lambda v: v.scatter_update([0]), TypeError, "Argument `sparse_delta` must be a `tf.IndexedSlices`"),
])
def test_errors(call, error, message):
    v = tf.Variable([[1., 2.], [3., 4.], [5., 6.]])
    with pytest.raises(error, match=message):
        call(v)
    assert v.numpy().tolist() == [[1., 2.], [3., 4.], [5., 6.]]   # nothing written


def test_scalar_variable():
    with pytest.raises(InvalidArgumentError, match=r"Output must be at least 1-D, got shape: \[\]"):
        tf.Variable(1.0).scatter_nd_update([[0]], [1.])


def test_inside_tf_function():
    v = tf.Variable([[1., 2.], [3., 4.]])

    @tf.function
    def f():
        v.scatter_nd_add([[0, 0]], [1.0])
        v.scatter_nd_update([[0, 1]], [5.0])
        v.scatter_sub(([1], [[1.0, 1.0]]))
        return v.read_value()

    assert f().numpy().tolist() == [[2.0, 5.0], [2.0, 3.0]]
    assert v.numpy().tolist() == [[2.0, 5.0], [2.0, 3.0]]
