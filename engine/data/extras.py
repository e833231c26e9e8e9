"""More transformations: ``window`` (+ ``flat_map``), ``choose_from_datasets``, ``sample_from_datasets``,
``scan``, ``unique``, ``take_while``, ``rebatch``, ``ignore_errors``, and ``with_options``.

``window(size, shift, stride, drop_remainder)``
    Each element is a *dataset* (one per component of the input element, in
    its structure) holding ``size`` consecutive input elements, every
    ``stride``-th, starting every ``shift`` elements. The usual idiom turns the
    windows back into tensors: ``ds.window(3, shift=1).flat_map(lambda w:
    w.batch(3))``. The element spec is a nest of :class:`DatasetSpec`. Window
    datasets are held in memory (their elements were already pulled).

``flat_map(f)``
    ``f`` maps each element to a dataset whose elements are produced in turn:
    ``interleave(f, cycle_length=1, block_length=1)``, called eagerly as in
    ``interleave`` (see ``nested.py``).

``scan(initial_state, scan_func)``
    ``scan_func(state, element) -> (new_state, output)``, traced once as
    ``map`` functions are; the state must keep its dtypes and shapes.

``sample_from_datasets(datasets, weights, seed)``
    Each element comes from dataset ``i`` drawn with probability
    ``weights[i]``. Seeded with NumPy's Philox generator: same seed, same
    sequence, but not TF's sequence. ``stop_on_empty_dataset=False`` (the
    default) drops exhausted inputs and renormalizes the weights; ``True``
    stops at the first exhausted input.

``tf.data.Options`` / ``with_options``: accepted and returned by
``options()``, with TF's attribute names, but **no option changes what the
engine does** (it has no graph rewrites, maps sequentially, and its one
thread is ``prefetch``'s). ``deterministic=False`` in particular does not
reorder anything. ``Options`` itself is in ``options.py``.
"""
import collections
import threading

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError, OpError, OutOfRangeError
from ..framework.tensor_spec import TensorSpec
from ..ops.random_ops import get_seed
from ..util import nest
from . import structure
from .dataset_ops import INFINITE_CARDINALITY as INF, UNKNOWN_CARDINALITY as UNKNOWN, Dataset, implements
from .functions import StructuredFunction
from .nested import InMemoryDataset
from .options import Options

__all__ = ["DatasetSpec", "ArgumentDataset", "Options"]


@implements("DatasetSpec")
class DatasetSpec:
    """``tf.data.DatasetSpec``: the type of a dataset, its ``element_spec``.

    The type of an element that is itself a dataset (``window``'s elements), and the trace type
    of a dataset passed to a ``tf.function`` (``Dataset._function_input_spec``): the graph gets
    one ``variant`` input for it, and the traced function an :class:`ArgumentDataset`.
    """

    dtype = dtypes.variant   # (the dtype of the function input that carries such a dataset)

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = tuple(dataset_shape)

    @property
    def element_spec(self):
        return self._element_spec

    def _placeholder_value(self, handle):
        """What a traced function receives for a dataset argument, given its ``variant`` input."""
        return ArgumentDataset(handle, self._element_spec)

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and other._element_spec == self._element_spec

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"DatasetSpec({self._element_spec!r}, TensorShape({list(self._dataset_shape)}))"


