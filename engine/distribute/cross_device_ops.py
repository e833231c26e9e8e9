"""Cross-device ops: the algorithms that all-reduce N buffers living on N devices.

An **all-reduce** takes one buffer per device and leaves, on every device, the
element-wise sum of all of them (MEAN: the sum divided by N). It is *the*
communication step of data-parallel training: each replica computed gradients
on its slice of the batch; after the all-reduce every replica holds the same
summed gradient and applies the same update.

Four ways to do it, selectable with ``MirroredStrategy(cross_device_ops=...)``,
all giving the same result up to float rounding (they add in different orders):

* :class:`ReductionToOneDevice`: every device sends its buffer to one device,
  which adds them and sends the sum back. 2 steps, but that one device sends and
  receives ``(N-1) x size``: a bottleneck that grows with N.
* :class:`HierarchicalCopyAllReduce`: the same idea in two levels (TF's
  DGX-1 algorithm): the devices form two groups; each group reduces to its root,
  the two roots exchange partial sums, then each root broadcasts to its group.
* :class:`RingAllReduce` (an engine class; TF has no public ring class, NCCL
  uses a ring internally): the devices form a ring and the buffer is cut into N
  chunks. **Reduce-scatter**: in each of N-1 steps every device sends one chunk
  to its right neighbour, which adds it to its own copy of that chunk; after N-1
  steps device i holds the complete sum of chunk (i+1) mod N. **All-gather**: in
  N-1 more steps the complete chunks travel around the ring, overwriting. In
  total 2(N-1) steps, and each device sends exactly ``2(N-1)/N x size`` bytes,
  the minimum possible: the cost per device does not grow with N.
* :class:`NcclAllReduce`: NVIDIA's NCCL library (``cupy.cuda.nccl``), on GPUs
  only, one physical GPU per replica.

Every algorithm records what it did (``algorithm.last_record``, and
``tf.distribute.record_all_reduce()``): each step's sends, chunk sizes, bytes.

Several tensors all-reduced together (all the gradients of a model) are first
*packed*: flattened and concatenated into one buffer per dtype, reduced in one
go, and split back, as TF does (``num_packs=1``). One big all-reduce is much
cheaper than many small ones.

TF 2.21's own default on one machine is ``CollectiveAllReduce``, an internal
class; the engine's default (:func:`select_cross_device_ops`) is
``NcclAllReduce`` when every replica has its own physical GPU and NCCL works,
else ``ReductionToOneDevice`` (TF's fallback).

Your own all-reduce: the ``all_reduce`` seam
--------------------------------------------
Every algorithm above is one method, the **protocol** of the ``all_reduce``
seam (``engine.seams``)::

    all_reduce_sum(buffers, devices) -> list of N arrays

* ``buffers[i]``: device i's buffer, a 1-D array (NumPy; CuPy on a GPU) living on
  ``devices[i]``; all N have the same size and dtype. Never write into them
  (they may be the replicas' own tensors' memory): build new arrays.
* ``devices[i]``: the engine ``Device`` of replica i, in replica order (N >= 2).
* return: N 1-D arrays, the i-th on ``devices[i]``, each the element-wise sum of
  all the buffers, with the buffers' size and dtype.

The helpers an algorithm uses (module functions here):

* ``send(array, src, dst, chunk=None)``: copy ``array`` from device ``src`` to
  device ``dst`` (``Device`` objects) and return the copy; the send is noted in
  the record. ``chunk``: the chunk index, for algorithms that cut the buffer.
* ``begin_step(phase)``: the sends that follow, up to the next ``begin_step``,
  happen at the same time: one *step* of the record, named ``phase``.
* ``chunk_bounds(size, n)``: ``(offsets, sizes)`` of ``n`` nearly equal chunks.
* ``with devices[i].activate():`` around the arithmetic of device i (CuPy
  allocates there; nothing on the CPU).

Everything else is the base class's: packing the tensors into one buffer per
dtype, MEAN, splitting back into tensors, the record's header and publishing
it. Inside ``engine.seams.using(all_reduce=MyAllReduce)`` (a class, built for
each all-reduce, or an object, used as it is) **every** all-reduce of the
engine sums with ``MyAllReduce``, whichever ``CrossDeviceOps`` the strategy
uses, ``cross_device_ops=`` included: the seam replaces the summing algorithm
inside every ``CrossDeviceOps``, which keep their other work (NCCL still
checks its devices). In the block, the strategy's reductions to one device
(``strategy.reduce``, ``extended.reduce_to``, the cross-replica reads of
``SyncOnRead`` variables such as Keras metrics, ``SUM``/``MEAN`` variable
updates), which outside it are a plain ``add_n`` on the destination as in TF,
become an all-reduce with ``MyAllReduce`` whose result is taken on (or copied
to) the destination. The seam's reference is :class:`CrossDeviceOps` itself,
standing for "each ``CrossDeviceOps`` sums with its own algorithm". Inside a
``tf.function`` the all-reduce op reads the seam when the graph *runs*; the
choice between ``add_n`` and an all-reduce for a reduction to one device is
made when it is *traced*. A student's ring (``RingAllReduce`` below is the same
code, with the record's ``phase`` names)::

    from engine.distribute.cross_device_ops import begin_step, chunk_bounds, send

    class MyRing:
        def all_reduce_sum(self, buffers, devices):
            n = len(devices)
            offsets, sizes = chunk_bounds(buffers[0].size, n)
            chunks = [[b[o:o + s] for o, s in zip(offsets, sizes)] for b in buffers]
            for step in range(n - 1):                 # reduce-scatter
                begin_step("reduce-scatter")
                moved = [((i + 1) % n, (i - step) % n) for i in range(n)]
                arrived = [send(chunks[i][c], devices[i], devices[j], chunk=c) for i, (j, c) in enumerate(moved)]
                for (j, c), part in zip(moved, arrived):
                    chunks[j][c] = chunks[j][c] + part
            for step in range(n - 1):                 # all-gather
                begin_step("all-gather")
                moved = [((i + 1) % n, (i + 1 - step) % n) for i in range(n)]
                arrived = [send(chunks[i][c], devices[i], devices[j], chunk=c) for i, (j, c) in enumerate(moved)]
                for (j, c), part in zip(moved, arrived):
                    chunks[j][c] = part
            return [np.concatenate(row) for row in chunks]

    with engine.seams.using(all_reduce=MyRing):
        model.fit(...)          # in a MirroredStrategy scope: every gradient summed by MyRing
"""
import numpy as np

