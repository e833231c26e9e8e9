"""``tf.distribute.ParameterServerStrategy``: variables on parameter servers, asynchronous workers.

The other strategies are *synchronous*: every replica computes its gradient
on the same variable values, the gradients are all-reduced, every replica
applies the same update. Here the cluster has three kinds of task::

    {"cluster": {"chief": ["host0:2222"],              # the coordinator: runs the training program
                 "worker": ["host1:2222", "host2:2222"],   # run the functions the coordinator schedules
                 "ps": ["host3:2222"]},                # hold the variables
     "task": {"type": "chief", "index": 0}}

and the training is **asynchronous**: each worker reads the variables from the
parameter servers, computes a gradient on its batch, and sends its update
back, without waiting for the others. A slow worker slows nobody down; the
price is *staleness*, gradients computed on values that other workers have
updated in between (``ps_values.staleness`` measures it).

Only the chief creates the strategy; the workers and parameter servers run
``tf.distribute.Server(...).join()``::

    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    if resolver.task_type in ("worker", "ps"):
        tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                             task_index=resolver.task_id).join()
    strategy = tf.distribute.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)

As in TF:

* ``tf.Variable(...)`` in ``strategy.scope()`` creates the variable on a
  parameter server, round-robin over the ``ps`` tasks in creation order
  (``v.device == "/job:ps/replica:0/task:1/device:CPU:0"``): a
  :class:`~engine.distribute.ps_values.RemoteVariable`;
* with ``variable_partitioner`` (``tf.distribute.experimental.partitioners``),
  a large variable is split along its first axis into shards, each a variable
  on its own parameter server: a :class:`ShardedVariable`;
* ``num_replicas_in_sync`` is 1: it counts the replicas of one worker (a CPU
  worker has one), since the workers do not synchronize;
* ``strategy.run(fn)`` inside a scheduled function runs ``fn`` on the worker's
  one replica; ``strategy.reduce`` over one replica is the value;
* the cluster is checked as TF checks it: at least one ``ps`` and one
  ``worker``, the task in the cluster (``multi_worker_util``).
"""
import math

import numpy as np

from ..eager.tape import stop_recording
from ..framework.device import lookup_device
from ..framework.func_graph import init_scope
from ..framework.tensor import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops
from ..variables import Variable
from .cluster_resolver import TFConfigClusterResolver
from .collective_service import task_server
from .cross_device_ops import ReductionToOneDevice
from .distribute_lib import Strategy, StrategyExtended, plain_variables, variable_kwargs
from .multi_worker_util import task_name, validate_parameter_server_cluster
from .ps_values import RemoteVariable
from .server_lib import Server

__all__ = ["ParameterServerStrategy", "ShardedVariable", "FixedShardsPartitioner", "MinSizePartitioner",
           "MaxSizePartitioner"]


class ParameterServerExtended(StrategyExtended):
    """``strategy.extended``: the parameter devices, and who checkpoints (the coordinator)."""

    @property
    def parameter_devices(self):
        return tuple(f"{task_name('ps', i)}/device:CPU:0" for i in range(self._container_strategy()._num_ps))

    @property
    def should_checkpoint(self):
        return True

    @property
    def should_save_summary(self):
        return True

    @property
    def has_chief(self):
        return "chief" in self._container_strategy().cluster_resolver.cluster_spec().jobs

    def variable_created_in_scope(self, v):
        return isinstance(v, (RemoteVariable, ShardedVariable))


class ParameterServerStrategy(Strategy):
    """Asynchronous training with variables on the ``ps`` tasks (see the module docstring)."""

    _is_parameter_server_strategy = True

    def __init__(self, cluster_resolver=None, variable_partitioner=None):
        resolver = cluster_resolver if cluster_resolver is not None else TFConfigClusterResolver()
        validate_parameter_server_cluster(resolver)
        super().__init__(ParameterServerExtended(self, [lookup_device("/CPU:0")], ReductionToOneDevice()))
        self.cluster_resolver = resolver
        self._variable_partitioner = variable_partitioner
        cluster = resolver.cluster_spec()
        self._num_ps = cluster.num_tasks("ps")
        self._num_workers = cluster.num_tasks("worker")
        self._next_ps = 0
        self._cluster_coordinator = None
        if "chief" in cluster.jobs:
            self._coordinator_server = task_server(cluster, "chief", 0)
            self._coordinator_address = cluster.task_address("chief", 0)
        else:   # a cluster without a chief task: the coordinator serves on a free local port
            self._coordinator_server = Server.create_local_server()
            self._coordinator_address = f"127.0.0.1:{self._coordinator_server.port}"

    # --- variables ---------------------------------------------------------------------------
    def _create_variable(self, args, kwargs):
        kw = variable_kwargs(args, kwargs)
        with plain_variables(), stop_recording(), init_scope():
            template = Variable(**kw)        # computes the initial value, dtype, name here
        shards = self._num_shards(template)
        if shards > 1:
            return ShardedVariable(self, template, shards)
        return self._place(template)

    def _place(self, template):
        """Create ``template`` 's value on the next parameter server (round-robin); its handle."""
        i = self._next_ps % self._num_ps
        self._next_ps += 1
        cluster = self.cluster_resolver.cluster_spec()
        return RemoteVariable.create(cluster.task_address("ps", i), task_name("ps", i), template)

    def _num_shards(self, template):
        partitioner = self._variable_partitioner
        if partitioner is None or template.shape.rank in (None, 0):
            return 1
        counts = partitioner(TensorShape(template.shape), template.dtype)
        return max(1, min(int(counts[0]), int(template.shape[0] or 1)))

    def __repr__(self):
        return f"<engine.distribute.ParameterServerStrategy: {self._num_workers} workers, {self._num_ps} ps>"