class ArgumentDataset(Dataset):
    """A dataset argument inside a traced ``tf.function``: the dataset a call passes, known when it runs.

    It has the argument's ``element_spec``, and transformations build on it as on any dataset
    (``ds.map(f).batch(2)`` inside the function). The ops that iterate a pipeline in the graph
    (``ReduceDataset``, ``AnonymousIteratorV3``: ``graph_ops.py``) take the function's ``variant``
    input of each argument dataset they reach; their kernels :meth:`bind` it to the dataset fed on
    that call before iterating.
    """

    def __init__(self, handle, element_spec):
        self._handle = handle                  # the FuncGraph's variant placeholder
        self._element_spec = element_spec
        self._fed = threading.local()          # the dataset of the call running in this thread

    @property
    def variant_tensor(self):
        return self._handle

    def _resource_handle(self):
        return self._handle   # (passed on to a function called inside the function: its variant input)

    def bind(self, dataset):
        """Set the dataset this argument stands for while the function runs (in this thread).

        A dataset whose elements are not of the traced types is refused, as TF's kernels refuse it.
        """
        expected = [s.dtype for s in structure.flat_specs(self._element_spec)]
        actual = [s.dtype for s in structure.flat_specs(dataset.element_spec)]
        if len(actual) != len(expected):
            raise InvalidArgumentError(None, None, f"Number of components does not match: expected "
                                                   f"{len(expected)} types but got {len(actual)}.")
        for got, want in zip(actual, expected):
            if got != want:
                raise InvalidArgumentError(None, None, f"Type mismatch: actual {got.runtime_name} vs. expect "
                                                       f"{want.runtime_name}")
        self._fed.dataset = dataset

    def _bound(self):
        dataset = getattr(self._fed, "dataset", None)
        if dataset is None:
            raise RuntimeError("This dataset is a tf.function's argument: it can be iterated only inside the "
                               "function's graph, which is given a dataset when it runs.")
        return dataset

    def _cardinality(self):
        dataset = getattr(self._fed, "dataset", None)   # (known only when the function runs)
        return UNKNOWN if dataset is None else dataset._cardinality()

    def _make_iterator(self):
        return self._bound()._make_iterator()

    def _describe(self):
        return f"the function's argument {self._handle.op.name!r}"