from .. import seams
from ..framework.backend import cupy_module
from ..framework.device import device as device_scope
from ..framework.device import lookup_device
from ..framework.tensor import EagerTensor
from ..ops import array_ops, math_ops
from . import all_reduce_log
from .all_reduce_log import AllReduceRecord, publish
from .collective_ops import all_reduce_tensors
from .reduce_util import ReduceOp, as_reduce_op
from .values import DistributedValues, PerReplica

__all__ = ["CrossDeviceOps", "ReductionToOneDevice", "HierarchicalCopyAllReduce", "RingAllReduce",
           "NcclAllReduce", "select_cross_device_ops", "ALL_REDUCE_PROTOCOL", "send", "begin_step", "chunk_bounds"]

ALL_REDUCE_PROTOCOL = ("all_reduce_sum",)


def send(array, src, dst, chunk=None):
    """Copy ``array`` from device ``src`` to device ``dst``; the copy, on ``dst``.

    Noted in the running all-reduce's record (who sent how many elements to whom,
    of which chunk). Between logical CPUs it copies nothing: NumPy arrays are
    shared memory, and no algorithm writes into one.
    """
    all_reduce_log.note_send(src, dst, chunk, array.size)
    return dst.put(array)


def begin_step(phase):
    """Start a step of the record named ``phase``: the sends until the next ``begin_step`` happen together."""
    all_reduce_log.note_step(phase)


