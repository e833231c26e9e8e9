"""Signatures as TF 2.21 prints them, what ``Variable.assign`` returns, and saving what the guides save.

The cases are ``signature_cases.py`` (the guides' code: guide/function, guide/variable, guide/saved_model,
guide/checkpoint); ``signature_goldens.json`` holds what real TF 2.21 returned for them, recorded by
``record_signature_goldens.py`` (``/tmp/tfvenv/bin/python tests/function/record_signature_goldens.py``).
"""
import json
import os
import sys

import pytest

import engine as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import signature_cases  # noqa: E402

with open(os.path.join(HERE, "signature_goldens.json")) as _f:
    GOLDENS = json.load(_f)


def test_goldens_cover_every_case():
    assert GOLDENS["tensorflow"] == "2.21.0"
    assert set(GOLDENS["cases"]) == set(signature_cases.CASES)


@pytest.mark.parametrize("name", sorted(signature_cases.CASES))
def test_case_matches_tf(name):
    got = json.loads(json.dumps(signature_cases.run(tf, name), default=str))
    want = GOLDENS["cases"][name]
    for key in want:
        assert got[key] == want[key], f"{name}[{key!r}]:\n{got[key]}\n!=\n{want[key]}"


def test_unread_variable_is_a_view_of_the_variable():
    v = tf.Variable(1.0)
    r = v.assign(2.0)
    assert r.dtype == v.dtype and r.shape == v.shape
    v.assign(7.0)
    assert float(r.numpy()) == 7.0          # reads the variable now, as TF's _UnreadVariable
    assert float(r.read_value()) == 7.0
    r.assign_add(1.0)                        # writes go to the variable
    assert float(v.numpy()) == 8.0
    with tf.GradientTape() as tape:
        y = v.assign(3.0) * 2.0
    assert float(tape.gradient(y, v)) == 2.0


def test_variable_is_a_factory_of_resource_variables():
    v = tf.Variable(1.0)
    assert type(v).__name__ == "ResourceVariable"
    assert isinstance(v, tf.Variable)
    assert issubclass(type(v), tf.Variable)
    assert isinstance(tf.Variable, type)


def test_capture_lists_each_captured_variable():
    a, b = tf.Variable(1.0), tf.Variable(2.0)

    @tf.function
    def f(x):
        return x * a + b

    text = f.get_concrete_function(tf.constant(1.0)).pretty_printed_signature()
    captures = text.split("Captures:\n")[1].splitlines()
    assert captures == [f"  {id(a)}: TensorSpec(shape=(), dtype=tf.resource, name=None)",
                        f"  {id(b)}: TensorSpec(shape=(), dtype=tf.resource, name=None)"]


def _clip_module():
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.clip_by_norm(dy, 0.5)
        return x * 1.0, grad

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return clip_grad(x * 3.0)
    return M()


def _grad(fn, x=2.0):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return float(tape.gradient(y, x))


def test_custom_gradient_without_saving_it(tmp_path):
    """``experimental_custom_gradients=False``: the loaded function's gradient is its ops' own (TF would
    use the gradient function if it is registered in the loading process; the engine never does)."""
    m = _clip_module()
    assert _grad(m.f) == 1.5
    tf.saved_model.save(m, str(tmp_path / "m"),
                        options=tf.saved_model.SaveOptions(experimental_custom_gradients=False))
    assert _grad(tf.saved_model.load(str(tmp_path / "m")).f) == 3.0


def test_custom_gradient_in_graph_with_tf_gradients():
    @tf.custom_gradient
    def double_grad(x):
        return tf.identity(x), lambda dy: dy * 2.0

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = double_grad(x) * 3.0
        return tape.gradient(y, x)

    assert float(f(tf.constant(1.0))) == 6.0


def test_iterator_checkpoint_counts_elements_taken_in_a_function(tmp_path):
    it = iter(tf.data.Dataset.range(10))

    @tf.function
    def take(iterator):
        return next(iterator)

    assert [int(take(it)) for _ in range(4)] == [0, 1, 2, 3]
    ckpt = tf.train.Checkpoint(it=it)
    path = ckpt.save(str(tmp_path / "c"))
    next(it)
    ckpt.restore(path)
    assert int(next(it)) == 4
    assert ("it/.ATTRIBUTES/ITERATOR_STATE", []) in tf.train.list_variables(path)
