"""Transformations whose user function returns a *dataset*: ``interleave``, ``group_by_window``
(and ``bucket_by_sequence_length``, built on it as in TF).

``interleave(map_func, cycle_length, block_length)``
    ``map_func`` turns each input element into a dataset; the iterator keeps
    ``cycle_length`` of those open and takes ``block_length`` elements from
    each in turn. When one ends, its slot takes the next input element's
    dataset the next time the cycle comes round to it. This is exactly TF's
    deterministic order (``InterleaveDatasetOp``); with ``num_parallel_calls``
    TF's deterministic parallel version produces the same order, and the
    engine runs it sequentially. ``cycle_length=None``/``AUTOTUNE`` means the
    number of CPU cores, as TF.

``group_by_window(key_func, reduce_func, window_size)``
    Elements are sorted into groups by ``key_func(element)`` (an int64
    scalar). When a group holds ``window_size`` elements (or
    ``window_size_func(key)``), ``reduce_func(key, window_dataset)`` is called
    and the elements of the dataset it returns are produced. At the end of the
    input the unfinished groups are flushed in increasing key order (TF keeps
    them in an ordered map).

**Deliberate difference: eager user functions.** TF traces ``map_func`` and
``reduce_func`` into graphs that build datasets from symbolic tensors; engine
datasets are built from host values (see ``dataset_ops.py``), so these two
functions are called eagerly, once per input element / per window, with eager
tensors (``key_func``, ``window_size_func`` and ``element_length_func`` are
traced once, as in TF). Python side effects in them therefore happen per call.
The element spec is found by calling the function once when the dataset is
built: ``reduce_func`` on an empty window, ``map_func`` on the input's first
element (or, for an empty input, on zeros shaped like its spec). A ``map_func``
whose datasets' shapes vary with the element (``from_tensors(tf.range(x))``) has
the first element's shape in its spec, where TF would show ``None``.
"""
import bisect
import os

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..util import nest
from . import structure
from .dataset_ops import AUTOTUNE, UNKNOWN_CARDINALITY, Dataset, implements
from .functions import StructuredFunction, host_scope
from .iterator_ops import _close
from .padding import _as_shape, _map_up_to

__all__ = ["_InterleaveDataset", "_GroupByWindowDataset", "bucket_by_sequence_length"]


def _call_with_element(fn, spec, components):
    """Call a user function on one element (a tuple element is unpacked, as ``map`` does)."""
    element = structure.to_tensors(spec, components)
    with host_scope():
        result = fn(*element) if type(spec) is tuple else fn(element)
    return result


def _check_dataset(result, what):
    if not isinstance(result, Dataset):
        raise TypeError(f"`{what}` must return a `Dataset` object. Got {type(result)}.")
    return result


def _zeros_like_spec(spec):
    """A placeholder element (zeros, unknown dims as 0) for a spec: used only to learn a function's output spec."""
    def zeros(s):
        shape = [0 if d is None else d for d in (s.shape.as_list() if s.shape.rank is not None else [])]
        if s.dtype == dtypes.string:
            return structure.host_value(np.full(shape, b"", dtype=np.bytes_))
        return structure.host_value(np.zeros(shape, dtype=s.dtype.as_numpy_dtype))
    return tuple(zeros(s) for s in structure.flat_specs(spec))


# --------------------------------------------------------------------------------------
# interleave
# --------------------------------------------------------------------------------------
@implements("interleave")
class _InterleaveDataset(Dataset):
    """``interleave(map_func, cycle_length, block_length)``; see the module docstring."""

    def __init__(self, input_dataset, map_func, cycle_length, block_length):
        if not callable(map_func):
            raise TypeError(f"`map_func` must be a callable, got {map_func!r}.")
        self._input = input_dataset
        self._map_func = map_func
        cycle_length = AUTOTUNE if cycle_length is None else structure.as_int64(cycle_length, "cycle_length")
        if cycle_length == AUTOTUNE:
            cycle_length = os.cpu_count() or 1
        block_length = 1 if block_length is None else structure.as_int64(block_length, "block_length")
        if cycle_length <= 0:
            raise ValueError(f"`cycle_length` must be > 0 or tf.data.AUTOTUNE, got {cycle_length}.")
        if block_length <= 0:
            raise ValueError(f"`block_length` must be > 0, got {block_length}.")
        self._cycle_length, self._block_length = cycle_length, block_length
        self._element_spec = None

    @property
    def element_spec(self):
        if self._element_spec is None:
            self._element_spec = self._infer_spec()
        return self._element_spec

    def _infer_spec(self):
        spec = self._input.element_spec
        iterator = self._input._make_iterator()
        try:
            first = next(iterator)
        except StopIteration:
            first = _zeros_like_spec(spec)
        finally:
            _close(iterator)
        return self._open(first).element_spec

    def _open(self, components):
        return _check_dataset(_call_with_element(self._map_func, self._input.element_spec, components), "map_func")

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _make_iterator(self):
        return _InterleaveIterator(self._input._make_iterator(), self._open, self._cycle_length, self._block_length)

    def _describe(self):
        return f"InterleaveDataset(cycle_length={self._cycle_length}, block_length={self._block_length})"


