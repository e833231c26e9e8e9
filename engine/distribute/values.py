"""Distributed values: one value per replica, behind one Python object.

Data parallelism keeps *one copy of everything per device*. ``tf.distribute``
hides the copies behind objects that hold them all:

* :class:`PerReplica`: the values of one computation on every replica, e.g. the
  per-replica losses ``strategy.run`` returns, or the slices of a global batch
  ``experimental_distribute_dataset`` hands to each replica. They differ.
* :class:`MirroredVariable`: a variable created inside ``strategy.scope()``.
  It owns one ordinary ``tf.Variable`` (a *component*) per device, and the
  strategy keeps them identical: every update is applied to every copy. Inside a
  replica it behaves exactly like the local component (reads, gradients,
  ``assign``), so model code does not change.
* :class:`SyncOnReadVariable`: the other kind (``synchronization=ON_READ``, used
  by metrics). Each replica updates only its own copy, with no communication;
  reading it outside the replicas (*cross-replica context*) combines the copies
  (sum or mean). Cheap updates, one reduction when you look.
* :class:`AggregatingVariable`: ``CentralStorageStrategy`` 's variable with several
  replicas: *one* copy, on the parameter device, that every replica reads;
  updates made inside the replicas are combined and applied once.

How a distributed variable meets the rest of the engine: the engine asks a
variable for ``_read()``, ``assign*``, ``dtype``/``shape``/``name``/``trainable``
and ``_id`` (the key a ``GradientTape`` watches). A distributed variable answers
each of these *for the local component*: inside replica ``i`` its ``_id`` is
component ``i``'s id, so ``tape.gradient(loss, mirrored_var)`` inside a replica
finds the reads of that replica's copy, which is what TF returns. Outside the
replicas the primary (replica 0) component answers.

``print`` shows the components, as TF does::

    MirroredVariable:{
      0: <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>,
      1: <tf.Variable 'Variable/replica_1:0' shape=() dtype=float32, numpy=1.0>
    }

Deliberate differences from TF: ``assign`` in a replica returns the variable
(TF returns a per-replica "unread variable" or raises for a constant with
``SUM``); ``MirroredVariable(...)`` cannot be called directly by users (variables
are made by ``tf.Variable`` inside ``strategy.scope()``).
"""
import numpy as np

from ..framework.context import ctx
from ..framework.device import device as device_scope
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor
from ..framework.tensor_spec import TensorSpec
from ..ops import math_ops
from ..variables import Variable, VariableAggregation, VariableSynchronization, _READ
from .reduce_util import ReduceOp

__all__ = ["DistributedValues", "PerReplica", "Mirrored", "DistributedVariable", "MirroredVariable",
           "SyncOnReadVariable", "AggregatingVariable", "PerReplicaSpec", "regroup", "select_replica",
           "is_distributed", "is_per_replica"]


def _component_text(values, fmt):
    lines = ",\n".join(f"  {i}: {fmt(v)}" for i, v in enumerate(values))
    return "{\n" + lines + "\n}"


class DistributedValues:
    """Base class of values with one component per replica (``.values``, ordered by replica id)."""

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        return self._values

    def _get(self):
        """The component of the current replica (the first one in cross-replica context)."""
        return self._values[_local_index(self)]

    def __repr__(self):
        return f"{type(self).__name__}:{_component_text(self._values, repr)}"

    def __str__(self):
        return f"{type(self).__name__}:{_component_text(self._values, str)}"


class PerReplica(DistributedValues):
    """The values of one computation on every replica (``PerReplica:{0: ..., 1: ...}``).

    It follows TF's nest protocol (``__tf_flatten__``): a ``tf.nest`` that honours
    it, and therefore ``tf.function``, sees its components as leaves, so a
    ``PerReplica`` batch can be passed to (and returned from) a ``tf.function``.
    """

    def __tf_flatten__(self):
        return None, self._values

    @classmethod
    def __tf_unflatten__(cls, metadata, components):
        return cls(components)

    @property
    def _type_spec(self):
        return PerReplicaSpec(*[TensorSpec(v.shape, v.dtype) for v in self._values])


