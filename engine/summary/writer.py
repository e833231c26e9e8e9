"""Summary writers and the per-thread summary state: the default writer, the default step, ``record_if``.

``tf.summary.create_file_writer(logdir)`` makes a :class:`SummaryWriter` that owns one event file,
``logdir/events.out.tfevents.<seconds>.<hostname>.<pid>.<n>.v2`` (``n`` counts the writers this
process made; ``.v2`` is the default ``filename_suffix``). The file is a TFRecord file of ``Event``
records (``events.py``); the first says ``file_version: "brain.Event:2"``.

Writing is buffered, as in TF: an event waits in a queue until more than ``max_queue`` (default 10)
events wait, or ``flush_millis`` (default 120000 ms) have passed since the last flush when an event
is written, or ``flush()``/``close()`` is called, or a ``with writer.as_default():`` block ends.
Readers (TensorBoard) see only what was flushed.

A writer does nothing by itself: summary ops write to the *default* writer of the current thread,
set by ``with writer.as_default(step=None):`` (restored when the block ends) or
``writer.set_as_default(step=None)`` (until changed). The state lives per thread, as TF's
``_summary_state`` does.

Differences from TF: TF flushes on a timer in a background thread even when nothing is written;
the engine checks ``flush_millis`` only when an event is written. ``flush()``/``close()`` (and
``tf.summary.flush()``) act when called, so inside a ``tf.function`` they act once, while tracing
(TF makes them ops that run on every call); summaries themselves are written on every call. The writer is a Python object,
not a resource tensor; a ``tf.function`` captures the default writer when it is traced, as TF does.
"""
import os
import socket
import threading
import time

from ..io.tf_record import TFRecordWriter
from . import events

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "get_step", "set_step", "record_if",
           "should_record_summaries", "flush", "default_writer", "recording_condition"]


class _State(threading.local):
    def __init__(self):
        self.writer = None        # the default writer of this thread
        self.step = None          # the default step (an int, a tensor or a tf.Variable)
        self.is_recording = None  # record_if's condition: None (record), a bool, a tensor or a callable


_state = _State()
_writer_ids = [0]
_ids_lock = threading.Lock()


def default_writer():
    """The current thread's default summary writer, or None."""
    return _state.writer


def recording_condition():
    """``record_if``'s current condition: None (always), a bool, a bool tensor or a callable giving one."""
    return _state.is_recording


class _SummaryContextManager:
    """What ``writer.as_default(step)`` returns: makes ``writer`` (and ``step``) the default inside the block.

    A class rather than a generator so that ``set_as_default`` can simply enter it and never leave.
    Leaving flushes the writer, as TF does.
    """

    def __init__(self, writer, step=None):
        self._writer, self._step = writer, step
        self._old_writer = self._old_step = None

    def __enter__(self):
        self._old_writer = _state.writer
        _state.writer = self._writer
        if self._step is not None:
            self._old_step = _state.step
            _state.step = self._step
        return self._writer

    def __exit__(self, *exc):
        _state.writer.flush()
        _state.writer = self._old_writer
        if self._step is not None:
            _state.step = self._old_step
        return False


class SummaryWriter:
    """``tf.summary.SummaryWriter``: the interface of summary writers.

    ``as_default(step=None)`` is a context manager that makes this writer the default (and ``step``
    the default step, when not None); ``set_as_default(step=None)`` does the same for good.
    ``init()``, ``flush()`` and ``close()`` open, flush and close the underlying storage.
    """

    def set_as_default(self, step=None):
        """Make this writer (and ``step``, if not None) the current thread's default, until changed."""
        self.as_default(step).__enter__()

    def as_default(self, step=None):
        """A context manager that makes this writer the default summary writer inside its block."""
        return _SummaryContextManager(self, step)

    def init(self):
        raise NotImplementedError()

    def flush(self):
        raise NotImplementedError()

    def close(self):
        raise NotImplementedError()


