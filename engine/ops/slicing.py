"""Tensor indexing: ``x[1:, None, ..., ::2]`` through one op, ``StridedSlice``.

How ``x[key]`` works, in two halves, as in TensorFlow:

1. **Python side** (:func:`getitem`, TF's ``_slice_helper``). The key is turned
   into a *sparse spec*: three int vectors ``begin``, ``end``, ``strides`` with
   one entry per item of the key, plus five bitmasks saying how to read entry
   ``i``: ``begin_mask``/``end_mask`` (the bound was omitted, ``x[:3]``),
   ``ellipsis_mask`` (``...``), ``new_axis_mask`` (``None``/``tf.newaxis``) and
   ``shrink_axis_mask`` (a plain integer: take one element and drop the axis).
   ``x[1, :, None]`` becomes ``begin=[1, 0, 0]``, ``end=[2, 0, 0]``,
   ``strides=[1, 1, 1]``, ``begin_mask=end_mask=0b010``, ``new_axis_mask=0b100``,
   ``shrink_axis_mask=0b001``.
2. **Op side** (:func:`_plan`, TF's ``ValidateStridedSliceOp``). The sparse spec
   becomes a *dense* one with exactly one entry per input dimension: the
   ellipsis (an implicit one at the end if none was given) expands to as many
   full slices as needed. Each entry is then clamped against its dimension
   (Python's slicing rules) and checked (integer indices must be in range).
   The result is a NumPy basic-indexing tuple plus the output shape; the same
   code serves the kernel (all known) and shape inference (unknown dims).

The gradient is ``StridedSliceGrad``: a zero tensor of the input's shape with
the incoming gradient written into the sliced positions. Its own gradient is a
``StridedSlice`` of the incoming gradient, so second derivatives work.

``tf.slice(x, begin, size)`` is the simpler ``Slice`` op: in-range begins and
sizes only (``-1`` means "to the end"); its gradient is a ``Pad``.
"""
import builtins
import numbers

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import Tensor, noting_python_origin
from ..framework.tensor_shape import Dimension, TensorShape
from . import _shapes
from . import array_ops, math_ops  # noqa: E402  (used at call time)
from ._dispatch import execute, int_tensor, to_tensor

__all__ = ["strided_slice", "slice"]

_INDEX_DTYPES = frozenset([dtypes.int16, dtypes.int32, dtypes.int64])
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1
_fmt = _shapes.fmt


def _ints(a):
    """An index/shape input array as a tuple of Python ints (works for NumPy and CuPy)."""
    return tuple(int(v) for v in (a.ravel() if hasattr(a, "ravel") else np.ravel(a)).tolist())


class _SpecError(Exception):
    """A bad slice spec: the kernel reports it as InvalidArgumentError, shape inference as ValueError."""


# --------------------------------------------------------------------------------------
# Sparse spec -> dense spec -> NumPy index (shared by kernel, gradient kernel and inference)
# --------------------------------------------------------------------------------------
def _dense_spec(rank, n, ellipsis_mask, new_axis_mask):
    """TF's BuildDenseSpec. Returns one item per output position before shrinking:

    ``("all", dim)``: a dimension covered by the ellipsis; ``("new",)``: a new axis;
    ``("dim", i, dim)``: input dimension ``dim`` sliced by sparse entry ``i``.
    """
    if ellipsis_mask & (ellipsis_mask - 1):
        raise _SpecError("Multiple ellipses in slice spec not allowed")
    if not ellipsis_mask:            # no ellipsis: behave as if one followed the last entry
        ellipsis_mask = 1 << n
        n += 1
    ellipsis_at = ellipsis_mask.bit_length() - 1
    new_after = sum(1 for i in builtins.range(ellipsis_at + 1, n) if new_axis_mask >> i & 1)
    items, full = [], 0
    for i in builtins.range(n):
        bit = 1 << i
        if ellipsis_mask & bit:
            stop = min(rank - (n - i) + 1 + new_after, rank)
            while full < stop:
                items.append(("all", full))
                full += 1
        elif new_axis_mask & bit:
            items.append(("new",))
        else:
            if full == rank:
                if rank == 0:
                    raise _SpecError("Attempting to slice scalar input.")
                raise _SpecError(f"Index out of range using input dim {full}; input has only {rank} dims")
            items.append(("dim", i, full))
            full += 1
    return items