class Mirrored(DistributedValues):
    """The same value on every device (``Mirrored:{0: ..., 1: ...}``): what ``extended.reduce_to`` returns for
    distributed ``destinations``, one reduced copy per destination device."""


class PerReplicaSpec:
    """The type of a :class:`PerReplica` value: one spec per replica (``element_spec`` of distributed data)."""

    def __init__(self, *value_specs):
        self._value_specs = tuple(value_specs)

    @property
    def value_specs(self):
        return self._value_specs

    def __eq__(self, other):
        return isinstance(other, PerReplicaSpec) and self._value_specs == other._value_specs

    def __hash__(self):
        return hash(self._value_specs)

    def __repr__(self):
        return f"PerReplicaSpec{tuple(self._value_specs)!r}"   # TF's TypeSpec repr: "PerReplicaSpec(A,)" for one


def is_distributed(x):
    return isinstance(x, (DistributedValues, DistributedVariable))


def is_per_replica(x):
    """True for values with one component per replica: ``PerReplica``, ``Mirrored``, mirrored/sync-on-read variables."""
    return isinstance(x, DistributedValues) or (isinstance(x, DistributedVariable) and x._per_replica)


def _local_index(value):
    """Which component the current thread should use.

    Inside ``strategy.run`` (replica context of the value's strategy): the replica's
    own. Otherwise the component on the current ``tf.device``, else the primary (0).
    """
    replica = ctx.replica_context
    strategy = getattr(value, "_distribute_strategy", None)
    if replica is not None and (strategy is None or replica.strategy is strategy):
        index = replica._replica_id
        if index < len(value._values):
            return index
    current = ctx.device
    if current is not None and isinstance(value, DistributedVariable):
        for i, d in enumerate(value._devices):
            if d is current:
                return i
    return 0


