"""Graph-vs-eager cases for ``engine/ops/linalg_extras.py``, ``special_ops.py`` and ``bitwise_ops.py``.

Loaded by ``op_catalog.py`` (see its bottom). Only the public ``tf`` API is used, because
``record_tf_static_shapes.py`` runs these cases under real TensorFlow too. Factorizations whose
gradients need known matrix sizes (QR, SVD) are built only from fully known shapes.
"""
import numpy as np

import engine as tf
from op_catalog import Case

C = Case
_rng = np.random.default_rng(11)    # this file's own values: the shared generator's sequence is left alone


def _n(*shape):
    return _rng.standard_normal(shape)


def _well_conditioned(*shape):
    """Matrices ``I * n + noise``: far from singular."""
    n = shape[-1]
    return _rng.standard_normal(shape) * 0.3 + np.eye(n) * 2.0


def _spd(x):
    return tf.matmul(x, x, transpose_b=True) + tf.eye(3, dtype=x.dtype) * 0.5


def _sym(x):
    return x + tf.linalg.matrix_transpose(x)


_KNOWN = dict(partial=(), static=("known",))

CASES = [
    C("MatrixDeterminant", tf.linalg.det, _well_conditioned(2, 3, 3)),
    C("LogMatrixDeterminant", lambda x: tf.linalg.slogdet(x)[1], _well_conditioned(2, 3, 3)),
    C("MatrixInverse", tf.linalg.inv, _well_conditioned(2, 3, 3)),
    C("MatrixInverse", lambda x: tf.linalg.inv(x, adjoint=True), _well_conditioned(3, 3), name="adjoint"),
    C("MatrixSolve", tf.linalg.solve, _well_conditioned(2, 3, 3), _n(2, 3, 2)),
    C("MatrixTriangularSolve", tf.linalg.triangular_solve, _well_conditioned(2, 3, 3), _n(2, 3, 2)),
    C("MatrixTriangularSolve", lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True),
      _well_conditioned(3, 3), _n(3, 2), name="upper_adjoint"),
    C("Cholesky", lambda x: tf.linalg.cholesky(_spd(x)), _n(2, 3, 3), partial=("batch",), static=("known", "batch")),
    C("MatrixDiagV3", lambda d: tf.linalg.diag(d, k=1), _n(2, 3), partial=("batch",), static=("known",)),
    C("MatrixSetDiagV3", tf.linalg.set_diag, _n(2, 3, 4), _n(2, 3), partial=("batch",)),
    C("MatrixDiagPartV3", lambda x: tf.linalg.diag_part(x, k=-1), _n(2, 3, 4), partial=("batch",)),
    C("MatrixBandPart", lambda x: tf.linalg.band_part(x, 1, 0), _n(2, 4, 4)),
    C("Qr", lambda x: list(tf.linalg.qr(x)), _n(4, 3), second=False, **_KNOWN),
    C("Qr", lambda x: list(tf.linalg.qr(x)), _n(2, 3, 4), name="wide", second=False, **_KNOWN),
    C("Svd", lambda x: tf.linalg.svd(x, compute_uv=False), _n(2, 4, 3), second=False, **_KNOWN),
    C("Svd", lambda x: [s ** 2 for s in tf.linalg.svd(x)][:1] + [tf.abs(tf.linalg.svd(x)[1])],
      _n(4, 3), name="uv", second=False, **_KNOWN),
    C("SelfAdjointEigV2", lambda x: [tf.linalg.eigh(_sym(x))[0], tf.abs(tf.linalg.eigh(_sym(x))[1])], _n(3, 3),
      second=False, **_KNOWN),
    C("SelfAdjointEigV2", lambda x: tf.linalg.eigvalsh(_sym(x)), _n(2, 3, 3), name="values", second=False,
      **_KNOWN),
    C("Lgamma", tf.math.lgamma, _rng.uniform(0.5, 3.0, (2, 3))),
    C("Digamma", tf.math.digamma, _rng.uniform(0.5, 3.0, (2, 3))),
    C("Polygamma", tf.math.polygamma, np.array([1.0, 2.0, 3.0]), _rng.uniform(0.5, 3.0, (2, 3)), grad=(1,)),
    C("Zeta", tf.math.zeta, np.array([2.0, 3.0, 4.5]), _rng.uniform(0.5, 3.0, (2, 3)), grad=(1,)),
    C("Erfinv", tf.math.erfinv, _rng.uniform(-0.9, 0.9, (2, 3))),
    C("Ndtri", tf.math.ndtri, _rng.uniform(0.1, 0.9, (2, 3))),
    C("Xlogy", tf.math.xlogy, _n(2, 3), _rng.uniform(0.5, 2.0, (3,))),
    C("Xdivy", tf.math.xdivy, _n(2, 3), _rng.uniform(0.5, 2.0, (2, 3))),
    C("Xlog1py", tf.math.xlog1py, _n(2, 3), _rng.uniform(0.5, 2.0, (2, 3))),
    C("BesselI0e", tf.math.bessel_i0e, _n(2, 3) * 5),
    C("BesselI1e", tf.math.bessel_i1e, _n(2, 3) * 5),
    C("LeftShift", tf.bitwise.left_shift, _rng.integers(-50, 50, (2, 3)).astype(np.int32),
      _rng.integers(0, 40, (3,)).astype(np.int32)),
    C("RightShift", tf.bitwise.right_shift, _rng.integers(-50, 50, (2, 3)).astype(np.int64),
      _rng.integers(-2, 70, (2, 3)).astype(np.int64)),
    C("BroadcastArgs", tf.broadcast_dynamic_shape, np.array([2, 1, 3], np.int32), np.array([4, 1], np.int32),
      partial=()),
]

EXCLUDED = {
    "ResourceStridedSliceAssign": "state (v[1:3].assign): tests/test_conversions_and_slice_assign.py compares "
                                  "eager and tf.function",
}