class CrossDeviceOps:
    """Base class of the all-reduce algorithms.

    Subclasses implement :meth:`all_reduce_sum` (the ``all_reduce`` seam's
    protocol, see the module docstring): given one flat buffer per device, return
    one summed buffer per device, moving arrays with :func:`send`. This class does
    the rest: packing tensors into buffers, MEAN, splitting back, the record.
    Public (TF) methods: ``reduce``, ``batch_reduce``, ``broadcast``; engine
    methods: ``all_reduce``, ``batch_all_reduce`` (eager ``PerReplica`` values,
    handy to try an algorithm directly).
    """

    #: False: the replicas are all this process's devices, so one replica has nothing to combine.
    #: (``CollectiveAllReduce`` also reduces across worker processes: True.)
    spans_processes = False

    def __init__(self):
        self.last_record = None

    def _check_devices(self, devices):
        """Raise if the algorithm cannot run on ``devices`` (NCCL checks for GPUs)."""

    # --- the array level: what the kernels and the replicas' collectives call -------------------
    def all_reduce_arrays(self, reduce_op, devices, per_replica_arrays):
        """``per_replica_arrays[r]``: replica r's arrays (on ``devices[r]``). Returns the same nesting, reduced.

        Arrays of one dtype are packed into one buffer per replica; rank-0 results are
        NumPy scalars, as every engine kernel returns them. MEAN of integers gives
        float64, as TF does.
        """
        reduce_op = as_reduce_op(reduce_op)
        self._check_devices(devices)
        algorithm = self._summing_algorithm()
        n = len(devices)
        count = len(per_replica_arrays[0])
        out = [[None] * count for _ in range(n)]
        groups = {}
        for k, a in enumerate(per_replica_arrays[0]):
            groups.setdefault(np.dtype(a.dtype), []).append(k)
        for dtype, indices in groups.items():
            shapes = [tuple(per_replica_arrays[0][k].shape) for k in indices]
            sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
            buffers = []
            for r, d in enumerate(devices):
                with d.activate():
                    xp = d.xp
                    parts = [xp.ravel(xp.asarray(d.put(per_replica_arrays[r][k]))) for k in indices]
                    buffers.append(parts[0] if len(parts) == 1 else xp.concatenate(parts))
            record = AllReduceRecord(type(algorithm).__name__, reduce_op.value,
                                     [d.short_name.lstrip("/") for d in devices], sum(sizes), dtype.name,
                                     dtype.itemsize)
            record.tensors = len(indices)
            if n > 1:
                with all_reduce_log.recording(record, devices):
                    reduced = algorithm.all_reduce_sum(list(buffers), list(devices))
                _check_summed(algorithm, reduced, buffers)
            else:
                reduced = [buffers[0]]
            self.last_record = record
            publish(record)
            for r, d in enumerate(devices):
                with d.activate():
                    buf = reduced[r]
                    if reduce_op is ReduceOp.MEAN and n > 1:   # (one replica: nothing to divide, as TF)
                        buf = buf / n if dtype.kind in "fc" else buf.astype(np.float64) / n
                    offset = 0
                    for k, shape, size in zip(indices, shapes, sizes):
                        piece = buf[offset:offset + size].reshape(shape)
                        out[r][k] = piece[()] if piece.ndim == 0 else piece
                        offset += size
            _synchronize(devices)
        return out

    def all_reduce_sum(self, buffers, devices):
        """The algorithm: ``buffers[i]`` (1-D, on ``devices[i]``) -> N summed buffers (the seam's protocol)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement all_reduce_sum(buffers, devices)")

    def _summing_algorithm(self):
        """What sums the buffers now: the ``all_reduce`` seam's implementation inside ``using``, else ``self``."""
        chosen = _ALL_REDUCE_SEAM.current
        if chosen is CrossDeviceOps:     # the reference: every CrossDeviceOps sums with its own algorithm
            return self
        return chosen() if isinstance(chosen, type) else chosen

    # --- a reduction to one device, inside `using(all_reduce=...)` -----------------------------
    @staticmethod
    def _reduces_by_all_reduce():
        """True while a ``using`` block has replaced the ``all_reduce`` seam: reductions to one device then
        all-reduce with it (outside, they are a plain ``add_n`` on the destination, as TF's)."""
        return _ALL_REDUCE_SEAM.replaced

    def _reduce_by_all_reduce(self, reduce_op, parts, devices, destination):
        """``parts[r]`` (on ``devices[r]``) reduced with the summing algorithm, as one tensor on ``destination``.

        The result is the destination's replica's (else the first replica's, copied to
        ``destination``). Eager parts run the algorithm now; symbolic ones build a
        ``MirroredAllReduce`` node (``collective_ops.py``).
        """
        reduced = all_reduce_tensors(self, reduce_op, devices, [[p] for p in parts])
        here = next((r for r, d in enumerate(devices) if d is destination), None)
        total = reduced[0 if here is None else here][0]
        if here is not None:
            return total
        if isinstance(total, EagerTensor):
            return EagerTensor(destination.put(total._value), destination)
        with device_scope(destination):
            return array_ops.identity(total)

    # --- engine conveniences on eager values -----------------------------------------------
    def all_reduce(self, reduce_op, per_replica_value):
        """All-reduce an eager ``PerReplica`` (components on distinct devices); returns a ``PerReplica``."""
        return self.batch_all_reduce(reduce_op, [per_replica_value])[0]

    def batch_all_reduce(self, reduce_op, per_replica_values):
        """All-reduce several ``PerReplica`` values in one packed collective."""
        components = [list(v.values) for v in per_replica_values]
        devices = [t._device for t in components[0]]
        per_replica = [[c[r] for c in components] for r in range(len(devices))]
        reduced = all_reduce_tensors(self, reduce_op, devices, per_replica)
        return [PerReplica([reduced[r][k] for r in range(len(devices))]) for k in range(len(components))]

    # --- TF's public API ------------------------------------------------------------------------
    def reduce(self, reduce_op, per_replica_value, destinations, options=None):
        """Reduce ``per_replica_value`` to one tensor on ``destinations`` (a device, or a tensor/variable's)."""
        reduce_op = as_reduce_op(reduce_op)
        parts = list(per_replica_value.values) if isinstance(per_replica_value, DistributedValues) \
            else [per_replica_value]
        devices = [getattr(p, "_device", None) for p in parts]
        if len(parts) > 1 and self._reduces_by_all_reduce() and all(isinstance(p, EagerTensor) for p in parts) \
                and len(set(map(id, devices))) == len(devices):
            return self._reduce_by_all_reduce(reduce_op, parts, devices, _destination_device(destinations))
        with device_scope(_destination_device(destinations)):
            total = array_ops.identity(parts[0]) if len(parts) == 1 else math_ops.add_n(parts)
            if reduce_op is ReduceOp.MEAN:
                total = math_ops.truediv(total, len(parts))
            return total

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
        return [self.reduce(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def broadcast(self, tensor, destinations):
        with device_scope(_destination_device(destinations)):
            return array_ops.identity(tensor)

    def __repr__(self):
        return f"<tf.distribute.{type(self).__name__}>"


_ALL_REDUCE_SEAM = seams.declare(
    "all_reduce", CrossDeviceOps, ALL_REDUCE_PROTOCOL,
    doc="The all-reduce algorithm of tf.distribute: all_reduce_sum(buffers, devices) -> one summed buffer per "
        "device (helpers: send, begin_step, chunk_bounds). Inside `engine.seams.using(all_reduce=MyAllReduce)` "
        "every CrossDeviceOps sums with MyAllReduce, and the strategy's reductions to one device become "
        "all-reduces with it. See the docstring of engine.distribute.cross_device_ops.")


def _check_summed(algorithm, reduced, buffers):
    """Refuse an algorithm's result that is not one buffer like the inputs per device (a clear ValueError)."""
    size, dtype = buffers[0].size, buffers[0].dtype
    if not isinstance(reduced, (list, tuple)) or len(reduced) != len(buffers) or any(
            getattr(b, "shape", None) != (size,) or b.dtype != dtype for b in reduced):
        got = [f"{getattr(b, 'dtype', type(b).__name__)}{tuple(getattr(b, 'shape', ()))}" for b in reduced] \
            if isinstance(reduced, (list, tuple)) else type(reduced).__name__
        raise ValueError(f"{type(algorithm).__name__}.all_reduce_sum must return {len(buffers)} 1-D buffers of "
                         f"{size} x {np.dtype(dtype).name}, one per device; it returned {got}.")


def _destination_device(destinations):
    if isinstance(destinations, str):
        return lookup_device(destinations)
    if hasattr(destinations, "_device"):
        return destinations._device
    return lookup_device(getattr(destinations, "device", None) or "/CPU:0")


def _synchronize(devices):
    """GPU arrays are computed asynchronously: wait for every device before the replicas use them."""
    if any(d.backend != "numpy" for d in devices):
        for d in devices:
            if d.backend != "numpy":
                with d.activate():
                    d.xp.cuda.Device().synchronize()


# --------------------------------------------------------------------------------------
# ReductionToOneDevice
# --------------------------------------------------------------------------------------
class ReductionToOneDevice(CrossDeviceOps):
    """Gather every buffer on one device, add them there, send the sum back to every device.

    ``reduce_to_device``: the device that adds (default: the first replica's).
    ``accumulation_fn``: optional ``fn(list_of_arrays) -> array`` run on that device
    (default: add them in replica order).
    """

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        super().__init__()
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn

    def all_reduce_sum(self, buffers, devices):
        n = len(devices)
        target, root = devices[0], 0
        if self.reduce_to_device is not None:
            target = lookup_device(self.reduce_to_device)
            # root None: an extra device that only adds (e.g. the CPU for GPU replicas; the record lists it last)
            root = next((i for i, d in enumerate(devices) if d is target), None)
        begin_step("reduce to one device")
        gathered = [b if i == root else send(b, devices[i], target) for i, b in enumerate(buffers)]
        with target.activate():
            if self.accumulation_fn is not None:
                total = self.accumulation_fn(gathered)
            else:
                total = gathered[0]
                for b in gathered[1:]:
                    total = total + b
        begin_step("broadcast")
        return [total if i == root else send(total, target, devices[i]) for i in range(n)]


# --------------------------------------------------------------------------------------
# HierarchicalCopyAllReduce
# --------------------------------------------------------------------------------------
class HierarchicalCopyAllReduce(CrossDeviceOps):
    """Two groups (first half, second half of the devices); reduce in each group, exchange, broadcast.

    TF designed it for the 8-GPU DGX-1, whose GPUs form two fully connected groups
    of 4. The engine generalizes it to any N: groups of ceil(N/2) and floor(N/2).
    ``num_packs`` is accepted for TF compatibility (the engine packs into one buffer).
    """

    def __init__(self, num_packs=1):
        super().__init__()
        if num_packs < 0:
            raise ValueError(f"HierarchicalCopy requires num_packs >= 0, but {num_packs} is specified")
        self.num_packs = num_packs

    def all_reduce_sum(self, buffers, devices):
        n = len(devices)
        half = (n + 1) // 2
        groups = [g for g in (list(range(0, half)), list(range(half, n))) if g]
        roots = [g[0] for g in groups]
        partial = {}
        begin_step("reduce within groups")
        for group in groups:
            root = group[0]
            with devices[root].activate():
                acc = buffers[root]
                for m in group[1:]:
                    acc = acc + send(buffers[m], devices[m], devices[root])
            partial[root] = acc
        total = partial[roots[0]]
        if len(roots) == 2:
            begin_step("exchange between group roots")
            with devices[roots[0]].activate():
                total = partial[roots[0]] + send(partial[roots[1]], devices[roots[1]], devices[roots[0]])
            begin_step("broadcast to group roots")
        at_root = {r: (total if r == roots[0] else send(total, devices[roots[0]], devices[r])) for r in roots}
        begin_step("broadcast within groups")
        out = [None] * n
        for group in groups:
            out[group[0]] = at_root[group[0]]
            for m in group[1:]:
                out[m] = send(at_root[group[0]], devices[group[0]], devices[m])
        return out


# --------------------------------------------------------------------------------------
# RingAllReduce
# --------------------------------------------------------------------------------------
def chunk_bounds(size, n):
    """Split ``size`` elements into ``n`` chunks as evenly as possible (the first ones one larger)."""
    base, extra = divmod(size, n)
    sizes = [base + 1 if c < extra else base for c in range(n)]
    offsets = [0]
    for s in sizes[:-1]:
        offsets.append(offsets[-1] + s)
    return offsets, sizes


class RingAllReduce(CrossDeviceOps):
    """Chunked ring all-reduce: N-1 reduce-scatter steps, then N-1 all-gather steps.

    An engine class (TF exposes no ring class; NCCL and TF's collective ops use
    rings inside). See the module docstring for the algorithm; ``last_record``
    shows each step: who sends which chunk to whom.
    """

    def all_reduce_sum(self, buffers, devices):
        n = len(devices)
        offsets, sizes = chunk_bounds(buffers[0].size, n)
        # work[i][c]: device i's current copy of chunk c (views of its buffer; never written in place)
        work = [[b[o:o + s] for o, s in zip(offsets, sizes)] for b in buffers]
        for step in range(n - 1):   # reduce-scatter: device i sends chunk (i - step) to i + 1, which adds it
            begin_step("reduce-scatter")
            moves = [(i, (i + 1) % n, (i - step) % n) for i in range(n)]
            arriving = [send(work[src][c], devices[src], devices[dst], chunk=c) for src, dst, c in moves]
            for (_, dst, c), chunk in zip(moves, arriving):
                with devices[dst].activate():
                    work[dst][c] = work[dst][c] + chunk
        for step in range(n - 1):   # all-gather: pass the complete chunks around the ring, overwriting
            begin_step("all-gather")
            moves = [(i, (i + 1) % n, (i + 1 - step) % n) for i in range(n)]
            arriving = [send(work[src][c], devices[src], devices[dst], chunk=c) for src, dst, c in moves]
            for (_, dst, c), chunk in zip(moves, arriving):
                work[dst][c] = chunk
        out = []
        for i, d in enumerate(devices):
            with d.activate():
                out.append(d.xp.concatenate(work[i]))
        return out


# --------------------------------------------------------------------------------------
# NcclAllReduce
# --------------------------------------------------------------------------------------
_NCCL_DTYPES = {"float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
                "int32": "NCCL_INT32", "int64": "NCCL_INT64", "uint8": "NCCL_UINT8", "int8": "NCCL_INT8"}


def nccl_module():
    """``cupy.cuda.nccl`` if CuPy, a GPU and NCCL are all available, else None."""
    cp = cupy_module()
    if cp is None:
        return None
    try:
        from cupy.cuda import nccl
        nccl.get_version()
    except Exception:  # not built with NCCL, or the library does not load
        return None
    return nccl


def nccl_problem(devices):
    """Why NCCL cannot all-reduce over ``devices`` (a sentence), or None if it can."""
    names = ", ".join(d.short_name.lstrip("/") for d in devices)
    if any(d.device_type != "GPU" for d in devices):
        return (f"NcclAllReduce needs GPUs, but the replicas run on {names}. On CPU devices use "
                f"tf.distribute.ReductionToOneDevice(), HierarchicalCopyAllReduce() or RingAllReduce().")
    physical = [d.physical_index for d in devices]
    if len(set(physical)) != len(physical):
        return (f"NcclAllReduce needs one physical GPU per replica, but the replicas {names} are logical GPUs on "
                f"physical GPUs {physical}: NCCL cannot run two ranks on one GPU. Use ReductionToOneDevice(), "
                f"HierarchicalCopyAllReduce() or RingAllReduce() for logical GPUs.")
    if nccl_module() is None:
        return "NcclAllReduce needs NCCL, but cupy.cuda.nccl is not available in this CuPy installation."
    return None


class NcclAllReduce(CrossDeviceOps):
    """All-reduce with NVIDIA NCCL (``cupy.cuda.nccl``): one communicator rank per GPU, one collective call.

    NCCL chooses its own schedule (a ring on most machines); the record shows the
    ring schedule it implies, marked ``simulated``. It cannot run on CPU devices, nor
    with several logical GPUs on one physical GPU: both raise ``ValueError`` saying so.
    """

    def __init__(self, num_packs=1):
        super().__init__()
        if num_packs < 0:
            raise ValueError(f"NCCL all-reduce requires num_packs >= 0, but {num_packs} is specified")
        self.num_packs = num_packs
        self._communicators = {}

    def _check_devices(self, devices):
        problem = nccl_problem(devices)
        if problem is not None:
            raise ValueError(problem)

    def all_reduce_sum(self, buffers, devices):
        nccl = nccl_module()
        cp = devices[0].xp
        ids = tuple(d.physical_index for d in devices)
        comms = self._communicators.get(ids)
        if comms is None:
            comms = self._communicators[ids] = nccl.NcclCommunicator.initAll(list(ids))
        dtype = np.dtype(buffers[0].dtype).name
        if dtype not in _NCCL_DTYPES:
            raise ValueError(f"NcclAllReduce does not support dtype {dtype}.")
        nccl_dtype = getattr(nccl, _NCCL_DTYPES[dtype])
        outputs = []
        for d, b in zip(devices, buffers):
            with d.activate():
                outputs.append(cp.empty_like(b))
        nccl.groupStart()
        for comm, d, b, out in zip(comms, devices, buffers, outputs):
            with d.activate():
                comm.allReduce(b.data.ptr, out.data.ptr, b.size, nccl_dtype, nccl.NCCL_SUM,
                               cp.cuda.get_current_stream().ptr)
        nccl.groupEnd()
        _simulate_ring(all_reduce_log.running_record(), len(devices), buffers[0].size)
        return outputs


def _simulate_ring(record, n, size):
    """Record the ring schedule NCCL runs inside the library (``simulated``: we did not make these sends)."""
    if record is None:
        return
    offsets, sizes = chunk_bounds(size, n)
    record.chunk_elements = tuple(sizes)
    record.simulated = True
    for step in range(n - 1):
        record.add_step("reduce-scatter", [(i, (i + 1) % n, (i - step) % n, sizes[(i - step) % n]) for i in range(n)])
    for step in range(n - 1):
        record.add_step("all-gather", [(i, (i + 1) % n, (i + 1 - step) % n, sizes[(i + 1 - step) % n])
                                       for i in range(n)])


def select_cross_device_ops(devices):
    """The default algorithm for ``devices``: NCCL when it can run, else ``ReductionToOneDevice``."""
    if len(devices) > 1 and nccl_problem(devices) is None:
        return NcclAllReduce()
    return ReductionToOneDevice()
