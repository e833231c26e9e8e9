"""``tf.distribute``: data-parallel training on the devices of one machine.

Read in this order:

1. ``distribute_lib.py``: strategies, the replica and cross-replica contexts,
   why the loss is divided by the *global* batch size; ``replica_context.py``:
   ``ReplicaContext`` (``all_reduce``, ``merge_call``) and ``InputContext``.
2. ``values.py``: ``PerReplica`` and ``MirroredVariable`` (one copy per device).
3. ``mirrored_run.py``: how ``strategy.run`` runs one thread per device and
   synchronizes them at every all-reduce.
4. ``cross_device_ops.py``: the all-reduce algorithms (one device, hierarchical,
   ring, NCCL) and ``all_reduce_log.py``, which records every step they take.
5. ``collective_ops.py``: the all-reduce as a graph op, for ``tf.function``.
6. ``input_lib.py``: splitting global batches across replicas.
7. ``mirrored_strategy.py``, ``one_device_strategy.py``: the strategies (and how a device
   the machine lacks becomes a replica placed on the host); ``central_storage_strategy.py``:
   one copy of each variable on the CPU, the computation mirrored over the GPUs.

``distribute_utils.py`` holds the hooks Keras calls.

Across processes (several tasks of a cluster, each a process with a gRPC server):

8. ``cluster_spec.py`` (``tf.train.ClusterSpec``: the tasks and their addresses),
   ``cluster_resolver.py`` (``TF_CONFIG``: which task this process is),
   ``multi_worker_util.py`` (who is chief, ranks, the checks that refuse a bad cluster).
9. ``rpc.py`` (gRPC calls carrying bytes), ``server_lib.py`` (``tf.distribute.Server``: one per task).
10. ``collective_service.py`` (a server's mailbox; a task's view of its group),
    ``collective_ring.py`` (the ring all-reduce between processes, broadcast, all-gather),
    ``collective_log.py`` (what each task sent and received, when).
11. ``launch.py``: ``python -m engine.distribute.launch --workers 2 script.py`` starts a local cluster.
12. ``collective_all_reduce_strategy.py``: ``MultiWorkerMirroredStrategy``, MirroredStrategy across workers.
13. Parameter servers: ``ps_values.py`` (variables on a ``ps`` task, the handles to them),
    ``ps_worker.py`` (a worker runs the functions it is sent), ``cluster_coordinator.py``
    (``ClusterCoordinator``: schedule, join, workers that die), ``parameter_server_strategy.py``.
"""
from . import cross_device_ops, values  # noqa: F401
from .all_reduce_log import AllReduceLog, AllReduceRecord, record_all_reduce  # noqa: F401
from .cross_device_ops import (CrossDeviceOps, HierarchicalCopyAllReduce, NcclAllReduce,  # noqa: F401
                               ReductionToOneDevice, RingAllReduce)
from .distribute_lib import (Strategy, StrategyExtended, experimental_set_strategy, get_replica_context,  # noqa: F401
                             get_strategy, has_strategy, in_cross_replica_context, install_variable_creator)
from .input_lib import DistributedDataset, DistributedIterator  # noqa: F401
from .mirrored_strategy import MirroredStrategy  # noqa: F401
from .central_storage_strategy import CentralStorageStrategy  # noqa: F401
from .one_device_strategy import OneDeviceStrategy  # noqa: F401
from .reduce_util import ReduceOp  # noqa: F401
from .replica_context import InputContext, ReplicaContext, ValueContext  # noqa: F401
from .values import DistributedValues, MirroredVariable, PerReplica, SyncOnReadVariable  # noqa: F401
from . import collective_ops as _collective_ops  # noqa: F401  (registers MirroredAllReduce)
from . import cluster_resolver, multi_worker_util  # noqa: F401  (tf.distribute.cluster_resolver)
from .server_lib import Server  # noqa: F401
from .collective_all_reduce_strategy import (CollectiveCommunication, CommunicationImplementation,  # noqa: F401
                                             CommunicationOptions, MultiWorkerMirroredStrategy)
from .collective_all_reduce_strategy import ExperimentalMultiWorkerMirroredStrategy as _ExperimentalMWMS
from . import distribute_utils  # noqa: F401
from . import ps_values, ps_worker  # noqa: F401  (every server can hold variables and run closures)
from .cluster_coordinator import ClusterCoordinator, PerWorkerValues, RemoteValue
from .parameter_server_strategy import (FixedShardsPartitioner, MaxSizePartitioner, MinSizePartitioner,  # noqa: F401
                                        ParameterServerStrategy, ShardedVariable)

install_variable_creator()


class experimental:  # noqa: N801  (a namespace, as in TF)
    ValueContext = ValueContext
    CommunicationOptions = CommunicationOptions
    CommunicationImplementation = CommunicationImplementation
    CollectiveCommunication = CollectiveCommunication
    MultiWorkerMirroredStrategy = _ExperimentalMWMS   # TF's older form: (communication, cluster_resolver)
    ParameterServerStrategy = ParameterServerStrategy
    CentralStorageStrategy = CentralStorageStrategy

    class partitioners:  # noqa: N801
        FixedShardsPartitioner = FixedShardsPartitioner
        MinSizePartitioner = MinSizePartitioner
        MaxSizePartitioner = MaxSizePartitioner

    class coordinator:  # noqa: N801
        ClusterCoordinator = ClusterCoordinator
        RemoteValue = RemoteValue
        PerWorkerValues = PerWorkerValues


class coordinator:  # noqa: N801  (tf.distribute.coordinator)
    ClusterCoordinator = ClusterCoordinator
    RemoteValue = RemoteValue
    PerWorkerValues = PerWorkerValues


__all__ = ["Strategy", "StrategyExtended", "MirroredStrategy", "OneDeviceStrategy", "ReduceOp", "ReplicaContext",
           "InputContext", "get_replica_context", "get_strategy", "in_cross_replica_context", "has_strategy",
           "experimental_set_strategy", "CrossDeviceOps", "ReductionToOneDevice", "HierarchicalCopyAllReduce",
           "RingAllReduce", "NcclAllReduce", "record_all_reduce", "DistributedValues", "PerReplica",
           "MirroredVariable", "SyncOnReadVariable", "DistributedDataset", "DistributedIterator", "experimental",
           "cluster_resolver", "Server", "MultiWorkerMirroredStrategy", "ParameterServerStrategy", "ShardedVariable",
           "coordinator"]
