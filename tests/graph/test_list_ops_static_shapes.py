"""List-returning ops and data-dependent output sizes, against TF 2.21's recorded answers.

The cases are in ``list_op_cases.py``; TF's answers in ``list_op_goldens.json`` (recorded by
``record_list_op_goldens.py`` under TensorFlow 2.21). For every case the engine must give:

* in a ``tf.Graph`` built from placeholders of partly unknown shapes, and in a ``tf.function`` traced
  for an ``input_signature`` of those shapes: the same kind of result (a tensor, or a list or tuple of
  the same length: ``tf.unstack`` of a ``[1, 3]`` placeholder is a list of one tensor, not the tensor),
  the same dtypes and the same static shapes, never more specific than TF's (``segment_sum`` has
  ``None`` rows even for constant ids), or the same error class and message;
* eagerly, in a ``tf.function`` (with and without the signature) and through ``Session.run``: TF's values;
* for ``GRADIENT_CASES``: TF's gradient, from an eager tape, a tape inside a ``tf.function`` and
  ``tf.gradients`` in a graph.
"""
import json
import os
import re

import numpy as np
import pytest

import engine as tf
from gradcheck import check_gradients
from list_op_cases import CASES, GRADIENT_CASES, error_head, feed_array, flat_outputs, weighted_sum

v1 = tf.compat.v1
with open(os.path.join(os.path.dirname(__file__), "list_op_goldens.json")) as _f:
    GOLDEN = json.load(_f)["cases"]
NAMES = sorted(CASES)
VALUE_NAMES = [n for n in NAMES if "eager" in GOLDEN[n]]


def test_goldens_cover_the_cases():
    assert sorted(GOLDEN) == NAMES
    assert all("gradient" in GOLDEN[n] for n in GRADIENT_CASES)


def _norm_error(head):
    cls, message = head
    return [cls, re.sub(r'Tensor\("[^"]*"', 'Tensor("?"', message)]   # tensor names differ


def _static(out):
    kind, tensors = flat_outputs(out)
    return {"kind": kind, "outputs": [[t.dtype.name, None if t.shape.rank is None else t.shape.as_list()]
                                      for t in tensors]}


def _check_static(name, build, mode):
    golden = GOLDEN[name][mode]
    try:
        got = build()
    except Exception as e:  # noqa: BLE001
        assert "error" in golden, f"{name} ({mode}): TF builds {golden}, the engine raised {e!r}"
        assert _norm_error(error_head(e)) == _norm_error(golden["error"]), name
        return
    assert "error" not in golden, f"{name} ({mode}): TF raises {golden['error']}, the engine built {got}"
    assert got == golden, f"{name} ({mode})"


@pytest.mark.parametrize("name", NAMES)
def test_graph_static_shapes_match_tf(name):
    inputs, fn = CASES[name]

    def build():
        with tf.Graph().as_default():
            return _static(fn(tf, *[v1.placeholder(getattr(tf, dt), shape) for dt, shape, _ in inputs]))
    _check_static(name, build, "graph")


@pytest.mark.parametrize("name", NAMES)
def test_function_static_shapes_match_tf(name):
    inputs, fn = CASES[name]

    def build():
        seen = []
        signature = [tf.TensorSpec(shape, getattr(tf, dt)) for dt, shape, _ in inputs]
        tf.function(lambda *xs: seen.append(_static(fn(tf, *xs))), input_signature=signature).get_concrete_function()
        return seen[0]
    _check_static(name, build, "function")


def _feeds(inputs):
    return [feed_array(dt, shape, feed) for dt, shape, feed in inputs]


def _check_values(name, kind, arrays, where):
    golden = GOLDEN[name]["eager"]
    assert "error" not in golden
    assert kind == golden["kind"], f"{name} ({where})"
    assert len(arrays) == len(golden["outputs"])
    for got, (dtype, shape, value) in zip(arrays, golden["outputs"]):
        got = np.asarray(got)
        assert got.dtype == np.dtype(dtype) and list(got.shape) == shape, f"{name} ({where})"
        np.testing.assert_allclose(got, np.array(value, dtype=dtype).reshape(shape), rtol=1e-6, atol=1e-6,
                                   err_msg=f"{name} ({where})")


