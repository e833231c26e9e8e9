"""Reductions: ``reduce_sum``, ``reduce_mean``, ``reduce_max`` ... along axes.

As in TF, the axes are a tensor input (``reduction_indices``), so they may be
computed at run time in a graph; ``keep_dims`` is an attr. ``axis=None`` means
all axes.
"""
import numpy as np

from ..framework import dtypes
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape
from . import _shapes
from ._dispatch import FLOAT, NUMERIC, check_dtype, execute, int_tensor, to_tensor

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all",
           "reduce_logsumexp"]

_BOOL = frozenset([dtypes.bool])


def _axes(axis, ndim, op_name):
    return _shapes.normalize_axes(np.ravel(np.asarray(axis.tolist() if hasattr(axis, "tolist") else axis)),
                                  ndim, op_name)


def _reduce_infer(ic):
    x = ic.shape(0)
    keep = ic.attrs.get("keep_dims", False)
    axes = ic.constant_value(1)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    if axes is None:
        return [(ic.dtype(0), TensorShape([None] * x.rank) if keep else TensorShape(None))]
    axes = _shapes.normalize_axes(np.ravel(axes), x.rank, ic.op_name)
    if keep:
        dims = [1 if i in axes else d for i, d in enumerate(x)]
    else:
        dims = [d for i, d in enumerate(x) if i not in axes]
    return [(ic.dtype(0), TensorShape(dims))]


def reduced_shape(input_shape_tensor_or_list, axes):
    """The shape of a reduction with keepdims=True, as a list (static) or a tensor (dynamic)."""
    from . import array_ops, math_ops
    if isinstance(input_shape_tensor_or_list, (list, tuple)):
        rank = len(input_shape_tensor_or_list)
        axes = _shapes.normalize_axes(np.ravel(axes), rank, "reduced_shape")
        return [1 if i in axes else d for i, d in enumerate(input_shape_tensor_or_list)]
    shape = input_shape_tensor_or_list
    rank = array_ops.size(shape)
    idx = array_ops.range(rank)
    axes = math_ops.floormod(array_ops.reshape(to_tensor(axes), [-1]), rank)
    hit = reduce_any(math_ops.equal(array_ops.expand_dims(idx, 1), array_ops.expand_dims(axes, 0)), axis=1)
    return array_ops.where(hit, array_ops.ones_like(shape), shape)


def _keepdims_grad(op, grad):
    """Reshape ``grad`` to the keepdims shape and broadcast it to the input's shape."""
    from . import array_ops
    x, axis = op.inputs
    if x.shape.is_fully_defined():
        x_shape = x.shape.as_list()
        axes = axis.numpy() if hasattr(axis, "numpy") and _is_eager(axis) else None
        if axes is not None:
            kept = reduced_shape(x_shape, axes)
            if grad.shape.as_list() != kept:
                grad = array_ops.reshape(grad, kept)
            return array_ops.broadcast_to(grad, x_shape)
    x_shape = array_ops.shape(x)
    grad = array_ops.reshape(grad, reduced_shape(x_shape, axis))
    return array_ops.broadcast_to(grad, x_shape)


def _is_eager(t):
    from ..framework.tensor import EagerTensor
    return isinstance(t, EagerTensor)


def _sum_grad(op, grad):
    return _keepdims_grad(op, grad), None


def _mean_grad(op, grad):
    from . import array_ops, math_ops
    x = op.inputs[0]
    y = op.outputs[0]
    spread = _keepdims_grad(op, grad)
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        count = max(x.shape.num_elements(), 1) // max(y.shape.num_elements(), 1)
        return math_ops.realdiv(spread, math_ops.cast(count, spread.dtype)), None
    count = math_ops.floordiv(array_ops.size(x), math_ops.maximum(array_ops.size(y), 1))
    return math_ops.realdiv(spread, math_ops.cast(count, spread.dtype)), None


def _min_max_grad(op, grad):
    """Split the gradient evenly between all elements equal to the extreme value."""
    from . import math_ops
    x, axis = op.inputs
    y = op.outputs[0]
    indicators = math_ops.cast(math_ops.equal(_keepdims_grad(op, y), x), grad.dtype)
    counts = reduce_sum(indicators, axis, keepdims=op.attrs.get("keep_dims", False))
    share = math_ops.realdiv(indicators, _keepdims_grad(op, counts))
    return math_ops.multiply(share, _keepdims_grad(op, grad)), None


def _prod_grad(op, grad):
    """Product of all *other* elements, computed without dividing (so zeros are fine).

    Move the reduced axes to the front, flatten them, and multiply an exclusive
    cumulative product from the left by one from the right, as TF does.
    """
    from . import array_ops, math_ops
    x, axis = op.inputs
    shape = x.shape.as_list()
    rank = len(shape)
    axes = list(_shapes.normalize_axes(np.ravel(axis.numpy()), rank, "Prod"))
    other = [i for i in range(rank) if i not in axes]
    perm = axes + other
    reduced_n = int(np.prod([shape[i] for i in axes], dtype=np.int64))
    other_n = int(np.prod([shape[i] for i in other], dtype=np.int64))
    permuted = array_ops.transpose(x, perm)
    flat = array_ops.reshape(permuted, [reduced_n, other_n])
    left = cumprod(flat, axis=0, exclusive=True)
    right = cumprod(flat, axis=0, exclusive=True, reverse=True)
    others = math_ops.multiply(left, right)
    others = array_ops.reshape(others, [shape[i] for i in perm])
    inv = list(np.argsort(perm))
    others = array_ops.transpose(others, inv)
    return math_ops.multiply(_keepdims_grad(op, grad), others), None


