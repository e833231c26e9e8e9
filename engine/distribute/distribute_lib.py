"""The ``tf.distribute`` core: ``Strategy``, replica and cross-replica contexts.

(The context classes, ``ReplicaContext``, ``InputContext``, ``ValueContext``, are
in ``replica_context.py``, which ``mirrored_run.py`` and ``input_lib.py`` import
too; this module imports those two, so the package imports in one direction.)

Data parallelism in one paragraph: put a copy of the model on each of N
devices (the *replicas*), give each replica a different slice of the global
batch, let each compute its gradients, then **all-reduce** the gradients (every
replica ends up with their sum) so that every replica applies the same update
and the copies stay identical. One step on N replicas with per-replica batches
of B/N computes exactly what one device computes on the global batch of B, if
the loss is scaled right (see ``tf.nn.compute_average_loss``: each replica
divides its summed loss by the *global* batch size, so that the all-reduced SUM
of the gradients is the gradient of the mean over the global batch).

Two contexts decide what code means:

* **cross-replica context**: inside ``with strategy.scope():`` but outside
  ``strategy.run``. Code here sees whole distributed values (``PerReplica``,
  ``MirroredVariable``). ``tf.distribute.get_replica_context()`` is ``None``.
* **replica context**: inside the function ``strategy.run(fn)`` runs on each
  replica. Code here sees *its* slice and *its* copy of each variable, and can
  talk to the other replicas through ``get_replica_context()``: ``all_reduce``,
  ``all_gather``, ``merge_call``.

Outside any strategy, a default strategy with one replica is in effect
(``get_strategy()``), and ``get_replica_context()`` returns its replica context,
as in TF.

``tf.Variable(...)`` inside ``strategy.scope()`` asks the strategy to create the
variable (TF's variable-creator scope): ``MirroredStrategy`` makes a
``MirroredVariable``. The hook is installed on ``tf.Variable`` when this package
is imported (:func:`install_variable_creator`).
"""
import contextlib
import inspect
import threading

from .. import autograph
from ..framework.context import ctx
from ..framework.device import default_device, lookup_device
from ..framework.device import device as device_scope
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor
from ..ops import array_ops, math_ops, reduction_ops
from ..variables import Variable
from .collective_ops import all_reduce_tensors
from .input_lib import DistributedDataset, DistributedDatasetsFromFunction
from .mirrored_run import call_for_each_replica, handle_sync
from .reduce_util import ReduceOp, as_reduce_op
from .replica_context import InputContext, ReplicaContext, ValueContext, _as_tensor
from .values import DistributedValues, DistributedVariable, Mirrored, is_per_replica, regroup, select_replica

__all__ = ["Strategy", "StrategyExtended", "ReplicaContext", "InputContext", "ValueContext", "get_strategy",
           "get_replica_context", "in_cross_replica_context", "has_strategy", "experimental_set_strategy"]


# --------------------------------------------------------------------------------------
# Contexts
# --------------------------------------------------------------------------------------
def get_replica_context():
    """The current ``ReplicaContext``: inside ``strategy.run``; the default one outside any strategy.

    ``None`` in cross-replica context (inside ``strategy.scope()`` but not in ``run``).
    """
    replica = ctx.replica_context
    if replica is not None:
        return replica
    if ctx.strategy_stack:
        return None
    return _default_strategy()._default_replica_context


def in_cross_replica_context():
    """True inside ``strategy.scope()`` and outside ``strategy.run``."""
    return ctx.replica_context is None and bool(ctx.strategy_stack)


def get_strategy():
    """The strategy of the current scope or replica; the default (one-replica) strategy otherwise."""
    replica = ctx.replica_context
    if replica is not None:
        return replica.strategy
    if ctx.strategy_stack:
        return ctx.strategy_stack[-1]
    return _default_strategy()


def has_strategy():
    """True inside a (non-default) strategy's scope or replica."""
    return ctx.replica_context is not None or bool(ctx.strategy_stack)


def experimental_set_strategy(strategy):
    """Enter ``strategy.scope()`` for good (``None`` leaves it), as TF's ``experimental_set_strategy``."""
    while ctx.strategy_stack:
        ctx.strategy_stack.pop()
    if strategy is not None:
        ctx.strategy_stack.append(strategy)