def _plan(dims, begin, end, strides, masks, n=None):
    """Resolve a sparse spec against an input of shape ``dims`` (a list; ``None`` = unknown dim).

    ``begin``/``end``/``strides`` are lists of ints, or all ``None`` when their
    values are unknown (then ``n`` is their length). Returns ``(index, out_dims)``:
    a tuple for NumPy basic indexing (meaningful when everything is known) and the
    output shape as a list with ``None`` for unknown dims. Raises ``_SpecError``.
    """
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask = masks
    if begin is not None:
        n = len(begin)
    index, out = [], []
    for item in _dense_spec(len(dims), n, ellipsis_mask, new_axis_mask):
        if item[0] == "new":
            index.append(None)
            out.append(1)
            continue
        if item[0] == "all":
            index.append(builtins.slice(None))
            out.append(dims[item[1]])
            continue
        _, i, k = item
        bit = 1 << i
        shrink = bool(shrink_mask & bit)
        dim = dims[k]
        if begin is None:                         # values unknown (graph mode): only the rank is known
            index.append(builtins.slice(None))
            if not shrink:
                out.append(None)
            continue
        b, e, s = begin[i], end[i], strides[i]
        if s == 0:
            raise _SpecError(f"strides[{k}] must be non-zero")
        if shrink and s <= 0:
            raise _SpecError("only stride 1 allowed on non-range indexing.")
        if dim is None:
            index.append(builtins.slice(None))
            if not shrink:
                out.append(None)
            continue
        if shrink:                                # an integer index: in range, then the axis disappears
            x = b + dim if b < 0 else b
            if not 0 <= x < dim:
                raise _SpecError(f"slice index {x} of dimension {k} out of bounds.")
            index.append(x)
            continue
        # A range: clamp like Python does. Valid positions are [0, dim] going up, [-1, dim-1] going down.
        lo, hi = (0, dim) if s > 0 else (-1, dim - 1)
        if begin_mask & bit:
            b = lo if s > 0 else hi
        else:
            b = min(max(b + dim if b < 0 else b, lo), hi)
        if end_mask & bit:
            e = hi if s > 0 else lo
        else:
            e = min(max(e + dim if e < 0 else e, lo), hi)
        length = e - b
        if length == 0 or (length < 0) != (s < 0):
            count = 0
        else:
            count = length // s + (length % s != 0)
        out.append(count)
        if count == 0:
            index.append(builtins.slice(0, 0))
        else:                                     # end -1 (going down past 0) is "None" in Python
            index.append(builtins.slice(b, e if e >= 0 else None, s))
    return tuple(index), out


def _masks(attrs):
    return tuple(int(attrs.get(m, 0)) for m in _MASKS)


def _check_spec_arrays(begin, end, strides):
    shapes = [np.shape(a) for a in (begin, end, strides)]
    if any(len(s) != 1 for s in shapes) or not shapes[0] == shapes[1] == shapes[2]:
        raise InvalidArgumentError(None, None, f"Expected begin, end, and strides to be 1D equal size tensors, but "
                                               f"got shapes {_fmt(shapes[0])}, {_fmt(shapes[1])}, and "
                                               f"{_fmt(shapes[2])} instead.")


def _kernel_index(dims, begin, end, strides, attrs):
    _check_spec_arrays(begin, end, strides)
    try:
        index, _ = _plan(list(dims), list(_ints(begin)), list(_ints(end)), list(_ints(strides)), _masks(attrs))
    except _SpecError as e:
        raise InvalidArgumentError(None, None, str(e)) from None
    return index


# --------------------------------------------------------------------------------------
# StridedSlice and StridedSliceGrad
# --------------------------------------------------------------------------------------
def _item(value):
    """``value[()]`` (a 0-d result as a scalar), except for a string scalar (``np.bytes_``), already one."""
    return value if isinstance(value, bytes) else value[()]


def _strided_slice_kernel(xp):
    def k(x, begin, end, strides, **attrs):
        return _item(x[_kernel_index(x.shape, begin, end, strides, attrs)])
    return k


def _spec_length(ic):
    for i in (1, 2, 3):
        value = ic.constant_value(i)
        if value is not None:
            return int(np.size(value))
        s = ic.shape(i)
        if s.rank == 1 and s[0] is not None:
            return s[0]
    return None


