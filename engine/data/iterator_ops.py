"""The public iterators: what ``iter(dataset)`` and ``as_numpy_iterator()`` return.

They wrap the internal iterator chain (``dataset._make_iterator()``), which
yields flat tuples of host components, and turn each into what the user
sees: eager tensors on the host CPU packed as ``element_spec``
(:class:`OwnedIterator`), or NumPy values (:class:`NumpyIterator`).
``for x, y in dataset:`` is exactly ``it = iter(dataset)`` then ``next(it)``
until ``StopIteration``; Keras' ``fit`` consumes datasets the same way.
"""
from ..framework import dtypes
from ..framework.errors import InvalidArgumentError, OpError, OutOfRangeError, finish_op_message
from ..framework.tensor import constant
from ..util import nest
from . import graph_ops, structure

__all__ = ["OwnedIterator", "NumpyIterator", "Optional", "IteratorSpec"]


class IteratorSpec:
    """``tf.data.IteratorSpec``: the type of an iterator, its ``element_spec``; how ``tf.function`` keys it.

    An :class:`OwnedIterator` passed to a ``tf.function`` is not a Python value baked into the trace but,
    as in TF, a *resource* argument: the graph gets one ``resource`` placeholder for it, and ``next(it)``
    inside the function is an ``IteratorGetNext`` node reading that input, so every call advances the
    iterator it is given (``graph_ops.bound_graph_iterator``). Iterators with equal specs share a trace.
    The tracing protocol (``engine/tracing/function.py``): the argument's ``_function_input_spec()`` is
    this spec (its trace key and signature entry), ``_placeholder_value(handle)`` is what the traced
    Python function receives, and the argument's ``_resource_handle()`` is what a call feeds.
    """

    dtype = dtypes.resource

    def __init__(self, element_spec):
        self._element_spec = element_spec
        flat = structure.flat_specs(element_spec)
        self._key = (nest.pack_sequence_as(element_spec, [0] * len(flat)) if nest.is_nested(element_spec) else 0,
                     tuple((s.dtype, s.shape) for s in flat))

    @property
    def element_spec(self):
        return self._element_spec

    def _placeholder_value(self, handle):
        return graph_ops.bound_graph_iterator(self._element_spec, handle)

    def __eq__(self, other):
        return isinstance(other, IteratorSpec) and repr(self._key) == repr(other._key)

    def __hash__(self):
        return hash(repr(self._key))

    def __repr__(self):
        return f"IteratorSpec{(self._element_spec,)!r}"


class Optional:
    """``tf.experimental.Optional``: a value that may be missing (``get_next_as_optional``'s result).

    ``has_value()`` is a bool scalar tensor; ``get_value()`` returns the value,
    or raises ``InvalidArgumentError`` when there is none (TF's error class).
    """

    def __init__(self, value=None, element_spec=None, has_value=True):
        self._value = value
        self._element_spec = element_spec
        self._has_value = has_value

    @staticmethod
    def from_value(value):
        return Optional(value, structure.spec_of(nest.map_structure(lambda x: x, value)), True)

    @staticmethod
    def empty(element_spec):
        return Optional(None, element_spec, False)

    @property
    def element_spec(self):
        return self._element_spec

    def has_value(self, name=None):
        return constant(self._has_value)

    def get_value(self, name=None):
        if not self._has_value:
            raise InvalidArgumentError(None, None, "The given optional does not have a value. [Op:OptionalGetValue]")
        return self._value

    def __repr__(self):
        return f"<Optional has_value={self._has_value} element_spec={self._element_spec!r}>"


class _CountingIterator:
    """The internal iterator chain, counting the elements taken from it (eagerly or by a traced
    ``IteratorGetNext``): the position a checkpoint of the iterator saves."""

    __slots__ = ("_chain", "count")

    def __init__(self, chain, count=0):
        self._chain = chain
        self.count = count

    def __iter__(self):
        return self

    def __next__(self):
        element = next(self._chain)
        self.count += 1
        return element

    def close(self):
        _close(self._chain)