class _InterleaveIterator:
    """TF's ``InterleaveDatasetOp`` iterator, step for step."""

    __slots__ = ("_input", "_open", "_slots", "_block_length", "_cycle", "_block", "_end_of_input", "_num_open")

    def __init__(self, input_iterator, open_fn, cycle_length, block_length):
        self._input, self._open = input_iterator, open_fn
        self._slots = [None] * cycle_length
        self._block_length = block_length
        self._cycle = self._block = self._num_open = 0
        self._end_of_input = False

    def _advance(self):
        self._block = 0
        self._cycle = (self._cycle + 1) % len(self._slots)

    def __next__(self):
        while not self._end_of_input or self._num_open > 0:
            current = self._slots[self._cycle]
            if current is not None:
                try:
                    element = next(current)
                except StopIteration:          # this element's dataset is done: free the slot, move on
                    self._slots[self._cycle] = None
                    self._num_open -= 1
                    self._advance()
                    continue
                self._block += 1
                if self._block == self._block_length:
                    self._advance()
                return element
            if not self._end_of_input:         # an empty slot: open the next input element's dataset here
                try:
                    components = next(self._input)
                except StopIteration:
                    self._end_of_input = True
                    continue
                self._slots[self._cycle] = self._open(components)._make_iterator()
                self._num_open += 1
            else:
                self._advance()
        raise StopIteration


# --------------------------------------------------------------------------------------
# group_by_window
# --------------------------------------------------------------------------------------
class InMemoryDataset(Dataset):
    """Elements already pulled, held in memory: the dataset ``group_by_window``'s ``reduce_func``
    receives (one window), and each window of ``Dataset.window``. Its ``repr`` says ``_VariantDataset``,
    as TF's does (TF rebuilds such a dataset from its variant tensor)."""

    _repr_name = "_VariantDataset"

    def __init__(self, elements, element_spec):
        self._elements = tuple(elements)
        self._element_spec = element_spec

    def _cardinality(self):
        return len(self._elements)

    def _make_iterator(self):
        return iter(self._elements)

    def _describe(self):
        return f"InMemoryDataset({len(self._elements)} elements)"


def _scalar_int64_function(fn, input_spec, transformation, what):
    function = StructuredFunction(fn, input_spec, transformation)
    out = function.output_spec
    if not isinstance(out, TensorSpec) or out.dtype != dtypes.int64 or out.shape.rank != 0:
        raise ValueError(f"`{what}` must return a single tf.int64 scalar tensor. Got {out!r}.")
    return function


class _GroupByWindowDataset(Dataset):
    """``group_by_window(key_func, reduce_func, window_size, window_size_func)``; see the module docstring.

    ``key_fn(components) -> int`` and ``window_size_fn(key) -> int`` are plain
    Python callables here (the public method wraps the traced user functions).
    """

    def __init__(self, input_dataset, key_fn, reduce_func, window_size_fn):
        self._input = input_dataset
        self._key_fn = key_fn
        self._reduce_func = reduce_func
        self._window_size_fn = window_size_fn
        empty = InMemoryDataset((), input_dataset.element_spec)
        self._element_spec = self._reduce(0, empty).element_spec

    def _reduce(self, key, window):
        with host_scope():
            key = convert_to_tensor(np.int64(key))
            return _check_dataset(self._reduce_func(key, window), "reduce_func")

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _make_iterator(self):
        return _GroupByWindowIterator(self)

    def _describe(self):
        return "GroupByWindowDataset"


