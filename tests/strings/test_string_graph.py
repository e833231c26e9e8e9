"""Every string op built into graphs: each golden case of ``string_cases.py`` run again inside a
``tf.function`` and in a ``tf.Graph`` with ``Session.run``, against TF 2.21's recorded value.

This is the string ops' graph-vs-eager coverage (``tests/graph/op_catalog.py`` lists them as
covered here): it builds a node of every string op row, so each row's shape function and its
kernel run in graphs too, and the last test checks that every row was built.
"""
import json
import os
import sys

import numpy as np
import pytest

import engine as tf
from engine.framework.registry import registered_ops
from engine.ops import regex_ops, string_codec_ops, string_hash_ops, string_ops, unicode_ops

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from string_cases import CASES, describe  # noqa: E402
from string_cases import GRAPH_CASES as BUILD_CASES  # noqa: E402

with open(os.path.join(HERE, "string_goldens.json"), encoding="utf-8") as f:
    GOLDENS = json.load(f)


def _graph_cases():
    """Cases with a tensor (or ragged) result, built from tensors only (no Python-level results)."""
    keep = []
    for key, expr in CASES.items():
        want = GOLDENS[key]
        eager_only = any(w in expr for w in ("tf.function", "Dataset", "pickle"))
        if "error" in want or "python" in want or "list" in want or eager_only:
            continue
        if "==" in expr:   # (in a tf.Graph, ``==`` compares tensors by identity, in TF too)
            continue
        keep.append(key)
    return sorted(keep)


GRAPH_CASES = _graph_cases()
BUILT = set()


def _nest(values, nested_splits):
    """A ragged value's nested list from its flat values and row splits (outermost first)."""
    for splits in reversed(nested_splits):
        values = [values[a:b] for a, b in zip(splits[:-1], splits[1:])]
    return values


def _string_rows():
    rows = set()
    for module in (string_ops, regex_ops, string_hash_ops, string_codec_ops, unicode_ops):
        for value in vars(module).values():
            if type(value).__name__ == "OpDef":
                rows.add(value.name)
    return rows


@pytest.mark.parametrize("key", GRAPH_CASES)
def test_case_in_a_session_graph(key):
    want = GOLDENS[key]
    graph = tf.Graph()
    with graph.as_default():
        result = eval(CASES[key], {"tf": tf, "np": np})  # noqa: S307
        BUILT.update(op.type for op in graph.get_operations())
    with tf.compat.v1.Session(graph=graph) as sess:
        if "ragged" in want:
            values, splits = sess.run([result.flat_values, list(result.nested_row_splits)])
            assert repr(_nest(values.tolist(), [s.tolist() for s in splits])) == want["value"]
            return
        value = sess.run(result)
    assert result.dtype.name == want["dtype"]
    assert result.shape.is_compatible_with(want["shape"]), (result.shape, want["shape"])
    assert repr(value.tolist() if hasattr(value, "tolist") else value) == want["value"]
    if want["dtype"] == "string":   # fetched as TF fetches strings: bytes, or an object array of bytes
        assert isinstance(value, bytes) if want["shape"] == [] else value.dtype == object


@pytest.mark.parametrize("key", [k for k in GRAPH_CASES if "ragged" not in GOLDENS[k]])
def test_case_in_tf_function(key):
    got = describe(tf.function(lambda: eval(CASES[key], {"tf": tf, "np": np})))  # noqa: S307
    assert got == GOLDENS[key]


def test_every_string_op_was_built_in_a_graph():
    if len(BUILT) < 5:
        pytest.skip("runs after the session cases (run the whole file)")
    assert _string_rows() - BUILT == set()


def test_string_ops_are_not_differentiable():
    rows = registered_ops()
    for name in _string_rows():
        assert rows[name].grad is None, name
    x = tf.constant([1.5, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.strings.to_number(tf.strings.as_string(x))
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize("key", sorted(BUILD_CASES))
def test_graph_construction_matches_tf(key):
    """Static shapes and node-creation errors in a tf.Graph, as TF's shape functions and op definitions give them."""
    with tf.Graph().as_default():
        got = describe(lambda: eval(BUILD_CASES[key], {"tf": tf, "np": np}))  # noqa: S307
    assert got == GOLDENS[key]
