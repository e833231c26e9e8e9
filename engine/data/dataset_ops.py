"""``tf.data.Dataset``: an input pipeline as a graph of lazy transformations.

The model
---------
A ``Dataset`` is a *description* of a sequence of elements, not the elements.
``Dataset.range(10).map(f).batch(4)`` builds three small objects, each holding
its input dataset and its parameters: a chain (in general a DAG, with ``zip``
and ``concatenate``) of transformations. Nothing is computed when it is built,
except what TF also does at that point: user functions are traced
(``functions.py``) and static metadata is derived (``element_spec``,
``cardinality()``).

Elements are produced by an **iterator**, which is *pulled*: ``iter(ds)`` asks
the last dataset for an iterator; that iterator asks its input dataset for an
iterator, and so on down to the sources. Each ``next()`` on the outermost
iterator pulls exactly as many elements from its input as it needs (``batch(4)``
pulls four, ``filter`` pulls until one passes, ``shuffle`` keeps a buffer
topped up). Every ``iter(ds)`` is a fresh pass (an *epoch*) over the data:
sources restart, ``shuffle`` draws a new order, ``cache`` replays what the
first complete pass stored.

Inside the engine an iterator yields *components* (a flat tuple of host NumPy
values, see ``structure.py``); only the outermost, public iterator wraps them
as eager tensors. ``prefetch`` runs its input iterator in a background thread
so producing the next elements overlaps with consuming the current one.

In a ``tf.function`` the dataset is not iterated at trace time: see
``graph_ops.py`` for ``reduce``, the ``for`` loop protocol AutoGraph uses, and
``iter``/``next`` inside a graph.

Deliberate differences from TF: ``num_parallel_calls`` is accepted and
validated but ``map`` runs sequentially (``prefetch`` is the one real source of
parallelism); ``cache(filename)`` supports only the in-memory cache; datasets
must be built from host values (eager tensors, NumPy, Python data), not from
tensors traced inside a ``tf.function``.

Imports go one way: the modules that define the pipeline nodes
(``sources.py``, ``transforms.py``, ``padding.py``, ``nested.py``,
``prefetch.py``, ``extras.py``) subclass ``Dataset``, so they import this
module, and this module imports none of them. Each node registers what it
implements (``@implements("map")`` on ``_MapDataset``) and ``Dataset.map``
looks it up when it is called, as an op finds its kernel by name in the op
registry. What this module does use directly (the public iterators,
``graph_ops``, ``Options``) does not depend on ``Dataset``.
"""
import numpy as np

from ..framework import dtypes
from ..framework.context import ctx, executing_eagerly
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import constant
from ..ops import math_ops
from . import structure
from .graph_ops import GraphIterator, dataset_for_stmt, graph_cardinality, reduce_dataset
from .iterator_ops import NumpyIterator, OwnedIterator
from .options import Options

