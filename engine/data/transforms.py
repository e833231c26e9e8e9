"""Transformations: datasets computed from other datasets.

Each class below is one node type of the pipeline graph and comes with its
iterator. The iterator holds the input's iterator and pulls from it on demand;
read ``_BatchIterator.__next__`` or ``_ShuffleIterator.__next__`` to see exactly
how many input elements one output element costs.

Static metadata follows TF's rules, which the tests check against values
recorded from TF 2.21: ``element_spec`` (``batch`` adds a ``None`` dimension
unless ``drop_remainder``) and ``_cardinality()`` (``filter`` makes the length
unknown, ``repeat()`` infinite, ``take(n)`` of an infinite dataset finite ...).
"""
import threading

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_spec import TensorSpec
from ..ops.random_ops import get_seed
from ..util import nest
from . import structure
from .dataset_ops import INFINITE_CARDINALITY as INF, UNKNOWN_CARDINALITY as UNKNOWN, Dataset, implements
from .functions import StructuredFunction

__all__ = ["_MapDataset", "_FilterDataset", "_BatchDataset", "_UnbatchDataset", "_ShuffleDataset",
           "_RepeatDataset", "_TakeDataset", "_SkipDataset", "_ZipDataset", "_ConcatenateDataset", "CacheDataset"]


class _UnaryDataset(Dataset):
    """A transformation with one input dataset."""

    def __init__(self, input_dataset, element_spec=None):
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"Expected a tf.data.Dataset, got {input_dataset!r}.")
        self._input = input_dataset
        self._element_spec = input_dataset.element_spec if element_spec is None else element_spec

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        return self._input._cardinality()


# --------------------------------------------------------------------------------------
# map / filter
# --------------------------------------------------------------------------------------
@implements("map")
class _MapDataset(_UnaryDataset):
    """``map(f)``: ``f`` traced once; its compiled plan runs per element."""

    def __init__(self, input_dataset, map_func):
        self._function = StructuredFunction(map_func, input_dataset.element_spec, "Dataset.map")
        super().__init__(input_dataset, self._function.output_spec)

    def _make_iterator(self):
        return _MapIterator(self._input._make_iterator(), self._function)

    def _describe(self):
        return f"MapDataset({self._function.function._name})"


class _MapIterator:
    __slots__ = ("_input", "_fn")

    def __init__(self, input_iterator, fn):
        self._input, self._fn = input_iterator, fn

    def __next__(self):
        return self._fn(next(self._input))


@implements("filter")
class _FilterDataset(_UnaryDataset):
    """``filter(predicate)``: pulls input elements until one passes."""

    def __init__(self, input_dataset, predicate):
        self._function = StructuredFunction(predicate, input_dataset.element_spec, "Dataset.filter")
        out = self._function.output_spec
        if not isinstance(out, TensorSpec) or out.dtype != dtypes.bool or out.shape.rank != 0:
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
                             f"return type is {out!r}.")
        super().__init__(input_dataset)

    def _cardinality(self):
        return UNKNOWN

    def _make_iterator(self):
        return _FilterIterator(self._input._make_iterator(), self._function)

    def _describe(self):
        return f"FilterDataset({self._function.function._name})"


class _FilterIterator:
    __slots__ = ("_input", "_fn")

    def __init__(self, input_iterator, fn):
        self._input, self._fn = input_iterator, fn

    def __next__(self):
        while True:
            element = next(self._input)
            if self._fn(element)[0]:
                return element