def _infer_out(ic, dims):
    values = [ic.constant_value(i) for i in (1, 2, 3)]
    n = _spec_length(ic)
    if n is None:
        return None
    if any(v is None for v in values):
        begin = end = strides = None
    else:
        begin, end, strides = ([int(v) for v in np.ravel(a)] for a in values)
        if not len(begin) == len(end) == len(strides):
            raise ValueError(f"Expected begin, end, and strides to be 1D equal size tensors, but got lengths "
                             f"{len(begin)}, {len(end)}, and {len(strides)} instead.")
    try:
        return _plan(dims, begin, end, strides, _masks(ic.attrs), n)[1]
    except _SpecError as e:
        raise ValueError(f"{e} for '{{{{node {ic.op_name}}}}}' with input shapes: "
                         f"{', '.join(_fmt(t.shape) for t in ic.inputs)}.") from None


def _strided_slice_infer(ic):
    x = ic.shape(0)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    out = _infer_out(ic, x.as_list())
    return [(ic.dtype(0), TensorShape(out))]


def _strided_slice_grad(op, grad):
    """Write the gradient into zeros of the input's shape at the sliced positions (StridedSliceGrad)."""
    shape = array_ops.shape
    x, begin, end, strides = op.inputs
    if x.shape.is_fully_defined():
        x_shape = int_tensor(x.shape.as_list(), dtype=begin.dtype)
    else:
        x_shape = shape(x, out_type=begin.dtype)
    attrs = {m: op.attrs.get(m, 0) for m in _MASKS}
    return execute(_STRIDED_SLICE_GRAD, (x_shape, begin, end, strides, grad), attrs), None, None, None


_STRIDED_SLICE = register_op("StridedSlice", eager_error_name='strided_slice/', kernel=_strided_slice_kernel, infer=_strided_slice_infer,
                             grad=_strided_slice_grad, saves_inputs=(1, 2, 3), saves_outputs=False,
                             linear="linear", doc="NumPy-style basic indexing: ranges with steps, integers, ..., new axes.")


def _strided_slice_grad_kernel(xp):
    def k(shape, begin, end, strides, dy, **attrs):
        dims = _ints(shape)
        index = _kernel_index(dims, begin, end, strides, attrs)
        out = xp.zeros(dims, dtype=dy.dtype)
        out[index] = dy              # a strided slice never repeats a position: plain assignment is exact
        return out[()]
    return k


def _strided_slice_grad_infer(ic):
    dims = ic.constant_value(0)
    if dims is not None:
        return [(ic.dtype(4), TensorShape([int(d) for d in np.ravel(dims)]))]
    n = ic.shape(0)
    return [(ic.dtype(4), TensorShape([None] * n[0]) if n.rank == 1 and n[0] is not None else TensorShape(None))]


def _strided_slice_grad_grad(op, grad):
    _, begin, end, strides, _ = op.inputs
    attrs = {m: op.attrs.get(m, 0) for m in _MASKS}
    return None, None, None, None, execute(_STRIDED_SLICE, (grad, begin, end, strides), attrs)


_STRIDED_SLICE_GRAD = register_op("StridedSliceGrad", kernel=_strided_slice_grad_kernel,
                                  infer=_strided_slice_grad_infer, grad=_strided_slice_grad_grad,
                                  saves_inputs=(1, 2, 3), saves_outputs=False,
                                  doc="Gradient of StridedSlice: zeros with ``dy`` at the sliced positions.")


# --------------------------------------------------------------------------------------
# Slice
# --------------------------------------------------------------------------------------
def _slice_index(dims, begin, size):
    r = len(dims)
    b, sz = _ints(begin), _ints(size)
    if len(b) != r or len(sz) != r:
        raise InvalidArgumentError(None, None, f"Expected begin and size arguments to be 1-D tensors of size {r}, "
                                               f"but got shapes [{len(b)}] and [{len(sz)}] instead.")
    index = []
    for i, d in enumerate(dims):
        if not 0 <= b[i] <= d:
            raise InvalidArgumentError(None, None, f"Expected begin[{i}] in [0, {d}], but got {b[i]}")
        s = d - b[i] if sz[i] == -1 else sz[i]
        if not 0 <= s <= d - b[i]:
            raise InvalidArgumentError(None, None, f"Expected size[{i}] in [0, {d - b[i]}], but got {sz[i]}")
        index.append(builtins.slice(b[i], b[i] + s))
    return tuple(index)


def _slice_kernel(xp):
    def k(x, begin, size):
        return _item(x[_slice_index(x.shape, begin, size)])
    return k


