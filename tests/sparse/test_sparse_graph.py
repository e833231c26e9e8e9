"""Every tf.sparse op built into graphs: each golden case of ``sparse_cases.py`` run again in a
``tf.Graph`` with ``Session.run`` and inside a ``tf.function``, against TF 2.21's recorded result.

This is the sparse ops' graph-vs-eager coverage (``tests/graph/op_catalog.py`` lists them as
covered here); the last test checks that every sparse row was built in a graph.
"""
import json
import os
import sys

import numpy as np
import pytest

import engine as tf
from engine.ops import sparse_ops

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sparse_cases import CASES, describe, namespace  # noqa: E402

with open(os.path.join(HERE, "sparse_goldens.json"), encoding="utf-8") as f:
    GOLDENS = json.load(f)

VALUE_CASES = sorted(k for k, v in GOLDENS.items() if k != "tensorflow" and "error" not in v and "python" not in v
                     and "tf.function" not in CASES[k])
BUILT = set()


def _fetch(sess, result):
    if isinstance(result, tf.SparseTensor):
        indices, values, shape = sess.run([result.indices, result.values, result.dense_shape])
        return {"indices": repr(indices.tolist()), "values": repr(values.tolist()),
                "dense_shape": repr(shape.tolist())}
    value = sess.run(result)
    return {"value": repr(value.tolist() if hasattr(value, "tolist") else value)}


@pytest.mark.parametrize("key", VALUE_CASES)
def test_case_in_a_session_graph(key):
    want = GOLDENS[key]
    graph = tf.Graph()
    with graph.as_default():
        result = eval(CASES[key], namespace(tf, np))  # noqa: S307
        BUILT.update(op.type for op in graph.get_operations())
    with tf.compat.v1.Session(graph=graph) as sess:
        got = _fetch(sess, result)
    assert got == {k: want[k] for k in got}


@pytest.mark.parametrize("key", VALUE_CASES)
def test_case_in_tf_function(key):
    got = describe(tf.function(lambda: eval(CASES[key], namespace(tf, np))))  # noqa: S307
    assert got == GOLDENS[key]


def test_every_sparse_op_was_built_in_a_graph():
    if len(BUILT) < 5:
        pytest.skip("runs after the session cases (run the whole file)")
    rows = {v.name for v in vars(sparse_ops).values() if type(v).__name__ == "OpDef"}
    assert rows - BUILT == set()
