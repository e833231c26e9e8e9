"""Reductions (``reduce_sum``, ``reduce_mean``, ...), index reductions (``argmax``) and scans (``cumsum``).

As in TF, the axes are a tensor input (``reduction_indices``), so they may be
computed at run time in a graph; ``keep_dims`` is an attr. ``axis=None`` means
all axes. Repeating an axis is an error (``[0, -2]`` on a matrix names axis 0
twice), as in TF.

Dtype rules (TF's): integer sums and products keep their dtype and wrap on
overflow; integer means truncate toward zero; ``reduce_any``/``reduce_all``
take only bool; an empty ``reduce_max`` gives the dtype's lowest value
(``-inf`` for floats), an empty ``reduce_min`` the highest.

Where the engine deliberately differs from TF 2.21:

* ``argmax(x, axis=np.int64(1))`` works (TF raises ``TypeError`` for NumPy
  integer axes).
* Matching TF, not calculus: the gradient of ``cumprod`` is 0 where ``x == 0``.
"""
import math

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.device import default_device
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import (EagerTensor, Tensor, convert_to_tensor, converted_by_wrapper, noting_python_origin,
                                scalar_like)
from ..framework.tensor_shape import TensorShape
from . import _shapes
from . import array_ops, math_ops  # noqa: E402  (used at call time)
from ._dispatch import FLOAT, NUMERIC, check_dtype, execute, int_tensor, to_tensor
from .math_ops import quiet
from ..framework.graph import constant_value

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all",
           "reduce_logsumexp", "argmax", "argmin", "cumsum"]

_BOOL = frozenset([dtypes.bool])
_INDEX_TYPES = frozenset([dtypes.int32, dtypes.int64])


# --------------------------------------------------------------------------------------
# Axis handling
# --------------------------------------------------------------------------------------
def _normalize(axes, rank, op_name):
    """Non-negative, sorted axes; ``ValueError`` for an out-of-range or repeated axis."""
    out = []
    for a in axes:
        a = int(a)
        if not -rank <= a < rank:
            raise ValueError(f"Invalid reduction dimension ({a} for input with {rank} dimension(s)) "
                             f"in {op_name}: axis must be in [-{rank}, {rank}).")
        a %= rank
        if a in out:
            raise ValueError(f"Invalid reduction arguments: Axes contains duplicate dimension: {a} "
                             f"(in {op_name}; each axis may appear once)")
        out.append(a)
    return tuple(sorted(out))


_NORMALIZED = {}   # (axis values, rank) -> normalized axes, for axes that passed the checks


def _axes(axis, ndim, op_name):
    """The kernel's view of the axis input: an array (NumPy/CuPy) or NumPy scalar -> tuple of ints.

    Fast path: a training loop reduces over the same few axes again and again, so the
    result of :func:`_normalize` is remembered per ``(axis values, rank)``. Only axes
    that passed its checks are remembered, so a bad axis still raises its error each time.
    """
    value = axis.tolist()
    key = (tuple(value) if type(value) is list else value, ndim)
    try:
        hit = _NORMALIZED.get(key)
    except TypeError:   # nested lists (an axis tensor of rank 2) are not hashable: no fast path
        hit = None
        key = None
    if hit is not None:
        return hit
    if not isinstance(value, list):
        value = [value]
    elif value and isinstance(value[0], list):
        value = np.ravel(value).tolist()
    try:
        out = _normalize(value, ndim, op_name)
    except ValueError as error:
        raise InvalidArgumentError(None, None, str(error)) from None
    if key is not None:
        if len(_NORMALIZED) > 512:
            _NORMALIZED.clear()
        _NORMALIZED[key] = out
    return out


def _prod(dims):
    """``int(np.prod(dims, dtype=np.int64))`` for a few Python ints, without NumPy's call overhead.

    The Python product is exact; it equals NumPy's int64 product whenever that does not
    overflow (always, for the dims of an array that exists). Should it not fit in int64,
    NumPy computes it instead, so even the wrapped-around value is the same.
    """
    n = 1
    for d in dims:
        n *= d
    if not -2 ** 63 <= n < 2 ** 63:
        n = int(np.prod(dims, dtype=np.int64))
    return n


_AXIS_CACHE = {}


