"""Reductions over RaggedTensors (TF: ``ragged_math_ops.py``): ``tf.reduce_sum(rt, axis=1)`` & co.

Reducing the ragged dimension (``axis=1``) is an unsorted segment reduction of ``values``
by ``value_rowids`` into ``nrows`` segments; reducing the rows (``axis=0``) is a segment
reduction by each value's position in its row; an axis inside ``values`` reduces
``values`` and keeps the partition; ``axis=None`` reduces ``flat_values``. As in TF, an
empty row's maximum is the dtype's lowest value (and its minimum the highest), its mean is
``nan``, and the mean of integers is computed in float64.
"""
from ...framework import dtypes
from ...framework.errors import InvalidArgumentError
from .. import array_ops, math_ops, reduction_ops, segment_ops
from .ragged_gather_ops import row_positions
from .ragged_tensor import RaggedTensor

__all__ = [
    "ragged_reduce",
    "reduce_all",
    "reduce_any",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
]

_SEGMENT = {"sum": segment_ops.unsorted_segment_sum, "max": segment_ops.unsorted_segment_max,
            "min": segment_ops.unsorted_segment_min, "prod": segment_ops.unsorted_segment_prod}
_DENSE = {"sum": reduction_ops.reduce_sum, "max": reduction_ops.reduce_max, "min": reduction_ops.reduce_min,
          "prod": reduction_ops.reduce_prod, "mean": reduction_ops.reduce_mean, "any": reduction_ops.reduce_any,
          "all": reduction_ops.reduce_all}


def _normalize_axis(axis, rank):
    if rank is None:
        if axis < 0:
            raise ValueError("axis may only be negative if ndims is statically known.")
        return axis
    if not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    return axis + rank if axis < 0 else axis


def ragged_reduce(kind, rt, axis=None, keepdims=False):
    """Reduce ``rt`` with ``kind`` (``"sum"``, ``"max"``, ``"min"``, ``"prod"``, ``"mean"``, ``"any"``, ``"all"``)."""
    if not isinstance(rt, RaggedTensor):
        return _DENSE[kind](rt, axis=axis, keepdims=keepdims)
    if kind in ("any", "all"):   # counts of True (any) or False (all): an empty row is False / True
        values = rt.flat_values if kind == "any" else math_ops.logical_not(rt.flat_values)
        counts = ragged_reduce("sum", rt.with_flat_values(math_ops.cast(values, dtypes.int32)), axis, keepdims)
        test = math_ops.greater if kind == "any" else math_ops.equal
        return _map_values(counts, lambda t: test(t, 0))
    if kind == "mean":
        values = rt.flat_values
        if values.dtype.is_integer or values.dtype.is_bool:
            rt = rt.with_flat_values(math_ops.cast(values, dtypes.float64))
        total = ragged_reduce("sum", rt, axis, keepdims)
        count = ragged_reduce("sum", rt.with_flat_values(array_ops.ones_like(rt.flat_values)), axis, keepdims)
        return _map2(total, count, math_ops.truediv)
    if axis is None:
        return _DENSE[kind](rt.flat_values, keepdims=False)
    if isinstance(axis, (list, tuple)):
        axes = sorted({_normalize_axis(a, rt.shape.rank) for a in axis}, reverse=True)
        result = rt
        for a in axes:   # innermost first: the outer axes keep their numbers
            result = ragged_reduce(kind, result, a, keepdims)
        return result
    if hasattr(axis, "numpy"):
        axis = int(axis.numpy())
    axis = _normalize_axis(axis, rt.shape.rank)
    if axis == 0:
        result = _reduce_rows(kind, rt)
    elif axis == 1:
        result = _reduce_ragged_dim(kind, rt)
    else:
        result = rt.with_values(ragged_reduce(kind, rt.values, axis - 1, keepdims))
        return result
    if keepdims:
        result = _expand(result, axis)
    return result


def _reduce_ragged_dim(kind, rt):
    return _segment_reduce(kind, rt.values, rt.value_rowids(), rt.nrows())


def _reduce_rows(kind, rt):
    columns = row_positions(rt.row_splits, rt.value_rowids())
    lengths = rt.row_lengths()
    ncols = reduction_ops.reduce_max(array_ops.concat([array_ops.zeros([1], dtype=lengths.dtype), lengths], 0))
    return _segment_reduce(kind, rt.values, columns, ncols)


def _segment_reduce(kind, values, segment_ids, num_segments):
    """Reduce the rows of ``values`` that share a segment id. Dense rows: an unsorted segment op. Ragged
    rows: elementwise, position by position, each output row as long as its longest input row (as TF)."""
    if not isinstance(values, RaggedTensor):
        return _SEGMENT[kind](values, segment_ids, num_segments)
    if isinstance(values.values, RaggedTensor):
        raise NotImplementedError("reducing a dimension above two ragged dimensions")
    lengths = values.row_lengths()
    out_lengths = math_ops.maximum(segment_ops.unsorted_segment_max(lengths, segment_ids, num_segments), 0)
    out_splits = array_ops.concat([array_ops.zeros([1], dtype=lengths.dtype), reduction_ops.cumsum(out_lengths)], 0)
    owner = values.value_rowids()
    target = array_ops.gather(out_splits, array_ops.gather(segment_ids, owner)) + row_positions(values.row_splits,
                                                                                                owner)
    flat = _SEGMENT[kind](values.values, target, out_splits[-1])
    return RaggedTensor.from_row_splits(flat, out_splits, validate=False)


def _expand(t, axis):
    if isinstance(t, RaggedTensor):
        raise InvalidArgumentError(None, None, "keepdims on a ragged reduction is not supported")
    return array_ops.expand_dims(t, axis)


def _map_values(t, fn):
    return t.with_flat_values(fn(t.flat_values)) if isinstance(t, RaggedTensor) else fn(t)


def _map2(a, b, fn):
    if isinstance(a, RaggedTensor):
        return a.with_flat_values(fn(a.flat_values, b.flat_values))
    return fn(a, b)


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    return ragged_reduce("sum", input_tensor, axis, keepdims)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    return ragged_reduce("mean", input_tensor, axis, keepdims)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    return ragged_reduce("max", input_tensor, axis, keepdims)


def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    return ragged_reduce("min", input_tensor, axis, keepdims)


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    return ragged_reduce("prod", input_tensor, axis, keepdims)


def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    return ragged_reduce("any", input_tensor, axis, keepdims)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    return ragged_reduce("all", input_tensor, axis, keepdims)