__all__ = ["Dataset", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"]

AUTOTUNE = -1
"""``tf.data.AUTOTUNE``: let the runtime pick a parallelism or buffer size."""
INFINITE_CARDINALITY = -1
"""``cardinality()`` of a dataset that never ends (``repeat()``)."""
UNKNOWN_CARDINALITY = -2
"""``cardinality()`` when the length cannot be known without iterating (``filter``)."""

_IMPLEMENTATIONS = {}
"""Dataset method name -> the node class (or function) that builds its result, filled by ``implements``:

* ``sources.py``: ``from_tensor_slices``, ``from_tensors``, ``range``, ``from_generator``;
* ``readers.py``: ``list_files`` (and the file readers, ``TextLineDataset`` ..., which are classes);
* ``transforms.py``: ``zip``, ``map``, ``filter``, ``batch``, ``unbatch``, ``shuffle``, ``repeat``, ``take``,
  ``skip``, ``concatenate``, ``cache``;
* ``padding.py``: ``padded_batch``; ``prefetch.py``: ``prefetch``;
* ``nested.py``: ``interleave`` (and ``flat_map``), ``group_by_window``, ``bucket_by_sequence_length``;
* ``extras.py``: ``window``, ``scan``, ``unique``, ``take_while``, ``ignore_errors``, ``with_options``,
  ``choose_from_datasets``, ``sample_from_datasets``.
"""


def _renamed(dataset, repr_name):
    """``dataset``, whose ``repr`` now shows ``repr_name`` (TF's class for what the engine built otherwise)."""
    dataset._repr_name = repr_name
    return dataset


def implements(method):
    """Class or function decorator, used by the modules that define the nodes: the decorated object builds
    what ``Dataset.<method>`` returns (``@implements("map") class _MapDataset(_UnaryDataset)``)."""
    def register(builder):
        _IMPLEMENTATIONS[method] = builder
        return builder
    return register


class Dataset:
    """A sequence of elements, described lazily. Subclasses implement three things:

    * ``element_spec`` (set in ``__init__`` as ``self._element_spec``),
    * ``_cardinality()``: a Python int, or ``INFINITE_CARDINALITY`` / ``UNKNOWN_CARDINALITY``,
    * ``_make_iterator()``: a fresh internal iterator whose ``__next__`` returns a
      tuple of components and raises ``StopIteration`` at the end.

    ``_inputs()`` lists the datasets a transformation reads (the edges of the
    pipeline graph); :meth:`_pipeline` prints the graph.
    """

    _element_spec = None

    # ------------------------------------------------------------------------------------------
    # Sources
    # ------------------------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """One element per row: slices every leaf of ``tensors`` along its first dimension.

        ``from_tensor_slices((x, y))`` yields ``(x[i], y[i])``; every leaf must have
        the same first dimension. Lists are tensors, tuples and dicts are structure.
        """
        return _IMPLEMENTATIONS["from_tensor_slices"](tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of exactly one element: ``tensors`` itself."""
        return _IMPLEMENTATIONS["from_tensors"](tensors)

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None):
        """``range(stop)``, ``range(start, stop[, step])`` as int64 scalars (like Python's ``range``).

        ``output_type`` picks another dtype (``tf.int32``, ``tf.float32``...).
        """
        return _IMPLEMENTATIONS["range"](*args, output_type=output_type)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        """Elements yielded by ``generator(*args)`` (called anew for every pass), checked against a signature.

        Give ``output_signature`` (a nest of ``tf.TensorSpec``), or the older
        ``output_types`` (+ ``output_shapes``). ``args`` are converted to tensors and
        passed to the generator as NumPy values. See ``sources._GeneratorDataset``.
        """
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        return _IMPLEMENTATIONS["from_generator"](generator, output_types, output_shapes, output_signature, args)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The files matching a glob pattern (or a list of them) as scalar strings: sorted with
        ``shuffle=False``, shuffled (``seed``) by default. No match is ``InvalidArgumentError`` (see ``readers.py``)."""
        return _IMPLEMENTATIONS["list_files"](file_pattern, shuffle, seed)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Combine datasets element-wise: ``zip((a, b))`` or ``zip(a, b)`` yields ``(a_i, b_i)``.

        Any nest of datasets (tuples, dicts) is allowed; the result stops with the
        shortest input.
        """
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else tuple(args)
        elif args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        return _IMPLEMENTATIONS["zip"](datasets)

    # ------------------------------------------------------------------------------------------
    # Transformations
    # ------------------------------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Apply ``map_func`` to every element; it is traced once (see ``functions.py``).

        A tuple element is unpacked into positional arguments. ``num_parallel_calls``
        (an int or ``tf.data.AUTOTUNE``) and ``deterministic`` are accepted; the engine
        maps sequentially, so the order is always deterministic.
        """
        _check_parallelism(num_parallel_calls)
        dataset = _IMPLEMENTATIONS["map"](self, map_func)
        return dataset if num_parallel_calls is None else _renamed(dataset, "_ParallelMapDataset")

    def filter(self, predicate, name=None):
        """Keep the elements for which ``predicate`` (traced once) returns a scalar ``tf.bool`` True."""
        return _IMPLEMENTATIONS["filter"](self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Stack ``batch_size`` consecutive elements into one; the last batch may be smaller.

        With ``drop_remainder=True`` the short last batch is dropped, so the batch
        dimension is static (``element_spec`` shows it instead of ``None``).
        """
        _check_parallelism(num_parallel_calls, "ParallelBatchDataset")
        dataset = _IMPLEMENTATIONS["batch"](self, batch_size, drop_remainder)
        return dataset if num_parallel_calls is None else _renamed(dataset, "_ParallelBatchDataset")

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Batch elements of different shapes, padding each component at the end (see ``padding.py``).

        ``padded_shapes``: per component, the shape to pad to (``None``/``-1``: the
        largest in the batch; the default for every unknown dimension).
        ``padding_values``: per component, a scalar (default 0, ``False``, ``b""``).
        """
        return _IMPLEMENTATIONS["padded_batch"](self, batch_size, padded_shapes, padding_values, drop_remainder)

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        """Map each element to a dataset and interleave them: ``cycle_length`` open at once, ``block_length``
        consecutive elements from each in turn, in TF's deterministic order (see ``nested.py``).

        ``map_func`` is called eagerly, once per input element (a deliberate difference:
        TF traces it). ``num_parallel_calls`` is validated; the engine interleaves
        sequentially, so the order is always the deterministic one.
        """
        _check_parallelism(num_parallel_calls, "ParallelInterleaveDatasetV4")
        dataset = _IMPLEMENTATIONS["interleave"](self, map_func, cycle_length, block_length)
        return dataset if num_parallel_calls is None else _renamed(dataset, "_ParallelInterleaveDataset")

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None):
        """Group elements by ``key_func`` (an int64 scalar) into windows, each reduced by ``reduce_func(key, window)``
        to a dataset whose elements are produced (see ``nested.py``)."""
        return _IMPLEMENTATIONS["group_by_window"](self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                  padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False, name=None):
        """Batch elements of similar length together: ``group_by_window`` by length bucket + ``padded_batch``."""
        return _IMPLEMENTATIONS["bucket_by_sequence_length"](
            self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes, padding_values,
            pad_to_bucket_boundary, no_padding, drop_remainder)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64, name=None):
        """``batch``, but elements whose shapes differ are stacked into a ``tf.RaggedTensor``
        (a component of rank >= 1 becomes a RaggedTensorSpec leaf with one more ragged dimension)."""
        return _IMPLEMENTATIONS["ragged_batch"](self, batch_size, drop_remainder, row_splits_dtype)

    def unbatch(self, name=None):
        """The inverse of ``batch``: split every element along its first dimension."""
        return _IMPLEMENTATIONS["unbatch"](self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Randomly shuffle with a buffer of ``buffer_size`` elements (see ``_ShuffleDataset``).

        A buffer at least as large as the dataset gives a uniform permutation;
        ``buffer_size=1`` changes nothing. With ``reshuffle_each_iteration`` every
        epoch (every ``iter``) gets a new order. Seeds follow ``tf.random``'s rules.
        """
        return _IMPLEMENTATIONS["shuffle"](self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None):
        """Repeat the dataset ``count`` times (``None`` or ``-1``: forever)."""
        return _IMPLEMENTATIONS["repeat"](self, count)

    def take(self, count, name=None):
        """At most the first ``count`` elements (``-1``: all)."""
        return _IMPLEMENTATIONS["take"](self, count)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (``-1``: skip everything)."""
        return _IMPLEMENTATIONS["skip"](self, count)

    def prefetch(self, buffer_size, name=None):
        """Produce up to ``buffer_size`` elements ahead, in a background thread (see ``prefetch.py``)."""
        return _IMPLEMENTATIONS["prefetch"](self, buffer_size)

    def cache(self, filename="", name=None):
        """Remember the elements of the first complete pass; later passes replay them from memory."""
        return _IMPLEMENTATIONS["cache"](self, filename)

    def enumerate(self, start=0, name=None):
        """Pair every element with its int64 index: ``(start, e0), (start + 1, e1), ...``.

        Implemented as TF does: ``zip((range(start, max_int64), self))``.
        """
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), self))

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at ``index``: this worker's share of a dataset.

        What a ``distribute_datasets_from_function`` ``dataset_fn`` calls with its
        ``InputContext`` (``shard(ctx.num_input_pipelines, ctx.input_pipeline_id)``).
        Built from ``enumerate`` and ``filter``; TF's errors for bad arguments.
        """
        num_shards, index = int(num_shards), int(index)
        if num_shards <= 0:
            raise InvalidArgumentError(
                None, None, f"Number of shards must be greater than zero (currently num_shards = {num_shards}).")
        if not 0 <= index < num_shards:
            raise InvalidArgumentError(
                None, None, f"Index must be between 0 and {num_shards - 1} (currently index = {index}).")
        return _renamed(self.enumerate().filter(
            lambda i, *_: math_ops.equal(math_ops.floormod(i, num_shards), index)).map(
            lambda i, *element: element[0] if len(element) == 1 else element), "_ShardDataset")

    def concatenate(self, dataset, name=None):
        """The elements of this dataset followed by those of ``dataset`` (same structure and dtypes)."""
        return _IMPLEMENTATIONS["concatenate"](self, dataset)

    def flat_map(self, map_func, name=None):
        """Map each element to a dataset and produce their elements in turn (``interleave`` with one open
        dataset; ``map_func`` is called eagerly, see ``nested.py``)."""
        return _renamed(_IMPLEMENTATIONS["interleave"](self, map_func, 1, 1), "_FlatMapDataset")

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of ``size`` elements (every ``stride``-th), one every ``shift`` elements; each window is a
        nest of datasets (see ``extras.py``): ``ds.window(3).flat_map(lambda w: w.batch(3))``."""
        return _IMPLEMENTATIONS["window"](self, size, shift, stride, drop_remainder)

    def scan(self, initial_state, scan_func, name=None):
        """A running state: ``scan_func(state, element) -> (new_state, output)`` (traced once)."""
        return _IMPLEMENTATIONS["scan"](self, initial_state, scan_func)

    def unique(self, name=None):
        """Drop elements seen before (scalar int32/int64/string elements)."""
        return _IMPLEMENTATIONS["unique"](self)

    def take_while(self, predicate, name=None):
        """Stop at the first element for which ``predicate`` (traced once) is False."""
        return _IMPLEMENTATIONS["take_while"](self, predicate)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """Re-cut batched elements into batches of ``batch_size`` (``unbatch().batch(batch_size)``, as TF
        does for a scalar ``batch_size``)."""
        return _renamed(self.unbatch().batch(batch_size, drop_remainder), "_RebatchDataset")

    def ignore_errors(self, log_warning=False, name=None):
        """Skip the elements whose computation raises (e.g. ``tf.debugging.check_numerics`` in a ``map``)."""
        return _IMPLEMENTATIONS["ignore_errors"](self, log_warning)

    def with_options(self, options, name=None):
        """Attach ``tf.data.Options`` (merged with the inputs'); accepted, without effect (see ``extras.py``)."""
        return _IMPLEMENTATIONS["with_options"](self, options)

    def options(self):
        """The ``tf.data.Options`` of this pipeline (those set by ``with_options`` upstream, merged)."""
        merged = Options()
        for d in self._inputs():
            merged = merged.merge(d.options())
        return merged

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Element ``i`` comes from ``datasets[choice_i]`` (``choice_dataset``: scalar int64 indices)."""
        return _IMPLEMENTATIONS["choose_from_datasets"](datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Each element from a randomly chosen dataset, with probabilities ``weights`` (seeded; see ``extras.py``)."""
        return _IMPLEMENTATIONS["sample_from_datasets"](datasets, weights, seed, stop_on_empty_dataset,
                                                        rerandomize_each_iteration)

    def apply(self, transformation_func):
        """``transformation_func(self)``: for reusable pipeline pieces."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError("`transformation_func` must return a `tf.data.Dataset` object.")
        return result

    def reduce(self, initial_state, reduce_func, name=None):
        """Fold the dataset into one value: ``state = reduce_func(state, element)`` per element.

        ``reduce_func`` is traced once (again if the state's shapes change, which
        relaxes them to ``None``) and runs as the ``ReduceDataset`` op, eagerly or
        inside a ``tf.function`` (see ``graph_ops.py``).
        """
        return reduce_dataset(self, initial_state, reduce_func)

    # ------------------------------------------------------------------------------------------
    # Consumption
    # ------------------------------------------------------------------------------------------
    def __iter__(self):
        """A fresh pass over the data. Eagerly: an iterator of eager tensors.

        While a ``tf.function`` is traced, this returns a graph iterator instead
        (``graph_ops.GraphIterator``): its ``next()`` adds an ``IteratorGetNext``
        node that reads the element when the function *runs*.
        """
        if ctx.graph is not None:
            return GraphIterator(self)
        return OwnedIterator(self)

    def as_numpy_iterator(self):
        """Iterate with NumPy values instead of tensors (a nest of arrays / NumPy scalars)."""
        if not executing_eagerly():
            raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in eager mode.")
        return NumpyIterator(self)

    @property
    def element_spec(self):
        """The type of one element: a nest of ``tf.TensorSpec`` (``None`` for unknown dims)."""
        return self._element_spec

    def cardinality(self):
        """The number of elements as an int64 scalar tensor, or ``INFINITE_CARDINALITY`` (-1) /
        ``UNKNOWN_CARDINALITY`` (-2)."""
        if ctx.graph is not None:
            counted = graph_cardinality(self)   # (a pipeline on a tf.function's dataset argument)
            if counted is not None:
                return counted
        return constant(self._cardinality(), dtypes.int64)

    def __len__(self):
        """The number of elements, when it is known and finite (TF's rules and messages)."""
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True   # a dataset is truthy even when empty (``__len__`` exists only for convenience), as in TF

    __nonzero__ = __bool__

    _repr_name = None
    """The class name ``repr`` shows, where it differs from the node's own: TF's name for the dataset it
    builds (``from_generator`` prints ``_FlatMapDataset``, a parallel ``map`` ``_ParallelMapDataset``...).
    A class attribute, or set on one instance by ``_renamed``."""

    def __repr__(self):
        return f"<{self._repr_name or type(self).__name__} element_spec={self.element_spec!r}>"

    # ------------------------------------------------------------------------------------------
    # What subclasses provide
    # ------------------------------------------------------------------------------------------
    def _inputs(self):
        return []

    def _cardinality(self):
        raise NotImplementedError

    def _make_iterator(self):
        raise NotImplementedError

    def _flat_specs(self):
        return structure.flat_specs(self._element_spec)

    def _describe(self):
        """One line about this node of the pipeline (its parameters)."""
        return type(self).__name__.lstrip("_")

    def _pipeline(self):
        """The pipeline graph as text, last transformation first (a teaching aid)::

            >>> print(Dataset.range(8).map(f).batch(4)._pipeline())
            BatchDataset(batch_size=4, drop_remainder=False)
              MapDataset(f)
                RangeDataset(0, 8, 1)
        """
        lines = []

        def walk(ds, depth):
            lines.append("  " * depth + ds._describe())
            for d in ds._inputs():
                walk(d, depth + 1)
        walk(self, 0)
        return "\n".join(lines)

    # ------------------------------------------------------------------------------------------
    # A dataset passed to a tf.function
    # ------------------------------------------------------------------------------------------
    # As in TF, a dataset argument is not a Python value baked into the trace: its type is its
    # ``DatasetSpec`` (the element_spec), so datasets of one element_spec share one trace, and the
    # graph takes it as one ``variant`` input (a ``Placeholder`` named after the argument). Inside,
    # the traced function sees a dataset known only when the function runs
    # (``extras.ArgumentDataset``); loops and iterators over it read the input at run time. The
    # protocol is ``tf.function``'s for arguments that are inputs but not tensors (an iterator's too:
    # ``iterator_ops.IteratorSpec``).
    def _function_input_spec(self):
        """The trace type of this dataset as a ``tf.function`` argument: ``tf.data.DatasetSpec``."""
        return _IMPLEMENTATIONS["DatasetSpec"](self.element_spec)

    def _resource_handle(self):
        """What the function's ``variant`` input is fed on a call: this dataset."""
        return self

    # ------------------------------------------------------------------------------------------
    # AutoGraph
    # ------------------------------------------------------------------------------------------
    def _autograph_for_stmt(self, extra_test, body, get_state, set_state, symbol_names=(), opts=None):
        """The ``for x in dataset:`` protocol for AutoGraph (see ``graph_ops.dataset_for_stmt``)."""
        return dataset_for_stmt(self, extra_test, body, get_state, set_state, symbol_names, opts)


def _check_parallelism(num_parallel_calls, op="ParallelMapDatasetV2"):
    if num_parallel_calls is None:
        return
    value = structure.as_int64(num_parallel_calls, "num_parallel_calls")
    if value <= 0 and value != AUTOTUNE:
        raise InvalidArgumentError(None, None, f"num_parallel_calls must be greater than zero. [Op:{op}]")
