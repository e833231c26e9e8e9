"""Conformance with the guide "Better performance with tf.function" (tensorflow.org/guide/function) and the
tf.TensorSpec and tf.autograph API pages. Golden values recorded from TF 2.21."""
import sys

import numpy as np
import pytest

import engine as tf


def test_tensor_spec_is_compatible_only_with_specs_and_tensors():
    spec = tf.TensorSpec([None, 2], tf.float32, name="a")
    assert spec.is_compatible_with(tf.ones([3, 2]))
    assert spec.is_compatible_with(tf.TensorSpec([5, 2], tf.float32))
    assert not spec.is_compatible_with(tf.ones([3, 3]))
    assert not spec.is_compatible_with(tf.ones([3, 2], tf.float64))
    # anything that is not a TensorSpec or a tf.Tensor is not compatible (TF converts nothing)
    assert not spec.is_compatible_with([[1., 2.]])
    assert not spec.is_compatible_with(np.ones([3, 2], np.float32))
    assert not spec.is_compatible_with(tf.Variable([[1., 2.]]))
    assert not tf.TensorSpec([], tf.int32).is_compatible_with(3)


def test_tensor_spec_subtypes_and_constructors():
    spec = tf.TensorSpec([None, 2], tf.float32, name="a")
    assert tf.TensorSpec([3, 2]).is_subtype_of(spec)
    assert not spec.is_subtype_of(tf.TensorSpec([3, 2]))
    assert tf.TensorSpec([3, 2]).is_subtype_of(tf.TensorSpec(None))
    assert not tf.TensorSpec([3, 2], tf.int32).is_subtype_of(tf.TensorSpec(None))
    assert repr(tf.TensorSpec.from_spec(spec)) == "TensorSpec(shape=(None, 2), dtype=tf.float32, name='a')"
    assert repr(tf.TensorSpec.from_spec(spec, name="b")) == "TensorSpec(shape=(None, 2), dtype=tf.float32, name='b')"
    assert spec.value_type is tf.Tensor
    assert repr(tf.TensorSpec.from_tensor(tf.constant([1.]), name="z")) == \
        "TensorSpec(shape=(1,), dtype=tf.float32, name='z')"
    with pytest.raises(ValueError, match="`tensor` should be a tf.Tensor, but got type"):
        tf.TensorSpec.from_tensor(tf.Variable([1.]))


def test_tensor_spec_from_symbolic_tensor_takes_the_op_name():
    seen = []

    @tf.function
    def f(x):
        seen.append(tf.TensorSpec.from_tensor(tf.identity(x, name="ident")))
        return x
    f(tf.constant([1., 2.]))
    assert seen[0].shape == (2,) and seen[0].dtype == tf.float32 and seen[0].name == "ident"


def test_autograph_api_names():
    feature = tf.autograph.experimental.Feature
    assert [f.name for f in feature] == ["ALL", "AUTO_CONTROL_DEPS", "ASSERT_STATEMENTS", "BUILTIN_FUNCTIONS",
                                         "EQUALITY_OPERATORS", "LISTS", "NAME_SCOPES"]
    assert feature.ALL.value == "ALL"
    assert tf.autograph.set_verbosity(0) is None


def test_autograph_trace_prints_while_tracing(capsys):
    @tf.function
    def f(x):
        tf.autograph.trace("tracing", 1)
        return x + 1
    f(tf.constant(1))
    f(tf.constant(2))
    assert capsys.readouterr().out == "tracing 1\n"


def test_guide_tracing_examples(capsys):
    @tf.function
    def double(a):
        print("Tracing with", a)
        return a + a
    assert double(tf.constant(1)).numpy() == 2
    assert float(double(tf.constant(1.1))) == pytest.approx(2.2)
    assert double(tf.constant(2)).numpy() == 4
    assert capsys.readouterr().out == ('Tracing with Tensor("a:0", shape=(), dtype=int32)\n'
                                       'Tracing with Tensor("a:0", shape=(), dtype=float32)\n')

    @tf.function
    def f(x):
        print("Traced with", x)
        tf.print("Executed with", x, output_stream=sys.stdout)
    f(1)
    f(1)
    f(2)
    assert capsys.readouterr().out == ("Traced with 1\nExecuted with 1\nExecuted with 1\n"
                                       "Traced with 2\nExecuted with 2\n")


def test_inside_function_no_op_and_current_name_scope(capsys):
    assert tf.inside_function() is False
    assert tf.no_op() is None
    assert tf.get_current_name_scope() == ""
    with tf.name_scope("a"):
        with tf.name_scope("b"):
            assert tf.get_current_name_scope() == "a/b"

    @tf.function
    def f(x):
        with tf.name_scope("s"):
            print(repr(tf.get_current_name_scope()), tf.inside_function())
        tf.no_op()
        return x
    assert int(f(1)) == 1
    assert capsys.readouterr().out == "'s' True\n"
    g = tf.Graph()
    with g.as_default():
        op = tf.no_op(name="nop")
        assert op.name == "nop" and op.type == "NoOp"
        assert tf.inside_function() is False


def test_top_level_assert_aliases():
    assert tf.Assert is tf.debugging.Assert
    assert tf.assert_equal is tf.debugging.assert_equal
    assert tf.assert_rank is tf.debugging.assert_rank
    assert tf.assert_less is tf.debugging.assert_less
    assert tf.assert_greater is tf.debugging.assert_greater
    assert tf.assert_equal(1, 1) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x == y did not hold"):
        tf.assert_equal(1, 2)
    assert callable(tf.no_gradient)