# --------------------------------------------------------------------------------------
# window
# --------------------------------------------------------------------------------------
@implements("window")
class _WindowDataset(Dataset):
    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        self._input = input_dataset
        self._size = structure.as_int64(size, "size")
        self._shift = self._size if shift is None else structure.as_int64(shift, "shift")
        self._stride = structure.as_int64(stride, "stride")
        for name, v in (("size", self._size), ("shift", self._shift), ("stride", self._stride)):
            if v <= 0:
                raise InvalidArgumentError(None, None, f"Window {name} must be greater than zero, but got {v}. "
                                                       f"[Op:WindowDataset]")
        self._drop = bool(drop_remainder)
        self._specs = structure.flat_specs(input_dataset.element_spec)
        self._element_spec = nest.map_structure(lambda s: DatasetSpec(s), input_dataset.element_spec)

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._drop:
            return max(0, (n - (self._size - 1) * self._stride - 1) // self._shift + 1)
        return -(-n // self._shift)

    def _make_iterator(self):
        return _WindowIterator(self)


class _WindowIterator:
    def __init__(self, ds):
        self._ds = ds
        self._input = ds._input._make_iterator()
        self._buffer = collections.deque()   # input elements from index self._start on
        self._start = 0
        self._done = False

    def _fill(self, upto):
        while not self._done and len(self._buffer) < upto:
            try:
                self._buffer.append(next(self._input))
            except StopIteration:
                self._done = True

    def __next__(self):
        ds = self._ds
        span = (ds._size - 1) * ds._stride + 1
        self._fill(span)
        if not self._buffer:
            raise StopIteration
        picked = [self._buffer[i] for i in range(0, min(span, len(self._buffer)), ds._stride)]
        if ds._drop and len(picked) < ds._size:
            raise StopIteration
        # move on by ``shift`` input elements
        for _ in range(ds._shift):
            if not self._buffer:
                self._fill(1)
                if not self._buffer:
                    break
            self._buffer.popleft()
        return tuple(InMemoryDataset([(e[i],) for e in picked], spec) for i, spec in enumerate(ds._specs))


# --------------------------------------------------------------------------------------
# choose_from_datasets / sample_from_datasets
# --------------------------------------------------------------------------------------
def _common_spec(datasets):
    specs = [d.element_spec for d in datasets]
    for s in specs[1:]:
        try:
            nest.assert_same_structure(specs[0], s)
            ok = all(a.dtype == b.dtype for a, b in zip(nest.flatten(specs[0]), nest.flatten(s)))
        except (ValueError, TypeError):
            ok = False
        if not ok:
            raise TypeError(f"Incompatible dataset elements: {specs[0]!r} vs. {s!r}")
    return nest.map_structure(
        lambda *xs: TensorSpec(_most_specific(xs), xs[0].dtype), *specs)


def _most_specific(specs):
    shape = specs[0].shape
    for s in specs[1:]:
        shape = shape.most_specific_compatible_shape(s.shape)
    return shape


class _DirectedInterleaveDataset(Dataset):
    """Elements picked from ``datasets`` by a selector (a dataset of indices, or a seeded generator)."""

    def __init__(self, datasets, selector, stop_on_empty_dataset):
        self._datasets = list(datasets)
        if not self._datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        self._selector = selector
        self._stop = bool(stop_on_empty_dataset)
        self._element_spec = _common_spec(self._datasets)

    def _inputs(self):
        return list(self._datasets)

    def _cardinality(self):
        return UNKNOWN

    def _make_iterator(self):
        return _DirectedIterator(self)


class _DirectedIterator:
    def __init__(self, ds):
        self._ds = ds
        self._iterators = [d._make_iterator() for d in ds._datasets]
        self._live = [True] * len(self._iterators)
        self._choices = ds._selector.start()

    def __next__(self):
        while True:
            i = self._choices.next(self._live)
            if i is None:
                raise StopIteration
            if not 0 <= i < len(self._iterators):
                raise InvalidArgumentError(None, None, f"Selector index out of range: {i} >= "
                                                       f"{len(self._iterators)} [Op:DirectedInterleaveDataset]")
            if not self._live[i]:
                continue
            try:
                return next(self._iterators[i])
            except StopIteration:
                if self._ds._stop:
                    raise
                self._live[i] = False


class _IndexSelector:
    def __init__(self, choice_dataset):
        spec = choice_dataset.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype != dtypes.int64 or spec.shape.rank != 0:
            raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
                            f"tensors. Received: {spec}.")
        self._dataset = choice_dataset

    def start(self):
        it = self._dataset._make_iterator()

        class _Next:
            def next(self, live):
                if not any(live):
                    return None
                try:
                    return int(next(it)[0])
                except StopIteration:
                    return None
        return _Next()


class _RandomSelector:
    def __init__(self, weights, seed, n):
        w = np.full(n, 1.0 / n) if weights is None else np.asarray(
            weights.numpy() if hasattr(weights, "numpy") else weights, dtype=np.float64)
        if w.shape != (n,):
            raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible with `[len(datasets)]` "
                             f"but is {list(w.shape)}.")
        self._weights = w
        s1, s2 = get_seed(seed)
        if s1 is None:
            s1, s2 = (int(s) for s in np.random.SeedSequence().generate_state(2))
        self._seed_rng = np.random.Generator(np.random.Philox(key=np.array([s1, s2], np.uint64)))

    def start(self):
        rng = np.random.Generator(np.random.Philox(key=self._seed_rng.integers(0, 2 ** 63, size=2, dtype=np.uint64)))
        weights = self._weights

        class _Next:
            def next(self, live):
                w = weights * np.asarray(live, dtype=np.float64)
                if w.sum() <= 0:
                    return None
                return int(rng.choice(len(w), p=w / w.sum()))
        return _Next()


@implements("choose_from_datasets")
def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    return _DirectedInterleaveDataset(datasets, _IndexSelector(choice_dataset), stop_on_empty_dataset)


@implements("sample_from_datasets")
def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
    datasets = list(datasets)
    return _DirectedInterleaveDataset(datasets, _RandomSelector(weights, seed, len(datasets)), stop_on_empty_dataset)


