"""``tf.RaggedTensor``: a tensor whose rows have different lengths.

A RaggedTensor is a ``values`` tensor (the rows' elements, concatenated) plus a
:class:`~engine.ops.ragged.row_partition.RowPartition` saying where each row starts::

    rt = tf.RaggedTensor.from_row_splits(values=[3, 1, 4, 1, 5, 9, 2], row_splits=[0, 4, 4, 6, 7])
    print(rt)                 # <tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9], [2]]>
    rt.shape                  # TensorShape([4, None]): the ragged dimension has no size

``values`` may itself be ragged: a RaggedTensor with ``ragged_rank`` k is k partitions
over ``flat_values``, a plain tensor (``nested_row_splits`` lists them, outermost first).
Every method here is made of ordinary engine ops on those tensors, so a RaggedTensor
works eagerly and inside ``tf.function``, and gradients flow to ``flat_values``.

It is a :class:`~engine.framework.composite_tensor.CompositeTensor`: its
:class:`RaggedTensorSpec` takes it apart into ``[flat_values, *nested_row_splits]`` and
puts it back, which is how ``tf.nest`` (``expand_composites=True``), ``tf.function`` and
``tf.data`` carry it.

Where the engine differs from TF 2.21 (deliberately): inside ``tf.function``,
``validate=True`` adds ``Assert`` nodes whose message is the engine Assert's ("assertion
failed: [...]"), not TF's ``assert_equal`` text; ``tf.newaxis`` in ``rt[...]`` is not
supported.
"""
import numpy as np

from ...framework import dtypes
from ...framework.composite_tensor import CompositeTensor
from ...framework.errors import InvalidArgumentError
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import EagerTensor, Tensor, _Reference, convert_to_tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ...framework.tensor_spec import TensorSpec
from ...framework.type_spec import TypeSpec
from .. import array_ops, math_ops, reduction_ops
from .row_partition import RowPartition, convert_row_partition, graph_check

__all__ = ["RaggedTensor", "RaggedTensorSpec", "convert_to_tensor_or_ragged_tensor", "is_ragged", "merge_dims"]


def is_ragged(value):
    """True for a ``tf.RaggedTensor`` (TF: ``ragged_tensor.is_ragged``)."""
    return isinstance(value, RaggedTensor)


def convert_to_tensor_or_ragged_tensor(value, dtype=None, name=None):
    """A RaggedTensor as it is; anything else through ``tf.convert_to_tensor``."""
    if isinstance(value, RaggedTensor):
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for "
                             f"RaggedTensor with dtype {value.dtype.name}: {value}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def _convert_values(values):
    if isinstance(values, RaggedTensor):
        return values
    return convert_to_tensor(values)


def _eager_tensor(t):
    return type(t) is EagerTensor