def _axis_tensor(axis):
    """The int32 axis input for ``axis`` (an int, a list of ints, or a tensor).

    Eagerly, small constant axes are cached: ``reduce_sum(x, 1)`` in a loop makes
    its axis tensor once. Tensors are immutable, so sharing them is safe.
    """
    if isinstance(axis, Tensor):
        return axis
    c = ctx
    if c.graph is None and c.device is None:
        # Fast path: a plain int, or a list/tuple of plain ints (``reduce_mean(x)`` passes
        # ``tuple(range(rank))``, gradients pass lists), gives the cache key below directly;
        # look it up before doing the general conversions.
        kind = type(axis)
        if kind is int or (kind is tuple or kind is list) and _all_ints(axis):
            t = _AXIS_CACHE.get((axis if kind is not list else tuple(axis), default_device()))
            if t is not None:
                return t if kind is int else noting_python_origin(axis, t)
        if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
            key = int(axis)
        elif isinstance(axis, (list, tuple)) and all(isinstance(a, (int, np.integer)) for a in axis):
            key = tuple(int(a) for a in axis)
        else:
            key = None
        if key is not None:
            device = default_device()
            t = _AXIS_CACHE.get((key, device))
            if t is None:
                if len(_AXIS_CACHE) > 512:
                    _AXIS_CACHE.clear()
                t = _AXIS_CACHE[(key, device)] = int_tensor(list(key) if isinstance(key, tuple) else key)
            return noting_python_origin(axis, t)
    if isinstance(axis, (float, np.floating)) or hasattr(axis, "__tf_tensor__"):
        return convert_to_tensor(axis, dtype=dtypes.int32)   # TypeError for 0.5, as in TF
    return int_tensor(axis)


def _all_ints(values):
    for v in values:
        if type(v) is not int:
            return False
    return True


def _reduce_infer(ic):
    x = ic.shape(0)
    keep = ic.attrs.get("keep_dims", False)
    axes = ic.constant_value(1)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    if axes is None:
        return [(ic.dtype(0), TensorShape([None] * x.rank) if keep else TensorShape(None))]
    axes = _normalize(np.ravel(axes), x.rank, ic.op_name)
    if keep:
        dims = [1 if i in axes else d for i, d in enumerate(x)]
    else:
        dims = [d for i, d in enumerate(x) if i not in axes]
    return [(ic.dtype(0), TensorShape(dims))]


def reduced_shape(input_shape_tensor_or_list, axes):
    """The shape of a reduction with keepdims=True, as a list (static) or a tensor (dynamic)."""
    if isinstance(input_shape_tensor_or_list, (list, tuple)):
        rank = len(input_shape_tensor_or_list)
        axes = _normalize(np.ravel(axes), rank, "reduced_shape")
        return [1 if i in axes else d for i, d in enumerate(input_shape_tensor_or_list)]
    shape = input_shape_tensor_or_list
    rank = array_ops.size(shape)
    idx = array_ops.range(rank)
    axes = math_ops.floormod(array_ops.reshape(to_tensor(axes), [-1]), rank)
    hit = reduce_any(math_ops.equal(array_ops.expand_dims(idx, 1), array_ops.expand_dims(axes, 0)), axis=1)
    return array_ops.where(hit, array_ops.ones_like(shape), shape)


# --------------------------------------------------------------------------------------
# Gradients
# --------------------------------------------------------------------------------------
def _static(t):
    """The NumPy value of ``t`` when known without running anything (eager values, graph constants)."""
    return constant_value(t)


def _keepdims_grad(op, grad):
    """Reshape ``grad`` to the keepdims shape and broadcast it to the input's shape."""
    x, axis = op.inputs
    if type(grad) is EagerTensor and type(axis) is EagerTensor:
        x_dims = math_ops._raw_shape(x)   # a tuple for eager tensors and the tape's shape records
        if x_dims is not None and len(axis._value.shape) <= 1:
            return _keepdims_grad_eager(grad, x_dims, axis._value.tolist())
    if x.shape.is_fully_defined():
        x_shape = x.shape.as_list()
        axes = _static(axis)
        if axes is not None:
            kept = reduced_shape(x_shape, axes)
            if grad.shape.rank != 0 and grad.shape.as_list() != kept:  # a scalar broadcasts as it is
                grad = array_ops.reshape(grad, kept)
            return array_ops.broadcast_to(grad, x_shape)
    x_shape = array_ops.shape(x)
    grad = array_ops.reshape(grad, reduced_shape(x_shape, axis))
    return array_ops.broadcast_to(grad, x_shape)