def _mean_kernel(xp):
    def k(x, axis, keep_dims=False):
        ax = _axes(axis, x.ndim, "Mean")
        if x.dtype.kind in "iu":
            s = xp.sum(x, axis=ax, dtype=np.int64, keepdims=keep_dims)
            n = int(np.prod([x.shape[a] for a in ax], dtype=np.int64)) or 1
            return (s // n + ((s % n != 0) & (s < 0))).astype(x.dtype)[()]  # truncate toward zero
        return xp.mean(x, axis=ax, dtype=x.dtype, keepdims=keep_dims)
    return k


def _reduction(op_name, make_kernel, grad, allowed, saves_inputs=True, saves_outputs=False):
    op = register_op(op_name, kernel=make_kernel, infer=_reduce_infer, grad=grad,
                     saves_inputs=saves_inputs, saves_outputs=saves_outputs)

    def public(input_tensor, axis=None, keepdims=False, name=None):
        x = to_tensor(input_tensor)
        check_dtype(op_name, x, allowed, "input")
        if axis is None:
            rank = x.shape.rank
            axis = list(range(rank)) if rank is not None else _all_axes(x)
        return execute(op, (x, int_tensor(axis)), {"keep_dims": bool(keepdims)}, name=name)
    return op, public


def _all_axes(x):
    from . import array_ops
    return array_ops.range(array_ops.rank(x))


def _simple(fn_name, dtype_arg=True):
    def make(xp):
        fn = getattr(xp, fn_name)

        def k(x, axis, keep_dims=False):
            ax = _axes(axis, x.ndim, fn_name)
            if dtype_arg:
                return fn(x, axis=ax, dtype=x.dtype, keepdims=keep_dims)
            return fn(x, axis=ax, keepdims=keep_dims)
        return k
    return make


def _maxmin(fn_name):
    def make(xp):
        fn = getattr(xp, fn_name)

        def k(x, axis, keep_dims=False):
            ax = _axes(axis, x.ndim, fn_name)
            if x.size == 0 and ax:  # TF returns the identity element for empty reductions
                shape = tuple(1 if i in ax else d for i, d in enumerate(x.shape)) if keep_dims else \
                    tuple(d for i, d in enumerate(x.shape) if i not in ax)
                info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
                fill = -np.inf if fn_name == "amax" and x.dtype.kind == "f" else (
                    np.inf if x.dtype.kind == "f" else (info.min if fn_name == "amax" else info.max))
                return xp.full(shape, fill, dtype=x.dtype)
            return fn(x, axis=ax, keepdims=keep_dims)
        return k
    return make


_SUM, reduce_sum = _reduction("Sum", _simple("sum"), _sum_grad, NUMERIC, saves_inputs=(1,))
_MEAN, reduce_mean = _reduction("Mean", _mean_kernel, _mean_grad, NUMERIC, saves_inputs=(1,))
_MAX, reduce_max = _reduction("Max", _maxmin("amax"), _min_max_grad, NUMERIC, saves_outputs=True)
_MIN, reduce_min = _reduction("Min", _maxmin("amin"), _min_max_grad, NUMERIC, saves_outputs=True)
_PROD, reduce_prod = _reduction("Prod", _simple("prod"), _prod_grad, NUMERIC)
_ANY, reduce_any = _reduction("Any", _simple("any", dtype_arg=False), None, _BOOL)
_ALL, reduce_all = _reduction("All", _simple("all", dtype_arg=False), None, _BOOL)

reduce_sum.__doc__ = "Sum over ``axis`` (all axes if None). Integer sums keep their dtype, as in TF."
reduce_mean.__doc__ = "Mean over ``axis``. Integer means truncate toward zero, as in TF."
reduce_max.__doc__ = "Max over ``axis``; the gradient is shared equally among tied maxima."
reduce_min.__doc__ = "Min over ``axis``; the gradient is shared equally among tied minima."
reduce_prod.__doc__ = "Product over ``axis``; the gradient is exact even when elements are zero."
reduce_any.__doc__ = "Logical OR over ``axis`` (bool tensors)."
reduce_all.__doc__ = "Logical AND over ``axis`` (bool tensors)."


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """``log(sum(exp(x)))`` computed stably by subtracting the max first."""
    from . import array_ops, math_ops
    x = to_tensor(input_tensor)
    check_dtype("ReduceLogSumExp", x, FLOAT, "input")
    raw_max = reduce_max(x, axis, keepdims=True)
    my_max = array_ops.stop_gradient(array_ops.where(math_ops.is_finite(raw_max), raw_max,
                                                     array_ops.zeros_like(raw_max)))
    result = math_ops.log(reduce_sum(math_ops.exp(math_ops.subtract(x, my_max)), axis, keepdims=True))
    result = math_ops.add(result, my_max)
    if not keepdims:
        axes = axis if axis is not None else list(range(x.shape.rank))
        result = array_ops.squeeze(result, axes if isinstance(axes, (list, tuple)) else [axes])
    return result
