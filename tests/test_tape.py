"""GradientTape semantics, checked against values recorded from TensorFlow 2.21."""
import gc
import weakref

import numpy as np
import pytest

import engine as tf
from gradcheck import check_gradients, check_second_order


def test_seed_cubic_gradient_is_twelve():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x ** 3
    dy_dx = tape.gradient(y, x)
    assert dy_dx.dtype == tf.float32
    assert float(dy_dx) == 12.0


def test_watched_constant():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0


def test_unwatched_constant_gives_none():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_unconnected_zero():
    x = tf.constant(3.0)
    other = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, other, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])
    assert g.dtype == tf.float32


def test_unconnected_zero_accepts_string():
    x, other = tf.constant(3.0), tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, other, unconnected_gradients="zero")) == 0.0


def test_second_call_on_non_persistent_tape_raises():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to compute one set"):
        tape.gradient(y, x)


def test_persistent_tape_allows_many_calls():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    assert float(tape.gradient(y, x)) == 6.0
    assert float(tape.gradient(z, x)) == 27.0
    assert float(tape.gradient(y, x)) == 6.0


def test_integer_source_gives_none():
    x = tf.constant(3)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x) is None


def test_cast_to_int_blocks_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(x, tf.int32)
    assert tape.gradient(y, x) is None


def test_non_scalar_target_is_summed():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stack([x, 2 * x])
    assert float(tape.gradient(y, x)) == 3.0


def test_list_of_targets_is_summed():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = [x * x, x * 3]
    assert float(tape.gradient(y, x)) == 9.0


def test_output_gradients_seed():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x, output_gradients=tf.constant(2.0))) == 12.0


def test_sources_keep_structure():
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = w * w
    g = tape.gradient(y, {"a": w, "b": [w, (w,)]})
    assert set(g) == {"a", "b"}
    assert isinstance(g["b"], list) and isinstance(g["b"][1], tuple)
    assert float(g["a"]) == 4.0 and float(g["b"][1][0]) == 4.0


def test_trainable_and_non_trainable_variables():
    w = tf.Variable(2.0)
    u = tf.Variable(1.0, trainable=False)
    with tf.GradientTape() as tape:
        y = w * u
    gw, gu = tape.gradient(y, [w, u])
    assert float(gw) == 1.0 and gu is None
    assert tape.watched_variables() == (w,)


def test_watch_accessed_variables_false():
    w = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = w * w
    assert tape.gradient(y, w) is None
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = w * w
    assert float(tape.gradient(y, w)) == 4.0


def test_watch_rejects_non_tensors():
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError, match="not tf.Tensor or tf.Variable"):
            tape.watch(None)


def test_stop_recording():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            y = x * x
        z = x + y
    assert float(tape.gradient(z, x)) == 1.0


def test_stop_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stop_gradient(x * x) + x
    assert float(tape.gradient(y, x)) == 1.0


def test_reset_forgets_records():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        z = x * 5.0
    assert float(tape.gradient(z, x)) == 5.0
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        z = x * 5.0
    assert tape.gradient(z, x) is None  # the watch was forgotten too
    assert tape.gradient(y, x) is None  # and so was y's record


def test_reset_outside_context_raises():
    tape = tf.GradientTape()
    with pytest.raises(ValueError, match="Tape is not recording"):
        tape.reset()


def test_reentering_a_tape_keeps_recording():
    x = tf.constant(3.0)
    tape = tf.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    with tape:
        z = y * x
    assert float(tape.gradient(z, x)) == 27.0


def test_value_used_twice_accumulates():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        a = x * 3.0
        y = a * a + a  # dy/dx = (2a + 1) * 3 = 39
    assert float(tape.gradient(y, x)) == 39.0


def test_gradient_wrt_intermediate():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = x * 3.0
        y = a * a
    assert float(tape.gradient(y, a)) == 12.0
    assert float(tape.gradient(y, x)) == 36.0


def test_nested_tapes_second_derivative():
    w = tf.Variable(2.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = w ** 3
        d = inner.gradient(y, w)
    assert float(d) == 12.0
    assert float(outer.gradient(d, w)) == 12.0


def test_third_derivative():
    x = tf.constant(1.5, dtype=tf.float64)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x ** 4
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert float(d3) == pytest.approx(24 * 1.5)


def test_persistent_gradient_inside_its_context_is_recorded_on_the_tape():
    """TF 2.21 (with a warning): a gradient computed inside a persistent tape's context is recorded on that
    tape, so the tape can differentiate it again (2.0 for x * x)."""
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)
    assert float(g) == 4.0
    assert float(tape.gradient(g, x)) == 2.0


def test_jacobian():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    j = tape.jacobian(y, x)
    np.testing.assert_array_equal(j.numpy(), np.diag([2.0, 4.0, 6.0]))