class RaggedTensor(CompositeTensor):
    """A tensor with one or more ragged (variable-length) dimensions. Build one with
    ``tf.ragged.constant`` or a ``from_*`` class method, never the constructor."""

    __slots__ = ("_row_partition", "_values")

    def __init__(self, values, row_partition, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods "
                             "instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_partition = row_partition

    # ---- factories ----------------------------------------------------------------------
    @classmethod
    def _from_row_partition(cls, values, row_partition, validate=True):
        values = _convert_values(values)
        if isinstance(values, RaggedTensor) and values.row_splits.dtype != row_partition.dtype:
            raise ValueError("dtype mismatch: values.row_splits.dtype and row_partition.dtype must match "
                             f"({values.row_splits.dtype!r} vs {row_partition.dtype!r}); use "
                             "RaggedTensor.with_row_splits_dtype() to convert")
        if isinstance(values, Tensor) and values.shape.rank == 0:
            raise ValueError("values must have rank at least 1")
        if validate and _eager_tensor(row_partition.row_splits()):
            nvals = _nrows_of(values)
            last = int(row_partition.row_splits().numpy()[-1])
            if nvals is not None and last != nvals:
                raise InvalidArgumentError(
                    None, None, "Arguments to _from_row_partition do not form a valid RaggedTensor\n"
                                f"Condition x == y did not hold.\nFirst 1 elements of x:\n[{last}]\n"
                                f"First 1 elements of y:\n[{nvals}]")
        elif validate:
            splits = row_partition.row_splits()
            graph_check(math_ops.equal(splits[-1], _nvals_tensor(values, splits.dtype)),
                        "Arguments to _from_row_partition do not form a valid RaggedTensor")
        return cls(values, row_partition, internal=True)

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows ``values[row_splits[i]:row_splits[i + 1]]``.

        ``validate`` checks (eagerly) that the splits start at 0, never decrease, and end at
        ``len(values)``: TF's ``InvalidArgumentError`` otherwise."""
        values = _convert_values(values)
        hint = values.row_splits.dtype if isinstance(values, RaggedTensor) else dtypes.int64
        partition = RowPartition.from_row_splits(row_splits, validate=validate, dtype_hint=hint)
        return cls._from_row_partition(values, partition, validate)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Consecutive rows of lengths ``row_lengths`` (``[4, 0, 2, 1]``)."""
        values = _convert_values(values)
        hint = values.row_splits.dtype if isinstance(values, RaggedTensor) else dtypes.int64
        partition = RowPartition.from_row_lengths(row_lengths, validate=validate, dtype_hint=hint)
        return cls._from_row_partition(values, partition, validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Value ``i`` goes to row ``value_rowids[i]`` (sorted); ``nrows`` adds empty rows at the end."""
        values = _convert_values(values)
        hint = values.row_splits.dtype if isinstance(values, RaggedTensor) else dtypes.int64
        rowids = convert_row_partition(value_rowids, "value_rowids", hint)
        nvals = _nrows_of(values)
        if validate and rowids.shape.rank == 1 and rowids.shape[0] is not None and nvals is not None \
                and rowids.shape[0] != nvals:
            raise ValueError(f"Shapes ({nvals},) and ({rowids.shape[0]},) are incompatible")
        partition = RowPartition.from_value_rowids(rowids, nrows, validate=validate)
        return cls._from_row_partition(values, partition, validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Rows starting at ``row_starts`` (the last row runs to the end of ``values``)."""
        values = _convert_values(values)
        nvals = _nvals_tensor(values)
        partition = RowPartition.from_row_starts(row_starts, nvals, validate=validate)
        return cls._from_row_partition(values, partition, validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Rows ending at ``row_limits`` (the first row starts at 0)."""
        values = _convert_values(values)
        partition = RowPartition.from_row_limits(row_limits, validate=validate)
        return cls._from_row_partition(values, partition, validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True, name=None):
        """Rows of one length: a *uniform* (non-ragged) dimension, with a static size in ``shape``."""
        values = _convert_values(values)
        hint = values.row_splits.dtype if isinstance(values, RaggedTensor) else dtypes.int64
        partition = RowPartition.from_uniform_row_length(uniform_row_length, _nvals_tensor(values, hint),
                                                         nrows=nrows, validate=validate, dtype_hint=hint)
        return cls._from_row_partition(values, partition, validate)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """One ``from_row_splits`` per entry of ``nested_row_splits`` (outermost first)."""
        if isinstance(nested_row_splits, Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None, name=None,
                                 validate=True):
        nested_nrows = [None] * len(nested_value_rowids) if nested_nrows is None else list(nested_nrows)
        result = flat_values
        for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
            result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=dtypes.int64):
        """A dense tensor's rows, cut at ``lengths`` or where the trailing ``padding`` starts.

        Without either, every row is kept whole (uniform rows). ``ragged_rank`` > 1 (without
        ``lengths``/``padding``) makes the first ``ragged_rank`` dimensions uniform partitions.
        """
        return _from_tensor(cls, tensor, lengths, padding, ragged_rank, dtypes.as_dtype(row_splits_dtype))

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64):
        """A 2-D ``SparseTensor`` (ragged-right: each row's indices are 0, 1, ...) as a RaggedTensor."""
        indices, values, dense_shape = st_input.indices, st_input.values, st_input.dense_shape
        if indices.shape.rank == 2 and indices.shape[1] is not None and indices.shape[1] != 2:
            raise ValueError("rank(st_input) must be 2.")
        rowids = math_ops.cast(indices[:, 0], row_splits_dtype)
        nrows = math_ops.cast(dense_shape[0], row_splits_dtype)
        return cls.from_value_rowids(values, rowids, nrows, validate=False)

    # ---- components ---------------------------------------------------------------------
    @property
    def values(self):
        """The concatenated rows (a Tensor, or a RaggedTensor when ``ragged_rank`` > 1)."""
        return self._values

    @property
    def row_splits(self):
        """The row-split indices: row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``."""
        return self._row_partition.row_splits()

    @property
    def flat_values(self):
        """The innermost values: a plain Tensor."""
        rt = self._values
        while isinstance(rt, RaggedTensor):
            rt = rt._values
        return rt

    @property
    def nested_row_splits(self):
        """The row splits of every ragged dimension, outermost first (a tuple)."""
        out, rt = [self.row_splits], self._values
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self):
        """The number of partitioned (ragged or uniform) dimensions: ``len(nested_row_splits)``."""
        values = self._values
        return values.ragged_rank + 1 if isinstance(values, RaggedTensor) else 1

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self):
        return self.row_splits.dtype

    @property
    def shape(self):
        """The static shape: ``TensorShape([nrows, None, ...])``, ``None`` for ragged dimensions."""
        nrows = self._row_partition.static_nrows()
        ncols = self._row_partition.static_uniform_row_length()
        inner = self._values.shape
        if inner.rank is None:
            return TensorShape([nrows, ncols]).concatenate(TensorShape(None))
        return TensorShape([nrows, ncols] + inner.as_list()[1:])

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self.shape.rank

    @property
    def _type_spec(self):
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank, self.row_splits_dtype)

    # ---- row-partition encodings -------------------------------------------------------
    def row_lengths(self, axis=1, name=None):
        """The length of each row (``axis=1``), or of each row of a nested dimension (``axis>1``)."""
        if axis == 0:
            return self._row_partition.nrows()
        if axis == 1:
            return self._row_partition.row_lengths()
        return self.with_values(self._values.row_lengths(axis - 1))

    def value_rowids(self, name=None):
        return self._row_partition.value_rowids()

    def nested_value_rowids(self, name=None):
        out, rt = [self.value_rowids()], self._values
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt._values
        return tuple(out)

    def nested_row_lengths(self, name=None):
        out, rt = [self.row_lengths()], self._values
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_lengths())
            rt = rt._values
        return tuple(out)

    def nrows(self, out_type=None, name=None):
        """The number of rows (a scalar of ``row_splits_dtype``, or ``out_type``)."""
        n = self._row_partition.nrows()
        return n if out_type is None or out_type == n.dtype else math_ops.cast(n, out_type)

    def row_starts(self, name=None):
        return self._row_partition.row_starts()

    def row_limits(self, name=None):
        return self._row_partition.row_limits()

    def uniform_row_length(self):
        return self._row_partition.uniform_row_length()

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape holding this RaggedTensor: ``[nrows, max row length, ...]``."""
        out_type = self.row_splits_dtype if out_type is None else dtypes.as_dtype(out_type)
        nrows = math_ops.cast(self.nrows(), out_type)
        lengths = self.row_lengths()
        zero = array_ops.zeros([1], dtype=lengths.dtype)
        ncols = math_ops.cast(_reduce_max(array_ops.concat([zero, lengths], 0)), out_type)
        if isinstance(self._values, RaggedTensor):
            inner = self._values.bounding_shape(out_type=out_type)[1:]
        else:
            inner = array_ops.shape(self._values, out_type=out_type)[1:]
        shape = array_ops.concat([array_ops.stack([nrows, ncols]), inner], 0)
        return shape if axis is None else array_ops.gather(shape, axis)

    # ---- transforms ---------------------------------------------------------------------
    def with_values(self, new_values):
        """The same row partition over ``new_values`` (same outer length)."""
        new_values = _convert_values(new_values)
        if isinstance(new_values, RaggedTensor) and new_values.row_splits_dtype != self.row_splits_dtype:
            new_values = new_values.with_row_splits_dtype(self.row_splits_dtype)
        return RaggedTensor(new_values, self._row_partition, internal=True)

    def with_flat_values(self, new_values):
        """Every partition kept, over new ``flat_values``."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        dtype = dtypes.as_dtype(dtype)
        if dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"dtype must be int32 or int64, not {dtype!r}")
        if dtype == self.row_splits_dtype:
            return self
        values = self._values
        if isinstance(values, RaggedTensor):
            values = values.with_row_splits_dtype(dtype)
        return RaggedTensor(values, self._row_partition.with_dtype(dtype), internal=True)

    def merge_dims(self, outer_axis, inner_axis):
        """Merge dimensions ``outer_axis..inner_axis`` into one (``merge_dims(0, 1)`` flattens the rows)."""
        return merge_dims(self, outer_axis, inner_axis)

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor, each row padded with ``default_value`` (zero) to the bounding shape or ``shape``."""
        return _to_tensor(self, default_value, None if shape is None else as_shape(shape))

    def to_sparse(self, name=None):
        """A ``tf.SparseTensor`` with one entry per value (row-major indices), shaped as the bounding shape."""
        if self.flat_values.shape.rank != 1:
            raise NotImplementedError("to_sparse of a RaggedTensor whose flat_values have rank > 1")
        indices = math_ops.cast(_sparse_indices(self), dtypes.int64)
        return SparseTensor(indices, self.flat_values, self.bounding_shape(out_type=dtypes.int64))

    # ---- eager values -------------------------------------------------------------------
    def _is_eager(self):
        rt = self
        while isinstance(rt, RaggedTensor):
            if not _eager_tensor(rt.row_splits):
                return False
            rt = rt._values
        return _eager_tensor(rt)

    def numpy(self):
        """The values as NumPy: rows of different lengths are an object array of row arrays."""
        if not self._is_eager():
            raise ValueError("RaggedTensor.numpy() is only supported in eager mode.")
        values = self._values.numpy()
        splits = self.row_splits.numpy()
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        has_variable_length_rows = any(len(row) != len(rows[0]) for row in rows)
        return np.array(rows, dtype=np.object_ if has_variable_length_rows else None)

    def to_list(self):
        """The values as a nested Python list (strings as ``bytes``, as in TF)."""
        if not self._is_eager():
            raise ValueError("RaggedTensor.to_list() is only supported in eager mode.")
        values = self._values.to_list() if isinstance(self._values, RaggedTensor) else self._values.numpy().tolist()
        splits = self.row_splits.numpy().tolist()
        return [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def __repr__(self):
        """As TF 2.21 (``print`` shows the same): NumPy's layout of :meth:`numpy`, commas between
        elements, so uniform rows line up (``[[1, 2],\n [3, 4]]``)."""
        if self._is_eager():
            with np.printoptions(formatter={"all": _formatter}):
                value_text = _formatter(self.numpy())
            return f"<tf.RaggedTensor {value_text}>"
        return f"tf.RaggedTensor(values={self._values}, row_splits={self.row_splits})"

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    def __len__(self):
        n = self.shape[0]
        if n is None:
            raise TypeError("len is not well defined for a RaggedTensor with an unknown number of rows.")
        return n

    def __iter__(self):
        if not self._is_eager():
            raise ValueError("RaggedTensor.__iter__() is only supported in eager mode.")
        return iter([self[i] for i in range(int(self.nrows().numpy()))])

    def consumers(self):
        return []

    def ref(self):
        return _Reference(self)

    __hash__ = None   # (``==`` is elementwise, as for tf.Tensor; operators are installed by ragged_operators)


def _formatter(x):
    """TF's ragged repr: NumPy elements separated by commas."""
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())
    return str(x)


