"""A recorder of what an all-reduce did: every step, every send, every byte.

Each cross-device algorithm (``cross_device_ops.py``) describes its work as a
list of *steps*; in one step every device may send one buffer (or one chunk of
a buffer) to another device, all at the same time. The course draws the ring
from these records and counts the bytes against the theory:

* ``ReductionToOneDevice`` moves everything through one device: it receives
  ``(N-1) x size`` and sends ``(N-1) x size``: a bottleneck that grows with N;
* the ring all-reduce sends ``2(N-1)/N x size`` per device, nearly independent of N,
  which is the least any all-reduce can send (each device must send its
  contribution to all but its own share, and receive the other shares).

Use it as a context manager around any code that all-reduces::

    with tf.distribute.record_all_reduce() as log:
        strategy.run(step, args=(batch,))
    print(log[-1].table())           # the last all-reduce, step by step
    log[-1].bytes_sent()             # per device

Every algorithm also keeps its latest record as ``algorithm.last_record``.

How an algorithm's sends get here: while an all-reduce runs, its record is
the thread's *running* record (:func:`recording`). The algorithm moves arrays
with ``cross_device_ops.send(array, src, dst)``, which notes each send in it,
and marks with ``cross_device_ops.begin_step(phase)`` which sends happen at
the same time. So an algorithm written by a student is recorded, and drawn,
exactly like the engine's own.
"""
import contextlib
import threading
from typing import NamedTuple, Optional

__all__ = ["Send", "Step", "AllReduceRecord", "AllReduceLog", "record_all_reduce", "recording", "running_record",
           "note_send", "note_step"]


class Send(NamedTuple):
    """One transfer inside a step: ``src`` and ``dst`` are positions in ``record.devices``."""

    src: int
    dst: int
    chunk: Optional[int]   # the chunk index (ring algorithms), None for a whole buffer
    elements: int
    nbytes: int


class Step(NamedTuple):
    """The transfers that happen at the same time (``index`` counts from 1)."""

    index: int
    phase: str
    sends: tuple


class AllReduceRecord:
    """What one all-reduce of one buffer (``num_elements`` values of ``dtype``) did."""

    def __init__(self, algorithm, reduce_op, devices, num_elements, dtype, itemsize):
        self.algorithm = algorithm
        self.reduce_op = reduce_op
        self.devices = tuple(devices)
        self.num_elements = int(num_elements)
        self.dtype = dtype
        self.itemsize = int(itemsize)
        self.nbytes = self.num_elements * self.itemsize
        self.chunk_elements = None   # ring algorithms: the size of each chunk
        self.steps = []
        self.simulated = False       # True when the schedule is NCCL's (inside the library), not ours
        self.tensors = 1             # how many tensors were packed into this buffer

    def add_step(self, phase, sends):
        """Record one step: ``sends`` is a list of ``(src, dst, chunk, elements)``."""
        self.steps.append(Step(len(self.steps) + 1, phase, tuple(
            Send(src, dst, chunk, int(n), int(n) * self.itemsize) for src, dst, chunk, n in sends)))

    @property
    def num_devices(self):
        return len(self.devices)

    @property
    def num_steps(self):
        return len(self.steps)

    def bytes_sent(self):
        """Bytes each device sent, in ``devices`` order."""
        out = [0] * self.num_devices
        for step in self.steps:
            for s in step.sends:
                out[s.src] += s.nbytes
        return out

    def bytes_received(self):
        out = [0] * self.num_devices
        for step in self.steps:
            for s in step.sends:
                out[s.dst] += s.nbytes
        return out

    def total_bytes(self):
        return sum(self.bytes_sent())

    def ring_bound(self):
        """The least an all-reduce can send per device: ``2(N-1)/N x size`` bytes."""
        n = self.num_devices
        return 2 * (n - 1) * self.nbytes / n if n else 0.0

    def table(self):
        """The record as text: one line per step, then the bytes per device against the bound."""
        name = lambda i: self.devices[i]  # noqa: E731
        lines = [f"{self.algorithm}: all-reduce ({self.reduce_op}) of {self.num_elements} x {self.dtype} "
                 f"({self.nbytes} bytes) over {self.num_devices} devices in {self.num_steps} steps"
                 + (" (NCCL's ring schedule, simulated)" if self.simulated else "")]
        for step in self.steps:
            sends = ", ".join(f"{name(s.src)}->{name(s.dst)}" + (f" chunk {s.chunk}" if s.chunk is not None else "")
                              + f" ({s.nbytes} B)" for s in step.sends)
            lines.append(f"  step {step.index} [{step.phase}]: {sends}")
        sent = ", ".join(f"{d} {b} B" for d, b in zip(self.devices, self.bytes_sent()))
        lines.append(f"  bytes sent per device: {sent}; ring bound 2(N-1)/N x size = {self.ring_bound():g} B")
        return "\n".join(lines)

    def __repr__(self):
        return (f"<AllReduceRecord {self.algorithm}: {self.num_devices} devices, {self.nbytes} bytes, "
                f"{self.num_steps} steps>")