class _GroupByWindowIterator:
    __slots__ = ("_ds", "_input", "_groups", "_sizes", "_current", "_end_of_input")

    def __init__(self, dataset):
        self._ds = dataset
        self._input = dataset._input._make_iterator()
        self._groups = {}       # key -> list of elements (components)
        self._sizes = {}        # key -> window size
        self._current = None    # the iterator of the window being produced
        self._end_of_input = False

    def _flush(self, key):
        window = InMemoryDataset(self._groups.pop(key), self._ds._input.element_spec)
        self._current = self._ds._reduce(key, window)._make_iterator()

    def __next__(self):
        while True:
            if self._current is not None:
                try:
                    return next(self._current)
                except StopIteration:
                    self._current = None
            if self._end_of_input:
                if not self._groups:
                    raise StopIteration
                self._flush(min(self._groups))          # leftovers, smallest key first
                continue
            try:
                element = next(self._input)
            except StopIteration:
                self._end_of_input = True
                continue
            key = self._ds._key_fn(element)
            group = self._groups.setdefault(key, [])
            group.append(element)
            if key not in self._sizes:
                self._sizes[key] = self._ds._window_size_fn(key)
            if len(group) >= self._sizes[key]:
                self._flush(key)


@implements("group_by_window")
def group_by_window(dataset, key_func, reduce_func, window_size=None, window_size_func=None):
    """The public ``Dataset.group_by_window``: trace ``key_func``/``window_size_func``, check the arguments."""
    if (window_size is not None) == (window_size_func is not None):
        if window_size is None:
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be "
                             "specified.")
        raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be "
                         "specified, not both.")
    key_function = _scalar_int64_function(key_func, dataset.element_spec, "Dataset.group_by_window", "key_func")

    def key_fn(components):
        return int(key_function(components)[0])
    if window_size is not None:
        size = structure.as_int64(window_size, "window_size")
        if size <= 0:
            raise InvalidArgumentError(None, None, "Window size must be greater than zero, but got "
                                                   f"{size}. [Op:GroupByWindowDataset]")

        def window_size_fn(key):
            return size
    else:
        size_function = _scalar_int64_function(window_size_func, TensorSpec([], dtypes.int64),
                                               "Dataset.group_by_window", "window_size_func")

        def window_size_fn(key):
            return int(size_function((np.int64(key),))[0])
    return _GroupByWindowDataset(dataset, key_fn, reduce_func, window_size_fn)


@implements("bucket_by_sequence_length")
def bucket_by_sequence_length(dataset, element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                              no_padding=False, drop_remainder=False):
    """TF's construction: ``group_by_window`` keyed by bucket, each window ``padded_batch``-ed.

    Bucket ``i`` holds lengths in ``[boundaries[i-1], boundaries[i])`` (the first
    from -inf, the last to +inf) and batches ``bucket_batch_sizes[i]`` elements.
    With ``pad_to_bucket_boundary`` the unknown dimensions are padded to
    ``boundary - 1`` (so an element in the last, open-ended bucket is an error).
    """
    boundaries = [int(b) for b in bucket_boundaries]
    batch_sizes = [int(b) for b in bucket_batch_sizes]
    if len(batch_sizes) != len(boundaries) + 1:
        raise ValueError(f"len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1, but got "
                         f"{len(batch_sizes)} and {len(boundaries)}.")
    if any(b >= c for b, c in zip(boundaries, boundaries[1:])):
        raise ValueError(f"Buckets boundaries must be sorted in ascending order. Received: {boundaries}")
    length_function = StructuredFunction(element_length_func, dataset.element_spec,
                                         "Dataset.bucket_by_sequence_length")
    out = length_function.output_spec
    if not isinstance(out, TensorSpec) or not out.dtype.is_integer or out.shape.rank != 0:
        raise ValueError(f"`element_length_func` must return an integer scalar tensor. Got {out!r}.")

    def key_fn(components):
        return bisect.bisect_right(boundaries, int(length_function(components)[0]))

    def window_size_fn(bucket_id):
        return batch_sizes[bucket_id]

    def batching_fn(bucket_id, window):
        bucket_id = int(bucket_id.numpy())
        batch_size = batch_sizes[bucket_id]
        if no_padding:
            return window.batch(batch_size, drop_remainder=drop_remainder)
        filler = None
        if pad_to_bucket_boundary:
            if bucket_id >= len(batch_sizes) - 1 and len(window._elements):
                raise InvalidArgumentError(None, None, "assertion failed: [When pad_to_bucket_boundary=True, "
                                                       "elements must have length < max(bucket_boundaries).]")
            filler = boundaries[min(bucket_id, len(boundaries) - 1)] - 1
        spec = window.element_spec
        source = padded_shapes if padded_shapes is not None else nest.map_structure(lambda s: s.shape, spec)
        shapes = _map_up_to(spec, lambda _, p: TensorShape([filler if d is None else d
                                                            for d in _as_shape(p).as_list()]), source)
        return window.padded_batch(batch_size, shapes, padding_values, drop_remainder=drop_remainder)
    return _GroupByWindowDataset(dataset, key_fn, batching_fn, window_size_fn)