def _sparse_indices(rt):
    """``[row, position, ...]`` of every flat value, in row-major order."""
    rowids = rt.value_rowids()
    positions = math_ops.subtract(array_ops.range(array_ops.zeros([], dtype=rowids.dtype), rt.row_splits[-1],
                                                  dtype=rowids.dtype), array_ops.gather(rt.row_splits, rowids))
    if not isinstance(rt.values, RaggedTensor):
        return array_ops.stack([rowids, positions], axis=1)
    inner = _sparse_indices(rt.values)
    owner = inner[:, 0]
    return array_ops.concat([array_ops.expand_dims(array_ops.gather(rowids, owner), 1),
                             array_ops.expand_dims(array_ops.gather(positions, owner), 1), inner[:, 1:]], 1)


def _reduce_max(t):
    return reduction_ops.reduce_max(t)


def _nrows_of(values):
    """The static number of rows of a Tensor or RaggedTensor (None if unknown or not eager)."""
    if isinstance(values, RaggedTensor):
        splits = values.row_splits
        if _eager_tensor(splits):
            return int(splits.shape[0]) - 1
        return values.shape[0]
    return values.shape[0] if values.shape.rank else None


def _nvals_tensor(values, dtype=dtypes.int64):
    if isinstance(values, RaggedTensor):
        return math_ops.cast(values.nrows(), dtype)
    return array_ops.shape(values, out_type=dtype)[0]


