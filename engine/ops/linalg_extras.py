"""Dense linear algebra: determinants, inverses, solves, factorizations and diagonal/band surgery.

Every op works on the last two dimensions and treats any leading dimensions as a
batch, as TF does. The kernels call ``xp.linalg`` (LAPACK through NumPy, cuSOLVER
through CuPy); the gradients are TF's formulas, written with engine ops so they
can be differentiated again:

* ``MatrixDeterminant``: ``d det(A) = det(A) * inv(A)^T``;
  ``LogMatrixDeterminant``: ``d log|det(A)| = inv(A)^T`` (the sign has no gradient).
* ``MatrixInverse``: ``dA = -inv(A)^T g inv(A)^T``.
* ``MatrixSolve`` (``X = A^-1 B``): ``dB = A^-T g``, ``dA = -dB X^T``.
* ``MatrixTriangularSolve``: the same, kept on ``A``'s triangle (the op reads only that triangle).
* ``Cholesky`` (``A = L L^T``): ``Phi(L^T g) `` sandwiched between ``L^-1``, symmetrized.
* ``Qr``, ``Svd``, ``SelfAdjointEigV2``: TF's matrix-calculus formulas (see each gradient's docstring).
* ``MatrixDiagV3``/``MatrixSetDiagV3``/``MatrixDiagPartV3``/``MatrixBandPart``: masks and diagonals.

Errors follow TF's kernels: a non-square matrix, a singular matrix (``inv``,
``solve``) or mismatched right-hand sides raise ``InvalidArgumentError`` with TF's
wording; ``cholesky`` of a matrix that is not positive definite gives NaN in the
lower triangle (TF 2.21 does the same rather than raising).

Deliberate differences from TF 2.21: only real dtypes (float32/float64, and
float16 where TF has a CPU kernel: ``inv``, ``qr``); ``diag``/``set_diag``/
``diag_part`` take a single diagonal ``k`` (an int), not a ``(low, high)`` band of
diagonals; ``qr``'s gradient is that of TF (square and deep matrices, and wide ones
with ``full_matrices=False``); ``svd``'s gradient is not implemented for
``full_matrices=True`` with non-square matrices (TF handles ``|m - n| <= 1``).
"""
import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError, NotFoundError
from ..framework.graph import constant_value
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape
from . import _shapes
from . import array_ops, linalg_ops, math_ops, reduction_ops
from ._dispatch import FLOAT, check_dtype, check_same_dtype, execute, int_tensor, to_tensor

__all__ = []   # tf.linalg names are exported by engine/linalg.py; tf.eye already lives in array_ops

_F32_64 = frozenset([dtypes.float32, dtypes.float64])


def _iae(message, op_name):
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _check_float(op_name, x, allowed=_F32_64):
    """float32/float64 (the CPU kernels TF has); float16 is a NotFoundError, like TF's missing kernel."""
    if x.dtype in allowed:
        return
    if x.dtype is dtypes.float16:
        raise NotFoundError(None, None, f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}"
                                        f"[T=DT_HALF]\nAll kernels registered for op {op_name}: T in [float, "
                                        f"double]; cast the input to float32 [Op:{op_name}]")
    check_dtype(op_name, x, FLOAT, "input")


def _square_dims(ic, i, op_name):
    """Static checks for a (batch of) square matrices; returns the TensorShape (maybe unknown rank)."""
    s = ic.shape(i)
    if s.rank is None:
        return s
    if s.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank} for '{{{{node {op_name}}}}}' with "
                         f"input shapes: {_shapes.fmt(s)}.")
    m, n = s.as_list()[-2:]
    if m is not None and n is not None and m != n:
        raise ValueError(f"Dimensions must be equal, but are {m} and {n} for '{{{{node {op_name}}}}}' with input "
                         f"shapes: {_shapes.fmt(s)}.")
    d = n if m is None else m
    return s[:-2].concatenate([d, d])   # a square matrix: one known side tells the other, as TF infers


def _check_square_value(x, op_name):
    if x.ndim < 2:
        raise _iae(f"Input tensor 0 must have rank >= 2, got {x.ndim}", op_name)
    if x.shape[-1] != x.shape[-2]:
        raise _iae("Input matrix must be square.", op_name)


def _as_compute(xp, x):
    """float16 is computed in float32 (LAPACK has no half precision) and cast back by the caller."""
    return x.astype(xp.float32) if x.dtype == xp.float16 else x


def _t(x):
    return linalg_ops.matrix_transpose(x)


def _expand2(t):
    return array_ops.expand_dims(array_ops.expand_dims(t, -1), -1)


# --------------------------------------------------------------------------------------
# Determinants
# --------------------------------------------------------------------------------------
def _det_kernel(xp):
    def k(x):
        _check_square_value(x, "MatrixDeterminant")
        return xp.asarray(xp.linalg.det(x)).astype(x.dtype)[()]
    return k


def _batch_infer(op_name):
    def infer(ic):
        s = _square_dims(ic, 0, op_name)
        return [(ic.dtype(0), TensorShape(None) if s.rank is None else s[:-2])]
    return infer


def _det_grad(op, g):
    """``g * det(A) * inv(A)^T``."""
    a, det = op.inputs[0], op.outputs[0]
    return math_ops.multiply(_expand2(math_ops.multiply(g, det)), inv(a, adjoint=True))


_DET = register_op("MatrixDeterminant", kernel=_det_kernel, infer=_batch_infer("MatrixDeterminant"),
                   grad=_det_grad, doc="Determinant of each square matrix.")


