"""``RowPartition``: how a flat list of values is split into rows.

A partition of ``nvals`` values into ``nrows`` rows has several equivalent encodings; TF
(and the engine) keeps ``row_splits`` as the canonical one and derives the others on
demand::

    row_splits     = [0, 4, 4, 7, 8, 8]     # row i is values[row_splits[i]:row_splits[i+1]]
    row_lengths    = [4, 0, 3, 1, 0]
    value_rowids   = [0, 0, 0, 0, 2, 2, 2, 3]
    row_starts     = [0, 4, 4, 7, 8]        (row_limits = [4, 4, 7, 8, 8])

A partition may also know a ``uniform_row_length`` (every row the same length): then the
dimension it partitions has a static size, and ``RaggedTensor.shape`` shows it.

Every encoding is computed with engine ops on the splits tensor, so all of this works
the same eagerly and inside ``tf.function``.
"""
import numpy as np

from ...framework import dtypes
from ...framework.context import ctx
from ...framework.errors import InvalidArgumentError
from ...framework.graph import constant_value
from ...framework.tensor import EagerTensor, Tensor, constant, convert_to_tensor
from .. import array_ops, control_flow_ops, math_ops, reduction_ops, sort_ops

__all__ = ["RowPartition", "convert_row_partition"]


def convert_row_partition(partition, name, dtype_hint=dtypes.int64):
    """A row-partitioning argument (splits, lengths, rowids, ...) as an int32/int64 tensor.

    Python lists become ``dtype_hint`` (int64); a tensor keeps its dtype, which must be an
    integer one: TF's ``ValueError`` "row_splits must have dtype int32 or int64" otherwise.
    """
    if isinstance(partition, Tensor):
        t = partition
    elif isinstance(partition, np.ndarray) and partition.dtype == np.int32:
        t = convert_to_tensor(partition)
    else:
        arr = np.asarray(partition)
        if arr.dtype.kind in "iu" or arr.size == 0:
            t = convert_to_tensor(arr.astype(dtype_hint.as_numpy_dtype))
        else:
            t = convert_to_tensor(partition)
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"{name} must have dtype int32 or int64")
    return t


def _eager(*tensors):
    return ctx.graph is None and all(type(t) is EagerTensor for t in tensors)


def graph_check(condition, message):
    """Inside a graph (``tf.function``): an ``Assert`` node that fails with ``message`` when ``condition``
    (a bool tensor) is not all True. The message is the engine's Assert's ("assertion failed: [...]")."""
    control_flow_ops.Assert(reduction_ops.reduce_all(condition), [constant(message)])


def _check_ge_zero(t, message):
    """TF's ``assert_non_negative`` failure text for ``t`` (eager only)."""
    v = t.numpy()
    if v.size and (v < 0).any():
        shown = "[" + ", ".join(f"'{x}'" for x in v.tolist()[:3]) + "]"
        raise InvalidArgumentError(None, None, f"{message}  \nCondition x >= 0 did not hold element-wise:\n"
                                               f"x (shape={tuple(v.shape)} dtype={t.dtype.name}) = \n{shown}")


def assert_equal_error(x, y, message=None, summarize=3):
    """TF's eager ``assert_equal`` failure for two NumPy vectors of one shape, or None if they are equal::

        Condition x == y did not hold.
        Indices of first 2 different values:
        [[1]
         [3]]
        Corresponding x values:
        ...
    """
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape:
        return InvalidArgumentError(None, None, (f"{message}\n" if message else "") +
                                    f"Condition x == y did not hold.\nx has shape {x.shape} and y has shape {y.shape}")
    differ = np.argwhere(x != y)
    if not differ.size:
        return None
    shown = differ[:summarize]
    where = tuple(shown.T)
    text = (f"Condition x == y did not hold.\nIndices of first {len(shown)} different values:\n{shown}\n"
            f"Corresponding x values:\n{x[where]}\nCorresponding y values:\n{y[where]}\n"
            f"First {min(summarize, x.size)} elements of x:\n{x.ravel()[:summarize]}\n"
            f"First {min(summarize, y.size)} elements of y:\n{y.ravel()[:summarize]}")
    return InvalidArgumentError(None, None, (f"{message}\n" if message else "") + text)