def _slice_infer(ic):
    """Sizes other than -1 are output dims; -1 gives ``dim - begin``. Entries of ``begin`` and ``size``
    known while building (``array_ops.partial_input``: constants, ``tf.stack([-1, n])``...) are used."""
    x = ic.shape(0)
    begin = array_ops.partial_input(ic, 1)
    sizes = array_ops.partial_input(ic, 2)
    if sizes is None:
        n = x.rank if x.rank is not None else _spec_length(ic)
        return [(ic.dtype(0), TensorShape(None if n is None else [None] * n))]
    dims = x.as_list() if x.rank is not None else [None] * len(sizes)
    if len(sizes) != len(dims) or (begin is not None and len(begin) != len(dims)):
        raise ValueError(f"Expected begin and size arguments to be 1-D tensors of size {len(dims)} for "
                         f"'{{{{node Slice}}}}' with input shapes: {_fmt(x)}.")
    out = []
    for i, (d, s) in enumerate(zip(dims, sizes)):
        if s is not None and s != -1:
            out.append(s)
        elif s is None or d is None or begin is None or begin[i] is None:
            out.append(None)
        else:
            out.append(d - begin[i])
    return [(ic.dtype(0), TensorShape(out))]


def _slice_grad(op, grad):
    """Pad the gradient with zeros back to the input's shape: ``begin`` before, the rest after."""
    x, begin, _ = op.inputs
    y = op.outputs[0]
    b = array_ops.known_value(begin)
    if x.shape.is_fully_defined() and y.shape.is_fully_defined() and b is not None:
        b = _ints(b)
        paddings = np.asarray([[bi, xi - bi - yi] for bi, xi, yi in zip(b, x.shape.as_list(), y.shape.as_list())],
                              dtype=np.int64 if begin.dtype == dtypes.int64 else np.int32).reshape(-1, 2)
    else:
        before = begin
        after = math_ops.subtract(math_ops.subtract(array_ops.shape(x, out_type=begin.dtype), begin),
                                  array_ops.shape(y, out_type=begin.dtype))
        paddings = array_ops.stack([before, after], axis=1)
    return array_ops.pad(grad, paddings), None, None


_SLICE = register_op("Slice", kernel=_slice_kernel, infer=_slice_infer, grad=_slice_grad, saves_inputs=(1,),
                     saves_outputs=False, linear="linear", doc="A contiguous block: ``begin`` and ``size`` per dimension.")


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------
def _index_vectors(*vectors):
    """Convert begin/end/strides (lists, possibly mixing ints and scalar tensors, or tensors) to index tensors.

    As in TF: int32 unless a value needs int64 or a tensor is int64; if the three
    disagree, all become int64.
    """
    out = []
    for v in vectors:
        if isinstance(v, Tensor) or hasattr(v, "__tf_tensor__"):
            t = to_tensor(v)
        elif isinstance(v, (list, tuple)) and any(isinstance(e, Tensor) or hasattr(e, "__tf_tensor__") for e in v):
            t = array_ops.stack(list(v))
        else:
            arr = np.asarray(v)
            if arr.size and arr.dtype.kind not in "iu":
                t = to_tensor(v)   # floats and the like: rejected below with TF's message
            else:
                wide = (isinstance(v, (np.ndarray, np.generic)) and v.dtype == np.int64) or (
                    arr.size and (int(arr.min()) < _INT32_MIN or int(arr.max()) > _INT32_MAX))
                dtype = dtypes.int64 if wide else dtypes.int32
                t = int_tensor(arr.astype(dtype._np), dtype=dtype)
        if t.dtype not in _INDEX_DTYPES:
            message = (f"Value for attr 'Index' of {t.dtype.name} is not in the list of allowed values: int16, "
                       f"int32, int64; NodeDef: {{{{node StridedSlice}}}}. Slice bounds must be integers.")
            if ctx.graph is not None:
                raise TypeError(message)
            raise InvalidArgumentError(None, None, message + " [Op:StridedSlice]")
        out.append(t)
    kinds = {t.dtype for t in out}
    if len(kinds) > 1:
        out = [math_ops.cast(t, dtypes.int64) for t in out]
    return out


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    """``tf.strided_slice``: the op behind ``x[...]``, with the sparse spec spelled out (see module docstring).

    ``strides`` defaults to ones. ``var`` (slice assignment to variables) is not supported and ignored.
    """
    x = to_tensor(input_)
    if strides is None:
        if isinstance(begin, Tensor):
            ones_like = array_ops.ones_like
            strides = ones_like(begin)
        else:
            strides = [1] * len(begin)
    b, e, s = _index_vectors(begin, end, strides)
    attrs = {"begin_mask": int(begin_mask), "end_mask": int(end_mask), "ellipsis_mask": int(ellipsis_mask),
             "new_axis_mask": int(new_axis_mask), "shrink_axis_mask": int(shrink_axis_mask)}
    return execute(_STRIDED_SLICE, (x, b, e, s), attrs, name=name)