def _slogdet_kernel(xp):
    def k(x):
        _check_square_value(x, "LogMatrixDeterminant")
        sign, logdet = xp.linalg.slogdet(x)
        return xp.asarray(sign).astype(x.dtype)[()], xp.asarray(logdet).astype(x.dtype)[()]
    return k


def _slogdet_infer(ic):
    s = _square_dims(ic, 0, "LogMatrixDeterminant")
    batch = TensorShape(None) if s.rank is None else s[:-2]
    return [(ic.dtype(0), batch), (ic.dtype(0), batch)]


def _slogdet_grad(op, g_sign, g_logdet):
    return math_ops.multiply(_expand2(g_logdet), inv(op.inputs[0], adjoint=True))


_SLOGDET = register_op("LogMatrixDeterminant", kernel=_slogdet_kernel, infer=_slogdet_infer, grad=_slogdet_grad,
                       num_outputs=2, saves_outputs=False,
                       doc="(sign, log|det|) of each square matrix; stable where det over/underflows.")


def det(input, name=None):  # noqa: A002
    """``tf.linalg.det``: the determinant of each matrix ``input[..., :, :]`` (float32/float64)."""
    x = to_tensor(input)
    _check_float("MatrixDeterminant", x)
    return execute(_DET, (x,), name=name)


def slogdet(input, name=None):  # noqa: A002
    """``tf.linalg.slogdet``: ``(sign, log_abs_determinant)``; ``sign * exp(log_abs_determinant) == det``."""
    x = to_tensor(input)
    _check_float("LogMatrixDeterminant", x)
    sign, logdet = execute(_SLOGDET, (x,), name=name)
    return sign, logdet


def logdet(matrix, name=None):
    """``tf.linalg.logdet``: ``log(det(A))`` of Hermitian positive definite ``A``, via its Cholesky factor:
    ``2 * sum(log(diag(L)))``."""
    chol = cholesky(matrix)
    return math_ops.multiply(2.0 if chol.dtype.is_floating else 2,
                             reduction_ops.reduce_sum(math_ops.log(linalg_ops.diag_part(chol)), axis=-1))


# --------------------------------------------------------------------------------------
# Inverse and solves
# --------------------------------------------------------------------------------------
def _inv_kernel(xp):
    def k(x, adjoint=False):
        _check_square_value(x, "MatrixInverse")
        a = _as_compute(xp, x)
        if adjoint:
            a = xp.swapaxes(a, -1, -2)
        try:
            out = xp.linalg.inv(a)
        except np.linalg.LinAlgError:
            raise _iae("Input is not invertible.", "MatrixInverse") from None
        return out.astype(x.dtype)
    return k


def _same_square_infer(op_name):
    def infer(ic):
        return [(ic.dtype(0), _square_dims(ic, 0, op_name))]
    return infer


def _inv_grad(op, g):
    """``-inv(A)^T g inv(A)^T``; with ``adjoint`` (``Y = inv(A^T)``), ``-Y g^T Y``."""
    ainv = op.outputs[0]
    if op.get_attr("adjoint"):
        return math_ops.negative(linalg_ops.matmul(ainv, linalg_ops.matmul(g, ainv, transpose_a=True)))
    return math_ops.negative(linalg_ops.matmul(ainv, linalg_ops.matmul(g, ainv, transpose_b=True), transpose_a=True))


_INV = register_op("MatrixInverse", kernel=_inv_kernel, infer=_same_square_infer("MatrixInverse"), grad=_inv_grad,
                   saves_inputs=False, saves_outputs=True, doc="Inverse of each square matrix.")


def inv(input, adjoint=False, name=None):  # noqa: A002
    """``tf.linalg.inv``: the inverse of each matrix (of its transpose with ``adjoint=True``).

    A singular matrix raises ``InvalidArgumentError: Input is not invertible.``
    """
    x = to_tensor(input)
    _check_float("MatrixInverse", x, FLOAT)
    return execute(_INV, (x,), {"adjoint": bool(adjoint)}, name=name)


def _solve_kernel(xp):
    def k(a, b, adjoint=False):
        _check_square_value(a, "MatrixSolve")
        if b.ndim < 2 or a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
            raise _iae("Input matrix and rhs are incompatible.", "MatrixSolve")
        if adjoint:
            a = xp.swapaxes(a, -1, -2)
        try:
            return xp.linalg.solve(a, b).astype(b.dtype)
        except np.linalg.LinAlgError:
            raise _iae("Input matrix is not invertible.", "MatrixSolve") from None
    return k


def _solve_infer(ic):
    a = _square_dims(ic, 0, "MatrixSolve")
    b = ic.shape(1)
    if a.rank is None or b.rank is None:
        return [(ic.dtype(1), TensorShape(None) if b.rank is None else b)]
    if b.rank != a.rank:
        raise ValueError(f"Shape must be rank {a.rank} but is rank {b.rank} for '{{{{node MatrixSolve}}}}' with "
                         f"input shapes: {_shapes.fmt(a)}, {_shapes.fmt(b)}.")
    batch = a[:-2].merge_with(b[:-2]) if a[:-2].is_compatible_with(b[:-2]) else None
    n, rows = a.as_list()[-1], b.as_list()[-2]
    if batch is None or (n is not None and rows is not None and n != rows):
        raise ValueError(f"Dimensions must be equal, but are {n} and {rows} for '{{{{node MatrixSolve}}}}' with "
                         f"input shapes: {_shapes.fmt(a)}, {_shapes.fmt(b)}.")
    return [(ic.dtype(1), batch.concatenate([a.as_list()[-1] if rows is None else rows, b.as_list()[-1]]))]


