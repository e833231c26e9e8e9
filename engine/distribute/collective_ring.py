"""Collectives between processes over gRPC: the ring all-reduce, a broadcast, an all-gather, a barrier.

Each function runs on **every** task of a ``CollectiveGroup``
(``collective_service.py``) at the same point of its program, with its own
buffer, and returns that task's result. The n-th collective of a group is the
same collective on every task (its *instance*), so the tasks must call the same
collectives in the same order, as the replicas of one process must
(``mirrored_run.py``).

The ring all-reduce, between processes
--------------------------------------
The same algorithm as ``cross_device_ops.RingAllReduce``, but each task runs
only its own part of it and its sends are gRPC calls. The N tasks form a ring
(rank r sends to r+1, receives from r-1, modulo N) and the buffer is cut into N
chunks (``chunk_bounds``):

* **reduce-scatter**, N-1 steps: at step s, task r sends chunk (r - s) mod N to
  its right neighbour and receives chunk (r - s - 1) mod N from its left one,
  which it adds to its own copy. After N-1 steps, task r holds the complete sum
  of chunk (r + 1) mod N.
* **all-gather**, N-1 steps: at step s, task r sends chunk (r + 1 - s) mod N
  (complete) to the right and receives chunk (r - s) mod N, which replaces its
  copy. After N-1 steps every task has every complete chunk.

Each task sends 2(N-1) chunks: ``2(N-1)/N x size`` bytes of payload, whatever
N, the least any all-reduce can send (``all_reduce_log.py``). A chunk larger
than ``piece_bytes`` travels as several messages (pieces), all sent before the
task waits for the chunk it receives, so the sends and receives of a step
overlap.

Every call records its part (``collective_log.CollectiveRecord``: each send and
receive with its bytes and times) and publishes it to the process's
``tf.distribute.record_all_reduce()`` blocks; ``group.last_record`` keeps it.

Rounding: each chunk is summed in a different order around the ring (the sum of
chunk c starts at task c+1), so floating-point results may differ from a
sum in rank order in the last bits, as NCCL's and TF's ring results do. Every
task ends with the same bits: the all-gather copies the complete chunks.
"""
import contextlib
import time

import numpy as np

from ..framework import errors
from . import all_reduce_log
from .collective_log import CollectiveRecord, TimedSend
from .cross_device_ops import chunk_bounds
from .reduce_util import ReduceOp, as_reduce_op

__all__ = ["ring_all_reduce", "broadcast", "all_gather", "barrier", "DEFAULT_PIECE_BYTES"]

DEFAULT_PIECE_BYTES = 4 << 20    # 4 MiB per message (gRPC's default message limit)
ALGORITHM = "RingAllReduce (gRPC)"


@contextlib.contextmanager
def _aborting_on_error(group, instance):
    """A collective that fails here is aborted on every task of the group: none waits for us forever."""
    try:
        yield
    except errors.OpError as error:
        group.abort(instance, error)
        raise


def _pieces(elements, piece_elements):
    """``[(start, end)]`` of the pieces a chunk of ``elements`` travels in (none for an empty chunk)."""
    return [(a, min(a + piece_elements, elements)) for a in range(0, elements, piece_elements)]


class _ChunkSend:
    """The pieces of one chunk in flight to one member, and what the record says about them."""

    def __init__(self, group, dst, instance, tag, chunk_index, array, piece_elements, size):
        self.dst, self.chunk, self.elements, self.nbytes = dst, chunk_index, array.size, array.nbytes
        self.start = time.time()
        self.pending, self.wire_bytes = [], 0
        for p, (a, b) in enumerate(_pieces(array.size, piece_elements)):
            pending, wire = group.send(dst, instance, f"{tag}/{p}", array[a:b],
                                       {"dtype": array.dtype.str, "elements": b - a, "size": size})
            self.pending.append(pending)
            self.wire_bytes += wire

    def wait(self, group):
        for pending in self.pending:
            try:
                pending.result()
            except errors.OpError as error:
                raise type(error)(None, None, f"Collective ops is aborted by: {group.name} could not send to "
                                              f"{group.names[self.dst]}: {error.message}") from None
        return TimedSend(group.rank, self.dst, self.chunk, self.elements, self.nbytes, self.wire_bytes,
                         len(self.pending), self.start, time.time())

    def cancel(self):
        for pending in self.pending:
            pending.cancel()


def _recv_chunk(group, src, instance, tag, chunk_index, elements, dtype, piece_elements, size):
    """Receive the pieces of one chunk from member ``src``: ``(array, TimedSend of the receive)``."""
    out = np.empty(elements, dtype=dtype)
    start, wire = None, 0
    pieces = _pieces(elements, piece_elements)
    for p, (a, b) in enumerate(pieces):
        header, payload, arrived = group.recv(src, instance, f"{tag}/{p}")
        if header["size"] != size or np.dtype(header["dtype"]) != dtype or header["elements"] != b - a:
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch in the collective instance {instance}: {group.name} all-reduces "
                            f"{size} x {dtype.name}, but {group.names[src]} sent a piece of a buffer of "
                            f"{header['size']} x {np.dtype(header['dtype']).name}. Every task must all-reduce "
                            f"buffers of the same size and dtype.")
        out[a:b] = np.frombuffer(payload, dtype=dtype)
        wire += header["wire_bytes"]
        start = header["sent_at"] if start is None else start
    end = arrived if pieces else time.time()
    return out, TimedSend(src, group.rank, chunk_index, elements, elements * dtype.itemsize, wire, len(pieces),
                          start if start is not None else end, end)


