"""Source datasets: where elements come from (``from_tensor_slices``, ``from_tensors``, ``range``).

A source holds host NumPy arrays (copied once, when the dataset is built, and
made read-only) and its iterator hands out rows of them. Slicing a row of a
NumPy array is a view, so producing an element costs no copy.

Sources also offer a **batch fast path**: their iterators implement
``next_batch(n)``, which returns ``n`` rows at once as one slice per component
(``x[i:i + n]``) instead of ``n`` separate rows that ``batch`` would then
stack. ``_BatchDataset`` uses it when its input iterator has it; the values are
the same, only faster, which matters for ``from_tensor_slices(arrays).batch(b)``,
the most common pipeline in training loops.
"""
import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import EagerTensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..util import nest
from . import structure
from .dataset_ops import INFINITE_CARDINALITY, Dataset

__all__ = ["_TensorSliceDataset", "_TensorDataset", "_RangeDataset"]

_INT64_MAX = int(np.iinfo(np.int64).max)


def _host_arrays(tensors):
    """Flat read-only host arrays for a nest of (eager) tensors."""
    arrays = []
    for t in nest.flatten(tensors):
        a = np.array(t.numpy() if isinstance(t, EagerTensor) else t)   # our own read-only copy
        a.flags.writeable = False
        arrays.append(a)
    return arrays


class _TensorSliceDataset(Dataset):
    """``from_tensor_slices``: row ``i`` of every component."""

    def __init__(self, tensors):
        tensors = structure.normalize_element(tensors)
        flat = nest.flatten(tensors)
        if not flat:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        first = TensorShape(None)
        for t in flat:
            if t.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            dim = TensorShape([t.shape[0]])
            if not first.is_compatible_with(dim):
                raise ValueError(f"Dimensions {first[0]} and {dim[0]} are not compatible")
            first = dim
        self._arrays = _host_arrays(tensors)
        self._length = int(first[0])
        self._element_spec = nest.map_structure(lambda t: TensorSpec(t.shape[1:], t.dtype), tensors)

    def _cardinality(self):
        return self._length

    def _make_iterator(self):
        return _SliceIterator(self._arrays, self._length)

    def _describe(self):
        return f"TensorSliceDataset({self._length} rows)"


class _SliceIterator:
    __slots__ = ("_arrays", "_length", "_index")

    def __init__(self, arrays, length):
        self._arrays = arrays
        self._length = length
        self._index = 0

    def __iter__(self):
        return self

    def __next__(self):
        i = self._index
        if i >= self._length:
            raise StopIteration
        self._index = i + 1
        return tuple(a[i] for a in self._arrays)

    def next_batch(self, n):
        """Up to ``n`` rows as one slice per component (``None`` at the end)."""
        i = self._index
        if i >= self._length:
            return None
        j = min(i + n, self._length)
        self._index = j
        return tuple(a[i:j] for a in self._arrays)


class _TensorDataset(Dataset):
    """``from_tensors``: the whole value, once."""

    def __init__(self, tensors):
        tensors = structure.normalize_element(tensors)
        self._components = tuple(structure.host_value(a) for a in _host_arrays(tensors))
        self._element_spec = structure.spec_of(tensors)

    def _cardinality(self):
        return 1

    def _make_iterator(self):
        return iter([self._components])

    def _describe(self):
        return "TensorDataset"


class _RangeDataset(Dataset):
    """``range(start, stop, step)``: scalars of ``output_type`` (int64 by default)."""

    def __init__(self, *args, output_type=dtypes.int64):
        if not 1 <= len(args) <= 3:
            raise TypeError(f"Invalid arguments to `range`: {args}. Expected 1 to 3 integers "
                            f"(stop), (start, stop) or (start, stop, step).")
        values = [structure.as_int64(a, "range argument") for a in args]
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (values + [1])[:3]
        if step == 0:
            raise InvalidArgumentError(None, None, "step must be a non-zero integer. [Op:RangeDataset]")
        self._start, self._stop, self._step = start, stop, step
        self._dtype = dtypes.as_dtype(output_type)
        self._element_spec = TensorSpec([], self._dtype)

    def _cardinality(self):
        if self._stop == _INT64_MAX and self._step > 0:
            return INFINITE_CARDINALITY      # TF's convention: a range up to the largest int64 never ends
        return len(range(self._start, self._stop, self._step))

    def _make_iterator(self):
        return _RangeIterator(self._start, self._stop, self._step, self._dtype._np.type)

    def _describe(self):
        return f"RangeDataset({self._start}, {self._stop}, {self._step})"


class _RangeIterator:
    __slots__ = ("_next", "_stop", "_step", "_type")

    def __init__(self, start, stop, step, np_type):
        self._next, self._stop, self._step, self._type = start, stop, step, np_type

    def __iter__(self):
        return self

    def _done(self, value):
        return value >= self._stop if self._step > 0 else value <= self._stop

    def __next__(self):
        value = self._next
        if self._done(value):
            raise StopIteration
        self._next = value + self._step
        return (self._type(value),)

    def next_batch(self, n):
        value = self._next
        if self._done(value):
            return None
        count = min(n, len(range(value, self._stop, self._step)))
        self._next = value + count * self._step
        return (np.arange(value, value + count * self._step, self._step, dtype=np.int64).astype(self._type,
                                                                                                copy=False),)
