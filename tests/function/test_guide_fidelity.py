"""The official TF guides' cells run under the engine print what they print under TF 2.21.

The cells are in ``guide_cases.py`` (the guide's own code: ``site/en/guide/function.ipynb``, and
``intro_to_modules.ipynb``'s ``FlexibleDense``); ``guide_goldens.json`` holds what real TF printed,
recorded by ``record_guide_goldens.py`` (``/tmp/tfvenv/bin/python tests/function/record_guide_goldens.py``).
What they pin down:

* an iterator passed to a ``tf.function`` is a resource input: ``next(it)`` advances it on every call
  (1, 2, 3, not 1, 1, 1), iterators of one element spec share a trace, the end is ``OutOfRangeError``;
* ``tf.py_function``/``tf.numpy_function`` run their Python on every call, ``tf.print`` prints on every call;
* ``a + a`` on string tensors concatenates, eagerly and in a trace;
* TF's errors: a ConcreteFunction call that fits neither its structured nor its flat signature
  (``TypeError``, both reasons), a tensor leaked from a trace and used later (``TypeError``, "out of
  scope"), a Keras layer called on a Python list (``ValueError``, Keras 3's message).
"""
import contextlib
import io
import json
import os
import sys

import pytest

import engine as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import guide_cases  # noqa: E402

with open(os.path.join(HERE, "guide_goldens.json")) as _f:
    GOLDENS = json.load(_f)


def test_goldens_cover_every_case():
    assert GOLDENS["tensorflow"] == "2.21.0"
    assert set(GOLDENS["cases"]) == set(guide_cases.CASES)


@pytest.mark.parametrize("name", sorted(guide_cases.CASES))
def test_guide_cell_prints_what_tf_prints(name):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        guide_cases.CASES[name](tf)
    assert guide_cases.normalize(out.getvalue()).splitlines() == GOLDENS["cases"][name]


# --- the mechanisms behind those outputs ---------------------------------------------------------
def test_iterator_argument_is_a_resource_input_read_by_iterator_get_next():
    @tf.function
    def consume(iterator):
        return next(iterator)

    iterator = iter(tf.data.Dataset.range(5))
    concrete = consume.get_concrete_function(iterator)
    assert [(t.dtype, t.shape.as_list()) for t in concrete.inputs] == [(tf.dtypes.resource, [])]   # TF 2.21
    assert [op.type for op in concrete.graph.get_operations()][:2] == ["Placeholder", "IteratorGetNext"]
    assert [int(concrete(iterator)) for _ in range(2)] == [0, 1]
    assert int(next(iterator)) == 2                       # the eager iterator continues where the graph left
    with tf.GradientTape() as tape:                       # under a tape: recorded without the iterator input
        x = tf.constant(3.0)
        tape.watch(x)
        y = tf.function(lambda it, v: tf.cast(next(it), tf.float32) * v)(iterator, x)
    assert float(y) == 9.0 and float(tape.gradient(y, x)) == 3.0


def test_iterator_spec_keys_retracing():
    spec = tf.data.IteratorSpec(tf.TensorSpec([], tf.int32))
    assert spec == iter(tf.data.Dataset.from_tensor_slices([1, 2]))._function_input_spec()
    assert spec != iter(tf.data.Dataset.from_tensor_slices([1.0]))._function_input_spec()
    assert repr(spec) == "IteratorSpec(TensorSpec(shape=(), dtype=tf.int32, name=None),)"   # TF 2.21


def test_py_function_decorator_is_not_converted_by_autograph():
    calls = []

    @tf.py_function(Tout=tf.int32)
    def count(x):
        calls.append(int(x))
        return x + 1

    f = tf.function(lambda x: count(x), autograph=True)
    assert [int(f(tf.constant(i))) for i in range(3)] == [1, 2, 3] and calls == [0, 1, 2]
    assert "EagerPyFunc" in [op.type for op in f.get_concrete_function(tf.constant(0)).graph.get_operations()]


def test_string_add_in_a_graph_and_its_errors():
    @tf.function
    def join(a, b):
        return a + b
    assert join(tf.constant(["a", "b"]), tf.constant("!")).numpy().tolist() == [b"a!", b"b!"]
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):   # TF: ValueError at trace
        join(tf.constant(["a", "b"]), tf.constant(["a", "b", "c"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes: \\[2\\] vs. \\[3\\]"):
        tf.constant(["a", "b"]) + tf.constant(["a", "b", "c"])


def test_concrete_function_flat_signature_accepts_tensors_by_name():
    @tf.function
    def evaluate(model, x):
        return model.weight * x

    class Model:
        weight = 2.0
    concrete = evaluate.get_concrete_function(Model(), tf.constant(10.0))
    assert float(concrete(tf.constant(3.0))) == 6.0          # guide cell 114: the flat signature, (x)
    assert float(concrete(x=tf.constant(4.0))) == 8.0
    with pytest.raises(TypeError, match=r"evaluate\(x\): expected argument #0\(zero-based\) to be a Tensor"):
        concrete("x")


def test_leaked_tensor_in_a_plain_graph_keeps_the_graph_error():
    g = tf.Graph()
    with g.as_default():
        t = tf.constant(1.0)
    with pytest.raises(TypeError, match="called eagerly on symbolic tensor"):
        t + 1.0