# --------------------------------------------------------------------------------------
# Distributed variables
# --------------------------------------------------------------------------------------
class DistributedVariable(Variable):
    """Base of Mirrored/SyncOnRead variables: one ``tf.Variable`` component per device.

    It subclasses ``tf.Variable`` so ``isinstance(v, tf.Variable)`` holds (as in TF)
    and the operators (``v * 2``, ``v @ x``) work: they all go through ``_read()``.
    ``_per_replica``: True if the components are per-replica copies (a
    ``strategy.reduce`` combines them); False for :class:`AggregatingVariable`,
    whose one component all the replicas share.
    """

    _per_replica = True

    def __init__(self, *args, **kwargs):
        if "_values" in self.__dict__:
            return  # made by the strategy's variable creator: ``tf.Variable(...)`` calls __init__ again
        self._setup(*args, **kwargs)

    def _setup(self, strategy=None, values=None, aggregation=None):
        """TF's constructor arguments: the strategy, the component variables, the aggregation."""
        if values is None:
            raise ValueError(f"{type(self).__name__} is created by tf.Variable(...) inside strategy.scope(); it "
                             f"needs the per-device component variables.")
        self._distribute_strategy = strategy
        self._values = tuple(values)
        self._aggregation = aggregation if aggregation is not None else self._values[0].aggregation
        primary = self._values[0]
        self._devices = tuple(v._device for v in self._values)
        self._dtype = primary.dtype
        self._shape = primary.shape
        self._name = primary.name
        self._trainable = primary.trainable
        self.constraint = primary.constraint

    # --- the local component ------------------------------------------------------------
    @property
    def values(self):
        """The component variables, one per replica, in replica order."""
        return self._values

    @property
    def distribute_strategy(self):
        return self._distribute_strategy

    @property
    def primary(self):
        return self._values[0]

    def _local(self):
        return self._values[_local_index(self)]

    def _get_on_device_or_primary(self):
        return self._local()

    @property
    def _id(self):
        """The tape's key: the local component's id (so gradients inside a replica find its reads)."""
        return self._local()._id

    @property
    def _value(self):
        return self._local()._value

    @property
    def _device(self):
        return self._local()._device

    @property
    def _graph(self):
        return None

    @property
    def device(self):
        return self._local().device

    @property
    def synchronization(self):
        return self._values[0].synchronization

    @property
    def initial_value(self):
        return self._values[0].initial_value

    def _replica_context(self):
        """The replica context if we are inside ``run`` of this variable's strategy, else None."""
        replica = ctx.replica_context
        if replica is not None and replica.strategy is self._distribute_strategy:
            return replica
        return None

    # --- reading ------------------------------------------------------------------------------
    def _read_component(self, component):
        """Read ``component`` as this variable: tapes see the read under this variable's ``_id``."""
        if ctx.graph is not None:
            t = ctx.graph.read_variable(component)
        else:
            t = component._read_untracked()
            for watcher in ctx.variable_watchers:
                watcher.setdefault(self._id, self)
        for tape in ctx.tapes:
            tape.variable_accessed(self)
            tape.record_operation(_READ(), (self,), {}, (t,))
        return t

    def _read(self):
        return self._read_component(self._local())

    def _read_untracked(self):
        return self._local()._read_untracked()

    def numpy(self):
        v = self._read_untracked().numpy()
        return np.array(v) if isinstance(v, np.ndarray) else v

    def __array__(self, dtype=None, copy=None):
        arr = np.array(self._read_untracked().numpy())
        return arr if dtype is None else arr.astype(dtype)

    # --- writing ------------------------------------------------------------------------------
    def assign(self, value, use_locking=None, name=None, read_value=True):
        self._update("assign", value)
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        self._update("assign_add", delta)
        return self if read_value else None

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        self._update("assign_sub", delta)
        return self if read_value else None

    def _update_components(self, method, value):
        """Apply ``method`` to every component; a PerReplica ``value`` gives each its own value."""
        for i, component in enumerate(self._values):
            v = value._values[i] if isinstance(value, DistributedValues) else value
            with device_scope(component._device):
                getattr(component, method)(v, read_value=False)

    def _update(self, method, value):
        raise NotImplementedError

    # --- printing -----------------------------------------------------------------------------
    def __repr__(self):
        return f"{type(self).__name__}:{_component_text(self._values, repr)}"

    def __str__(self):
        return self.__repr__()


class MirroredVariable(DistributedVariable):
    """A variable kept identical on every device (``synchronization=ON_WRITE``, the default in a scope).

    Update rules (TF's):

    * **cross-replica context** (outside ``strategy.run``): the update is applied to
      every component. A ``PerReplica`` value gives each component its own value.
    * **replica context** (inside ``strategy.run``), by ``aggregation``:

      - ``NONE``: only the local component is updated. Keeping copies equal is then
        the caller's job: the optimizer all-reduces the gradients first, so every
        replica applies the same update;
      - ``SUM`` / ``MEAN``: the replicas' values are combined (a ``merge_call``:
        every replica waits), then every component is updated with the result;
      - ``ONLY_FIRST_REPLICA``: replica 0's value is applied to every component
        (``optimizer.iterations``: one step, not one per replica).
    """

    def _update(self, method, value):
        replica = self._replica_context()
        if replica is None:
            self._update_components(method, value)
        elif self._aggregation is VariableAggregation.NONE:
            getattr(self._local(), method)(value, read_value=False)
        else:
            replica.merge_call(_merge_mirrored_update, args=(self, method, value))


def _merge_mirrored_update(strategy, variable, method, value):
    """Runs once, in cross-replica context, with ``value`` a PerReplica (or one shared value)."""
    aggregation = variable._aggregation
    if aggregation is VariableAggregation.ONLY_FIRST_REPLICA:
        value = value._values[0] if isinstance(value, DistributedValues) else value
    else:
        value = strategy._reduce_to_device(ReduceOp.from_variable_aggregation(aggregation), value,
                                           variable.primary._device)
    variable._update_components(method, value)


