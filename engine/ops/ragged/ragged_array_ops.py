"""Shape-changing ops on RaggedTensors (TF: ``ragged_concat_ops``, ``ragged_array_ops``,
``ragged_functional_ops``, ``ragged_where_op``): ``concat``, ``stack``, ``tile``,
``boolean_mask``, ``where``, ``reverse``, ``map_flat_values``, ``map_fn``.

Each is index arithmetic on the row splits plus dense ops on the values, so gradients flow
to the values. Dense arguments mixed with ragged ones are converted with
``RaggedTensor.from_tensor`` (``tf.concat([digits, [[5, 3]]], axis=0)``).
"""
import numpy as np

from ...framework import dtypes
from ...framework.errors import InvalidArgumentError
from ...framework.tensor import EagerTensor, Tensor, convert_to_tensor
from .. import array_ops, control_flow_ops, math_ops, segment_ops, tensor_array_ops
from .ragged_gather_ops import gather
from .ragged_gather_ops import range as ragged_range
from .ragged_tensor import RaggedTensor

__all__ = ["boolean_mask", "concat", "map_flat_values", "map_fn", "reverse", "stack", "tile", "where"]


def _as_ragged(value, like, ragged_rank=1):
    if isinstance(value, RaggedTensor):
        return value
    t = convert_to_tensor(value, dtype_hint=like.dtype) if not isinstance(value, Tensor) else value
    if t.dtype != like.dtype and not isinstance(value, Tensor):
        t = convert_to_tensor(value, dtype=like.dtype)
    return RaggedTensor.from_tensor(t, ragged_rank=min(ragged_rank, max(t.shape.rank - 1, 1)),
                                    row_splits_dtype=like.row_splits_dtype)


def _first_ragged(values):
    return next(v for v in values if isinstance(v, RaggedTensor))


def _eager_nrows(rt):
    s = rt.row_splits
    return int(s.shape[0]) - 1 if type(s) is EagerTensor else None


def _check_nrows(rts):
    """Equal row counts, or TF's InvalidArgumentError (eager only)."""
    counts = [_eager_nrows(r) for r in rts]
    for i, n in enumerate(counts[1:], start=1):
        if counts[0] is not None and n is not None and n != counts[0]:
            raise InvalidArgumentError(
                None, None, f"Input tensors at index 0 (=x) and {i} (=y) have incompatible shapes.\n"
                            f"Condition x == y did not hold.\nFirst 1 elements of x:\n[{counts[0]}]\n"
                            f"First 1 elements of y:\n[{n}]")


def _concat_rows(rts):
    """Rows of every input, one after another (axis 0)."""
    sdt = rts[0].row_splits_dtype
    values = [r.values for r in rts]
    if any(isinstance(v, RaggedTensor) for v in values):
        merged = _concat_rows([v if isinstance(v, RaggedTensor) else _as_ragged(v, rts[0].values) for v in values])
    else:
        merged = array_ops.concat(values, 0)
    splits, offset = [rts[0].row_splits], rts[0].row_splits[-1]
    for r in rts[1:]:
        splits.append(r.row_splits[1:] + offset)
        offset = offset + r.row_splits[-1]
    return RaggedTensor.from_row_splits(merged, math_ops.cast(array_ops.concat(splits, 0), sdt), validate=False)


def _stack_interleaved(rts):
    """``stack(rts, axis=1)``: row ``i`` of the result is ``[rts[0][i], rts[1][i], ...]``."""
    _check_nrows(rts)
    k = len(rts)
    sdt = rts[0].row_splits_dtype
    everything = _concat_rows(rts)
    n = rts[0].nrows()
    order = array_ops.reshape(array_ops.transpose(array_ops.reshape(
        array_ops.range(array_ops.zeros([], dtype=sdt), n * k, dtype=sdt), array_ops.stack([k, n]))), [-1])
    return RaggedTensor.from_uniform_row_length(gather(everything, order), k, nrows=n, validate=False)


def concat(values, axis, name=None):
    """``tf.concat`` with RaggedTensors: axis 0 appends rows; axis 1 joins each row with the same
    row of the others (equal row counts: TF's InvalidArgumentError otherwise)."""
    values = list(values)
    like = _first_ragged(values)
    rank = like.shape.rank
    if isinstance(axis, Tensor):
        axis = int(axis.numpy())
    if rank is not None and axis < 0:
        axis += rank
    rts = [_as_ragged(v, like, like.ragged_rank) for v in values]
    if len(rts) == 1:
        return rts[0]
    if axis == 0:
        return _concat_rows(rts)
    if axis == 1:
        return _stack_interleaved(rts).merge_dims(1, 2)
    _check_nrows(rts)   # (axis > 1: the rows must be partitioned alike; the values are joined)
    inner = [r.values for r in rts]
    if any(isinstance(v, RaggedTensor) for v in inner):
        return rts[0].with_values(concat(inner, axis - 1))
    return rts[0].with_values(array_ops.concat(inner, axis - 1))