# --------------------------------------------------------------------------------------
# batch / unbatch
# --------------------------------------------------------------------------------------
@implements("batch")
class _BatchDataset(_UnaryDataset):
    """``batch(n, drop_remainder)``: stack ``n`` consecutive elements."""

    def __init__(self, input_dataset, batch_size, drop_remainder):
        batch_size = structure.as_int64(batch_size, "batch_size")
        if batch_size <= 0:
            raise InvalidArgumentError(None, None, "Batch size must be greater than zero. [Op:BatchDatasetV2]")
        self._batch_size = batch_size
        self._drop_remainder = bool(drop_remainder)
        spec = structure.batched_spec(input_dataset.element_spec, batch_size if self._drop_remainder else None)
        super().__init__(input_dataset, spec)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop_remainder else -(-n // self._batch_size)

    def _make_iterator(self):
        spec = self._input.element_spec
        if structure.has_composites(spec):   # RaggedTensorSpec leaves: stacked raggedly
            return _RaggedBatchIterator(self._input._make_iterator(), self._batch_size, self._drop_remainder, spec)
        return _BatchIterator(self._input._make_iterator(), self._batch_size, self._drop_remainder,
                              fused=isinstance(self._input, _MapDataset))

    def _describe(self):
        return f"BatchDataset(batch_size={self._batch_size}, drop_remainder={self._drop_remainder})"


class _BatchIterator:
    __slots__ = ("_input", "_n", "_drop", "_fast", "_fused")

    def __init__(self, input_iterator, n, drop, fused=False):
        self._input, self._n, self._drop, self._fused = input_iterator, n, drop, fused
        self._fast = getattr(input_iterator, "next_batch", None)   # sources slice n rows at once

    def __next__(self):
        n = self._n
        if self._fast is not None:
            batch = self._fast(n)
            if batch is None or (self._drop and len(batch[0]) < n):
                raise StopIteration
            return batch
        elements = []
        try:
            while len(elements) < n:
                elements.append(next(self._input))
        except StopIteration:
            if not elements or self._drop:
                raise
        return structure.batch_components(elements, self._fused)


class _RaggedBatchIterator:
    """``batch`` of elements with RaggedTensorSpec leaves (see ``structure.batch_ragged_components``)."""

    def __init__(self, input_iterator, n, drop, spec):
        self._input, self._n, self._drop, self._spec = input_iterator, n, drop, spec

    def __next__(self):
        elements = []
        try:
            while len(elements) < self._n:
                elements.append(next(self._input))
        except StopIteration:
            if not elements or self._drop:
                raise
        return structure.batch_ragged_components(elements, self._spec)


class _RespecDataset(_UnaryDataset):
    """The input's elements under another spec with the same components (dense leaves as ragged-rank-0
    RaggedTensorSpecs)."""

    def _make_iterator(self):
        return self._input._make_iterator()


@implements("ragged_batch")
class _RaggedBatchDataset(_BatchDataset):
    """``ragged_batch(n)``: ``batch``, where elements of different shapes make a RaggedTensor (its ``repr``
    says ``_BatchDataset``, as TF's does)."""

    _repr_name = "_BatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder, row_splits_dtype):
        super().__init__(_RespecDataset(input_dataset, structure.ragged_spec(input_dataset.element_spec,
                                                                             row_splits_dtype)),
                         batch_size, drop_remainder)

    def _describe(self):
        return f"RaggedBatchDataset(batch_size={self._batch_size}, drop_remainder={self._drop_remainder})"


@implements("unbatch")
class _UnbatchDataset(_UnaryDataset):
    """``unbatch()``: one element per row of each input element."""

    def __init__(self, input_dataset):
        super().__init__(input_dataset, structure.unbatched_spec(input_dataset.element_spec))

    def _cardinality(self):
        return INF if self._input._cardinality() == INF else UNKNOWN

    def _make_iterator(self):
        spec = self._input.element_spec
        if structure.has_composites(spec):
            return _RaggedUnbatchIterator(self._input._make_iterator(), spec)
        return _UnbatchIterator(self._input._make_iterator())


class _RaggedUnbatchIterator:
    """``unbatch`` of elements with RaggedTensorSpec leaves: their rows."""

    def __init__(self, input_iterator, spec):
        self._input, self._spec, self._rows = input_iterator, spec, []

    def __next__(self):
        while not self._rows:
            self._rows = structure.unbatch_ragged_components(next(self._input), self._spec)
        return self._rows.pop(0)


class _UnbatchIterator:
    __slots__ = ("_input", "_current", "_index", "_size")

    def __init__(self, input_iterator):
        self._input, self._current, self._index, self._size = input_iterator, None, 0, 0

    def __next__(self):
        while self._current is None or self._index >= self._size:
            self._current = next(self._input)
            sizes = [np.shape(c)[0] for c in self._current]
            for i, s in enumerate(sizes):
                if s != sizes[0]:
                    raise InvalidArgumentError(
                        None, None, f"Input element must have the same batch size in each component. Component 0 "
                                    f"had size {sizes[0]} but component {i} had size {s}.")
            self._index, self._size = 0, sizes[0]
        i = self._index
        self._index = i + 1
        return tuple(c[i] for c in self._current)


# --------------------------------------------------------------------------------------
# shuffle
# --------------------------------------------------------------------------------------
@implements("shuffle")
class _ShuffleDataset(_UnaryDataset):
    """``shuffle(buffer_size, seed, reshuffle_each_iteration)``.

    **The buffer.** The iterator first fills a buffer with ``buffer_size``
    input elements. Each ``next()`` picks one buffered element uniformly at
    random, returns it, and refills the slot with the next input element. So
    an element can come out at most ``buffer_size - 1`` places earlier than it
    went in: a small buffer only shuffles locally, a buffer as large as the
    dataset gives a uniform permutation, and ``buffer_size=1`` keeps the order.

    **Seeds.** ``(seed, seed2)`` come from ``tf.random``'s rules
    (``random_ops.get_seed``): an op seed, the global seed (``tf.random.set_seed``,
    whose counter hands each new dataset the next op seed), both, or neither
    (then fresh OS entropy, once, when the dataset is built). They key a *seed
    generator* owned by this dataset object. Each new iterator (each epoch) draws
    its key from it when ``reshuffle_each_iteration`` is True, so epochs differ
    but rebuilding the same pipeline with the same seeds replays the same
    sequence of epochs; when False, every epoch uses ``(seed, seed2)`` itself,
    so every epoch has the same order. The orders differ from TF's (a different
    generator), the rules are the same.

    ``buffer_size=tf.data.UNKNOWN_CARDINALITY`` (-2) buffers the whole input.
    """

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(input_dataset)
        if buffer_size is None:
            raise ValueError("Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) "
                             "to a Tensor.")
        buffer_size = structure.as_int64(buffer_size, "buffer_size")
        if buffer_size <= 0 and buffer_size != UNKNOWN:
            raise InvalidArgumentError(None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY "
                                                   "[Op:ShuffleDatasetV3]")
        self._buffer_size = buffer_size
        self._reshuffle = bool(reshuffle_each_iteration)
        seed, seed2 = get_seed(seed)
        if seed is None:
            seed, seed2 = (int(s) for s in np.random.SeedSequence().generate_state(2))
        self._seeds = (int(seed), int(seed2))
        self._seed_generator = np.random.Generator(np.random.Philox(key=np.array(self._seeds, np.uint64)))
        self._lock = threading.Lock()

    def _epoch_key(self):
        if not self._reshuffle:
            return np.array(self._seeds, np.uint64)
        with self._lock:
            return self._seed_generator.integers(0, 2 ** 63, size=2, dtype=np.uint64)

    def _make_iterator(self):
        rng = np.random.Generator(np.random.Philox(key=self._epoch_key()))
        return _ShuffleIterator(self._input._make_iterator(), self._buffer_size, rng)

    def _describe(self):
        return (f"ShuffleDataset(buffer_size={self._buffer_size}, seeds={self._seeds}, "
                f"reshuffle_each_iteration={self._reshuffle})")


class _ShuffleIterator:
    __slots__ = ("_input", "_size", "_rng", "_buffer", "_input_done", "_uniforms", "_next_uniform")

    def __init__(self, input_iterator, buffer_size, rng):
        self._input, self._size, self._rng = input_iterator, buffer_size, rng
        self._buffer = []
        self._input_done = False
        self._uniforms, self._next_uniform = (), 0

    def _uniform(self):
        """A uniform float in [0, 1): drawn 1024 at a time (one generator call per element is slow)."""
        if self._next_uniform >= len(self._uniforms):
            self._uniforms, self._next_uniform = self._rng.random(1024).tolist(), 0
        u = self._uniforms[self._next_uniform]
        self._next_uniform += 1
        return u

    def __next__(self):
        buffer = self._buffer
        while not self._input_done and (self._size < 0 or len(buffer) < self._size):   # top the buffer up
            try:
                buffer.append(next(self._input))
            except StopIteration:
                self._input_done = True
        if not buffer:
            raise StopIteration
        i = int(self._uniform() * len(buffer))     # a uniformly random slot
        element = buffer[i]
        buffer[i] = buffer[-1]       # the freed slot takes the last element: O(1), still uniform
        buffer.pop()
        return element


# --------------------------------------------------------------------------------------
# repeat / take / skip
# --------------------------------------------------------------------------------------
@implements("repeat")
class _RepeatDataset(_UnaryDataset):
    """``repeat(count)``: a new input iterator (a new epoch) each time the previous one ends."""

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = -1 if count is None else structure.as_int64(count, "count")

    def _cardinality(self):
        n, c = self._input._cardinality(), self._count
        if c == 0 or n == 0:
            return 0
        if c < 0 or n == INF:
            return INF
        return UNKNOWN if n == UNKNOWN else n * c

    def _make_iterator(self):
        return _RepeatIterator(self._input, self._count)

    def _describe(self):
        return f"RepeatDataset(count={self._count})"


class _RepeatIterator:
    __slots__ = ("_dataset", "_count", "_epoch", "_it", "_produced")

    def __init__(self, dataset, count):
        self._dataset, self._count, self._epoch, self._it, self._produced = dataset, count, 0, None, False

    def __next__(self):
        while self._count < 0 or self._epoch < self._count:
            if self._it is None:
                self._it, self._produced = self._dataset._make_iterator(), False
            try:
                element = next(self._it)
            except StopIteration:
                self._it = None
                self._epoch += 1
                if not self._produced and self._count < 0:
                    break      # repeating an empty dataset forever is still empty (TF does the same)
                continue
            self._produced = True
            return element
        raise StopIteration


@implements("take")
class _TakeDataset(_UnaryDataset):
    """``take(count)``: stop after ``count`` elements (``-1``: never)."""

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = structure.as_int64(count, "count")

    def _cardinality(self):
        n, c = self._input._cardinality(), self._count
        if n == UNKNOWN:
            return UNKNOWN
        if c < 0:
            return n
        return c if n == INF else min(n, c)

    def _make_iterator(self):
        return _TakeIterator(self._input._make_iterator(), self._count)

    def _describe(self):
        return f"TakeDataset(count={self._count})"


class _TakeIterator:
    __slots__ = ("_input", "_left")

    def __init__(self, input_iterator, count):
        self._input, self._left = input_iterator, count

    def __next__(self):
        if self._left == 0:
            raise StopIteration
        element = next(self._input)
        self._left -= 1
        return element


@implements("skip")
class _SkipDataset(_UnaryDataset):
    """``skip(count)``: drop the first ``count`` elements (``-1``: all of them)."""

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = structure.as_int64(count, "count")

    def _cardinality(self):
        n, c = self._input._cardinality(), self._count
        if n < 0:
            return n
        return 0 if c < 0 else max(0, n - c)

    def _make_iterator(self):
        return _SkipIterator(self._input._make_iterator(), self._count)

    def _describe(self):
        return f"SkipDataset(count={self._count})"


class _SkipIterator:
    __slots__ = ("_input", "_to_skip")

    def __init__(self, input_iterator, count):
        self._input, self._to_skip = input_iterator, count

    def __next__(self):
        while self._to_skip != 0:        # lazily, on the first next(); -1 skips until the end
            next(self._input)
            self._to_skip -= 1
        return next(self._input)


# --------------------------------------------------------------------------------------
# zip / concatenate
# --------------------------------------------------------------------------------------
def _check_zip_input(datasets):
    if isinstance(datasets, Dataset):
        return
    if isinstance(datasets, list):
        raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                        "`tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple` "
                        "instead.")
    if isinstance(datasets, tuple):
        for d in datasets:
            _check_zip_input(d)
    elif isinstance(datasets, dict):
        for d in datasets.values():
            _check_zip_input(d)
    else:
        raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                        f"`tf.data.Dataset` objects but encountered object of type {type(datasets)}.")


