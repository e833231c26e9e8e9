"""NCCL between workers (``collective_nccl.py``): on GPUs a communicator across the processes; on CPUs the
CPU twin, the ring over gRPC (what ``implementation=NCCL`` means for CPU tensors in TF)."""
import json

import numpy as np
import pytest

from engine.distribute.collective_all_reduce_strategy import CollectiveAllReduce, CommunicationOptions
from engine.distribute.collective_nccl import nccl_available_for
from engine.distribute.cross_device_ops import ReductionToOneDevice, nccl_module
from engine.framework.device import manager

from launched import launch_clusters


class _TwoTasks:
    size, rank = 2, 0


def test_on_cpu_workers_nccl_falls_back_to_the_ring():
    cpu = manager.lookup("CPU", 0)
    assert not nccl_available_for([cpu])
    ops = CollectiveAllReduce(_TwoTasks(), ReductionToOneDevice(), 2, CommunicationOptions(implementation="NCCL"),
                              [cpu])
    assert ops._nccl_group() is None          # the ring carries the all-reduce: the CPU twin
    ring = CollectiveAllReduce(_TwoTasks(), ReductionToOneDevice(), 2, CommunicationOptions(implementation="RING"),
                               [cpu])
    assert ring._nccl_group() is None


def _gpus():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001  (no CuPy, no driver)
        return 0


@pytest.mark.skipif(_gpus() < 2 or nccl_module() is None, reason="needs CuPy with NCCL and two CUDA GPUs")
def test_two_gpu_workers_all_reduce_over_nccl(tmp_path_factory):
    (status, out, err, out_dir), = launch_clusters(tmp_path_factory, "nccl_worker.py", sizes=(2,), timeout_s=120,
                                                   prefix="nccl").values()
    assert status == 0, out + err
    expected = np.arange(1000, dtype=np.float32) * 3
    for rank in range(2):
        result = json.loads((out_dir / f"worker{rank}.json").read_text())
        assert result["nccl"]
        np.testing.assert_array_equal(result["sum"], expected)
