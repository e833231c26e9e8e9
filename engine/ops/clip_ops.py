"""Norms and gradient clipping: ``tf.norm``, ``tf.clip_by_norm``, ``tf.clip_by_global_norm``, ``tf.nn.l2_normalize``.

All of them are composed from registered ops (square, reduce_sum, sqrt, maximum...), so
their gradients come from those ops' gradients: no new registry entries.

``clip_by_norm``, ``global_norm`` and ``clip_by_global_norm`` accept ``tf.IndexedSlices``
(the gradients of ``tf.gather``) as TF does: the norm is taken over the slices' ``values``
(so a row gathered twice counts as two rows, not as their sum) and the result is an
``IndexedSlices`` with scaled values and the same indices.
"""
import numpy as np

from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import convert_to_tensor
from . import math_ops, reduction_ops

__all__ = ["norm", "clip_by_norm", "clip_by_global_norm", "global_norm", "l2_normalize"]


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """``tf.norm``: the Euclidean (Frobenius) norm by default; ``ord`` 1 and ``np.inf`` for vectors."""
    x = convert_to_tensor(tensor)
    keep = bool(keepdims)
    if ord in ("euclidean", "fro", 2, 2.0):
        return math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(x), axis, keepdims=keep))
    if ord in (1, 1.0):
        return reduction_ops.reduce_sum(math_ops.abs(x), axis, keepdims=keep)
    if ord in (np.inf, "inf"):
        return reduction_ops.reduce_max(math_ops.abs(x), axis, keepdims=keep)
    raise ValueError(f"'ord' must be a supported vector norm ('euclidean', 'fro', 1, 2, np.inf), got {ord!r}.")


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Scale ``t`` so its L2 norm (over ``axes``) is at most ``clip_norm``: ``t * clip_norm / max(norm, clip_norm)``."""
    if isinstance(t, IndexedSlices):   # TF: clip the values, keep the rows
        return IndexedSlices(clip_by_norm(t.values, clip_norm, axes), t.indices, t.dense_shape)
    t = convert_to_tensor(t)
    clip_norm = math_ops.cast(clip_norm, t.dtype)
    l2 = math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(t), axes, keepdims=True))
    return math_ops.realdiv(math_ops.multiply(t, clip_norm), math_ops.maximum(l2, clip_norm))


def global_norm(t_list, name=None):
    """The L2 norm of all tensors of ``t_list`` taken together (``None`` entries are skipped)."""
    tensors = [t.values if isinstance(t, IndexedSlices) else convert_to_tensor(t) for t in t_list if t is not None]
    if not tensors:
        raise ValueError("global_norm needs at least one tensor")
    squares = [reduction_ops.reduce_sum(math_ops.square(math_ops.cast(t, tensors[0].dtype))) for t in tensors]
    return math_ops.sqrt(math_ops.add_n(squares) if len(squares) > 1 else squares[0])


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor by ``clip_norm / max(global_norm, clip_norm)``; returns ``(clipped, global_norm)``.

    This is the usual gradient clipping of training loops: the direction of the
    whole gradient is kept, only its length is capped.
    """
    t_list = list(t_list)
    g = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    clip_norm = math_ops.cast(clip_norm, g.dtype)
    scale = math_ops.realdiv(clip_norm, math_ops.maximum(g, clip_norm))
    clipped = []
    for t in t_list:
        if t is None:
            clipped.append(None)
            continue
        if isinstance(t, IndexedSlices):
            clipped.append(IndexedSlices(math_ops.multiply(t.values, math_ops.cast(scale, t.dtype)), t.indices,
                                         t.dense_shape))
            continue
        t = convert_to_tensor(t)
        clipped.append(math_ops.multiply(t, math_ops.cast(scale, t.dtype)))
    return clipped, g


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))``: unit L2 norm along ``axis``.

    Built as TF builds it: ``epsilon`` is a Python number beside ``x``'s dtype, so an integer ``x``
    is refused with TF's ``TypeError`` ("Cannot convert 1e-12 to EagerTensor of dtype int32").
    """
    x = convert_to_tensor(x)
    axis = dim if axis is None and dim is not None else axis
    square_sum = reduction_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
    return math_ops.multiply(x, math_ops.rsqrt(math_ops.maximum(square_sum, epsilon)))