@implements("zip")
class _ZipDataset(Dataset):
    """``zip(datasets)``: one element from each input, packed like the nest of datasets."""

    def __init__(self, datasets):
        _check_zip_input(datasets)
        self._structure = datasets
        self._datasets = nest.flatten(datasets)
        self._element_spec = nest.map_structure(lambda d: d.element_spec, datasets)

    def _inputs(self):
        return list(self._datasets)

    def _cardinality(self):
        cards = [d._cardinality() for d in self._datasets]
        if UNKNOWN in cards:
            return UNKNOWN
        finite = [c for c in cards if c != INF]
        return min(finite) if finite else INF

    def _make_iterator(self):
        return _ZipIterator([d._make_iterator() for d in self._datasets])

    def _describe(self):
        return "ZipDataset"


class _ZipIterator:
    __slots__ = ("_inputs",)

    def __init__(self, iterators):
        self._inputs = iterators

    def __next__(self):
        out = ()
        for it in self._inputs:
            out += next(it)      # the components of each input, concatenated in nest order
        return out


@implements("concatenate")
class _ConcatenateDataset(Dataset):
    """``a.concatenate(b)``: all of ``a``, then all of ``b``; shapes relax to what both allow."""

    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"`dataset` must be a tf.data.Dataset, got {second!r}.")
        a, b = first.element_spec, second.element_spec
        try:
            nest.assert_same_structure(a, b)
            mismatch = any(x.dtype != y.dtype for x, y in zip(nest.flatten(a), nest.flatten(b)))
        except (ValueError, TypeError):
            mismatch = True
        if mismatch:
            raise TypeError(f"Incompatible dataset elements:\n  {a!r} vs.   {b!r}")
        self._first, self._second = first, second
        self._element_spec = nest.map_structure(
            lambda x, y: TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype), a, b)

    def _inputs(self):
        return [self._first, self._second]

    def _cardinality(self):
        cards = [self._first._cardinality(), self._second._cardinality()]
        if INF in cards:
            return INF
        return UNKNOWN if UNKNOWN in cards else sum(cards)

    def _make_iterator(self):
        return _ConcatenateIterator(self._first, self._second)


