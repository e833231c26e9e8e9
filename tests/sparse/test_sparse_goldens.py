"""tf.SparseTensor and tf.sparse against TF 2.21: every case of ``sparse_cases.py`` (values, reprs,
gradients and errors TF gave), then finite-difference checks of every gradient."""
import json
import os
import re
import sys

import numpy as np
import pytest

import engine as tf
from gradcheck import check_gradients

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sparse_cases import CASES, describe, namespace  # noqa: E402

with open(os.path.join(HERE, "sparse_goldens.json"), encoding="utf-8") as f:
    GOLDENS = json.load(f)


def _tf_message(message):
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    return re.sub(r" name: $", "", message)


@pytest.mark.parametrize("key", sorted(CASES))
def test_case_matches_tf(key):
    want = GOLDENS[key]
    got = describe(lambda: eval(CASES[key], namespace(tf, np)))  # noqa: S307
    if "error" in want:
        assert got.get("error") == want["error"], got
        assert _tf_message(got["message"]) == _tf_message(want["message"])
        return
    assert got == want


INDICES = [[0, 1], [1, 0], [2, 2]]


def _sparse(v):
    return tf.SparseTensor(INDICES, v, [3, 3])


WEIGHTS = np.arange(9.0).reshape(3, 3) - 4.0


@pytest.mark.parametrize("f", [
    lambda v: tf.sparse.to_dense(_sparse(v)) * WEIGHTS,
    lambda v: tf.sparse.reduce_sum(_sparse(v), axis=0),
    lambda v: tf.sparse.reduce_sum(_sparse(v), axis=[1], keepdims=True),
    lambda v: tf.sparse.reduce_sum(_sparse(v)),
    lambda v: tf.sparse.sparse_dense_matmul(_sparse(v), WEIGHTS),
    lambda v: tf.sparse.sparse_dense_matmul(_sparse(v), WEIGHTS, adjoint_a=True),
    lambda v: tf.sparse.sparse_dense_matmul(_sparse(v), WEIGHTS, adjoint_b=True),
    lambda v: tf.sparse.to_dense(tf.sparse.add(_sparse(v), tf.SparseTensor([[0, 1], [1, 1]], v[:2] * 2.0, [3, 3]))),
    lambda v: tf.sparse.add(_sparse(v), tf.constant(WEIGHTS)) ** 2,
    lambda v: tf.sparse.reorder(tf.SparseTensor([[2, 2], [0, 1], [1, 0]], v, [3, 3])).values * [1.0, 2.0, 3.0],
    lambda v: tf.sparse.slice(_sparse(v), [0, 0], [2, 3]).values * [1.0, 2.0],
    lambda v: tf.sparse.to_dense(tf.sparse.transpose(_sparse(v))) * WEIGHTS,
    lambda v: tf.sparse.to_dense(tf.sparse.map_values(tf.square, _sparse(v))),
], ids=["to_dense", "reduce_sum_axis0", "reduce_sum_keepdims", "reduce_sum_all", "matmul", "matmul_adjoint_a",
        "matmul_adjoint_b", "add_sparse", "add_dense", "reorder", "slice", "transpose", "map_values"])
def test_values_gradients_match_finite_differences(f):
    check_gradients(f, [1.5, -2.0, 0.5])


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_matmul_dense_gradient_matches_finite_differences(adjoint_a, adjoint_b):
    sp = tf.SparseTensor(INDICES, tf.constant([1.5, -2.0, 0.5], tf.float64), [3, 3])
    check_gradients(lambda b: tf.sparse.sparse_dense_matmul(sp, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b),
                    WEIGHTS[:, :2] if not adjoint_b else WEIGHTS[:2, :])


def test_from_dense_gradient_matches_finite_differences():
    check_gradients(lambda x: tf.sparse.from_dense(x).values * 3.0, [[0.5, 2.0], [5.0, -1.0]])   # (no zeros: a
    # finite difference must not change which entries are stored)


def test_sparse_tensors_in_graphs_and_functions():
    sp = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    spec = tf.SparseTensorSpec([3, 4], tf.float32)
    assert sp._type_spec == spec
    assert tf.nest.flatten(sp, expand_composites=True)[1] is sp.values

    @tf.function
    def f(s):
        return tf.sparse.reduce_sum(tf.sparse.reorder(s), axis=1), tf.sparse.add(s, s)

    total, doubled = f(sp)
    assert total.numpy().tolist() == [1.0, 2.0, 0.0]
    assert isinstance(doubled, tf.SparseTensor) and doubled.values.numpy().tolist() == [2.0, 4.0]
    graph = tf.Graph()
    with graph.as_default():
        g = tf.sparse.to_dense(tf.SparseTensor([[0, 1]], [5], [2, 2]))
        assert g.shape == (2, 2)
    with tf.compat.v1.Session(graph=graph) as sess:
        assert sess.run(g).tolist() == [[0, 5], [0, 0]]