def _solve_grad(op, g):
    a, _ = op.inputs
    c = op.outputs[0]
    adj = op.get_attr("adjoint")
    grad_b = solve(a, g, adjoint=not adj)
    if adj:
        grad_a = math_ops.negative(linalg_ops.matmul(c, grad_b, transpose_b=True))
    else:
        grad_a = math_ops.negative(linalg_ops.matmul(grad_b, c, transpose_b=True))
    return grad_a, grad_b


_SOLVE = register_op("MatrixSolve", kernel=_solve_kernel, infer=_solve_infer, grad=_solve_grad,
                     saves_inputs=(0,), saves_outputs=True, doc="Solve ``A X = B`` for each square ``A``.")


def solve(matrix, rhs, adjoint=False, name=None):
    """``tf.linalg.solve``: ``X`` with ``matrix @ X = rhs`` (``matrix^T @ X = rhs`` with ``adjoint``).

    ``matrix``: ``[..., M, M]``; ``rhs``: ``[..., M, K]`` with the same batch dimensions.
    """
    a, b = to_tensor(matrix), to_tensor(rhs)
    _check_float("MatrixSolve", a)
    _dispatch_same("MatrixSolve", a, b)
    return execute(_SOLVE, (a, b), {"adjoint": bool(adjoint)}, name=name)


def _dispatch_same(op_name, a, b):
    check_same_dtype(op_name, a, b)


def _substitute(xp, a, b, lower):
    """Forward (``lower``) or back substitution, vectorized over the batch and the right-hand sides.

    Only ``a``'s triangle is read. A zero on the diagonal gives inf/NaN, as TF's kernel does.
    """
    n = a.shape[-1]
    x = xp.zeros(b.shape, dtype=b.dtype)
    order = range(n) if lower else range(n - 1, -1, -1)
    for i in order:
        acc = b[..., i, :]
        if lower and i:
            acc = acc - xp.einsum("...j,...jk->...k", a[..., i, :i], x[..., :i, :])
        elif not lower and i < n - 1:
            acc = acc - xp.einsum("...j,...jk->...k", a[..., i, i + 1:], x[..., i + 1:, :])
        x[..., i, :] = acc / a[..., i, i:i + 1]
    return x


def _trisolve_kernel(xp):
    def k(a, b, lower=True, adjoint=False):
        _check_square_value(a, "MatrixTriangularSolve")
        if b.ndim < 2 or a.shape[-1] != b.shape[-2]:
            raise _iae(f"In[0] mismatch In[1] shape: {a.shape[-1]} vs. {b.shape[-2] if b.ndim >= 2 else b.ndim}: "
                       f"{_shapes.fmt(list(a.shape))} {_shapes.fmt(list(b.shape))} {int(lower)} {int(adjoint)}",
                       "MatrixTriangularSolve")
        try:
            batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            raise _iae(f"Incompatible batch dimensions: {_shapes.fmt(list(a.shape))} vs. "
                       f"{_shapes.fmt(list(b.shape))}", "MatrixTriangularSolve") from None
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        b = xp.broadcast_to(b, batch + b.shape[-2:])
        if adjoint:   # the transpose of a lower-triangular matrix is upper-triangular
            a, lower = xp.swapaxes(a, -1, -2), not lower
        with math_ops.quiet():
            return _substitute(xp, a, b, lower).astype(b.dtype)
    return k


def _trisolve_infer(ic):
    a = _square_dims(ic, 0, "MatrixTriangularSolve")
    b = ic.shape(1)
    if a.rank is None or b.rank is None:
        return [(ic.dtype(1), TensorShape(None))]
    n, rows = a.as_list()[-1], b.as_list()[-2]
    if n is not None and rows is not None and n != rows:
        raise ValueError(f"Dimensions must be equal, but are {n} and {rows} for '{{{{node MatrixTriangularSolve}}}}'"
                         f" with input shapes: {_shapes.fmt(a)}, {_shapes.fmt(b)}.")
    batch = _shapes.broadcast_shapes(a[:-2], b[:-2], "MatrixTriangularSolve")
    return [(ic.dtype(1), batch.concatenate([n if rows is None else rows, b.as_list()[-1]]))]


def _trisolve_grad(op, g):
    a, b = op.inputs
    c = op.outputs[0]
    adj, lower = op.get_attr("adjoint"), op.get_attr("lower")
    grad_b = triangular_solve(a, g, lower=lower, adjoint=not adj)
    if adj:
        grad_a = math_ops.negative(linalg_ops.matmul(c, grad_b, transpose_b=True))
    else:
        grad_a = math_ops.negative(linalg_ops.matmul(grad_b, c, transpose_b=True))
    grad_a = band_part(grad_a, -1, 0) if lower else band_part(grad_a, 0, -1)
    return math_ops.unbroadcast(grad_a, a), math_ops.unbroadcast(grad_b, b)


_TRISOLVE = register_op("MatrixTriangularSolve", kernel=_trisolve_kernel, infer=_trisolve_infer,
                        grad=_trisolve_grad, saves_inputs=True, saves_outputs=True,
                        doc="Solve ``A X = B`` for triangular ``A`` by substitution (batch dims broadcast).")


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """``tf.linalg.triangular_solve``: solve with the lower (``lower=True``) or upper triangle of ``matrix``.

    The other triangle is ignored. Batch dimensions broadcast.
    """
    a, b = to_tensor(matrix), to_tensor(rhs)
    _check_float("MatrixTriangularSolve", a)
    _dispatch_same("MatrixTriangularSolve", a, b)
    return execute(_TRISOLVE, (a, b), {"lower": bool(lower), "adjoint": bool(adjoint)}, name=name)