# --------------------------------------------------------------------------------------
# Dense <-> ragged, and merging dimensions (plain ops: differentiable through ``values``)
# --------------------------------------------------------------------------------------
def _to_tensor(rt, default_value, shape):
    """``rt.to_tensor``: one ``Gather`` from ``values`` plus one padding row.

    Cell ``(r, c)`` of the result takes ``values[row_starts[r] + c]`` when ``c`` is inside row
    ``r``, else the padding row (index ``nvals``). Rows and columns past ``shape`` are dropped.
    """
    values = rt.values
    inner_shape = None
    if shape is not None and shape.rank is not None:
        inner_shape = TensorShape([None]).concatenate(shape[2:])
    if isinstance(values, RaggedTensor):
        values = _to_tensor(values, default_value, inner_shape)
    dtype = values.dtype
    if default_value is None:
        default_value = np.zeros([], dtype=dtype.as_numpy_dtype) if dtype != dtypes.string else b""
    default_value = convert_to_tensor(default_value, dtype=dtype)
    sdt = rt.row_splits_dtype
    inner = array_ops.shape(values, out_type=sdt)[1:]
    lengths = rt.row_lengths()
    starts = rt.row_starts()
    nrows = rt.nrows()
    nvals = array_ops.shape(values, out_type=sdt)[0]
    zero = array_ops.zeros([1], dtype=sdt)
    nrows_out = nrows if shape is None or shape.rank is None or shape[0] is None else \
        convert_to_tensor(np.asarray(shape[0], dtype=sdt.as_numpy_dtype))
    if shape is None or shape.rank is None or shape[1] is None:
        ncols = reduction_ops.reduce_max(array_ops.concat([zero, lengths], 0))
    else:
        ncols = convert_to_tensor(np.asarray(shape[1], dtype=sdt.as_numpy_dtype))
    r = array_ops.range(array_ops.zeros([], dtype=sdt), nrows_out, dtype=sdt)
    c = array_ops.range(array_ops.zeros([], dtype=sdt), ncols, dtype=sdt)
    r_in = math_ops.minimum(r, nrows)   # rows past nrows read the extra 0-length entry
    lengths_r = array_ops.gather(array_ops.concat([lengths, zero], 0), r_in)
    starts_r = array_ops.gather(array_ops.concat([starts, zero], 0), r_in)
    inside = math_ops.less(array_ops.expand_dims(c, 0), array_ops.expand_dims(lengths_r, 1))
    position = array_ops.expand_dims(starts_r, 1) + array_ops.expand_dims(c, 0)
    index = array_ops.where(inside, position, array_ops.fill(array_ops.shape(position), nvals))
    pad = array_ops.broadcast_to(default_value, array_ops.concat([array_ops.ones([1], dtype=sdt), inner], 0))
    padded = array_ops.concat([values, math_ops.cast(pad, dtype)], 0)
    dense = array_ops.gather(padded, array_ops.reshape(index, [-1]))
    out_shape = array_ops.concat([array_ops.stack([nrows_out, ncols]), inner], 0)
    result = array_ops.reshape(dense, out_shape)
    if shape is not None and shape.rank is not None:
        static = TensorShape([shape[0], shape[1]]).concatenate(values.shape[1:])
        if not isinstance(result, EagerTensor):
            result.set_shape(static)
    return result