def test_jacobian_shape_and_structure():
    x = tf.constant(np.arange(6.0).reshape(2, 3))
    w = tf.Variable(np.ones((3, 2)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.matmul(x, w)
    jx, jw = tape.jacobian(y, [x, w])
    assert jx.shape == (2, 2, 2, 3) and jw.shape == (2, 2, 3, 2)
    # d y[i, j] / d x[k, l] = w[l, j] if i == k
    np.testing.assert_allclose(jx.numpy()[0, 1, 0], np.ones(3))
    np.testing.assert_allclose(jx.numpy()[0, 1, 1], np.zeros(3))


def test_batch_jacobian():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    bj = tape.batch_jacobian(y, x)
    np.testing.assert_array_equal(bj.numpy(), [[[2, 0], [0, 4]], [[6, 0], [0, 8]]])


def test_custom_gradient_clips():
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.clip_by_value(dy, -0.1, 0.1)
        return x * 1.0, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = clip_grad(x) * 5
    assert float(tape.gradient(y, x)) == pytest.approx(0.1)


def test_custom_gradient_log1pexp_is_stable():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == 1.0


def test_custom_gradient_with_variables():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            return dy * 10.0, [dy * 100.0]
        return x * v, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x)
    gx, gv = tape.gradient(y, [x, v])
    assert float(gx) == 10.0 and float(gv) == 100.0


def test_tape_records_only_watched_ops():
    x = tf.constant(1.0)
    c = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        unrelated = c * c
        y = x * c
    assert [e.type for e in tape._entries] == ["Mul"]
    del unrelated, y


def test_variable_read_record_keeps_the_shape_read_then():
    """A read's record shows the value as it was read, not the variable's (here unknown) static shape,
    and the gradient still flows to the variable itself (the read's input)."""
    v = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * 3.0)
    v.assign([1.0, 2.0, 3.0])   # a later value of another shape does not change the record
    read = tape._entries[0]
    assert read.type == "ReadVariableOp" and read.inputs[0] is v
    assert read.outputs[0].shape.as_list() == [2] and read.outputs[0].dtype == tf.float32
    g = tape.gradient(y, v)   # TF 2.21 gives the gradient of the value read: [3, 3]
    assert g.shape.as_list() == [2] and g.numpy().tolist() == [3.0, 3.0]


def test_tape_does_not_keep_values_the_gradient_does_not_need():
    """Add's gradient needs only shapes: the tape must not keep its big inputs alive."""
    x = tf.constant(np.ones(1000))
    big = tf.constant(np.ones(1000))
    ref = weakref.ref(big)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x + big
    del big
    gc.collect()
    assert ref() is None
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.ones(1000))


def test_tape_keeps_values_mul_needs():
    x = tf.constant(np.full(3, 2.0))
    other = tf.constant(np.full(3, 5.0))
    ref = weakref.ref(other)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * other
    del other
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [5.0, 5.0, 5.0])


def test_non_persistent_tape_frees_records_after_gradient():
    x = tf.constant(np.ones(10))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.exp(x)
    kept = weakref.ref(tape._entries[0].outputs[0])  # Exp keeps its output for the gradient
    total = tf.reduce_sum(y)
    del y
    tape.gradient(total, x)
    gc.collect()
    assert tape._entries is None
    assert kept() is None


def test_gradient_of_broadcast_add_reduces_to_input_shape():
    check_gradients(lambda a, b: a + b, np.random.rand(3, 1), np.random.rand(4))


def test_gradient_check_composite_expression():
    check_gradients(lambda a, b: tf.reduce_sum(tf.tanh(tf.matmul(a, b)) * tf.exp(-(a @ b))),
                    np.random.rand(2, 3), np.random.rand(3, 2))


def test_second_order_composite():
    check_second_order(lambda x: tf.reduce_sum(tf.sigmoid(x) * tf.sin(x)), np.array([0.3, -1.2, 2.0]))


def test_tapes_are_per_thread():
    import threading
    x = tf.constant(2.0)
    seen = {}
    with tf.GradientTape() as tape:
        tape.watch(x)

        def other_thread():
            seen["y"] = x * x  # recorded on no tape: tapes are thread-local
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
    assert tape.gradient(seen["y"], x) is None


def test_gradient_sources_must_be_tensors():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises((ValueError, TypeError)):
        tape.gradient(y, [None])


def test_a_tape_inside_tf_function_puts_its_gradient_ops_under_gradient_tape():
    # TF 2.21 names them gradient_tape/<forward op>/<op>: gradient_tape/MatMul/MatMul, gradient_tape/mul/Mul
    import engine as tf
    w = tf.Variable([[1.0, 2.0]])

    @tf.function(autograph=False)
    def step(x):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.matmul(x, w) * 3.0)
        return t.gradient(y, w)

    x = tf.constant([[1.0], [2.0]])
    names = [op.name for op in step.get_concrete_function(x).graph.get_operations()]
    assert "gradient_tape/MatMul/MatMul" in names and "gradient_tape/mul/Mul" in names, names
    forward = names[:names.index("Sum") + 1]
    assert not any(n.startswith("gradient_tape/") for n in forward)
    assert step(x).numpy().tolist() == [[9.0, 9.0]]
