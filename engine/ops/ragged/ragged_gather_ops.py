"""``tf.ragged.range`` and gathering rows of a RaggedTensor (TF: ``ragged_math_ops.range``,
``ragged_gather_ops.gather``).

Both are index arithmetic on ``row_splits`` followed by one dense ``Gather``, so a gradient
reaches the gathered values the way it reaches any ``tf.gather``.
"""
from ...framework import dtypes
from ...framework.tensor import Tensor, convert_to_tensor
from .. import array_ops, math_ops, reduction_ops
from .ragged_tensor import RaggedTensor

__all__ = ["gather", "range", "row_positions"]


def row_positions(row_splits, value_rowids):
    """The position of each value inside its row: ``[0, 1, 2, 0, 0, 1]``."""
    nvals = row_splits[-1]
    positions = array_ops.range(array_ops.zeros([], dtype=row_splits.dtype), nvals, dtype=row_splits.dtype)
    return positions - array_ops.gather(row_splits, value_rowids)


def range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=dtypes.int64):
    """``tf.ragged.range``: row ``i`` is ``tf.range(starts[i], limits[i], deltas[i])``.

    Scalars broadcast against vectors; with one argument it is the limits (``starts`` 0)::

        tf.ragged.range([3, 0, 2])         # <tf.RaggedTensor [[0, 1, 2], [], [0, 1]]>
    """
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if limits is None:
        starts, limits = 0, starts
    args = [starts, limits, deltas]
    if dtype is None:
        inferred = [a.dtype if isinstance(a, Tensor) else convert_to_tensor(a).dtype for a in args]
        order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
        dtype = max(inferred, key=lambda d: order.index(d) if d in order else 0)
    dtype = dtypes.as_dtype(dtype)
    starts, limits, deltas = [math_ops.cast(convert_to_tensor(a), dtype) for a in args]
    shape = array_ops.reshape(array_ops.shape(starts + limits + deltas), [-1])   # (broadcasting the three)
    if (starts + limits + deltas).shape.rank == 0:   # all scalars: one row
        shape = array_ops.ones([1], dtype=dtypes.int32)
    starts, limits, deltas = [array_ops.broadcast_to(a, shape) for a in (starts, limits, deltas)]
    if dtype.is_integer:
        span = limits - starts
        # ceil(span / delta) for either sign of delta, clipped at 0
        counts = math_ops.floordiv(span + deltas - math_ops.sign(deltas), deltas)
    else:
        counts = math_ops.ceil((limits - starts) / deltas)
    counts = math_ops.maximum(math_ops.cast(counts, row_splits_dtype), 0)
    splits = array_ops.concat([array_ops.zeros([1], dtype=row_splits_dtype), reduction_ops.cumsum(counts)], 0)
    skeleton = RaggedTensor.from_row_splits(array_ops.zeros(splits[-1:], dtype=dtypes.int8), splits, validate=False)
    rowids = skeleton.value_rowids()
    within = math_ops.cast(row_positions(splits, rowids), dtype)
    values = array_ops.gather(starts, rowids) + within * array_ops.gather(deltas, rowids)
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """``tf.gather`` on a RaggedTensor (``axis=0``): its rows ``indices``, in that order.

    ``indices`` may be a RaggedTensor too (the result nests its rows inside).
    """
    if axis not in (None, 0) or batch_dims:
        raise NotImplementedError("gather on a RaggedTensor supports axis=0 and batch_dims=0 only")
    if isinstance(indices, RaggedTensor):
        return indices.with_values(gather(params, indices.values))
    indices = convert_to_tensor(indices)
    if not isinstance(params, RaggedTensor):
        return array_ops.gather(params, indices)
    if indices.shape.rank != 1:
        raise NotImplementedError("gather on a RaggedTensor takes indices of rank 1 (or a RaggedTensor)")
    sdt = params.row_splits_dtype
    indices = math_ops.cast(indices, sdt)
    starts = array_ops.gather(params.row_starts(), indices)
    limits = array_ops.gather(params.row_limits(), indices)
    value_index = range(starts, limits, 1, dtype=sdt, row_splits_dtype=sdt)
    values = gather(params.values, value_index.values)
    return RaggedTensor.from_row_splits(values, value_index.row_splits, validate=False)
