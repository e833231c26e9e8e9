"""tf.function: tracing counts and semantics, with golden values recorded from TensorFlow 2.21."""
import logging

import numpy as np
import pytest

import engine as tf


def traces(f, calls):
    for call in calls:
        call()
    return f.experimental_get_tracing_count()


def test_python_scalars_are_keyed_by_value():
    f = tf.function(lambda x: x)
    assert traces(f, [lambda: f(1), lambda: f(2), lambda: f(1)]) == 2  # TF 2.21: 2


def test_equal_python_numbers_share_a_trace():
    f = tf.function(lambda x: x)
    assert traces(f, [lambda: f(1), lambda: f(1.0)]) == 1  # TF 2.21: 1 (1 == 1.0)


def test_tensors_are_keyed_by_dtype_and_shape():
    f = tf.function(lambda x: x * 2)
    calls = [lambda: f(tf.constant([1.0])), lambda: f(tf.constant([2.0])), lambda: f(tf.constant([1.0, 2.0])),
             lambda: f(tf.constant([1]))]
    assert traces(f, calls) == 3  # TF 2.21: 3


def test_numpy_arrays_are_keyed_like_tensors():
    f = tf.function(lambda x: x)
    assert traces(f, [lambda: f(np.ones(2)), lambda: f(np.zeros(2)), lambda: f(np.ones(3))]) == 2  # TF: 2


def test_reduce_retracing_relaxes_shapes_after_the_first_retrace():
    f = tf.function(lambda x: x, reduce_retracing=True)
    assert traces(f, [lambda: f(tf.ones([1])), lambda: f(tf.ones([2])), lambda: f(tf.ones([3]))]) == 2  # TF: 2
    concrete = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert concrete.inputs[0].shape.as_list() == [None]


def test_input_signature_traces_once_and_checks_calls():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x + 1

    assert f(tf.constant([1.0])).numpy().tolist() == [2.0]
    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match=r"Binding inputs to tf.function failed due to `Can not cast "
                                        r"TensorSpec\(shape=\(1,\), dtype=tf.int32, name=None\) to "
                                        r"TensorSpec\(shape=\(None,\), dtype=tf.float32, name=None\)`"):
        f(tf.constant([1]))
    with pytest.raises(TypeError, match="Can not cast TensorSpec\\(shape=\\(1, 1\\)"):
        f(tf.constant([[1.0]]))


def test_nested_structures_are_keyed_by_structure():
    f = tf.function(lambda d: d["a"] + d["b"])
    assert traces(f, [lambda: f({"a": tf.constant(1.0), "b": tf.constant(2.0)}),
                      lambda: f({"a": tf.constant(3.0), "b": tf.constant(4.0)})]) == 1
    g = tf.function(lambda xs: xs)
    assert traces(g, [lambda: g([1, 2]), lambda: g([1, 2]), lambda: g([1, 2, 3])]) == 2  # TF: 2


def test_python_bool_flag_selects_a_branch_at_trace_time():
    f = tf.function(lambda x, flag: x if flag else -x)
    assert float(f(tf.constant(1.0), True)) == 1.0
    assert float(f(tf.constant(1.0), False)) == -1.0
    f(tf.constant(2.0), True)
    assert f.experimental_get_tracing_count() == 2


def test_tracing_is_symbolic_and_side_effects_run_once(capsys):
    seen = []

    @tf.function
    def g(x):
        seen.append(x)
        assert not tf.executing_eagerly()
        tf.print("run", x)
        return x * 2

    assert float(g(tf.constant(1.0))) == 2.0
    assert float(g(tf.constant(2.0))) == 4.0
    assert len(seen) == 1 and isinstance(seen[0], tf.Tensor) and seen[0].name == "x:0"
    assert str(seen[0]) == 'Tensor("x:0", shape=(), dtype=float32)'
    err = capsys.readouterr().err
    assert err.splitlines() == ["run 1", "run 2"]  # tf.print runs on every call, to stderr


def test_tf_print_formats_like_tf(capsys):
    tf.print("v:", tf.constant([1.0, 2.5]), tf.constant(3))
    assert capsys.readouterr().err == "v: [1 2.5] 3\n"


def test_variable_updates_inside_functions_and_ordering():
    v = tf.Variable(2.0)

    @tf.function
    def h(x):
        v.assign_add(x)       # runs before the read below: automatic control dependencies
        return v * 3

    assert float(h(tf.constant(1.0))) == 9.0 and float(v) == 3.0
    assert float(h(tf.constant(1.0))) == 12.0 and float(v) == 4.0
    assert h.experimental_get_tracing_count() == 1


def test_side_effect_without_outputs_still_runs():
    v = tf.Variable(0)

    @tf.function
    def bump():
        v.assign_add(1)

    bump()
    bump()
    assert int(v) == 2


def test_variable_created_on_first_trace_only():
    """TF 2.21: a first trace that creates variables is traced again at once; a function that creates a
    variable on every trace fails on its FIRST call (recorded: ValueError, tracing count 2)."""
    traces = []

    @tf.function
    def h(x):
        traces.append(1)
        v = tf.Variable(1.0)
        return x + v

    with pytest.raises(ValueError, match="tf.function only supports singleton tf.Variables created on the "
                                         "first call"):
        h(tf.constant(1.0))
    assert len(traces) == 2 and h.experimental_get_tracing_count() == 2