class OwnedIterator:
    """``iter(dataset)`` in eager mode: one pass over the data, elements as eager tensors.

    ``tf.train.Checkpoint(iterator=it)`` saves its position and restores it: the restored
    iterator continues where the saved one was (TF's iterator checkpointing). Deliberate
    difference: TF saves the pipeline's internal state (buffers, random states); the engine saves
    how many elements were taken, and restores by remaking the iterator from its dataset and
    skipping that many. That is exact for pipelines that produce the same sequence each time they are
    iterated (no unseeded shuffles or random maps, no reshuffle between iterations), and takes time
    proportional to the position.
    """

    def __init__(self, dataset):
        self._dataset = dataset
        self._element_spec = dataset.element_spec
        self._iterator = _CountingIterator(dataset._make_iterator())

    # --- checkpointing (tf.train.Checkpoint) ------------------------------------------------------
    def _checkpoint_position(self):
        """How many elements this iterator has produced: what a checkpoint saves."""
        return self._iterator.count if isinstance(self._iterator, _CountingIterator) else 0

    def _restore_position(self, position):
        """Continue after the first ``position`` elements of the dataset (what a checkpoint restores)."""
        position = int(position)
        if position < 0:
            raise InvalidArgumentError(None, None, f"Invalid iterator position {position} in the checkpoint.")
        _close(self._iterator)
        chain = self._dataset._make_iterator()
        for _ in range(position):
            try:
                next(chain)
            except StopIteration:
                break
        self._iterator = _CountingIterator(chain, position)

    @property
    def element_spec(self):
        return self._element_spec

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return structure.to_tensors(self._element_spec, next(self._iterator))
        except OpError as error:   # TF: the error of the op that computes the next element
            if "[Op:IteratorGetNext]" not in error.message:
                error.message = finish_op_message(f"{error.message} [Op:IteratorGetNext]")
                error.args = (error.message,)
            raise

    def next(self):
        return self.__next__()

    def get_next(self):
        """Like ``next(it)``, but the end of the data raises ``tf.errors.OutOfRangeError`` (TF's API)."""
        try:
            return self.__next__()
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence [Op:IteratorGetNext]") from None

    def get_next_as_optional(self):
        """The next element as a ``tf.experimental.Optional`` (empty at the end instead of raising)."""
        try:
            return Optional(self.__next__(), self._element_spec, True)
        except StopIteration:
            return Optional(None, self._element_spec, False)

    def close(self):
        """Release the pipeline now (stops prefetch threads); done anyway when the iterator is collected."""
        _close(self._iterator)
        self._iterator = iter(())

    # --- as a tf.function argument: a resource input (see IteratorSpec) ----------------------------
    def _function_input_spec(self):
        return IteratorSpec(self._element_spec)

    def _resource_handle(self):
        """What a traced function's ``resource`` input is fed: this iterator (``IteratorGetNext`` pulls
        ``handle.iterator``, the same pass ``next(it)`` continues eagerly)."""
        return self

    @property
    def iterator(self):
        return self._iterator

    def __repr__(self):
        return f"<OwnedIterator element_spec={self._element_spec!r}>"


class NumpyIterator:
    """``as_numpy_iterator()``: elements as NumPy arrays / NumPy scalars (strings as bytes)."""

    def __init__(self, dataset):
        self._element_spec = dataset.element_spec
        self._iterator = dataset._make_iterator()

    def __iter__(self):
        return self

    def __next__(self):
        return structure.to_numpy(self._element_spec, next(self._iterator))

    next = __next__

    def close(self):
        _close(self._iterator)
        self._iterator = iter(())

    def __repr__(self):
        return f"NumpyIterator(iterator={self._iterator!r})"


def _close(iterator):
    """Close a pipeline: a prefetch iterator on top stops its thread; dropping the chain lets the rest go."""
    close = getattr(iterator, "close", None)
    if close is not None:
        close()