class _ConcatenateIterator:
    __slots__ = ("_current", "_next_dataset")

    def __init__(self, first, second):
        self._current, self._next_dataset = first._make_iterator(), second

    def __next__(self):
        while True:
            try:
                return next(self._current)
            except StopIteration:
                if self._next_dataset is None:
                    raise
                self._current, self._next_dataset = self._next_dataset._make_iterator(), None


# --------------------------------------------------------------------------------------
# cache
# --------------------------------------------------------------------------------------
@implements("cache")
class CacheDataset(_UnaryDataset):
    """``cache()``: the first *complete* pass stores every element; later passes replay them.

    A pass abandoned half-way stores nothing (TF discards a partial in-memory
    cache too), so the next pass starts over from the input. Everything
    upstream (``map`` functions, their side effects, ``shuffle``'s order) is
    therefore computed once: cache after expensive, deterministic steps, and
    shuffle *after* the cache if every epoch should have a new order.
    """

    def __init__(self, input_dataset, filename=""):
        if filename:
            raise NotImplementedError("The engine's Dataset.cache supports only the in-memory cache "
                                      "(filename=''); caching to files is not implemented.")
        super().__init__(input_dataset)
        self._elements = None          # a tuple once a full pass has completed
        self._lock = threading.Lock()

    def _make_iterator(self):
        with self._lock:
            cached = self._elements
        if cached is not None:
            return iter(cached)
        return _CacheWriter(self)

    def _describe(self):
        return f"CacheDataset({'filled' if self._elements is not None else 'empty'})"


class _CacheWriter:
    __slots__ = ("_dataset", "_input", "_seen")

    def __init__(self, dataset):
        self._dataset, self._input, self._seen = dataset, dataset._input._make_iterator(), []

    def __next__(self):
        try:
            element = next(self._input)
        except StopIteration:
            with self._dataset._lock:
                if self._dataset._elements is None:
                    self._dataset._elements = tuple(self._seen)
            raise
        self._seen.append(element)
        return element
