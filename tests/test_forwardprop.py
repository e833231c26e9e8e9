"""tf.autodiff.ForwardAccumulator: JVPs against the tape's Jacobians, finite differences and TF 2.21 goldens."""
import numpy as np
import pytest

import engine as tf
from engine.autodiff import forwardprop
from engine.framework.registry import get_op, registered_ops


def jvp_of(f, x, v):
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = f(x)
    return acc.jvp(y)


def tape_jvp(f, x, v):
    """J @ v from the tape's full Jacobian (reverse mode)."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    jac = tape.jacobian(y, x).numpy().reshape(int(np.prod(y.shape.as_list())), -1)
    return (jac @ v.numpy().reshape(-1)).reshape(y.shape.as_list())


def fd_jvp(f, x, v, eps=1e-6):
    return (f(x + eps * v).numpy() - f(x - eps * v).numpy()) / (2 * eps)


RNG = np.random.default_rng(0)
X = tf.constant(RNG.uniform(0.5, 1.5, (2, 3)))          # float64: finite differences are precise
V = tf.constant(RNG.standard_normal((2, 3)))
W = tf.constant(RNG.standard_normal((3, 4)))

FUNCTIONS = {
    "elementwise": lambda x: tf.sin(x) * tf.exp(x) + tf.sqrt(x) / (1.0 + x ** 2),
    "matmul_softmax": lambda x: tf.nn.softmax(tf.matmul(x, W), axis=-1),
    "reductions": lambda x: tf.reduce_sum(x * x, axis=0) + tf.reduce_mean(tf.tanh(x), axis=0),
    "shapes": lambda x: tf.concat([tf.transpose(x), tf.reshape(x, [3, 2])], axis=0)[1:, :],
    "gather_tile": lambda x: tf.tile(tf.gather(x, [1, 0, 1]), [1, 2]) * 2.0,
    "relu_max": lambda x: tf.nn.relu(x - 1.0) + tf.maximum(x, 0.9) + tf.reduce_max(x, axis=1, keepdims=True),
    "log_softmax_xent": lambda x: tf.nn.log_softmax(x) - tf.math.log1p(x),
    "stack_unstack": lambda x: tf.stack(tf.unstack(x, axis=1)[::-1], axis=0) ** 3,
    "pow_div": lambda x: tf.pow(x, x) / tf.reduce_sum(x),
    "einsum_bmm": lambda x: tf.einsum("ij,jk->ik", x, W) + tf.linalg.matmul(x, x, transpose_b=True)[:, :1],
}


@pytest.mark.parametrize("use_rules", [True, False], ids=["rules", "double_vjp"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jvp_matches_tape_jacobian_and_finite_differences(name, use_rules, monkeypatch):
    monkeypatch.setattr(forwardprop, "USE_RULES", use_rules)
    f = FUNCTIONS[name]
    got = jvp_of(f, X, V)
    assert got is not None and got.dtype == tf.float64
    np.testing.assert_allclose(got.numpy(), tape_jvp(f, X, V), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got.numpy(), fd_jvp(f, X, V), rtol=1e-5, atol=1e-6)


# One small function per op of the rule tables, so every table entry is checked against the double VJP.
X4 = tf.constant(RNG.uniform(0.5, 1.5, (1, 4, 4, 2)))
V4 = tf.constant(RNG.standard_normal((1, 4, 4, 2)))
K = tf.constant(RNG.standard_normal((2, 2, 2, 3)))
TABLE_CASES = {
    "AddN": lambda x: tf.add_n([x, x * 2.0, tf.sin(x)]),
    "AddV2": lambda x: x + tf.cos(x),
    "BiasAdd": lambda x: tf.nn.bias_add(x, tf.reduce_sum(x, axis=0)),
    "BroadcastTo": lambda x: tf.broadcast_to(x[:1], [4, 3]),
    "ConcatV2": lambda x: tf.concat([x, x ** 2], axis=1),
    "Cumsum": lambda x: tf.math.cumsum(x ** 2, axis=1),
    "ExpandDims": lambda x: tf.expand_dims(x, 1) ** 2,
    "GatherNd": lambda x: tf.gather_nd(x ** 2, [[0, 1], [1, 2]]),
    "GatherV2": lambda x: tf.gather(x ** 2, [2, 0], axis=1),
    "MatrixDiagPart": lambda x: tf.linalg.diag_part(tf.matmul(x, x, transpose_b=True)),
    "Mean": lambda x: tf.reduce_mean(x ** 2, axis=1),
    "MirrorPad": lambda x: tf.pad(x ** 2, [[1, 1], [0, 1]], mode="REFLECT"),
    "Neg": lambda x: -(x ** 2),
    "Pack": lambda x: tf.stack([x, x ** 2]),
    "Pad": lambda x: tf.pad(x ** 2, [[1, 0], [0, 2]]),
    "PadV2": lambda x: tf.pad(x ** 2, [[1, 0], [0, 2]], constant_values=3.0),
    "Reshape": lambda x: tf.reshape(x ** 2, [3, 2]),
    "ReverseV2": lambda x: tf.reverse(x ** 2, [1]),
    "ScatterNd": lambda x: tf.scatter_nd([[1], [3]], x ** 2, [4, 3]),
    "Slice": lambda x: tf.slice(x ** 2, [0, 1], [2, 2]),
    "Split": lambda x: tf.split(x ** 2, 3, axis=1)[1],
    "SplitV": lambda x: tf.split(x ** 2, [1, 2], axis=1)[1],
    "Squeeze": lambda x: tf.squeeze(x[:1] ** 2),
    "StridedSlice": lambda x: (x ** 2)[:, ::2],
    "Sub": lambda x: x - tf.sin(x),
    "Sum": lambda x: tf.reduce_sum(x ** 2, axis=0),
    "Tile": lambda x: tf.tile(x ** 2, [2, 1]),
    "Transpose": lambda x: tf.transpose(x ** 2),
    "Unpack": lambda x: tf.unstack(x ** 2, axis=1)[2],
    "BatchMatMulV2": lambda x: tf.matmul(tf.stack([x, x]), tf.stack([tf.transpose(x)] * 2)),
    "Einsum": lambda x: tf.einsum("ij,kj->ik", x, tf.sin(x)),
    "MatMul": lambda x: tf.matmul(x, W) * tf.matmul(x, x, transpose_b=True)[:, :1],
    "Mul": lambda x: x * tf.exp(x),
    "Identity": lambda x: tf.identity(x) ** 2,
}


@pytest.mark.parametrize("op_name", sorted(TABLE_CASES))
def test_every_rule_table_entry_agrees_with_the_double_vjp(op_name, monkeypatch):
    f = TABLE_CASES[op_name]
    by_rule = jvp_of(f, X, V).numpy()
    monkeypatch.setattr(forwardprop, "USE_RULES", False)
    by_double_vjp = jvp_of(f, X, V).numpy()
    np.testing.assert_allclose(by_rule, by_double_vjp, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(by_rule, fd_jvp(f, X, V), rtol=1e-5, atol=1e-6)


def test_conv2d_rule_agrees_with_the_double_vjp(monkeypatch):
    f = lambda x: tf.nn.conv2d(x * x, K, strides=1, padding="SAME")  # noqa: E731
    by_rule = jvp_of(f, X4, V4).numpy()
    monkeypatch.setattr(forwardprop, "USE_RULES", False)
    np.testing.assert_allclose(by_rule, jvp_of(f, X4, V4).numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(by_rule, fd_jvp(f, X4, V4), rtol=1e-5, atol=1e-6)


def _rule_ops(*kinds):
    """The ops whose registry row gives them a JVP rule of one of ``kinds`` (their ``linear`` trait)."""
    return {name for name, op in registered_ops().items() if op.linear in kinds}


def test_table_cases_cover_every_rule_op():
    ruled = _rule_ops("linear", "multilinear", "identity")
    assert ruled - set(TABLE_CASES) - {"Conv2D", "ReadVariableOp", "PlaceholderWithDefault"} == set()


def test_ops_with_a_linear_rule_are_differentiable():
    for name in _rule_ops("linear", "multilinear"):
        assert get_op(name).grad is not None, name


def test_tf_golden_values():
    # Recorded from TF 2.21: ForwardAccumulator(x=[1,2,3], v=[.5,-1,2]).
    x = tf.constant([1.0, 2.0, 3.0])
    v = tf.constant([0.5, -1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = tf.sin(x) * tf.exp(x)
        z = tf.reduce_sum(y ** 2)
        w = tf.matmul(tf.reshape(x, [1, 3]), tf.reshape(x, [3, 1]))
        c = tf.constant(3.0) * 2
        am = tf.argmax(x)
        as64 = tf.cast(x, tf.float64)
        asint = tf.cast(x, tf.int32)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [1.8780245780944824, -3.6439173221588135, -34.100120544433594],
                               rtol=1e-6)
    np.testing.assert_allclose(acc.jvp(z).numpy(), -233.68605041503906, rtol=1e-6)
    np.testing.assert_allclose(acc.jvp(w).numpy(), [[9.0]])
    assert acc.jvp(c) is None and acc.jvp(am) is None and acc.jvp(asint) is None
    zero = acc.jvp(c, unconnected_gradients="zero")
    assert zero.dtype == tf.float32 and zero.numpy() == 0.0
    assert acc.jvp(as64).dtype == tf.float64
    np.testing.assert_allclose(acc.jvp(as64).numpy(), [0.5, -1.0, 2.0])
    np.testing.assert_allclose(acc.jvp(x).numpy(), [0.5, -1.0, 2.0])
    nested = acc.jvp({"a": y, "b": [c]})
    assert nested["b"] == [None]
    np.testing.assert_allclose(nested["a"].numpy(), acc.jvp(y).numpy())


def test_jvp_inside_the_context_has_no_tangent_of_its_own():
    # TF 2.21: an accumulator does not see its own JVP computations.
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([0.5, -1.0, 2.0])) as acc:
        y = x * x
        np.testing.assert_allclose(acc.jvp(y).numpy(), [1.0, -4.0, 12.0])
        y2 = acc.jvp(y) * x
    np.testing.assert_allclose(acc.jvp(y2).numpy(), [0.5, 4.0, 24.0])


def test_forward_over_backward_hessian_vector_product():
    # The example of TF's ForwardAccumulator docstring (values from TF 2.21).
    v = tf.Variable([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 0.0])) as acc:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v ** 3.0)
        backward = tape.gradient(y, v)
    np.testing.assert_allclose(backward.numpy(), [3.0, 12.0])
    np.testing.assert_allclose(acc.jvp(backward).numpy(), [6.0, 0.0])
    np.testing.assert_allclose(acc.jvp(v).numpy(), [1.0, 0.0])


def test_hvp_of_a_model_matches_the_hessian_from_nested_tapes():
    x = tf.constant(RNG.standard_normal((4, 3)))
    w = tf.Variable(RNG.standard_normal((3, 2)))
    direction = tf.constant(RNG.standard_normal((3, 2)))

    def loss():
        return tf.reduce_mean(tf.nn.softplus(tf.matmul(x, w)) ** 2)

    with tf.autodiff.ForwardAccumulator(w, direction) as acc:
        with tf.GradientTape() as tape:
            value = loss()
        grad = tape.gradient(value, w)
    hvp = acc.jvp(grad).numpy()
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            value = loss()
        g = inner.gradient(value, w)
    hessian = outer.jacobian(g, w).numpy().reshape(6, 6)
    np.testing.assert_allclose(hvp.reshape(-1), hessian @ direction.numpy().reshape(-1), rtol=1e-9, atol=1e-12)


def test_backward_over_forward():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
            y = tf.reduce_sum(x ** 3.0)
        jvp = acc.jvp(y)
    assert float(jvp) == 3.0
    np.testing.assert_allclose(tape.gradient(jvp, x).numpy(), [6.0, 0.0])   # TF 2.21


def test_nested_accumulators_give_higher_order_derivatives():
    # TF's docstring example, values from TF 2.21.
    primal = tf.constant(1.1)
    with tf.autodiff.ForwardAccumulator(primal, tf.constant(1.0)) as outer:
        with tf.autodiff.ForwardAccumulator(primal, tf.constant(1.0)) as inner:
            out = primal ** tf.constant(3.5)
    inner_jvp = inner.jvp(out)
    np.testing.assert_allclose(inner_jvp.numpy(), 4.4417057, rtol=1e-6)
    np.testing.assert_allclose(outer.jvp(inner_jvp).numpy(), 10.094786, rtol=1e-6)
    np.testing.assert_allclose(outer.jvp(out).numpy(), 4.4417057, rtol=1e-6)
    assert inner.jvp(outer.jvp(out)) is None      # inner accumulators do not see outer JVP computations


def test_tf_function_call_under_a_lone_accumulator():
    @tf.function
    def g(t):
        return tf.sin(t) * t

    x = tf.constant([1.0, 2.0, 3.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([0.5, -1.0, 2.0])) as acc:
        y = g(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [0.6908866, -0.07700372, -5.657715], rtol=1e-5)  # TF 2.21


def test_custom_gradient_jvp_comes_from_its_forward_ops():
    # TF 2.21: the JVP comes from f's forward ops (2 * v), not from the custom gradient (10 * v).
    @tf.custom_gradient
    def f(t):
        return t * 2.0, lambda dy: dy * 10.0

    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, -1.0])) as acc:
        y = f(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [2.0, -2.0])
    with tf.GradientTape() as tape:  # while a tape still gets the custom gradient
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [10.0, 10.0])


def test_multiple_primals_and_variables():
    a = tf.Variable([1.0, 2.0])
    b = tf.constant(3.0)
    with tf.autodiff.ForwardAccumulator([a, b], [tf.constant([1.0, 1.0]), tf.constant(2.0)]) as acc:
        y = a * b
    np.testing.assert_allclose(acc.jvp(y).numpy(), [1.0 * 3.0 + 1.0 * 2.0, 3.0 + 2.0 * 2.0])


def test_errors():
    x = tf.constant([1.0, 2.0, 3.0])
    v = tf.constant([0.5, -1.0, 2.0])
    with pytest.raises(ValueError, match="specified as a primal multiple times"):
        tf.autodiff.ForwardAccumulator((x, x), (v, v))
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype float64"):
        tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 2.0, 3.0], tf.float64))
    with pytest.raises(ValueError, match="same nested structure"):
        tf.autodiff.ForwardAccumulator([x], [v, v])
    with pytest.raises(ValueError, match=r"shape \(3,\).*shape \(2,\)"):
        tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 2.0]))
    acc = tf.autodiff.ForwardAccumulator(x, v)
    with acc:
        with pytest.raises(ValueError, match="Accumulator is already recording."):
            acc.__enter__()
    with pytest.warns(UserWarning, match="must be floating"):
        tf.autodiff.ForwardAccumulator(tf.constant([1, 2]), tf.constant([1, 2]))


def test_accumulator_leaves_the_tape_stack_clean():
    from engine.framework.context import ctx
    x = tf.constant(1.0)
    before = list(ctx.tapes)
    with pytest.raises(RuntimeError):
        with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)):
            raise RuntimeError("boom")
    assert ctx.tapes == before


def test_namespace():
    assert tf.autodiff.GradientTape is tf.GradientTape
    assert tf.autodiff.ForwardAccumulator is forwardprop.ForwardAccumulator
