"""tf.nn.conv2d, max_pool2d, avg_pool2d and their gradient ops.

Golden values were recorded with real TensorFlow 2.21 (CPU): ``CX``/``CW`` for the
convolutions (``tf.nn.conv2d(CX, CW, stride, padding)``), ``PX`` (with many ties)
for max pooling, whose gradient golden is ``tape.gradient(reduce_sum(max_pool2d(PX)
* [1, 2, 3, ...]), PX)``, and ``CX`` for average pooling. A loop-over-pixels NumPy
reference checks many more configurations.
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as tf
from engine.framework.registry import InferenceContext, get_op
from engine.framework.tensor_shape import TensorShape
from gradcheck import check_gradients, check_second_order


def _arr(shape, values):
    return np.array(values, dtype=np.float32).reshape(shape)


CX = np.sin(np.arange(1 * 4 * 5 * 2) * 0.7).reshape(1, 4, 5, 2).astype(np.float32)
CW = np.cos(np.arange(3 * 2 * 2 * 2) * 0.9).reshape(3, 2, 2, 2).astype(np.float32)

CONV_SAME_S1 = _arr([1, 4, 5, 2], [
    -0.20758338, 0.56554377, -1.8593425, -1.9637129, -0.4244709, -1.233077, 1.7150502, 1.5445476,
    -0.99822783, -0.011128679, -1.85478, -0.8739624, -1.2077768, -2.6691921, 1.4442153, -0.033387534,
    1.698715, 2.6578426, -2.2768805, -1.8136852, -1.9933578, -2.339365, 0.1891529, -1.7321098,
    2.0576575, 1.7505617, 0.51031524, 2.3271856, -1.5957806, -2.6934078, -0.28585613, -1.8437866,
    0.73824131, -0.34288001, 0.53680968, 1.7272298, -0.55576122, 0.93002462, 0.30769497, -1.4515097])
CONV_SAME_S2 = _arr([1, 2, 3, 2], [
    -1.85478, -0.8739624, 1.4442153, -0.033387534, -2.2768805, -1.8136852, -0.28585613, -1.8437866,
    0.53680968, 1.7272298, 0.30769497, -1.4515097])
CONV_VALID_S1 = _arr([1, 2, 4, 2], [
    -1.85478, -0.8739624, -1.2077768, -2.6691921, 1.4442153, -0.033387534, 1.698715, 2.6578426,
    -1.9933578, -2.339365, 0.1891529, -1.7321098, 2.0576572, 1.7505615, 0.51031536, 2.3271856])
CONV_VALID_S2 = _arr([1, 1, 2, 2], [
    -1.8547802, -0.87396246, 1.4442153, -0.033387542])
CONV_SAME_D2 = _arr([1, 4, 5, 2], [
    0.6492666, 1.5599058, -3.1586723, -2.2414229, -1.111598, -2.9847565, 2.7808022, 1.2268018,
    0.47762296, 1.6320844, -0.63006079, 0.59331042, -2.7644937, -3.4257255, 1.1418493, -1.0941041,
    3.1526473, 3.053802, -0.66176009, 0.60299397, -0.77659792, 0.62435484, -1.6399523, -3.1522593,
    1.6478145, -1.0622056, 2.2001011, 2.7911792, -1.062253, 0.44889596, -1.3812635, -0.65111369,
    0.048043847, -2.7274563, 2.5223482, 1.1804078, 0.80938888, 3.1287174, -1.430324, -0.68343931])
CONV_EXPLICIT = _arr([1, 3, 4, 2], [
    0, 0, -0.20758338, 0.56554377, -0.4244709, -1.233077, -0.99822783, -0.011128679, 0, 0, -1.85478,
    -0.8739624, 1.4442153, -0.033387534, -2.2768805, -1.8136852, 0, 0, -1.9933578, -2.339365, 2.0576575,
    1.7505617, -1.5957806, -2.6934078])
PX = _arr([1, 4, 5, 2], [
    0, 1, 1, -0, -1, -1, 0, 1, 1, -1, -1, -1, 1, 1, 0, -1, -1, -0, 1, 1, -0, -1, -1, 0, 1, 1, -0, -1,
    -1, 1, 1, 1, -1, -1, -0, 1, 1, 0, -1, -1])
MAXPOOL_SAME_K2_S1 = _arr([1, 4, 5, 2], [
    1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, 1, 1, 1, -0,
    1, 1, 1, 1, 0, -1, -1])
MAXPOOL_GRAD_SAME_K2_S1 = _arr([1, 4, 5, 2], [
    0, 2, 4, 0, 0, 0, 5, 14, 16, 0, 0, 0, 24, 30, 0, 0, 0, 0, 36, 48, 0, 0, 0, 0, 63, 66, 0, 0, 29, 58,
    52, 54, 0, 0, 33, 70, 99, 38, 39, 40])
AVGPOOL_SAME_K2_S1 = _arr([1, 4, 5, 2], [
    0.62425876, 0.70367336, 0.45213944, -0.01204282, -0.47056112, -0.70776719, -0.61209929, -0.22855152,
    -0.29882181, 0.34319183, 0.7013278, 0.44273552, -0.024082243, -0.4795737, -0.7095142, -0.60575902,
    -0.21710597, 0.27365544, 0.35779333, 0.83116806, 0.43320641, -0.036114827, -0.48845071, -0.71106058,
    -0.59924757, -0.20559902, 0.2847459, 0.64117044, 0.83830416, 0.91004717, 0.21954997, -0.30406737,
    -0.68467706, -0.74327242, -0.45229518, 0.051403582, 0.53092641, 0.7607463, 0.99464476, 0.82732791])
MAXPOOL_SAME_K2_S2 = _arr([1, 2, 3, 2], [
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, -1, 1])
MAXPOOL_GRAD_SAME_K2_S2 = _arr([1, 4, 5, 2], [
    0, 2, 1, 0, 0, 0, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 9, 10, 0, 0, 11, 12, 7, 8,
    0, 0, 0, 0, 0, 0, 0, 0])
AVGPOOL_SAME_K2_S2 = _arr([1, 2, 3, 2], [
    0.62425876, 0.70367336, -0.47056112, -0.70776719, -0.29882181, 0.34319183, 0.43320641, -0.036114827,
    -0.59924757, -0.20559902, 0.83830416, 0.91004717])
MAXPOOL_SAME_K3_S2 = _arr([1, 2, 3, 2], [
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
MAXPOOL_GRAD_SAME_K3_S2 = _arr([1, 4, 5, 2], [
    0, 2, 4, 0, 0, 0, 0, 10, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 10, 0, 0, 0, 12, 7, 8,
    0, 0, 0, 0, 11, 0, 0, 0])
AVGPOOL_SAME_K3_S2 = _arr([1, 2, 3, 2], [
    0.63179344, 0.54639477, -0.13683081, -0.32844841, -0.39521107, 0.02149716, 0.43320641, -0.036114827,
    -0.41523793, -0.34994248, 0.2847459, 0.64117044])
MAXPOOL_VALID_K2_S1 = _arr([1, 3, 4, 2], [
    1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
MAXPOOL_GRAD_VALID_K2_S1 = _arr([1, 4, 5, 2], [
    0, 2, 4, 0, 0, 0, 5, 14, 7, 0, 0, 0, 20, 26, 0, 0, 0, 0, 15, 16, 0, 0, 0, 0, 53, 56, 0, 0, 0, 24,
    17, 18, 0, 0, 0, 0, 23, 0, 0, 0])
AVGPOOL_VALID_K2_S1 = _arr([1, 3, 4, 2], [
    0.62425876, 0.70367336, 0.45213944, -0.01204282, -0.47056112, -0.70776719, -0.61209929, -0.22855152,
    0.7013278, 0.44273552, -0.024082243, -0.4795737, -0.7095142, -0.60575902, -0.21710597, 0.27365544,
    0.43320641, -0.036114827, -0.48845071, -0.71106058, -0.59924757, -0.20559902, 0.2847459, 0.64117044])
MAXPOOL_VALID_K2_S2 = _arr([1, 2, 2, 2], [
    1, 1, 0, 1, 1, 1, 1, 1])
MAXPOOL_GRAD_VALID_K2_S2 = _arr([1, 4, 5, 2], [
    0, 2, 1, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 8, 0, 0, 0, 0, 5, 6, 0,
    0, 0, 0, 0, 0, 0, 0])
AVGPOOL_VALID_K2_S2 = _arr([1, 2, 2, 2], [
    0.62425876, 0.70367336, -0.47056112, -0.70776719, 0.43320641, -0.036114827, -0.59924757, -0.20559902])
MAXPOOL_VALID_K3_S2 = _arr([1, 1, 2, 2], [
    1, 1, 1, 1])
MAXPOOL_GRAD_VALID_K3_S2 = _arr([1, 4, 5, 2], [
    0, 2, 1, 0, 0, 0, 0, 4, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0])
AVGPOOL_VALID_K3_S2 = _arr([1, 1, 2, 2], [
    0.31907809, 0.11914047, -0.36559162, -0.23079136])


def close(actual, expected, rtol=1e-5, atol=2e-6):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=rtol, atol=atol)


# --------------------------------------------------------------------------------------
# NumPy references that loop over output pixels (slow, obviously right)
# --------------------------------------------------------------------------------------
def _geometry(size, k, stride, dilation, padding):
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        before = max((out - 1) * stride + eff - size, 0) // 2
    else:
        out = -(-(size - eff + 1) // stride)
        before = 0
    return out, before


def ref_conv2d(x, w, stride, padding, dilation=1):
    n, h, wd, _ = x.shape
    kh, kw, _, o = w.shape
    oh, top = _geometry(h, kh, stride, dilation, padding)
    ow, left = _geometry(wd, kw, stride, dilation, padding)
    out = np.zeros((n, oh, ow, o))
    for i, j in itertools.product(range(oh), range(ow)):
        for p, q in itertools.product(range(kh), range(kw)):
            r, c = i * stride + p * dilation - top, j * stride + q * dilation - left
            if 0 <= r < h and 0 <= c < wd:
                out[:, i, j, :] += x[:, r, c, :] @ w[p, q]
    return out


def ref_pool(x, k, stride, padding, reduce):
    n, h, wd, c = x.shape
    oh, top = _geometry(h, k, stride, 1, padding)
    ow, left = _geometry(wd, k, stride, 1, padding)
    out = np.zeros((n, oh, ow, c))
    for i, j in itertools.product(range(oh), range(ow)):
        r0, c0 = i * stride - top, j * stride - left
        window = x[:, max(r0, 0):r0 + k, max(c0, 0):c0 + k, :]
        out[:, i, j, :] = reduce(window.reshape(n, -1, c), axis=1)
    return out


# --------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("padding, stride, expected", [
    ("SAME", 1, CONV_SAME_S1), ("SAME", 2, CONV_SAME_S2), ("VALID", 1, CONV_VALID_S1), ("VALID", 2, CONV_VALID_S2)])
def test_conv2d_matches_tensorflow(padding, stride, expected):
    out = tf.nn.conv2d(CX, CW, stride, padding)
    assert out.dtype == tf.float32 and out.shape == expected.shape
    close(out, expected)
    close(tf.nn.conv2d(CX, CW, [stride, stride], padding), expected)
    close(tf.nn.conv2d(CX, CW, [1, stride, stride, 1], padding), expected)


def test_conv2d_dilated_and_explicit_padding_match_tensorflow():
    close(tf.nn.conv2d(CX, CW, 1, "SAME", dilations=2), CONV_SAME_D2)
    close(tf.nn.conv2d(CX, CW, [1, 2], [[0, 0], [1, 0], [2, 1], [0, 0]]), CONV_EXPLICIT)


CY = np.sin(np.arange(1 * 2 * 3 * 2) * 0.5).reshape(1, 2, 3, 2).astype(np.float32)
CONV_TRANSPOSE_SAME_S2 = _arr([1, 4, 5, 2], [   # tf.nn.conv2d_transpose(CY, CW, [1, 4, 5, 2], 2, "SAME")
    0.29801571, -0.43343529, -0.1010609, 0.47935778, 1.4615238, -1.0929915, -0.96486396, 1.5314295, 1.2813137,
    -0.74765629, -0.11676129, -0.42630094, 0.31047425, 0.28522015, 0.26897588, -1.6536534, 0.48245114, 1.4344256,
    0.40741786, -1.3606445, -0.51700985, 0.19982439, 0.42620879, -0.39349541, -2.4987051, 0.13669181, 2.4365919,
    -1.2438893, -2.1831024, -0.052114606, 0.17128174, 0.18333463, -0.25458977, -0.067647979, -0.22233003,
    1.5587567, -0.48597559, -1.3379275, -0.41153261, 1.5010651])
CONV_TRANSPOSE_VALID_S1 = _arr([1, 4, 4, 2], [   # tf.nn.conv2d_transpose(CY, CW, [1, 4, 4, 2], 1, "VALID")
    0.29801571, -0.43343529, 1.3604629, -0.61363369, 0.3164497, 0.78377324, -0.94157559, 1.1755121, -0.19369164,
    -0.14123034, -0.83760178, -0.57389414, 0.37710214, -0.52821904, 1.2195131, -0.049236298, -0.26879776,
    0.098088421, -1.1323643, 0.43976605, -0.13125187, -0.53086603, 0.9275775, -1.0147166, 0.28532931, -0.06200685,
    0.83678222, 1.019697, -0.57923371, 0.80049014, -1.3378366, -0.36270243])


def test_conv2d_transpose_matches_tensorflow_and_is_the_adjoint():
    close(tf.nn.conv2d_transpose(CY, CW, [1, 4, 5, 2], 2, "SAME"), CONV_TRANSPOSE_SAME_S2)
    close(tf.nn.conv2d_transpose(CY, CW, [1, 4, 4, 2], 1, "VALID"), CONV_TRANSPOSE_VALID_S1)
    y = np.sin(np.arange(12.0)).reshape(1, 2, 3, 2)             # <conv(x), y> == <x, conv_transpose(y)>
    lhs = np.sum(tf.nn.conv2d(X64, W64, 2, "SAME").numpy() * y)
    rhs = np.sum(X64 * tf.nn.conv2d_transpose(y, W64, [1, 4, 5, 2], 2, "SAME").numpy())
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)
    check_gradients(lambda v, w: tf.nn.conv2d_transpose(v, w, [1, 4, 5, 2], 2, "SAME"), y, W64[:2])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:Conv2DBackpropInput\]"):
        tf.nn.conv2d_transpose(CY, CW, [1, 9, 9, 2], 2, "SAME")


@settings(max_examples=30, deadline=None)
@given(h=st.integers(1, 7), w=st.integers(1, 7), c=st.integers(1, 3), o=st.integers(1, 3), kh=st.integers(1, 3),
       kw=st.integers(1, 3), stride=st.integers(1, 3), dilation=st.integers(1, 2),
       padding=st.sampled_from(["SAME", "VALID"]))
def test_conv2d_matches_reference(h, w, c, o, kh, kw, stride, dilation, padding):
    if padding == "VALID" and (h < (kh - 1) * dilation + 1 or w < (kw - 1) * dilation + 1):
        return
    x = np.sin(np.arange(2 * h * w * c) * 0.3).reshape(2, h, w, c)
    f = np.cos(np.arange(kh * kw * c * o) * 0.7).reshape(kh, kw, c, o)
    out = tf.nn.conv2d(x, f, stride, padding, dilations=dilation).numpy()
    np.testing.assert_allclose(out, ref_conv2d(x, f, stride, padding, dilation), rtol=1e-10, atol=1e-12)


def test_conv2d_dtypes():
    assert tf.nn.conv2d(tf.constant(CX, tf.float64), tf.constant(CW, tf.float64), 1, "SAME").dtype == tf.float64
    half = tf.nn.conv2d(tf.constant(CX, tf.float16), tf.constant(CW, tf.float16), 1, "SAME")
    assert half.dtype == tf.float16
    close(half, CONV_SAME_S1, rtol=1e-2, atol=1e-2)
    ints = tf.nn.conv2d(tf.ones([1, 3, 3, 1], tf.int32), tf.ones([2, 2, 1, 1], tf.int32), 1, "VALID")
    assert ints.dtype == tf.int32 and ints.numpy().ravel().tolist() == [4, 4, 4, 4]


POOL_CASES = [(pad, k, s) for pad in ("SAME", "VALID") for k, s in ((2, 1), (2, 2), (3, 2))]


@pytest.mark.parametrize("padding, k, s", POOL_CASES)
def test_max_pool_values_and_tie_gradients_match_tensorflow(padding, k, s):
    expected = globals()[f"MAXPOOL_{padding}_K{k}_S{s}"]
    expected_grad = globals()[f"MAXPOOL_GRAD_{padding}_K{k}_S{s}"]
    x = tf.constant(PX)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, k, s, padding)
        weights = tf.reshape(tf.range(1, y.shape.num_elements() + 1, dtype=tf.float32), y.shape)
        loss = tf.reduce_sum(y * weights)
    assert y.shape == expected.shape
    np.testing.assert_array_equal(y.numpy(), expected)
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), expected_grad)   # first max wins ties


@pytest.mark.parametrize("padding, k, s", POOL_CASES)
def test_avg_pool_matches_tensorflow(padding, k, s):
    close(tf.nn.avg_pool2d(CX, k, s, padding), globals()[f"AVGPOOL_{padding}_K{k}_S{s}"])


@settings(max_examples=30, deadline=None)
@given(h=st.integers(1, 7), w=st.integers(1, 7), k=st.integers(1, 3), stride=st.integers(1, 3),
       padding=st.sampled_from(["SAME", "VALID"]))
def test_pools_match_reference(h, w, k, stride, padding):
    if padding == "VALID" and (h < k or w < k):
        return
    x = np.sin(np.arange(2 * h * w * 3) * 0.9).reshape(2, h, w, 3)
    np.testing.assert_array_equal(tf.nn.max_pool2d(x, k, stride, padding).numpy(),
                                  ref_pool(x, k, stride, padding, np.max))
    np.testing.assert_allclose(tf.nn.avg_pool2d(x, k, stride, padding).numpy(),
                               ref_pool(x, k, stride, padding, np.mean), rtol=1e-12)


def test_pool_dtypes_and_aliases():
    ints = tf.nn.max_pool2d(tf.reshape(tf.range(16), [1, 4, 4, 1]), 2, 2, "VALID")
    assert ints.dtype == tf.int32 and ints.numpy().ravel().tolist() == [5, 7, 13, 15]
    same_int = tf.nn.max_pool2d(-tf.ones([1, 3, 3, 1], tf.int32), 2, 2, "SAME")     # padding never wins
    assert same_int.numpy().ravel().tolist() == [-1, -1, -1, -1]
    assert tf.nn.avg_pool2d(tf.constant(CX, tf.float64), 2, 2, "SAME").dtype == tf.float64
    np.testing.assert_array_equal(tf.nn.max_pool(PX, [2, 2], [1, 2, 2, 1], "SAME").numpy(), MAXPOOL_SAME_K2_S2)
    close(tf.nn.avg_pool(CX, 2, 2, "SAME"), AVGPOOL_SAME_K2_S2)
    close(tf.nn.convolution(CX, CW, padding="SAME"), CONV_SAME_S1)


# --------------------------------------------------------------------------------------
# Gradients
# --------------------------------------------------------------------------------------
X64 = np.sin(np.arange(1 * 4 * 5 * 2) * 0.7).reshape(1, 4, 5, 2)        # distinct values: no pooling ties
W64 = CW.astype(np.float64)


def _projection(shape):
    return tf.constant(np.cos(np.arange(int(np.prod(shape))) * 1.7).reshape(shape))


CONV_GRAD_CASES = [("SAME", 1, 1), ("SAME", 2, 1), ("VALID", 1, 1), ("VALID", 2, 1), ("SAME", 1, 2),
                   ([[0, 0], [1, 0], [2, 1], [0, 0]], 2, 1)]


@pytest.mark.parametrize("padding, stride, dilation", CONV_GRAD_CASES)
def test_conv2d_gradients_wrt_input_and_filter(padding, stride, dilation):
    proj = _projection(tf.nn.conv2d(X64, W64, stride, padding, dilations=dilation).shape)
    check_gradients(lambda x, w: tf.reduce_sum(tf.nn.conv2d(x, w, stride, padding, dilations=dilation) * proj),
                    X64, W64)


def test_conv2d_gradient_full_jacobian_stride2():
    check_gradients(lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), X64[:, :3, :4, :], W64[:2])


@pytest.mark.parametrize("padding, stride", [("SAME", 2), ("VALID", 1)])
def test_conv2d_second_order(padding, stride):
    w = tf.constant(W64)
    x = tf.constant(X64)
    proj = _projection(tf.nn.conv2d(X64, W64, stride, padding).shape)
    check_second_order(lambda v: tf.reduce_sum(tf.square(tf.nn.conv2d(v, w, stride, padding)) * proj), X64)
    check_second_order(lambda v: tf.reduce_sum(tf.square(tf.nn.conv2d(x, v, stride, padding)) * proj), W64)

    def grad_wrt_input(filters):                 # mixed: d/dfilter of d/dinput (Conv2DBackpropInput's grad)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.square(tf.nn.conv2d(x, filters, stride, padding)) * proj)
        return tape.gradient(y, x)
    check_gradients(grad_wrt_input, W64)


@pytest.mark.parametrize("padding, k, s", POOL_CASES)
def test_pool_gradients(padding, k, s):
    proj = _projection(tf.nn.max_pool2d(X64, k, s, padding).shape)
    check_gradients(lambda x: tf.reduce_sum(tf.nn.max_pool2d(x, k, s, padding) * proj), X64)
    check_gradients(lambda x: tf.reduce_sum(tf.nn.avg_pool2d(x, k, s, padding) * proj), X64)


@pytest.mark.parametrize("padding, k, s", [("SAME", 2, 2), ("VALID", 3, 1)])
def test_pool_second_order(padding, k, s):
    proj = _projection(tf.nn.max_pool2d(X64, k, s, padding).shape)
    check_second_order(lambda x: tf.reduce_sum(tf.square(tf.nn.max_pool2d(x, k, s, padding)) * proj), X64)
    check_second_order(lambda x: tf.reduce_sum(tf.square(tf.nn.avg_pool2d(x, k, s, padding)) * proj), X64)


def test_max_pool_grad_grad_third_order_is_connected():
    x = tf.constant(X64)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.reduce_sum(tf.square(tf.nn.max_pool2d(x, 2, 2, "SAME")))
        g = t1.gradient(y, x)
        gg = tf.reduce_sum(g * g)
    h = t2.gradient(gg, x)
    pooled = tf.nn.max_pool2d(x, 2, 2, "SAME").numpy()
    winners = g.numpy() != 0
    assert winners.sum() == pooled.size
    np.testing.assert_allclose(h.numpy()[winners], 8 * x.numpy()[winners])    # d/dx sum((2x)^2) at winners


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------
def test_conv2d_errors():
    x4, w4 = tf.zeros([1, 5, 5, 3]), tf.zeros([3, 3, 3, 4])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"convolution input must be 4-dimensional: \[5,5,3\].*\[Op:Conv2D\]"):
        tf.nn.conv2d(tf.zeros([5, 5, 3]), w4, 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"convolution filter must be 4-dimensional: \[3,3,3\]"):
        tf.nn.conv2d(x4, tf.zeros([3, 3, 3]), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input depth must be evenly divisible by filter depth: 3 vs 2.*\[1,5,5,3\].*"
                             r"\[3,3,2,4\].*\[Op:Conv2D\]"):
        tf.nn.conv2d(x4, tf.zeros([3, 3, 2, 4]), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="evenly divisible by filter depth: 4 vs 3"):
        tf.nn.conv2d(tf.zeros([1, 5, 5, 4]), w4, 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", "
                             r"\"VALID\", \"EXPLICIT\".*\[Op:Conv2D\]"):
        tf.nn.conv2d(x4, w4, 1, "FOO")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"'padding' of \"same\""):
        tf.nn.conv2d(x4, w4, 1, "same")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Computed output size would be negative: -1 \[input_size: 5, effective_filter_size: 7, "
                             r"stride: 1\] \[Op:Conv2D\]"):
        tf.nn.conv2d(x4, tf.zeros([7, 7, 3, 4]), 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot compute Conv2D as input #1.*expected to be a float tensor but is a double tensor"):
        tf.nn.conv2d(x4, tf.zeros([3, 3, 3, 4], tf.float64), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int64.*Conv2D|Conv2D.*int64"):
        tf.nn.conv2d(tf.zeros([1, 5, 5, 3], tf.int64), tf.zeros([3, 3, 3, 4], tf.int64), 1, "SAME")
    with pytest.raises(ValueError, match=r"strides should be of length 1, 2 or 4. Received: strides=\[1, 2, 2\] of "
                                         r"length 3"):
        tf.nn.conv2d(x4, w4, [1, 2, 2], "SAME")
    with pytest.raises(tf.errors.UnimplementedError, match="strides in the batch and depth dimensions"):
        tf.nn.conv2d(x4, w4, [2, 1, 1, 1], "SAME")
    with pytest.raises(tf.errors.UnimplementedError, match="NHWC"):
        tf.nn.conv2d(tf.zeros([1, 3, 5, 5]), w4, 1, "SAME", data_format="NCHW")


def test_pool_errors():
    x4 = tf.zeros([1, 5, 5, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"MaxPool.*4-dimensional.*\[5,5,3\].*\[Op:MaxPool\]"):
        tf.nn.max_pool2d(tf.zeros([5, 5, 3]), 2, 2, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", "
                             r"\"VALID\".*\[Op:MaxPool\]"):
        tf.nn.max_pool2d(x4, 2, 2, "FOO")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Computed output size would be negative: -1 \[input_size: 5, effective_filter_size: 7, "
                             r"stride: 1\] \[Op:MaxPool\]"):
        tf.nn.max_pool2d(x4, 7, 1, "VALID")
    with pytest.raises(ValueError, match=r"ksize should be of length 1, 2 or 4. Received: ksize=\[1, 2, 2\] of "
                                         r"length 3"):
        tf.nn.max_pool2d(x4, [1, 2, 2], 2, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int32.*\[Op:AvgPool\]"):
        tf.nn.avg_pool2d(tf.zeros([1, 5, 5, 3], tf.int32), 2, 2, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"NHWC.*\[Op:AvgPool\]"):
        tf.nn.avg_pool2d(x4, 2, 2, "VALID", data_format="NCHW")
    with pytest.raises(tf.errors.UnimplementedError, match="batch nor channel"):
        tf.nn.max_pool2d(x4, [1, 2, 2, 2], 1, "VALID")


def test_backprop_ops_check_their_shapes():
    from engine.ops import nn_ops
    attrs = dict(strides=(1, 1, 1, 1), padding="SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"out_backprop has shape \[1,3,3,4\].*\[1,5,5,4\].*\[Op:Conv2DBackpropInput\]"):
        nn_ops.conv2d_backprop_input([1, 5, 5, 3], tf.zeros([3, 3, 3, 4]), tf.zeros([1, 3, 3, 4]), **attrs)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:Conv2DBackpropFilter\]"):
        nn_ops.conv2d_backprop_filter(tf.zeros([1, 5, 5, 3]), [3, 3, 3, 4], tf.zeros([1, 5, 4, 4]), **attrs)


# --------------------------------------------------------------------------------------
# Shape inference with unknown dimensions (graph mode and tracing reuse it)
# --------------------------------------------------------------------------------------
class _Sym:
    def __init__(self, shape, dtype=tf.float32):
        self.shape = TensorShape(shape)
        self.dtype = dtype


def _infer(op_name, shapes, attrs, constants=None):
    inputs = [_Sym(s) if not isinstance(s, _Sym) else s for s in shapes]
    constants = constants or {}
    ic = InferenceContext(op_name, inputs, attrs, lambda t: constants.get(inputs.index(t)))
    return [(d, s) for d, s in get_op(op_name).infer(ic)]


CONV_ATTRS = dict(strides=(1, 2, 2, 1), padding="SAME", dilations=(1, 1, 1, 1), explicit_paddings=(),
                  data_format="NHWC")
POOL_ATTRS = dict(ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID", data_format="NHWC")


def test_shape_inference_with_unknown_dimensions():
    assert _infer("Conv2D", [[None, 5, 7, 3], [3, 3, 3, 8]], CONV_ATTRS)[0][1].as_list() == [None, 3, 4, 8]
    assert _infer("Conv2D", [[None, None, 7, 3], [3, 3, 3, 8]], CONV_ATTRS)[0][1].as_list() == [None, None, 4, 8]
    assert _infer("Conv2D", [None, [3, 3, 3, 8]], CONV_ATTRS)[0][1].as_list() == [None, None, None, 8]
    assert _infer("Conv2DBackpropInput", [[4], [3, 3, 3, 8], [None, 3, 4, 8]], CONV_ATTRS,
                  {0: np.array([2, 5, 7, 3])})[0][1].as_list() == [2, 5, 7, 3]
    assert _infer("Conv2DBackpropFilter", [[None, 5, 7, 3], [4], [None, 3, 4, 8]], CONV_ATTRS)[0][1].rank == 4
    assert _infer("MaxPool", [[None, 5, None, 3]], POOL_ATTRS)[0][1].as_list() == [None, 2, None, 3]
    assert _infer("AvgPool", [None], POOL_ATTRS)[0][1].rank == 4
    assert _infer("Softmax", [[None, 10]], {})[0][1].as_list() == [None, 10]
    (_, loss), (_, backprop) = _infer("SoftmaxCrossEntropyWithLogits", [[None, 10], [None, 10]], {})
    assert loss.as_list() == [None] and backprop.as_list() == [None, 10]
    (_, loss), (_, backprop) = _infer("SparseSoftmaxCrossEntropyWithLogits",
                                      [[None, 10], _Sym([None], tf.int32)], {})
    assert loss.as_list() == [None] and backprop.as_list() == [None, 10]
    assert _infer("BiasAdd", [[None, None, 4], [4]], {"data_format": "NHWC"})[0][1].as_list() == [None, None, 4]
    assert _infer("BiasAddGrad", [[None, 4]], {"data_format": "NHWC"})[0][1].as_list() == [4]
    assert _infer("Relu", [None], {})[0][1].rank is None


def test_shape_inference_reports_static_errors():
    with pytest.raises(ValueError, match=r"input depth must be evenly divisible by filter depth: 3 vs 2"):
        _infer("Conv2D", [[None, 5, 5, 3], [3, 3, 2, 8]], CONV_ATTRS)
    with pytest.raises(ValueError, match=r"convolution input must be 4-dimensional"):
        _infer("Conv2D", [[5, 5, 3], [3, 3, 3, 8]], CONV_ATTRS)
    with pytest.raises(ValueError, match=r"Computed output size would be negative: -2"):
        _infer("MaxPool", [[None, 1, 5, 3]], dict(POOL_ATTRS, ksize=(1, 4, 4, 1), strides=(1, 1, 1, 1)))
    with pytest.raises(ValueError, match=r"rank 2.*SoftmaxCrossEntropyWithLogits"):
        _infer("SoftmaxCrossEntropyWithLogits", [[None, 3, 10], [None, 3, 10]], {})
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 4 and 5"):
        _infer("BiasAdd", [[None, 4], [5]], {"data_format": "NHWC"})


@pytest.mark.gpu
def test_gpu_matches_cpu_for_conv_pool_and_their_gradients():
    def run():
        x, w = tf.constant(X64), tf.constant(W64)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, w])
            y = tf.nn.conv2d(x, w, 2, "SAME")
            z = tf.nn.max_pool2d(tf.nn.relu(y), 2, 1, "SAME") + tf.nn.avg_pool2d(y, 2, 1, "VALID")[:, :1, :1, :]
            loss = tf.reduce_sum(tf.square(z))
        return [v.numpy() for v in [z, *tape.gradient(loss, [x, w])]]
    cpu = run()
    with tf.device("/GPU:0"):
        gpu = run()
    for a, b in zip(cpu, gpu):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


def test_graph_mode_values_and_gradients_equal_eager():
    v1 = tf.compat.v1
    labels = np.array([1, 5])
    x_value = np.sin(np.arange(2 * 6 * 6 * 2) * 0.3).reshape(2, 6, 6, 2)
    w_value = np.cos(np.arange(3 * 3 * 2 * 4) * 0.5).reshape(3, 3, 2, 4)

    def model(x, w):
        y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 2, "SAME"), tf.constant([0.1, -0.2, 0.3, 0.0],
                                                                                  tf.float64)))
        p = tf.nn.max_pool2d(y, 2, 1, "SAME") + tf.nn.avg_pool2d(y, 3, 1, "SAME")
        logits = tf.reshape(p, [-1, 36])
        return (tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
                + tf.reduce_sum(tf.nn.log_softmax(logits, axis=0)[0]))

    graph = v1.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float64, [None, 6, 6, 2])
        w = tf.constant(w_value)
        assert tf.nn.conv2d(x, w, 2, "SAME").shape.as_list() == [None, 3, 3, 4]
        loss = model(x, w)
        grads = v1.gradients(loss, [x, w])
        with v1.Session() as sess:
            graph_values = sess.run([loss] + grads, {x: x_value})
    xt, wt = tf.constant(x_value), tf.constant(w_value)
    with tf.GradientTape() as tape:
        tape.watch([xt, wt])
        eager_loss = model(xt, wt)
    eager_values = [eager_loss] + tape.gradient(eager_loss, [xt, wt])
    for g, e in zip(graph_values, eager_values):
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-12, atol=1e-14)
