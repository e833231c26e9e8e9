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
"""
import numpy as np

from ..framework.device import lookup_device
from .all_reduce_log import AllReduceRecord, publish
from .reduce_util import ReduceOp, as_reduce_op

__all__ = ["CrossDeviceOps", "ReductionToOneDevice", "HierarchicalCopyAllReduce", "RingAllReduce",
           "NcclAllReduce", "select_cross_device_ops"]


class CrossDeviceOps:
    """Base class of the all-reduce algorithms.

    Subclasses implement :meth:`_all_reduce_sum`: given one flat buffer per device,
    return one summed buffer per device, recording each step in ``record``. This
    class does the rest: packing tensors into buffers, MEAN, splitting back,
    publishing the record. Public (TF) methods: ``reduce``, ``batch_reduce``,
    ``broadcast``; engine methods: ``all_reduce``, ``batch_all_reduce`` (eager
    ``PerReplica`` values, handy to try an algorithm directly).
    """

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
            record = AllReduceRecord(type(self).__name__, reduce_op.value, [d.short_name.lstrip("/") for d in devices],
                                     sum(sizes), dtype.name, dtype.itemsize)
            record.tensors = len(indices)
            reduced = self._all_reduce_sum(buffers, devices, record) if n > 1 else [buffers[0]]
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

    def _all_reduce_sum(self, buffers, devices, record):
        raise NotImplementedError

    # --- engine conveniences on eager values -----------------------------------------------
    def all_reduce(self, reduce_op, per_replica_value):
        """All-reduce an eager ``PerReplica`` (components on distinct devices); returns a ``PerReplica``."""
        return self.batch_all_reduce(reduce_op, [per_replica_value])[0]

    def batch_all_reduce(self, reduce_op, per_replica_values):
        """All-reduce several ``PerReplica`` values in one packed collective."""
        from .collective_ops import all_reduce_tensors
        from .values import PerReplica
        components = [list(v.values) for v in per_replica_values]
        devices = [t._device for t in components[0]]
        per_replica = [[c[r] for c in components] for r in range(len(devices))]
        reduced = all_reduce_tensors(self, reduce_op, devices, per_replica)
        return [PerReplica([reduced[r][k] for r in range(len(devices))]) for k in range(len(components))]

    # --- TF's public API ------------------------------------------------------------------------
    def reduce(self, reduce_op, per_replica_value, destinations, options=None):
        """Reduce ``per_replica_value`` to one tensor on ``destinations`` (a device, or a tensor/variable's)."""
        from ..framework.device import device as device_scope
        from ..ops import array_ops, math_ops
        from .values import DistributedValues
        reduce_op = as_reduce_op(reduce_op)
        parts = list(per_replica_value.values) if isinstance(per_replica_value, DistributedValues) \
            else [per_replica_value]
        with device_scope(_destination_device(destinations)):
            total = array_ops.identity(parts[0]) if len(parts) == 1 else math_ops.add_n(parts)
            if reduce_op is ReduceOp.MEAN:
                total = math_ops.truediv(total, len(parts))
            return total

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
        return [self.reduce(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def broadcast(self, tensor, destinations):
        from ..framework.device import device as device_scope
        from ..ops import array_ops
        with device_scope(_destination_device(destinations)):
            return array_ops.identity(tensor)

    def __repr__(self):
        return f"<tf.distribute.{type(self).__name__}>"


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


def _send(devices, dst, array):
    """Copy ``array`` to ``devices[dst]`` (free between logical CPUs: NumPy arrays are shared, never written)."""
    return devices[dst].put(array)


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

    def _all_reduce_sum(self, buffers, devices, record):
        devices = list(devices)
        n = len(devices)
        root = 0
        if self.reduce_to_device is not None:
            target = lookup_device(self.reduce_to_device)
            if target in devices:
                root = devices.index(target)
            else:  # an extra device that only adds (e.g. the CPU for GPU replicas)
                devices.append(target)
                record.devices = record.devices + (target.short_name.lstrip("/"),)
                root = n
        size = buffers[0].size
        gathered = [_send(devices, root, b) for b in buffers]
        record.add_step("reduce to one device", [(i, root, None, size) for i in range(n) if i != root])
        with devices[root].activate():
            if self.accumulation_fn is not None:
                total = self.accumulation_fn(gathered)
            else:
                total = gathered[0]
                for b in gathered[1:]:
                    total = total + b
        record.add_step("broadcast", [(root, i, None, size) for i in range(n) if i != root])
        return [total if i == root else _send(devices, i, total) for i in range(n)]


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

    def _all_reduce_sum(self, buffers, devices, record):
        n = len(devices)
        half = (n + 1) // 2
        groups = [list(range(0, half)), list(range(half, n))]
        roots = [g[0] for g in groups if g]
        size = buffers[0].size
        partial = {}
        sends = []
        for group in groups:
            if not group:
                continue
            root = group[0]
            with devices[root].activate():
                acc = None
                for m in group:
                    incoming = buffers[m] if m == root else _send(devices, root, buffers[m])
                    acc = incoming if acc is None else acc + incoming
            partial[root] = acc
            sends += [(m, root, None, size) for m in group if m != root]
        if sends:
            record.add_step("reduce within groups", sends)
        total = partial[roots[0]]
        if len(roots) == 2:
            with devices[roots[0]].activate():
                total = partial[roots[0]] + _send(devices, roots[0], partial[roots[1]])
            record.add_step("exchange between group roots", [(roots[1], roots[0], None, size)])
            record.add_step("broadcast to group roots", [(roots[0], roots[1], None, size)])
        at_root = {r: (total if r == roots[0] else _send(devices, r, total)) for r in roots}
        sends = []
        out = [None] * n
        for group in groups:
            for m in group:
                if m == group[0]:
                    out[m] = at_root[m]
                else:
                    out[m] = _send(devices, m, at_root[group[0]])
                    sends.append((group[0], m, None, size))
        if sends:
            record.add_step("broadcast within groups", sends)
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

    def _all_reduce_sum(self, buffers, devices, record):
        n = len(devices)
        offsets, sizes = chunk_bounds(buffers[0].size, n)
        record.chunk_elements = tuple(sizes)
        # work[i][c]: device i's current copy of chunk c (views of its buffer; never written in place)
        work = [[b[o:o + s] for o, s in zip(offsets, sizes)] for b in buffers]
        for step in range(n - 1):   # reduce-scatter: add the neighbour's partial sum of one chunk
            sends = [(i, (i + 1) % n, (i - step) % n) for i in range(n)]
            arriving = [(dst, c, _send(devices, dst, work[src][c])) for src, dst, c in sends]
            for dst, c, chunk in arriving:
                with devices[dst].activate():
                    work[dst][c] = work[dst][c] + chunk
            record.add_step("reduce-scatter", [(src, dst, c, sizes[c]) for src, dst, c in sends])
        for step in range(n - 1):   # all-gather: pass the complete chunks around the ring
            sends = [(i, (i + 1) % n, (i + 1 - step) % n) for i in range(n)]
            arriving = [(dst, c, _send(devices, dst, work[src][c])) for src, dst, c in sends]
            for dst, c, chunk in arriving:
                work[dst][c] = chunk
            record.add_step("all-gather", [(src, dst, c, sizes[c]) for src, dst, c in sends])
        out = []
        for i, d in enumerate(devices):
            with d.activate():
                out.append(d.xp.concatenate(work[i]) if n > 1 else work[i][0])
        return out


# --------------------------------------------------------------------------------------
# NcclAllReduce
# --------------------------------------------------------------------------------------
_NCCL_DTYPES = {"float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
                "int32": "NCCL_INT32", "int64": "NCCL_INT64", "uint8": "NCCL_UINT8", "int8": "NCCL_INT8"}


def nccl_module():
    """``cupy.cuda.nccl`` if CuPy, a GPU and NCCL are all available, else None."""
    from ..framework.backend import cupy_module
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

    def _all_reduce_sum(self, buffers, devices, record):
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
        _simulate_ring(record, len(devices), buffers[0].size)
        return outputs


def _simulate_ring(record, n, size):
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
