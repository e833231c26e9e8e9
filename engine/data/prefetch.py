"""``prefetch``: produce elements in a background thread while the consumer works.

Without prefetching, a training step waits while the pipeline makes the next
batch, and the pipeline waits while the step runs. ``ds.prefetch(n)`` decouples
them: a *producer* thread pulls from the input iterator and puts elements into
a bounded queue of ``n`` slots; ``next()`` takes from the queue. While the
queue is full the producer blocks, so at most ``n`` elements are ready ahead
(bounded memory). NumPy releases the GIL in most array work, so the overlap is
real even in Python.

The life of the thread, which the tests check:

* **Start:** on the first ``next()`` (an iterator never used starts nothing).
* **End of data:** the producer puts an *end* marker and exits by itself;
  the consumer's ``next()`` raises ``StopIteration`` and joins it.
* **Errors:** an exception raised upstream (a failing ``map``, a ``batch`` of
  mismatched shapes) is put in the queue *in place of* that element and
  re-raised by the consumer's ``next()``, with its original class. As in TF
  the iterator stays usable: the following ``next()`` returns the following
  element.
* **Abandoned iterators:** the thread holds no reference to the iterator the
  user holds. When that iterator is closed (``close()``) or garbage-collected
  (``break`` out of a ``for`` loop, ``del it``), a finalizer sets a stop flag,
  empties the queue so a blocked producer wakes up, and joins the thread. The
  producer checks the flag between elements and while waiting for room.

``buffer_size=0`` prefetches nothing (no thread); ``tf.data.AUTOTUNE`` picks
:data:`AUTOTUNE_BUFFER_SIZE` (TF tunes it at run time; the engine does not).
"""
import itertools
import queue
import threading
import weakref

from ..framework.errors import InvalidArgumentError
from . import structure
from .dataset_ops import AUTOTUNE, implements
from .transforms import _UnaryDataset

__all__ = ["_PrefetchDataset", "AUTOTUNE_BUFFER_SIZE", "THREAD_NAME_PREFIX"]

AUTOTUNE_BUFFER_SIZE = 4
THREAD_NAME_PREFIX = "tf.data prefetch"
_POLL_SECONDS = 0.05          # how often a producer waiting for room re-checks its stop flag
_JOIN_SECONDS = 5.0
_ELEMENT, _ERROR, _END = "element", "error", "end"
_thread_ids = itertools.count(1)


@implements("prefetch")
class _PrefetchDataset(_UnaryDataset):
    """``prefetch(buffer_size)``: same elements, produced ahead in a thread."""

    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        buffer_size = structure.as_int64(buffer_size, "buffer_size")
        if buffer_size < AUTOTUNE:
            raise InvalidArgumentError(None, None, "buffer_size must be >= 0 or set buffer_size to be -1 for "
                                                   "auto-tuning [Op:PrefetchDataset]")
        self._buffer_size = buffer_size

    def _make_iterator(self):
        if self._buffer_size == 0:
            return self._input._make_iterator()
        size = AUTOTUNE_BUFFER_SIZE if self._buffer_size == AUTOTUNE else self._buffer_size
        return _PrefetchIterator(self._input, size)

    def _describe(self):
        size = "AUTOTUNE" if self._buffer_size == AUTOTUNE else self._buffer_size
        return f"PrefetchDataset(buffer_size={size})"


class _PrefetchIterator:
    """What the consumer holds. Its only link to the thread is the shared :class:`_Channel`."""

    __slots__ = ("_channel", "_finalizer", "__weakref__")

    def __init__(self, dataset, buffer_size):
        self._channel = _Channel(dataset, buffer_size)
        self._finalizer = weakref.finalize(self, self._channel.shutdown)

    def __iter__(self):
        return self

    def __next__(self):
        return self._channel.get()

    def close(self):
        """Stop and join the producer thread now (also done when the iterator is garbage-collected)."""
        self._finalizer()


class _Channel:
    """The state shared by the consumer and the producer thread: a bounded queue and a stop flag."""

    def __init__(self, dataset, buffer_size):
        self.dataset = dataset
        self.queue = queue.Queue(maxsize=buffer_size)
        self.stop = threading.Event()
        self.thread = None
        self.done = False

    def get(self):
        if self.done:
            raise StopIteration
        if self.thread is None:
            self.thread = threading.Thread(target=_produce, args=(self.dataset, self.queue, self.stop),
                                           name=f"{THREAD_NAME_PREFIX} {next(_thread_ids)}", daemon=True)
            self.thread.start()
        kind, value = self.queue.get()
        if kind is _ELEMENT:
            return value
        if kind is _ERROR:
            raise value
        self.done = True                      # _END: the producer has exited (or is exiting)
        self._join()
        raise StopIteration

    def shutdown(self):
        self.stop.set()
        self.done = True
        try:
            while True:                       # make room, so a producer blocked on put() wakes up
                self.queue.get_nowait()
        except queue.Empty:
            pass
        self._join()

    def _join(self):
        thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(_JOIN_SECONDS)


def _produce(dataset, q, stop):
    """The producer thread: pull from the input iterator, push into the queue, until told to stop."""
    try:
        iterator = dataset._make_iterator()
        while not stop.is_set():
            try:
                item = (_ELEMENT, next(iterator))
            except StopIteration:
                item = (_END, None)
            except Exception as error:  # noqa: BLE001  (delivered to the consumer in the element's place)
                item = (_ERROR, error)
            if not _put(q, stop, item) or item[0] is _END:
                return
    except BaseException as error:  # noqa: BLE001  (no iterator could be made, or worse: never strand the consumer)
        if _put(q, stop, (_ERROR, error)):
            _put(q, stop, (_END, None))


def _put(q, stop, item):
    """Put ``item``, waiting for room but giving up when ``stop`` is set. True if it was put."""
    while not stop.is_set():
        try:
            q.put(item, timeout=_POLL_SECONDS)
            return True
        except queue.Full:
            continue
    return False
