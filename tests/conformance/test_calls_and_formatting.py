"""Behaviour recorded with TF 2.21: argument binding and tracing counts, input_signature conversion,
run_functions_eagerly, tensor formatting, and a Variable as a gradient target."""
import numpy as np
import pytest

import engine as tf


def test_arguments_are_bound_to_the_signature_before_keying():
    traces = []

    @tf.function
    def mult(x, y=2):
        traces.append(1)
        return x * y

    t = tf.constant(3.0)
    results = [mult(t), mult(t, y=2), mult(t, 2), mult(x=t)]
    assert [float(r) for r in results] == [6.0] * 4
    assert mult.experimental_get_tracing_count() == 1 and len(traces) == 1    # TF: 1

    @tf.function
    def kw(x, y):
        return x + y

    kw(t, t), kw(x=t, y=t), kw(t, y=t), kw(y=t, x=t)
    assert kw.experimental_get_tracing_count() == 1                           # TF: 1
    with pytest.raises(TypeError):
        kw(t)


def test_input_signature_converts_python_values_and_arrays_to_the_spec_dtype():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def g(x):
        return x * 2

    for value in ([1.0, 2.0], [1, 2], np.array([1.0, 2.0]), tf.constant([1.0, 2.0])):
        r = g(value)
        assert r.dtype == tf.float32 and r.numpy().tolist() == [2.0, 4.0]
    assert g.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError):
        g(tf.constant([1.0, 2.0], dtype=tf.float64))     # a float64 *tensor* is not converted


def test_run_functions_eagerly_runs_the_python_function():
    seen = []

    @tf.function
    def f(x):
        seen.append(tf.executing_eagerly())
        return x * 2

    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        f(tf.constant(1.0))
        f(tf.constant(2.0))
        assert f.experimental_get_tracing_count() == 0 and seen == [True, True]
    finally:
        tf.config.run_functions_eagerly(False)
    f(tf.constant(1.0))
    f(tf.constant(2.0))
    assert f.experimental_get_tracing_count() == 1 and seen == [True, True, False]
    assert not tf.config.functions_run_eagerly()


def test_format_and_eval_of_eager_tensors():
    x = tf.constant(3.14159)
    assert f"{x:.2f}" == "3.14" and f"{x}" == "3.141590118408203" and f"{tf.constant(7):>4}|" == "   7|"
    assert format(tf.constant([1.5, 2.5])) == "[1.5 2.5]"
    with pytest.raises(TypeError):
        f"{tf.constant([1.5, 2.5]):.1f}"                   # NumPy's rule, as in TF
    with pytest.raises(NotImplementedError, match="eval is not supported when eager execution is enabled"):
        x.eval()


def test_a_variable_target_is_the_variable_itself():
    v = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        v * v
    assert float(tape.gradient(v, v)) == 1.0               # TF: 1.0, even though v*v is not the target
    with tf.GradientTape(persistent=True) as tape:
        y = v * v
    assert float(tape.gradient([y, v], v)) == 7.0 and float(tape.gradient(y, v)) == 6.0


