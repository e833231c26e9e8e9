"""Segment reductions, bincount, and partition/stitch: reducing or routing rows by an integer id.

A *segment* is the set of rows of ``data`` that share an id. Two families:

* **Unsorted** (``UnsortedSegmentSum/Max/Min/Prod``): ``segment_ids`` may be in
  any order and have any shape that ``data``'s shape starts with; the output has
  ``num_segments`` rows: ``output.shape = [num_segments] + data.shape[ids.rank:]``.
  Negative ids drop their rows. Empty segments hold the reduction's identity:
  0, 1, or the dtype's lowest/highest finite value for max/min (TF's choice).
  ``UnsortedSegmentSum`` is also the gradient of ``gather``.
* **Sorted** (``SegmentSum/Mean/Max/Min/Prod``): a 1-D, non-decreasing
  ``segment_ids`` as long as ``data``'s first dimension; ``ids[-1] + 1`` rows
  come out and empty segments hold 0 (1 for prod).

``unsorted_segment_mean`` and ``unsorted_segment_sqrt_n`` are compositions (sum
divided by the count, or by its square root), as in TF.

Gradients (TF's): sums *gather* the output gradient back to the rows
(``_gather_drop_negatives`` zeroes rows whose id was negative); max/min split
each segment's gradient evenly among the rows that attained the extremum; prod
uses ``product / x``, with the zero cases handled separately.

NaN in max/min (a deliberate difference): a segment holding a NaN is NaN here, as
``tf.reduce_max`` is in TF. TF 2.21's CPU segment kernels fold each segment in row order with
``acc = x if not x < acc``, so a NaN is forgotten by the next row (``segment_max([2., nan, .5],
[0, 0, 0])`` is ``0.5`` in TF, ``nan`` here), and only a NaN in the segment's last row survives.

``DynamicPartition`` sends each row to output ``partitions[i]``;
``DynamicStitch`` interleaves tensors back by index (later indices win). Each
is built into the other's gradient. ``DenseBincount`` (``tf.math.bincount``)
counts values; it has no gradient, as in TF.
"""
import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape
from . import _shapes, array_ops, math_ops, reduction_ops
from . import _dispatch
from ._dispatch import NUMERIC, check_dtype, check_same_dtype, execute, int_tensor, to_tensor

__all__ = ["dynamic_partition", "dynamic_stitch"]

_fmt = _shapes.fmt
_INDEX = frozenset([dtypes.int16, dtypes.int32, dtypes.int64])
_BINCOUNT = frozenset([dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64])


def _iae(message):
    return InvalidArgumentError(None, None, message)


def _check_ids(op_name, ids, what="segment_ids", attr="Tindices"):
    """Integer ids, or TF's error (eagerly; a graph node checks them from its row's op definition)."""
    if ids.dtype not in _INDEX and not _dispatch._checked_at_creation(op_name):
        message = (f"Value for attr '{attr}' of {ids.dtype.name} is not in the list of allowed values: int16, "
                   f"int32, int64; NodeDef: {{{{node {op_name}}}}}; {what} must be integers: cast them with tf.cast.")
        if ctx.graph is not None:
            raise TypeError(message)
        raise _iae(message + f" [Op:{op_name}]")


def _merge_prefix(ic, data, prefix):
    """TF's ``MergePrefix(data, prefix)``: ``data``'s shape must start with ``prefix`` (both of known rank)."""
    if prefix.rank > data.rank:
        ic.error(f"Shape must be at least rank {prefix.rank} but is rank {data.rank}")
    for a, b in zip(data.as_list(), prefix.as_list()):
        if a is not None and b is not None and a != b:
            ic.error(f"Dimensions must be equal, but are {a} and {b}")


def _const(ic, i):
    value = ic.constant_value(i)
    return None if value is None else np.asarray(value)


def _scatter_reduce(xp, ufunc_name, out, ids, rows):
    """``out[ids[i]] = op(out[ids[i]], rows[i])`` for every i (unbuffered: repeated ids all count)."""
    getattr(xp, ufunc_name).at(out, ids, rows)


