"""The contexts code sees under a strategy: the replica context, the cross-replica context, the input context.

``ReplicaContext`` is what code running on one replica (inside ``strategy.run``)
talks to the other replicas through: ``all_reduce``, ``all_gather``,
``merge_call``. ``cross_replica_context`` enters the other context: the
``merge_call`` functions and the collectives themselves run in it
(``mirrored_run.py``). ``InputContext`` and ``ValueContext`` tell the functions
of ``distribute_datasets_from_function`` and
``experimental_distribute_values_from_function`` where they run.

They are here, below ``distribute_lib.py`` (the strategies), so that the modules
the strategies use (``mirrored_run.py``, ``input_lib.py``) can import them
without importing the strategies: the package imports in one direction.
``tf.distribute.get_replica_context()`` (``distribute_lib.py``) returns the
current one.
"""
import contextlib

from ..eager.tape import record_operation
from ..framework import dtypes
from ..framework.context import ctx
from ..framework.tensor import Tensor, constant, convert_to_tensor
from .reduce_util import as_reduce_op
from .values import flatten_values, pack_values

__all__ = ["ReplicaContext", "InputContext", "ValueContext", "cross_replica_context"]


@contextlib.contextmanager
def cross_replica_context(strategy):
    """Run the block in cross-replica context of ``strategy`` (merge_call functions, variable creation)."""
    saved_replica, saved_stack = ctx.replica_context, ctx.strategy_stack
    ctx.replica_context = None
    ctx.strategy_stack = list(saved_stack) if saved_stack and saved_stack[-1] is strategy else \
        list(saved_stack) + [strategy]
    try:
        yield
    finally:
        ctx.replica_context, ctx.strategy_stack = saved_replica, saved_stack


class InputContext:
    """What ``dataset_fn`` of ``distribute_datasets_from_function`` is told about the input pipelines."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self):
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self):
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self):
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size):
        """``global_batch_size / num_replicas_in_sync``, which must divide exactly."""
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync} ")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, total: " \
               f"{self._num_input_pipelines})"


class ValueContext:
    """What ``value_fn`` of ``experimental_distribute_values_from_function`` is told: which replica."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self._replica_id_in_sync_group = replica_id_in_sync_group
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        return self._replica_id_in_sync_group

    @property
    def num_replicas_in_sync(self):
        return self._num_replicas_in_sync

    def __str__(self):
        return f"tf.distribute.ValueContext(replica id {self._replica_id_in_sync_group},  total replicas in sync: " \
               f"{self._num_replicas_in_sync})"


# --------------------------------------------------------------------------------------
# The replica context
# --------------------------------------------------------------------------------------
class ReplicaContext:
    """What code running on one replica can do: know who it is, and talk to the other replicas.

    Every method that communicates (``all_reduce``, ``all_gather``, ``merge_call``)
    is a *synchronization point*: the replica stops there until every replica has
    reached the same point; then the collective runs once, for all of them, and
    each replica continues with its share of the result. So every replica must call
    the same collectives, in the same order.
    """

    def __init__(self, strategy, replica_id_in_sync_group, executor=None):
        self._strategy = strategy
        self._replica_id = int(replica_id_in_sync_group)
        self._executor = executor

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's index, 0 to N-1 (an int32 tensor, as in TF)."""
        return constant(self._replica_id, dtype=dtypes.int32)

    @property
    def devices(self):
        return (self._strategy.extended.worker_devices[self._replica_id],)

    def _sync(self, kind, payload):
        return self._executor.sync(self._replica_id, kind, payload)

    def all_reduce(self, reduce_op, value, options=None):
        """Combine ``value`` (a tensor or a nest of tensors) over every replica: each gets the SUM or MEAN.

        The collective runs with the strategy's ``cross_device_ops`` algorithm. It is
        differentiable: the gradient of an all-reduce is the all-reduce (same op) of
        the gradients, so ``tape.gradient`` through it must be called on every replica.
        """
        reduce_op = as_reduce_op(reduce_op)
        leaves = flatten_values(value)
        tensors = [_as_tensor(x) for x in leaves]
        results = self._sync("all_reduce", (reduce_op, tensors))
        if ctx.tapes:
            _record_all_reduce_gradient(self, reduce_op, tensors, results)
        return pack_values(value, results)

    def all_gather(self, value, axis, options=None):
        """Concatenate ``value`` (a tensor or nest) from every replica along ``axis``; each replica gets it all."""
        leaves = flatten_values(value)
        tensors = [_as_tensor(x) for x in leaves]
        return pack_values(value, self._sync("all_gather", (axis, tensors)))

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Pause every replica, run ``merge_fn(strategy, *args)`` once in cross-replica context, resume.

        Each argument reaches ``merge_fn`` as a ``PerReplica`` holding every
        replica's value (or as itself, if every replica passed the same object). Every
        replica receives the result (its own component of a ``PerReplica`` result).
        """
        return self._sync("merge_call", (merge_fn, tuple(args), dict(kwargs or {})))

    def __repr__(self):
        return f"<tf.distribute.ReplicaContext: replica {self._replica_id} of {self.num_replicas_in_sync} " \
               f"({type(self._strategy).__name__})>"


def _as_tensor(x):
    if isinstance(x, Tensor):
        return x
    if hasattr(x, "_is_variable"):
        return x._read()
    return convert_to_tensor(x)


def _record_all_reduce_gradient(replica, reduce_op, inputs, outputs):
    """Offer the all-reduce to this replica's tapes; its gradient is the same all-reduce of the gradients."""
    pairs = [(x, y) for x, y in zip(inputs, outputs) if x.dtype.is_floating]
    if not pairs:
        return
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]

    def backward(*grads):
        return list(replica.all_reduce(reduce_op, list(grads)))
    record_operation("CollectiveReduceV2", xs, ys, backward)