def _keepdims_grad_eager(grad, x_dims, axes):
    """:func:`_keepdims_grad` for eager values: the same ops, with shapes worked out on plain tuples.

    It skips what the general path spends its time on, none of which can change the result:
    ``TensorShape`` objects and :func:`reduced_shape` (which re-checks the axes: they passed the
    same checks in the forward kernel, or the op would not be on the tape, so each is in range
    and appears once, and ``kept[a] = 1`` with a negative ``a`` counts from the end exactly as
    normalizing it would), and the ``BroadcastTo`` when nothing was reduced (no axes, or only
    size-1 axes) and ``grad`` has the input's shape already: it would only copy the values.
    """
    kept = list(x_dims)
    for a in (axes if type(axes) is list else (axes,)):
        kept[a] = 1
    g_dims = grad._value.shape
    if g_dims == x_dims and list(g_dims) == kept:
        return grad
    if len(g_dims) != 0 and list(g_dims) != kept:  # a scalar broadcasts as it is
        grad = array_ops.reshape(grad, kept)
    return array_ops.broadcast_to(grad, list(x_dims))


def sum_over(x, axes):
    """``Sum`` of ``x`` over ``axes`` (a list of valid ints): what gradient functions run to unbroadcast.

    The op ``reduce_sum(x, axes)`` runs, without the conversions and checks of a user's call:
    a gradient is a tensor already, and the axes come from its own shape.
    """
    return execute(_SUM, (x, _axis_tensor(axes)), {"keep_dims": False})


def _sum_grad(op, grad):
    return _keepdims_grad(op, grad), None


def _mean_grad(op, grad):
    """The sum's gradient divided by the number of elements averaged (divided first, while it is small)."""
    x = op.inputs[0]
    y = op.outputs[0]
    if type(grad) is EagerTensor:
        # Eager fast path: the same division and the same ops as below, with the element counts
        # read off plain shape tuples, and the count made with ``scalar_like`` (the NumPy scalar
        # ``convert_to_tensor(count, dtype=grad.dtype)`` makes, without its type dispatch).
        x_dims, y_dims = math_ops._raw_shape(x), math_ops._raw_shape(y)
        if x_dims is not None and y_dims is not None:
            count = max(math.prod(x_dims), 1) // max(math.prod(y_dims), 1)   # as num_elements() counts
            return _keepdims_grad(op, math_ops.realdiv(grad, scalar_like(count, grad))), None
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        count = max(x.shape.num_elements(), 1) // max(y.shape.num_elements(), 1)
        return _keepdims_grad(op, math_ops.realdiv(grad, convert_to_tensor(count, dtype=grad.dtype))), None
    spread = _keepdims_grad(op, grad)
    count = math_ops.floordiv(array_ops.size(x), math_ops.maximum(array_ops.size(y), 1))
    return math_ops.realdiv(spread, math_ops.cast(count, spread.dtype)), None


def _min_max_grad(op, grad):
    """Split the gradient evenly between all elements equal to the extreme value (TF's rule)."""
    x, axis = op.inputs
    y = op.outputs[0]
    indicators = math_ops.cast(math_ops.equal(_keepdims_grad(op, y), x), grad.dtype)
    counts = reduce_sum(indicators, axis, keepdims=op.attrs.get("keep_dims", False))
    share = math_ops.realdiv(indicators, _keepdims_grad(op, counts))
    return math_ops.multiply(share, _keepdims_grad(op, grad)), None


def _prod_grad(op, grad):
    """Product of all *other* elements, computed without dividing (so zeros are fine).

    Move the reduced axes to the front, flatten them, and multiply an exclusive
    cumulative product from the left by one from the right, as TF does. Shapes and
    axes known when the gradient is built (always so eagerly) give static shapes;
    otherwise (graph inputs of unknown shape) :func:`_prod_grad_dynamic` reads them at run time.
    """
    x, axis = op.inputs
    axes = _static(axis)
    if axes is None or not x.shape.is_fully_defined():
        return _prod_grad_dynamic(op, grad), None
    shape = x.shape.as_list()
    rank = len(shape)
    axes = list(_normalize(np.ravel(axes), rank, "Prod"))
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
    inv = [int(i) for i in np.argsort(perm)]
    others = array_ops.transpose(others, inv)
    return math_ops.multiply(_keepdims_grad(op, grad), others), None


