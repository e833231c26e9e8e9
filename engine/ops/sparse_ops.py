"""Ops on ``tf.SparseTensor`` (``tf.sparse``): one registry row per TF op, with gradients for ``values``.

A ``SparseTensor`` is three dense tensors (``indices``, ``values``, ``dense_shape``: see
``framework/sparse_tensor.py``); each op here takes them apart, runs one TF op on them and builds
the result. The kernels work on the COO arrays with NumPy (``np.add.at`` scatters, ``lexsort``
orders). Gradients flow to ``values`` (and to dense operands) as TF defines them, written with
engine ops (``gather``, ``gather_nd``, ``unsorted_segment_sum``), so they can be differentiated
again. ``indices`` and ``dense_shape`` are integers: they get no gradient.

Rows: ``SparseToDense`` (``tf.sparse.to_dense``), ``SparseReorder``, ``SparseAdd`` and its
gradient ``SparseAddGrad``, ``SparseTensorDenseAdd`` (``tf.sparse.add`` with a dense side),
``SparseTensorDenseMatMul`` (``tf.sparse.sparse_dense_matmul``), ``SparseReduceSum``, ``SparseReduceMax``.
``tf.sparse.from_dense`` is composed, as in TF: ``where``, ``gather_nd`` and ``shape``; so are
``slice``, ``concat``, ``transpose`` and ``map_values`` (TF has kernels for the first three: the
engine builds them from ``boolean_mask``, ``concat``, ``gather`` and ``SparseReorder``, whose
gradients then give the values' gradients).
"""
import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.registry import no_registered_gradient, register_op
from ..framework.sparse_tensor import SparseTensor, SparseTensorSpec, is_sparse
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape
from . import array_ops, math_ops, reduction_ops, segment_ops
from ._dispatch import execute

__all__ = ["SparseTensor", "SparseTensorSpec", "to_dense", "from_dense", "reorder", "add", "sparse_dense_matmul",
           "reduce_sum", "reduce_max", "slice", "concat", "transpose", "map_values", "is_sparse"]


def _fmt_index(row):
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def _check_order_and_bounds(indices, shape, validate_order=True):
    """TF's SparseToDense checks: each index within ``shape``, and (lexicographically) increasing."""
    for i, row in enumerate(indices):
        if np.any(row < 0) or np.any(row >= shape):
            raise InvalidArgumentError(None, None, f"indices[{i}] = {_fmt_index(row)} is out of bounds: need 0 <= "
                                                   f"index < {_fmt_index(shape)}")
        if validate_order and i:
            prev = tuple(indices[i - 1].tolist())
            here = tuple(row.tolist())
            if here == prev:
                raise InvalidArgumentError(None, None, f"indices[{i}] = {_fmt_index(row)} is repeated")
            if here < prev:
                raise InvalidArgumentError(None, None, f"indices[{i}] = {_fmt_index(row)} is out of order. Many "
                                                       f"sparse ops require sorted indices.\n    Use "
                                                       f"`tf.sparse.reorder` to create a correctly ordered copy."
                                                       f"\n\n")


# --------------------------------------------------------------------------------------
# to_dense
# --------------------------------------------------------------------------------------
def _to_dense_kernel(xp):
    def k(sparse_indices, output_shape, sparse_values, default_value, validate_indices=True, T=None,
          Tindices=None):  # noqa: N803
        shape = np.asarray(output_shape, dtype=np.int64).reshape(-1)
        idx = np.asarray(sparse_indices, dtype=np.int64).reshape(-1, len(shape)) if len(shape) else \
            np.zeros((np.size(sparse_values), 0), np.int64)
        values = np.asarray(sparse_values)
        if validate_indices:
            _check_order_and_bounds(idx, shape)
        out = np.full(tuple(shape.tolist()), np.asarray(default_value), dtype=values.dtype)
        if len(idx):
            out[tuple(idx.T)] = values if values.ndim else values[()]
        return out[()] if out.ndim == 0 else out
    return k


def _to_dense_infer(ic):
    value = ic.constant_value(1)
    if value is not None:
        return [(ic.dtype(2), TensorShape([int(d) for d in np.asarray(value).reshape(-1).tolist()]))]
    n = ic.shape(1)
    return [(ic.dtype(2), TensorShape(None if n.rank is None or n[0] is None else [None] * n[0]))]


