"""Bit shifts (``tf.bitwise.left_shift``/``right_shift``), ``tf.saturate_cast`` and broadcast-shape helpers.

``BitwiseAnd``/``Or``/``Xor``/``Invert`` are registered in ``math_ops`` (the ``&``,
``|``, ``^``, ``~`` operators use them); this module adds the shifts and the
``tf.bitwise`` namespace functions.

Shifts follow TF's kernels: the shift amount is clamped to ``[0, bits - 1]`` (so
``int32 1 << 40`` is ``1 << 31``, and a negative amount shifts by 0), bits shifted
out are lost (``uint8 2 << 7 == 0``), and ``right_shift`` of a negative signed
value is arithmetic (sign-extending).

``saturate_cast`` is composed exactly as TF composes it: clamp to the range both
dtypes can represent (limits nudged toward zero when the target's limit is not
representable in the source dtype), then ``Cast``. It therefore also reproduces TF's
quirks, e.g. ``int64`` to ``float32`` clamps with a limit that overflows.

``broadcast_dynamic_shape`` is the ``BroadcastArgs`` op (int32 or int64 shape
vectors); ``broadcast_static_shape`` works on ``TensorShape``s when a graph is built.
"""
import warnings

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape, as_shape
from . import _shapes
from ._dispatch import INTEGER, binary_inputs, binary_op, check_dtype, execute, int_tensor, to_tensor
from .math_ops import _binary, bitwise_and, bitwise_or, bitwise_xor, cast, invert, maximum, minimum  # noqa: F401

__all__ = ["saturate_cast", "broadcast_static_shape", "broadcast_dynamic_shape"]


def _shift_kernel(left):
    def make(xp):
        def k(x, y):
            bits = x.dtype.itemsize * 8
            amount = xp.clip(y, 0, bits - 1).astype(x.dtype)
            out = xp.left_shift(x, amount) if left else xp.right_shift(x, amount)
            return xp.asarray(out).astype(x.dtype)[()]
        return k
    return make


_LEFT_SHIFT = _binary("LeftShift", _shift_kernel(True), None, INTEGER, quiet_fp=False)


def left_shift(x, y, name=None):
    """``x << y`` elementwise (``y`` clamped to ``[0, bits - 1]``)."""
    return binary_op("LeftShift", x, y, name)


_RIGHT_SHIFT = _binary("RightShift", _shift_kernel(False), None, INTEGER, quiet_fp=False)


def right_shift(x, y, name=None):
    """``x >> y`` elementwise, arithmetic for signed ``x`` (``y`` clamped)."""
    return binary_op("RightShift", x, y, name)



# --------------------------------------------------------------------------------------
# saturate_cast
# --------------------------------------------------------------------------------------
def saturate_cast(value, dtype, name=None):
    """``tf.saturate_cast``: cast to ``dtype``, clamping values the target cannot represent.

    ``saturate_cast([-1., 300.], tf.uint8) == [0, 255]``; NaN becomes what ``tf.cast``
    makes of it. Complex inputs cast to real dtypes keep their real part. ``bool`` on
    either side raises ``TypeError`` (a bool has no min/max), as in TF.
    """
    value = to_tensor(value)
    dtype = dtypes.as_dtype(dtype)
    in_dtype = value.dtype
    if in_dtype.is_complex:
        if dtype.is_complex:
            return cast(value, dtype, name=name)   # complex64 <-> complex128: the real ranges never overflow here
        with warnings.catch_warnings():   # "discards the imaginary part": TF logs the same warning
            warnings.simplefilter("ignore")
            value = cast(value, in_dtype.real_dtype)
        in_dtype = value.dtype
    out_real = dtype.real_dtype if dtype.is_complex else dtype
    for d in (in_dtype, out_real):
        if d.is_bool:
            raise TypeError(f"Cannot find minimum value of {d!r} with type {d!r}.")
    np_dtype = in_dtype.as_numpy_dtype
    with np.errstate(all="ignore"):   # TF computes these limits the same way (including its overflow warnings)
        try:
            promoted = np.promote_types(np_dtype, out_real.as_numpy_dtype)
        except TypeError:
            promoted = float
        min_limit = np_dtype(np.maximum(in_dtype.min, out_real.min))
        pair = np.array([min_limit, out_real.min], dtype=promoted)
        if pair[0] < pair[1]:
            min_limit = np.nextafter(min_limit, np_dtype(0), dtype=np_dtype)
        max_limit = np_dtype(np.minimum(float(in_dtype.max), float(out_real.max)))
        pair = np.array([max_limit, out_real.max], dtype=promoted)
        if pair[0] > pair[1]:
            max_limit = np.nextafter(max_limit, np_dtype(0), dtype=np_dtype)
    lo = to_tensor(np.asarray(min_limit, dtype=np_dtype))
    hi = to_tensor(np.asarray(max_limit, dtype=np_dtype))
    value = maximum(minimum(value, hi), lo)
    return cast(value, dtype, name=name)


