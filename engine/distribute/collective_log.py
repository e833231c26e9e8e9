"""Records of collectives between processes: who sent what to whom, how many bytes, and when.

Within one process, ``all_reduce_log.py`` records an all-reduce completely:
one thread runs every device's part. Between processes, each task sees only
its own part: what **it** sent (to whom, which chunk, how many bytes, when it
started and when the receiver acknowledged) and what it **received** (from
whom, when it arrived). So each task keeps a :class:`CollectiveRecord` of its
part, an ``AllReduceRecord`` (same ``steps``, ``bytes_sent()``, ``table()``),
whose sends are :class:`TimedSend` s carrying the times and the message bytes
too. :func:`merge_records` joins the records of all the tasks of one collective
into the whole picture: every task's send at every step, the ring drawn across
processes.

A task's records reach ``tf.distribute.record_all_reduce()`` blocks in its
own process, like any all-reduce's. To look at them together, each task writes
its records out (``record.to_dict()``, JSON-able) and one process reads them
back (``CollectiveRecord.from_dict``) and merges them.

Times are ``time.time()`` seconds of each task's clock: comparable between the
processes of one machine, approximately between machines.
"""
from typing import NamedTuple, Optional

from .all_reduce_log import AllReduceRecord, Step

__all__ = ["TimedSend", "CollectiveRecord", "merge_records"]


class TimedSend(NamedTuple):
    """One transfer between tasks (``src``/``dst``: positions in ``record.devices``).

    The first five fields are ``all_reduce_log.Send``'s; then the bytes of the
    messages it took (payload plus headers), how many messages (a chunk larger
    than the piece size travels in pieces), and when: ``start`` (the sender began
    sending) and ``end`` (the last piece was acknowledged, for a send; arrived, for
    a receive), ``time.time()`` seconds.
    """

    src: int
    dst: int
    chunk: Optional[int]
    elements: int
    nbytes: int
    wire_bytes: int = 0
    messages: int = 0
    start: float = 0.0
    end: float = 0.0

    @property
    def seconds(self):
        return self.end - self.start


class CollectiveRecord(AllReduceRecord):
    """One task's part of one collective: its sends, step by step (``steps``), and what it received.

    ``rank``: this task's position in ``devices`` (the group's task names);
    ``instance``: the collective's instance key in its group (the same on every
    task); ``received``: ``[(step index, TimedSend)]``; ``start``/``end``: the
    collective's wall-clock span on this task.
    """

    def __init__(self, algorithm, reduce_op, devices, num_elements, dtype, itemsize, rank, instance=None,
                 group=None):
        super().__init__(algorithm, reduce_op, devices, num_elements, dtype, itemsize)
        self.rank = rank
        self.instance = instance
        self.group = group
        self.received = []
        self.start = self.end = 0.0

    def add_timed_step(self, phase, sends):
        """Record one step of this task's own sends (a list of :class:`TimedSend`)."""
        self.steps.append(Step(len(self.steps) + 1, phase, tuple(sends)))

    def add_received(self, step_index, receive):
        self.received.append((step_index, receive))

    def bytes_received(self):
        out = [0] * self.num_devices
        for _, r in self.received:
            out[r.dst] += r.nbytes
        return out

    def wire_bytes_sent(self):
        """The bytes of the messages this task sent (payload plus headers)."""
        return sum(s.wire_bytes for step in self.steps for s in step.sends)

    @property
    def seconds(self):
        return self.end - self.start

    # --- across processes: JSON ------------------------------------------------------------------
    def to_dict(self):
        return {"algorithm": self.algorithm, "reduce_op": self.reduce_op, "devices": list(self.devices),
                "num_elements": self.num_elements, "dtype": self.dtype, "itemsize": self.itemsize,
                "rank": self.rank, "instance": self.instance, "group": self.group,
                "chunk_elements": None if self.chunk_elements is None else list(self.chunk_elements),
                "start": self.start, "end": self.end,
                "steps": [{"phase": s.phase, "sends": [list(x) for x in s.sends]} for s in self.steps],
                "received": [[i, list(r)] for i, r in self.received]}

    @classmethod
    def from_dict(cls, d):
        record = cls(d["algorithm"], d["reduce_op"], d["devices"], d["num_elements"], d["dtype"], d["itemsize"],
                     d["rank"], d.get("instance"), d.get("group"))
        record.chunk_elements = None if d.get("chunk_elements") is None else tuple(d["chunk_elements"])
        record.start, record.end = d.get("start", 0.0), d.get("end", 0.0)
        for step in d["steps"]:
            record.add_timed_step(step["phase"], [TimedSend(*x) for x in step["sends"]])
        record.received = [(i, TimedSend(*r)) for i, r in d["received"]]
        return record

    def __repr__(self):
        return (f"<CollectiveRecord {self.algorithm}: {self.devices[self.rank]} of {self.num_devices} tasks, "
                f"instance {self.instance}, {self.nbytes} bytes, {self.num_steps} steps>")


def merge_records(records):
    """The records of every task of one collective -> one ``AllReduceRecord`` with everybody's sends.

    Step k of the result holds step k of every task (tasks in rank order), so
    ``bytes_sent()`` has every task's figure and ``table()`` shows the whole ring.
    """
    records = sorted(records, key=lambda r: r.rank)
    if not records:
        raise ValueError("merge_records needs at least one record")
    first = records[0]
    if len({(r.group, r.instance) for r in records}) > 1:
        raise ValueError("merge_records: the records belong to different collectives: "
                         + ", ".join(f"{r.devices[r.rank]} instance {r.instance}" for r in records))
    merged = AllReduceRecord(first.algorithm, first.reduce_op, first.devices, first.num_elements, first.dtype,
                             first.itemsize)
    merged.chunk_elements = first.chunk_elements
    for k in range(max(r.num_steps for r in records)):
        phase = next(r.steps[k].phase for r in records if k < r.num_steps)
        sends = tuple(s for r in records if k < r.num_steps for s in r.steps[k].sends)
        merged.steps.append(Step(k + 1, phase, sends))
    return merged