def _to_dense_grad(op, grad):
    """d values = the gradient at each stored index (a repeated index would get it twice, as in TF)."""
    return [None, None, array_ops.gather_nd(grad, op.inputs[0]), None]


_SPARSE_TO_DENSE = register_op("SparseToDense", kernel=_to_dense_kernel, infer=_to_dense_infer, grad=_to_dense_grad,
                               saves_outputs=False,
                               doc="A dense tensor of output_shape with sparse_values at sparse_indices, else "
                                   "default_value.")


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """``tf.sparse.to_dense``: the dense tensor a SparseTensor stands for, ``default_value`` (zero) elsewhere.

    With ``validate_indices`` (the default) the indices must be in bounds and in row-major order
    without repeats (``InvalidArgumentError`` otherwise, as TF: ``tf.sparse.reorder`` sorts them).
    The gradient reaches ``sp_input.values``.
    """
    sp = _sparse(sp_input)
    default = convert_to_tensor(0 if default_value is None else default_value, dtype=sp.dtype) \
        if sp.dtype != dtypes.string or default_value is not None else convert_to_tensor(b"")
    return execute(_SPARSE_TO_DENSE, (sp.indices, sp.dense_shape, sp.values, default),
                   {"validate_indices": bool(validate_indices), "T": sp.dtype, "Tindices": dtypes.int64}, name=name)


def _sparse(x):
    if not isinstance(x, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(x).__name__}.")
    return x


def from_dense(tensor, name=None):
    """``tf.sparse.from_dense``: the non-zero entries of a dense tensor as a SparseTensor (row-major order).

    Composed as in TF (``where``, ``gather_nd``, ``shape``), so the gradient of ``values`` reaches ``tensor``.
    """
    x = convert_to_tensor(tensor)
    zero = array_ops.zeros([], dtype=x.dtype) if x.dtype != dtypes.string else convert_to_tensor(b"")
    indices = array_ops.where(math_ops.not_equal(x, zero))
    values = array_ops.gather_nd(x, indices)
    return SparseTensor(indices, values, array_ops.shape(x, out_type=dtypes.int64))


# --------------------------------------------------------------------------------------
# reorder
# --------------------------------------------------------------------------------------
def _order(indices):
    """The permutation sorting COO ``indices`` in row-major order (stable)."""
    idx = np.asarray(indices).reshape(len(indices), -1)
    if idx.shape[1] == 0 or not len(idx):
        return np.arange(len(idx))
    return np.lexsort(idx.T[::-1])


def _reorder_kernel(xp):
    def k(input_indices, input_values, input_shape):
        perm = _order(input_indices)
        return [np.asarray(input_indices)[perm], np.asarray(input_values)[perm]]
    return k


def _reorder_infer(ic):
    return [(dtypes.int64, ic.shape(0)), (ic.dtype(1), ic.shape(1))]


def _reorder_grad(op, grad_indices, grad_values):
    """TF's ``_SparseReorderGrad``: the values' gradient put back in the input order."""
    n = array_ops.shape(op.inputs[0], out_type=dtypes.int64)[0]
    # where each input entry went: reorder the positions 0..n-1 themselves
    perm = execute(_SPARSE_REORDER, (op.inputs[0], array_ops.range(n, dtype=dtypes.int64), op.inputs[2]))[1]
    return [None, segment_ops.unsorted_segment_sum(grad_values, perm, n), None]


_SPARSE_REORDER = register_op("SparseReorder", kernel=_reorder_kernel, infer=_reorder_infer, grad=_reorder_grad,
                              num_outputs=2, saves_outputs=False,
                              doc="A SparseTensor's entries sorted in row-major order.")


def reorder(sp_input, name=None):
    """``tf.sparse.reorder``: the same SparseTensor with its entries in row-major (canonical) order."""
    sp = _sparse(sp_input)
    indices, values = execute(_SPARSE_REORDER, (sp.indices, sp.values, sp.dense_shape), name=name)
    return SparseTensor(indices, values, sp.dense_shape)


