"""The memory plan: when can each value's buffer be given back?

A straight-line program runs its nodes in a fixed order, so the *liveness* of
every value is known in advance: it is born when its node runs and dies after
its last reader (fetched values live to the end). The plan records, for each
node, the values whose last reader it is; the code generator then writes
``del v3_0`` right after that node, and NumPy can hand the freed memory to the
next allocation. Without the plan, every intermediate stays referenced by a
local variable until the program returns: the peak is the *sum* of all
intermediates. With it, the peak is the largest set of values alive at once.

Peak bytes are computed from static shapes and dtypes:

* counted: values computed by the run (a kernel's new array);
* not counted (:func:`allocates`): constants (they live in the graph) and fed
  values (the caller holds them), and what the op's registry row says returns
  an existing buffer: ``persistent`` ops (a variable read returns the
  variable's buffer), ``forwarding`` ops (``Identity``) and
  ``linear="identity"`` ops (``PlaceholderWithDefault``) return their input;
* a ``_FusedElementwise`` node holds ``buffers - 1`` extra temporaries of its
  output's size while it runs;
* values whose static shape is not fully known (a ``[None, 784]`` batch) cannot
  be sized before running: they are counted as 0 and listed in ``unknown``. To
  measure them, run the plan under ``tracemalloc`` (``Plan.measure_peak_bytes``).
"""
from .ir import static_nbytes

__all__ = ["MemoryPlan", "plan_memory", "peak_bytes"]

NAME = "memory_optimization"


def allocates(node):
    """True if running ``node`` makes new buffers for its outputs (see the module docstring)."""
    if node.type in ("Const", "_Arg"):   # the IR's own: a value bound into the plan, a fed value
        return False
    op = node.op_def
    return op is None or not (op.persistent or op.forwarding or op.linear == "identity")


class MemoryPlan:
    """``release[i]``: values whose last reader is node ``i``; peaks in bytes; ``unknown``: unsized values."""

    def __init__(self, release, peak_before, peak_after, unknown, released_at_last_use):
        self.release = release
        self.peak_before = peak_before
        self.peak_after = peak_after
        self.unknown = unknown
        self.released_at_last_use = released_at_last_use

    def describe(self):
        text = (f"peak live bytes {_fmt(self.peak_before)} before (unoptimized graph, every value held until the "
                f"end) -> {_fmt(self.peak_after)} after")
        text += " (values released at last use)" if self.released_at_last_use else " (values held until the end)"
        if self.unknown:
            text += f"; {self.unknown} value(s) of unknown static size not counted"
        return text

    def __repr__(self):
        return f"<MemoryPlan {self.describe()}>"


def _fmt(n):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def last_uses(program):
    """``{id(value): index of its last reader}`` (``len(nodes)`` for fetched values)."""
    last = {}
    for i, node in enumerate(program.nodes):
        for v in node.inputs:
            last[id(v)] = i
    end = len(program.nodes)
    for v in program.fetches:
        last[id(v)] = end
    return last


def peak_bytes(program, release=True):
    """(peak live bytes, number of unsized values) for running ``program`` in order."""
    last = last_uses(program)
    live = 0
    peak = 0
    unknown = 0
    dying = {}          # node index -> bytes freed after it
    for i, node in enumerate(program.nodes):
        transient = 0
        for v in node.outputs if allocates(node) else ():
            n = static_nbytes(v)
            if n is None:
                unknown += 1
                continue
            live += n
            end = last.get(id(v), i)
            dying[end] = dying.get(end, 0) + n
        if node.type == "_FusedElementwise":
            n = static_nbytes(node.outputs[0]) or 0
            transient = max(node.attrs["program"].buffers - 1, 0) * n
        peak = max(peak, live + transient)
        if release:
            live -= dying.pop(i, 0)
    return peak, unknown


def plan_memory(program, peak_before, release=True):
    """The :class:`MemoryPlan` of ``program`` (``peak_before``: the unoptimized program's peak)."""
    last = last_uses(program)
    release_at = {}
    fetched = {id(v) for v in program.fetches}
    for i, node in enumerate(program.nodes):
        for v in node.outputs:
            if id(v) in fetched:
                continue
            release_at.setdefault(last.get(id(v), i), []).append(v)
    peak_after, unknown = peak_bytes(program, release)
    return MemoryPlan(release_at if release else {}, peak_before, peak_after, unknown, release)