class _StrategyScope:
    """``with strategy.scope():``: make ``strategy`` the current one (variables are created by it)."""

    def __init__(self, strategy):
        self._strategy = strategy
        self._pushed = False
        self._device = None

    def __enter__(self):
        stack = ctx.strategy_stack
        if stack and stack[-1] is not self._strategy:
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {stack[-1]} is not "
                               f"{self._strategy}")
        stack.append(self._strategy)
        self._pushed = True
        placement = self._strategy._scope_device()
        if placement is not None:
            self._device = device_scope(placement)
            self._device.__enter__()
        return self._strategy

    def __exit__(self, *exc):
        if self._device is not None:
            self._device.__exit__(*exc)
        if self._pushed:
            ctx.strategy_stack.pop()
        return False


# --------------------------------------------------------------------------------------
# The strategy
# --------------------------------------------------------------------------------------
class StrategyExtended:
    """``strategy.extended``: the devices and the lower-level operations of a strategy."""

    def __init__(self, container_strategy, devices, cross_device_ops=None):
        self._container_strategy_ref = container_strategy
        self._devices = tuple(devices)
        self._cross_device_ops = cross_device_ops

    def _container_strategy(self):
        return self._container_strategy_ref

    @property
    def worker_devices(self):
        """The full names of the replicas' devices, in replica order."""
        return tuple((d if d is not None else default_device()).name for d in self._devices)

    @property
    def parameter_devices(self):
        return self.worker_devices

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """Run ``fn(component, *args)`` for each component of ``var`` on its device (cross-replica context).

        A ``PerReplica`` argument gives each component its own value.
        """
        kwargs = kwargs or {}
        components = var._values if isinstance(var, DistributedVariable) else (var,)
        results = []
        for i, component in enumerate(components):
            with device_scope(component._device):
                results.append(fn(component, *select_replica(i, tuple(args)), **select_replica(i, kwargs)))
        return regroup(results) if group else tuple(results)

    def variable_created_in_scope(self, v):
        return isinstance(v, DistributedVariable) and v.distribute_strategy is self._container_strategy_ref

    def reduce_to(self, reduce_op, value, destinations, options=None):
        """Reduce ``value`` (SUM or MEAN over the replicas) to ``destinations``; cross-replica context only.

        ``destinations``: a device string, a tensor or variable (its device), or a
        distributed value or variable: then the result is a ``Mirrored`` value with
        one reduced copy on each of its devices (an all-reduce, when they are the
        value's devices). The variable itself is not updated.
        """
        reduce_op = self._check_reduce_to(reduce_op, destinations)
        strategy = self._container_strategy_ref
        targets = _destination_devices(destinations)
        if len(targets) == 1:
            return strategy._reduce_to_device(reduce_op, value, targets[0])
        if isinstance(value, (DistributedValues, DistributedVariable)) and self._cross_device_ops is not None and \
                [id(d) for d in targets] == [id(d) for d in self._devices]:
            parts = [[part] for part in strategy._local_parts(value)]
            return Mirrored([r[0] for r in all_reduce_tensors(self._cross_device_ops, reduce_op, self._devices,
                                                              parts)])
        total = strategy._reduce_to_device(reduce_op, value, targets[0])
        copies = []
        for d in targets:       # reduce to the first device, broadcast to the others (TF's ReductionToOneDevice)
            with device_scope(d):
                copies.append(array_ops.identity(total))
        return Mirrored(copies)

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        """``reduce_to`` of each ``(value, destinations)`` pair; a list of the results."""
        return [self.reduce_to(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def _check_reduce_to(self, reduce_op, destinations):
        if ctx.replica_context is not None:
            raise RuntimeError("Method requires being in cross-replica context, use get_replica_context()."
                               "merge_call()")
        if isinstance(destinations, (list, tuple)):
            raise AssertionError("reduce_to: `destinations` is one device, tensor, variable or distributed value, "
                                 "not a list")   # (TF: a bare assert)
        return as_reduce_op(reduce_op)


def _destination_devices(destinations):
    """The devices ``destinations`` names: a device string's, a tensor's, each component's of a distributed value."""
    if isinstance(destinations, (DistributedValues, DistributedVariable)):
        return [c._device for c in destinations._values]
    if isinstance(destinations, str):
        return [lookup_device(destinations)]
    if hasattr(destinations, "_device"):
        return [destinations._device]
    return [lookup_device(getattr(destinations, "device", None) or "/CPU:0")]


class Strategy:
    """The base class of distribution strategies (``MirroredStrategy``, ``OneDeviceStrategy``).

    Public API as in TF: ``scope``, ``run``, ``reduce``, ``gather``,
    ``experimental_local_results``, ``experimental_distribute_dataset``,
    ``distribute_datasets_from_function``, ``experimental_distribute_values_from_function``,
    ``num_replicas_in_sync``, ``extended``.
    """

    #: ``reduce("SUM", v)`` of a plain value ``v`` with one replica: a tensor copied to the destination
    #: (TF 2.21's MirroredStrategy and CentralStorageStrategy), or ``v`` itself (OneDevice, the default strategy).
    _sum_copies_plain_values = False

    def __init__(self, extended):
        self._extended = extended

    @property
    def extended(self):
        return self._extended

    @property
    def num_replicas_in_sync(self):
        return len(self._extended._devices)

    def scope(self):
        """``with strategy.scope():`` variables created inside are created by this strategy."""
        return _StrategyScope(self)

    def _scope_device(self):
        return None

    # --- running on every replica -------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """Run ``fn(*args, **kwargs)`` once per replica; return the results as ``PerReplica`` values.

        ``PerReplica`` arguments give each replica its own component; other arguments
        are passed to every replica as they are. See ``mirrored_run.py`` for how the
        replicas run (one thread per device, synchronized at every collective).
        """
        if not callable(fn):
            raise TypeError(f"'{type(fn).__name__}' object is not callable")
        args = tuple(args) if args is not None else ()
        kwargs = dict(kwargs or {})
        replica = ctx.replica_context
        if replica is not None and replica.strategy is self:
            return fn(*args, **kwargs)  # already on a replica: just call it
        if getattr(ctx.graph, "building_function", False):
            fn = autograph.to_graph(fn)   # inside a tf.function trace, replica functions are converted too (as TF)
        return call_for_each_replica(self, fn, args, kwargs)

    # --- cross-replica operations ----------------------------------------------------------------
    def reduce(self, reduce_op, value, axis=None):
        """Reduce a per-replica ``value`` to one tensor (SUM or MEAN), first over ``axis`` within each replica.

        With ``axis``, MEAN is the mean over all the elements of all the replicas
        (the sums along ``axis`` added, divided by the total count). The result is
        placed on the current device (``CPU:0`` by default), as TF does.
        """
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
                if reduce_op is ReduceOp.MEAN:
                    counts.append(reduction_ops.reduce_prod(array_ops.gather(array_ops.shape(part), axes)))
        with device_scope(destination):
            total = sums[0] if len(sums) == 1 else math_ops.add_n(sums)
            if reduce_op is ReduceOp.SUM:
                return total
            count = counts[0] if len(counts) == 1 else math_ops.add_n(counts)
            return math_ops.truediv(total, math_ops.cast(count, total.dtype))

    def _local_parts(self, value):
        """Each replica's tensor: the components of a distributed value, or N copies of a plain one."""
        if isinstance(value, DistributedVariable):
            return [c._read() for c in value._values]
        if isinstance(value, DistributedValues):
            return [_as_tensor(v) for v in value.values]
        return [_as_tensor(value)] * self.num_replicas_in_sync

    def _reduce_to_device(self, reduce_op, value, destination):
        """SUM/MEAN of the components of ``value``, computed on ``destination`` (engine ops: traceable)."""
        if not is_per_replica(value):     # (an AggregatingVariable too: one copy, shared; TF's check)
            if reduce_op is ReduceOp.SUM and self.num_replicas_in_sync > 1:
                raise ValueError(f"A non-DistributedValues value {value!s} cannot be reduced with the given reduce "
                                 f"op {reduce_op}.")
            if reduce_op is ReduceOp.SUM and self._sum_copies_plain_values and \
                    isinstance(value, (Tensor, Variable, int, float)):
                with device_scope(destination):   # TF's broadcast of the one value: a tensor, a variable read
                    return array_ops.identity(_as_tensor(value))
            return value
        parts = self._local_parts(value)
        algorithm, devices = self._extended._cross_device_ops, self._extended._devices
        if algorithm is not None and 1 < len(parts) == len(devices) and algorithm._reduces_by_all_reduce():
            # inside `engine.seams.using(all_reduce=...)`: the replaced algorithm sums this too
            return algorithm._reduce_by_all_reduce(reduce_op, parts, list(devices), destination)
        with device_scope(destination):
            total = parts[0] if len(parts) == 1 else math_ops.add_n(parts)
            if len(parts) == 1 and isinstance(total, EagerTensor) and total._device is not destination:
                total = EagerTensor(destination.put(total._value), destination)
            if reduce_op is ReduceOp.MEAN:
                total = math_ops.truediv(total, len(parts)) if total.dtype.is_floating else \
                    math_ops.truediv(total, convert_to_tensor(len(parts), dtype=total.dtype))
            return total

    def gather(self, value, axis):
        """Concatenate the replicas' components of ``value`` along ``axis`` (a plain value is returned as is)."""
        if not is_per_replica(value):
            return value
        parts = self._local_parts(value)
        with device_scope(ctx.device or lookup_device("/CPU:0")):
            return array_ops.concat(parts, axis=axis)

    def experimental_local_results(self, value):
        """The components of ``value`` as a tuple, one per replica (``(value,)`` for a plain value)."""
        if is_per_replica(value):
            return tuple(value._values)
        return (value,)

    def experimental_distribute_values_from_function(self, value_fn):
        """``PerReplica`` of ``value_fn(ValueContext(i, N))``, each computed on replica i's device."""
        results = []
        for i, d in enumerate(self._extended._devices):
            with device_scope(d):
                results.append(value_fn(ValueContext(i, self.num_replicas_in_sync)))
        return regroup(results)

    # --- input ------------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """Split every global batch of ``dataset`` across the replicas (see ``input_lib.py``)."""
        return DistributedDataset(self, dataset)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(InputContext)`` makes per-replica batches; replica i gets every N-th batch."""
        return DistributedDatasetsFromFunction(self, dataset_fn)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    # --- variables ----------------------------------------------------------------------------
    def _create_variable(self, args, kwargs):
        """Called by ``tf.Variable(...)`` in this strategy's scope; None means 'create it normally'."""
        return None


# --------------------------------------------------------------------------------------
# The default strategy (no strategy)
# --------------------------------------------------------------------------------------
class _DefaultReplicaContext(ReplicaContext):
    """The replica context outside any strategy: one replica; collectives return their input."""

    @property
    def replica_id_in_sync_group(self):
        return 0

    def _sync(self, kind, payload):
        return handle_sync(self._strategy, kind, [payload])[0]

    def __repr__(self):
        return "<tf.distribute.ReplicaContext: the default (one replica, no strategy)>"


class _DefaultDistributionStrategy(Strategy):
    """What ``tf.distribute.get_strategy()`` returns outside any scope: one replica, the current device."""

    def __init__(self):
        super().__init__(StrategyExtended(self, [None]))
        self._default_replica_context = _DefaultReplicaContext(self, 0)

    @property
    def extended(self):
        return self._extended

    def run(self, fn, args=(), kwargs=None, options=None):
        return fn(*tuple(args or ()), **dict(kwargs or {}))

    def _local_parts(self, value):
        if isinstance(value, (DistributedValues, DistributedVariable)):
            return super()._local_parts(value)
        return [_as_tensor(value)]

    def scope(self):
        return contextlib.nullcontext(self)

    def experimental_distribute_dataset(self, dataset, options=None):
        """The default strategy has one replica and no devices to place on: TF returns ``dataset`` itself.

        (Elements keep their shapes: no batch dimension is required, no slicing.)
        """
        return dataset

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(InputContext())`` (one pipeline, one replica), returned as is, as TF does."""
        return dataset_fn(InputContext())

    experimental_distribute_datasets_from_function = distribute_datasets_from_function


_default = []
_default_lock = threading.Lock()


def _default_strategy():
    if not _default:
        with _default_lock:
            if not _default:
                _default.append(_DefaultDistributionStrategy())
    return _default[0]


# --------------------------------------------------------------------------------------
# tf.Variable(...) inside a scope: the variable-creator hook
# --------------------------------------------------------------------------------------
_creator_state = threading.local()
_VARIABLE_PARAMS = list(inspect.signature(Variable.__init__).parameters)[1:]


def variable_kwargs(args, kwargs):
    """``tf.Variable``'s arguments as keywords (positional ones named)."""
    out = dict(zip(_VARIABLE_PARAMS, args))
    out.update(kwargs)
    return out


@contextlib.contextmanager
def plain_variables():
    """Inside this block ``tf.Variable(...)`` makes ordinary variables (the components of mirrored ones)."""
    saved = getattr(_creator_state, "bypass", False)
    _creator_state.bypass = True
    try:
        yield
    finally:
        _creator_state.bypass = saved


def _variable_new(cls, *args, **kwargs):
    """``Variable.__new__``: inside a strategy's scope, let the strategy make the variable.

    Python then calls ``__init__`` on what we return; a distributed variable's
    ``__init__`` ignores that second call.
    """
    if cls is Variable and ctx.strategy_stack and not getattr(_creator_state, "bypass", False):
        creator = getattr(ctx.strategy_stack[-1], "_create_variable", None)
        made = creator(args, kwargs) if creator is not None else None
        if made is not None:
            return made
    return object.__new__(cls)


def install_variable_creator():
    """Install the hook on ``tf.Variable`` (idempotent). Without a strategy's scope it changes nothing."""
    if Variable.__dict__.get("__new__") is not _variable_new:
        Variable.__new__ = _variable_new
