"""Scattering into an existing tensor: ``tf.tensor_scatter_nd_update/add/sub/min/max``.

Each returns a copy of ``tensor`` with the slices addressed by ``indices``
combined with ``updates``; ``tensor`` itself is never modified (tensors are
immutable). Indexing is ``gather_nd``'s: the last axis of ``indices`` holds a
multi-index of length ``depth`` into the first ``depth`` dimensions of ``tensor``,
so ``updates.shape == indices.shape[:-1] + tensor.shape[depth:]``.

How repeated indices combine: ``add``/``sub``/``min``/``max`` accumulate every
update (unbuffered ``ufunc.at``); ``update`` keeps the last one (TF leaves the
order unspecified).

Gradients are TF's and reuse ``GatherNd`` and ``ScatterNd`` (in ``array_ops``):

* update: the overwritten positions pass no gradient to ``tensor``; ``updates``
  receive ``gather_nd(grad, indices)``;
* add/sub: ``tensor`` gets ``grad``; ``updates`` get ``+-gather_nd(grad, indices)``;
* min/max: the gradient of each output element is split evenly among the
  values (the original and the updates) that equal it.
"""
import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import Tensor, convert_to_tensor
from . import _shapes, array_ops, math_ops
from ._dispatch import NUMERIC, check_same_dtype, execute, to_tensor

__all__ = ["tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub", "tensor_scatter_nd_min",
           "tensor_scatter_nd_max"]

_fmt = _shapes.fmt
_INDEX = frozenset([dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint16])


def _iae(message):
    return InvalidArgumentError(None, None, message)


def _check_shapes(tensor_shape, idx_shape, upd_shape, error):
    """TF's checks for a tensor scatter; unknown dims (None) pass. Raises ``error(message)``."""
    if len(idx_shape) < 1:
        raise error(f"Indices shape must have rank at least one. Found:{_fmt(idx_shape)}")
    if len(upd_shape) < 1:
        raise error(f"Updates shape must have rank at least one. Found:{_fmt(upd_shape)}")
    nb = len(idx_shape) - 1
    depth = idx_shape[-1]

    def differ(a, b):
        return a is not None and b is not None and a != b

    if len(upd_shape) < nb or any(differ(a, b) for a, b in zip(idx_shape[:nb], upd_shape[:nb])):
        raise error(f"Outer dimensions of indices and update must match. Indices shape: {_fmt(idx_shape)}, "
                    f"updates shape:{_fmt(upd_shape)}")
    if depth is None:
        return
    if depth > len(tensor_shape):
        raise error(f"Inner dimensions of output shape must match inner dimensions of updates shape. Output: "
                    f"{_fmt(tensor_shape)} updates: {_fmt(upd_shape)}")
    inner_t, inner_u = list(tensor_shape[depth:]), list(upd_shape[nb:])
    if len(inner_t) != len(inner_u) or any(differ(a, b) for a, b in zip(inner_t, inner_u)):
        raise error(f"The inner {len(inner_t)} dimensions of output.shape={_fmt(tensor_shape)} must match the inner "
                    f"{len(inner_t)} dimensions of updates.shape={_fmt(upd_shape)}")


def _scatter_kernel(mode):
    def make(xp):
        def k(tensor, indices, updates, T=None, Tindices=None):  # noqa: N803
            idx, upd = xp.asarray(indices), xp.asarray(updates)
            _check_shapes(tensor.shape, idx.shape, upd.shape, _iae)
            depth = idx.shape[-1]
            flat = idx.reshape(int(np.prod(idx.shape[:-1], dtype=np.int64)), depth)
            if (tensor.ndim == 0 or tensor.size == 0) and flat.shape[0]:
                raise _iae("Indices and updates specified for empty output shape")
            limits = xp.asarray(tensor.shape[:depth], dtype=np.int64)
            bad = xp.any((flat < 0) | (flat >= limits), axis=1)
            if flat.size and bool(bad.any()):
                row = int(xp.argmax(bad))
                raise _iae(f"indices[{row}] = [{', '.join(str(v) for v in flat[row].tolist())}] does not index into "
                           f"shape {_fmt(tensor.shape)}")
            out = xp.array(tensor, copy=True)
            values = upd.reshape((flat.shape[0],) + tuple(tensor.shape[depth:]))
            if depth == 0:                  # each update addresses the whole tensor
                coords = (xp.zeros(flat.shape[0], dtype=np.int64),)
                out, values = out[None], values
            else:
                coords = tuple(flat[:, j] for j in range(depth))
            if mode == "update":
                out[coords] = values
            else:
                getattr(xp, {"add": "add", "sub": "subtract", "min": "minimum", "max": "maximum"}[mode]).at(
                    out, coords, values)
            return (out[0] if depth == 0 else out)[()]
        return k
    return make