def _identity(kind, dtype):
    """The value of an empty segment: what TF's kernels start each segment from."""
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    return info.min if kind == "max" else info.max


_UFUNC = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum"}


# --------------------------------------------------------------------------------------
# Unsorted segment reductions
# --------------------------------------------------------------------------------------
def _unsorted_kernel(kind):
    def make(xp):
        def k(data, segment_ids, num_segments, T=None, Tindices=None, Tnumsegments=None):  # noqa: N803
            if np.ndim(num_segments) != 0:
                raise _iae(f"num_segments should be a scalar, not shape {_fmt(np.shape(num_segments))}")
            n = int(num_segments)
            if n < 0:
                raise _iae(f"Input num_segments == {n} must not be negative.")
            ids = xp.asarray(segment_ids)
            if tuple(data.shape[:ids.ndim]) != tuple(ids.shape):
                raise _iae(f"data.shape = {_fmt(data.shape)} does not start with segment_ids.shape = "
                           f"{_fmt(ids.shape)}")
            flat_ids = ids.reshape(-1)
            bad = flat_ids >= n
            if flat_ids.size and bool(bad.any()):
                i = int(xp.argmax(bad))
                raise _iae(f"segment_ids[{i}] = {int(flat_ids[i])} is out of range [0, {n})")
            inner = tuple(data.shape[ids.ndim:])
            rows = data.reshape((flat_ids.size,) + inner)
            out = xp.full((n,) + inner, _identity(kind, data.dtype), dtype=data.dtype)
            keep = flat_ids >= 0
            if not bool(keep.all()):
                flat_ids, rows = flat_ids[keep], rows[keep]
            _scatter_reduce(xp, _UFUNC[kind], out, flat_ids, rows)
            return out
        return k
    return make


def _unsorted_infer(ic):
    data, ids = ic.shape(0), ic.shape(1)
    if ic.shape(2).rank not in (None, 0):
        ic.error(f"Shape must be rank 0 but is rank {ic.shape(2).rank}")
    if data.rank is None or ids.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    _merge_prefix(ic, data, ids)
    n = _const(ic, 2)          # num_segments is an input TF's shape function reads (the row count is not data)
    num = None if n is None else int(n)
    return [(ic.dtype(0), TensorShape([num] + data.as_list()[ids.rank:]))]


def _gather_drop_negatives(params, ids, zero_clipped=None, is_positive=None):
    """``gather(params, max(ids, 0))`` with the rows of negative ids zeroed (TF's ``_GatherDropNegatives``).

    Returns ``(gathered, zero_clipped_ids, is_positive)`` so callers can reuse the last two.
    ``is_positive`` has the ids' shape plus trailing 1s, so it broadcasts against the rows.
    """
    if zero_clipped is None:
        zero_clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(params, zero_clipped)
    if is_positive is None:
        is_positive = math_ops.greater_equal(ids, 0)
        ids_rank, out_rank = ids.shape.rank, gathered.shape.rank
        if ids_rank is None or out_rank is None:
            ones = array_ops.ones(array_ops.reshape(array_ops.rank(gathered) - array_ops.rank(ids), [1]),
                                  dtype=dtypes.int32)
            is_positive = array_ops.reshape(is_positive, array_ops.concat([array_ops.shape(ids), ones], 0))
        elif out_rank > ids_rank:
            trailing = [1] * (out_rank - ids_rank)
            target = ids.shape.as_list() + trailing if ids.shape.is_fully_defined() else \
                array_ops.concat([array_ops.shape(ids), trailing], 0)
            is_positive = array_ops.reshape(is_positive, target)
    zeros = array_ops.zeros_like(gathered)
    return array_ops.where(is_positive, gathered, zeros), zero_clipped, is_positive


def _unsorted_sum_grad(op, grad):
    return _gather_drop_negatives(grad, op.inputs[1])[0], None, None


