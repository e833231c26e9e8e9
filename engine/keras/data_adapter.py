"""How ``fit``/``evaluate``/``predict`` turn their inputs into batches.

Two kinds of input are accepted:

* **Arrays** (NumPy arrays or tensors; also lists/dicts of them for several
  inputs) with ``y`` and ``sample_weight`` beside them. Batches of ``batch_size``
  (default 32) rows are cut each epoch; ``shuffle=True`` draws a new permutation
  per epoch with ``tf.random.shuffle`` (reproducible after ``tf.random.set_seed``);
  the last batch may be smaller. Float64 arrays become float32, as in Keras.
* **Datasets**: any re-iterable object yielding batches, ``(x, y)`` or
  ``(x, y, sample_weight)`` tuples (or ``x`` alone for ``predict``): a
  ``tf.data.Dataset``, a list of tuples, a generator function's result... A new
  iterator is taken each epoch, unless ``steps_per_epoch`` is given, in which case
  one iterator is drawn from across epochs, as Keras does. The number of steps is
  ``len(dataset)`` when that is known (the progress bar shows "Unknown" otherwise).

:func:`train_validation_split` implements ``validation_split``: the *last*
fraction of the arrays, taken before any shuffling.

``class_weight`` (``fit``) becomes per-sample weights read from the labels
(:func:`class_weight_to_sample_weights`: the class of a one-hot row is its
argmax, a ``(n, 1)`` or ``(n,)`` label is rounded to an int; classes missing
from the dict weigh 1.0): computed once for arrays, per batch for datasets.
"""
import math
import warnings

import numpy as np

from ..framework import dtypes
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor
from ..ops import math_ops, random_ops
from ..util import nest

__all__ = ["EpochIterator", "unpack_x_y_sample_weight", "pack_x_y_sample_weight", "train_validation_split",
           "class_weight_to_sample_weights"]


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from a batch: a tuple of 1 to 3 items, or ``x`` alone."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: "
                     f"{data}")


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    if y is None:
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def class_weight_to_sample_weights(y, class_weight):
    """Per-sample float32 weights ``class_weight.get(class_of(y[i]), 1.0)`` (Keras 3's rule)."""
    if isinstance(y, (dict, list, tuple)) and not isinstance(y, np.ndarray):
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    y = np.asarray(y.numpy() if hasattr(y, "numpy") else y)
    weights = np.ones((y.shape[0],), dtype=np.float32)
    if y.ndim > 1:
        y = np.argmax(y, axis=-1) if y.shape[-1] != 1 else np.squeeze(y, axis=-1)
    classes = np.round(y).astype(np.int32)
    for i, c in enumerate(classes.reshape(-1)[:weights.shape[0]]):
        weights[i] = class_weight.get(int(c), 1.0)
    return weights


def _check_class_weight(sample_weight):
    if sample_weight is not None:
        raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")


def _is_array(x):
    return isinstance(x, (np.ndarray, Tensor)) or hasattr(x, "_is_variable")