def _from_tensor(cls, tensor, lengths, padding, ragged_rank, row_splits_dtype):
    if lengths is not None and padding is not None:
        raise ValueError("Specify argument `lengths` or `padding`, but not both.")
    if not isinstance(ragged_rank, int):
        raise TypeError(f"ragged_rank expected int, got {ragged_rank!r}")
    if ragged_rank <= 0:
        raise ValueError(f"ragged_rank must be greater than 0; got {ragged_rank}")
    tensor = convert_to_tensor(tensor)
    rank = tensor.shape.rank
    if rank is not None and rank <= ragged_rank:
        raise ValueError(f"ragged_rank must be smaller than the rank of the input tensor; "
                         f"got ragged_rank={ragged_rank}, rank={rank}")
    sdt = row_splits_dtype
    shape = array_ops.shape(tensor, out_type=sdt)
    if ragged_rank > 1:
        dim0 = shape[0]
        flat = array_ops.reshape(tensor, array_ops.concat([array_ops.reshape(dim0 * shape[1], [1]), shape[2:]], 0))
        result = _from_tensor(cls, flat, lengths, padding, ragged_rank - 1, sdt)
        return cls.from_uniform_row_length(result, shape[1], nrows=dim0, validate=False)
    ncols = shape[1]
    if padding is not None:
        padding = convert_to_tensor(padding, dtype=tensor.dtype)
        has_default = math_ops.equal(tensor, padding)
        if rank is None or rank > 2:
            has_default = reduction_ops.reduce_all(
                array_ops.reshape(has_default, array_ops.concat([shape[:2], [-1]], 0)), axis=2)
        has_nondefault = math_ops.cast(math_ops.logical_not(has_default), sdt)
        one = array_ops.ones([], dtype=sdt)
        positions = array_ops.expand_dims(array_ops.range(one, ncols + 1, dtype=sdt), 0)
        lengths = reduction_ops.reduce_max(has_nondefault * positions, axis=1)
    if lengths is not None:
        lengths = math_ops.cast(convert_row_partition(lengths, "lengths", sdt), sdt)
        lengths = math_ops.minimum(lengths, ncols)
        mask = array_ops.sequence_mask(lengths, ncols)
        values = array_ops.boolean_mask(tensor, mask)
        return cls.from_row_lengths(values, lengths, validate=False)
    values = array_ops.reshape(tensor, array_ops.concat([array_ops.reshape(shape[0] * ncols, [1]), shape[2:]], 0))
    return cls.from_uniform_row_length(values, ncols, nrows=shape[0], validate=False)