# --------------------------------------------------------------------------------------
# Cholesky
# --------------------------------------------------------------------------------------
def _cholesky_kernel(xp):
    def k(x):
        _check_square_value(x, "Cholesky")
        try:
            return xp.linalg.cholesky(x).astype(x.dtype)
        except np.linalg.LinAlgError:   # some matrix is not positive definite: NaN there, as TF 2.21
            out = xp.zeros_like(x)
            flat, flat_out = x.reshape((-1,) + x.shape[-2:]), out.reshape((-1,) + x.shape[-2:])
            lower = xp.tril(xp.ones(x.shape[-2:], dtype=bool))
            for i in range(flat.shape[0]):
                try:
                    flat_out[i] = xp.linalg.cholesky(flat[i])
                except np.linalg.LinAlgError:
                    flat_out[i] = xp.where(lower, xp.nan, 0)
            return out
    return k


def _cholesky_grad(op, g):
    """TF's rule (Murray 2016): ``A_bar = Phi(L^T g)`` pushed through ``L^-1`` on both sides, symmetrized."""
    chol = op.outputs[0]
    n = array_ops.shape(chol)[-1] if chol.shape.rank is None or chol.shape[-1] is None else chol.shape[-1]
    l_inverse = triangular_solve(chol, array_ops.eye(n, dtype=chol.dtype), lower=True)
    middle = linalg_ops.matmul(chol, g, transpose_a=True)
    middle = set_diag(middle, math_ops.multiply(0.5, linalg_ops.diag_part(middle)))
    middle = band_part(middle, -1, 0)
    grad_a = linalg_ops.matmul(linalg_ops.matmul(l_inverse, middle, transpose_a=True), l_inverse)
    grad_a = math_ops.add(grad_a, _t(grad_a))
    return math_ops.multiply(grad_a, 0.5)


_CHOLESKY = register_op("Cholesky", kernel=_cholesky_kernel, infer=_same_square_infer("Cholesky"),
                        grad=_cholesky_grad, saves_inputs=False, saves_outputs=True,
                        doc="Lower-triangular L with ``L @ L^T == A`` (A symmetric positive definite).")


def cholesky(input, name=None):  # noqa: A002
    """``tf.linalg.cholesky``: the lower Cholesky factor of each symmetric positive definite matrix.

    Only the lower triangle of the input is read. A matrix that is not positive
    definite gives NaN in its lower triangle (TF 2.21 does not raise either).
    """
    x = to_tensor(input)
    _check_float("Cholesky", x)
    return execute(_CHOLESKY, (x,), name=name)


# --------------------------------------------------------------------------------------
# Diagonals and bands (a single diagonal ``k``)
# --------------------------------------------------------------------------------------
def _single_k(k, op_name):
    k = np.asarray(k).reshape(-1)
    if k.size == 2 and k[0] != k[1] or k.size not in (1, 2):
        raise NotImplementedError(f"{op_name}: engine supports a single diagonal k (an int), not the band "
                                  f"{k.tolist()}")
    return int(k[0])


def _diag_len(rows, cols, k):
    """Length of diagonal ``k`` of a ``rows x cols`` matrix (``k > 0``: above the main diagonal)."""
    return max(0, min(rows + min(k, 0), cols - max(k, 0)))


def _diag_index(xp, rows, cols, k, length):
    i = xp.arange(length)
    return (i - min(k, 0), i + max(k, 0))


def _matrix_diag_kernel(xp):
    def k(diagonal, k, num_rows, num_cols, padding_value, align="RIGHT_LEFT"):
        kk = _single_k(k, "MatrixDiagV3")
        if diagonal.ndim < 1:
            raise _iae("diagonal must be at least 1-dim, received shape: []", "MatrixDiagV3")
        length = diagonal.shape[-1]
        rows, cols = int(num_rows), int(num_cols)
        min_rows, min_cols = length - min(kk, 0), length + max(kk, 0)
        if rows == -1 and cols == -1:
            rows = cols = max(min_rows, min_cols)
        elif rows == -1:
            rows = min_rows
        elif cols == -1:
            cols = min_cols
        if rows != min_rows and cols != min_cols:
            raise _iae("The number of rows or columns is not consistent with the specified d_lower, d_upper, and "
                       f"diagonal (diagonal length {length}, k={kk}, num_rows={rows}, num_cols={cols}).",
                       "MatrixDiagV3")
        out = xp.full(diagonal.shape[:-1] + (rows, cols), padding_value, dtype=diagonal.dtype)
        r, c = _diag_index(xp, rows, cols, kk, length)
        out[..., r, c] = diagonal
        return out
    return k


def _const_int(ic, i):
    v = ic.constant_value(i)
    return None if v is None else np.asarray(v).reshape(-1)


def _matrix_diag_infer(ic):
    d = ic.shape(0)
    kv, rv, cv = _const_int(ic, 1), _const_int(ic, 2), _const_int(ic, 3)
    if d.rank is None or kv is None or rv is None or cv is None:
        return [(ic.dtype(0), TensorShape(None) if d.rank is None else TensorShape([None] * (d.rank + 1)))]
    if d.rank < 1:
        raise ValueError("diagonal must be at least 1-dim, received shape: []")
    kk = int(kv[0])
    length = d.as_list()[-1]
    rows, cols = int(rv[0]), int(cv[0])
    if length is None:
        dims = [rows if rows != -1 else None, cols if cols != -1 else None]
    else:
        min_rows, min_cols = length - min(kk, 0), length + max(kk, 0)
        if rows == -1 and cols == -1:
            rows = cols = max(min_rows, min_cols)
        elif rows == -1:
            rows = min_rows
        elif cols == -1:
            cols = min_cols
        dims = [rows, cols]
    return [(ic.dtype(0), d[:-1].concatenate(dims))]