def _unsorted_min_max_grad(op, grad):
    """The gradient of each segment is split evenly among the rows equal to its extremum."""
    data, ids, num = op.inputs
    gathered_outputs, zero_clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    is_selected = math_ops.logical_and(math_ops.equal(data, gathered_outputs), is_positive)
    num_selected = unsorted_segment_sum(math_ops.cast(is_selected, grad.dtype), ids, num)
    weighted = math_ops.divide(grad, num_selected)
    gathered_grads, _, _ = _gather_drop_negatives(weighted, None, zero_clipped, is_positive)
    return array_ops.where(is_selected, gathered_grads, array_ops.zeros_like(gathered_grads)), None, None


def _unsorted_prod_grad(op, grad):
    """``grad * prod / x``; a segment with one zero sends the product of the others to the zero, a segment
    with more than one zero sends nothing (TF's ``_UnsortedSegmentProdGrad``)."""
    data, ids, num = op.inputs
    is_zero = math_ops.equal(data, 0)
    num_zeros = unsorted_segment_sum(math_ops.cast(is_zero, dtypes.int32), ids, num)
    grad = array_ops.where(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_data = array_ops.where(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = unsorted_segment_prod(non_zero_data, ids, num)
    zero_clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered_prod = array_ops.gather(op.outputs[0], zero_clipped)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, zero_clipped)
    prod_divided_by_el = math_ops.divide(gathered_prod, data)     # inf/nan where data is 0: masked below
    partial = array_ops.where(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = _gather_drop_negatives(grad, ids, zero_clipped)[0]
    return math_ops.multiply(gathered_grad, partial), None, None


def _register_unsorted(kind, grad, saves_inputs, saves_outputs):
    name = "UnsortedSegment" + kind.capitalize()
    return register_op(name, kernel=_unsorted_kernel(kind), infer=_unsorted_infer, quiet_fp=True,
                       grad=grad, saves_inputs=saves_inputs, saves_outputs=saves_outputs,
                       inputs="data: T, segment_ids: Tindices, num_segments: Tnumsegments",
                       type_attrs={"T": NUMERIC, "Tindices": _INDEX, "Tnumsegments": _INDEX - {dtypes.int16}},
                       doc=f"{kind} of the rows of data sharing a segment id, for ids in [0, num_segments).")


_UNSORTED_SUM = _register_unsorted("sum", _unsorted_sum_grad, (1,), False)
_UNSORTED_MAX = _register_unsorted("max", _unsorted_min_max_grad, True, True)
_UNSORTED_MIN = _register_unsorted("min", _unsorted_min_max_grad, True, True)
_UNSORTED_PROD = _register_unsorted("prod", _unsorted_prod_grad, True, True)


def _segment_inputs(op_name, data, segment_ids):
    data = to_tensor(data)
    ids = to_tensor(segment_ids)
    check_dtype(op_name, data, NUMERIC, "data")
    _check_ids(op_name, ids)
    return data, ids


def _unsorted(op, data, segment_ids, num_segments, name):
    data, ids = _segment_inputs(op.name, data, segment_ids)
    num = int_tensor(num_segments)
    _check_ids(op.name, num, "num_segments", "Tnumsegments")
    return execute(op, (data, ids, num), name=name)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """``output[i] = sum(data[j...] for j... with segment_ids[j...] == i)``, for ``i < num_segments``.

    ``segment_ids`` may be unsorted and multi-dimensional (``data.shape`` must
    start with its shape); negative ids drop their rows, ids ``>= num_segments``
    raise ``InvalidArgumentError``. Empty segments are 0.
    """
    return _unsorted(_UNSORTED_SUM, data, segment_ids, num_segments, name)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """Per-segment maximum; an empty segment holds the dtype's lowest finite value (as in TF)."""
    return _unsorted(_UNSORTED_MAX, data, segment_ids, num_segments, name)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """Per-segment minimum; an empty segment holds the dtype's largest finite value (as in TF)."""
    return _unsorted(_UNSORTED_MIN, data, segment_ids, num_segments, name)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """Per-segment product; an empty segment holds 1."""
    return _unsorted(_UNSORTED_PROD, data, segment_ids, num_segments, name)


def _segment_counts(data, segment_ids, num_segments):
    """How many rows each segment has, shaped ``[num_segments] + [1] * inner_rank`` (TF's ``_unsorted_segment_N``),
    at least 1 so that empty segments divide 0 by 1."""
    ids = to_tensor(segment_ids)
    ones = array_ops.ones_like(ids, dtype=data.dtype)
    counts = unsorted_segment_sum(ones, ids, num_segments)
    inner = data.shape.rank - ids.shape.rank if data.shape.rank is not None and ids.shape.rank is not None \
        else None
    if inner is None:
        inner_t = array_ops.rank(data) - array_ops.rank(ids)
        shape = array_ops.concat([array_ops.shape(counts), array_ops.ones(array_ops.reshape(inner_t, [1]),
                                                                           dtype=dtypes.int32)], 0)
    else:
        shape = array_ops.concat([array_ops.shape(counts), [1] * inner], 0) if inner else None
    if shape is not None:
        counts = array_ops.reshape(counts, shape)
    return math_ops.maximum(counts, math_ops.cast(1, data.dtype))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Per-segment mean: ``unsorted_segment_sum / count`` (empty segments give 0).

    Integer ``data`` is averaged in float64, as TF does (it returns float64).
    """
    data = to_tensor(data)
    if not data.dtype.is_floating:
        data = math_ops.cast(data, dtypes.float64)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return math_ops.divide(total, _segment_counts(data, segment_ids, num_segments))


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Per-segment ``sum / sqrt(count)`` (empty segments give 0). Floats only (TF fails in ``Sqrt`` otherwise)."""
    data = to_tensor(data)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return math_ops.divide(total, math_ops.sqrt(_segment_counts(data, segment_ids, num_segments)))


# --------------------------------------------------------------------------------------
# Sorted segment reductions
# --------------------------------------------------------------------------------------
def _sorted_ids(xp, data, segment_ids):
    """Validate sorted segment ids; returns (ids as NumPy, number of segments)."""
    ids = np.asarray(segment_ids if xp is np else segment_ids.get())
    if ids.ndim != 1:
        raise _iae("segment_ids should be a vector.")
    if data.ndim == 0 or ids.shape[0] != data.shape[0]:
        raise _iae(f"segment_ids should be the same size as dimension 0 of input: segment_ids has shape "
                   f"{_fmt(ids.shape)}, data has shape {_fmt(data.shape)}.")
    if ids.size == 0:
        return ids, 0
    n = int(ids[-1]) + 1
    if ids.size > 1 and bool((np.diff(ids) < 0).any()):
        raise _iae("segment ids are not increasing")
    if int(ids[0]) < 0:
        raise _iae(f"Segment id {int(ids[0])} out of range [0, {n}), possibly because 'segment_ids' input is not "
                   f"sorted.")
    return ids, n


def _sorted_kernel(kind):
    def make(xp):
        def k(data, segment_ids, T=None, Tindices=None):  # noqa: N803
            ids, n = _sorted_ids(xp, data, segment_ids)
            inner = tuple(data.shape[1:])
            base = "sum" if kind == "mean" else kind
            out = xp.full((n,) + inner, _identity(base, data.dtype), dtype=data.dtype)
            index = ids if xp is np else xp.asarray(ids)
            _scatter_reduce(xp, _UFUNC[base], out, index, data)
            counts = np.bincount(ids, minlength=n).reshape((n,) + (1,) * len(inner))
            empty = counts == 0
            if kind in ("max", "min") and empty.any():
                out = xp.where(xp.asarray(empty), xp.zeros_like(out), out)   # TF: empty segments are 0
            if kind == "mean":
                c = xp.asarray(np.maximum(counts, 1))
                if data.dtype.kind == "f":
                    out = (out / c.astype(data.dtype)).astype(data.dtype)
                else:                                    # C++ integer division truncates toward zero
                    out = (xp.sign(out) * (xp.abs(out) // c.astype(data.dtype))).astype(data.dtype)
            return out
        return k
    return make


def _sorted_infer(ic):
    """TF's ``SegmentReductionShapeFn``: ``[None] + data.shape[1:]``. The number of segments is
    ``segment_ids[-1] + 1``, a value, so it stays unknown even for constant ids (TF does not fold it),
    and a length mismatch of data and ids is left to the kernel."""
    data, ids = ic.shape(0), ic.shape(1)
    if data.rank is not None and data.rank < 1:
        ic.error("Shape must be at least rank 1 but is rank 0")
    if ids.rank is not None and ids.rank != 1:
        ic.error(f"Shape must be rank 1 but is rank {ids.rank}")
    if data.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    return [(ic.dtype(0), TensorShape([None] + data.as_list()[1:]))]


def _segment_sum_grad(op, grad):
    return array_ops.gather(grad, op.inputs[1]), None


def _segment_mean_grad(op, grad):
    data, ids = op.inputs
    counts = segment_sum(array_ops.ones(array_ops.static_or_dynamic_shape(data), dtype=grad.dtype), ids)
    return array_ops.gather(math_ops.divide(grad, counts), ids), None


def _segment_min_max_grad(op, grad):
    data, ids = op.inputs
    gathered_outputs = array_ops.gather(op.outputs[0], ids)
    is_selected = math_ops.equal(data, gathered_outputs)
    num_selected = segment_sum(math_ops.cast(is_selected, grad.dtype), ids)
    gathered_grads = array_ops.gather(math_ops.divide(grad, num_selected), ids)
    return array_ops.where(is_selected, gathered_grads, array_ops.zeros_like(data)), None


def _segment_prod_grad(op, grad):
    data, ids = op.inputs
    is_zero = math_ops.equal(data, 0)
    num_zeros = segment_sum(math_ops.cast(is_zero, dtypes.int32), ids)
    grad = array_ops.where(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_prod = segment_prod(array_ops.where(is_zero, array_ops.ones_like(data), data), ids)
    gathered_prod = array_ops.gather(op.outputs[0], ids)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, ids)
    partial = array_ops.where(is_zero, gathered_non_zero_prod, math_ops.divide(gathered_prod, data))
    return math_ops.multiply(array_ops.gather(grad, ids), partial), None


def _register_sorted(kind, grad, saves_inputs, saves_outputs):
    return register_op("Segment" + kind.capitalize(), kernel=_sorted_kernel(kind), quiet_fp=True,
                       infer=_sorted_infer, grad=grad, saves_inputs=saves_inputs, saves_outputs=saves_outputs,
                       inputs="data: T, segment_ids: Tindices",
                       type_attrs={"T": NUMERIC, "Tindices": _INDEX},
                       doc=f"{kind} over runs of equal, sorted segment ids (empty segments: "
                           f"{1 if kind == 'prod' else 0}).")


_SEGMENT_SUM = _register_sorted("sum", _segment_sum_grad, (1,), False)
_SEGMENT_MEAN = _register_sorted("mean", _segment_mean_grad, (1,), False)
_SEGMENT_MAX = _register_sorted("max", _segment_min_max_grad, True, True)
_SEGMENT_MIN = _register_sorted("min", _segment_min_max_grad, True, True)
_SEGMENT_PROD = _register_sorted("prod", _segment_prod_grad, True, True)


def _sorted(op, data, segment_ids, name):
    data, ids = _segment_inputs(op.name, data, segment_ids)
    return execute(op, (data, ids), name=name)


def segment_sum(data, segment_ids, name=None):
    """Sum of the rows of ``data`` in each segment; ``segment_ids`` is 1-D, sorted, one id per row.

    The output has ``segment_ids[-1] + 1`` rows; ids that never occur give rows of 0.
    Unsorted or negative ids raise ``InvalidArgumentError``.
    """
    return _sorted(_SEGMENT_SUM, data, segment_ids, name)


def segment_mean(data, segment_ids, name=None):
    """Mean of each segment's rows (integer data: truncated integer mean, as TF's kernel)."""
    return _sorted(_SEGMENT_MEAN, data, segment_ids, name)


def segment_max(data, segment_ids, name=None):
    """Maximum of each segment's rows; ids that never occur give 0 (as in TF)."""
    return _sorted(_SEGMENT_MAX, data, segment_ids, name)


def segment_min(data, segment_ids, name=None):
    """Minimum of each segment's rows; ids that never occur give 0 (as in TF)."""
    return _sorted(_SEGMENT_MIN, data, segment_ids, name)


def segment_prod(data, segment_ids, name=None):
    """Product of each segment's rows; ids that never occur give 1."""
    return _sorted(_SEGMENT_PROD, data, segment_ids, name)


# --------------------------------------------------------------------------------------
# DenseBincount
# --------------------------------------------------------------------------------------
def _bincount_kernel(xp):
    def k(input, size, weights, binary_output=False, Tidx=None, T=None):  # noqa: A002,N803
        n = int(size)
        if n < 0:
            raise _iae(f"size ({n}) must be non-negative")
        arr = xp.asarray(input)
        if arr.ndim not in (1, 2):
            raise _iae(f"input must be 1-D or 2-D, got shape {_fmt(arr.shape)}")
        if arr.size and bool((arr < 0).any()):
            raise _iae("Input arr must be non-negative!")
        has_weights = weights.size > 0
        if has_weights and tuple(weights.shape) != tuple(arr.shape):
            raise _iae(f"`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it acts "
                       f"as all weights equal to 1. Received {_fmt(weights.shape)}")
        rows = arr.reshape(-1, arr.shape[-1]) if arr.ndim == 2 else arr.reshape(1, -1)
        w = weights.reshape(rows.shape) if has_weights else None
        out = xp.zeros((rows.shape[0], n), dtype=weights.dtype)
        r_idx = xp.broadcast_to(xp.arange(rows.shape[0])[:, None], rows.shape)
        keep = rows < n                                      # values >= size are not counted
        r_idx, cols = r_idx[keep], rows[keep].astype(np.int64)
        if binary_output:
            out[r_idx, cols] = 1
        else:
            xp.add.at(out, (r_idx, cols), w[keep] if w is not None else xp.ones(cols.shape, dtype=out.dtype))
        return out if arr.ndim == 2 else out[0]
    return k


def _bincount_infer(ic):
    x = ic.shape(0)
    size = _const(ic, 1)
    n = None if size is None else int(size)
    if x.rank is None:
        return [(ic.dtype(2), TensorShape(None))]
    if x.rank not in (1, 2):
        ic.error(f"Shape must be rank 1 or 2 but is rank {x.rank}")
    return [(ic.dtype(2), TensorShape([n] if x.rank == 1 else [x[0], n]))]


_DENSE_BINCOUNT = register_op("DenseBincount", kernel=_bincount_kernel, infer=_bincount_infer,
                              doc="Count (or add the weights of) each value in [0, size) of a 1-D or 2-D input.")


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None, axis=None,
             binary_output=False):
    """``tf.math.bincount``: how often each value ``0 .. max(arr)`` occurs in the non-negative ints ``arr``.

    With ``weights`` (same shape as ``arr``), each occurrence adds its weight and
    the result has the weights' dtype; otherwise counts have ``dtype``. The length
    is ``max(arr) + 1`` raised to ``minlength`` and cut to ``maxlength`` (values
    beyond it are dropped). ``axis=0`` (or None) counts over everything; ``axis=-1``
    counts each row of a 2-D ``arr``. ``binary_output``: 1 for present values.
    Not differentiable (as in TF).
    """
    arr = to_tensor(arr)
    if weights is not None:
        weights = to_tensor(weights)
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    if not arr.dtype.is_integer:
        arr = math_ops.cast(arr, dtypes.int32)
    if axis is None:
        axis = 0
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
    nonempty = math_ops.greater(array_ops.size(arr), 0)
    output_size = math_ops.multiply(math_ops.cast(nonempty, arr.dtype),
                                    math_ops.add(reduction_ops.reduce_max(arr), math_ops.cast(1, arr.dtype)))
    if minlength is not None:
        output_size = math_ops.maximum(convert_to_tensor(minlength, dtype=arr.dtype), output_size)
    if maxlength is not None:
        output_size = math_ops.minimum(convert_to_tensor(maxlength, dtype=arr.dtype), output_size)
    if axis == 0:
        if weights is not None:
            weights = array_ops.reshape(weights, [-1])
        arr = array_ops.reshape(arr, [-1])
    if weights is None:
        weights = convert_to_tensor(np.zeros([0], dtypes.as_dtype(dtype)._np))
    check_dtype("DenseBincount", weights, _BINCOUNT, "weights")
    return execute(_DENSE_BINCOUNT, (arr, output_size, weights), {"binary_output": bool(binary_output)}, name=name)


# --------------------------------------------------------------------------------------
# DynamicPartition and DynamicStitch
# --------------------------------------------------------------------------------------
def _partition_kernel(xp):
    def k(data, partitions, num_partitions, T=None):  # noqa: N803
        p = xp.asarray(partitions)
        if tuple(data.shape[:p.ndim]) != tuple(p.shape):
            raise _iae(f"data.shape must start with partitions.shape, got data.shape = {_fmt(data.shape)}, "
                       f"partitions.shape = {_fmt(p.shape)}")
        flat = p.reshape(-1)
        bad = (flat < 0) | (flat >= num_partitions)
        if flat.size and bool(bad.any()):
            i = int(xp.argmax(bad))
            raise _iae(f"partitions[{i}] = {int(flat[i])} is not in [0, {num_partitions})")
        rows = data.reshape((flat.size,) + tuple(data.shape[p.ndim:]))
        return array_ops.kernel_outputs([rows[flat == i] for i in range(num_partitions)])
    return k


def _partition_infer(ic):
    data, p = ic.shape(0), ic.shape(1)
    n = ic.attrs["num_partitions"]
    if data.rank is None or p.rank is None:
        return [(ic.dtype(0), TensorShape(None))] * n
    _merge_prefix(ic, data, p)
    return [(ic.dtype(0), TensorShape([None] + data.as_list()[p.rank:]))] * n


def _partition_grad(op, *grads):
    """Partition the positions ``0 .. n-1`` the same way, then stitch the gradients back by them."""
    data, partitions = op.inputs
    prefix = array_ops.static_or_dynamic_shape(partitions)
    n = reduction_ops.reduce_prod(prefix) if isinstance(prefix, Tensor) else int(np.prod(prefix, dtype=np.int64))
    positions = array_ops.reshape(array_ops.range(n), prefix)
    parts = dynamic_partition(positions, partitions, op.get_attr("num_partitions"))
    stitched = dynamic_stitch(parts, list(grads))
    return array_ops.reshape(stitched, array_ops.static_or_dynamic_shape(data)), None


_DYNAMIC_PARTITION = register_op("DynamicPartition", kernel=_partition_kernel, infer=_partition_infer,
                                 grad=_partition_grad, num_outputs=lambda attrs: attrs["num_partitions"],
                                 saves_inputs=(1,), saves_outputs=False,
                                 doc="Route each row of data to output partitions[i].")


def dynamic_partition(data, partitions, num_partitions, name=None):
    """Split ``data`` into ``num_partitions`` tensors: row ``i`` goes to output ``partitions[i]``.

    ``partitions`` (int32, values in ``[0, num_partitions)``) may have any shape
    ``data``'s shape starts with; each output is ``[count] + data.shape[p.rank:]``,
    rows in their original order. The gradient stitches the outputs' gradients back.
    """
    data = to_tensor(data)
    p = to_tensor(partitions)
    if p.dtype is not dtypes.int32:
        message = f"cannot compute DynamicPartition as input #1(zero-based) was expected to be a int32 tensor " \
                  f"but is a {p.dtype.name} tensor"
        if ctx.graph is not None:
            raise TypeError(message)
        raise _iae(message + " [Op:DynamicPartition]")
    n = int(num_partitions)
    if n < 1:
        message = f"Value for attr 'num_partitions' of {n} must be at least minimum 1"
        if ctx.graph is not None:
            raise ValueError(message)
        raise _iae(message + " [Op:DynamicPartition]")
    return array_ops.output_list(execute(_DYNAMIC_PARTITION, (data, p), {"num_partitions": n}, name=name))


def _stitch_kernel(xp):
    def k(*args, N=None, T=None):  # noqa: N803
        n = len(args) // 2
        indices, data = [xp.asarray(a) for a in args[:n]], [xp.asarray(a) for a in args[n:]]
        inner = None
        for i, (idx, d) in enumerate(zip(indices, data)):
            if tuple(d.shape[:idx.ndim]) != tuple(idx.shape):
                raise _iae(f"data[{i}].shape = {_fmt(d.shape)} does not start with indices[{i}].shape = "
                           f"{_fmt(idx.shape)}")
            rest = tuple(d.shape[idx.ndim:])
            if inner is None:
                inner = rest
            elif rest != inner:
                raise _iae(f"Need data[0].shape[{indices[0].ndim}:] = data[{i}].shape[{idx.ndim}:], got "
                           f"data[0].shape = {_fmt(data[0].shape)}, data[{i}].shape = {_fmt(d.shape)}, "
                           f"indices[0].shape = {_fmt(indices[0].shape)}, indices[{i}].shape = {_fmt(idx.shape)}")
        size = 0
        for idx in indices:
            if idx.size:
                size = max(size, int(idx.max()) + 1)
        out = xp.zeros((size,) + inner, dtype=data[0].dtype)
        for i, (idx, d) in enumerate(zip(indices, data)):
            flat = idx.reshape(-1)
            if flat.size and bool((flat < 0).any()):
                raise _iae(f"indices[{int(xp.argmax(flat < 0))}] is out of range")
            out[flat] = d.reshape((flat.size,) + inner)       # later writes win, as in TF
        return out
    return k


def _stitch_infer(ic):
    n = len(ic.inputs) // 2
    size = 0
    for i in range(n):
        value = _const(ic, i)
        if value is None:
            size = None
            break
        if value.size:
            size = max(size, int(value.max()) + 1)
    inner = None
    for i in range(n):
        idx, d = ic.shape(i), ic.shape(n + i)
        if idx.rank is None or d.rank is None:
            continue
        rest = d[idx.rank:]
        if inner is not None and not inner.is_compatible_with(rest):
            ic.error(f"Dimensions of data[{i}] do not match those of data[0]: {_fmt(rest)} vs. {_fmt(inner)}")
        inner = rest if inner is None else inner.merge_with(rest)
    if inner is None:
        return [(ic.dtype(n), TensorShape(None))]
    return [(ic.dtype(n), TensorShape([size] + inner.as_list()))]


def _stitch_grad(op, grad):
    n = len(op.inputs) // 2
    ids = [op.inputs[i] if op.inputs[i].dtype == dtypes.int32 else math_ops.cast(op.inputs[i], dtypes.int32)
           for i in range(n)]
    return [None] * n + [array_ops.gather(grad, i) for i in ids]


_DYNAMIC_STITCH = register_op("DynamicStitch", kernel=_stitch_kernel, infer=_stitch_infer, grad=_stitch_grad,
                              saves_inputs=True, saves_outputs=False,
                              doc="Interleave data tensors into one, row data[i][j] at index indices[i][j].")


def dynamic_stitch(indices, data, name=None):
    """Merge ``data`` tensors into one: ``merged[indices[m][i...]] = data[m][i...]``.

    The result has ``max(indices) + 1`` rows; when an index repeats, the later
    tensor (and within it the later row) wins. Rows that no index names are 0
    (TF leaves them unspecified). The gradient gathers back each tensor's rows
    (for a repeated index every copy receives it, as in TF).
    """
    if len(indices) != len(data):
        raise ValueError(f"List argument 'data' to 'DynamicStitch' Op with length {len(data)} must match length "
                         f"{len(indices)} of argument 'indices'.")
    idx = [to_tensor(i) for i in indices]
    for i in idx:
        if i.dtype is not dtypes.int32:
            message = f"cannot compute DynamicStitch as input #0(zero-based) was expected to be a int32 tensor " \
                      f"but is a {i.dtype.name} tensor"
            if ctx.graph is not None:
                raise TypeError(message)
            raise _iae(message + " [Op:DynamicStitch]")
    values = array_ops._convert_n(list(data))
    check_same_dtype("DynamicStitch", *values)
    return execute(_DYNAMIC_STITCH, tuple(idx) + tuple(values), {"N": len(idx)}, name=name)