def slice(input_, begin, size, name=None):  # noqa: A001  (TF's name)
    """``tf.slice``: the block starting at ``begin`` with ``size`` elements per dimension (``-1``: to the end).

    Unlike ``x[a:b]``, out-of-range values are errors, not clamped.
    """
    x = to_tensor(input_)
    b, s = _index_vectors(begin, size)
    b, s = noting_python_origin(begin, b), noting_python_origin(size, s)   # (TF's errors tell lists from tensors)
    return execute(_SLICE, (x, b, s), name=name)


_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                     "tf.int32/tf.int64 tensors are valid indices")


def _check_index(idx):
    """TF's rule for one index item: a Python/NumPy integer, or a scalar int16/int32/int64 tensor."""
    if isinstance(idx, (numbers.Integral, Dimension)):
        return
    dtype = getattr(idx, "dtype", None)
    try:
        ok = dtype is not None and dtypes.as_dtype(dtype) in _INDEX_DTYPES
    except TypeError:
        ok = False
    shape = getattr(idx, "shape", None)
    rank = None if shape is None else TensorShape(shape).rank
    if not ok or rank not in (0, None):
        raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


def _plain(v):
    """``Dimension(None)`` counts as an omitted bound; ``Dimension(3)`` as 3."""
    if isinstance(v, Dimension):
        return v.value
    return v


def _is_bool_mask(key):
    if isinstance(key, bool):
        return True
    if isinstance(key, np.ndarray):
        return key.dtype == np.bool_
    if isinstance(key, Tensor) or hasattr(key, "__tf_tensor__"):
        return getattr(key, "dtype", None) == dtypes.bool
    return False


def getitem(tensor, key):
    """``tensor[key]``: TF's ``Tensor.__getitem__``.

    Supports integers (negative count from the end), slices with any step,
    ``...``, ``None``/``tf.newaxis`` and scalar int tensors, all through one
    ``StridedSlice`` op. A boolean mask (tensor, NumPy array or Python bool)
    goes to ``tf.boolean_mask``, as in TF. A list key is read like a tuple
    (``x[[0, 1]]`` is ``x[0, 1]``, TF's behaviour, not NumPy's fancy indexing);
    non-scalar or float index tensors raise ``TypeError``.
    """
    x = to_tensor(tensor)
    if _is_bool_mask(key):
        return array_ops.boolean_mask(x, key)
    if not isinstance(key, (list, tuple)):
        key = [key]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_mask = 0
    all_python = True
    for i, item in enumerate(key):
        bit = 1 << i
        if isinstance(item, builtins.slice):
            start, stop, step = _plain(item.start), _plain(item.stop), _plain(item.step)
            for v in (start, stop, step):
                if v is not None:
                    _check_index(v)
            if start is None:
                begin.append(0)
                begin_mask |= bit
            else:
                begin.append(start)
            if stop is None:
                end.append(0)
                end_mask |= bit
            else:
                end.append(stop)
            strides.append(1 if step is None else step)
        elif item is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= bit
        elif item is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= bit
        else:
            item = _plain(item)
            _check_index(item)
            if isinstance(item, numbers.Integral):
                item = int(item)
                begin.append(item)
                end.append(item + 1)
                strides.append(1)
            else:
                t = to_tensor(item)
                begin.append(t)
                end.append(math_ops.add(t, 1))
                strides.append(1 if t.dtype == dtypes.int32 else int_tensor(1, dtype=t.dtype))
            shrink_mask |= bit
    for v in begin + end + strides:
        if not isinstance(v, int):
            all_python = False
            break
    if all_python:
        values = begin + end + strides
        dtype = dtypes.int64 if any(not _INT32_MIN <= v <= _INT32_MAX for v in values) else dtypes.int32
        packed = [int_tensor(np.asarray(v, dtype=dtype._np).reshape(-1), dtype=dtype) for v in (begin, end, strides)]
    else:
        packed = _index_vectors(begin, end, strides)
    attrs = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_mask}
    return execute(_STRIDED_SLICE, (x,) + tuple(packed), attrs, name="strided_slice")