def _matrix_diag_grad(op, g):
    kk = _single_k(_static_ints(op.inputs[1]), "MatrixDiagV3")
    return diag_part(g, k=kk), None, None, None, None


def _static_ints(t):
    v = constant_value(t)
    if v is None:
        raise NotImplementedError("the diagonal index k must be known when the gradient is built")
    return v


_MATRIX_DIAG = register_op("MatrixDiagV3", kernel=_matrix_diag_kernel, infer=_matrix_diag_infer,
                           grad=_matrix_diag_grad, saves_inputs=(1,), saves_outputs=False,
                           doc="Matrices with ``diagonal`` on diagonal ``k`` and ``padding_value`` elsewhere.")


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """``tf.linalg.diag``: a (batch of) matrix with ``diagonal`` on diagonal ``k`` (0: main, >0: above).

    The matrix is square (``len + |k|``) unless ``num_rows``/``num_cols`` say otherwise;
    other entries are ``padding_value``.
    """
    d = to_tensor(diagonal)
    kk = _single_k(k, "MatrixDiagV3")
    pad = to_tensor(padding_value, dtype=d.dtype) if not hasattr(padding_value, "dtype") else to_tensor(padding_value)
    return execute(_MATRIX_DIAG, (d, int_tensor(kk), int_tensor(int(num_rows)), int_tensor(int(num_cols)), pad),
                   {"align": align}, name=name)


def _set_diag_kernel(xp):
    def k(x, diagonal, k, align="RIGHT_LEFT"):
        kk = _single_k(k, "MatrixSetDiagV3")
        if x.ndim < 2:
            raise _iae(f"input must be at least 2-dim, received shape: {_shapes.fmt(list(x.shape))}",
                       "MatrixSetDiagV3")
        rows, cols = x.shape[-2:]
        length = _diag_len(rows, cols, kk)
        if diagonal.shape != x.shape[:-2] + (length,):
            raise _iae("Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is "
                       "not equal to the longests diagonal in range [lower_diag_index:upper_diag_index].\n"
                       f"Input shape: {_shapes.fmt(list(x.shape))}\nDiagonal shape: "
                       f"{_shapes.fmt(list(diagonal.shape))}\nExpected diagonal shape: "
                       f"{_shapes.fmt(list(x.shape[:-2] + (length,)))}", "MatrixSetDiagV3")
        out = x.copy()
        r, c = _diag_index(xp, rows, cols, kk, length)
        out[..., r, c] = diagonal
        return out
    return k


def _same_as_matrix_input(op_name):
    """Shape function of ops whose output is like their first input, a (batch of) matrices."""
    def infer(ic):
        x = ic.shape(0)
        if x.rank is not None and x.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {x.rank} for '{{{{node {op_name}}}}}'")
        return [(ic.dtype(0), x)]
    return infer


_set_diag_infer = _same_as_matrix_input("MatrixSetDiagV3")


def _set_diag_grad(op, g):
    x = op.inputs[0]
    kk = _single_k(_static_ints(op.inputs[2]), "MatrixSetDiagV3")
    part = diag_part(g, k=kk)
    return set_diag(g, array_ops.zeros_like(part), k=kk), part, None