class SyncOnReadVariable(DistributedVariable):
    """A variable whose replicas update their own copy; reading it across replicas aggregates.

    * replica context: reads and updates touch only the local copy (no communication);
    * cross-replica context: a read returns the ``SUM``/``MEAN`` of the copies
      (``ONLY_FIRST_REPLICA``: the first copy); ``assign(v)`` sets every copy so that
      the aggregate reads ``v`` (with ``SUM`` each copy gets ``v / num_replicas``).

    Keras metrics use it: ``update_state`` on each replica, ``result()`` outside.
    """

    def _aggregate_op(self):
        return ReduceOp.from_variable_aggregation(self._aggregation)

    def _read(self):
        if self._replica_context() is not None:
            return self._read_component(self._local())
        return self._read_cross_replica(tracked=True)

    def _read_untracked(self):
        if self._replica_context() is not None:
            return self._local()._read_untracked()
        return self._read_cross_replica(tracked=False)

    def _read_cross_replica(self, tracked):
        if self._aggregation is VariableAggregation.ONLY_FIRST_REPLICA:
            return self._values[0]._read() if tracked else self._values[0]._read_untracked()
        op = self._aggregate_op()
        parts = [c._read() if tracked else c._read_untracked() for c in self._values]
        return self._distribute_strategy._reduce_to_device(op, PerReplica(parts), self._values[0]._device)

    def _update(self, method, value):
        if self._replica_context() is not None:
            getattr(self._local(), method)(value, read_value=False)
            return
        if self._aggregation is VariableAggregation.NONE:
            self._aggregate_op()  # raises TF's "Could not convert ..." error
        if method != "assign":
            if self._aggregation is VariableAggregation.SUM:
                raise ValueError(f"SyncOnReadVariable does not support `{method}` in cross-replica context when "
                                 f"aggregation is set to `tf.VariableAggregation.SUM`.")
        elif self._aggregation is VariableAggregation.SUM and not isinstance(value, DistributedValues):
            value = math_ops.cast(convert_to_tensor(value, dtype_hint=self._dtype) / len(self._values), self._dtype)
        self._update_components(method, value)


class AggregatingVariable(DistributedVariable):
    """One variable on the parameter device, shared by every replica (``CentralStorageStrategy``).

    TF's ``ps_values.AggregatingVariable``: there is a single copy, so there is
    nothing to mirror; what it adds to the plain variable it wraps is the rule
    for updates made *inside* ``strategy.run``, where N replicas would each
    update the one copy:

    * ``SUM`` / ``MEAN``: the replicas' values are combined (a ``merge_call``), the
      variable is updated once with the result;
    * ``ONLY_FIRST_REPLICA``: replica 0's value, once;
    * ``NONE``: TF refuses (the long ``ValueError`` below). The engine refuses too,
      *unless every replica passes the same value*: then it is updated once with
      it. The engine's Keras optimizer updates the variables inside each replica
      with gradients that were all-reduced first, so every replica computes the
      same update, and applying it once is what Keras does in TF (there the
      optimizer updates once, in cross-replica context). Inside a ``tf.function``
      the values cannot be compared when traced: replica 0's is applied.

    Outside ``run`` (cross-replica context) updates go straight to the variable.
    Reads, everywhere, read the one copy. It prints as the variable it wraps,
    and, as in TF, has no ``.values``; ``strategy.reduce`` treats it as a plain
    value; ``get()`` returns the wrapped variable.
    """

    _per_replica = False

    @property
    def values(self):
        raise AttributeError("'AggregatingVariable' object has no attribute 'values'")

    def get(self):
        """The wrapped variable (on the parameter device)."""
        return self._values[0]

    def _local(self):
        return self._values[0]

    def _update(self, method, value):
        replica = self._replica_context()
        if replica is None:
            self._update_components(method, value)
        else:
            replica.merge_call(_merge_aggregating_update, args=(self, method, value))

    def __repr__(self):
        return repr(self._values[0])

    def __str__(self):
        return str(self._values[0])