# --------------------------------------------------------------------------------------
# add
# --------------------------------------------------------------------------------------
def _sparse_add_kernel(xp):
    def k(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh, T=None, Treal=None):  # noqa: N803
        a_shape, b_shape = np.asarray(a_shape), np.asarray(b_shape)
        if a_shape.shape != b_shape.shape:
            raise InvalidArgumentError(None, None, f"Operands do not have the same ranks; got shapes: "
                                                   f"{_fmt_index(a_shape)} and {_fmt_index(b_shape)}")
        for d, (x, y) in enumerate(zip(a_shape.tolist(), b_shape.tolist())):
            if x != y:
                raise InvalidArgumentError(None, None, f"Operands' shapes do not match: got {x} and {y} for "
                                                       f"dimension {d}")
        ai, bi = np.asarray(a_indices).reshape(-1, len(a_shape)), np.asarray(b_indices).reshape(-1, len(b_shape))
        av, bv = np.asarray(a_values), np.asarray(b_values)
        both = np.concatenate([ai, bi]) if len(ai) or len(bi) else np.zeros((0, len(a_shape)), np.int64)
        keys, inverse = (np.unique(both, axis=0, return_inverse=True) if len(both)
                         else (both, np.zeros(0, np.int64)))
        inverse = np.asarray(inverse).reshape(-1)
        sums = np.zeros(len(keys), dtype=av.dtype)
        np.add.at(sums, inverse, np.concatenate([av, bv]).astype(av.dtype))
        keep = np.abs(sums) >= np.asarray(thresh) if np.asarray(thresh) > 0 else np.ones(len(keys), bool)
        return [keys[keep].astype(np.int64), sums[keep], a_shape.astype(np.int64)]
    return k


def _sparse_add_infer(ic):
    return [(dtypes.int64, TensorShape([None, ic.shape(2)[0] if ic.shape(2).rank == 1 else None])),
            (ic.dtype(1), TensorShape([None])), (dtypes.int64, ic.shape(2))]


def _sparse_add_grad(op, grad_indices, grad_values, grad_shape):
    """TF's ``_SparseAddGrad``: each operand's values get the sum's gradient at their indices (``SparseAddGrad``)."""
    a_grad, b_grad = execute(_SPARSE_ADD_GRAD, (grad_values, op.inputs[0], op.inputs[3], op.outputs[0]))
    return [None, a_grad, None, None, b_grad, None, None]


_SPARSE_ADD = register_op("SparseAdd", kernel=_sparse_add_kernel, infer=_sparse_add_infer, grad=_sparse_add_grad,
                          num_outputs=3, doc="The sum of two SparseTensors (entries below thresh dropped).")


def _sparse_add_grad_kernel(xp):
    def k(backprop_val_grad, a_indices, b_indices, sum_indices):
        grad = np.asarray(backprop_val_grad)
        where = {tuple(row): i for i, row in enumerate(np.asarray(sum_indices).tolist())}

        def pick(indices):
            rows = np.asarray(indices).tolist()
            return np.array([grad[where[tuple(r)]] if tuple(r) in where else 0 for r in rows], dtype=grad.dtype)
        return [pick(a_indices), pick(b_indices)]
    return k


def _sparse_add_grad_infer(ic):
    return [(ic.dtype(0), TensorShape([ic.shape(1)[0] if ic.shape(1).rank else None])),
            (ic.dtype(0), TensorShape([ic.shape(2)[0] if ic.shape(2).rank else None]))]


_SPARSE_ADD_GRAD = register_op("SparseAddGrad", kernel=_sparse_add_grad_kernel, infer=_sparse_add_grad_infer,
                               grad=None, num_outputs=2,
                               doc="SparseAdd's gradient: the sum's value gradients picked at each operand's indices.")


def _dense_add_kernel(xp):
    def k(a_indices, a_values, a_shape, b, T=None, Tindices=None):  # noqa: N803
        shape = np.asarray(a_shape).reshape(-1)
        dense = np.array(b, copy=True)
        if tuple(shape.tolist()) != dense.shape:
            raise InvalidArgumentError(None, None, f"Dimension 0 does not equal (no broadcasting is supported): "
                                                   f"sparse side {int(shape[0])} vs dense side {dense.shape[0]}"
                                       if len(shape) == dense.ndim else
                                       f"Ranks of the sparse and dense tensors do not match: {len(shape)} vs. "
                                       f"{dense.ndim}")
        idx = np.asarray(a_indices).reshape(-1, len(shape))
        np.add.at(dense, tuple(idx.T), np.asarray(a_values))
        return dense
    return k