_SET_DIAG = register_op("MatrixSetDiagV3", kernel=_set_diag_kernel, infer=_set_diag_infer, grad=_set_diag_grad,
                        saves_inputs=(2,), saves_outputs=False,
                        doc="A copy of ``input`` with diagonal ``k`` replaced by ``diagonal``.")


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``tf.linalg.set_diag``: replace diagonal ``k`` of each matrix by ``diagonal`` (``[..., len_k]``)."""
    x = to_tensor(input)
    d = to_tensor(diagonal, dtype=x.dtype) if not hasattr(diagonal, "dtype") else to_tensor(diagonal)
    _dispatch_same("MatrixSetDiagV3", x, d)
    kk = _single_k(k, "MatrixSetDiagV3")
    return execute(_SET_DIAG, (x, d, int_tensor(kk)), {"align": align}, name=name)


def _diag_part_v3_kernel(xp):
    def k(x, k, padding_value, align="RIGHT_LEFT"):
        kk = _single_k(k, "MatrixDiagPartV3")
        if x.ndim < 2:
            raise _iae(f"input must be at least 2-dim, received shape: {_shapes.fmt(list(x.shape))}",
                       "MatrixDiagPartV3")
        rows, cols = x.shape[-2:]
        length = _diag_len(rows, cols, kk)
        if length == 0 and (kk >= cols or -kk >= rows):
            raise _iae(f"The diagonal index k={kk} is out of bounds for a matrix of shape "
                       f"{_shapes.fmt(list(x.shape[-2:]))}", "MatrixDiagPartV3")
        r, c = _diag_index(xp, rows, cols, kk, length)
        return xp.ascontiguousarray(x[..., r, c])
    return k


def _diag_part_v3_infer(ic):
    x = ic.shape(0)
    kv = _const_int(ic, 1)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    if x.rank < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {_shapes.fmt(x)}")
    rows, cols = x.as_list()[-2:]
    length = None if kv is None or rows is None or cols is None else _diag_len(rows, cols, int(kv[0]))
    return [(ic.dtype(0), x[:-2].concatenate([length]))]


def _diag_part_v3_grad(op, g):
    x = op.inputs[0]
    kk = _single_k(_static_ints(op.inputs[1]), "MatrixDiagPartV3")
    shape = x.shape
    zeros = array_ops.zeros(shape.as_list() if shape.is_fully_defined() else array_ops.shape(x), dtype=x.dtype)
    return set_diag(zeros, g, k=kk), None, None


_DIAG_PART_V3 = register_op("MatrixDiagPartV3", kernel=_diag_part_v3_kernel, infer=_diag_part_v3_infer,
                            grad=_diag_part_v3_grad, saves_inputs=(1,), saves_outputs=False,
                            doc="Diagonal ``k`` of each matrix.")


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """``tf.linalg.diag_part``: diagonal ``k`` of each matrix, shape ``[..., len_k]``.

    ``k=0`` uses the engine's ``MatrixDiagPart`` op; other diagonals use ``MatrixDiagPartV3`` (TF uses V3
    for all).
    """
    kk = _single_k(k, "MatrixDiagPartV3")
    x = to_tensor(input)
    if kk == 0:
        return linalg_ops.diag_part(x)
    pad = to_tensor(padding_value, dtype=x.dtype)
    return execute(_DIAG_PART_V3, (x, int_tensor(kk), pad), {"align": align}, name=name)


def _band_part_kernel(xp):
    def k(x, num_lower, num_upper):
        lo, up = int(num_lower), int(num_upper)
        if x.ndim < 2:
            raise _iae(f"input must be at least 2-dim, received shape: {_shapes.fmt(list(x.shape))}",
                       "MatrixBandPart")
        rows, cols = x.shape[-2:]
        if lo > rows:
            raise _iae(f"num_lower must be negative or less or equal to number of rows ({rows}) got: {lo}",
                       "MatrixBandPart")
        if up > cols:
            raise _iae(f"num_upper must be negative or less or equal to number of columns ({cols}) got: {up}",
                       "MatrixBandPart")
        diff = xp.arange(cols)[None, :] - xp.arange(rows)[:, None]   # j - i
        keep = xp.ones((rows, cols), dtype=bool)
        if lo >= 0:
            keep &= diff >= -lo
        if up >= 0:
            keep &= diff <= up
        return xp.where(keep, x, xp.zeros((), dtype=x.dtype))
    return k


_band_part_infer = _same_as_matrix_input("MatrixBandPart")


def _band_part_grad(op, g):
    return band_part(g, op.inputs[1], op.inputs[2]), None, None


_BAND_PART = register_op("MatrixBandPart", kernel=_band_part_kernel, infer=_band_part_infer, grad=_band_part_grad,
                         saves_inputs=(1, 2), saves_outputs=False,
                         doc="Zero everything outside a band of diagonals (-1: keep the whole triangle).")


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """``tf.linalg.band_part``: keep ``num_lower`` subdiagonals and ``num_upper`` superdiagonals (``-1``: all).

    ``band_part(x, -1, 0)`` is the lower triangle, ``band_part(x, 0, -1)`` the upper, ``(0, 0)`` the diagonal.
    """
    x = to_tensor(input)
    lo = num_lower if hasattr(num_lower, "dtype") else int_tensor(int(num_lower), dtype=dtypes.int64)
    up = num_upper if hasattr(num_upper, "dtype") else int_tensor(int(num_upper), dtype=dtypes.int64)
    return execute(_BAND_PART, (x, to_tensor(lo), to_tensor(up)), name=name)


# --------------------------------------------------------------------------------------
# QR
# --------------------------------------------------------------------------------------
def _qr_kernel(xp):
    def k(x, full_matrices=False):
        if x.ndim < 2:
            raise _iae(f"Input tensor 0 must have rank >= 2, got {x.ndim}", "Qr")
        q, r = xp.linalg.qr(_as_compute(xp, x), mode="complete" if full_matrices else "reduced")
        return q.astype(x.dtype), r.astype(x.dtype)
    return k


def _matrix_sizes(x, op_name):
    """``(m, n, min(m, n))`` of a (batch of) m x n matrices of known rank (None where unknown)."""
    if x.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.rank} for '{{{{node {op_name}}}}}'")
    m, n = x.as_list()[-2:]
    return m, n, None if m is None or n is None else min(m, n)


def _qr_infer(ic):
    x = ic.shape(0)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))] * 2
    m, n, p = _matrix_sizes(x, "Qr")
    if ic.attrs.get("full_matrices", False):
        return [(ic.dtype(0), x[:-2].concatenate([m, m])), (ic.dtype(0), x[:-2].concatenate([m, n]))]
    return [(ic.dtype(0), x[:-2].concatenate([m, p])), (ic.dtype(0), x[:-2].concatenate([p, n]))]


def _triangular_solve_right(x, r):
    """TF's ``_TriangularSolve``: ``x @ inv(r)^T`` for upper-triangular ``r``."""
    return _t(triangular_solve(r, _t(x), lower=False, adjoint=False))


