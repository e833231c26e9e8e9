"""``tf.distribute.MultiWorkerMirroredStrategy``: synchronous data parallelism across processes.

``MirroredStrategy`` keeps one copy of the model per device of one process.
``MultiWorkerMirroredStrategy`` (MWMS) does the same across several processes,
the *workers* of a cluster (``TF_CONFIG``; ``cluster_resolver.py``), each with
its local devices (its GPUs, else its CPU). Every worker runs the same program::

    strategy = tf.distribute.MultiWorkerMirroredStrategy()   # reads TF_CONFIG, starts this task's server
    with strategy.scope():
        w = tf.Variable(...)          # the same initial value on every worker (broadcast from the chief)

    def step(x):                      # x: this replica's slice of the global batch
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(per_example_loss(w, x), global_batch_size=GLOBAL)
        g = tf.distribute.get_replica_context().all_reduce("SUM", tape.gradient(loss, w))
        w.assign_sub(0.1 * g)         # the same update on every replica of every worker
        return loss

    loss = strategy.reduce("SUM", strategy.run(step, args=(x,)), axis=None)   # the global mean loss

and is started once per worker (``python -m engine.distribute.launch --workers 2 train.py``).

What differs from ``MirroredStrategy``, as in TF:

* ``num_replicas_in_sync`` counts the replicas of **all** workers (workers x
  local devices); ``replica_id_in_sync_group`` is global: worker k's first
  replica is ``k x local devices``;
* every all-reduce (the gradients, ``strategy.reduce``, ``SUM``/``MEAN``
  variables, metrics read across replicas) first reduces over the local devices
  (the local ``CrossDeviceOps``), then over the workers with the ring all-reduce
  over gRPC (``collective_ring.py``): :class:`CollectiveAllReduce`. MEAN divides
  by the global number of replicas;
* variables start equal everywhere: the chief's initial values are broadcast to
  the other workers when the variables are created;
* ``extended.should_checkpoint`` (and ``should_save_summary``) is true on the
  chief only: every worker trains, one writes;
* the devices are named after the task, ``/job:worker/replica:0/task:1/device:CPU:0``
  (``extended.worker_devices``): as in TF, once the strategy has joined the
  cluster every tensor and variable of the process (in the scope or not) says
  so in ``.device`` (``framework.device.set_local_task``). (TF also insists
  that the strategy be made before any op runs: "Collective ops must be
  configured at program startup"; the engine does not.)

A malformed ``TF_CONFIG`` is refused when the strategy is made, with TF's
errors (``multi_worker_util.resolve_multi_worker_task``). Without a cluster
(no ``TF_CONFIG``) the strategy has one worker: this process's devices.

``communication_options``: :class:`CommunicationOptions`.
``implementation`` ``RING`` and ``AUTO`` use the ring between workers; ``NCCL``
on GPU workers joins one NCCL communicator across the processes
(``collective_nccl.py``); on CPU workers it falls back to the ring, as TF does
for CPU tensors. ``timeout_seconds`` bounds
every receive (``tf.errors.DeadlineExceededError``); ``bytes_per_pack`` splits
each all-reduce into all-reduces of at most that many bytes (0: one per dtype).

Input: ``experimental_distribute_dataset`` shards by the dataset's
``tf.data.experimental.AutoShardPolicy`` as TF does (``DATA``/``AUTO``: worker k
gets the k-th contiguous piece of every global batch; ``OFF``; ``FILE``), and
``distribute_datasets_from_function`` gets an ``InputContext`` per worker
(``input_lib.py`` records TF 2.21's behaviour). Keras ``fit`` inside the scope
gives each worker its piece of every global batch the same way, so N workers
end with the weights of one process's ``fit`` on the same global batch (TF
2.21's own Keras 3.15 fails there: it passes a tuple of per-replica values to
``strategy.reduce``, keras-team/keras#20585).
"""
import enum

import numpy as np

from .. import autograph
from ..eager.tape import stop_recording
from ..framework import dtypes
from ..framework.context import ctx
from ..framework.device import device as device_scope
from ..framework.device import lookup_device, manager, set_local_task
from ..framework.tensor import EagerTensor, constant
from ..ops import array_ops, math_ops, reduction_ops
from . import collective_ring
from .cluster_resolver import ClusterResolver, TFConfigClusterResolver
from .collective_ops import all_reduce_tensors
from .collective_nccl import NcclWorkerGroup, nccl_available_for
from .collective_service import CollectiveGroup, task_server
from .cross_device_ops import CrossDeviceOps, select_cross_device_ops
from .input_lib import (DistributedDataset, DistributedDatasetsFromFunction, MultiWorkerDatasetsFromFunction,
                        MultiWorkerDistributedDataset)