def merge_dims(rt, outer_axis, inner_axis):
    """``rt.merge_dims(outer_axis, inner_axis)``: dimensions ``outer..inner`` become one.

    Merging from the outermost dimension drops row partitions (``merge_dims(0, 1)`` is
    ``rt.values``); merging inner dimensions applies the same to ``rt.values``. A dense
    tensor is reshaped.
    """
    rank = rt.shape.rank
    if rank is not None:
        outer_axis = outer_axis + rank if outer_axis < 0 else outer_axis
        inner_axis = inner_axis + rank if inner_axis < 0 else inner_axis
        if not 0 <= outer_axis < rank or not 0 <= inner_axis < rank:
            raise ValueError(f"axis {outer_axis} and {inner_axis} must be in range [-{rank}, {rank})")
    if outer_axis > inner_axis:
        raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to inner_axis "
                         f"({inner_axis})")
    if outer_axis == inner_axis:
        return rt
    if not isinstance(rt, RaggedTensor):
        shape = array_ops.shape(rt)
        merged = reduction_ops.reduce_prod(shape[outer_axis:inner_axis + 1], keepdims=True)
        return array_ops.reshape(rt, array_ops.concat([shape[:outer_axis], merged, shape[inner_axis + 1:]], 0))
    if outer_axis == 0:
        return merge_dims(rt.values, 0, inner_axis - 1)
    if outer_axis > 1:
        return rt.with_values(merge_dims(rt.values, outer_axis - 1, inner_axis - 1))
    values = rt.values   # merging dims 1..inner: each row's sub-rows are concatenated
    if isinstance(values, RaggedTensor):
        inner_values = values.values if inner_axis == 2 else merge_dims(values.values, 0, inner_axis - 2)
        splits = array_ops.gather(values.row_splits, rt.row_splits)
        return RaggedTensor.from_row_splits(inner_values, splits, validate=False)
    shape = array_ops.shape(values, out_type=rt.row_splits_dtype)
    width = reduction_ops.reduce_prod(shape[1:inner_axis])
    flat = array_ops.reshape(values, array_ops.concat([[-1], math_ops.cast(shape[inner_axis:], dtypes.int32)], 0))
    return RaggedTensor.from_row_splits(flat, rt.row_splits * width, validate=False)