def test_variable_created_once_and_reused():
    class Counter(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(0.0)
            self.v.assign_add(x)
            return self.v.read_value()

    c = Counter()
    assert float(c(tf.constant(1.0))) == 1.0
    assert float(c(tf.constant(2.0))) == 3.0
    assert len(c.trainable_variables) == 1
    assert c.__call__.experimental_get_tracing_count() == 2   # TF 2.21: traced again after creating v


def test_methods_get_one_cache_per_instance():
    class Model(tf.Module):
        def __init__(self, k):
            super().__init__()
            self.k = tf.Variable(k)

        @tf.function
        def __call__(self, x):
            return x * self.k

    a, b = Model(2.0), Model(3.0)
    assert float(a(tf.constant(1.0))) == 2.0 and float(b(tf.constant(1.0))) == 3.0
    assert a.__call__.experimental_get_tracing_count() == 1
    assert b.__call__.experimental_get_tracing_count() == 1


def test_concrete_function_api():
    @tf.function
    def f(x):
        return x * 2

    concrete = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert concrete.structured_input_signature == ((tf.TensorSpec([None], tf.float32, name="x"),), {})
    assert concrete.structured_outputs.shape.as_list() == [None]
    assert isinstance(concrete.graph, tf.Graph)
    assert concrete(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input #0\(zero-based\) was expected to be a "
                                                              r"float tensor but is a int32 tensor"):
        concrete(tf.constant([1]))
    assert repr(f.get_concrete_function(tf.constant(1.0))).startswith(
        "<ConcreteFunction (x: TensorSpec(shape=(), dtype=tf.float32, name=None)) -> "
        "TensorSpec(shape=(), dtype=tf.float32, name=None) at ")


def test_retracing_warning_matches_tf(caplog):
    @tf.function
    def r(x):
        return x

    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        for i in range(7):
            r(i)
    messages = [rec.getMessage() for rec in caplog.records if "retracing" in rec.getMessage()]
    assert len(messages) == 2  # TF 2.21 warns twice for seven retracing calls
    assert messages[0].startswith("5 out of the last 5 calls to <function")
    assert messages[1].startswith("6 out of the last 6 calls to <function")
    assert r.experimental_get_tracing_count() == 7


def test_gradient_through_a_function_call():
    @tf.function
    def sq(x):
        return x * x

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = sq(x)
    assert float(tape.gradient(y, x)) == 6.0
    w = tf.Variable([1.0, 2.0])

    @tf.function
    def dot(x):
        return tf.reduce_sum(w * x)

    with tf.GradientTape() as tape:
        y = dot(tf.constant([3.0, 4.0]))
    assert tape.gradient(y, w).numpy().tolist() == [3.0, 4.0]


def test_backward_does_not_repeat_side_effects():
    v = tf.Variable(1.0)
    calls = tf.Variable(0.0)

    @tf.function
    def f(x):
        calls.assign_add(1.0)
        return x * v

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gv = tape.gradient(y, [x, v])
    assert (float(gx), float(gv)) == (1.0, 2.0)
    assert float(calls) == 1.0


def test_train_step_traces_once_and_learns():
    w = tf.Variable(tf.zeros([3, 1]))
    b = tf.Variable(0.0)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        return loss

    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 3)).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
    losses = [float(train_step(xs, ys)) for _ in range(200)]
    assert losses[-1] < 1e-6 * losses[0]
    assert train_step.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(w.numpy().ravel(), [1.0, -2.0, 0.5], atol=1e-4)


def test_returning_an_input_and_python_values():
    f = tf.function(lambda x: (x, None, 3))
    out = f(tf.constant(1.0))
    assert float(out[0]) == 1.0 and out[1] is None and int(out[2]) == 3


def test_nested_functions_are_inlined():
    @tf.function
    def inner(x):
        return x * 2

    @tf.function
    def outer(x):
        return inner(x) + 1

    assert float(outer(tf.constant(3.0))) == 7.0
    assert inner.experimental_get_tracing_count() == 1
    ops = [op.type for op in outer.get_concrete_function(tf.constant(1.0)).graph.get_operations()]
    assert "Mul" in ops  # the callee's ops were copied into the caller's graph


def test_named_specs_name_the_placeholders():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="inp")])
    def f(x):
        return x

    concrete = f.get_concrete_function()
    assert concrete.inputs[0].name == "inp:0"
    assert concrete.structured_input_signature[0][0].name == "inp"


def test_second_order_gradients_through_a_function_call():
    @tf.function
    def cube(x):
        return x * x * x

    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    assert float(dy) == 12.0
    assert float(outer.gradient(dy, x)) == 12.0  # d2/dx2 x**3 = 6x


def test_second_order_through_a_function_reading_a_variable():
    v = tf.Variable(3.0)

    @tf.function
    def f(x):
        return v * x * x

    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)      # 2 v x = 12
    assert float(dy) == 12.0
    d2, dv = outer.gradient(dy, [x, v])
    assert (float(d2), float(dv)) == (6.0, 4.0)


def test_updates_inside_functions_keep_snapshots_and_reuse_unshared_buffers():
    v = tf.Variable(np.ones(4, np.float32))
    v.assign_add(tf.zeros(4))

    @tf.function
    def step(d):
        v.assign_sub(d)
        return v.read_value()

    step(tf.ones(4))
    pointer = v._value.__array_interface__["data"][0]
    step(tf.ones(4))
    assert v._value.__array_interface__["data"][0] == pointer  # nobody shared the buffer: updated in place
    snapshot = step(tf.ones(4))                                  # -2, and it shares the variable's buffer
    later = step(tf.ones(4))
    assert snapshot.numpy().tolist() == [-2.0] * 4              # copy on write: the snapshot kept its value
    assert later.numpy().tolist() == [-3.0] * 4