class AllReduceLog:
    """The records of every all-reduce run while a ``record_all_reduce()`` block was active."""

    def __init__(self):
        self.records = []

    def __iter__(self):
        return iter(self.records)

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        return self.records[i]

    def bytes_sent(self):
        """Bytes sent per device, summed over every record (devices of the first record)."""
        if not self.records:
            return []
        out = [0] * self.records[0].num_devices
        for r in self.records:
            for i, b in enumerate(r.bytes_sent()):
                out[i] += b
        return out

    def __repr__(self):
        return f"<AllReduceLog: {len(self.records)} all-reduces>"


_active_logs = []
_lock = threading.Lock()


@contextlib.contextmanager
def record_all_reduce():
    """Collect an :class:`AllReduceRecord` for every all-reduce run inside the block (any thread)."""
    log = AllReduceLog()
    with _lock:
        _active_logs.append(log)
    try:
        yield log
    finally:
        with _lock:
            _active_logs.remove(log)


def publish(record):
    with _lock:
        for log in _active_logs:
            log.records.append(record)


# --------------------------------------------------------------------------------------
# The running record: what send() and begin_step() write into
# --------------------------------------------------------------------------------------
class _Recorder:
    """Collects the sends of one all-reduce, step by step, into ``record`` (a context manager).

    A step starts at ``begin_step(phase)`` and is written when the next one starts
    (or the all-reduce ends), so a phase in which nothing was sent leaves no step.
    Sends made before any ``begin_step`` are one step each (phase ``"send"``):
    the record never claims that sends were simultaneous unless the algorithm said so.
    """

    def __init__(self, record, devices):
        self.record = record
        self.positions = _Positions(record, devices)
        self.phase = None
        self.sends = []             # this step's (src Device, dst Device, chunk, elements)
        self.chunks = {}            # {chunk index: elements} of the sends that name a chunk
        self.outer = None

    def __enter__(self):
        self.outer, _running.recorder = _running.recorder, self
        return self.record

    def __exit__(self, *exc):
        _running.recorder = self.outer
        self.flush()
        chunks = self.chunks
        if chunks and self.record.chunk_elements is None:
            self.record.chunk_elements = tuple(chunks.get(c, 0) for c in range(max(chunks) + 1))

    def begin_step(self, phase):
        self.flush()
        self.phase = phase

    def flush(self):
        if self.sends:
            at = self.positions
            sends, chunks = [], self.chunks
            for src, dst, c, n in self.sends:
                sends.append((at[src], at[dst], c, n))
                if c is not None:            # a chunked algorithm (a ring): remember each chunk's size
                    chunks[c] = n
            if self.phase is None:           # before any begin_step: one step per send
                for send in sends:
                    self.record.add_step("send", [send])
            else:
                self.record.add_step(self.phase, sends)
            self.sends = []


class _Positions(dict):
    """``Device -> its position in record.devices``; a device outside the all-reduce is appended to them."""

    def __init__(self, record, devices):
        super().__init__(zip(devices, range(len(devices))))
        self.record = record

    def __missing__(self, device):   # e.g. ReductionToOneDevice(reduce_to_device=...) adding on an extra device
        self[device] = len(self.record.devices)
        self.record.devices = self.record.devices + (device.short_name.lstrip("/"),)
        return self[device]


class _Running(threading.local):
    recorder = None             # the _Recorder of the all-reduce running on this thread


_running = _Running()


def recording(record, devices):
    """``with recording(record, devices):`` the sends made on this thread in the block are noted in ``record``.

    ``devices``: the all-reduce's devices; a send's ``src``/``dst`` devices are
    recorded as positions in this list. The base class ``CrossDeviceOps`` wraps
    every call of an algorithm's ``all_reduce_sum`` in this block.
    """
    return _Recorder(record, devices)


def running_record():
    """The record of the all-reduce running on this thread, or None."""
    recorder = _running.recorder
    return None if recorder is None else recorder.record


def note_send(src, dst, chunk, elements):
    """Note one send (``src``/``dst``: ``Device`` objects) in this thread's running record, if any."""
    recorder = _running.recorder
    if recorder is not None:
        recorder.sends.append((src, dst, chunk, elements))


def note_step(phase):
    """The sends noted from now on, up to the next ``note_step``, form one step named ``phase``."""
    recorder = _running.recorder
    if recorder is not None:
        recorder.begin_step(phase)
