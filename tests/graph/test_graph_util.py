"""tf.compat.v1.graph_util: extract_sub_graph, convert_variables_to_constants (freezing), remove_training_nodes.

Node layouts recorded with TF 2.21: freezing turns the variable ``w`` into a ``Const`` named ``w`` and its
read into an ``Identity``; the served graph computes [[5.]] for the example below.
"""
import numpy as np
import pytest

import engine as tf

v1 = tf.compat.v1


def _trained_graph():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0], [2.0]], name="w")
        y = tf.identity(tf.matmul(x, w), name="y")
        unused = tf.Variable(3.0, name="unused")
        step = w.assign_add([[1.0], [1.0]])
        init = v1.global_variables_initializer()
    return g, step, init, unused


def test_freezing_bakes_the_sessions_values_into_constants_and_serves_without_variables():
    g, step, init, _ = _trained_graph()
    with v1.Session(graph=g) as sess:
        sess.run(init)
        sess.run(step)                                   # w is now [[2], [3]]
        frozen = v1.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["y"])
    ops = {n.name: n.op for n in frozen.node}
    assert ops["w"] == "Const" and "unused" not in ops
    assert not any(op in ("VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp")
                   for op in ops.values())
    served = v1.GraphDef()                               # plain data: survives a round trip through bytes
    served.ParseFromString(frozen.SerializeToString())
    g2 = tf.Graph()
    with g2.as_default():
        x, y = v1.import_graph_def(served, return_elements=["x:0", "y:0"], name="")
    with v1.Session(graph=g2) as sess:                   # no initializer needed
        np.testing.assert_allclose(sess.run(y, {x: [[1.0, 1.0]]}), [[5.0]])


def test_extract_sub_graph_keeps_what_the_outputs_need():
    g, _, _, _ = _trained_graph()
    sub = v1.graph_util.extract_sub_graph(g.as_graph_def(), ["y"])
    names = [n.name for n in sub.node]
    assert names[-1] == "y" and "x" in names and "w" in names and "unused" not in names
    with pytest.raises(AssertionError, match="nope is not in graph"):
        v1.graph_util.extract_sub_graph(g.as_graph_def(), ["nope"])
    with pytest.raises(TypeError):
        v1.graph_util.extract_sub_graph(g.as_graph_def(), "y")


def test_remove_training_nodes_rewires_through_identities():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [2], name="x")
        a = tf.identity(x, name="a")
        tf.multiply(a, 2.0, name="out")
    cleaned = v1.graph_util.remove_training_nodes(g.as_graph_def(), protected_nodes=["out"])
    nodes = {n.name: n for n in cleaned.node}
    assert "a" not in nodes and nodes["out"].input[0] == "x"
