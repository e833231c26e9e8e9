"""The backward walk that ``tf.GradientTape`` and ``tf.gradients`` share (engine/framework/backprop.py).

The walk over hand-written records (what it reads of an op, what the adapter emits), then the
behaviours that used to differ between the two front-ends and now come from the one walk:
``IndexedSlices`` aggregation in graphs, ``stop_gradients`` (TF 2.21's documented semantics) and
TF's argument errors of ``tf.gradients``.
"""
import types

import numpy as np
import pytest

import engine as tf
from engine.framework import backprop as walk
from engine.framework import registry

v1 = tf.compat.v1


# --- the walk over hand-written records ---------------------------------------------------------------
class Record:
    """The least a record offers the walk: ids and values of its tensors, its type, its gradient."""

    def __init__(self, op_type, input_ids, output_ids, grad=None, backward=None):
        self.type = op_type
        self.input_ids, self.output_ids = input_ids, output_ids
        self.inputs = tuple(types.SimpleNamespace(_id=i) for i in input_ids)
        self.outputs = tuple(types.SimpleNamespace(_id=i) for i in output_ids)
        self.op_def = types.SimpleNamespace(grad=grad)
        self.backward = backward
        self.skip_input_indices = None


class FloatAdapter(walk.Adapter):
    """Gradients are Python floats, summed by Python; every value can carry one."""

    def ones_like(self, x):
        return 1.0

    def zeros_like(self, x):
        return 0.0

    def aggregate(self, parts):
        return sum(parts)

    def carries_gradient(self, x):
        return True


def tensor(i):
    return types.SimpleNamespace(_id=i)


def test_walk_over_records_sums_a_tensor_used_twice():
    # x (id 1) = 3;  a (2) = x * x;  y (3) = a + x;  dy/dx = 2x + 1 = 7
    x = 3.0
    records = [Record("Square", (1,), (2,), grad=lambda op, g: g * 2 * x),
               Record("AddV2", (2, 1), (3,), grad=lambda op, g: (g, g))]
    (g,) = walk.backprop(records, [tensor(3)], [tensor(1)], None, FloatAdapter())
    assert g == 7.0
    assert [r.skip_input_indices for r in records] == [(), ()]


def test_walk_skips_unreached_inputs_and_unconnected_sources():
    # c (id 5) is a constant: AddV2 learns it needs no gradient; source 9 is unconnected
    seen = []
    records = [Record("AddV2", (1, 5), (2,), grad=lambda op, g: seen.append(op.skip_input_indices) or (g, None))]
    g, missing = walk.backprop(records, [tensor(2)], [tensor(1), tensor(9)], [4.0], FloatAdapter())
    assert (g, missing) == (4.0, None) and seen == [(1,)]
    assert walk.backprop(records, [tensor(2)], [tensor(9)], None, FloatAdapter(),
                         walk.UnconnectedGradients.ZERO) == [0.0]   # the adapter's zeros


def test_walk_calls_a_custom_backward_and_stops_where_told():
    # y (3) = custom(b (2)), b = 2 * x (1). A custom backward; stopping at b cuts x off.
    records = [Record("Double", (1,), (2,), grad=lambda op, g: 2 * g),
               Record("custom", (2,), (3,), backward=lambda g: [10 * g])]
    assert walk.backprop(records, [tensor(3)], [tensor(1), tensor(2)], None, FloatAdapter()) == [20.0, 10.0]
    assert walk.backprop(records, [tensor(3)], [tensor(1), tensor(2)], None, FloatAdapter(),
                         stop_ids={2}) == [None, 10.0]


def test_tape_and_tf_gradients_share_the_walk_and_its_enum():
    from engine.eager import tape
    from engine.framework import graph_gradients
    assert tape.backprop is graph_gradients.backprop is walk.backprop
    assert tf.UnconnectedGradients is walk.UnconnectedGradients


# --- tf.gradients: what the shared walk brings to graphs --------------------------------------------------
def _sparse_gather_grad(op, grad):
    """A gather gradient that is sparse in graphs too (the engine's is dense there)."""
    params, indices = op.inputs[0], op.inputs[1]
    return tf.IndexedSlices(grad, indices, tf.shape(params)), None, None


def test_tf_gradients_aggregates_indexed_slices_like_the_tape():
    # (Build GatherV2's kernel first: an ``override`` block that is the first to run an op leaves its
    # eager kernel unset on exit, a registry.override bug reported separately.)
    tf.gather(tf.constant([1.]), [0])
    g = tf.Graph()
    with g.as_default(), registry.override("GatherV2", grad=_sparse_gather_grad):
        x = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
        two = tf.reduce_sum(tf.gather(x, [1])) + tf.reduce_sum(tf.gather(tf.identity(x), [2, 2]) * 3.)
        mixed = tf.reduce_sum(tf.gather(x, [1])) + tf.reduce_sum(x * 2.)
        (sparse,) = tf.gradients(two, [x])
        (dense,) = tf.gradients(mixed, [x])
        assert type(sparse) is tf.IndexedSlices      # concatenated, through Identity: still sparse
        assert isinstance(dense, tf.Tensor)          # a dense contribution makes the sum dense
        with v1.Session() as sess:
            indices, values, dense = sess.run([sparse.indices, sparse.values, dense])
    np.testing.assert_array_equal(indices, [1, 2, 2])   # the tape's order (tests/test_indexed_slices.py)
    np.testing.assert_array_equal(values, [[1., 1.], [3., 3.], [3., 3.]])
    np.testing.assert_array_equal(dense, [[2., 2.], [3., 3.], [2., 2.]])


def test_stop_gradients_hold_tensors_constant_as_tf():
    """TF's documented example: the partial derivatives, not the total ones."""
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(0.)
        b = 2 * a
        partial = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
        total = tf.gradients(a + b, [a, b])
        (through_b,) = tf.gradients(a + b, [a], stop_gradients=[b])
        with v1.Session() as sess:
            assert sess.run(partial) == [1.0, 1.0]
            assert sess.run(total) == [3.0, 1.0]
            assert sess.run(through_b) == [1.0]


def test_tf_gradients_argument_errors_as_tf():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(1.0)
        y = x * 2.
        with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'nonsense'"):
            tf.gradients([y], [x], unconnected_gradients="nonsense")
        with pytest.raises(ValueError, match="Passed 1 grad_ys for 2 ys"):
            tf.gradients([y, y], [x], grad_ys=[tf.constant(1.0)])
        (zero,) = tf.gradients([y], [tf.constant(3.0)], unconnected_gradients=tf.UnconnectedGradients.ZERO)
        v = tf.Variable([[1., 2., 3.]])
        assert tf.gradients([y], [v]) == [None]
        (zeros,) = tf.gradients([y], [v], unconnected_gradients="zero")   # TF: zeros shaped like the value
        with v1.Session() as sess:
            assert sess.run(zero) == 0.0
            np.testing.assert_array_equal(sess.run(zeros), np.zeros((1, 3), np.float32))
