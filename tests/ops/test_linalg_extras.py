"""tf.linalg: det, slogdet, inv, solve, triangular_solve, cholesky, diag/set_diag/diag_part, band_part, qr, svd,
eigh. Golden values recorded from TF 2.21; gradients checked by finite differences (float64)."""
import numpy as np
import pytest
from gradcheck import check_gradients

import engine as tf
from engine.framework.errors import InvalidArgumentError, NotFoundError

A = [[2., 1.], [1., 3.]]
rng = np.random.default_rng(3)


def well(*shape):
    return rng.standard_normal(shape) * 0.3 + np.eye(shape[-1]) * 2.0


def flat(tensors):
    """Several outputs as one vector (signs of singular vectors/eigenvectors removed by the callers)."""
    return tf.concat([tf.reshape(t, [-1]) for t in tensors], 0)


def qr_flat(x):
    """q and the upper triangle of r: r's lower triangle is zero by construction, and TF's QR gradient (like
    the engine's) assumes its incoming gradient has none there."""
    q, r = tf.linalg.qr(x)
    return flat([q, tf.linalg.band_part(r, 0, -1)])


def test_det_slogdet_inv_values_match_tf():
    a = tf.constant(A)
    assert tf.linalg.det(a).dtype == tf.float32 and float(tf.linalg.det(a)) == pytest.approx(5.0)
    sign, logdet = tf.linalg.slogdet(-a)
    assert float(sign) == 1.0 and float(logdet) == pytest.approx(1.6094379425048828)
    np.testing.assert_allclose(tf.linalg.inv(a).numpy(), np.linalg.inv(A), rtol=1e-6)
    assert float(tf.linalg.logdet(a)) == pytest.approx(1.6094379, rel=1e-6)


def test_batched_ops_match_numpy():
    x = well(2, 3, 3)
    b = rng.standard_normal((2, 3, 2))
    np.testing.assert_allclose(tf.linalg.det(x).numpy(), np.linalg.det(x), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.solve(x, b).numpy(), np.linalg.solve(x, b), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.solve(x, b, adjoint=True).numpy(),
                               np.linalg.solve(np.swapaxes(x, -1, -2), b), rtol=1e-10)
    low = np.tril(x)
    np.testing.assert_allclose(tf.linalg.triangular_solve(x, b).numpy(), np.linalg.solve(low, b), rtol=1e-10)
    up = np.triu(x)
    np.testing.assert_allclose(tf.linalg.triangular_solve(x, b, lower=False, adjoint=True).numpy(),
                               np.linalg.solve(np.swapaxes(up, -1, -2), b), rtol=1e-10)
    # triangular_solve broadcasts batch dimensions, as TF 2.21
    assert tf.linalg.triangular_solve(x[:1], b).shape == (2, 3, 2)


def test_triangular_solve_golden():
    out = tf.linalg.triangular_solve(tf.constant(A), tf.ones([2, 1]))
    np.testing.assert_allclose(out.numpy(), [[0.5], [0.16666667]], rtol=1e-6)


def test_cholesky_values_and_not_positive_definite_gives_nan_like_tf():
    s = np.array([[4., 2.], [2., 3.]])
    np.testing.assert_allclose(tf.linalg.cholesky(s).numpy(), np.linalg.cholesky(s))
    out = tf.linalg.cholesky(tf.constant([[1., 2.], [2., 1.]])).numpy()
    assert np.isnan(out[0, 0]) and out[0, 1] == 0 and np.isnan(out[1, 0]) and np.isnan(out[1, 1])


def test_diag_set_diag_diag_part_band_part_golden():
    np.testing.assert_array_equal(tf.linalg.diag([1., 2.], k=1).numpy(), [[0, 1, 0], [0, 0, 2], [0, 0, 0]])
    np.testing.assert_array_equal(tf.linalg.diag([1., 2.], num_rows=3, padding_value=9).numpy(),
                                  [[1, 9], [9, 2], [9, 9]])
    np.testing.assert_array_equal(tf.linalg.set_diag(tf.zeros([2, 3]), [1., 2.]).numpy(), [[1, 0, 0], [0, 2, 0]])
    np.testing.assert_array_equal(tf.linalg.diag_part(tf.reshape(tf.range(12.), [3, 4]), k=1).numpy(), [1, 6, 11])
    np.testing.assert_array_equal(tf.linalg.band_part(tf.ones([3, 3]), 1, 0).numpy(),
                                  [[1, 0, 0], [1, 1, 0], [0, 1, 1]])
    np.testing.assert_array_equal(tf.linalg.band_part(tf.ones([3, 3]), 0, -1).numpy(), np.triu(np.ones((3, 3))))


def test_eye_batch_shape_and_dtype():
    e = tf.eye(2, 3, batch_shape=[3, 1], dtype=tf.int32)
    assert e.shape == (3, 1, 2, 3) and e.dtype == tf.int32
    np.testing.assert_array_equal(e.numpy()[2, 0], [[1, 0, 0], [0, 1, 0]])
    assert tf.linalg.eye(2).shape == (2, 2)