@pytest.mark.parametrize("name", VALUE_NAMES)
def test_values_eager_function_and_session_match_tf(name):
    inputs, fn = CASES[name]
    feeds = _feeds(inputs)
    # eager
    kind, tensors = flat_outputs(fn(tf, *[tf.constant(f) for f in feeds]))
    _check_values(name, kind, [t.numpy() for t in tensors], "eager")
    # tf.function, traced for the values' shapes and for the signature's partly unknown shapes
    signature = [tf.TensorSpec(shape, getattr(tf, dt)) for dt, shape, _ in inputs]
    for f in (tf.function(lambda *xs: fn(tf, *xs)), tf.function(lambda *xs: fn(tf, *xs), input_signature=signature)):
        kind, tensors = flat_outputs(f(*[tf.constant(x) for x in feeds]))
        _check_values(name, kind, [t.numpy() for t in tensors], "tf.function")
    # a graph fed through placeholders
    with tf.Graph().as_default() as g:
        placeholders = [v1.placeholder(getattr(tf, dt), shape) for dt, shape, _ in inputs]
        kind, tensors = flat_outputs(fn(tf, *placeholders))
        with v1.Session(graph=g) as sess:
            values = sess.run(tensors, feed_dict=dict(zip(placeholders, feeds)))
    _check_values(name, kind, values, "Session.run")


@pytest.mark.parametrize("name", GRADIENT_CASES)
def test_gradients_match_tf(name):
    inputs, fn = CASES[name]
    feeds = _feeds(inputs)
    expected = np.array(GOLDEN[name]["gradient"], dtype=np.float32)

    def eager(*xs):
        with tf.GradientTape() as tape:
            tape.watch(xs[0])
            y = weighted_sum(tf, fn(tf, *xs))
        return tf.convert_to_tensor(tape.gradient(y, xs[0]))   # the engine's repeat: IndexedSlices (gather)
    constants = [tf.constant(x) for x in feeds]
    np.testing.assert_allclose(eager(*constants).numpy(), expected, rtol=1e-6, err_msg=f"{name} (tape)")
    np.testing.assert_allclose(tf.function(eager)(*constants).numpy(), expected, rtol=1e-6,
                               err_msg=f"{name} (tape in tf.function)")
    with tf.Graph().as_default() as g:
        placeholders = [v1.placeholder(getattr(tf, dt), shape) for dt, shape, _ in inputs]
        grad = tf.gradients(weighted_sum(tf, fn(tf, *placeholders)), placeholders[0])[0]
        with v1.Session(graph=g) as sess:
            got = sess.run(grad, feed_dict=dict(zip(placeholders, feeds)))
    np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=f"{name} (tf.gradients)")


@pytest.mark.parametrize("f", [
    lambda x: tf.unstack(x)[0] * 3.0,
    lambda x: tf.stack(tf.unstack(x, axis=1)) ** 2,
    lambda x: tf.split(x, 1, axis=1)[0] * tf.split(x, [-1])[0],
    lambda x: tf.dynamic_partition(x, [0], 1)[0] ** 2,
    lambda x: tf.identity_n([x])[0] * x,
], ids=["unstack-1", "unstack-axis1-1", "split-1", "dynamic_partition-1", "identity_n-1"])
def test_one_output_list_ops_gradients_finite_differences(f):
    x = np.array([[0.5, -1.0, 2.0]])
    check_gradients(f, x)
    check_gradients(tf.function(f), x)


def test_list_op_with_one_output_runs_in_a_plan():
    """The plan a Session compiles calls a list op's kernel for its one output (TF: a list of one)."""
    with tf.Graph().as_default() as g:
        p = v1.placeholder(tf.float32, [1, 3])
        pieces = tf.unstack(p)
        assert isinstance(pieces, list) and len(pieces) == 1 and pieces[0].shape == (3,)
        with v1.Session(graph=g) as sess:
            value = sess.run(pieces, {p: [[1.0, 2.0, 3.0]]})
    assert isinstance(value, list) and len(value) == 1
    np.testing.assert_array_equal(value[0], [1.0, 2.0, 3.0])


def test_split_with_placeholder_axis_stays_honest():
    """TF's SplitV shape function reads an unknown ``split_dim`` as -1, the last axis: for ``[4, 6]`` split
    into ``[1, 3]`` it raises "can't split axis of size 6" although axis 0 (size 4) is valid, and for
    ``[4, 4]`` it claims ``[4, 1], [4, 3]``, which is wrong when the axis is 0. The engine does not copy that:
    the pieces have the input's rank and unknown dimensions, and the values are right for either axis."""
    with tf.Graph().as_default() as g:
        x = v1.placeholder(tf.float32, [4, 4])
        a = v1.placeholder(tf.int32, [])
        pieces = tf.split(x, [1, 3], axis=a)
        assert [p.shape.as_list() for p in pieces] == [[None, None], [None, None]]
        data = np.arange(16, dtype=np.float32).reshape(4, 4)
        with v1.Session(graph=g) as sess:
            for axis in (0, 1):
                got = sess.run(pieces, {x: data, a: axis})
                assert [v.shape for v in got] == [(1, 4), (3, 4)] if axis == 0 else [(4, 1), (4, 3)]
