"""``padded_batch``: batch elements whose shapes differ, padding each to a common shape.

``batch`` needs every element to have the same shape. Sequences of different
lengths (sentences, audio) are batched by *padding*: each component of each
element is padded at the end of every dimension, with ``padding_values`` (0,
``False`` or ``b""`` by default), up to

* the matching dimension of ``padded_shapes`` when it is known, or
* the largest size in this batch when it is ``None`` / ``-1`` (the default for
  every dimension that the element spec leaves unknown).

The element spec therefore has the padded shapes' static dimensions, and ``None``
where the size depends on the batch. An element larger than a fixed padded
dimension is an error at iteration time: ``DataLossError`` "Attempted to pad
to a smaller size than the input element." (TF's class and message).
``padded_shapes`` incompatible with the element spec is refused when the
dataset is built (``ValueError``).
"""
import numpy as np

from ..framework import dtypes
from ..framework.errors import DataLossError, InvalidArgumentError
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..util import nest
from . import structure
from .dataset_ops import Dataset, implements

__all__ = ["_PaddedBatchDataset"]


def _as_shape(shape):
    """``[None, 3]``, ``[-1, 3]``, a TensorShape or a 1-D int tensor -> TensorShape (``-1`` means unknown)."""
    if isinstance(shape, TensorShape):
        return shape
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if shape is None:
        return TensorShape(None)
    return TensorShape([None if d is None or d == -1 else int(d) for d in shape])


def _default_padding(dtype):
    if dtype == dtypes.string:
        return b""
    if dtype == dtypes.bool:
        return False
    return dtype.as_numpy_dtype(0)


def _padding_value(value, dtype):
    """A scalar padding value of ``dtype`` (a tensor must already have that dtype, as in TF)."""
    if isinstance(value, Tensor):
        if value.dtype != dtype:
            raise TypeError(f"Padding value {value!r} has dtype {value.dtype.name}, but the corresponding input "
                            f"component has dtype {dtype.name}. Padding values must match the component dtype.")
        value = value.numpy()
    array = np.asarray(value)
    if array.ndim != 0:
        raise ValueError(f"Padding value should be a scalar, but is not: {value!r}")
    if dtype == dtypes.string:
        return value.encode() if isinstance(value, str) else bytes(value)
    return dtype.as_numpy_dtype(array[()])


def _map_up_to(spec, fn, *values):
    """``fn(leaf_spec, *leaf_values)`` where ``values`` mirror ``spec`` only down to its leaves."""
    if isinstance(spec, TensorSpec):
        return fn(spec, *values)
    if isinstance(spec, dict):
        return {k: _map_up_to(spec[k], fn, *(v[k] for v in values)) for k in spec}
    for v in values:
        if not isinstance(v, (tuple, list)) or len(v) != len(spec):
            raise ValueError(f"The two structures don't have the same nested structure: {spec} and {v}.")
    out = [_map_up_to(s, fn, *vs) for s, *vs in zip(spec, *values)]
    return type(spec)(*out) if hasattr(spec, "_fields") else tuple(out)


@implements("padded_batch")
class _PaddedBatchDataset(Dataset):
    """``padded_batch(batch_size, padded_shapes, padding_values, drop_remainder)``; see the module docstring."""

    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        self._input = input_dataset
        batch_size = structure.as_int64(batch_size, "batch_size")
        if batch_size <= 0:
            raise InvalidArgumentError(None, None, "Batch size must be greater than zero. [Op:PaddedBatchDatasetV2]")
        self._batch_size = batch_size
        self._drop_remainder = bool(drop_remainder)
        spec = input_dataset.element_spec
        if padded_shapes is None:
            for s in nest.flatten(spec):
                if s.shape.rank is None:
                    raise ValueError("You must provide `padded_shapes` argument because component 0 has unknown "
                                     "rank.")
            shapes = nest.map_structure(lambda s: s.shape, spec)
        else:
            single = isinstance(spec, TensorSpec)
            shapes = _map_up_to(spec, lambda s, p: self._check_shape(s, _as_shape(p)),
                                padded_shapes if not single else padded_shapes)
        if padding_values is None:
            values = nest.map_structure(lambda s: _default_padding(s.dtype), spec)
        else:
            values = _map_up_to(spec, lambda s, v: _padding_value(v, s.dtype), padding_values)
        self._padded_shapes = [tuple(s.as_list()) for s in nest.flatten(shapes)] if nest.is_nested(shapes) \
            else [tuple(shapes.as_list())]
        self._padding_values = nest.flatten(values) if nest.is_nested(values) else [values]
        batch_dim = batch_size if self._drop_remainder else None
        flat = [TensorSpec(TensorShape([batch_dim]).concatenate(TensorShape(list(p))), s.dtype)
                for p, s in zip(self._padded_shapes, structure.flat_specs(spec))]
        self._element_spec = nest.pack_sequence_as(spec, flat) if nest.is_nested(spec) else flat[0]

    @staticmethod
    def _check_shape(spec, padded):
        if not padded.is_compatible_with(spec.shape):
            raise ValueError(f"The padded shape {tuple(padded.as_list()) if padded.rank is not None else None} is "
                             f"not compatible with the shape {tuple(spec.shape.as_list())} of the corresponding "
                             f"input component.")
        if padded.rank is None:
            padded = TensorShape([None] * spec.shape.rank) if spec.shape.rank is not None else padded
        return padded

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop_remainder else -(-n // self._batch_size)

    def _make_iterator(self):
        return _PaddedBatchIterator(self._input._make_iterator(), self._batch_size, self._drop_remainder,
                                    self._padded_shapes, self._padding_values, structure.flat_specs(self._input
                                                                                                   .element_spec))

    def _describe(self):
        return (f"PaddedBatchDataset(batch_size={self._batch_size}, padded_shapes={self._padded_shapes}, "
                f"drop_remainder={self._drop_remainder})")


class _PaddedBatchIterator:
    __slots__ = ("_input", "_n", "_drop", "_shapes", "_values", "_dtypes")

    def __init__(self, input_iterator, n, drop, shapes, values, specs):
        self._input, self._n, self._drop, self._shapes, self._values = input_iterator, n, drop, shapes, values
        self._dtypes = [object if s.dtype == dtypes.string else s.dtype.as_numpy_dtype for s in specs]

    def __next__(self):
        elements = []
        try:
            while len(elements) < self._n:
                elements.append(next(self._input))
        except StopIteration:
            if not elements or self._drop:
                raise
        return tuple(self._pad(i, [e[i] for e in elements]) for i in range(len(self._shapes)))

    def _pad(self, i, column):
        arrays = [np.asarray(c, dtype=self._dtypes[i]) for c in column]
        target = []
        for d, size in enumerate(self._shapes[i]):
            largest = max(a.shape[d] for a in arrays)
            if size is not None and largest > size:
                raise DataLossError(None, None, "Attempted to pad to a smaller size than the input element. "
                                                "[Op:IteratorGetNext]")
            target.append(largest if size is None else size)
        out = np.full((len(arrays),) + tuple(target), self._values[i], dtype=self._dtypes[i])
        for j, a in enumerate(arrays):
            out[(j,) + tuple(slice(0, s) for s in a.shape)] = a
        return out.astype(np.bytes_) if self._dtypes[i] is object else out   # strings: fixed-width bytes


