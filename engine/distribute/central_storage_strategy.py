"""``tf.distribute.experimental.CentralStorageStrategy``: the variables in one place, the computation mirrored.

``MirroredStrategy`` keeps a *copy* of every variable on every device and
keeps the copies equal: each replica all-reduces its gradients and applies
the same update to its own copy. Central storage keeps *one* copy of each
variable, on one **parameter device** (the CPU), and mirrors only the
computation over the **compute devices** (every local GPU; without GPUs the
CPU alone, one replica)::

    strategy = tf.distribute.experimental.CentralStorageStrategy()   # compute: the GPUs; variables: the CPU
    with strategy.scope():
        w = tf.Variable(...)       # one variable, on CPU:0 (an AggregatingVariable with several replicas)

    def step(x):                   # runs on every compute device, on its slice of the batch
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(per_example_loss(w, x))  # / GLOBAL batch, as with Mirrored
        grads = tape.gradient(loss, [w])   # each replica reads w from the parameter device
        optimizer.apply_gradients(zip(grads, [w]))                     # the summed update, applied once
        return loss

    for x in strategy.experimental_distribute_dataset(dataset):       # global batches, split
        strategy.reduce("SUM", strategy.run(step, args=(x,)), axis=None)

What a step costs, the difference from ``MirroredStrategy``:

* **reads**: every replica reads each variable from the parameter device (a
  copy over the bus per step, per GPU), where Mirrored reads its local copy;
* **updates**: the gradients travel to the parameter device, are summed there
  (a ``ReductionToOneDevice`` onto it; TF's reduces onto ``/device:CPU:0``, the
  default parameter device), and the variable is updated **once**; Mirrored
  all-reduces between the GPUs and updates N copies;
* **memory**: one copy of the model, in host memory, instead of one per GPU.

So it suits a machine whose GPUs have little memory or no fast link between
them; with NVLink, Mirrored's all-reduce is faster. It is synchronous: every
replica computes on the same variable values.

TF 2.21's observable behaviour, which the engine reproduces (recorded on a
CPU-only machine):

* ``CentralStorageStrategy(compute_devices=None, parameter_device=None)``;
  ``compute_devices`` default: the GPUs, else ``["/device:CPU:0"]``;
  ``parameter_device`` default: the one compute device if there is one, else
  ``"/device:CPU:0"``;
* ``extended.worker_devices``: a *list* of the compute devices' canonical names
  (``['/job:localhost/replica:0/task:0/device:CPU:0']``);
  ``extended.parameter_devices``: a tuple with the parameter device *as given*
  (``('/cpu:0',)``, ``('/device:CPU:0',)``), canonical only when it is the one
  compute device;
* one replica: ``tf.Variable`` in the scope makes a plain ``ResourceVariable``
  on the parameter device; ``run`` returns plain tensors; ``reduce`` returns its
  argument;
* several replicas: an :class:`~engine.distribute.values.AggregatingVariable`
  wrapping the one variable (it prints as that variable: ``<tf.Variable
  'Variable:0' shape=() ...>``, ``v.device`` is the parameter device); ``run``
  returns ``PerReplica``; updates inside ``run`` follow the variable's
  ``aggregation`` (see ``AggregatingVariable``);
* compute devices may repeat (``["/gpu:0", "/gpu:0"]``: two replicas), and a GPU
  named on a machine without GPUs is a placement on the host
  (``mirrored_strategy.Placement``): its replica computes on ``CPU:0``;
  ``compute_devices=[]`` makes a strategy of 0 replicas (nothing can run on it).

The engine builds it from the pieces Mirrored uses: the replica threads of
``mirrored_run.py`` (``Strategy.run``), the input splitting of ``input_lib.py``,
the reductions of ``distribute_lib.py``; only variable creation differs.
"""
import weakref

from ..eager.tape import stop_recording
from ..framework.device import device as device_scope
from ..framework.device import manager
from ..variables import Variable
from .cross_device_ops import ReductionToOneDevice
from .distribute_lib import Strategy, plain_variables, variable_kwargs
from .mirrored_strategy import MirroredExtended, Placement, ReplicaStreams, create_once, resolve_placements
from .values import AggregatingVariable

__all__ = ["CentralStorageStrategy"]


class CentralStorageExtended(MirroredExtended):
    """``strategy.extended``: the compute devices (``worker_devices``) and the parameter device."""

    def __init__(self, container_strategy, placements, parameter_placement, parameter_spec, cross_device_ops):
        super().__init__(container_strategy, placements, cross_device_ops)
        self._parameter_placement = parameter_placement
        self._parameter_spec = parameter_spec
        self._created = weakref.WeakValueDictionary()   # id -> the variables this strategy made

    @property
    def worker_devices(self):
        """The compute devices' canonical names, a list (as TF's)."""
        return [p.name for p in self._placements]

    @property
    def parameter_devices(self):
        """The parameter device as it was given (canonical if it is the one compute device), in a tuple."""
        return (self._parameter_spec,)

    def variable_created_in_scope(self, v):
        return self._created.get(id(v)) is v


class CentralStorageStrategy(ReplicaStreams, Strategy):
    """Variables on one parameter device, computation mirrored over the compute devices (module docstring)."""

    _sum_copies_plain_values = True

    def __init__(self, compute_devices=None, parameter_device=None):
        if compute_devices is None:
            gpus = [d for d in manager.logical() if d.device_type == "GPU"]
            placements = [Placement(d, d.name) for d in gpus] or \
                resolve_placements(["/device:CPU:0"], owner="CentralStorageStrategy")
        else:
            placements = resolve_placements(compute_devices, owner="CentralStorageStrategy", allow_duplicates=True)
        if parameter_device is None:
            spec = placements[0].name if len(placements) == 1 else "/device:CPU:0"
        else:
            spec = getattr(parameter_device, "name", parameter_device)
        (parameter_placement,) = resolve_placements([spec], owner="CentralStorageStrategy")
        cross_device_ops = ReductionToOneDevice(reduce_to_device=parameter_placement.device)
        super().__init__(CentralStorageExtended(self, placements, parameter_placement, spec, cross_device_ops))
        self._streams = {}

    @property
    def _parameter_device(self):
        """The engine device the variables live on."""
        return self._extended._parameter_placement.device

    # --- variables ---------------------------------------------------------------------------
    def _create_variable(self, args, kwargs):
        """``tf.Variable(...)`` in the scope: one variable on the parameter device.

        With several replicas it is wrapped in an ``AggregatingVariable`` (the
        rules for updating it inside ``run``). Inside a replica it is created once,
        in a ``merge_call``, with replica 0's initial value (as Mirrored does).
        """
        return create_once(self, self._create_central, variable_kwargs(args, kwargs))

    def _create_central(self, kw):
        with plain_variables(), stop_recording(), device_scope(self._parameter_device):
            variable = Variable(**kw)
        if self.num_replicas_in_sync > 1:
            variable = AggregatingVariable(self, (variable,), variable.aggregation)
        self._extended._created[id(variable)] = variable
        return variable

    def __repr__(self):
        return f"<engine.distribute.CentralStorageStrategy: {self.num_replicas_in_sync} replicas on " \
               f"{', '.join(p.short_name for p in self._extended._placements) or 'no devices'}, variables on " \
               f"{self._extended._parameter_placement.short_name}>"