def stack(values, axis=0, name=None):
    """``tf.ragged.stack`` / ``tf.stack`` with RaggedTensors: a new dimension at ``axis`` (0 or 1)."""
    values = list(values)
    like = _first_ragged(values) if any(isinstance(v, RaggedTensor) for v in values) else None
    if like is None:   # dense tensors (of different lengths): rows of one RaggedTensor
        dense = [convert_to_tensor(v) for v in values]
        if axis != 0 or any(d.shape.rank == 0 for d in dense):
            return array_ops.stack(dense, axis)
        lengths = array_ops.stack([array_ops.shape(d, out_type=dtypes.int64)[0] for d in dense])
        return RaggedTensor.from_row_lengths(array_ops.concat(dense, 0), lengths, validate=False)
    rts = [_as_ragged(v, like, like.ragged_rank) for v in values]
    if axis < 0 and like.shape.rank is not None:
        axis += like.shape.rank + 1
    if axis == 0:
        lengths = array_ops.stack([math_ops.cast(r.nrows(), like.row_splits_dtype) for r in rts])
        return RaggedTensor.from_row_lengths(_concat_rows(rts), lengths, validate=False)
    if axis == 1:
        return _stack_interleaved(rts)
    raise NotImplementedError("stack of RaggedTensors along axis > 1")


def tile(input, multiples, name=None):
    """``tf.tile`` of a 2-D RaggedTensor: each row repeated ``multiples[1]`` times in place, then the
    rows ``multiples[0]`` times."""
    rt = input
    multiples = [int(m) for m in (multiples.numpy() if isinstance(multiples, Tensor) else multiples)]
    if rt.ragged_rank != 1 or len(multiples) != rt.shape.rank or any(m != 1 for m in multiples[2:]):
        raise NotImplementedError("tile of a RaggedTensor: 2-D ragged dimension only")
    sdt = rt.row_splits_dtype
    m0, m1 = multiples[0], multiples[1]
    lengths = rt.row_lengths()
    if m1 != 1:
        zero = array_ops.zeros_like(lengths)
        within = ragged_range(zero, lengths * m1, 1, dtype=sdt, row_splits_dtype=sdt)
        safe = math_ops.maximum(array_ops.gather(lengths, within.value_rowids()), 1)
        index = math_ops.floormod(within.values, safe) + array_ops.gather(rt.row_starts(), within.value_rowids())
        rt = RaggedTensor.from_row_splits(array_ops.gather(rt.values, index), within.row_splits, validate=False)
    if m0 != 1:
        rt = gather(rt, array_ops.tile(array_ops.range(rt.nrows()), [m0]))
    return rt


def boolean_mask(data, mask, name=None):
    """``tf.ragged.boolean_mask``: keep the values where ``mask`` is True, keeping the rows.

    Masking a dense ``[2, 3]`` tensor with a ``[2, 3]`` mask gives a RaggedTensor (each row keeps
    its own count); a ragged mask must have ``data``'s row partition.
    """
    if not isinstance(mask, RaggedTensor):
        mask = convert_to_tensor(mask)
        if mask.shape.rank == 1:
            return array_ops.boolean_mask(data, mask) if not isinstance(data, RaggedTensor) else gather(
                data, array_ops.reshape(array_ops.where(mask), [-1]))
        mask = RaggedTensor.from_tensor(mask, ragged_rank=mask.shape.rank - 1)
    if not isinstance(data, RaggedTensor):
        data = RaggedTensor.from_tensor(convert_to_tensor(data), ragged_rank=mask.ragged_rank,
                                        row_splits_dtype=mask.row_splits_dtype)
    if isinstance(mask.values, RaggedTensor):
        return data.with_values(boolean_mask(data.values, mask.values))
    kept = boolean_mask(data.values, mask.values)
    counts = segment_ops.unsorted_segment_sum(math_ops.cast(mask.values, mask.row_splits_dtype),
                                              mask.value_rowids(), mask.nrows())
    return RaggedTensor.from_row_lengths(kept, counts, validate=False)


def where(condition, x=None, y=None, name=None):
    """``tf.where(ragged_condition, x, y)``: elementwise over matching row partitions."""
    if x is None and y is None:
        raise NotImplementedError("tf.where(condition) with a RaggedTensor condition")
    parts = [condition, x, y]
    like = _first_ragged(parts)
    flat = [p.flat_values if isinstance(p, RaggedTensor) else convert_to_tensor(p) for p in parts]
    return like.with_flat_values(array_ops.where(*flat))