def _dense_add_grad(op, grad):
    return [None, array_ops.gather_nd(grad, op.inputs[0]), None, grad]


_SPARSE_DENSE_ADD = register_op("SparseTensorDenseAdd", kernel=_dense_add_kernel,
                                infer=lambda ic: [(ic.dtype(3), ic.shape(3))], grad=_dense_add_grad,
                                saves_outputs=False, doc="A SparseTensor added to a dense tensor: a dense tensor.")


def add(a, b, threshold=0, name=None):
    """``tf.sparse.add``: ``a + b`` where at least one is a SparseTensor.

    Two SparseTensors give a SparseTensor (entries whose sum's magnitude is below ``threshold``
    are dropped); a SparseTensor and a dense tensor give a dense tensor. Gradients reach both
    operands' values.
    """
    if is_sparse(a) and is_sparse(b):
        thresh = convert_to_tensor(threshold, dtype=a.dtype.real_dtype if a.dtype.is_complex else a.dtype)
        indices, values, shape = execute(_SPARSE_ADD, (a.indices, a.values, a.dense_shape, b.indices, b.values,
                                                       b.dense_shape, thresh), {"T": a.dtype}, name=name)
        return SparseTensor(indices, values, shape)
    if is_sparse(b):
        a, b = b, a
    if not is_sparse(a):
        raise TypeError("tf.sparse.add needs at least one SparseTensor")
    dense = convert_to_tensor(b, dtype=a.dtype)
    return execute(_SPARSE_DENSE_ADD, (a.indices, a.values, a.dense_shape, dense),
                   {"T": a.dtype, "Tindices": dtypes.int64}, name=name)


# --------------------------------------------------------------------------------------
# sparse_dense_matmul
# --------------------------------------------------------------------------------------
def _matmul_kernel(xp):
    def k(a_indices, a_values, a_shape, b, adjoint_a=False, adjoint_b=False, T=None, Tindices=None):  # noqa: N803
        shape = np.asarray(a_shape).reshape(-1)
        idx = np.asarray(a_indices).reshape(-1, 2)
        vals = np.asarray(a_values)
        rows, cols = (idx[:, 1], idx[:, 0]) if adjoint_a else (idx[:, 0], idx[:, 1])
        m, k_dim = (int(shape[1]), int(shape[0])) if adjoint_a else (int(shape[0]), int(shape[1]))
        bm = np.asarray(b)
        bm = bm.conj().T if adjoint_b else bm
        if bm.shape[0] != k_dim:
            raise InvalidArgumentError(None, None, f"Cannot multiply A and B because inner dimension does not "
                                                   f"match: {k_dim} vs. {bm.shape[0]}.  Did you forget a transpose?"
                                                   f"  Dimensions of A: [{int(shape[0])}, {int(shape[1])}).  "
                                                   f"Dimensions of B: {_fmt_index(np.shape(b))}")
        if adjoint_a:
            vals = vals.conj()
        out = np.zeros((m, bm.shape[1]), dtype=bm.dtype)
        if len(idx):
            if np.any(rows >= m) or np.any(cols >= k_dim) or np.any(idx < 0):
                bad = int(np.argmax((rows >= m) | (cols >= k_dim) | np.any(idx < 0, axis=1)))
                raise InvalidArgumentError(None, None, f"k ({int(cols[bad])}) from index[{bad},"
                                                       f"{0 if adjoint_a else 1}] out of bounds (>={k_dim})")
            np.add.at(out, rows, vals[:, None] * bm[cols])
        return out
    return k


def _matmul_infer(ic):
    b = ic.shape(3)
    shape = ic.constant_value(2)
    adjoint_a, adjoint_b = ic.attrs.get("adjoint_a", False), ic.attrs.get("adjoint_b", False)
    m = None if shape is None else int(np.asarray(shape).reshape(-1)[1 if adjoint_a else 0])
    n = None if b.rank is None else b[0 if adjoint_b else 1]
    return [(ic.dtype(1), TensorShape([m, n]))]