_NEEDS_AGGREGATION = (
    "You must specify an aggregation method to update a AggregatingVariable in Replica Context. You can do so by "
    "passing an explicit value for argument `aggregation` to tf.Variable(..).e.g. `tf.Variable(..., "
    "aggregation=tf.VariableAggregation.SUM)``tf.VariableAggregation` lists the possible aggregation methods.This "
    "is required because AggregatingVariable should always be kept in sync. When updating them or assigning to them "
    "in a replica context, we automatically try to aggregate the values before updating the variable. For this "
    "aggregation, we need to know the aggregation method. Another alternative is to not try to update such "
    "AggregatingVariable in replica context, but in cross replica context. You can enter cross replica context by "
    "calling `tf.distribute.get_replica_context().merge_call(merge_fn, ..)`.Inside `merge_fn`, you can then update "
    "the AggregatingVariable using `tf.distribute.StrategyExtended.update()`.")


def _same_values(values):
    """True if every replica passes the same value. Symbolic tensors (tracing) cannot be compared: True."""
    arrays = []
    for v in values:
        if isinstance(v, Tensor) and not isinstance(v, EagerTensor):
            return True
        arrays.append(np.asarray(v.numpy() if isinstance(v, EagerTensor) else v))
    first = arrays[0]
    return all(a.shape == first.shape and np.array_equal(a, first, equal_nan=a.dtype.kind in "fc")
               for a in arrays[1:])


def _merge_aggregating_update(strategy, variable, method, value):
    """Once, in cross-replica context: apply the replicas' update of an AggregatingVariable (see its docstring)."""
    if variable._aggregation is VariableAggregation.NONE:
        values = value._values if isinstance(value, DistributedValues) else (value,)
        if not _same_values(values):
            raise ValueError(_NEEDS_AGGREGATION)
        variable._update_components(method, values[0])
        return
    _merge_mirrored_update(strategy, variable, method, value)


def make_distributed_variable(strategy, components, synchronization):
    cls = SyncOnReadVariable if synchronization is VariableSynchronization.ON_READ else MirroredVariable
    return cls(strategy, components, components[0].aggregation)


# --------------------------------------------------------------------------------------
# Structures of per-replica values
# --------------------------------------------------------------------------------------
def _map_structure(fn, *structures):
    """``nest.map_structure`` over lists, tuples, namedtuples and dicts, with distributed values as leaves."""
    first = structures[0]
    if isinstance(first, dict):
        return type(first)((k, _map_structure(fn, *[s[k] for s in structures])) for k in first)
    if isinstance(first, (list, tuple)) and not is_distributed(first):
        if any(len(s) != len(first) for s in structures[1:]):
            raise ValueError(f"sequences of different lengths: {[len(s) for s in structures]}")
        items = [_map_structure(fn, *parts) for parts in zip(*structures)]
        if isinstance(first, tuple) and hasattr(first, "_fields"):
            return type(first)(*items)
        return type(first)(items)
    return fn(*structures)


def regroup(per_replica_structures):
    """Combine the replicas' results (same structure) into one structure of PerReplica leaves.

    A leaf that is the *same object* on every replica (a MirroredVariable, a Python
    constant, ``None``) stays as it is; other leaves become ``PerReplica``. With one
    replica, the value itself is returned (as TF does).
    """
    def leaf(*values):
        first = values[0]
        if all(v is first for v in values[1:]):
            return first
        return PerReplica(values)
    try:
        return _map_structure(leaf, *per_replica_structures)
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"The replicas returned values of different structures: {error}. Every replica must "
                         f"return the same nest of values.") from None


def select_replica(replica_id, structure):
    """Replica ``replica_id``'s view of ``structure``: each PerReplica leaf becomes its component."""
    def leaf(x):
        if isinstance(x, DistributedValues):
            return x._values[replica_id]
        return x
    return _map_structure(leaf, structure)


def flatten_values(structure):
    """The leaves of ``structure`` (distributed values are leaves), in ``_map_structure`` order."""
    out = []
    _map_structure(lambda x: out.append(x), structure)
    return out


def pack_values(structure, leaves):
    it = iter(leaves)
    return _map_structure(lambda _: next(it), structure)