def _qr_grad_square_and_deep(q, r, dq, dr):
    matmul = linalg_ops.matmul
    qdq = matmul(q, dq, transpose_a=True)
    qdq_ = math_ops.subtract(qdq, _t(qdq))
    rdr = matmul(r, dr, transpose_b=True)
    rdr_ = math_ops.subtract(rdr, _t(rdr))
    tril = band_part(math_ops.add(qdq_, rdr_), -1, 0)
    grad_a = matmul(q, math_ops.add(dr, _triangular_solve_right(tril, r)))
    grad_b = _triangular_solve_right(math_ops.subtract(dq, matmul(q, qdq)), r)
    return math_ops.add(grad_a, grad_b)


def _qr_grad(op, dq, dr):
    """TF's ``QrGrad`` (Walter & Lehmann; Liao et al. 2019), for the reduced decomposition."""
    a = op.inputs[0]
    q, r = op.outputs
    dims = a.shape.as_list() if a.shape.rank is not None else None
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise NotImplementedError("QrGrad not implemented with dynamic shapes.")
    m, n = dims[-2:]
    if op.get_attr("full_matrices") and m > n:
        raise NotImplementedError("QrGrad not implemented when nrows > ncols and full_matrices is true.")
    if m >= n:
        return _qr_grad_square_and_deep(q, r, dq, dr)
    y = a[..., :, m:]
    u = r[..., :, :m]
    dv = dr[..., :, m:]
    du = dr[..., :, :m]
    dy = linalg_ops.matmul(q, dv)
    dx = _qr_grad_square_and_deep(q, u, math_ops.add(dq, linalg_ops.matmul(y, dv, transpose_b=True)), du)
    return array_ops.concat([dx, dy], axis=-1)


_QR = register_op("Qr", kernel=_qr_kernel, infer=_qr_infer, grad=_qr_grad, num_outputs=2,
                  doc="QR decomposition ``A = Q R`` (Q orthonormal columns, R upper-triangular).")


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """``tf.linalg.qr``: ``(q, r)`` with ``input = q @ r``; ``full_matrices`` gives square ``q``.

    Signs follow LAPACK (NumPy's ``qr``), as TF's CPU kernel does up to the sign of each column pair.
    """
    x = to_tensor(input)
    _check_float("Qr", x, FLOAT)
    q, r = execute(_QR, (x,), {"full_matrices": bool(full_matrices)}, name=name)
    return _Qr(q, r)


class _Qr(tuple):
    """``Qr(q=..., r=...)``: a named pair, as TF's ``tf.linalg.qr`` returns."""

    __slots__ = ()

    def __new__(cls, q, r):
        return tuple.__new__(cls, (q, r))

    q = property(lambda self: self[0])
    r = property(lambda self: self[1])

    def __repr__(self):
        return f"Qr(q={self[0]!r}, r={self[1]!r})"


# --------------------------------------------------------------------------------------
# SVD
# --------------------------------------------------------------------------------------
def _svd_kernel(xp):
    def k(x, compute_uv=True, full_matrices=False):
        if x.ndim < 2:
            raise _iae(f"Input tensor 0 must have rank >= 2, got {x.ndim}", "Svd")
        if not compute_uv:
            s = xp.linalg.svd(x, compute_uv=False).astype(x.dtype)
            m, n = x.shape[-2:]
            empty_u = xp.zeros(x.shape[:-2] + (0, 0), dtype=x.dtype)   # TF returns empty u, v then
            return s, empty_u, empty_u.copy()
        u, s, vh = xp.linalg.svd(x, full_matrices=full_matrices)
        return s.astype(x.dtype), u.astype(x.dtype), xp.ascontiguousarray(xp.swapaxes(vh, -1, -2)).astype(x.dtype)
    return k


def _svd_infer(ic):
    x = ic.shape(0)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))] * 3
    m, n, p = _matrix_sizes(x, "Svd")
    batch = x[:-2]
    s = batch.concatenate([p])
    if not ic.attrs.get("compute_uv", True):
        return [(ic.dtype(0), s), (ic.dtype(0), TensorShape([0])), (ic.dtype(0), TensorShape([0]))]
    if ic.attrs.get("full_matrices", False):
        return [(ic.dtype(0), s), (ic.dtype(0), batch.concatenate([m, m])), (ic.dtype(0), batch.concatenate([n, n]))]
    return [(ic.dtype(0), s), (ic.dtype(0), batch.concatenate([m, p])), (ic.dtype(0), batch.concatenate([n, p]))]


def _safe_reciprocal(x, epsilon=1e-20):
    return math_ops.multiply(x, math_ops.reciprocal(math_ops.add(math_ops.square(x), epsilon)))


def _svd_grad(op, grad_s, grad_u, grad_v):
    """TF's ``SvdGrad`` (Townsend 2016, "Differentiating the Singular Value Decomposition")."""
    matmul = linalg_ops.matmul
    a = op.inputs[0]
    grad_s_mat = diag(grad_s)
    if not op.get_attr("compute_uv"):
        _, u, v = svd(a, compute_uv=True)
        return matmul(u, matmul(grad_s_mat, v, transpose_b=True))
    dims = a.shape.as_list() if a.shape.rank is not None else None
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with unknown inner matrix shape.")
    m, n = dims[-2:]
    full = op.get_attr("full_matrices")
    if full and m != n:
        raise NotImplementedError("engine: the svd gradient is not implemented for full_matrices=True with "
                                  "non-square matrices")
    s, u, v = op.outputs
    use_adjoint = m > n
    if use_adjoint:
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    s_mat = diag(s)
    s_2 = math_ops.square(s)
    f = set_diag(_safe_reciprocal(math_ops.subtract(array_ops.expand_dims(s_2, -2), array_ops.expand_dims(s_2, -1))),
                 array_ops.zeros_like(s))
    s_inv_mat = diag(_safe_reciprocal(s))
    v1 = v[..., :, :m]
    grad_v1 = grad_v[..., :, :m]
    u_gu = matmul(u, grad_u, transpose_a=True)
    v_gv = matmul(v1, grad_v1, transpose_a=True)
    f_u = math_ops.multiply(f, u_gu)
    f_v = math_ops.multiply(f, v_gv)
    term1_nouv = math_ops.add(math_ops.add(grad_s_mat, matmul(math_ops.add(f_u, _t(f_u)), s_mat)),
                              matmul(s_mat, math_ops.add(f_v, _t(f_v))))
    term1 = matmul(u, matmul(term1_nouv, v1, transpose_b=True))
    if m == n:
        grad_a = term1
    else:
        gv1t = _t(grad_v1)
        gv1t_v1 = matmul(gv1t, v1)
        term2_nous = math_ops.subtract(gv1t, matmul(gv1t_v1, v1, transpose_b=True))
        term2 = matmul(matmul(u, s_inv_mat), term2_nous)
        grad_a = math_ops.add(term1, term2)
    return _t(grad_a) if use_adjoint else grad_a


