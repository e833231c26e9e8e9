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
"""
import contextlib
import threading
from typing import NamedTuple, Optional

__all__ = ["Send", "Step", "AllReduceRecord", "AllReduceLog", "record_all_reduce"]


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