def test_qr_svd_eigh_match_tf_golden_up_to_signs():
    x = tf.reshape(tf.range(6.), [3, 2])
    q, r = tf.linalg.qr(x)
    np.testing.assert_allclose(np.abs(r.numpy()), np.abs([[-4.472136, -5.813777], [0., 1.095445]]), rtol=1e-5)
    np.testing.assert_allclose((q @ r).numpy(), x.numpy(), atol=1e-5)
    qf, rf = tf.linalg.qr(x, full_matrices=True)
    assert qf.shape == (3, 3) and rf.shape == (3, 2)
    s, u, v = tf.linalg.svd(x)
    np.testing.assert_allclose(s.numpy(), [7.386482, 0.66323566], rtol=1e-5)
    np.testing.assert_allclose((u * s) @ tf.transpose(v), x.numpy(), atol=1e-5)
    assert tf.linalg.svd(x, compute_uv=False).shape == (2,)
    assert [t.shape for t in tf.linalg.svd(x, full_matrices=True)] == [(2,), (3, 3), (2, 2)]
    e, vec = tf.linalg.eigh(tf.constant(A))
    np.testing.assert_allclose(e.numpy(), [1.3819659, 3.6180334], rtol=1e-6)
    np.testing.assert_allclose(np.abs(vec.numpy()), np.abs([[-0.8506507, -0.52573115], [0.52573115, -0.8506507]]),
                               rtol=1e-5)
    np.testing.assert_allclose(tf.linalg.eigvalsh(tf.constant(A)).numpy(), e.numpy())


@pytest.mark.parametrize("f, x", [
    (tf.linalg.det, well(2, 3, 3)),
    (lambda x: tf.linalg.slogdet(x)[1], well(3, 3)),
    (tf.linalg.inv, well(2, 3, 3)),
    (lambda x: tf.linalg.inv(x, adjoint=True), well(3, 3)),
    (lambda x: tf.linalg.cholesky(tf.matmul(x, x, transpose_b=True) + tf.eye(3, dtype=tf.float64)), well(3, 3)),
    (lambda x: tf.linalg.diag(x, k=-1), rng.standard_normal((2, 3))),
    (lambda x: tf.linalg.diag_part(x, k=1), rng.standard_normal((2, 3, 4))),
    (lambda x: tf.linalg.set_diag(x, tf.ones([3], tf.float64) * 2.), rng.standard_normal((3, 4))),
    (lambda x: tf.linalg.band_part(x, 0, 1), rng.standard_normal((3, 3))),
    (lambda x: qr_flat(x), rng.standard_normal((4, 3))),
    (lambda x: qr_flat(x), rng.standard_normal((3, 4))),
    (lambda x: tf.linalg.svd(x, compute_uv=False), rng.standard_normal((4, 3))),
    (lambda x: flat([tf.abs(t) for t in tf.linalg.svd(x)]), rng.standard_normal((3, 4))),
    (lambda x: flat([tf.abs(t) for t in tf.linalg.svd(x)]), rng.standard_normal((2, 4, 3))),
    (lambda x: flat([tf.abs(t) for t in tf.linalg.eigh(x + tf.transpose(x))]), rng.standard_normal((3, 3))),
])
def test_gradients_match_finite_differences(f, x):
    check_gradients(f, x, atol=1e-5, rtol=1e-4)


def test_solve_gradients():
    check_gradients(tf.linalg.solve, well(2, 3, 3), rng.standard_normal((2, 3, 2)))
    check_gradients(lambda a, b: tf.linalg.triangular_solve(a, b, lower=False), well(3, 3),
                    rng.standard_normal((3, 2)))
    check_gradients(lambda a, b: tf.linalg.triangular_solve(a, b, adjoint=True), well(1, 3, 3),
                    rng.standard_normal((2, 3, 2)))


def test_errors_match_tf():
    with pytest.raises(InvalidArgumentError, match="Input matrix must be square.*MatrixDeterminant"):
        tf.linalg.det(tf.ones([2, 3]))
    with pytest.raises(InvalidArgumentError, match="must have rank >= 2, got 1.*MatrixDeterminant"):
        tf.linalg.det(tf.ones([2]))
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of int32.*MatrixDeterminant"):
        tf.linalg.det(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(NotFoundError, match="MatrixDeterminant"):
        tf.linalg.det(tf.eye(2, dtype=tf.float16))
    assert tf.linalg.inv(tf.eye(2, dtype=tf.float16)).dtype == tf.float16   # TF has a half kernel for inv
    with pytest.raises(InvalidArgumentError, match="Input is not invertible.*MatrixInverse"):
        tf.linalg.inv(tf.ones([2, 2]))
    with pytest.raises(InvalidArgumentError, match="Input matrix is not invertible.*MatrixSolve"):
        tf.linalg.solve(tf.ones([2, 2]), tf.ones([2, 1]))
    with pytest.raises(InvalidArgumentError, match="Input matrix and rhs are incompatible.*MatrixSolve"):
        tf.linalg.solve(tf.eye(2), tf.ones([3, 1]))
    with pytest.raises(InvalidArgumentError, match=r"In\[0\] mismatch In\[1\] shape: 2 vs. 3.*MatrixTriangularSolve"):
        tf.linalg.triangular_solve(tf.eye(2), tf.ones([3, 1]))
    with pytest.raises(InvalidArgumentError, match="Input matrix must be square.*Cholesky"):
        tf.linalg.cholesky(tf.ones([2, 3]))
    with pytest.raises(InvalidArgumentError, match="number of rows or columns is not consistent.*MatrixDiagV3"):
        tf.linalg.diag([1., 2.], k=1, num_rows=3, num_cols=4)
    with pytest.raises(InvalidArgumentError, match=r"(?s)Input shape: \[2,3\].*MatrixSetDiagV3"):
        tf.linalg.set_diag(tf.zeros([2, 3]), [1., 2., 3.])
    with pytest.raises(ValueError, match="rank >= 2"):
        tf.linalg.matrix_transpose(tf.ones([2]))


def test_graph_shape_errors():
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3.*MatrixDeterminant"):
            tf.linalg.det(tf.compat.v1.placeholder(tf.float32, [None, 2, 3]))
        x = tf.compat.v1.placeholder(tf.float32, [None, None, 3])
        assert tf.linalg.inv(x).shape.as_list() == [None, 3, 3]