# --------------------------------------------------------------------------------------
# RaggedTensorSpec
# --------------------------------------------------------------------------------------
class RaggedTensorSpec(TypeSpec):
    """``tf.RaggedTensorSpec(shape, dtype, ragged_rank, row_splits_dtype)``: the type of a RaggedTensor.

    Its components are ``[flat_values, *nested_row_splits]``: a ``TensorSpec`` of shape
    ``[None] + shape[ragged_rank + 1:]`` for the flat values, and one ``[None]`` vector of
    ``row_splits_dtype`` per ragged dimension. ``tf.function(input_signature=[spec])`` traces
    with these as placeholders.
    """

    __slots__ = ("_dtype", "_flat_values_spec", "_ragged_rank", "_row_splits_dtype", "_shape")

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None, row_splits_dtype=dtypes.int64,
                 flat_values_spec=None):
        self._shape = as_shape(shape)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if flat_values_spec is not None:
            dtype = flat_values_spec.dtype
        self._dtype = dtypes.as_dtype(dtype)
        self._flat_values_spec = flat_values_spec
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        self._ragged_rank = ragged_rank
        if not isinstance(ragged_rank, int):
            raise TypeError(f"ragged_rank must be an int, got {ragged_rank!r}")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"ragged_rank must be less than rank, got ragged_rank={ragged_rank}, rank={rank}")

    @property
    def value_type(self):
        return RaggedTensor

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def ragged_rank(self):
        return self._ragged_rank

    @property
    def row_splits_dtype(self):
        return self._row_splits_dtype

    @property
    def flat_values_spec(self):
        return self._flat_values_spec

    def _serialize(self):
        if self._flat_values_spec is None:
            return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype, self._flat_values_spec)

    @classmethod
    def _deserialize(cls, serialization):
        return cls(*serialization)

    def _flat_values_shape(self):
        if self._flat_values_spec is not None:
            return self._flat_values_spec.shape
        if self._shape.rank is None:
            return TensorShape(None)
        return TensorShape([None]).concatenate(self._shape[self._ragged_rank + 1:])

    @property
    def _component_specs(self):
        if self._ragged_rank <= 0:   # (0: a plain tensor that batches raggedly; tf.data's unbatch makes -1)
            return [TensorSpec(self._shape, self._dtype)]
        flat = self._flat_values_spec or TensorSpec(self._flat_values_shape(), self._dtype)
        outer = self._shape[0] if self._shape.rank else None
        specs = [flat, TensorSpec([None if outer is None else outer + 1], self._row_splits_dtype)]
        specs += [TensorSpec([None], self._row_splits_dtype) for _ in range(self._ragged_rank - 1)]
        return specs

    def _to_components(self, value):
        if isinstance(value, RaggedTensor):
            return [value.flat_values] + list(value.nested_row_splits)
        return [value]

    def _from_components(self, tensor_list):
        tensor_list = list(tensor_list)
        result = tensor_list[0]
        if self._ragged_rank <= 0:
            return result
        splits = tensor_list[1:]
        uniform = self._uniform_dims()
        for depth in range(len(splits) - 1, -1, -1):
            partition = RowPartition.from_row_splits(splits[depth], validate=False)
            if uniform[depth] is not None:
                partition._uniform_row_length = convert_to_tensor(
                    np.asarray(uniform[depth], dtype=self._row_splits_dtype.as_numpy_dtype))
            result = RaggedTensor(result, partition, internal=True)
        return result

    def _uniform_dims(self):
        """The static size of each partitioned dimension (1..ragged_rank), None where ragged."""
        if self._shape.rank is None:
            return [None] * self._ragged_rank
        return [self._shape[i + 1] for i in range(self._ragged_rank)]

    def is_compatible_with(self, spec_or_value):
        if isinstance(spec_or_value, RaggedTensor):
            spec_or_value = spec_or_value._type_spec
        if not isinstance(spec_or_value, RaggedTensorSpec):
            return False
        return (self._dtype == spec_or_value._dtype and self._ragged_rank == spec_or_value._ragged_rank
                and self._row_splits_dtype == spec_or_value._row_splits_dtype
                and self._shape.is_compatible_with(spec_or_value._shape))

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if not isinstance(o, RaggedTensorSpec) or (o._dtype, o._ragged_rank, o._row_splits_dtype) != (
                    self._dtype, self._ragged_rank, self._row_splits_dtype):
                return None
            if shape.rank != o._shape.rank:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def is_subtype_of(self, other):
        return (isinstance(other, RaggedTensorSpec)
                and (self._dtype, self._ragged_rank, self._row_splits_dtype) == (
                    other._dtype, other._ragged_rank, other._row_splits_dtype)
                and self._shape.is_subtype_of(other._shape))

    @classmethod
    def from_value(cls, value):
        if isinstance(value, RaggedTensor):
            return value._type_spec
        return cls(value.shape, value.dtype, 0)

    def __repr__(self):
        if self._flat_values_spec is None:
            return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                    f"{self._row_splits_dtype!r})")
        return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r}, {self._flat_values_spec!r})")