def test_restored_functions_fill_in_python_defaults(tmp_path):
    class M(tf.Module):
        @tf.function
        def scale(self, x, factor=3.0):
            return x * factor

    m = M()
    m.scale(tf.constant([1.0, 2.0]))
    tf.saved_model.save(m, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert loaded.scale(tf.constant([1.0, 2.0])).numpy().tolist() == [3.0, 6.0]
    assert loaded.scale(tf.constant([1.0, 2.0]), factor=3.0).numpy().tolist() == [3.0, 6.0]


def test_switch_case_traces_each_branch_once():
    """TF 2.21: [0, 1, 1, 1] and side effects b0 b1 (out-of-range indices run the last branch)."""
    log = []

    @tf.function
    def f(i):
        return tf.switch_case(i, [lambda: (log.append("b0"), tf.constant(0))[1],
                                  lambda: (log.append("b1"), tf.constant(1))[1]])
    assert [int(f(tf.constant(k))) for k in (0, 1, 5, -1)] == [0, 1, 1, 1]
    assert log == ["b0", "b1"]


def test_variables_passed_as_arguments_are_keyed_by_dtype_and_shape():
    """TF 2.21: one trace for two float32 scalar variables; a new shape traces again; f(a, a) != f(a, b)."""
    traces = []

    @tf.function
    def f(v, x):
        traces.append(1)
        v.assign_add(x)
        return v.read_value()

    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable([1.0, 2.0])
    assert float(f(a, 1.0)) == 2.0 and float(f(b, 1.0)) == 3.0 and f.experimental_get_tracing_count() == 1
    assert f(c, [1.0, 1.0]).numpy().tolist() == [2.0, 3.0] and f.experimental_get_tracing_count() == 2
    assert float(f(a, 1.0)) == 3.0 and float(a.numpy()) == 3.0 and float(b.numpy()) == 3.0
    assert f.experimental_get_tracing_count() == 2 and len(traces) == 2

    @tf.function
    def two(v, w):
        v.assign_add(w)
        return v.read_value()
    p, q = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    assert two(p, p).numpy().tolist() == [2.0, 4.0]          # the same variable twice
    assert two(p, q).numpy().tolist() == [5.0, 8.0]
    assert two.experimental_get_tracing_count() == 2


def test_gradients_through_variable_arguments():
    @tf.function
    def loss(v, x):
        return tf.reduce_sum(v * v * x)

    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    with tf.GradientTape() as tape:
        value = loss(b, tf.constant([2.0, 2.0]))
    grads = tape.gradient(value, [a, b])
    assert grads[0] is None and grads[1].numpy().tolist() == [12.0, 16.0]
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            value = loss(a, tf.constant([1.0, 1.0]))
        g = inner.gradient(value, a)
    assert g.numpy().tolist() == [2.0, 4.0] and outer.gradient(g, a).numpy().tolist() == [2.0, 2.0]

    @tf.function
    def outer_fn(v):
        return loss(v, tf.constant([1.0, 1.0])) + 1.0
    assert float(outer_fn(a)) == 6.0 and float(outer_fn(b)) == 26.0 and outer_fn.experimental_get_tracing_count() == 1
    concrete = loss.get_concrete_function(a, tf.constant([1.0, 1.0]))
    assert float(concrete(b, tf.constant([1.0, 1.0]))) == 25.0
    assert loss.experimental_get_tracing_count() == 1


def test_mixing_a_float_scalar_into_an_int_tensor():
    """TF 2.21: only ``x + float`` / ``tf.add`` let the op refuse the mix (InvalidArgumentError); the other
    operators refuse to convert the Python value (TypeError)."""
    x = tf.constant([1, 2])
    for f in (lambda: x + 1.5, lambda: x + 2.0, lambda: tf.add(x, 2.0), lambda: tf.add(1, 2.5)):
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot compute AddV2 as input #1\(zero-based\) "
                                                                 r"was expected to be a int32 tensor but is a float"):
            f()
    for f in (lambda: x * 1.5, lambda: x - 1.5, lambda: 1.5 + x, lambda: 2.0 * x, lambda: tf.maximum(x, 1.5)):
        with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32|Cannot convert 2.0"):
            f()


def test_a_tensor_leaked_out_of_a_loop_body_is_inaccessible():
    """TF 2.21: InaccessibleTensorError (a ValueError) when tracing, 'is out of scope and cannot be used here'."""
    @tf.function
    def f(n):
        out = []
        for i in tf.range(n):
            out.append(i * 2)
        return out

    with pytest.raises(ValueError, match="is out of scope and cannot be used here") as info:
        f(tf.constant(3))
    assert type(info.value).__name__ == "InaccessibleTensorError"
    assert not hasattr(tf.errors, "InaccessibleTensorError")     # as in TF


def test_a_variable_has_no_len_but_iterates_its_value():
    """TF 2.21: len(variable) raises TypeError ("... has no len()"); iterating reads the value."""
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(TypeError, match="has no len"):
        len(v)
    assert [float(x) for x in v] == [1.0, 2.0]
