"""Indexing a RaggedTensor: ``rt[1]``, ``rt[1:]``, ``rt[:, :2]``, ``rt[3, 0]`` (TF: ``ragged_getitem.py``).

The outermost dimension is uniform, so any key works on it: an integer picks one row (a
Tensor, or a RaggedTensor one rank lower), a slice picks rows. An inner *ragged* dimension
can only be sliced, row by row (``rt[:, -2:]`` is each row's last two values, however
long the row); an integer there raises TF's ``ValueError`` "Cannot index into an inner
ragged dimension." Everything is ``Gather`` on index arithmetic over the row splits, so
gradients reach the selected values. ``tf.newaxis`` is not supported (a deliberate gap).
"""
import numbers

from ...framework.tensor import Tensor, convert_to_tensor
from .. import array_ops, math_ops
from .ragged_gather_ops import gather
from .ragged_gather_ops import range as ragged_range
from .ragged_tensor import RaggedTensor

__all__ = ["ragged_tensor_getitem"]


def ragged_tensor_getitem(rt, key):
    """``rt[key]``, for a RaggedTensor ``rt``."""
    keys = list(key) if isinstance(key, tuple) else [key]
    if any(k is None for k in keys):
        raise ValueError("tf.newaxis is not supported when indexing a RaggedTensor in the engine")
    if any(k is Ellipsis for k in keys):
        at = keys.index(Ellipsis)
        rank = rt.shape.rank
        if rank is None:
            raise ValueError("Ellipsis not supported for unknown shape RaggedTensors")
        fill = rank - (len(keys) - 1)
        keys = keys[:at] + [slice(None)] * max(fill, 0) + keys[at + 1:]
    if rt.shape.rank is not None and len(keys) > rt.shape.rank:
        raise ValueError("Too many indices for RaggedTensor")
    return _getitem(rt, keys)


def _is_int(k):
    return isinstance(k, numbers.Integral) or (isinstance(k, Tensor) and k.shape.rank == 0 and k.dtype.is_integer)


def _getitem(value, keys):
    """``value[keys]`` where ``value`` is a Tensor or a RaggedTensor."""
    if not keys:
        return value
    if not isinstance(value, RaggedTensor):
        return _dense_getitem(value, keys)
    row_key, inner = keys[0], keys[1:]
    if _is_int(row_key):
        return _getitem(_row(value, row_key), inner)
    if isinstance(row_key, slice):
        rows = _rows(value, row_key)
        return _inner(rows, inner) if inner else rows
    raise TypeError(f"Ragged __getitem__ expects int or slice, got {type(row_key).__name__}")


def _dense_getitem(value, keys):
    """``value[keys]`` on a dense tensor. On strings, integer keys become one-wide slices and a
    ``squeeze``: the engine's StridedSlice kernel cannot yet return a single string."""
    if value.dtype.name != "string" or not any(isinstance(k, numbers.Integral) for k in keys):
        return value[tuple(keys)]
    widened, axes = [], []
    for axis, k in enumerate(keys):
        if isinstance(k, numbers.Integral):
            k = int(k)
            widened.append(slice(k, k + 1 if k != -1 else None))
            axes.append(axis)
        else:
            widened.append(k)
    return array_ops.squeeze(value[tuple(widened)], axes)


def _row(rt, index):
    """Row ``index`` of ``rt``; a static out-of-bounds index raises TF's IndexError."""
    nrows = rt.shape[0]
    if isinstance(index, numbers.Integral):
        index = int(index)
        if nrows is not None and not -nrows <= index < nrows:
            raise IndexError(f"Row key {index} out of bounds")
        if index < 0:
            index = rt.nrows() + index if nrows is None else nrows + index
    else:
        n = math_ops.cast(rt.nrows(), index.dtype)
        index = array_ops.where(math_ops.less(index, 0), index + n, index)
    return gather(rt, array_ops.reshape(convert_to_tensor(index), [1])).values


def _rows(rt, key):
    """Rows ``key`` (a slice, any step) of ``rt``."""
    if key == slice(None):
        return rt
    positions = array_ops.range(rt.nrows(out_type=rt.row_splits_dtype))[key]
    return gather(rt, positions)


def _inner(rt, keys):
    """Apply ``keys`` to dimensions 1.. of ``rt``, for every row."""
    key, rest = keys[0], keys[1:]
    if _is_int(key):
        raise ValueError("Cannot index into an inner ragged dimension.")
    if not isinstance(key, slice):
        raise TypeError(f"Ragged __getitem__ expects int or slice, got {type(key).__name__}")
    sliced = rt if key == slice(None) else _slice_each_row(rt, key)
    if not rest:
        return sliced
    return sliced.with_values(_getitem(sliced.values, [slice(None)] + list(rest)))


def _slice_each_row(rt, key):
    """``row[key]`` for each row, as Python slices clip: ``[:, -2:]`` is each row's last two."""
    sdt = rt.row_splits_dtype
    step = 1 if key.step is None else key.step
    if isinstance(step, numbers.Integral) and step == 0:
        raise ValueError("slice step cannot be zero")
    length = rt.row_lengths()
    zero = array_ops.zeros_like(length)

    def as_t(v):
        return math_ops.cast(convert_to_tensor(v), sdt)

    def clip(bound, default, low, high):
        if bound is None:
            return default
        b = as_t(bound)
        return array_ops.where(math_ops.less(b, 0), math_ops.maximum(length + b, low), math_ops.minimum(b, high))
    if isinstance(step, numbers.Integral) and step > 0:
        start = clip(key.start, zero, zero, length)
        stop = clip(key.stop, length, zero, length)
        stop = math_ops.maximum(stop, start)
    else:
        minus_one = zero - 1
        start = clip(key.start, length - 1, minus_one, length - 1)
        stop = clip(key.stop, minus_one, minus_one, length - 1)
    starts = rt.row_starts()
    index = ragged_range(starts + start, starts + stop, as_t(step), dtype=sdt, row_splits_dtype=sdt)
    values = gather(rt.values, index.values)
    return RaggedTensor.from_row_splits(values, index.row_splits, validate=False)


RaggedTensor.__getitem__ = ragged_tensor_getitem
