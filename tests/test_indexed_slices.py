"""tf.IndexedSlices and the sparse gradients of tf.gather / tf.nn.embedding_lookup.

Golden values recorded from TensorFlow 2.21 (CPU) and pasted as literals.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import engine as tf

TABLE = [[1., 2.], [3., 4.], [5., 6.]]


def _grads(fn, source):
    with tf.GradientTape() as tape:
        if not isinstance(source, tf.Variable):
            tape.watch(source)
        y = fn(source)
    return tape.gradient(y, source)


def _assert_slices(g, indices, values, dense_shape=(3, 2)):
    assert type(g) is tf.IndexedSlices
    np.testing.assert_array_equal(g.indices.numpy(), indices)
    np.testing.assert_allclose(g.values.numpy(), values, rtol=1e-6)
    np.testing.assert_array_equal(g.dense_shape.numpy(), dense_shape)
    assert g.dense_shape.dtype == tf.int32


# --- the object itself -------------------------------------------------------------------------------
def test_parts_shape_dtype_and_str():
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([1]), tf.constant([3, 2]))
    assert s.shape == tf.TensorShape([3, 2])
    assert s.dtype == tf.float32
    assert s.device == s.values.device
    # TF 2.21: str spells out the parts; repr is the default object repr
    assert str(s) == ("IndexedSlices(indices=tf.Tensor([1], shape=(1,), dtype=int32), values=tf.Tensor([[1. 2.]], "
                      "shape=(1, 2), dtype=float32), dense_shape=tf.Tensor([3 2], shape=(2,), dtype=int32))")
    assert "IndexedSlices object at 0x" in repr(s)
    np.testing.assert_array_equal(tf.convert_to_tensor(s).numpy(), [[0., 0.], [1., 2.], [0., 0.]])


def test_without_dense_shape():
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([1]))
    assert s.dense_shape is None
    assert s.shape.rank is None                      # TF: <unknown>
    assert str(s) == ("IndexedSlices(indices=tf.Tensor([1], shape=(1,), dtype=int32), values=tf.Tensor([[1. 2.]], "
                      "shape=(1, 2), dtype=float32))")
    with pytest.raises(ValueError, match="Tensor conversion requested for IndexedSlices for argument `value` "
                                         "without dense_shape"):
        tf.convert_to_tensor(s)


def test_int64_dense_shape_kept():
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([1]), tf.constant([3, 2], tf.int64))
    assert s.dense_shape.dtype == tf.int64 and s.shape == tf.TensorShape([3, 2])


def test_arithmetic_as_tf():
    g = _grads(lambda v: tf.reduce_sum(tf.gather(v, [0, 2, 0])), tf.Variable(TABLE))
    # Python operators: only negation (TF 2.21 raises TypeError for the others)
    for op in (lambda: g * 2., lambda: 2. * g, lambda: g / 2., lambda: g + g, lambda: g + 1.):
        with pytest.raises(TypeError, match="unsupported operand"):
            op()
    _assert_slices(-g, [0, 2, 0], -np.ones((3, 2)))
    with pytest.raises(AttributeError):
        g.numpy()
    with pytest.raises(TypeError):
        len(g)
    # ops convert (densify) it
    dense2 = [[4., 4.], [0., 0.], [2., 2.]]
    np.testing.assert_array_equal(tf.multiply(g, 2.).numpy(), dense2)
    np.testing.assert_array_equal(tf.add_n([g, g]).numpy(), dense2)
    assert float(tf.reduce_sum(g)) == 6.0


# --- gradients of gather --------------------------------------------------------------------------
def test_gather_gradient_of_variable_is_indexed_slices():
    g = _grads(lambda v: tf.reduce_sum(tf.gather(v, [0, 2, 0])), tf.Variable(TABLE))
    _assert_slices(g, [0, 2, 0], np.ones((3, 2)))
    assert g.shape == tf.TensorShape([3, 2]) and g.dtype == tf.float32
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [[2., 2.], [0., 0.], [1., 1.]])


def test_gather_gradient_values_carry_upstream_gradient():
    v = tf.Variable(TABLE)
    g = _grads(lambda v: tf.reduce_sum(tf.gather(v, [[0], [2]]) * tf.constant([[[2., 3.]], [[4., 5.]]])), v)
    _assert_slices(g, [0, 2], [[2., 3.], [4., 5.]])


def test_embedding_lookup_gradient():
    g = _grads(lambda v: tf.reduce_sum(tf.nn.embedding_lookup(v, [[0, 1], [1, 1]])), tf.Variable(TABLE))
    _assert_slices(g, [0, 1, 1, 1], np.ones((4, 2)))


def test_watched_tensor_identity_and_nested_gather():
    x = tf.constant(TABLE)
    _assert_slices(_grads(lambda x: tf.reduce_sum(tf.gather(x, [0, 0])), x), [0, 0], np.ones((2, 2)))
    _assert_slices(_grads(lambda x: tf.reduce_sum(tf.gather(tf.identity(x), [1])), x), [1], [[1., 1.]])
    # TF: the inner gather receives the densified gradient of the outer one
    _assert_slices(_grads(lambda x: tf.reduce_sum(tf.gather(tf.gather(x, [0, 1]), [1])), x), [0, 1],
                   [[0., 0.], [1., 1.]])


def test_dense_where_tf_is_dense():
    x = tf.constant(TABLE)
    g = _grads(lambda x: tf.reduce_sum(tf.gather(x * 2., [0, 0])), x)
    assert isinstance(g, tf.Tensor)
    np.testing.assert_array_equal(g.numpy(), [[4., 4.], [0., 0.], [0., 0.]])
    g = _grads(lambda x: tf.reduce_sum(tf.gather(x, [0, 1], axis=1)), x)   # axis 1: dense in TF too
    assert isinstance(g, tf.Tensor)
    np.testing.assert_array_equal(g.numpy(), np.ones((3, 2)))


def test_aggregation_concatenates_or_densifies():
    v = tf.Variable(TABLE)
    with tf.GradientTape(persistent=True) as tape:
        two = tf.reduce_sum(tf.gather(v, [1])) + tf.reduce_sum(tf.gather(v, [2, 2]) * 3.)
        mixed = tf.reduce_sum(tf.gather(v, [1])) + tf.reduce_sum(v * 2.)
    _assert_slices(tape.gradient(two, v), [1, 2, 2], [[1., 1.], [3., 3.], [3., 3.]])   # TF's order
    g = tape.gradient(mixed, v)
    assert isinstance(g, tf.Tensor)
    np.testing.assert_array_equal(g.numpy(), [[2., 2.], [3., 3.], [2., 2.]])
    (g,) = tape.gradient([two], [v], unconnected_gradients="zero")
    assert type(g) is tf.IndexedSlices


def test_second_order_through_gather():
    x = tf.Variable([1., 2., 3.])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.gather(x, [0, 2, 0]) ** 3)
        g = inner.gradient(y, x)
        assert type(g) is tf.IndexedSlices
        z = tf.reduce_sum(tf.convert_to_tensor(g))   # sum of 3*x_i**2 over gathered rows
    gg = outer.gradient(z, x)   # flows through the values back into the same gather: sparse again
    np.testing.assert_allclose(tf.convert_to_tensor(gg).numpy(), [12., 0., 18.])   # 6*x_i*count_i


def test_jacobian_through_gather_is_dense():
    x = tf.Variable([1., 2., 3.])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.gather(x, [2, 0])
    np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), [[0., 0., 1.], [1., 0., 0.]])


# --- consumers --------------------------------------------------------------------------------------
def test_clip_by_norm_uses_values():
    g = _grads(lambda v: tf.reduce_sum(tf.gather(v, [0, 2, 0])), tf.Variable(TABLE))
    c = tf.clip_by_norm(g, 1.0)
    _assert_slices(c, [0, 2, 0], np.full((3, 2), 0.40824828))   # TF 2.21: 1/sqrt(6), norm of the values


def test_clip_by_global_norm_and_global_norm():
    g = _grads(lambda v: tf.reduce_sum(tf.gather(v, [0, 2, 0])), tf.Variable(TABLE))
    clipped, norm = tf.clip_by_global_norm([g, tf.constant([3., 4.]), None], 1.0)
    np.testing.assert_allclose(float(norm), 5.5677643, rtol=1e-6)
    assert type(clipped[0]) is tf.IndexedSlices and clipped[2] is None
    np.testing.assert_allclose(clipped[1].numpy(), [0.5388159, 0.7184212], rtol=1e-6)
    _assert_slices(clipped[0], [0, 2, 0], np.full((3, 2), 1 / 5.5677643))
    np.testing.assert_allclose(float(tf.linalg.global_norm([g])), 2.4494898, rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: tf.keras.optimizers.SGD(0.1),
    lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
    lambda: tf.keras.optimizers.Adam(0.1),
    lambda: tf.keras.optimizers.RMSprop(0.1),
    lambda: tf.keras.optimizers.SGD(0.1, clipnorm=0.5),
])
def test_optimizers_sparse_update_equals_dense(make):
    ids = tf.constant([0, 2, 0])
    upstream = tf.constant([[1., -2.], [3., 4.], [0.5, 0.25]])
    results = []
    for sparse in (True, False):
        v, opt = tf.Variable(TABLE), make()
        for _ in range(3):
            with tf.GradientTape() as tape:
                rows = tf.gather(v, ids) if sparse else tf.matmul(tf.one_hot(ids, 3), v)
                loss = tf.reduce_sum(rows * upstream * v[0, 0])
            (g,) = tape.gradient(loss, [v])
            assert (type(g) is tf.IndexedSlices) is False or sparse
            opt.apply_gradients([(g, v)])
        results.append(v.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5)


def test_tf_function_train_step():
    v = tf.Variable(TABLE)
    opt = tf.keras.optimizers.SGD(0.5)
    seen = []

    @tf.function
    def step(ids):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(v, ids))
        g = tape.gradient(loss, v)
        seen.append(type(g).__name__)   # graph gradients stay dense in the engine
        g, _ = tf.clip_by_global_norm([g], 100.0)
        opt.apply_gradients(zip(g, [v]))
        return loss

    step(tf.constant([0, 2, 0]))
    np.testing.assert_allclose(v.numpy(), [[0., 1.], [3., 4.], [4.5, 5.5]])
    assert seen and "IndexedSlices" not in seen


def test_distribute_all_reduce_accepts_indexed_slices():
    script = textwrap.dedent("""
        import numpy as np
        import engine as tf
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with s.scope():
            v = tf.Variable([[1., 2.], [3., 4.], [5., 6.]])
            opt = tf.keras.optimizers.SGD(1.0)
        def step():
            rid = tf.distribute.get_replica_context().replica_id_in_sync_group
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.gather(v, tf.reshape(rid, [1])))
            g = tape.gradient(loss, v)
            assert type(g) is tf.IndexedSlices, type(g)
            total = tf.distribute.get_replica_context().all_reduce("SUM", g)
            opt.apply_gradients([(g, v)])
            return total
        out = s.run(step)
        print(np.asarray(s.experimental_local_results(out)[0]).tolist(), v.numpy().tolist())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == \
        "[[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]] [[0.0, 1.0], [2.0, 3.0], [5.0, 6.0]]"
