"""Sorting and searching: ``TopKV2``, ``Unique``, ``UniqueWithCounts``, ``LowerBound``/``UpperBound``.

Only four kinds of op are registered here; the rest is composed from them, as in TF:

* ``tf.math.top_k(x, k)``: the ``k`` largest entries along the last axis and
  their indices (``TopKV2``). Ties go to the lower index first.
* ``tf.sort`` / ``tf.argsort`` are ``top_k`` with ``k = shape[axis]``. A sort
  along another axis transposes that axis to the end and back. Ascending order
  sorts the negated values descending (``-x`` for floats, ``-x - 1`` = ``~x``
  for signed integers so that ``INT_MIN`` survives, ``max - x`` for unsigned),
  exactly TF's construction, so the gradient of ``sort`` is ``TopKV2``'s
  gradient and ties keep their original order (the sort is stable).
* ``tf.unique`` / ``tf.unique_with_counts``: distinct values of a 1-D tensor in
  order of first appearance, with the index of each input element's value.
* ``tf.searchsorted``: ``LowerBound`` (``side="left"``) or ``UpperBound``
  (``"right"``) on ``[rows, n]`` views of the inputs, reshaped back.

Deliberate difference: NaN. TF's ``TopKV2`` gives order-dependent results with
NaNs; here NaN sorts as the largest value (NumPy's order).
"""
import collections

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.registry import no_registered_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import _shapes, array_ops, math_ops, slicing
from ._dispatch import NUMERIC, check_dtype, check_same_dtype, execute, int_tensor, to_tensor

__all__ = ["sort", "argsort", "unique", "unique_with_counts", "searchsorted"]

_fmt = _shapes.fmt
TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])
_INDEX_OUT = frozenset([dtypes.int32, dtypes.int64])
_TOPK_INDEX = frozenset([dtypes.int16, dtypes.int32, dtypes.int64])


def _iae(message):
    return InvalidArgumentError(None, None, message)


def _attr_error(op_name, attr, dtype, allowed):
    """TF's refusal of a type attr (``out_idx``, ``index_type``...): InvalidArgumentError eagerly, TypeError
    while building a graph."""
    names = ", ".join(sorted(d.name for d in allowed))
    message = f"Value for attr '{attr}' of {dtype.name} is not in the list of allowed values: {names}; " \
              f"NodeDef: {{{{node {op_name}}}}}"
    if ctx.graph is not None:
        return TypeError(message)
    return _iae(message + f" [Op:{op_name}]")


# --------------------------------------------------------------------------------------
# TopKV2
# --------------------------------------------------------------------------------------
def _descending_order(xp, x):
    """Indices sorting ``x`` descending along the last axis, ties in index order (a stable sort).

    A stable ascending sort of the *reversed* row, read backwards, puts equal values in
    their original order without negating anything (negation overflows ``INT_MIN``).
    """
    n = x.shape[-1]
    flipped = xp.argsort(x[..., ::-1], axis=-1, kind="stable")
    return (n - 1 - flipped)[..., ::-1]


def _top_k_kernel(xp):
    def k(x, kk, sorted=True, index_type=dtypes.int32, T=None):  # noqa: A002,N803 (TF attr names)
        kv = int(kk)
        if kv < 0:
            raise _iae(f"Need k >= 0, got {kv}")
        if x.ndim < 1:
            raise _iae(f"input must be >= 1-D, got shape {_fmt(x.shape)}")
        if x.shape[-1] < kv:
            raise _iae(f"input must have at least k columns. Had {x.shape[-1]}, needed {kv}")
        order = _descending_order(xp, x)[..., :kv]
        values = xp.take_along_axis(x, order, axis=-1)
        return values, order.astype(index_type._np)
    return k


def _top_k_infer(ic):
    x = ic.shape(0)
    index_type = ic.attrs.get("index_type", dtypes.int32)
    k = ic.constant_value(1)
    kk = None if k is None else int(k)
    if ic.shape(1).rank not in (None, 0):
        ic.error(f"Shape must be rank 0 but is rank {ic.shape(1).rank}")
    if kk is not None and kk < 0:
        ic.error(f"Need k >= 0, got {kk}")
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None)), (index_type, TensorShape(None))]
    if x.rank < 1:
        ic.error("Shape must be at least rank 1 but is rank 0")
    dims = x.as_list()
    if kk is not None and dims[-1] is not None and dims[-1] < kk:
        ic.error(f"input must have last dimension >= k = {kk} but is {dims[-1]}")
    out = TensorShape(dims[:-1] + [kk])
    return [(ic.dtype(0), out), (index_type, out)]