def _prod_grad_dynamic(op, grad):
    """:func:`_prod_grad` with the shapes and axes read at run time (graph inputs of unknown shape), as TF does."""
    x, axis = op.inputs
    x_shape = array_ops.shape(x)
    rank = array_ops.rank(x)
    reduced = math_ops.floormod(array_ops.reshape(math_ops.cast(axis, dtypes.int32), [-1]), rank)
    idx = array_ops.range(rank)
    is_reduced = reduce_any(math_ops.equal(array_ops.expand_dims(idx, 1), array_ops.expand_dims(reduced, 0)), 1)
    other = array_ops.gather(idx, array_ops.reshape(array_ops.where(math_ops.logical_not(is_reduced)), [-1]))
    perm = array_ops.concat([reduced, other], 0)
    reduced_n = reduce_prod(array_ops.gather(x_shape, reduced))
    other_n = reduce_prod(array_ops.gather(x_shape, other))
    permuted = array_ops.transpose(x, perm)
    flat = array_ops.reshape(permuted, array_ops.stack([reduced_n, other_n]))
    left = cumprod(flat, axis=0, exclusive=True)
    right = cumprod(flat, axis=0, exclusive=True, reverse=True)
    others = array_ops.reshape(math_ops.multiply(left, right), array_ops.shape(permuted))
    others = array_ops.transpose(others, array_ops.invert_permutation(perm))
    return math_ops.multiply(_keepdims_grad(op, grad), others)