from .distribute_lib import StrategyExtended
from .mirrored_run import call_for_each_replica
from .mirrored_strategy import MirroredStrategy
from .multi_worker_util import collective_tasks, resolve_multi_worker_task
from .reduce_util import ReduceOp, as_reduce_op
from .replica_context import ReplicaContext, ValueContext, _as_tensor
from .values import DistributedValues, DistributedVariable, PerReplica, regroup

__all__ = ["MultiWorkerMirroredStrategy", "ExperimentalMultiWorkerMirroredStrategy", "CommunicationOptions",
           "CommunicationImplementation", "CollectiveCommunication", "CollectiveAllReduce"]


class CommunicationImplementation(enum.Enum):
    """How collectives travel: ``AUTO`` (the engine's choice), ``RING`` (the ring over gRPC), ``NCCL`` (GPUs)."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


CollectiveCommunication = CommunicationImplementation   # TF's deprecated alias


class CommunicationOptions:
    """``tf.distribute.experimental.CommunicationOptions``: hints for the collectives (TF's checks and ``merge``)."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None, implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"Argument `bytes_per_pack` must be >=0, Received {bytes_per_pack}.")
        if isinstance(implementation, str):
            implementation = CommunicationImplementation(implementation.upper())
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError("Argument `implementation` must be instance of "
                             "`tf.distribute.experimental.CommunicationImplementation`.")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation

    def merge(self, options):
        """A copy where the values ``options`` sets (not left at their defaults) take precedence."""
        merged = CommunicationOptions(self.bytes_per_pack, self.timeout_seconds, self.implementation)
        if options is None:
            return merged
        if options.bytes_per_pack != 0:
            merged.bytes_per_pack = options.bytes_per_pack
        if options.timeout_seconds is not None:
            merged.timeout_seconds = options.timeout_seconds
        if options.implementation != CommunicationImplementation.AUTO:
            merged.implementation = options.implementation
        return merged

    def __str__(self):
        return (f"Options(bytes_per_pack={self.bytes_per_pack},timeout_seconds={self.timeout_seconds}, "
                f"implementation={self.implementation})")


def _to_host(array):
    """A device array as a NumPy array (CuPy arrays are copied to the host)."""
    return array.get() if hasattr(array, "get") and not isinstance(array, np.ndarray) else np.asarray(array)


# --------------------------------------------------------------------------------------
# The cross-device ops: local devices, then the workers
# --------------------------------------------------------------------------------------
class CollectiveAllReduce(CrossDeviceOps):
    """All-reduce over every replica of every worker: locally with ``local_ops``, then the ring between workers.

    TF's class of the same name runs one collective op per device; the engine
    composes the two levels it already has: the buffers of this worker's devices
    are summed by the local algorithm (nothing to do with one device), the
    worker's sum travels around the ring of workers (``collective_ring``), and
    the total comes back to each local device. MEAN divides by every replica of
    every worker (``num_replicas_in_sync``).
    """

    spans_processes = True

    def __init__(self, group, local_ops, num_replicas_in_sync, options=None, devices=()):
        super().__init__()
        self.group = group
        self.local_ops = local_ops
        self.num_replicas_in_sync = int(num_replicas_in_sync)
        self.options = options or CommunicationOptions()
        self.devices = tuple(devices)      # this worker's replicas' devices (NCCL needs GPUs)
        self._nccl = None

    def _check_devices(self, devices):
        self.local_ops._check_devices(devices)

    def all_reduce_arrays(self, reduce_op, devices, per_replica_arrays):
        reduce_op = as_reduce_op(reduce_op)
        count = len(per_replica_arrays[0])
        out = [[None] * count for _ in devices]
        groups = {}
        for k, a in enumerate(per_replica_arrays[0]):
            groups.setdefault(np.dtype(a.dtype), []).append(k)
        for dtype, indices in groups.items():
            shapes = [tuple(np.shape(per_replica_arrays[0][k])) for k in indices]
            sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
            host = self._local_sum(devices, [[per_replica_arrays[r][k] for k in indices] for r in range(len(devices))],
                                   dtype)
            total = self._across_workers(host)
            if reduce_op is ReduceOp.MEAN and self.num_replicas_in_sync > 1:
                total = total / self.num_replicas_in_sync if dtype.kind in "fc" else \
                    total.astype(np.float64) / self.num_replicas_in_sync
            for r, d in enumerate(devices):
                with d.activate():
                    buf = d.put(total)
                    offset = 0
                    for k, shape, size in zip(indices, shapes, sizes):
                        piece = buf[offset:offset + size].reshape(shape)
                        out[r][k] = piece[()] if piece.ndim == 0 else piece
                        offset += size
        return out

    def _local_sum(self, devices, per_replica, dtype):
        """This worker's sum of its replicas' arrays (one dtype), packed into one host buffer."""
        flat = [np.concatenate([np.ravel(_to_host(a)).astype(dtype, copy=False) for a in arrays]) if arrays
                else np.zeros(0, dtype) for arrays in per_replica]
        if len(devices) == 1:
            return flat[0]
        local = self.local_ops.all_reduce_arrays(ReduceOp.SUM, devices, [[f] for f in flat])
        return _to_host(local[0][0])

    def _across_workers(self, buffer):
        """The all-reduce of ``buffer`` over the workers (NCCL or the ring), in packs of ``bytes_per_pack``."""
        reduce = self._nccl_group().all_reduce if self._nccl_group() is not None else \
            lambda b: collective_ring.ring_all_reduce(self.group, b)
        per_pack = self.options.bytes_per_pack // buffer.dtype.itemsize if self.options.bytes_per_pack else 0
        if not per_pack or buffer.size <= per_pack:
            return reduce(buffer)
        return np.concatenate([reduce(buffer[a:a + per_pack]) for a in range(0, buffer.size, per_pack)])

    def _nccl_group(self):
        """The NCCL communicator across the workers when ``implementation=NCCL`` and the workers have GPUs
        (made on first use, by every worker at the same collective); None: use the ring."""
        if self.options.implementation is not CommunicationImplementation.NCCL or self.group.size == 1 or \
                not nccl_available_for(self.devices):
            return None
        if self._nccl is None:
            self._nccl = NcclWorkerGroup(self.group, self.devices[0])
        return self._nccl

    def __repr__(self):
        return f"<tf.distribute.CollectiveAllReduce: {self.group.size} workers, local {type(self.local_ops).__name__}>"


# --------------------------------------------------------------------------------------
# The strategy
# --------------------------------------------------------------------------------------
def _local_devices():
    """TF's choice: every GPU of this process, else its first CPU (one replica per CPU worker)."""
    gpus = [d for d in manager.logical() if d.device_type == "GPU"]
    return gpus or [manager.lookup("CPU", 0)]


class CollectiveAllReduceExtended(StrategyExtended):
    """``strategy.extended`` of MWMS: the task, the chief, the devices named after the task."""

    def __init__(self, container_strategy, devices, cross_device_ops, task_type, task_id, rank, num_workers,
                 is_chief):
        super().__init__(container_strategy, devices, cross_device_ops)
        self._task_type, self._task_id = task_type, task_id
        self._id_in_cluster, self._num_workers, self._is_chief = rank, num_workers, is_chief

    @property
    def worker_devices(self):
        """``/job:<task>/replica:0/task:<id>/device:CPU:0`` for each local replica (``/job:localhost`` alone)."""
        job = "localhost" if self._task_type is None else self._task_type
        task = 0 if self._task_id is None else self._task_id
        return tuple(f"/job:{job}/replica:0/task:{task}/device:{d.device_type}:{d.index}" for d in self._devices)

    @property
    def parameter_devices(self):
        return self.worker_devices

    @property
    def should_checkpoint(self):
        """True on the chief only: one worker writes the checkpoints."""
        return self._is_chief

    @property
    def should_save_summary(self):
        return self._is_chief

    @property
    def should_init(self):
        return True

    experimental_should_init = should_init

    @property
    def experimental_between_graph(self):
        return True


class _MultiWorkerReplicaContext(ReplicaContext):
    """A replica of one worker: its id in the sync group counts the replicas of the workers before it."""

    def __init__(self, local, offset):
        super().__init__(local._strategy, local._replica_id, local._executor)
        self._offset = offset

    @property
    def replica_id_in_sync_group(self):
        return constant(self._replica_id + self._offset, dtype=dtypes.int32)


class MultiWorkerMirroredStrategy(MirroredStrategy):
    """Synchronous training on the devices of several workers (processes), replicas kept identical by all-reduce.

    ``cluster_resolver``: where the cluster and this task come from (default
    ``TFConfigClusterResolver()``: ``TF_CONFIG``). ``communication_options``: a
    :class:`CommunicationOptions`.
    """

    def __init__(self, cluster_resolver=None, communication_options=None):
        options = CommunicationOptions() if communication_options is None else communication_options
        if not isinstance(options, CommunicationOptions):
            raise ValueError("communication_options must be an instance of "
                             "tf.distribute.experimental.CommunicationOptions")
        resolver = TFConfigClusterResolver() if cluster_resolver is None else cluster_resolver
        if not isinstance(resolver, ClusterResolver):
            raise ValueError("cluster_resolver must be an instance of tf.distribute.cluster_resolver.ClusterResolver")
        self._cluster_resolver = resolver
        self._communication_options = options
        devices = _local_devices()
        task_type = task_id = None                      # no cluster: one worker, this process
        rank, num_workers, is_chief, group = 0, 1, True, _SoloGroup()
        if resolver.cluster_spec().as_dict():
            cluster_spec, task_type, task_id, rank, num_workers, is_chief = resolve_multi_worker_task(resolver)
            if task_type == "evaluator":                # outside the training cluster: alone
                rank, num_workers, is_chief = 0, 1, True
            else:
                server = task_server(cluster_spec, task_type, task_id)
                members = [(t, i, cluster_spec.task_address(t, i)) for t, i in collective_tasks(cluster_spec)]
                group = CollectiveGroup(server, members, rank, timeout=options.timeout_seconds or None)
                group.connect()      # as TF: the strategy is made once every worker is up
                set_local_task(task_type, task_id)   # as TF: this process's devices are named after the task
        local_ops = select_cross_device_ops(devices)
        cross_ops = CollectiveAllReduce(group, local_ops, num_workers * len(devices), options, devices)
        self._group = group
        self._streams = {}
        super(MirroredStrategy, self).__init__(CollectiveAllReduceExtended(
            self, devices, cross_ops, task_type, task_id, rank, num_workers, is_chief))

    # --- the cluster --------------------------------------------------------------------------
    @property
    def cluster_resolver(self):
        return self._cluster_resolver

    @property
    def num_replicas_in_sync(self):
        return self._extended._num_workers * len(self._extended._devices)

    def _replica_offset(self):
        return self._extended._id_in_cluster * len(self._extended._devices)

    # --- running on every replica -------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn`` on each local replica, which sees its global ``replica_id_in_sync_group``."""
        if not callable(fn):
            raise TypeError(f"'{type(fn).__name__}' object is not callable")
        args = tuple(args) if args is not None else ()
        kwargs = dict(kwargs or {})
        replica = ctx.replica_context
        if replica is not None and replica.strategy is self:
            return fn(*args, **kwargs)
        if getattr(ctx.graph, "building_function", False):
            fn = autograph.to_graph(fn)
        offset = self._replica_offset()

        def on_replica(*a, **k):
            local = ctx.replica_context
            ctx.replica_context = _MultiWorkerReplicaContext(local, offset)
            try:
                return fn(*a, **k)
            finally:
                ctx.replica_context = local
        return call_for_each_replica(self, on_replica, args, kwargs)

    def experimental_distribute_values_from_function(self, value_fn):
        """``value_fn(ValueContext(global replica id, num_replicas_in_sync))`` on each local replica's device."""
        results = []
        for i, d in enumerate(self._extended._devices):
            with device_scope(d):
                results.append(value_fn(ValueContext(self._replica_offset() + i, self.num_replicas_in_sync)))
        return regroup(results)

    def _input_worker(self):
        """(number of workers, this worker's index): how the input is shared out (``input_lib``)."""
        return self._extended._num_workers, self._extended._id_in_cluster

    def experimental_distribute_dataset(self, dataset, options=None):
        """This worker's share of every global batch, by the dataset's ``AutoShardPolicy`` (``input_lib.py``).

        One worker: as ``MirroredStrategy``. Several: ``DATA``/``AUTO`` give worker k
        the k-th contiguous piece of each global batch (``ceil(b / workers)`` examples,
        as TF), ``OFF`` the whole dataset rebatched per replica, ``FILE`` TF's
        ``NotFoundError`` for an in-memory dataset.
        """
        if self._extended._num_workers == 1:
            return DistributedDataset(self, dataset)
        return MultiWorkerDistributedDataset(self, dataset)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(InputContext(workers, this worker, num_replicas_in_sync))`` once on each worker."""
        if self._extended._num_workers == 1:
            return DistributedDatasetsFromFunction(self, dataset_fn)
        return MultiWorkerDatasetsFromFunction(self, dataset_fn)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    # --- cross-replica operations: over the workers too -------------------------------------------
    def _local_parts(self, value):
        if isinstance(value, (DistributedValues, DistributedVariable)):
            return super()._local_parts(value)
        return [_as_tensor(value)] * len(self._extended._devices)   # this worker's value, on each local replica

    def _reduce_to_device(self, reduce_op, value, destination):
        """SUM/MEAN over every replica of every worker, on ``destination`` (a plain value is this worker's)."""
        reduce_op = as_reduce_op(reduce_op)
        parts = self._local_parts(value)
        devices = self._extended._devices
        reduced = all_reduce_tensors(self._extended._cross_device_ops, reduce_op, devices, [[p] for p in parts])
        total = reduced[0][0]
        if isinstance(total, EagerTensor):
            return total if total._device is destination else EagerTensor(destination.put(total._value), destination)
        with device_scope(destination):
            return array_ops.identity(total)

    def reduce(self, reduce_op, value, axis=None):
        """As ``Strategy.reduce``, over every worker's replicas: with ``axis``, MEAN counts every element."""
        reduce_op = as_reduce_op(reduce_op)
        destination = ctx.device or lookup_device("/CPU:0")
        if axis is None:
            return self._reduce_to_device(reduce_op, value, destination)
        parts = self._local_parts(value)
        axes = [axis] if isinstance(axis, int) else list(axis)
        sums, counts = [], []
        for part in parts:
            with device_scope(part._device if isinstance(part, EagerTensor) else None):
                sums.append(reduction_ops.reduce_sum(part, axis=axes))
                counts.append(reduction_ops.reduce_prod(array_ops.gather(array_ops.shape(part), axes)))
        wrap = (lambda xs: xs[0]) if len(parts) == 1 else PerReplica
        total = self._reduce_to_device(ReduceOp.SUM, wrap(sums), destination)
        if reduce_op is ReduceOp.SUM:
            return total
        count = self._reduce_to_device(ReduceOp.SUM, wrap(counts), destination)
        with device_scope(destination):
            return math_ops.truediv(total, math_ops.cast(count, total.dtype))

    def gather(self, value, axis):
        """Every replica's ``value`` of every worker, concatenated along ``axis`` in replica order (eager)."""
        parts = self._local_parts(value) if isinstance(value, (DistributedValues, DistributedVariable)) else \
            [_as_tensor(value)]
        if not all(isinstance(p, EagerTensor) for p in parts):
            raise NotImplementedError("MultiWorkerMirroredStrategy.gather runs eagerly in the engine (not inside a "
                                      "tf.function yet).")
        local = np.concatenate([_to_host(p._value) for p in parts], axis=axis)
        everyone = collective_ring.all_gather(self._group, np.moveaxis(local, axis, 0))
        joined = np.moveaxis(np.concatenate(everyone, axis=0), 0, axis)
        destination = ctx.device or lookup_device("/CPU:0")
        return EagerTensor(destination.put(joined), destination)

    # --- variables: the chief's initial values everywhere -------------------------------------------
    def _create_mirrored(self, kw):
        variable = super()._create_mirrored(kw)
        if self._extended._num_workers > 1:
            primary = variable.values[0]
            if primary._graph is None:       # (a variable of a graph is initialized when the graph runs)
                value = collective_ring.broadcast(self._group, _to_host(primary._read_untracked()._value)
                                                  if self._group.rank == 0 else None)
                with stop_recording():
                    for component in variable.values:
                        with device_scope(component._device):
                            component.assign(value.astype(component.dtype.as_numpy_dtype, copy=False),
                                             read_value=False)
        return variable

    def __repr__(self):
        e = self._extended
        where = "one worker" if e._task_type is None else f"/job:{e._task_type}/task:{e._task_id}, " \
                                                          f"{e._num_workers} workers"
        return f"<engine.distribute.MultiWorkerMirroredStrategy: {where}, {self.num_replicas_in_sync} replicas in sync>"


class ExperimentalMultiWorkerMirroredStrategy(MultiWorkerMirroredStrategy):
    """``tf.distribute.experimental.MultiWorkerMirroredStrategy(communication, cluster_resolver)``: TF's older form.

    ``communication`` (a :class:`CommunicationImplementation`) becomes
    ``CommunicationOptions(implementation=communication)``.
    """

    def __init__(self, communication=CommunicationImplementation.AUTO, cluster_resolver=None):
        super().__init__(cluster_resolver, CommunicationOptions(implementation=communication))


ExperimentalMultiWorkerMirroredStrategy.__name__ = "MultiWorkerMirroredStrategy"   # (TF renames it too)


class _SoloGroup:
    """The collective group of a strategy without a cluster: one task, nothing to send."""

    size, rank, key, names = 1, 0, "solo", ["/job:localhost/task:0"]
    name = names[0]
    last_record = None

    def next_instance(self):
        return 0

    def connect(self):
        pass
