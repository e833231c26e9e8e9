"""``DynamicRaggedShape``: the shape of a RaggedTensor, as ``tf.shape(rt)`` returns it (minimal).

A dense tensor's dynamic shape is one vector. A ragged one is a list of row partitions (one per
ragged dimension) plus the ``inner_shape`` of ``flat_values``::

    tf.shape(tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]]))
    # <DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>

``shape[0]`` is the number of rows; indexing a ragged dimension raises TF's ``ValueError``
("Index 1 is not uniform"); ``shape[:k]`` is a shorter shape. ``tf.zeros``, ``tf.ones``,
``tf.fill`` and ``tf.reshape`` accept one and build a RaggedTensor of that shape. (TF's full
class also broadcasts shapes; the engine does not, yet.)
"""
import numpy as np

from ...framework import dtypes
from ...framework.tensor import EagerTensor, Tensor, convert_to_tensor
from .. import array_ops, math_ops
from .row_partition import RowPartition
from .ragged_tensor import RaggedTensor

__all__ = ["DynamicRaggedShape"]


class DynamicRaggedShape:
    """``tf.experimental.DynamicRaggedShape(row_partitions, inner_shape)``."""

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=False, static_inner_shape=None):
        self._row_partitions = tuple(row_partitions)
        inner = convert_to_tensor(inner_shape, dtype_hint=dtypes.int64) if not isinstance(inner_shape, Tensor) \
            else inner_shape
        if dtype is None:
            dtype = self._row_partitions[0].dtype if self._row_partitions else inner.dtype
        dtype = dtypes.as_dtype(dtype)
        self._row_partitions = tuple(p.with_dtype(dtype) for p in self._row_partitions)
        self._inner_shape = inner if inner.dtype == dtype else math_ops.cast(inner, dtype)
        self._dtype = dtype

    @classmethod
    def from_tensor(cls, t, dtype=None):
        """The shape of a Tensor (no partitions) or a RaggedTensor (one partition per ragged dimension)."""
        if isinstance(t, RaggedTensor):
            partitions, rt = [], t
            while isinstance(rt, RaggedTensor):
                partitions.append(rt._row_partition)
                rt = rt.values
            return cls(partitions, array_ops.shape(rt, out_type=dtype or t.row_splits_dtype), dtype=dtype)
        return cls([], array_ops.shape(t, out_type=dtype or dtypes.int32), dtype=dtype)

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=dtypes.int64):
        """From a list of lengths: an int for a uniform dimension, a tuple of row lengths for a ragged one."""
        partitions, size = [], None
        lengths = list(lengths)
        last_ragged = max([i for i, d in enumerate(lengths) if isinstance(d, (tuple, list))], default=0)
        for i, d in enumerate(lengths[:last_ragged + 1]):
            if i == 0:
                size = int(d)
                continue
            if isinstance(d, (tuple, list)):
                partitions.append(RowPartition.from_row_lengths(np.asarray(d, dtype=np.int64), dtype_hint=dtype))
                size = int(sum(d))
            else:
                partitions.append(RowPartition.from_uniform_row_length(int(d), size * int(d), nrows=size,
                                                                       dtype_hint=dtype))
                size = size * int(d)
        inner = [size] + [int(d) for d in lengths[last_ragged + 1:]]
        return cls(partitions, np.asarray(inner, dtype=dtypes.as_dtype(dtype).as_numpy_dtype), dtype=dtype)

    @property
    def row_partitions(self):
        return self._row_partitions

    @property
    def inner_shape(self):
        return self._inner_shape

    @property
    def num_row_partitions(self):
        return len(self._row_partitions)

    @property
    def rank(self):
        return self.num_row_partitions + int(self._inner_shape.shape[0])

    @property
    def dtype(self):
        return self._dtype

    def _dim_size(self, axis):
        """The total size of dimension ``axis`` (all rows together), a scalar tensor."""
        if axis == 0:
            return self._row_partitions[0].nrows() if self._row_partitions else self._inner_shape[0]
        if axis <= self.num_row_partitions:
            return self._row_partitions[axis - 1].nvals()
        return self._inner_shape[axis - self.num_row_partitions]

    def __getitem__(self, index):
        if isinstance(index, slice):
            if index.start not in (None, 0) or index.step not in (None, 1):
                raise ValueError("DynamicRaggedShape slices must be of the form [:k]")
            stop = self.rank if index.stop is None else index.stop
            if stop < 0:
                stop += self.rank
            if stop <= self.num_row_partitions + 1:
                if stop == 0:
                    return DynamicRaggedShape([], array_ops.zeros([0], dtype=self._dtype), dtype=self._dtype)
                size = array_ops.reshape(self._dim_size(stop - 1), [1])
                return DynamicRaggedShape(self._row_partitions[:stop - 1], size, dtype=self._dtype)
            return DynamicRaggedShape(self._row_partitions, self._inner_shape[:stop - self.num_row_partitions],
                                      dtype=self._dtype)
        axis = int(index)
        if axis < 0:
            axis += self.rank
        if axis == 0:
            return self._dim_size(0)
        if axis <= self.num_row_partitions:
            uniform = self._row_partitions[axis - 1].uniform_row_length()
            if uniform is None:
                raise ValueError(f"Index {index} is not uniform")
            return uniform
        return self._inner_shape[axis - self.num_row_partitions]

    def _lengths(self):
        out = [int(self._dim_size(0).numpy())]
        for p in self._row_partitions:
            u = p.static_uniform_row_length()
            out.append(u if u is not None else tuple(int(v) for v in p.row_lengths().numpy()))
        out += [int(v) for v in self._inner_shape.numpy()[1:]]
        return out

    def __repr__(self):
        if type(self._inner_shape) is EagerTensor:
            lengths = "[" + ", ".join(str(v) for v in self._lengths()) + "]"
        else:
            lengths = "[" + ", ".join(["?"] * self.rank) + "]"
        return f"<DynamicRaggedShape lengths={lengths} num_row_partitions={self.num_row_partitions}>"

    def _ragged_from(self, flat_values):
        """A RaggedTensor of this shape over ``flat_values`` (already of shape ``inner_shape``)."""
        result = flat_values
        for p in reversed(self._row_partitions):
            result = RaggedTensor._from_row_partition(result, p, validate=False)
        return result


def zeros(shape, dtype=dtypes.float32, name=None):
    return shape._ragged_from(array_ops.zeros(shape.inner_shape, dtype=dtype))


def ones(shape, dtype=dtypes.float32, name=None):
    return shape._ragged_from(array_ops.ones(shape.inner_shape, dtype=dtype))


def fill(dims, value, name=None):
    return dims._ragged_from(array_ops.fill(dims.inner_shape, value))


def reshape(tensor, shape, name=None):
    return shape._ragged_from(array_ops.reshape(tensor, shape.inner_shape))