# --------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------
def _mean_kernel(xp):
    # ``np.sum`` is ``np.add.reduce`` with the same arguments behind a Python wrapper
    # (``_wrapreduction``); calling the ufunc directly gives the same result, faster.
    total = np.add.reduce if xp is np else xp.sum

    def k(x, axis, keep_dims=False):
        ax = _axes(axis, x.ndim, "Mean")
        if x.dtype.kind in "iu":
            s = total(x, axis=ax, dtype=np.int64 if x.dtype.kind == "i" else np.uint64, keepdims=keep_dims)
            n = _prod([x.shape[a] for a in ax]) or 1
            if x.dtype.kind == "u":
                return (s // n).astype(x.dtype)[()]
            return (s // n + ((s % n != 0) & (s < 0))).astype(x.dtype)[()]  # truncate toward zero
        n = _prod([x.shape[a] for a in ax])
        # Quietly (the row is registered with ``quiet_fp=True``): the mean of nothing is
        # 0 / 0 = NaN, and a float16 sum may overflow to inf.
        mean = total(x, axis=ax, dtype=x.dtype, keepdims=keep_dims) / x.dtype.type(n)
        # (the quotient of two values of x's dtype has that dtype already for every float dtype:
        # the cast is kept for any other, and skipped when it would only copy)
        return (mean if mean.dtype == x.dtype else mean.astype(x.dtype))[()]
    return k


def _simple(op_name, ufunc_name, numpy_fn_name, dtype_arg=True):
    """A kernel from a ufunc's ``reduce`` (fast on NumPy) or the array module's function."""
    def make(xp):
        fn = getattr(np, ufunc_name).reduce if xp is np else getattr(xp, numpy_fn_name)

        def k(x, axis, keep_dims=False):
            ax = _axes(axis, x.ndim, op_name)
            if dtype_arg:
                return fn(x, axis=ax, dtype=x.dtype, keepdims=keep_dims)
            return fn(x, axis=ax, keepdims=keep_dims)
        return k
    return make


def _maxmin(op_name, fn_name):
    def make(xp):
        fn = getattr(xp, fn_name)

        def k(x, axis, keep_dims=False):
            ax = _axes(axis, x.ndim, op_name)
            if x.size == 0 and ax:  # TF returns the identity element for empty reductions
                shape = tuple(1 if i in ax else d for i, d in enumerate(x.shape)) if keep_dims else \
                    tuple(d for i, d in enumerate(x.shape) if i not in ax)
                info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
                fill = -np.inf if fn_name == "amax" and x.dtype.kind == "f" else (
                    np.inf if x.dtype.kind == "f" else (info.min if fn_name == "amax" else info.max))
                return xp.full(shape, fill, dtype=x.dtype)[()]
            return fn(x, axis=ax, keepdims=keep_dims)
        return k
    return make


def _reduction(op_name, make_kernel, grad, allowed, saves_inputs=True, saves_outputs=False, doc="", **traits):
    definition = {"inputs": "input: bool, reduction_indices: Tidx"} if allowed is _BOOL else \
        {"inputs": "input: T, reduction_indices: Tidx", "type_attrs": {"T": allowed}}
    op = register_op(op_name, kernel=make_kernel, infer=_reduce_infer, grad=grad,
                     saves_inputs=saves_inputs, saves_outputs=saves_outputs, doc=doc, **definition, **traits)

    def public(input_tensor, axis=None, keepdims=False, name=None):
        x = to_tensor(input_tensor)
        if x.dtype not in allowed:
            if allowed is _BOOL and ctx.graph is None:   # TF words this one as a dtype mismatch
                raise InvalidArgumentError(
                    None, None, f"cannot compute {op_name} as input #0(zero-based) was expected to be a bool "
                                f"tensor but is a {x.dtype.name} tensor [Op:{op_name}]")
            check_dtype(op_name, x, allowed, "input")
        reduce_all = axis is None
        if reduce_all:
            rank = x.ndim
            axis = tuple(range(rank)) if rank is not None else _all_axes(x)
        axis = _axis_tensor(axis)
        if reduce_all:
            converted_by_wrapper(axis)   # (TF passes a tensor of all the axes: its errors end as a tensor's)
        out = execute(op, (x, axis), {"keep_dims": bool(keepdims)}, name=name)
        if reduce_all and not keepdims and type(out) is not EagerTensor and out.shape.rank is None:
            out.set_shape([])  # a graph input of unknown rank: reducing all of it still gives a scalar, as in TF
        return out
    public.__name__ = "reduce_" + op_name.lower()
    public.__doc__ = doc
    return op, public


def _all_axes(x):
    return array_ops.range(array_ops.rank(x))


_SUM, reduce_sum = _reduction(
    "Sum", _simple("Sum", "add", "sum"), _sum_grad, NUMERIC, saves_inputs=(1,), linear="linear", quiet_fp=True,
    doc="Sum over ``axis`` (all axes if None). Integer sums keep their dtype (and wrap), as in TF.")
_MEAN, reduce_mean = _reduction(
    "Mean", _mean_kernel, _mean_grad, NUMERIC, saves_inputs=(1,), linear="linear", quiet_fp=True,
    doc="Mean over ``axis``. Integer means truncate toward zero (``mean([-7, 0]) == -3``), as in TF.")
_MAX, reduce_max = _reduction(
    "Max", _maxmin("Max", "amax"), _min_max_grad, NUMERIC, saves_outputs=True,
    doc="Max over ``axis`` (NaN wins); the gradient is shared equally among tied maxima.")
_MIN, reduce_min = _reduction(
    "Min", _maxmin("Min", "amin"), _min_max_grad, NUMERIC, saves_outputs=True,
    doc="Min over ``axis`` (NaN wins); the gradient is shared equally among tied minima.")
_PROD, reduce_prod = _reduction(
    "Prod", _simple("Prod", "multiply", "prod"), _prod_grad, NUMERIC, quiet_fp=True,
    doc="Product over ``axis``; the gradient is exact even when elements are zero.")
_ANY, reduce_any = _reduction("Any", _simple("Any", "logical_or", "any", dtype_arg=False), None, _BOOL,
                              doc="Logical OR over ``axis`` (bool tensors only).")
_ALL, reduce_all = _reduction("All", _simple("All", "logical_and", "all", dtype_arg=False), None, _BOOL,
                              doc="Logical AND over ``axis`` (bool tensors only).")


def _euclidean_norm_kernel(xp):
    """``sqrt(sum(x * x))`` over the axes, all in x's dtype, as TF's Eigen reducer computes it.

    Integers square and sum in their own dtype (wrapping on overflow), then take the square
    root in double and truncate; a sum that wrapped negative has no root: NaN converted to the
    integer dtype, which is what x86 gives TF (``INT_MIN`` for int32/int64, 0 for int8/int16).
    An empty reduction is 0.
    """
    total = np.add.reduce if xp is np else xp.sum

    def k(x, axis, keep_dims=False):
        ax = _axes(axis, x.ndim, "EuclideanNorm")
        sums = total(x * x, axis=ax, dtype=x.dtype, keepdims=keep_dims)
        if x.dtype.kind in "iu":
            with quiet():
                return xp.sqrt(xp.asarray(sums, dtype=np.float64)).astype(x.dtype)[()]
        return xp.sqrt(sums)[()]
    return k


def _euclidean_norm_grad(op, grad):
    """TF's rule: ``x / (norm / grad)``, with norm and grad in the keepdims shape (NaN where the norm is 0)."""
    x = op.inputs[0]
    if not x.dtype.is_floating:
        return None, None
    output = op.outputs[0]
    if not op.attrs.get("keep_dims", False):
        output = _keepdims_grad(op, output)
        grad = _keepdims_grad(op, grad)
    return math_ops.realdiv(x, math_ops.realdiv(output, grad)), None


_EUCLIDEAN_NORM, reduce_euclidean_norm = _reduction(
    "EuclideanNorm", _euclidean_norm_kernel, _euclidean_norm_grad, NUMERIC, saves_outputs=True, quiet_fp=True,
    doc="``tf.math.reduce_euclidean_norm``: ``sqrt(sum(x**2))`` over ``axis`` (all axes if None); op "
        "``EuclideanNorm``. Integers keep their dtype (the sum of squares wraps, the root truncates), as in TF. "
        "Gradient: ``x / norm`` (NaN where the norm is 0, as in TF).")
reduce_euclidean_norm.__name__ = "reduce_euclidean_norm"


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """``log(sum(exp(x)))`` computed stably by subtracting the (finite) max first, as TF does.

    The max is held constant for the gradient (``stop_gradient``), so the
    gradient is exactly ``softmax(x)`` along the reduced axes.
    """
    x = to_tensor(input_tensor)
    check_dtype("ReduceLogSumExp", x, FLOAT, "input")
    raw_max = reduce_max(x, axis, keepdims=True)
    my_max = array_ops.stop_gradient(array_ops.where(math_ops.is_finite(raw_max), raw_max,
                                                     array_ops.zeros_like(raw_max)))
    result = math_ops.log(reduce_sum(math_ops.exp(math_ops.subtract(x, my_max)), axis, keepdims=keepdims))
    if not keepdims:
        my_max = array_ops.reshape(my_max, array_ops.static_or_dynamic_shape(result))
    return math_ops.add(result, my_max)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """Population variance ``mean((x - mean(x))**2)`` over ``axis`` (floats only, as in TF)."""
    x = to_tensor(input_tensor)
    if not x.dtype.is_floating:
        raise TypeError(f"Input must be either real or complex. Received integer type {x.dtype!r}.")
    means = reduce_mean(x, axis, keepdims=True)
    return reduce_mean(math_ops.squared_difference(x, means), axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """Population standard deviation: ``sqrt(reduce_variance(x))`` (floats only)."""
    return math_ops.sqrt(reduce_variance(input_tensor, axis, keepdims=keepdims))


def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None):  # noqa: A002
    """``tf.math.count_nonzero``: how many elements are not zero (not ``False``) over ``axis``; int64 by default.

    Built as TF builds it: ``cast(reduce_sum(cast(x != 0, int64), axis), dtype)``. Not differentiable.
    Only in ``tf.math`` (TF 2 has no top-level ``tf.count_nonzero``).
    """
    x = to_tensor(input)
    zero = array_ops.zeros([], dtype=x.dtype)
    counts = reduce_sum(math_ops.cast(math_ops.not_equal(x, zero), dtypes.int64), axis, keepdims=bool(keepdims))
    return math_ops.cast(counts, dtype)


# --------------------------------------------------------------------------------------
# ArgMax / ArgMin: index reductions, not differentiable
# --------------------------------------------------------------------------------------
_ARG_OUTPUT_TYPES = frozenset([dtypes.int16, dtypes.uint16, dtypes.int32, dtypes.int64])


def _scalar_axis(axis, rank, message):
    """A scalar axis input as an int in ``[0, rank)``; TF's errors otherwise."""
    if getattr(axis, "ndim", 0) != 0:
        raise InvalidArgumentError(None, None, f"{message[0]}, but received tensor of shape: "
                                               f"{list(axis.shape)}")
    a = int(axis)
    if not -rank <= a < rank:
        raise InvalidArgumentError(None, None, f"{message[1]}Expected dimension in the range [{-rank}, {rank}), "
                                               f"but got {a}")
    return a % rank


def _arg_kernel(xp, is_max):
    def k(x, dimension, output_type=dtypes.int64):
        a = _scalar_axis(dimension, x.ndim, ("dim must be a scalar", ""))
        if x.shape[a] == 0:
            raise InvalidArgumentError(None, None, f"Reduction axis {a} is empty in shape "
                                                   f"{_shapes.fmt(list(x.shape))}")
        if x.dtype.kind == "f":   # TF never selects a NaN unless every candidate is NaN
            x = xp.where(xp.isnan(x), -xp.inf if is_max else xp.inf, x)
        out = xp.argmax(x, axis=a) if is_max else xp.argmin(x, axis=a)
        return out.astype(output_type._np)[()]
    return k


def _arg_infer(ic):
    """TF's ``ArgOpShape``: a scalar or a vector reduces to a scalar *whatever the axis*, so an
    out-of-range axis there is left to the kernel (``InvalidArgumentError`` when the graph runs);
    for rank >= 2 a known axis out of range is a ``ValueError`` now."""
    x = ic.shape(0)
    out_type = ic.attrs.get("output_type", dtypes.int64)
    axis = ic.constant_value(1)
    if x.rank is None:
        return [(out_type, TensorShape(None))]
    if x.rank <= 1:
        return [(out_type, TensorShape([]))]
    if axis is None:
        return [(out_type, TensorShape([None] * (x.rank - 1)))]
    a = int(np.ravel(axis)[0])
    if not -x.rank <= a < x.rank:
        raise ValueError(f"Dimension ({a}) must be in the range [{-x.rank}, {x.rank}), where {x.rank} is the number "
                         f"of dimensions in the input. for '{{{{node {ic.op_name}}}}}' with input shapes: "
                         f"{_shapes.fmt(x)}, [].")
    a %= x.rank
    return [(out_type, TensorShape([d for i, d in enumerate(x.as_list()) if i != a]))]


_ARG_DEFINITION = {"inputs": "input: T, dimension: Tidx", "type_attrs": {"T": NUMERIC | _BOOL, "Tidx": _INDEX_TYPES}}
_ARGMAX = register_op("ArgMax", kernel=lambda xp: _arg_kernel(xp, True), infer=_arg_infer, **_ARG_DEFINITION,
                      doc="Index of the largest value along an axis (first one on ties). Not differentiable.")
_ARGMIN = register_op("ArgMin", kernel=lambda xp: _arg_kernel(xp, False), infer=_arg_infer, **_ARG_DEFINITION,
                      doc="Index of the smallest value along an axis (first one on ties). Not differentiable.")


def _arg(op, input, axis, output_type, name):  # noqa: A002
    x = to_tensor(input)
    check_dtype(op.name, x, NUMERIC | _BOOL, "input")
    output_type = dtypes.as_dtype(output_type)
    if output_type not in _ARG_OUTPUT_TYPES:
        raise InvalidArgumentError(
            None, None, f"Value for attr 'output_type' of {output_type.name} is not in the list of allowed values: "
                        f"int16, uint16, int32, int64; NodeDef: {{{{node {op.name}}}}} [Op:{op.name}]")
    if axis is None:
        axis = 0
    if isinstance(axis, Tensor):
        if axis.dtype not in _INDEX_TYPES:
            raise TypeError(f"axis tensor dtypes {axis.dtype.name} is not supported")
    elif isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        axis = _axis_tensor(int(axis))
    else:
        raise TypeError("axis must be int or Tensor with integer datatype")
    if ctx.graph is None and x.ndim == 0:
        raise InvalidArgumentError(None, None, f"Expected dimension in the range [0, 0), but got {int(axis)}; "
                                               f"{op.name} needs an input of rank >= 1 [Op:{op.name}]")
    return execute(op, (x, axis), {"output_type": output_type}, name=name)


def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """Index of the largest value along ``axis`` (default 0), as ``output_type`` (default int64).

    Ties go to the first index. NaN is skipped unless every candidate is NaN
    (what TF's CPU kernel does; NumPy's ``argmax`` would return the first NaN).
    Not differentiable: the tape does not record it.
    """
    return _arg(_ARGMAX, input, axis, output_type, name)


def argmin(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """Index of the smallest value along ``axis`` (default 0); see :func:`argmax`."""
    return _arg(_ARGMIN, input, axis, output_type, name)


# --------------------------------------------------------------------------------------
# Cumsum / Cumprod: scans
# --------------------------------------------------------------------------------------
def _scan_kernel(xp, name, is_sum):
    scan = xp.cumsum if is_sum else xp.cumprod

    def k(x, axis, exclusive=False, reverse=False):
        if getattr(axis, "ndim", 0) != 0:
            raise InvalidArgumentError(None, None, f"ScanOp: axis must be a scalar, not {list(axis.shape)}")
        r = x.ndim
        a = int(axis)
        if not -r <= a < r:
            raise InvalidArgumentError(None, None, f"ScanOp: Expected scan axis in the range [{-r}, {r}), "
                                                   f"but got {a}")
        a %= r
        if reverse:
            x = xp.flip(x, axis=a)
        with quiet():
            out = scan(x, axis=a, dtype=x.dtype)
        if exclusive and x.shape[a]:
            # shift by one along the axis, starting from the identity (0 for sums, 1 for products)
            first = xp.full(x.shape[:a] + (1,) + x.shape[a + 1:], 0 if is_sum else 1, dtype=x.dtype)
            out = xp.concatenate([first, xp.take(out, xp.arange(x.shape[a] - 1), axis=a)], axis=a)
        if reverse:
            out = xp.flip(out, axis=a)
        return xp.ascontiguousarray(out)
    return k


def _scan_infer(ic):
    """TF's shape function for ``Cumsum``/``Cumprod``: the axis must be a scalar, and the output is shaped
    like ``x``. It does not check the axis's *value*: out of range, that is the kernel's
    ``InvalidArgumentError`` when the graph runs ("ScanOp: Expected scan axis in the range ...")."""
    if ic.shape(1).rank not in (None, 0):
        ic.error(f"Shape must be rank 0 but is rank {ic.shape(1).rank}")
    return [(ic.dtype(0), ic.shape(0))]


def _cumsum_grad(op, grad):
    """The gradient of a running sum is a running sum the other way."""
    axis = op.inputs[1]
    return cumsum(grad, axis, exclusive=op.get_attr("exclusive"), reverse=not op.get_attr("reverse")), None


def _cumprod_grad(op, grad):
    """TF's rule: ``cumsum(y * g, reverse=not reverse) / x`` (``divide_no_nan``).

    Like TF's, it is wrong where ``x == 0`` (it returns 0 there): a deliberate
    match with TF, documented in :func:`cumprod`.
    """
    x, axis = op.inputs
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    out = cumsum(math_ops.multiply(op.outputs[0], grad), axis, exclusive=exclusive, reverse=not reverse)
    return math_ops.divide_no_nan(out, x), None


_SCAN_DEFINITION = {"inputs": "x: T, axis: Tidx", "type_attrs": {"T": NUMERIC, "Tidx": _INDEX_TYPES}}
_CUMSUM = register_op("Cumsum", kernel=lambda xp: _scan_kernel(xp, "Cumsum", True), infer=_scan_infer,
                      **_SCAN_DEFINITION,
                      grad=_cumsum_grad, saves_inputs=(1,), saves_outputs=False, linear="linear",
                      doc="Running sum along an axis; attrs ``exclusive`` and ``reverse``.")
_CUMPROD = register_op("Cumprod", kernel=lambda xp: _scan_kernel(xp, "Cumprod", False), infer=_scan_infer,
                       **_SCAN_DEFINITION,
                       grad=_cumprod_grad, saves_inputs=True, saves_outputs=True,
                       doc="Running product along an axis; attrs ``exclusive`` and ``reverse``.")


def _scan(op, x, axis, exclusive, reverse, name):
    x = converted_by_wrapper(to_tensor(x))   # (TF's cumsum/cumprod convert x first)
    check_dtype(op.name, x, NUMERIC, "x")
    if isinstance(axis, Tensor):
        if axis.dtype not in _INDEX_TYPES and ctx.graph is None:   # (a graph node checks its row's Tidx)
            raise InvalidArgumentError(
                None, None, f"Value for attr 'Tidx' of {axis.dtype.name} is not in the list of allowed values: "
                            f"int32, int64; NodeDef: {{{{node {op.name}}}}} [Op:{op.name}]")
    else:
        axis = _axis_tensor(axis)
    return execute(op, (x, axis), {"exclusive": bool(exclusive), "reverse": bool(reverse)}, name=name)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sum along ``axis``: ``cumsum([a, b, c]) == [a, a + b, a + b + c]``.

    ``exclusive=True`` leaves out the current element (``[0, a, a + b]``);
    ``reverse=True`` runs from the end (``[a + b + c, b + c, c]``).
    """
    return _scan(_CUMSUM, x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running product along ``axis``; ``exclusive``/``reverse`` as for :func:`cumsum`.

    The gradient is TF's ``cumsum(y * g, reverse=not reverse) / x`` with the
    division made safe: like TF's, it is 0 (not the true value) where ``x == 0``.
    """
    return _scan(_CUMPROD, x, axis, exclusive, reverse, name)