def is_array_data(x):
    """True for arrays (and lists/tuples/dicts of arrays); False for datasets and other iterables."""
    if _is_array(x):
        return True
    if isinstance(x, dict):
        return all(_is_array(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return len(x) > 0 and (all(_is_array(v) for v in x) or all(isinstance(v, (int, float, bool, list))
                                                                  for v in x))
    return False


def _to_numpy(x):
    if x is None:
        return None
    if isinstance(x, dict):
        return {k: _to_numpy(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)) and x and all(_is_array(v) for v in x):
        return type(x)(_to_numpy(v) for v in x)
    arr = x.numpy() if hasattr(x, "numpy") else np.asarray(x)
    arr = np.asarray(arr)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    return arr


def train_validation_split(arrays, validation_split):
    """Split ``(x, y, sample_weight)`` arrays: the last ``validation_split`` fraction validates."""
    flat = [a for a in nest.flatten(arrays) if a is not None]
    if not all(_is_array(a) for a in flat):
        raise ValueError("Argument `validation_split` is only supported for tensors or NumPy arrays.Found "
                         f"incompatible type in the input: {[type(a) for a in flat if not _is_array(a)]}")
    arrays = nest.map_structure(lambda a: None if a is None else _to_numpy(a), arrays)
    n = nest.flatten([a for a in nest.flatten(arrays) if a is not None])[0].shape[0]
    split_at = int(math.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to split it into a "
                         f"validation and training set as specified by `validation_split={validation_split}`. Either "
                         f"provide more data, or a different value for the `validation_split` argument.")
    train = nest.map_structure(lambda a: None if a is None else a[:split_at], arrays)
    val = nest.map_structure(lambda a: None if a is None else a[split_at:], arrays)
    return train, val


def _as_tensors(batch):
    """Leaves of a batch as eager tensors (so ``tf.function`` takes its fast call path)."""
    def convert(x):
        if x is None or isinstance(x, EagerTensor):
            return x
        if isinstance(x, np.ndarray) and x.dtype == np.float64:
            x = x.astype(np.float32)
        return convert_to_tensor(x)
    return nest.map_structure(convert, batch)


class EpochIterator:
    """Batches for one pass (epoch) at a time: ``for step, batch in it.enumerate_epoch(): ...``."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None, shuffle=False,
                 class_weight=None):
        self.steps_per_epoch = steps_per_epoch
        self._iterator = None
        self._class_weight = class_weight or None
        if is_array_data(x):
            if self._class_weight is not None:
                _check_class_weight(sample_weight)
                sample_weight = class_weight_to_sample_weights(_to_numpy(y), self._class_weight)
            self._arrays = pack_x_y_sample_weight(_to_numpy(x), _to_numpy(y), _to_numpy(sample_weight))
            sizes = {a.shape[0] for a in nest.flatten(self._arrays) if a is not None}
            if len(sizes) != 1:
                raise ValueError(f"Data cardinality is ambiguous. Make sure all arrays contain the same number of "
                                 f"samples. Received sizes: {sorted(sizes)}")
            self.num_samples = sizes.pop()
            self.batch_size = batch_size or 32
            self.shuffle = shuffle
            batches = math.ceil(self.num_samples / self.batch_size)
            self.num_batches = min(batches, steps_per_epoch) if steps_per_epoch else batches
            self._dataset = None
        else:
            if y is not None:
                raise ValueError("When providing `x` as a dataset or another iterable of batches, `y` should not be "
                                 "passed. Instead, the targets should be included as part of the dataset `x`.")
            if sample_weight is not None:
                raise ValueError("When providing `x` as a dataset, `sample_weight` should not be passed. Instead, "
                                 "the sample weights should be included as part of the dataset `x`.")
            if batch_size is not None:
                raise ValueError("The `batch_size` argument must not be specified for the given input type (a dataset "
                                 "yields batches already). Received: batch_size=" + str(batch_size))
            if not hasattr(x, "__iter__"):
                raise ValueError(f"Unrecognized data type: x={x!r} (of type {type(x).__name__}). Pass NumPy arrays, "
                                 f"tensors, or an iterable of batches such as a tf.data.Dataset.")
            self._dataset = x
            self._arrays = None
            self.num_batches = steps_per_epoch or _known_length(x)

    def enumerate_epoch(self):
        """Yield ``(step, batch)`` for one epoch; a batch is a tuple ``(x,)``, ``(x, y)`` or ``(x, y, sw)``."""
        if self._arrays is not None:
            yield from self._array_epoch()
        else:
            yield from self._dataset_epoch()

    def _array_epoch(self):
        n, bs = self.num_samples, self.batch_size
        if self.shuffle:
            order = random_ops.shuffle(math_ops.cast(convert_to_tensor(np.arange(n)), dtypes.int64)).numpy()
        else:
            order = None
        for step in range(self.num_batches):
            if order is None:
                batch = nest.map_structure(lambda a: None if a is None else a[step * bs:(step + 1) * bs],
                                           self._arrays)
            else:
                index = order[step * bs:(step + 1) * bs]
                batch = nest.map_structure(lambda a: None if a is None else a[index], self._arrays)
            yield step, _as_tensors(_strip_none(batch))

    def _batch_from_dataset(self, element):
        batch = _as_tuple(element)
        if self._class_weight is not None:
            x, y, sample_weight = unpack_x_y_sample_weight(batch)
            _check_class_weight(sample_weight)
            batch = (x, y, class_weight_to_sample_weights(y, self._class_weight))
        return _as_tensors(batch)

    def _dataset_epoch(self):
        if self.steps_per_epoch is None:
            for step, element in enumerate(self._dataset):
                yield step, self._batch_from_dataset(element)
            return
        for step in range(self.steps_per_epoch):
            if self._iterator is None:
                self._iterator = iter(self._dataset)
            try:
                element = next(self._iterator)
            except StopIteration:
                self._iterator = None
                warnings.warn("Your input ran out of data; interrupting epoch. Make sure that your dataset or "
                              "generator can generate at least `steps_per_epoch * epochs` batches.")
                return
            yield step, self._batch_from_dataset(element)


def _as_tuple(element):
    if isinstance(element, list):
        return tuple(element)
    return element if isinstance(element, tuple) else (element,)


def _strip_none(batch):
    while len(batch) > 1 and batch[-1] is None:
        batch = batch[:-1]
    return batch


def _known_length(dataset):
    try:
        n = len(dataset)
    except (TypeError, ValueError, NotImplementedError):
        return None
    return int(n) if n is not None and n >= 0 else None