# --------------------------------------------------------------------------------------
# scan / unique / take_while / rebatch / ignore_errors
# --------------------------------------------------------------------------------------
@implements("scan")
class _ScanDataset(Dataset):
    def __init__(self, input_dataset, initial_state, scan_func):
        self._input = input_dataset
        state = structure.normalize_element(initial_state, "initial_state")
        self._state_spec = structure.spec_of(state)
        self._state = tuple(structure.host_value(t.numpy()) for t in nest.flatten(state))
        self._function = StructuredFunction(scan_func, (self._state_spec, input_dataset.element_spec),
                                            "Dataset.scan")
        out = self._function.output_spec
        if not isinstance(out, tuple) or len(out) != 2:
            raise TypeError(f"The scan function must return a pair comprising the new state and the output value. "
                            f"Got {out!r}.")
        new_state, self._element_spec = out
        try:
            nest.assert_same_structure(new_state, self._state_spec)
            same = all(a.dtype == b.dtype for a, b in zip(nest.flatten(new_state), nest.flatten(self._state_spec)))
        except (ValueError, TypeError):
            same = False
        if not same:
            raise TypeError(f"The element types for the new state must match the initial state. Expected "
                            f"{self._state_spec!r}; got {new_state!r}.")
        self._n_state = len(self._state)

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        return self._input._cardinality()

    def _make_iterator(self):
        return _ScanIterator(self)


class _ScanIterator:
    def __init__(self, ds):
        self._ds, self._input, self._state = ds, ds._input._make_iterator(), ds._state

    def __next__(self):
        element = next(self._input)
        out = self._ds._function(self._state + tuple(element))
        self._state = out[:self._ds._n_state]
        return out[self._ds._n_state:]


@implements("unique")
class _UniqueDataset(Dataset):
    def __init__(self, input_dataset):
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec) or spec.shape.rank != 0 or not (
                spec.dtype.is_integer or spec.dtype == dtypes.string):
            raise TypeError(f"`Dataset.unique()` does not support type {spec!r}: only scalar tf.int32, tf.int64 "
                            f"and tf.string elements are supported.")
        self._input = input_dataset
        self._element_spec = spec

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        n = self._input._cardinality()
        return INF if n == INF else UNKNOWN

    def _make_iterator(self):
        seen, it = set(), self._input._make_iterator()

        class _It:
            def __next__(self):
                while True:
                    element = next(it)
                    key = element[0].item() if hasattr(element[0], "item") else element[0]
                    if key not in seen:
                        seen.add(key)
                        return element
        return _It()


@implements("take_while")
class _TakeWhileDataset(Dataset):
    def __init__(self, input_dataset, predicate):
        self._function = StructuredFunction(predicate, input_dataset.element_spec, "Dataset.take_while")
        out = self._function.output_spec
        if not isinstance(out, TensorSpec) or out.dtype != dtypes.bool or out.shape.rank != 0:
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
                             f"return type is {out!r}.")
        self._input = input_dataset
        self._element_spec = input_dataset.element_spec

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        return UNKNOWN

    def _make_iterator(self):
        it, fn, done = self._input._make_iterator(), self._function, [False]

        class _It:
            def __next__(self):
                if done[0]:
                    raise StopIteration
                element = next(it)
                if not fn(element)[0]:
                    done[0] = True
                    raise StopIteration
                return element
        return _It()


@implements("ignore_errors")
class _IgnoreErrorsDataset(Dataset):
    def __init__(self, input_dataset, log_warning):
        self._input = input_dataset
        self._log = log_warning
        self._element_spec = input_dataset.element_spec

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        return UNKNOWN

    def _make_iterator(self):
        it, log = self._input._make_iterator(), self._log

        class _It:
            def __next__(self):
                while True:
                    try:
                        return next(it)
                    except (OpError, ValueError, ArithmeticError) as error:
                        if isinstance(error, OutOfRangeError):
                            raise StopIteration from None
                        if log:
                            import warnings
                            warnings.warn(f"Dataset.ignore_errors: skipping an element that raised {error!r}")
        return _It()


# --------------------------------------------------------------------------------------
# with_options (tf.data.Options itself is in options.py)
# --------------------------------------------------------------------------------------
@implements("with_options")
class _OptionsDataset(Dataset):
    def __init__(self, input_dataset, options):
        if not isinstance(options, Options):
            raise TypeError(f"`options` must be a `tf.data.Options`, got {options!r}.")
        self._input = input_dataset
        self._options = input_dataset.options().merge(options)
        self._element_spec = input_dataset.element_spec

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        return self._input._cardinality()

    def _make_iterator(self):
        return self._input._make_iterator()

    def options(self):
        return self._options