def _matmul_grad(op, grad):
    """d b = A^T grad (as a SparseTensorDenseMatMul); d values[i] = grad[row_i] . b[col_i] (TF's rule, real dtypes)."""
    indices, values, shape, b = op.inputs
    adjoint_a, adjoint_b = op.attrs.get("adjoint_a", False), op.attrs.get("adjoint_b", False)
    bm = array_ops.transpose(b) if adjoint_b else b
    db = execute(_SPARSE_DENSE_MATMUL, (indices, values, shape, grad),
                 {"adjoint_a": not adjoint_a, "adjoint_b": False, "T": values.dtype, "Tindices": dtypes.int64})
    if adjoint_b:
        db = array_ops.transpose(db)
    rows, cols = array_ops.gather(indices, 0, axis=1), array_ops.gather(indices, 1, axis=1)
    if adjoint_a:   # out = A^T bm: out[c] += A[r, c] * bm[r]
        dvalues = reduction_ops.reduce_sum(math_ops.multiply(array_ops.gather(grad, cols), array_ops.gather(bm, rows)),
                                           axis=1)
    else:           # out = A bm: out[r] += A[r, c] * bm[c]
        dvalues = reduction_ops.reduce_sum(math_ops.multiply(array_ops.gather(grad, rows), array_ops.gather(bm, cols)),
                                           axis=1)
    return [None, dvalues, None, db]


_SPARSE_DENSE_MATMUL = register_op("SparseTensorDenseMatMul", kernel=_matmul_kernel, infer=_matmul_infer,
                                   grad=_matmul_grad, saves_outputs=False,
                                   doc="A rank-2 SparseTensor times a dense matrix: a dense matrix.")


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``tf.sparse.sparse_dense_matmul``: ``sp_a @ b`` for a rank-2 SparseTensor ``sp_a`` and a dense matrix ``b``
    (``adjoint_a``/``adjoint_b`` transpose either first). When ``b`` is the SparseTensor (and ``sp_a``
    dense), it computes ``sp_a @ b`` as ``(b^T @ sp_a^T)^T``, as TF does. Gradients reach both."""
    if is_sparse(b) and not is_sparse(sp_a):
        out = sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a, name=name)
        return array_ops.transpose(out)
    sp = _sparse(sp_a)
    dense = convert_to_tensor(b, dtype=sp.dtype)
    return execute(_SPARSE_DENSE_MATMUL, (sp.indices, sp.values, sp.dense_shape, dense),
                   {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b), "T": sp.dtype,
                    "Tindices": dtypes.int64}, name=name)


# --------------------------------------------------------------------------------------
# reduce_sum
# --------------------------------------------------------------------------------------
def _reduce_axes(axes, rank):
    out = sorted({int(a) + rank if int(a) < 0 else int(a) for a in np.asarray(axes).reshape(-1).tolist()})
    for a in out:
        if not 0 <= a < rank:
            raise InvalidArgumentError(None, None, f"Invalid reduction dimension {a - rank if a >= rank else a}, "
                                                   f"for input with {rank} dimensions.")
    return out


def _reduce_sum_kernel(xp):
    def k(input_indices, input_values, input_shape, reduction_axes, keep_dims=False, T=None):  # noqa: N803
        shape = np.asarray(input_shape).reshape(-1).astype(np.int64)
        rank = len(shape)
        axes = _reduce_axes(reduction_axes, rank)
        idx = np.asarray(input_indices).reshape(-1, rank).copy()
        vals = np.asarray(input_values)
        out_shape = shape.copy()
        out_shape[axes] = 1
        out = np.zeros(tuple(out_shape.tolist()), dtype=vals.dtype)
        idx[:, axes] = 0
        if len(idx):
            np.add.at(out, tuple(idx.T), vals)
        if not keep_dims:
            out = out.reshape(tuple(d for i, d in enumerate(shape.tolist()) if i not in axes))
        return out[()] if out.ndim == 0 else out
    return k


def _reduce_sum_infer(ic):
    shape, axes = ic.constant_value(2), ic.constant_value(3)
    if shape is None or axes is None:
        return [(ic.dtype(1), TensorShape(None))]
    dims = [int(d) for d in np.asarray(shape).reshape(-1).tolist()]
    norm = _reduce_axes(axes, len(dims))
    if ic.attrs.get("keep_dims"):
        return [(ic.dtype(1), TensorShape([1 if i in norm else d for i, d in enumerate(dims)]))]
    return [(ic.dtype(1), TensorShape([d for i, d in enumerate(dims) if i not in norm]))]


def _reduce_sum_grad(op, grad):
    """TF's ``_SparseReduceSumGrad``: each value gets the gradient of the output entry it was summed into."""
    indices, _, shape, axes = op.inputs
    rank = array_ops.size(shape)
    axes = math_ops.cast(axes, dtypes.int32)
    axes = math_ops.floormod(axes + rank, rank)
    reduced = reduction_ops.reduce_sum(array_ops.one_hot(axes, rank, dtype=dtypes.int64), axis=0)
    kept = math_ops.cast(math_ops.equal(reduced, 0), dtypes.int64)   # 1 for each kept axis, 0 for a reduced one
    keep_shape = math_ops.add(math_ops.multiply(shape, kept), math_ops.subtract(1, kept))   # reduced axes -> 1
    grad_kept = array_ops.reshape(grad, keep_shape)
    landing = math_ops.multiply(indices, kept)   # where each value landed in the keepdims output
    return [None, array_ops.gather_nd(grad_kept, landing), None, None]