def ring_all_reduce(group, buffer, reduce_op=ReduceOp.SUM, piece_bytes=DEFAULT_PIECE_BYTES):
    """All-reduce a 1-D buffer over every task of ``group``: each task gets the element-wise SUM (or MEAN).

    ``buffer``: this task's values (any shape: flattened; not modified). Every
    task must pass the same number of elements and the same dtype. Returns a new
    1-D array.
    """
    reduce_op = as_reduce_op(reduce_op)
    buffer = np.ascontiguousarray(buffer).reshape(-1)
    n, r = group.size, group.rank
    instance = group.next_instance()
    record = CollectiveRecord(ALGORITHM, reduce_op.value, group.names, buffer.size, buffer.dtype.name,
                              buffer.dtype.itemsize, r, instance, group.key)
    record.start = time.time()
    if n == 1:
        out = buffer.copy()
    else:
        group.connect()
        with _aborting_on_error(group, instance):
            out = _ring(group, buffer, instance, record, max(1, piece_bytes // buffer.dtype.itemsize))
    if reduce_op is ReduceOp.MEAN and n > 1:
        out = out / n if out.dtype.kind in "fc" else out.astype(np.float64) / n
    record.end = time.time()
    group.last_record = record
    all_reduce_log.publish(record)
    return out


def _ring(group, buffer, instance, record, piece_elements):
    n, r, size, dtype = group.size, group.rank, buffer.size, buffer.dtype
    right, left = (r + 1) % n, (r - 1) % n
    offsets, sizes = chunk_bounds(size, n)
    record.chunk_elements = tuple(sizes)
    work = [buffer[o:o + s] for o, s in zip(offsets, sizes)]   # views; replaced, never written into
    for phase, sent_chunk, received_chunk in (
            ("reduce-scatter", lambda s: (r - s) % n, lambda s: (r - s - 1) % n),
            ("all-gather", lambda s: (r + 1 - s) % n, lambda s: (r - s) % n)):
        for s in range(n - 1):
            tag = f"{phase}/{s + 1}"
            c_out, c_in = sent_chunk(s), received_chunk(s)
            sending = _ChunkSend(group, right, instance, tag, c_out, work[c_out], piece_elements, size)
            try:
                incoming, receive = _recv_chunk(group, left, instance, tag, c_in, sizes[c_in], dtype,
                                                piece_elements, size)
            except BaseException:
                sending.cancel()
                raise
            sent = sending.wait(group)
            work[c_in] = work[c_in] + incoming if phase == "reduce-scatter" else incoming
            record.add_timed_step(phase, [sent])
            record.add_received(len(record.steps), receive)
    return np.concatenate(work) if work else buffer.copy()


def broadcast(group, value, root=0, piece_bytes=DEFAULT_PIECE_BYTES):
    """``root``'s array on every task: the root sends it to each other task (other tasks pass None or anything).

    Used to give every worker the same initial variable values (TF broadcasts
    them from the chief). The array's dtype and shape travel in the header.
    """
    instance = group.next_instance()
    if group.size == 1:
        return np.array(value)
    group.connect()
    with _aborting_on_error(group, instance):
        if group.rank == root:
            array = np.asarray(value, order="C")   # (ascontiguousarray would make a scalar 1-D)
            sends = [group.send(dst, instance, "broadcast", array.reshape(-1),
                                {"dtype": array.dtype.str, "shape": list(array.shape)})[0]
                     for dst in range(group.size) if dst != root]
            for pending in sends:
                pending.result()
            return array.copy()
        header, payload, _ = group.recv(root, instance, "broadcast")
        return np.frombuffer(payload, dtype=np.dtype(header["dtype"])).reshape(header["shape"]).copy()


def all_gather(group, value):
    """Every task's array, in rank order, on every task (arrays may differ in shape; dtypes must agree)."""
    instance = group.next_instance()
    array = np.asarray(value, order="C")
    if group.size == 1:
        return [array.copy()]
    group.connect()
    with _aborting_on_error(group, instance):
        sends = [group.send(dst, instance, "all-gather", array.reshape(-1),
                            {"dtype": array.dtype.str, "shape": list(array.shape)})[0]
                 for dst in range(group.size) if dst != group.rank]
        out = []
        for src in range(group.size):
            if src == group.rank:
                out.append(array.copy())
                continue
            header, payload, _ = group.recv(src, instance, "all-gather")
            out.append(np.frombuffer(payload, dtype=np.dtype(header["dtype"])).reshape(header["shape"]).copy())
        for pending in sends:
            pending.result()
        return out


def barrier(group):
    """Return on every task only when every task of ``group`` has called it."""
    all_gather(group, np.zeros(0, dtype=np.uint8))
