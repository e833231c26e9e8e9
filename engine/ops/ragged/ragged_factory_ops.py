"""``tf.ragged.constant``: a RaggedTensor from a nested Python list.

::

    tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    # <tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9, 2], [6], []]>

As in TF: every scalar must sit at the same depth ("all scalar values must have the same
nesting depth"); ``ragged_rank`` defaults to depth - 1 - len(``inner_shape``); the
dimensions below ``ragged_rank`` must be uniform ("inner values have inconsistent shape");
the flat values convert as ``tf.constant`` would (int32 for ints, float32 for floats and for
an all-empty list, ``tf.string`` for strings; mixed types are refused).
"""
import numpy as np

from ...framework import dtypes
from ...framework.tensor import constant as _constant
from .ragged_tensor import RaggedTensor

__all__ = ["constant"]


def _is_list(x):
    return isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim > 0)


def _depth(pylist):
    """The nesting depth of the scalars in ``pylist`` (None for a list with no scalars at all)."""
    if not _is_list(pylist):
        return 0
    depths = set()
    for item in pylist:
        d = _depth(item)
        if d is not None:
            depths.add(d + 1)
    if len(depths) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    return depths.pop() if depths else None


def _empty_depth(pylist):
    """How deep the (scalar-free) lists go."""
    if not _is_list(pylist):
        return 0
    return 1 + max((_empty_depth(x) for x in pylist), default=0)


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=dtypes.int64):
    """``tf.ragged.constant``: a RaggedTensor (or a Tensor, for ``ragged_rank=0`` or a scalar) from ``pylist``."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if isinstance(pylist, RaggedTensor):
        return pylist
    depth = _depth(pylist)
    inner_shape = tuple(inner_shape) if inner_shape is not None else None
    if depth is None:   # no scalars: [[], []]
        depth = _empty_depth(pylist) + (len(inner_shape) if inner_shape else 0)
        if ragged_rank is None:
            ragged_rank = max(0, depth - 1 - (len(inner_shape) if inner_shape else 0))
    if ragged_rank is None:
        ragged_rank = max(0, depth - 1 - (len(inner_shape) if inner_shape else 0))
    if depth is not None and ragged_rank >= max(depth, 1) and depth > 0:
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}")
    if ragged_rank == 0:
        return _constant(pylist, dtype=dtype)
    nested_splits = []
    level = list(pylist)
    for _ in range(ragged_rank):
        splits, nxt = [0], []
        for row in level:
            if not _is_list(row):
                raise ValueError("all scalar values must have the same nesting depth")
            nxt.extend(row)
            splits.append(len(nxt))
        nested_splits.append(splits)
        level = nxt
    flat = _flat_values(level, dtype, inner_shape)
    result = flat
    for splits in reversed(nested_splits):
        result = RaggedTensor.from_row_splits(result, _constant(np.asarray(splits, row_splits_dtype.as_numpy_dtype)),
                                              validate=False)
    return result


def _flat_values(items, dtype, inner_shape):
    """The innermost values: a uniform block (``inner values have inconsistent shape`` otherwise)."""
    if not items:
        shape = (0,) + (inner_shape or ())
        np_dtype = (dtypes.as_dtype(dtype) if dtype is not None else dtypes.float32).as_numpy_dtype
        return _constant(np.zeros(shape, dtype=np_dtype if np_dtype is not object else object),
                         dtype=dtype or dtypes.float32)
    shapes = {np.shape(x) if _is_list(x) else () for x in items}
    if len(shapes) > 1 or any(_ragged_inside(x) for x in items):
        raise ValueError("inner values have inconsistent shape")
    if inner_shape is not None and shapes.pop() != inner_shape:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
    return _constant(list(items), dtype=dtype)


def _ragged_inside(x):
    if not _is_list(x):
        return False
    try:
        np.asarray(x, dtype=object).reshape(-1)
        lengths = {len(v) if _is_list(v) else -1 for v in x}
        return len(lengths) > 1 or any(_ragged_inside(v) for v in x)
    except ValueError:
        return True