def _top_k_grad(op, grad, _grad_indices):
    """Scatter the values' gradient back to the positions the values came from (TF's ``_TopKGrad``).

    The indices are made linear over the flattened input (row offset + column), then
    one ``ScatterNd`` writes the gradient into a zero vector of the input's size.
    """
    x, indices = op.inputs[0], op.outputs[1]
    cast, multiply, add = math_ops.cast, math_ops.multiply, math_ops.add
    reshape, expand_dims = array_ops.reshape, array_ops.expand_dims
    idx = cast(indices, dtypes.int64)
    xs = x.shape
    if xs.is_fully_defined():
        dims = xs.as_list()
        n, rows = dims[-1], int(np.prod(dims[:-1], dtype=np.int64))
        idx2 = reshape(idx, [rows, -1])
        offsets = expand_dims(array_ops.range(rows, dtype=dtypes.int64) * n, -1)
        total, in_shape = [int(np.prod(dims, dtype=np.int64))], dims
    else:
        in_shape = array_ops.shape(x, out_type=dtypes.int64)
        n = array_ops.gather(in_shape, array_ops.size(in_shape) - 1)
        k = array_ops.gather(array_ops.shape(idx, out_type=dtypes.int64), array_ops.size(in_shape) - 1)
        idx2 = reshape(idx, array_ops.stack([-1, k]))
        rows = array_ops.gather(array_ops.shape(idx2, out_type=dtypes.int64), 0)
        offsets = expand_dims(multiply(array_ops.range(rows, dtype=dtypes.int64), n), -1)
        total = reshape(array_ops.size(x, out_type=dtypes.int64), [1])
    linear = reshape(add(idx2, offsets), [-1, 1])
    flat = array_ops.scatter_nd(linear, reshape(grad, [-1]), total)
    return reshape(flat, in_shape), None


_TOP_K = register_op("TopKV2", kernel=_top_k_kernel, infer=_top_k_infer, grad=_top_k_grad, num_outputs=2,
                     inputs="input: T, k: Tk", type_attrs={"T": NUMERIC},
                     saves_inputs=False, saves_outputs=(1,),
                     doc="The k largest entries along the last axis, and their indices (ties: lower index first).")


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002
    """``tf.math.top_k`` / ``tf.nn.top_k``: the ``k`` largest entries of the last axis, and their indices.

    Returns ``(values, indices)``, each of shape ``input.shape[:-1] + [k]``; equal
    values come lower index first. ``sorted=False`` allows any order in TF; the
    engine returns them sorted anyway (TF's CPU order is an implementation detail).
    Differentiable with respect to ``input``: the gradient goes back to the chosen
    positions. ``index_type``: int16, int32 (default) or int64.
    """
    x = to_tensor(input)
    check_dtype("TopKV2", x, NUMERIC, "input")
    index_type = dtypes.as_dtype(index_type)
    if index_type not in _TOPK_INDEX:
        raise _attr_error("TopKV2", "index_type", index_type, _TOPK_INDEX)
    return TopKV2(*execute(_TOP_K, (x, int_tensor(k)), {"sorted": bool(sorted), "index_type": index_type},
                           name=name))


# --------------------------------------------------------------------------------------
# sort and argsort: TopKV2 along the sorted axis
# --------------------------------------------------------------------------------------
def _check_direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Argument `direction` should be one of ASCENDING, DESCENDING. Received: "
                         f"direction={direction}")


def _descending_sort(values, axis, return_argsort):
    """TF's ``_descending_sort``: ``top_k`` with ``k`` = the axis length, the axis moved last and back."""
    r = values.shape.rank
    if r is None:
        raise ValueError("sort needs a tensor of known rank (the engine transposes the sorted axis to the end)")
    if r == 0 or not -r <= axis < r:
        # TF's ``_descending_sort`` starts with ``k = tf.shape(values)[axis]``: an axis out of range
        # fails in that StridedSlice, as a ValueError of its shape function while a graph is built,
        # as its kernel's InvalidArgumentError eagerly. The engine builds the same slice to fail alike.
        slicing.getitem(array_ops.shape(values), axis)
        raise InvalidArgumentError(None, None, f"slice index {axis} of dimension 0 out of bounds: axis {axis} is "
                                               f"out of range for a tensor of rank {r} (shape {_fmt(values.shape)}) "
                                               f"[Op:TopKV2]")
    axis %= r
    perm = None
    if axis != r - 1:
        perm = list(range(axis)) + [r - 1] + list(range(axis + 1, r - 1)) + [axis]
        values = array_ops.transpose(values, perm)
    n = values.shape[-1]
    k = n if n is not None else array_ops.gather(array_ops.shape(values), r - 1)
    top_values, indices = top_k(values, k)
    out = indices if return_argsort else top_values
    return array_ops.transpose(out, perm) if perm is not None else out