# --------------------------------------------------------------------------------------
# Broadcast shapes
# --------------------------------------------------------------------------------------
def broadcast_static_shape(shape_x, shape_y):
    """``tf.broadcast_static_shape``: the broadcast of two ``TensorShape``s (unknown dims allowed).

    ``ValueError`` when they cannot broadcast; an unknown rank on either side gives an unknown shape.
    """
    if not isinstance(shape_x, TensorShape) or not isinstance(shape_y, TensorShape):
        bad = shape_x if not isinstance(shape_x, TensorShape) else shape_y
        raise AttributeError(f"'{type(bad).__name__}' object has no attribute 'ndims' "
                             f"(tf.broadcast_static_shape takes TensorShapes: wrap it with tf.TensorShape)")
    try:
        return _shapes.broadcast_shapes(shape_x, shape_y, "BroadcastArgs")
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension "
                         f"pair they are either equal or one of them is 1. Received: {_tuple(shape_x)} and "
                         f"{_tuple(shape_y)}.") from None


def _tuple(shape):
    return tuple(as_shape(shape).as_list())


def _broadcast_args_kernel(xp):
    def k(s0, s1):
        a, b = [int(v) for v in np.asarray(s0).reshape(-1)], [int(v) for v in np.asarray(s1).reshape(-1)]
        try:
            out = np.broadcast_shapes(tuple(a), tuple(b))
        except ValueError:
            raise InvalidArgumentError(None, None, f"Incompatible shapes: {_shapes.fmt(a)} vs. {_shapes.fmt(b)} "
                                                   f"[Op:BroadcastArgs]") from None
        return xp.asarray(out, dtype=s0.dtype)
    return k


def _broadcast_args_infer(ic):
    a, b = ic.shape(0), ic.shape(1)
    for s in (a, b):
        if s.rank is not None and s.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {s.rank} for '{{{{node BroadcastArgs}}}}' with "
                             f"input shapes: {_shapes.fmt(a)}, {_shapes.fmt(b)}.")
    va, vb = ic.constant_value(0), ic.constant_value(1)
    if va is not None and vb is not None:
        try:
            return [(ic.dtype(0), TensorShape([len(np.broadcast_shapes(tuple(va.tolist()), tuple(vb.tolist())))]))]
        except ValueError:
            raise ValueError(f"Incompatible shapes: {_shapes.fmt(va.tolist())} vs. {_shapes.fmt(vb.tolist())}") \
                from None
    n0 = a[0] if a.rank == 1 else None
    n1 = b[0] if b.rank == 1 else None
    return [(ic.dtype(0), TensorShape([None if n0 is None or n1 is None else max(n0, n1)]))]


_BROADCAST_ARGS = register_op("BroadcastArgs", kernel=_broadcast_args_kernel, infer=_broadcast_args_infer,
                              doc="The broadcast of two shape vectors (int32 or int64).")


def broadcast_dynamic_shape(shape_x, shape_y):
    """``tf.broadcast_dynamic_shape``: the broadcast of two shape vectors, as a tensor (``BroadcastArgs``)."""
    x = int_tensor(shape_x) if not hasattr(shape_x, "dtype") else to_tensor(shape_x)
    y = int_tensor(shape_y, dtype=x.dtype) if not hasattr(shape_y, "dtype") else to_tensor(shape_y)
    x, y = binary_inputs("BroadcastArgs", x, y)
    check_dtype("BroadcastArgs", x, frozenset([dtypes.int32, dtypes.int64]), "s0")
    return execute(_BROADCAST_ARGS, (x, y))