def _scatter_infer(ic):
    t, i, u = ic.shape(0), ic.shape(1), ic.shape(2)
    if t.rank is not None and i.rank is not None and u.rank is not None:
        def error(message):
            return ValueError(f"{message} for '{{{{node {ic.op_name}}}}}' with input shapes: {_fmt(t)}, {_fmt(i)}, "
                              f"{_fmt(u)}.")
        _check_shapes(t.as_list(), i.as_list(), u.as_list(), error)
    return [(ic.dtype(0), t)]


def _update_grad(op, grad):
    indices = op.inputs[1]
    updates_grad = array_ops.gather_nd(grad, indices)
    tensor_grad = tensor_scatter_nd_update(grad, indices, array_ops.zeros_like(updates_grad))
    return tensor_grad, None, updates_grad


def _add_grad(op, grad):
    return grad, None, array_ops.gather_nd(grad, op.inputs[1])


def _sub_grad(op, grad):
    return grad, None, math_ops.negative(array_ops.gather_nd(grad, op.inputs[1]))


def _min_max_grad(op, grad):
    """Split each output element's gradient evenly among the inputs equal to it (TF's
    ``_TensorScatterMinOrMaxGrad``)."""
    x, indices, y = op.inputs
    output = op.outputs[0]
    x_indicators = math_ops.cast(math_ops.equal(x, output), grad.dtype)
    y_output = array_ops.gather_nd(output, indices)
    y_indicators = math_ops.cast(math_ops.equal(y, y_output), grad.dtype)
    ys_indicators = array_ops.scatter_nd(indices, y_indicators,
                                         array_ops.shape(x, out_type=indices.dtype) if not x.shape.is_fully_defined()
                                         else x.shape.as_list())
    indicators = math_ops.add(x_indicators, ys_indicators)     # every element >= 1
    x_grad = math_ops.divide(math_ops.multiply(grad, x_indicators), indicators)
    y_grad = math_ops.multiply(array_ops.gather_nd(math_ops.divide(grad, indicators), indices), y_indicators)
    return x_grad, None, y_grad


_UPDATE = register_op("TensorScatterUpdate", kernel=_scatter_kernel("update"), infer=_scatter_infer,
                      grad=_update_grad, saves_inputs=(1,), saves_outputs=False,
                      doc="A copy of tensor with the indexed slices replaced by updates.")
_ADD = register_op("TensorScatterAdd", kernel=_scatter_kernel("add"), infer=_scatter_infer, grad=_add_grad,
                   saves_inputs=(1,), saves_outputs=False, doc="A copy of tensor with updates added at indices.")
_SUB = register_op("TensorScatterSub", kernel=_scatter_kernel("sub"), infer=_scatter_infer, grad=_sub_grad,
                   saves_inputs=(1,), saves_outputs=False, doc="A copy of tensor with updates subtracted at indices.")
_MIN = register_op("TensorScatterMin", kernel=_scatter_kernel("min"), infer=_scatter_infer, grad=_min_max_grad,
                   saves_inputs=True, saves_outputs=True, doc="Elementwise minimum of tensor and updates at indices.")
_MAX = register_op("TensorScatterMax", kernel=_scatter_kernel("max"), infer=_scatter_infer, grad=_min_max_grad,
                   saves_inputs=True, saves_outputs=True, doc="Elementwise maximum of tensor and updates at indices.")


def _inputs(op, tensor, indices, updates, numeric):
    t = to_tensor(tensor)
    idx = to_tensor(indices)
    if idx.dtype not in _INDEX:
        message = (f"Value for attr 'Tindices' of {idx.dtype.name} is not in the list of allowed values: int16, "
                   f"int32, int64, uint16; NodeDef: {{{{node {op.name}}}}}. Cast the indices with tf.cast.")
        if ctx.graph is not None:
            raise TypeError(message)
        raise _iae(message + f" [Op:{op.name}]")
    u = to_tensor(updates) if isinstance(updates, Tensor) else convert_to_tensor(updates, dtype=t.dtype)
    check_same_dtype(op.name, t, u)
    if numeric and t.dtype not in NUMERIC:
        math_ops._no_kernel(op.name, t, NUMERIC)
    return t, idx, u


def _scatter(op, numeric):
    def public(tensor, indices, updates, name=None):
        return execute(op, _inputs(op, tensor, indices, updates, numeric), name=name)
    return public


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with the slices at ``indices`` replaced by ``updates`` (any dtype).

    ``updates.shape == indices.shape[:-1] + tensor.shape[indices.shape[-1]:]``.
    Out-of-range indices raise ``InvalidArgumentError``. Repeated indices: the last
    update wins here (TF does not specify which).
    """
    return _scatter(_UPDATE, False)(tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` added at ``indices`` (repeated indices add up)."""
    return _scatter(_ADD, True)(tensor, indices, updates, name)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` subtracted at ``indices`` (repeated indices all subtract)."""
    return _scatter(_SUB, True)(tensor, indices, updates, name)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """A copy of ``tensor`` where each indexed element becomes the minimum of itself and its updates."""
    return _scatter(_MIN, True)(tensor, indices, updates, name)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """A copy of ``tensor`` where each indexed element becomes the maximum of itself and its updates."""
    return _scatter(_MAX, True)(tensor, indices, updates, name)