def _sort_or_argsort(values, axis, direction, return_argsort):
    _check_direction(direction)
    x = to_tensor(values)
    axis = int(axis)
    if direction == "DESCENDING":
        return _descending_sort(x, axis, return_argsort)
    dtype = x.dtype
    if dtype.is_unsigned:       # max - x reverses the order without overflow
        top = math_ops.cast(np.iinfo(dtype._np).max, dtype)
        out = _descending_sort(math_ops.subtract(top, x), axis, return_argsort)
        return out if return_argsort else math_ops.subtract(top, out)
    if dtype.is_integer:        # -x - 1 (= ~x) maps INT_MIN to INT_MAX
        out = _descending_sort(math_ops.subtract(math_ops.negative(x), 1), axis, return_argsort)
        return out if return_argsort else math_ops.subtract(math_ops.negative(out), 1)
    out = _descending_sort(math_ops.negative(x), axis, return_argsort)
    return out if return_argsort else math_ops.negative(out)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """Sort ``values`` along ``axis`` (``"ASCENDING"`` or ``"DESCENDING"``).

    Built from ``top_k`` as TF builds it (see the module docstring), so it is
    differentiable: each output position's gradient goes to the input element
    that landed there. bool is refused (TF fails negating it).
    """
    return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis``.

    Equal values keep their original order in both directions, whatever
    ``stable`` says (as in TF, whose unstable sort "is not yet implemented").
    """
    return _sort_or_argsort(values, axis, direction, return_argsort=True)


# --------------------------------------------------------------------------------------
# Unique and UniqueWithCounts
# --------------------------------------------------------------------------------------
def _unique_parts(xp, x, out_idx):
    """``(y, idx, counts)``: distinct values in order of first appearance (each NaN is distinct, as in TF)."""
    if x.ndim != 1:
        raise _iae("unique expects a 1D vector.")
    host = x if xp is np else x.get()
    kwargs = {"equal_nan": False} if host.dtype.kind == "f" else {}
    _, first, inverse = np.unique(host, return_index=True, return_inverse=True, **kwargs)
    order = np.argsort(first, kind="stable")          # unique values by first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    y = host[first[order]]                            # the first occurrence itself (-0.0 before 0.0 ...)
    idx = rank[np.ravel(inverse)].astype(out_idx._np)
    counts = np.bincount(idx, minlength=y.size).astype(out_idx._np)
    if xp is not np:
        y, idx, counts = xp.asarray(y), xp.asarray(idx), xp.asarray(counts)
    return y, idx, counts


def _unique_kernel(xp):
    def k(x, out_idx=dtypes.int32, T=None):  # noqa: N803
        y, idx, _ = _unique_parts(xp, x, out_idx)
        return y, idx
    return k


def _unique_with_counts_kernel(xp):
    def k(x, out_idx=dtypes.int32, T=None):  # noqa: N803
        return _unique_parts(xp, x, out_idx)
    return k


def _unique_infer_n(n):
    def infer(ic):
        x = ic.shape(0)
        if x.rank is not None and x.rank != 1:
            ic.error(f"Shape must be rank 1 but is rank {x.rank}")
        out_idx = ic.attrs.get("out_idx", dtypes.int32)
        specs = [(ic.dtype(0), TensorShape([None])), (out_idx, x)]   # idx: x's shape (unknown rank stays so)
        if n == 3:
            specs.append((out_idx, TensorShape([None])))
        return specs
    return infer


_UNIQUE = register_op("Unique", kernel=_unique_kernel, infer=_unique_infer_n(2), num_outputs=2,
                      grad=no_registered_gradient, saves_inputs=False, saves_outputs=False, inputs="x: T",
                      doc="Distinct values of a 1-D tensor (first-appearance order) and each element's index.")
_UNIQUE_WITH_COUNTS = register_op("UniqueWithCounts", kernel=_unique_with_counts_kernel,
                                  infer=_unique_infer_n(3), num_outputs=3, grad=no_registered_gradient,
                                  saves_inputs=False, saves_outputs=False, inputs="x: T",
                                  doc="Unique, plus how many times each distinct value occurs.")


def _unique(op, x, out_idx, name):
    x = to_tensor(x)
    out_idx = dtypes.as_dtype(out_idx)
    if out_idx not in _INDEX_OUT:
        raise _attr_error(op.name, "out_idx", out_idx, _INDEX_OUT)
    return execute(op, (x,), {"out_idx": out_idx}, name=name)


def unique(x, out_idx=dtypes.int32, name=None):
    """``(y, idx)``: the distinct values of the 1-D ``x`` in order of first appearance, and for each
    element of ``x`` the position of its value in ``y`` (``x == gather(y, idx)``). Not differentiable.

    ``out_idx``: int32 (default) or int64. NaNs never compare equal, so each NaN is its own value.
    """
    return Unique(*_unique(_UNIQUE, x, out_idx, name))


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """``(y, idx, count)``: like :func:`unique`, plus how many times each value of ``y`` occurs."""
    return UniqueWithCounts(*_unique(_UNIQUE_WITH_COUNTS, x, out_idx, name))


# --------------------------------------------------------------------------------------
# LowerBound, UpperBound (searchsorted)
# --------------------------------------------------------------------------------------
def _bound_kernel(side):
    def make(xp):
        def k(sorted_inputs, values, out_type=dtypes.int32, T=None):  # noqa: N803
            if sorted_inputs.ndim != 2 or values.ndim != 2:
                raise _iae(f"sorted_inputs and values must be 2-D, got shapes {_fmt(sorted_inputs.shape)} and "
                           f"{_fmt(values.shape)}")
            if sorted_inputs.shape[0] != values.shape[0]:
                raise _iae(f"Leading dim_size of both tensors must match: sorted_sequence has "
                           f"{sorted_inputs.shape[0]} rows and values {values.shape[0]}")
            out = xp.empty(values.shape, dtype=out_type._np)
            for row in range(values.shape[0]):
                out[row] = xp.searchsorted(sorted_inputs[row], values[row], side=side)
            return out
        return k
    return make


def _bound_infer(ic):
    s, v = ic.shape(0), ic.shape(1)
    for label, t in (("sorted_inputs", s), ("values", v)):
        if t.rank is not None and t.rank != 2:
            ic.error(f"Shape must be rank 2 but is rank {t.rank}")
    if s.rank == 2 and v.rank == 2 and s[0] is not None and v[0] is not None and s[0] != v[0]:
        ic.error(f"Dimension 0 in both shapes must be equal, but are {s[0]} and {v[0]}")
    return [(ic.attrs.get("out_type", dtypes.int32), v if v.rank is not None else TensorShape([None, None]))]


_LOWER_BOUND = register_op("LowerBound", kernel=_bound_kernel("left"), infer=_bound_infer,
                           doc="Per row: the first position where each value could be inserted keeping order.")
_UPPER_BOUND = register_op("UpperBound", kernel=_bound_kernel("right"), infer=_bound_infer,
                           doc="Per row: the last position where each value could be inserted keeping order.")


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Where ``values`` would go in ``sorted_sequence`` (sorted along its innermost axis).

    All but the last dimension of the two tensors must match; the result has the
    shape of ``values``. ``side="left"``: the first valid position (``LowerBound``);
    ``"right"``: the last (``UpperBound``). Built as TF builds it: both tensors are
    reshaped to ``[rows, n]``, searched row by row, and reshaped back.
    """
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    seq = to_tensor(sorted_sequence)
    vals = to_tensor(values)
    op = _LOWER_BOUND if side == "left" else _UPPER_BOUND
    check_same_dtype(op.name, seq, vals)
    out_type = dtypes.as_dtype(out_type)
    if out_type not in _INDEX_OUT:
        raise _attr_error(op.name, "out_type", out_type, _INDEX_OUT)
    for label, t in (("sorted_sequence", seq), ("values", vals)):
        if t.shape.rank == 0:
            raise InvalidArgumentError(None, None, f"slice index -1 of dimension 0 out of bounds: searchsorted "
                                                   f"needs {label} of rank >= 1, got a scalar [Op:{op.name}]")
    seq_2d = array_ops.reshape(seq, [-1, _last_dim(seq)])
    vals_2d = array_ops.reshape(vals, [-1, _last_dim(vals)])
    out = execute(op, (seq_2d, vals_2d), {"out_type": out_type}, name=name)
    return array_ops.reshape(out, array_ops.static_or_dynamic_shape(vals))


def _last_dim(t):
    n = t.shape[-1] if t.shape.rank is not None else None
    return n if n is not None else array_ops.gather(array_ops.shape(t), array_ops.rank(t) - 1)