def _check_equal(x, y, message):
    """TF's ``assert_equal`` failure text for two scalars (eager only)."""
    if x != y:
        prefix = f"{message}\n" if message else ""
        raise InvalidArgumentError(None, None, f"{prefix}Condition x == y did not hold.\nFirst 1 elements of x:\n"
                                               f"[{x}]\nFirst 1 elements of y:\n[{y}]")


class RowPartition:
    """``tf.experimental.RowPartition``: the row structure of one ragged dimension.

    Build one with the ``from_*`` class methods; read any encoding back. Validation
    (``validate=True``) runs eagerly on eager tensors and raises TF's
    ``InvalidArgumentError`` with TF's message; inside a ``tf.function`` it adds ``Assert``
    nodes, as TF does, which raise ``InvalidArgumentError`` when the function runs (a
    deliberate difference: the message is the engine Assert's, "assertion failed: [...]").
    """

    __slots__ = ("_nrows", "_nvals", "_row_lengths", "_row_splits", "_uniform_row_length", "_value_rowids")

    def __init__(self, row_splits, row_lengths=None, value_rowids=None, nrows=None, uniform_row_length=None,
                 nvals=None, internal=False):
        if not internal:
            raise ValueError("RowPartition constructor is private; please use one of the factory methods "
                             "instead (e.g., RowPartition.from_row_lengths())")
        self._row_splits = row_splits
        self._row_lengths = row_lengths
        self._value_rowids = value_rowids
        self._nrows = nrows
        self._uniform_row_length = uniform_row_length
        self._nvals = nvals

    # ---- factories ----------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        splits = convert_row_partition(row_splits, "row_splits", dtype or dtype_hint or dtypes.int64)
        if splits.shape.rank is not None and splits.shape.rank != 1:
            raise ValueError(f"Shape {tuple(splits.shape.as_list())} must have rank 1")
        if splits.shape.rank == 1 and splits.shape[0] == 0:
            raise ValueError("row_splits tensor may not be empty.")
        msg = "Arguments to from_row_splits do not form a valid RaggedTensor:"
        if validate and _eager(splits):
            v = splits.numpy()
            _check_equal(int(v[0]), 0, msg + "zero")
            if v.size > 1:
                _check_ge_zero(convert_to_tensor(v[1:] - v[:-1]), msg + "monotonic.")
        elif validate:
            graph_check(math_ops.equal(splits[0], 0), msg + "zero")
            graph_check(math_ops.greater_equal(splits[1:] - splits[:-1], 0), msg + "monotonic.")
        return cls(splits, internal=True)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        lengths = convert_row_partition(row_lengths, "row_lengths", dtype or dtype_hint or dtypes.int64)
        if validate and _eager(lengths):
            _check_ge_zero(lengths, "Arguments to from_row_lengths do not form a valid RowPartition.")
        elif validate:
            graph_check(math_ops.greater_equal(lengths, 0),
                        "Arguments to from_row_lengths do not form a valid RowPartition.")
        zero = array_ops.zeros([1], dtype=lengths.dtype)
        splits = array_ops.concat([zero, reduction_ops.cumsum(lengths)], 0)
        return cls(splits, row_lengths=lengths, internal=True)

    @classmethod
    def from_value_rowids(cls, value_rowids, nrows=None, validate=True, dtype=None, dtype_hint=None):
        rowids = convert_row_partition(value_rowids, "value_rowids", dtype or dtype_hint or dtypes.int64)
        if nrows is None:
            n = array_ops.shape(rowids, out_type=rowids.dtype)[0]
            last = array_ops.gather(array_ops.concat([constant([-1], dtype=rowids.dtype), rowids], 0), n)
            nrows = last + 1
        else:
            nrows = convert_row_partition(nrows, "nrows", rowids.dtype)
            if nrows.dtype != rowids.dtype:
                nrows = math_ops.cast(nrows, rowids.dtype)
        if validate and _eager(rowids):
            v = rowids.numpy()
            if v.size > 1:
                _check_ge_zero(convert_to_tensor(v[1:] - v[:-1]),
                               "Arguments to from_value_rowids do not form a valid RowPartition.")
        elif validate:
            graph_check(math_ops.greater_equal(rowids[1:] - rowids[:-1], 0),
                        "Arguments to from_value_rowids do not form a valid RowPartition.")
        targets = array_ops.range(constant(0, dtype=rowids.dtype), nrows + 1, dtype=rowids.dtype)
        splits = sort_ops.searchsorted(rowids, targets, side="left", out_type=rowids.dtype)
        return cls(splits, value_rowids=rowids, nrows=nrows, internal=True)

    @classmethod
    def from_row_starts(cls, row_starts, nvals, validate=True, dtype=None, dtype_hint=None):
        starts = convert_row_partition(row_starts, "row_starts", dtype or dtype_hint or dtypes.int64)
        nvals = math_ops.cast(convert_to_tensor(nvals), starts.dtype)
        splits = array_ops.concat([starts, array_ops.reshape(nvals, [1])], 0)
        return cls.from_row_splits(splits, validate=validate)

    @classmethod
    def from_row_limits(cls, row_limits, validate=True, dtype=None, dtype_hint=None):
        limits = convert_row_partition(row_limits, "row_limits", dtype or dtype_hint or dtypes.int64)
        splits = array_ops.concat([array_ops.zeros([1], dtype=limits.dtype), limits], 0)
        return cls.from_row_splits(splits, validate=validate)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals, nrows=None, validate=True, dtype=None,
                                dtype_hint=None):
        length = convert_row_partition(uniform_row_length, "uniform_row_length", dtype or dtype_hint or dtypes.int64)
        nvals = math_ops.cast(convert_to_tensor(nvals), length.dtype)
        if nrows is None:
            safe = math_ops.maximum(length, constant(1, dtype=length.dtype))
            nrows = array_ops.where(math_ops.equal(length, 0), constant(0, dtype=length.dtype),
                                    math_ops.floordiv(nvals, safe))
        else:
            nrows = math_ops.cast(convert_to_tensor(nrows), length.dtype)
        splits = array_ops.range(constant(0, dtype=length.dtype), nrows + 1, dtype=length.dtype) * length
        return cls(splits, nrows=nrows, uniform_row_length=length, nvals=nvals, internal=True)

    # ---- encodings ----------------------------------------------------------------------
    @property
    def dtype(self):
        return self._row_splits.dtype

    def row_splits(self):
        return self._row_splits

    def row_lengths(self):
        if self._row_lengths is None:
            s = self._row_splits
            self._row_lengths = s[1:] - s[:-1]
        return self._row_lengths

    def row_starts(self):
        return self._row_splits[:-1]

    def row_limits(self):
        return self._row_splits[1:]

    def nrows(self):
        if self._nrows is None:
            self._nrows = array_ops.shape(self._row_splits, out_type=self.dtype)[0] - 1
        return self._nrows

    def nvals(self):
        return self._row_splits[-1]

    def value_rowids(self):
        """Row index of each value: ``[0, 0, 0, 0, 2, 2, 2, 3]`` for splits ``[0, 4, 4, 7, 8, 8]``."""
        if self._value_rowids is None:
            s = self._row_splits
            positions = array_ops.range(constant(0, dtype=s.dtype), s[-1], dtype=s.dtype)
            self._value_rowids = sort_ops.searchsorted(s[1:], positions, side="right", out_type=s.dtype)
        return self._value_rowids

    def uniform_row_length(self):
        return self._uniform_row_length

    def static_nrows(self):
        n = self._row_splits.shape[0] if self._row_splits.shape.rank == 1 else None
        return None if n is None else n - 1

    def static_uniform_row_length(self):
        u = self._uniform_row_length
        if u is None:
            return None
        if type(u) is EagerTensor:
            return int(u.numpy())
        known = constant_value(u)
        return None if known is None else int(known)

    def with_dtype(self, dtype):
        if dtype == self.dtype:
            return self
        cast = (lambda t: None if t is None else math_ops.cast(t, dtype))
        return RowPartition(cast(self._row_splits), cast(self._row_lengths), cast(self._value_rowids),
                            cast(self._nrows), cast(self._uniform_row_length), cast(self._nvals), internal=True)

    def __repr__(self):
        if _eager(self._row_splits):
            return f"tf.RowPartition(row_splits={self._row_splits.numpy()})"
        return f"tf.RowPartition(row_splits={self._row_splits})"