def reverse(tensor, axis, name=None):
    """``tf.reverse``: reversing axis 0 reverses the rows, axis 1 the values inside each row."""
    rt = tensor
    axes = [int(a) for a in (axis.numpy() if isinstance(axis, Tensor) else axis)]
    for a in axes:
        if a < 0 and rt.shape.rank is not None:
            a += rt.shape.rank
        if a == 0:
            rt = rt[::-1]
        elif a == 1:
            rt = rt[:, ::-1]
        else:
            rt = rt.with_values(reverse(rt.values, [a - 1]) if isinstance(rt.values, RaggedTensor)
                                else array_ops.reverse(rt.values, [a - 1]))
    return rt


def _splits_equal(a, b):
    sa, sb = a.nested_row_splits, b.nested_row_splits
    if len(sa) != len(sb):
        return False
    for x, y in zip(sa, sb):
        if type(x) is EagerTensor and type(y) is EagerTensor and (
                x.shape != y.shape or not np.array_equal(x.numpy(), y.numpy())):
            return False
    return True


def map_flat_values(op, *args, **kwargs):
    """``tf.ragged.map_flat_values(op, *args)``: ``op`` on the ``flat_values`` of every RaggedTensor
    argument (they must share one row partition), the result with that partition."""
    ragged = []

    def swap(v):
        if isinstance(v, RaggedTensor):
            ragged.append(v)
            return v.flat_values
        if isinstance(v, (list, tuple)):
            return type(v)(swap(x) for x in v)
        if isinstance(v, dict):
            return {k: swap(x) for k, x in v.items()}
        return v
    args = swap(list(args))
    kwargs = swap(kwargs)
    if not ragged:
        return op(*args, **kwargs)
    for other in ragged[1:]:
        if not _splits_equal(ragged[0], other):
            raise ValueError("Input RaggedTensors' flat_values must all have the same outer-dimension size. "
                             "Got sizes: " + str({r.flat_values.shape[0] for r in ragged}))
    return ragged[0].with_flat_values(op(*args, **kwargs))


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """``tf.map_fn`` over the rows of a RaggedTensor: ``fn`` on each row, results stacked as a
    RaggedTensor (rows of different lengths) or a Tensor. The engine
    runs row by row in Python when the number of rows is known (eagerly, always), and as a
    ``tf.while_loop`` over a ``TensorArray`` inside a traced function otherwise."""
    n = elems.shape[0]
    if n is None and elems._is_eager():
        n = int(elems.nrows().numpy())
    spec = fn_output_signature if fn_output_signature is not None else dtype
    wants_dense = spec is not None and not hasattr(spec, "ragged_rank")
    if n is None:   # inside a graph, rows unknown: a while loop writing each result to a TensorArray
        return _map_fn_loop(fn, elems, spec, wants_dense)
    rows = [fn(elems[i]) for i in range(n)]
    if not rows:
        return elems
    if wants_dense and all(isinstance(r, Tensor) for r in rows):
        return array_ops.stack(rows)
    return stack(rows) if all(isinstance(r, Tensor) and r.shape.rank == 1 for r in rows) else stack(
        [r if isinstance(r, RaggedTensor) else RaggedTensor.from_tensor(r) for r in rows])


def _map_fn_loop(fn, elems, spec, wants_dense):
    """``map_fn`` over the rows of a RaggedTensor with an unknown number of rows (a traced function):
    ``fn(elems[i])`` in a ``tf.while_loop``; rank-1 results become the rows of a RaggedTensor (their
    values concatenated, their lengths recorded), other results are stacked (``fn_output_signature``
    a dtype or TensorSpec)."""
    out_dtype = elems.dtype if spec is None else dtypes.as_dtype(getattr(spec, "dtype", spec))
    nrows = elems.nrows(out_type=dtypes.int32)
    values = tensor_array_ops.TensorArray(out_dtype, size=nrows, infer_shape=wants_dense)
    lengths = tensor_array_ops.TensorArray(elems.row_splits_dtype, size=nrows)

    def body(i, values, lengths):
        row = fn(elems[i])
        if not wants_dense:
            lengths = lengths.write(i, array_ops.shape(row, out_type=elems.row_splits_dtype)[0])
        return i + 1, values.write(i, row), lengths

    _, values, lengths = control_flow_ops.while_loop(lambda i, *_: i < nrows, body,
                                                     [convert_to_tensor(0), values, lengths])
    if wants_dense:
        return values.stack()
    return RaggedTensor.from_row_lengths(values.concat(), lengths.stack(), validate=False)