_SPARSE_REDUCE_SUM = register_op("SparseReduceSum", kernel=_reduce_sum_kernel, infer=_reduce_sum_infer,
                                 grad=_reduce_sum_grad, saves_outputs=False,
                                 doc="The sum of a SparseTensor's entries along axes: a dense tensor.")


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """``tf.sparse.reduce_sum``: the sum of a SparseTensor's entries along ``axis`` (all when None), a dense
    tensor (``output_is_sparse=True``: its non-zero entries as a SparseTensor). The gradient reaches
    ``sp_input.values``."""
    sp = _sparse(sp_input)
    if axis is None:
        rank = sp.shape.rank
        if rank is None:
            raise ValueError("tf.sparse.reduce_sum with axis=None needs a SparseTensor of known rank")
        axis = list(range(rank))
    axes = axis if isinstance(axis, Tensor) else convert_to_tensor(np.asarray(axis, dtype=np.int32).reshape(-1))
    out = execute(_SPARSE_REDUCE_SUM, (sp.indices, sp.values, sp.dense_shape, axes),
                  {"keep_dims": bool(keepdims), "T": sp.dtype}, name=name)
    return from_dense(out) if output_is_sparse else out


# --------------------------------------------------------------------------------------
# reduce_max (stored values only), and the compositions: slice, concat, transpose, map_values
# --------------------------------------------------------------------------------------
def _reduce_max_kernel(xp):
    def k(input_indices, input_values, input_shape, reduction_axes, keep_dims=False, T=None):  # noqa: N803
        shape = np.asarray(input_shape).reshape(-1).astype(np.int64)
        rank = len(shape)
        axes = _reduce_axes(reduction_axes, rank)
        idx = np.asarray(input_indices).reshape(-1, rank).copy()
        vals = np.asarray(input_values)
        out_shape = shape.copy()
        out_shape[axes] = 1
        lowest = -np.inf if vals.dtype.kind == "f" else np.iinfo(vals.dtype).min
        out = np.full(tuple(out_shape.tolist()), lowest, dtype=vals.dtype)
        seen = np.zeros(out.shape, dtype=bool)
        idx[:, axes] = 0
        if len(idx):
            np.maximum.at(out, tuple(idx.T), vals)
            seen[tuple(idx.T)] = True
        out = np.where(seen, out, np.zeros((), vals.dtype)).astype(vals.dtype)   # (a slice with no entry: 0)
        if not keep_dims:
            out = out.reshape(tuple(d for i, d in enumerate(shape.tolist()) if i not in axes))
        return out[()] if out.ndim == 0 else out
    return k


_SPARSE_REDUCE_MAX = register_op("SparseReduceMax", kernel=_reduce_max_kernel, infer=_reduce_sum_infer,
                                 grad=no_registered_gradient,
                                 doc="The max of a SparseTensor's stored entries along axes (0 where none).")


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """``tf.sparse.reduce_max``: the max of the *stored* entries along ``axis`` (all when None), a dense tensor
    (``output_is_sparse=True``: a SparseTensor). Implicit zeros take no part (a row of negative entries
    has a negative max); a slice with no entry gives 0. As in TF it has no gradient (``LookupError``)."""
    sp = _sparse(sp_input)
    if axis is None:
        axis = list(range(sp.shape.rank))
    axes = axis if isinstance(axis, Tensor) else convert_to_tensor(np.asarray(axis, dtype=np.int32).reshape(-1))
    out = execute(_SPARSE_REDUCE_MAX, (sp.indices, sp.values, sp.dense_shape, axes),
                  {"keep_dims": bool(keepdims), "T": sp.dtype}, name=name)
    return from_dense(out) if output_is_sparse else out


