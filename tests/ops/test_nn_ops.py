"""tf.nn: activations, softmax, losses, bias_add, dropout, moments, compute_average_loss.

Golden values were recorded with real TensorFlow 2.21 (CPU) on the inputs defined
here (``X``, ``A``, ...), printed with 8 significant digits and pasted as literals.
Convolution and pooling live in ``test_nn_conv_pool.py``.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as tf
from engine.framework.context import ctx
from gradcheck import check_gradients, check_second_order


def _arr(shape, values):
    return np.array(values, dtype=np.float32).reshape(shape)


def close(actual, expected, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=rtol, atol=atol)


# --------------------------------------------------------------------------------------
# Inputs and TF goldens
# --------------------------------------------------------------------------------------
X = (np.sin(np.arange(12) * 1.3) * 3).reshape(3, 4).astype(np.float32)
LABELS = np.exp(np.cos(np.arange(12)).reshape(3, 4))
LABELS = (LABELS / LABELS.sum(axis=1, keepdims=True)).astype(np.float32)     # tf.nn.softmax(cos(...))
Z = np.array([[0., 1., 0.5, 1.], [1., 0., 0.25, 0.], [0., 0., 1., 1.]], np.float32)
A = np.array([-40., -5., -1.5, -0.3, 0., 0.2, 1., 3., 7., 40.], np.float32)

SOFTMAX = _arr([3, 4], [
    0.041968293, 0.75565803, 0.19704232, 0.005331412, 0.0028733029, 0.077570431, 0.81358987, 0.10596634,
    0.0036257803, 0.004417608, 0.15324683, 0.83870977])
SOFTMAX_AXIS0 = _arr([3, 4], [
    0.86649263, 0.89965171, 0.16637136, 0.0057649179, 0.06119648, 0.095267922, 0.70864046, 0.11820076,
    0.07231085, 0.0050803614, 0.12498821, 0.87603438])
LOG_SOFTMAX = _arr([3, 4], [
    -3.170841, -0.28016636, -1.6243368, -5.234139, -5.852293, -2.5565689, -0.20629887, -2.2446337,
    -5.6196856, -5.4221568, -1.8757054, -0.17589058])
LOG_SOFTMAX_AXIS0 = _arr([3, 4], [
    -0.14330167, -0.10574759, -1.7935328, -5.1559644, -2.7936656, -2.3510623, -0.34440699, -2.1353707,
    -2.6267812, -5.282373, -2.079536, -0.13234997])
SCE = _arr([3], [2.2167037, 1.7839795, 2.9690635])
SCE_AXIS0 = _arr([4], [1.1320637, 1.2929931, 0.68545222, 1.0888058])
SPARSE = _arr([3], [3.170841, 2.2446337, 5.4221568])   # labels [0, 3, 1]
SIGMOID_CE = _arr([3, 4], [
    0.69314718, 0.054051336, 0.96634152, 2.1828877, 2.7186071, 1.0670092, 2.2955174, 1.2822224, 0.080152571,
    0.096833862, 0.24960005, 0.050505407])

ACTIVATION_GOLDENS = {
    "gelu": (tf.nn.gelu, [-0, -1.4332578e-06, -0.1002108, -0.11462658, 0, 0.11585194, 0.84134471, 2.9959502, 7,
                          40]),
    "gelu_approximate": (lambda a: tf.nn.gelu(a, approximate=True),
                         [-0, -0, -0.10042843, -0.11462908, 0, 0.11585142, 0.84119201, 2.9963627, 7, 40]),
    "elu": (tf.nn.elu, [-1, -0.99326205, -0.77686983, -0.2591818, 0, 0.2, 1, 3, 7, 40]),
    "leaky_relu": (tf.nn.leaky_relu, [-8, -1, -0.30000001, -0.060000002, 0, 0.2, 1, 3, 7, 40]),
    "leaky_relu_0.5": (lambda a: tf.nn.leaky_relu(a, alpha=0.5), [-20, -2.5, -0.75, -0.15000001, 0, 0.2, 1, 3, 7,
                                                                  40]),
    "softplus": (tf.nn.softplus, [4.2483541e-18, 0.0067153489, 0.20141326, 0.5543552, 0.69314718, 0.79813892,
                                  1.3132616, 3.0485871, 7.0009117, 40]),
    "relu6": (tf.nn.relu6, [0, 0, 0, 0, 0, 0.2, 1, 3, 6, 6]),
    "silu": (tf.nn.silu, [-1.6993419e-16, -0.03346426, -0.27363831, -0.12766723, 0, 0.10996679, 0.73105854,
                          2.8577223, 6.9936228, 40]),
    "selu": (tf.nn.selu, [-1.7580993, -1.7462534, -1.3658143, -0.45566735, 0, 0.21014021, 1.050701, 3.1521029,
                          7.354907, 42.028042]),
    "softsign": (tf.nn.softsign, [-0.97560978, -0.83333331, -0.60000002, -0.23076925, 0, 0.16666666, 0.5, 0.75,
                                  0.875, 0.97560978]),
    "relu": (tf.nn.relu, np.maximum(A, 0)),
    "sigmoid": (tf.nn.sigmoid, 1 / (1 + np.exp(-A.astype(np.float64)))),
    "tanh": (tf.nn.tanh, np.tanh(A.astype(np.float64))),
    "math.softplus": (lambda a: tf.nn.softplus(a), np.logaddexp(0, A.astype(np.float64))),
}


# --------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ACTIVATION_GOLDENS))
def test_activation_values_match_tensorflow(name):
    fn, expected = ACTIVATION_GOLDENS[name]
    out = fn(tf.constant(A))
    assert out.dtype == tf.float32 and out.shape == (10,)
    close(out, np.asarray(expected, np.float32))


@pytest.mark.parametrize("fn", [tf.nn.relu, tf.nn.relu6, tf.nn.elu, tf.nn.softplus, tf.nn.gelu, tf.nn.leaky_relu,
                                tf.nn.silu, tf.nn.selu])
@pytest.mark.parametrize("dtype", [tf.float16, tf.float64])
def test_activations_keep_float_dtype(fn, dtype):
    out = fn(tf.constant([[-1.5, 0.5], [2.0, 8.0]], dtype=dtype))
    assert out.dtype == dtype and out.shape == (2, 2)


def test_relu_on_integers_and_relu6_clips():
    out = tf.nn.relu(tf.constant([1, -2, 9]))
    assert out.dtype == tf.int32 and out.numpy().tolist() == [1, 0, 9]
    assert tf.nn.relu(tf.constant([3, 0], dtype=tf.uint8)).numpy().tolist() == [3, 0]
    assert tf.nn.relu6(tf.constant([1, -2, 9])).numpy().tolist() == [1, 0, 6]
    assert tf.nn.relu(tf.constant(-2.5)).shape == ()


def test_leaky_relu_casts_integers_to_float32():
    out = tf.nn.leaky_relu(tf.constant([1, -2]))
    assert out.dtype == tf.float32
    close(out, [1.0, -0.4])


def test_softplus_is_stable_for_large_magnitudes():
    out = tf.nn.softplus(tf.constant([-1000.0, 1000.0], dtype=tf.float64)).numpy()
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, [0.0, 1000.0])


SMOOTH_POINTS = np.array([-2.3, -0.7, -0.1, 0.4, 1.1, 5.5, 6.6])


@pytest.mark.parametrize("fn", [
    tf.nn.relu, tf.nn.relu6, tf.nn.leaky_relu, lambda x: tf.nn.leaky_relu(x, alpha=0.3), tf.nn.elu, tf.nn.softplus,
    tf.nn.gelu, lambda x: tf.nn.gelu(x, approximate=True), tf.nn.silu, lambda x: tf.nn.silu(x, beta=1.7),
    tf.nn.selu, tf.nn.softsign, tf.nn.sigmoid, tf.nn.tanh])
def test_activation_gradients(fn):
    check_gradients(fn, SMOOTH_POINTS)


@pytest.mark.parametrize("fn", [tf.nn.softplus, tf.nn.elu, tf.nn.gelu, lambda x: tf.nn.gelu(x, approximate=True),
                                tf.nn.silu, tf.nn.relu, tf.nn.relu6, tf.nn.leaky_relu, tf.nn.selu])
def test_activation_second_order(fn):
    check_second_order(fn, SMOOTH_POINTS)


def test_relu_gradient_is_zero_at_zero_and_second_derivative_is_zero():
    x = tf.constant([-1.0, 0.0, 2.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.nn.relu(x)
        g = inner.gradient(y, x)
    assert g.numpy().tolist() == [0.0, 0.0, 1.0]
    assert outer.gradient(g, x).numpy().tolist() == [0.0, 0.0, 0.0]


# --------------------------------------------------------------------------------------
# Softmax and log-softmax
# --------------------------------------------------------------------------------------
def test_softmax_and_log_softmax_match_tensorflow():
    close(tf.nn.softmax(X), SOFTMAX)
    close(tf.nn.softmax(X, axis=0), SOFTMAX_AXIS0)
    close(tf.nn.softmax(X, axis=-2), SOFTMAX_AXIS0)
    close(tf.nn.log_softmax(X), LOG_SOFTMAX)
    close(tf.nn.log_softmax(X, axis=0), LOG_SOFTMAX_AXIS0)
    assert tf.nn.softmax(tf.constant(X, dtype=tf.float64)).dtype == tf.float64


def test_softmax_is_stable_for_huge_logits():
    out = tf.nn.softmax(tf.constant([1000.0, 1000.0, -1000.0])).numpy()
    np.testing.assert_allclose(out, [0.5, 0.5, 0.0])
    assert np.all(np.isfinite(tf.nn.log_softmax(tf.constant([1000.0, -1000.0])).numpy()))


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_softmax_any_axis_sums_to_one(shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = np.sin(np.arange(int(np.prod(shape))) * 0.37).reshape(shape) * 4
    out = tf.nn.softmax(tf.constant(x), axis=axis).numpy()
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=axis, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(tf.nn.log_softmax(tf.constant(x), axis=axis).numpy(), np.log(out), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_and_log_softmax_gradients(axis):
    x = X.astype(np.float64)[:2, :3]
    check_gradients(lambda v: tf.nn.softmax(v, axis=axis), x)
    check_gradients(lambda v: tf.nn.log_softmax(v, axis=axis), x)


@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_second_order(axis):
    x = X.astype(np.float64)[:2, :3]
    weights = tf.constant(np.arange(6.0).reshape(2, 3))
    check_second_order(lambda v: tf.reduce_sum(tf.nn.softmax(v, axis=axis) * weights), x)
    check_second_order(lambda v: tf.reduce_sum(tf.nn.log_softmax(v, axis=axis) * weights), x)


def test_softmax_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Softmax.*int32|int32.*Softmax"):
        tf.nn.softmax(tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"`dim` must be in the range \[-2, 2\) where 2 is the number of dimensions"):
        tf.nn.softmax(X, axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"`dim` must be in the range \[-2, 2\)"):
        tf.nn.log_softmax(X, axis=-3)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"logits must have >= 1 dimension, got \[\].*Op:Softmax"):
        tf.nn.softmax(tf.constant(1.0))


# --------------------------------------------------------------------------------------
# Cross-entropies
# --------------------------------------------------------------------------------------
def test_softmax_cross_entropy_matches_tensorflow():
    out = tf.nn.softmax_cross_entropy_with_logits(labels=LABELS, logits=X)
    assert out.dtype == tf.float32 and out.shape == (3,)
    close(out, SCE)
    close(tf.nn.softmax_cross_entropy_with_logits(labels=LABELS, logits=X, axis=0), SCE_AXIS0)


def test_softmax_cross_entropy_shapes_and_dtypes():
    x3 = np.sin(np.arange(30.0)).reshape(2, 3, 5)
    l3 = np.abs(np.cos(np.arange(30.0))).reshape(2, 3, 5)
    out = tf.nn.softmax_cross_entropy_with_logits(labels=l3, logits=x3)
    assert out.shape == (2, 3) and out.dtype == tf.float64
    expected = -(l3 * (x3 - np.log(np.exp(x3).sum(-1, keepdims=True)))).sum(-1)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    scalar = tf.nn.softmax_cross_entropy_with_logits(labels=LABELS[0], logits=X[0])
    assert scalar.shape == () and np.isclose(float(scalar), SCE[0], rtol=1e-5)
    half = tf.nn.softmax_cross_entropy_with_logits(labels=LABELS, logits=tf.constant(X, dtype=tf.float16))
    assert half.dtype == tf.float16
    close(half, SCE, rtol=2e-3, atol=2e-3)
    mixed = tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant(LABELS, tf.float64), logits=X)
    assert mixed.dtype == tf.float32                                 # labels are cast to the logits' dtype
    broadcast = tf.nn.softmax_cross_entropy_with_logits(labels=LABELS[:1], logits=X)
    assert broadcast.shape == (3,)


def test_sparse_softmax_cross_entropy_matches_tensorflow():
    out = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 3, 1], logits=X)
    assert out.dtype == tf.float32 and out.shape == (3,)
    close(out, SPARSE)
    out64 = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 3, 1], tf.int64),
                                                           logits=tf.constant(X, tf.float64))
    assert out64.dtype == tf.float64
    close(out64, SPARSE)


def test_sparse_softmax_cross_entropy_other_ranks():
    logits = np.sin(np.arange(20.0)).reshape(2, 2, 5)
    labels = np.array([[1, 2], [0, 4]])
    out = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert out.shape == (2, 2)
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), -np.take_along_axis(log_p, labels[..., None], -1)[..., 0])
    single = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=3, logits=X[0])
    assert single.shape == () and np.isclose(float(single), -LOG_SOFTMAX[0, 3], rtol=1e-5)


def test_cross_entropies_agree_with_each_other():
    logits = tf.constant(np.sin(np.arange(40.0)).reshape(8, 5))
    labels = np.array([0, 4, 2, 2, 1, 3, 0, 4])
    dense = tf.nn.softmax_cross_entropy_with_logits(labels=tf.one_hot(labels, 5, dtype=tf.float64), logits=logits)
    sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    np.testing.assert_allclose(dense.numpy(), sparse.numpy(), rtol=1e-12)


def test_sigmoid_cross_entropy_matches_tensorflow_and_is_stable():
    close(tf.nn.sigmoid_cross_entropy_with_logits(labels=Z, logits=X), SIGMOID_CE)
    out = tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.constant([1.0, 0.0]), logits=tf.constant([-200.0, 200.0]))
    close(out, [200.0, 200.0])


LOGITS64 = X.astype(np.float64)[:2, :3]
LABELS64 = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])


def test_softmax_cross_entropy_gradients_wrt_logits_and_labels():
    check_gradients(lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits(labels=lb, logits=lg),
                    LOGITS64, LABELS64)
    columns = LABELS64 / LABELS64.sum(axis=0)                                  # distributions along axis 0
    check_gradients(lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits(labels=lb, logits=lg, axis=0),
                    LOGITS64, columns)
    check_gradients(lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits(labels=lb, logits=lg),
                    LOGITS64, LABELS64[:1])                                    # broadcast labels


def test_softmax_cross_entropy_gradient_assumes_normalized_labels_as_tf_does():
    # TF's kernel returns backprop = softmax - labels, the gradient only when labels sum to 1.
    logits = tf.constant(LOGITS64)
    labels = tf.constant(LABELS64 * 2)
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    p = np.exp(LOGITS64) / np.exp(LOGITS64).sum(1, keepdims=True)
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(), p - LABELS64 * 2, rtol=1e-12)


def test_softmax_cross_entropy_second_order():
    labels = tf.constant(LABELS64)
    check_second_order(lambda lg: tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=lg), LOGITS64)
    logits = tf.constant(LOGITS64)

    def grad_wrt_logits(lb):                     # d/dlabels of d(loss)/dlogits: -1 per entry
        with tf.GradientTape() as tape:
            tape.watch(logits)
            loss = tf.nn.softmax_cross_entropy_with_logits(labels=lb, logits=logits)
        return tape.gradient(loss, logits)
    check_gradients(grad_wrt_logits, LABELS64)


def test_sparse_softmax_cross_entropy_gradients():
    labels = tf.constant([2, 0])
    check_gradients(lambda lg: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=lg), LOGITS64)
    check_second_order(lambda lg: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=lg),
                       LOGITS64)
    logits = tf.constant(LOGITS64)
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    p = np.exp(LOGITS64) / np.exp(LOGITS64).sum(1, keepdims=True)
    p[[0, 1], [2, 0]] -= 1
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(), p, rtol=1e-12)


def test_sparse_softmax_cross_entropy_gradient_rank3():
    labels = tf.constant([[1, 2]])
    logits = np.sin(np.arange(6.0)).reshape(1, 2, 3)
    check_gradients(lambda lg: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=lg), logits)


def test_sigmoid_cross_entropy_gradients():
    check_gradients(lambda lg, lb: tf.nn.sigmoid_cross_entropy_with_logits(labels=lb, logits=lg),
                    LOGITS64, LABELS64)
    labels = tf.constant(LABELS64)
    check_second_order(lambda lg: tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=lg), LOGITS64)


def test_cross_entropy_errors():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([1, 7]), logits=tf.zeros([2, 5]))
    assert "Received a label value of 7 which is outside the valid range of [0, 5).  Label values: 1 7" in str(
        info.value)
    assert "[Op:SparseSoftmaxCrossEntropyWithLogits]" in str(info.value)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"label value of -1 which is outside.*\[0, 5\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([1, -1]), logits=tf.zeros([2, 5]))
    with pytest.raises(ValueError, match=r"`labels.shape` must equal `logits.shape` except for the last dimension. "
                                         r"Received: labels.shape=\(3,\) and logits.shape=\(2, 5\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([1, 2, 3]), logits=tf.zeros([2, 5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Tlabels.*float32"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([1.0, 2.0]), logits=tf.zeros([2, 5]))
    with pytest.raises(ValueError, match="`logits` cannot be a scalar"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant(1), logits=tf.constant(0.0))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"logits and labels must be broadcastable: logits_size=\[2,5\] labels_size=\[2,4\].*"
                             r"\[Op:SoftmaxCrossEntropyWithLogits\]"):
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.zeros([2, 4]), logits=tf.zeros([2, 5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"logits_size=\[2,5\] labels_size=\[3,5\]"):
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.zeros([3, 5]), logits=tf.zeros([2, 5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"SoftmaxCrossEntropyWithLogits.*int32"):
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.zeros([2, 5], tf.int32), logits=tf.zeros([2, 5], tf.int32))
    with pytest.raises(ValueError, match=r"`logits` and `labels` must have the same shape, received \(\(2, 5\) vs "
                                         r"\(2, 4\)\)"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([2, 4]), logits=tf.zeros([2, 5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Mul.*float64|double"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([2], tf.float64), logits=tf.zeros([2]))


def test_raw_cross_entropy_op_kernel_errors_name_the_op():
    from engine.eager.execute import execute
    from engine.framework.registry import get_op
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"2-dimensional.*\[3\].*Op:SoftmaxCrossEntropy"):
        execute(get_op("SoftmaxCrossEntropyWithLogits"), (tf.zeros([3]), tf.zeros([3])))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2,5\].*\[3\].*Op:SparseSoftmaxCrossEntropy"):
        execute(get_op("SparseSoftmaxCrossEntropyWithLogits"), (tf.zeros([2, 5]), tf.constant([1, 2, 3])))


# --------------------------------------------------------------------------------------
# L2 loss, bias_add
# --------------------------------------------------------------------------------------
def test_l2_loss():
    out = tf.nn.l2_loss(X)
    assert out.shape == () and out.dtype == tf.float32
    close(out, (X.astype(np.float64) ** 2).sum() / 2)
    assert tf.nn.l2_loss(tf.constant([3.0, 4.0], tf.float64)).numpy() == 12.5
    check_gradients(tf.nn.l2_loss, LOGITS64)
    check_second_order(tf.nn.l2_loss, LOGITS64)


def test_bias_add_values_and_formats():
    x = np.arange(24.0).reshape(2, 3, 4)
    close(tf.nn.bias_add(x, [1.0, 2.0, 3.0, 4.0]), x + [1, 2, 3, 4])
    out = tf.nn.bias_add(x, [10.0, 20.0, 30.0], data_format="NCHW")
    close(out, x + np.array([10.0, 20.0, 30.0])[:, None])
    close(tf.nn.bias_add(x[0], [1.0, 2.0, 3.0, 4.0], data_format="NCHW"), x[0] + [1, 2, 3, 4])  # 2-D: last axis
    assert tf.nn.bias_add(tf.constant([[1, 2]]), tf.constant([3, 4])).dtype == tf.int32


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=4))
def test_bias_add_matches_broadcasting(shape):
    x = np.cos(np.arange(int(np.prod(shape)))).reshape(shape)
    b = np.arange(shape[-1]) * 0.5
    np.testing.assert_array_equal(tf.nn.bias_add(x, b).numpy(), x + b)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_bias_add_gradients(data_format):
    x = np.sin(np.arange(12.0)).reshape(2, 3, 2)
    b = np.array([0.5, -1.0, 2.0]) if data_format == "NCHW" else np.array([0.5, -1.0])
    check_gradients(lambda v, c: tf.nn.bias_add(v, c, data_format=data_format), x, b)
    xt = tf.constant(x)
    check_second_order(lambda c: tf.reduce_sum(tf.square(tf.nn.bias_add(xt, c, data_format=data_format))), b)


def test_bias_add_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Biases must be 1D: \[1,3\].*\[Op:BiasAdd\]"):
        tf.nn.bias_add(tf.zeros([2, 3]), tf.zeros([1, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Must provide as many biases as the last dimension of the input tensor: \[4\] vs. "
                             r"\[2,3\] \[Op:BiasAdd\]"):
        tf.nn.bias_add(tf.zeros([2, 3]), tf.zeros([4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input tensor must be at least 2D: \[3\]"):
        tf.nn.bias_add(tf.zeros([3]), tf.zeros([3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot compute BiasAdd as input #1.*expected to be a float tensor but is a double tensor"):
        tf.nn.bias_add(tf.zeros([2, 3]), tf.zeros([3], tf.float64))
    with pytest.raises(ValueError, match=r"`data_format` must be of the form `N...C` or `NC...`. Received: "
                                         r"data_format=XYZ"):
        tf.nn.bias_add(tf.zeros([2, 3]), tf.zeros([3]), data_format="XYZ")


# --------------------------------------------------------------------------------------
# Dropout
# --------------------------------------------------------------------------------------
def test_dropout_scales_kept_values_and_drops_about_rate():
    x = tf.ones([200, 50])
    out = tf.nn.dropout(x, rate=0.25, seed=3).numpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], 1 / 0.75, rtol=1e-6)
    assert 0.72 < kept.mean() < 0.78
    assert out.dtype == np.float32


def test_dropout_noise_shape_shares_decisions():
    out = tf.nn.dropout(tf.ones([30, 8]), rate=0.5, noise_shape=[30, 1], seed=1).numpy()
    rows = out.min(axis=1) == out.max(axis=1)
    assert rows.all() and 0 < (out[:, 0] != 0).sum() < 30
    out = tf.nn.dropout(tf.ones([6, 40]), rate=0.5, noise_shape=[None, 1], seed=1).numpy()
    assert (out.min(axis=1) == out.max(axis=1)).all()


def test_dropout_is_reproducible_and_tensor_rate_works():
    tf.random.set_seed(11)
    a = tf.nn.dropout(tf.ones([50]), 0.5).numpy()
    b = tf.nn.dropout(tf.ones([50]), 0.5).numpy()
    tf.random.set_seed(11)
    c = tf.nn.dropout(tf.ones([50]), 0.5).numpy()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)
    out = tf.nn.dropout(tf.ones([1000]), tf.constant(0.5), seed=2).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and 400 < (out != 0).sum() < 600


def test_dropout_rate_zero_returns_input_but_advances_op_seeds():
    x = tf.constant([1.0, 2.0])
    assert tf.nn.dropout(x, 0.0) is x
    tf.random.set_seed(5)
    tf.random.uniform([1])
    after_uniform = tf.random.uniform([3]).numpy()
    tf.random.set_seed(5)
    tf.nn.dropout(x, 0)
    after_dropout = tf.random.uniform([3]).numpy()
    np.testing.assert_array_equal(after_uniform, after_dropout)


def test_dropout_gradient_with_fixed_seed():
    def f(v):
        tf.random.set_seed(3)                   # the same mask on every call
        return tf.nn.dropout(v, rate=0.4, seed=7)
    x = np.linspace(-1, 1, 12).reshape(3, 4)
    jac = check_gradients(f, x)[0]
    mask = f(tf.constant(x)).numpy() != 0
    np.testing.assert_allclose(np.diag(jac), mask.ravel() / 0.6)


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"`rate` must be a scalar tensor or a float in the range \[0, 1\). "
                                         r"Received: rate=1.0"):
        tf.nn.dropout(tf.zeros([2, 3]), 1.0)
    with pytest.raises(ValueError, match=r"range \[0, 1\). Received: rate=-0.1"):
        tf.nn.dropout(tf.zeros([2, 3]), -0.1)
    with pytest.raises(ValueError, match=r"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                                         r"Received: x_dtype=<dtype: 'int32'>"):
        tf.nn.dropout(tf.zeros([2, 3], tf.int32), 0.5)


# --------------------------------------------------------------------------------------
# Moments
# --------------------------------------------------------------------------------------
def test_moments_values():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    mean, var = tf.nn.moments(x, axes=[0])
    close(mean, [1.5, 2.5, 3.5])
    close(var, [2.25, 2.25, 2.25])
    mean, var = tf.nn.moments(x, axes=[1], keepdims=True)
    assert mean.shape == (2, 1) and var.shape == (2, 1)
    close(mean, [[1.0], [4.0]])
    close(var, [[2 / 3], [2 / 3]])
    data = np.sin(np.arange(60.0)).reshape(3, 4, 5)
    mean, var = tf.nn.moments(data, axes=[0, 2])
    np.testing.assert_allclose(mean.numpy(), data.mean(axis=(0, 2)))
    np.testing.assert_allclose(var.numpy(), data.var(axis=(0, 2)))
    half_mean, half_var = tf.nn.moments(tf.constant(data, tf.float16), axes=[0])
    assert half_mean.dtype == tf.float16 and half_var.dtype == tf.float16
    int_mean, int_var = tf.nn.moments(tf.reshape(tf.range(6), [2, 3]), axes=[1])
    assert int_mean.numpy().tolist() == [1, 4] and int_var.numpy().tolist() == [0, 0]


@pytest.mark.parametrize("axes", [[0], [1], [0, 1]])
def test_moments_gradients(axes):
    x = np.sin(np.arange(12.0)).reshape(3, 4)
    check_gradients(lambda v: tf.nn.moments(v, axes)[0], x)
    check_gradients(lambda v: tf.nn.moments(v, axes)[1], x)
    check_second_order(lambda v: tf.nn.moments(v, axes)[1], x)


# --------------------------------------------------------------------------------------
# compute_average_loss
# --------------------------------------------------------------------------------------
def test_compute_average_loss_values():
    losses = tf.constant([1.0, 2.0, 3.0])
    close(tf.nn.compute_average_loss(losses), 2.0)
    close(tf.nn.compute_average_loss(losses, sample_weight=2.0), 4.0)
    close(tf.nn.compute_average_loss(losses, sample_weight=[1.0, 0.0, 2.0]), 7 / 3)
    close(tf.nn.compute_average_loss(losses, global_batch_size=6), 1.0)
    close(tf.nn.compute_average_loss(tf.ones([2, 3])), 3.0)
    close(tf.nn.compute_average_loss(tf.ones([2, 3]), sample_weight=[1.0, 2.0]), 4.5)
    assert tf.nn.compute_average_loss(tf.constant([1.0, 2.0], tf.float64)).dtype == tf.float64
    ints = tf.nn.compute_average_loss(tf.constant([1, 2]))
    assert ints.dtype == tf.float64 and float(ints) == 1.5
    assert float(tf.nn.compute_average_loss(losses, global_batch_size=0)) == np.inf


def test_compute_average_loss_reads_the_replica_context():
    class Replica:
        num_replicas_in_sync = 4
    saved = ctx.replica_context
    ctx.replica_context = Replica()
    try:
        close(tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 3.0])), 6.0 / 12)
    finally:
        ctx.replica_context = saved
    ctx.strategy_stack.append(object())
    try:
        with pytest.raises(RuntimeError, match="cross replica context"):
            tf.nn.compute_average_loss(tf.constant([1.0]))
    finally:
        ctx.strategy_stack.pop()


def test_compute_average_loss_gradient():
    check_gradients(lambda v: tf.nn.compute_average_loss(v, sample_weight=[1.0, 0.5, 2.0]), [0.3, 1.2, -0.4])


def test_compute_average_loss_errors():
    with pytest.raises(ValueError, match="Expected a tensor with at least rank 1"):
        tf.nn.compute_average_loss(tf.constant(1.0))
    with pytest.raises(TypeError, match="global_batch_size must be an integer"):
        tf.nn.compute_average_loss(tf.constant([1.0]), global_batch_size=6.0)
    with pytest.raises(ValueError, match=r"global_batch_size must be scalar.*\(1,\)"):
        tf.nn.compute_average_loss(tf.constant([1.0]), global_batch_size=[2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="global_batch_size must be non-negative"):
        tf.nn.compute_average_loss(tf.constant([1.0]), global_batch_size=-1)


# --------------------------------------------------------------------------------------
# dtype errors shared by the activations
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn, op", [(tf.nn.elu, "Elu"), (tf.nn.softplus, "Softplus"), (tf.nn.l2_loss, "L2Loss"),
                                    (tf.nn.log_softmax, "LogSoftmax")])
def test_float_only_ops_refuse_integers(fn, op):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        fn(tf.constant([1, -2]))
    assert f"[Op:{op}]" in str(info.value) and "int32" in str(info.value)


def test_other_dtype_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"bool.*\[Op:Relu\]"):
        tf.nn.relu(tf.constant([True]))
    with pytest.raises(ValueError, match=r"`features.dtype` must be a floating point tensor.*int32"):
        tf.nn.gelu(tf.constant([1, -2]))


def test_nn_namespace_exports():
    import engine.nn as nn
    from engine.ops import nn_ops
    for name in nn_ops.__all__:
        assert getattr(nn, name) is getattr(nn_ops, name)
    assert tf.nn.swish is tf.nn.silu


@pytest.mark.gpu
def test_gpu_matches_cpu_for_activations_softmax_and_losses():
    def run():
        logits = tf.constant(LOGITS64)
        with tf.GradientTape() as tape:
            tape.watch(logits)
            h = tf.nn.gelu(logits) + tf.nn.elu(logits) + tf.nn.softplus(logits) + tf.nn.leaky_relu(logits)
            h = tf.nn.bias_add(h, tf.constant([0.1, 0.2, 0.3], tf.float64))
            loss = (tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=h))
                    + tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels=LABELS64, logits=h))
                    + tf.nn.l2_loss(tf.nn.log_softmax(h, axis=0)) + tf.nn.moments(h, [0])[1][0])
        return loss.numpy(), tape.gradient(loss, logits).numpy()
    cpu = run()
    with tf.device("/GPU:0"):
        gpu = run()
        with pytest.raises(tf.errors.InvalidArgumentError, match="label value of 7"):
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 7], logits=tf.zeros([2, 5]))
    np.testing.assert_allclose(gpu[0], cpu[0], rtol=1e-10)
    np.testing.assert_allclose(gpu[1], cpu[1], rtol=1e-10, atol=1e-12)


def test_cross_entropy_gradients_accept_none_for_the_unused_output():
    from engine.ops import nn_ops
    logits = tf.constant(LOGITS64)
    loss, backprop = nn_ops.execute(nn_ops._SCE, (logits, tf.constant(LABELS64)))

    class Op:
        inputs = (logits, tf.constant(LABELS64))
        outputs = (loss, backprop)
    d_logits, d_labels = nn_ops._sce_grad(Op, tf.ones([2], tf.float64), None)
    np.testing.assert_allclose(d_logits.numpy(), backprop.numpy())
    np.testing.assert_allclose(d_labels.numpy(), -tf.nn.log_softmax(logits).numpy())