class _FileWriter(SummaryWriter):
    """A writer of one event file (TF's ``_ResourceSummaryWriter`` around a ``SummaryFileWriter``)."""

    def __init__(self, logdir, max_queue=None, flush_millis=None, filename_suffix=None):
        self._logdir = os.fspath(logdir)
        self._max_queue = 10 if max_queue is None else int(max_queue)
        self._flush_millis = 120000 if flush_millis is None else int(flush_millis)
        self._suffix = ".v2" if filename_suffix is None else filename_suffix
        self._lock = threading.Lock()
        self._queue = []
        self._file = None
        self._closed = False
        self.path = None
        self.init()

    def __repr__(self):
        return f"<engine.summary.SummaryWriter logdir={self._logdir!r}>"

    @property
    def logdir(self):
        return self._logdir

    def _check_open(self):
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def set_as_default(self, step=None):
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step=None):
        self._check_open()
        return super().as_default(step)

    def init(self):
        """Open the event file (done by ``create_file_writer``; a second call does nothing)."""
        self._check_open()
        with self._lock:
            if self._file is not None:
                return
            os.makedirs(self._logdir, exist_ok=True)
            with _ids_lock:
                n = _writer_ids[0]
                _writer_ids[0] += 1
            now = time.time()
            name = f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}.{os.getpid()}.{n}{self._suffix}"
            self.path = os.path.join(self._logdir, name)
            self._file = TFRecordWriter(self.path)
            self._file.write(events.event(float(int(now)), file_version=events.FILE_VERSION,
                                          source_writer=events.SOURCE_WRITER))
            self._file.flush()
            self._last_flush = time.monotonic()

    def write_event(self, record):
        """Queue one serialized ``Event``; flush when the queue or the time since the last flush is too long."""
        with self._lock:
            if self._closed or self._file is None:
                return False
            self._queue.append(record)
            if len(self._queue) > self._max_queue or \
                    (time.monotonic() - self._last_flush) * 1000 > self._flush_millis:
                self._flush_locked()
        return True

    def write_summary(self, step, summary_bytes, wall_time=None):
        """Write one ``Event`` holding ``summary_bytes`` (a serialized ``Summary``) at ``step``."""
        return self.write_event(events.event(time.time() if wall_time is None else wall_time, step=int(step),
                                             summary=summary_bytes))

    def write_graph_def(self, step, graph_def_bytes, wall_time=None):
        """Write one ``Event`` whose ``graph_def`` is ``graph_def_bytes`` (a serialized GraphDef)."""
        return self.write_event(events.event(time.time() if wall_time is None else wall_time, step=int(step),
                                             graph_def=graph_def_bytes))

    def _flush_locked(self):
        for record in self._queue:
            self._file.write(record)
        self._queue = []
        self._file.flush()
        self._last_flush = time.monotonic()

    def flush(self):
        """Write every queued event to the file now."""
        with self._lock:
            if self._closed or self._file is None:
                return
            self._flush_locked()

    def close(self):
        """Flush and close the file. A closed writer cannot be made the default again."""
        with self._lock:
            if self._closed:
                return
            if self._file is not None:
                self._flush_locked()
                self._file.close()
            self._closed = True


class _NoopSummaryWriter(SummaryWriter):
    """``tf.summary.create_noop_writer()``: a writer that writes nothing (every method does nothing)."""

    def set_as_default(self, step=None):
        pass

    def as_default(self, step=None):
        return _NoopContext()

    def init(self):
        pass

    def flush(self):
        pass

    def close(self):
        pass

    def write_summary(self, step, summary_bytes, wall_time=None):
        return False

    def write_graph_def(self, step, graph_def_bytes, wall_time=None):
        return False


class _NoopContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None):
    """``tf.summary.create_file_writer``: a :class:`SummaryWriter` writing an event file under ``logdir``.

    ``max_queue``: how many events may wait before a flush (default 10). ``flush_millis``: the most
    milliseconds between flushes (default 120000; checked when an event is written). ``filename_suffix``:
    replaces the file name's default ``.v2``. ``name`` and the ``experimental_*`` arguments are accepted
    and ignored. ``logdir`` is created if missing.
    """
    del name, experimental_trackable, experimental_mesh
    if logdir is None:
        raise ValueError("Argument `logdir` must be specified, got None.")
    if hasattr(logdir, "numpy"):
        logdir = logdir.numpy()
    if isinstance(logdir, bytes):
        logdir = logdir.decode("utf-8")
    return _FileWriter(logdir, max_queue, flush_millis, filename_suffix)


def create_noop_writer():
    """``tf.summary.create_noop_writer()``: a writer whose summaries go nowhere."""
    return _NoopSummaryWriter()


def get_step():
    """``tf.summary.experimental.get_step()``: the default step of this thread (set by ``set_step``), or None."""
    return _state.step


def set_step(step):
    """``tf.summary.experimental.set_step(step)``: the default ``step`` of summaries (an int, tensor or
    ``tf.Variable``; None unsets it). A ``tf.function`` sees the value it was traced with, unless the
    step is a ``tf.Variable``, which is read on every call."""
    _state.step = step


class record_if:  # noqa: N801  (a context manager named as TF's function)
    """``with tf.summary.record_if(condition):`` summaries inside are written only when ``condition`` holds.

    ``condition``: a Python bool, a scalar bool tensor, or a callable returning one; a callable is
    called each time a summary is about to be written (inside a ``tf.function``: when it is traced,
    so its tensor becomes part of the graph and is evaluated on every call).
    """

    def __init__(self, condition):
        self._condition = condition
        self._old = None

    def __enter__(self):
        self._old = _state.is_recording
        _state.is_recording = self._condition
        return None

    def __exit__(self, *exc):
        _state.is_recording = self._old
        return False


def should_record_summaries():
    """The condition as a Python bool, a bool tensor, or None when it is True (there is a writer, no record_if).

    The public ``tf.summary.should_record_summaries`` (``summary_ops.py``) turns it into a tensor.
    """
    if _state.writer is None:
        return False
    cond = _state.is_recording
    if callable(cond):
        cond = cond()
    return cond


def flush(writer=None, name=None):
    """``tf.summary.flush(writer=None)``: flush ``writer`` (default: the default writer, if any)."""
    del name
    if writer is None:
        writer = _state.writer
        if writer is None:
            return None
    if isinstance(writer, SummaryWriter):
        return writer.flush()
    raise ValueError("Invalid argument to flush(): %r" % (writer,))