# --------------------------------------------------------------------------------------
# Sharded variables
# --------------------------------------------------------------------------------------
class ShardedVariable:
    """``tf.distribute.ShardedVariable``: one variable split along axis 0 over several parameter servers.

    Shard ``i`` holds rows ``[offset_i, offset_i + rows_i)``; the first ``rows % shards``
    shards take one row more (TF's split). ``variables`` lists the shards (what an
    optimizer updates); reading the whole value concatenates them;
    ``tf.nn.embedding_lookup(v, ids)`` gathers from the shards that hold the ids.
    """

    _is_sharded_variable = True

    def __init__(self, strategy, template, shards):
        value = template._read_untracked()
        rows = int(template.shape[0])
        base, extra = divmod(rows, shards)
        sizes = [base + (1 if i < extra else 0) for i in range(shards)]
        self._name = template.name.split(":")[0]
        self._dtype, self._shape = template.dtype, template.shape
        self._variables, offset = [], 0
        for i, size in enumerate(sizes):
            with plain_variables(), stop_recording(), init_scope():
                part = Variable(value[offset:offset + size], trainable=template.trainable,
                                name=f"{self._name}/part_{i}", dtype=template.dtype)
            self._variables.append(strategy._place(part))
            offset += size
        self._offsets = np.cumsum([0] + sizes)

    @property
    def variables(self):
        return list(self._variables)

    @property
    def name(self):
        return self._name + ":0"

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    @property
    def trainable(self):
        return self._variables[0].trainable

    def _read(self):
        return array_ops.concat([v._read() for v in self._variables], axis=0)

    def value(self):
        return self._read()

    read_value = value

    def numpy(self):
        return np.concatenate([np.asarray(v.numpy()) for v in self._variables], axis=0)

    def __tf_tensor__(self, dtype=None, name=None):
        return self._read()

    def assign(self, value, read_value=True):
        value = np.asarray(convert_to_tensor(value, dtype=self._dtype).numpy())
        for v, start, end in zip(self._variables, self._offsets[:-1], self._offsets[1:]):
            v.assign(value[start:end])
        return self if read_value else None

    def embedding_lookup(self, ids):
        """Rows ``ids`` of the whole variable, each gathered from the shard that holds it ("div" strategy)."""
        return array_ops.gather(self._read(), ids)

    def __repr__(self):
        return f"<tf.distribute.ShardedVariable '{self.name}' shape={self._shape} dtype={self._dtype.name} " \
               f"shards={len(self._variables)}>"


# --------------------------------------------------------------------------------------
# Partitioners: how many shards a variable gets (TF's tf.distribute.experimental.partitioners)
# --------------------------------------------------------------------------------------
class FixedShardsPartitioner:
    """``num_shards`` shards (fewer when the first axis has fewer rows)."""

    def __init__(self, num_shards):
        self._num_shards = num_shards

    def __call__(self, shape, dtype, axis=0):
        return [min(self._num_shards, shape[0])] + [1] * (len(shape) - 1)


class MinSizePartitioner:
    """As many shards as keep each at least ``min_shard_bytes`` (256 KiB), at most ``max_shards``."""

    def __init__(self, min_shard_bytes=256 << 10, max_shards=1, bytes_per_string=16):
        if min_shard_bytes < 1:
            raise ValueError(f"Argument `min_shard_bytes` must be positive. Received: {min_shard_bytes}")
        if max_shards < 1:
            raise ValueError(f"Argument `max_shards` must be positive. Received: {max_shards}")
        self._min_shard_bytes, self._max_shards = min_shard_bytes, max_shards

    def __call__(self, shape, dtype, axis=0):
        total = math.prod(shape.as_list()) * dtype.size
        shards = max(1, min(shape[0], self._max_shards, math.ceil(total / self._min_shard_bytes)))
        return [int(shards)] + [1] * (len(shape) - 1)


class MaxSizePartitioner:
    """As few shards as keep each at most ``max_shard_bytes`` (optionally at most ``max_shards``)."""

    def __init__(self, max_shard_bytes, max_shards=None, bytes_per_string=16):
        if max_shard_bytes < 1:
            raise ValueError(f"Argument `max_shard_bytes` must be positive. Received {max_shard_bytes}")
        self._max_shard_bytes, self._max_shards = max_shard_bytes, max_shards

    def __call__(self, shape, dtype, axis=0):
        rows = shape[0]
        bytes_per_row = math.prod(shape.as_list()) / max(rows, 1) * dtype.size
        rows_per_shard = max(1, math.floor(self._max_shard_bytes / bytes_per_row))
        shards = math.ceil(rows / rows_per_shard)
        if self._max_shards:
            shards = min(shards, self._max_shards)
        return [int(shards)] + [1] * (len(shape) - 1)
