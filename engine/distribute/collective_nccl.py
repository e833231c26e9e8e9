"""NCCL between workers: ``CommunicationOptions(implementation=NCCL)`` on GPU workers.

Within one process, ``NcclAllReduce`` (``cross_device_ops.py``) makes one NCCL
communicator over the process's GPUs with ``NcclCommunicator.initAll``. Across
processes the ranks cannot see each other, so NCCL is bootstrapped the way
TF's collective ops bootstrap it: one task (rank 0, the chief) asks NCCL for a
*unique id* (128 bytes naming the new communicator), sends it to every other
task over the existing gRPC channel (the ring's ``broadcast``), and then each
task joins the communicator with its rank. From then on the all-reduce moves
between the GPUs over NCCL's own transport (NVLink, PCIe, InfiniBand or
sockets), not through the gRPC servers.

The engine keeps one rank per worker (on the worker's first GPU): the worker's
local devices are summed first (as for the ring), then NCCL sums across the
workers. Without CuPy, a GPU or NCCL, the same request falls back to the ring
over gRPC, as TF does for CPU tensors: that is the CPU twin, and what every test
runs on a machine without a GPU.
"""
import numpy as np

from . import collective_ring
from .cross_device_ops import _NCCL_DTYPES, nccl_module

__all__ = ["NcclWorkerGroup", "nccl_available_for"]


def nccl_available_for(devices):
    """True if NCCL can join these workers: CuPy with NCCL, and this worker's replicas on GPUs."""
    return nccl_module() is not None and all(d.device_type == "GPU" for d in devices)


class NcclWorkerGroup:
    """One NCCL communicator spanning the workers of ``group``, this worker's rank on ``device``."""

    def __init__(self, group, device):
        nccl = nccl_module()
        self._nccl, self._device, self.group = nccl, device, group
        uid = np.asarray(nccl.get_unique_id(), dtype=np.int64) if group.rank == 0 else None
        uid = collective_ring.broadcast(group, uid if uid is not None else np.zeros(0, np.int64))
        with device.activate():
            self._comm = nccl.NcclCommunicator(group.size, tuple(int(c) for c in uid), group.rank)
            self._stream = device.xp.cuda.Stream(non_blocking=True)

    def all_reduce(self, host_buffer):
        """The sum over the workers of ``host_buffer`` (NumPy), computed by NCCL on the GPUs."""
        dtype = np.dtype(host_buffer.dtype)
        if dtype.name not in _NCCL_DTYPES:
            return collective_ring.ring_all_reduce(self.group, host_buffer)   # (a dtype NCCL lacks: the ring)
        nccl, xp = self._nccl, self._device.xp
        with self._device.activate():
            send = xp.asarray(host_buffer)
            out = xp.empty_like(send)
            self._comm.allReduce(send.data.ptr, out.data.ptr, send.size, getattr(nccl, _NCCL_DTYPES[dtype.name]),
                                 nccl.NCCL_SUM, self._stream.ptr)
            self._stream.synchronize()
            return out.get()