def slice(sp_input, start, size, name=None):  # noqa: A001  (TF's name)
    """``tf.sparse.slice``: the entries within ``[start, start + size)``, moved to start at 0; the dense shape is
    ``size`` clipped to the input's. Composed (``boolean_mask``), so the gradient reaches ``values``."""
    sp = _sparse(sp_input)
    start = math_ops.cast(convert_to_tensor(start), dtypes.int64)
    end = math_ops.add(start, math_ops.cast(convert_to_tensor(size), dtypes.int64))
    inside = reduction_ops.reduce_all(math_ops.logical_and(math_ops.greater_equal(sp.indices, start),
                                                           math_ops.less(sp.indices, end)), axis=1)
    indices = math_ops.subtract(array_ops.boolean_mask(sp.indices, inside), start)
    shape = math_ops.maximum(math_ops.subtract(math_ops.minimum(sp.dense_shape, end), start), 0)
    return SparseTensor(indices, array_ops.boolean_mask(sp.values, inside), shape)


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """``tf.sparse.concat``: SparseTensors joined along ``axis`` (entries in row-major order). Their other dims
    must agree, unless ``expand_nonconcat_dims`` takes the largest.

    As in TF (whose ``SparseConcat`` is not differentiable), no gradient reaches the inputs' values:
    the composed result's values pass through ``stop_gradient``.
    """
    inputs = [_sparse(s) for s in sp_inputs]
    rank = inputs[0].shape.rank
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    hot = array_ops.one_hot(axis, rank, dtype=dtypes.int64)
    shapes = [s.dense_shape for s in inputs]
    offset = array_ops.zeros([rank], dtype=dtypes.int64)
    all_indices = []
    for s in inputs:
        all_indices.append(math_ops.add(s.indices, offset))
        offset = math_ops.add(offset, math_ops.multiply(s.dense_shape, hot))
    if expand_nonconcat_dims:
        widest = shapes[0]
        for d in shapes[1:]:
            widest = math_ops.maximum(widest, d)
        shape = math_ops.add(math_ops.multiply(widest, math_ops.subtract(1, hot)), offset)
    else:
        shape = math_ops.add(math_ops.multiply(shapes[0], math_ops.subtract(1, hot)), offset)
    values = array_ops.stop_gradient(array_ops.concat([s.values for s in inputs], 0))
    return reorder(SparseTensor(array_ops.concat(all_indices, 0), values, shape))


def transpose(sp_input, perm=None, name=None):
    """``tf.sparse.transpose``: the dimensions permuted by ``perm`` (reversed by default), entries re-sorted."""
    sp = _sparse(sp_input)
    rank = sp.shape.rank
    perm = list(range(rank - 1, -1, -1)) if perm is None else [int(p) for p in perm]
    indices = array_ops.gather(sp.indices, perm, axis=1)
    return reorder(SparseTensor(indices, sp.values, array_ops.gather(sp.dense_shape, perm)))


def map_values(op, *args, **kwargs):
    """``tf.sparse.map_values``: ``op`` applied to the ``values`` of the SparseTensors among its arguments (which
    must share their indices), giving a SparseTensor with those indices: ``map_values(tf.ones_like, st)``."""
    found = [a for a in list(args) + list(kwargs.values()) if is_sparse(a)]
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = found[0]
    for other in found[1:]:
        a, b = first.indices, other.indices
        if type(a) is EagerTensor and type(b) is EagerTensor and (a.shape != b.shape or
                                                                   not np.array_equal(a.numpy(), b.numpy())):
            raise InvalidArgumentError(None, None, "Inputs must have identical indices.")
    args = [a.values if is_sparse(a) else a for a in args]
    kwargs = {k: v.values if is_sparse(v) else v for k, v in kwargs.items()}
    return SparseTensor(first.indices, op(*args, **kwargs), first.dense_shape)