_SVD = register_op("Svd", kernel=_svd_kernel, infer=_svd_infer, grad=_svd_grad, num_outputs=3,
                   doc="Singular values (descending) and, with compute_uv, the vectors: ``A = U diag(s) V^T``.")


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """``tf.linalg.svd``: ``s`` (descending), or ``(s, u, v)`` with ``tensor = u @ diag(s) @ v^T``.

    Note ``v``, not ``v^T`` (NumPy returns ``vh``). The signs of singular vectors are LAPACK's.
    """
    x = to_tensor(tensor)
    _check_float("Svd", x)
    s, u, v = execute(_SVD, (x,), {"compute_uv": bool(compute_uv), "full_matrices": bool(full_matrices)},
                      name=name)
    return (s, u, v) if compute_uv else s


# --------------------------------------------------------------------------------------
# Symmetric eigendecomposition
# --------------------------------------------------------------------------------------
def _eigh_kernel(xp):
    def k(x, compute_v=True):
        _check_square_value(x, "SelfAdjointEigV2")
        if not compute_v:
            return xp.linalg.eigvalsh(x).astype(x.dtype), xp.zeros((0,), dtype=x.dtype)
        e, v = xp.linalg.eigh(x)   # reads the lower triangle, as TF's kernel
        return e.astype(x.dtype), v.astype(x.dtype)
    return k


def _eigh_infer(ic):
    x = _square_dims(ic, 0, "SelfAdjointEigV2")
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))] * 2
    n = x.as_list()[-1] if x.as_list()[-1] is not None else x.as_list()[-2]
    e = x[:-2].concatenate([n])
    if not ic.attrs.get("compute_v", True):
        return [(ic.dtype(0), e), (ic.dtype(0), TensorShape([0]))]
    return [(ic.dtype(0), e), (ic.dtype(0), x[:-2].concatenate([n, n]))]


def _eigh_grad(op, grad_e, grad_v):
    """TF's ``SelfAdjointEigV2`` gradient; the result is kept on the lower triangle (the part the op reads)."""
    matmul = linalg_ops.matmul
    e = op.outputs[0]
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        f = set_diag(_safe_reciprocal(math_ops.subtract(array_ops.expand_dims(e, -2), array_ops.expand_dims(e, -1))),
                     array_ops.zeros_like(e))
        inner = math_ops.add(diag(grad_e), math_ops.multiply(f, matmul(v, grad_v, transpose_a=True)))
        grad_a = matmul(v, matmul(inner, v, transpose_b=True))
    else:
        _, v = eigh(op.inputs[0])
        grad_a = matmul(v, matmul(diag(grad_e), v, transpose_b=True))
    grad_a = band_part(math_ops.add(grad_a, _t(grad_a)), -1, 0)
    return set_diag(grad_a, math_ops.multiply(0.5, linalg_ops.diag_part(grad_a)))


_EIGH = register_op("SelfAdjointEigV2", kernel=_eigh_kernel, infer=_eigh_infer, grad=_eigh_grad, num_outputs=2,
                    doc="Eigenvalues (ascending) and eigenvectors of symmetric matrices (lower triangle read).")


def eigh(tensor, name=None):
    """``tf.linalg.eigh``: ``(e, v)``, eigenvalues ascending, ``tensor @ v == v * e`` (lower triangle read)."""
    x = to_tensor(tensor)
    _check_float("SelfAdjointEigV2", x)
    e, v = execute(_EIGH, (x,), {"compute_v": True}, name=name)
    return e, v


def eigvalsh(tensor, name=None):
    """``tf.linalg.eigvalsh``: the eigenvalues of symmetric matrices, ascending."""
    x = to_tensor(tensor)
    _check_float("SelfAdjointEigV2", x)
    e, _ = execute(_EIGH, (x,), {"compute_v": False}, name=name)
    return e


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """``tf.linalg.eye`` (the same as ``tf.eye``): identity matrices, optionally ``batch_shape + [rows, cols]``."""
    return array_ops.eye(num_rows, num_columns, batch_shape=batch_shape, dtype=dtype, name=name)


def matvec(a, b, transpose_a=False, adjoint_a=False, name=None):
    """``tf.linalg.matvec``: ``a @ b[..., None]``, squeezed back to a vector."""
    b = to_tensor(b)
    out = linalg_ops.matmul(a, array_ops.expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return array_ops.squeeze(out, axis=-1)
