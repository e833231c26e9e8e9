"""``tf.distribute.MirroredStrategy``: synchronous data parallelism on the devices of one machine.

``MirroredStrategy()`` uses every GPU, or, without GPUs, every logical CPU
device. Split the CPU first to try it on a laptop::

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy()        # 2 replicas: CPU:0 and CPU:1

    with strategy.scope():
        w = tf.Variable(...)                           # a MirroredVariable: one copy per device

    def step(x):                                       # runs on every replica, on its slice x
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(per_example_loss(w, x))   # / GLOBAL batch
        g = tape.gradient(loss, w)
        g = tf.distribute.get_replica_context().all_reduce("SUM", g)    # the same g everywhere
        w.assign_sub(0.1 * g)                          # each replica updates its own copy
        return loss

    for x in strategy.experimental_distribute_dataset(dataset):         # global batches, split
        losses = strategy.run(step, args=(x,))                           # PerReplica
        total = strategy.reduce("SUM", losses, axis=None)

The algorithm that all-reduces is ``cross_device_ops`` (``cross_device_ops.py``).

Devices the machine does not have: ``MirroredStrategy(["/gpu:0", "/gpu:1"])`` on a
laptop without GPUs still has two replicas, as in TF 2.21 (the guide
``distributed_training`` builds exactly this). Each is a :class:`Placement`: it is
*named* ``.../device:GPU:0`` (``extended.worker_devices``) but computes, and keeps
its copy of each variable, on the host's ``CPU:0`` (TF's soft placement). The two
replicas stay distinct (their own thread, their own ``Variable/replica_1`` copy), so
the program runs unchanged and trains exactly as on two devices.
"""
from ..eager.tape import stop_recording
from ..framework.context import ctx
from ..framework.device import Device, manager
from ..framework.device import device as device_scope
from ..variables import Variable, VariableSynchronization
from .cross_device_ops import CrossDeviceOps, select_cross_device_ops
from .distribute_lib import (Strategy, StrategyExtended, plain_variables, variable_kwargs)
from .values import make_distributed_variable, select_replica

__all__ = ["MirroredStrategy", "Placement", "resolve_placements", "resolve_devices", "check_device_spec", "create_once"]


def check_device_spec(name):
    """``(device_type, index)`` of a device string (either may be None), with TF's errors for a malformed one.

    TF's rules (``tf.DeviceSpec.from_string``): ``/``-separated fields, each
    ``job:NAME``, ``replica:N``, ``task:N``, ``device:TYPE:N`` (TYPE all-caps) or a
    bare ``cpu:N`` / ``gpu:N`` / ``tpu:N``. Recorded with TF 2.21: ``"/foo:0"`` ->
    ``ValueError: Unknown attribute 'foo' is encountered while parsing the device
    spec: '/foo:0'.``; ``"/device:foo:0"`` -> ``AssertionError: Device type 'foo'
    must be all-caps.``; ``"/cpu:0/gpu:1"`` -> ``ValueError: Multiple device types
    are not allowed ...``; ``"/gpu:a"`` -> the ``int()`` error.
    """
    kind = index = None
    for part in name.split("/"):
        if not part:
            continue
        fields = part.split(":")
        key = fields[0].lower()
        if key == "job" and len(fields) == 2:
            continue
        if key in ("replica", "task") and len(fields) == 2:
            int(fields[1])
            continue
        if key == "device" and len(fields) in (2, 3):
            if fields[1] != fields[1].upper():
                raise AssertionError(f"Device type '{fields[1]}' must be all-caps.")
            found, number = fields[1], fields[2] if len(fields) == 3 else "*"
        elif key in ("cpu", "gpu", "tpu") and len(fields) in (1, 2):
            found, number = key.upper(), fields[1] if len(fields) == 2 else "*"
        else:
            raise ValueError(f"Unknown attribute '{fields[0]}' is encountered while parsing the device spec: "
                             f"'{name}'.")
        if kind is not None:
            raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {name}.")
        kind, index = found, (None if number == "*" else int(number))
    return kind, index


def create_once(strategy, create, kw):
    """``create(kw)``: a variable of ``strategy``. Inside one of its replicas, created once, in a
    ``merge_call`` (every replica must create the same variables in the same order), with replica 0's
    arguments."""
    replica = ctx.replica_context
    if replica is not None and replica.strategy is strategy:
        return replica.merge_call(lambda _, kw: create(select_replica(0, kw)), args=(kw,))
    return create(kw)


class Placement:
    """Where one replica runs: the engine ``device`` that computes, and the ``name`` the strategy reports.

    For a device that exists the two agree (``name == device.name``). A device of a
    type this machine has none of (``"/gpu:1"`` without GPUs) is a *logical
    placement on the host*: ``name`` is the canonical name asked for
    (``/job:localhost/replica:0/task:0/device:GPU:1``, in ``extended.worker_devices``),
    ``device`` is the host's ``CPU:0``, where its ops and variables go. That is TF's
    soft placement: TF 2.21 on a CPU-only machine builds
    ``MirroredStrategy(["/gpu:0", "/gpu:1"])`` without complaint and puts every
    replica's tensors and variables on ``CPU:0``.
    """

    __slots__ = ("device", "name")

    def __init__(self, device, name):
        self.device = device
        self.name = name

    @property
    def on_host(self):
        return self.name != self.device.name

    @property
    def short_name(self):
        """``GPU:1`` (and ``GPU:1 on CPU:0`` for a placement on the host)."""
        text = "/".join(self.name.split("/")[4:]).replace("device:", "")
        return f"{text} on {self.device.short_name.lstrip('/')}" if self.on_host else text

    def __repr__(self):
        return f"<Placement {self.name} -> {self.device.name}>"


def _default_devices():
    """None: every logical GPU, else every logical CPU device (the engine's ``MirroredStrategy()``)."""
    logical = manager.logical()
    gpus = [d for d in logical if d.device_type == "GPU"]
    return gpus or [d for d in logical if d.device_type == "CPU"]


def resolve_placements(devices, owner="MirroredStrategy", allow_duplicates=False):
    """``devices`` (strings, LogicalDevices or engine ``Device`` s) -> one :class:`Placement` per replica.

    * a device that exists: itself;
    * a device of a type the machine has none of (a GPU on a CPU-only machine, a
      TPU): a placement on the host (see :class:`Placement`), as TF soft-places it;
    * a device whose type exists but whose index does not (``"/cpu:7"`` with
      4 logical CPUs): ``ValueError`` naming the devices there are. A deliberate
      engine difference: TF soft-places it too, but with that type present it is
      most likely a typo, and an engine that silently trained on fewer devices
      would hide it;
    * a malformed string: TF's errors (:func:`check_device_spec`);
    * two names for one device: ``ValueError: No duplicates allowed in `devices`
      argument: (...)``, TF's message over the canonical names (TF raises it as an
      ``AssertionError``). ``allow_duplicates``: CentralStorageStrategy, whose
      compute devices may repeat, as in TF.
    """
    logical = manager.logical()
    out = []
    for spec in devices:
        if isinstance(spec, Device):
            out.append(Placement(spec, spec.name))
            continue
        name = getattr(spec, "name", spec)
        kind, index = check_device_spec(name)
        kind, index = kind or "CPU", index or 0
        found = manager.lookup(kind, index)
        if found is not None:
            out.append(Placement(found, found.name))
            continue
        if any(d.device_type == kind for d in logical):
            existing = ", ".join(d.short_name.lstrip("/") for d in logical)
            raise ValueError(f"{owner}: device {name!r} does not exist. The logical devices are: {existing}.")
        host = manager.lookup("CPU", 0)
        out.append(Placement(host, host.name.rsplit("device:", 1)[0] + f"device:{kind}:{index}"))
    names = [p.name for p in out]
    if not allow_duplicates and len(set(names)) != len(names):
        raise ValueError(f"No duplicates allowed in `devices` argument: {tuple(names)}")
    return out


def resolve_devices(devices):
    """``devices`` -> the engine ``Device`` each replica computes on (None or empty: the defaults).

    See :func:`resolve_placements` (this drops the reported names).
    """
    if not devices:
        return _default_devices()
    return [p.device for p in resolve_placements(devices)]


class ReplicaStreams:
    """A mixin for strategies whose replicas may be GPUs: each replica's CuPy stream (``mirrored_run.py``)."""

    def _stream(self, replica_id):
        """The CuPy stream replica ``replica_id`` computes on (created on first use)."""
        streams = self.__dict__.setdefault("_streams", {})
        stream = streams.get(replica_id)
        if stream is None:
            d = self._extended._devices[replica_id]
            with d.activate():
                stream = streams[replica_id] = d.xp.cuda.Stream(non_blocking=True)
        return stream


class MirroredExtended(StrategyExtended):
    """``strategy.extended``: the replicas' devices, reported by the names they were asked for."""

    def __init__(self, container_strategy, placements, cross_device_ops=None):
        super().__init__(container_strategy, [p.device for p in placements], cross_device_ops)
        self._placements = tuple(placements)

    @property
    def worker_devices(self):
        """The canonical names of the replicas' devices, in replica order (a placement's name, not its host's)."""
        return tuple(p.name for p in self._placements)


class MirroredStrategy(ReplicaStreams, Strategy):
    """Synchronous training on several devices of one machine; one replica per device.

    ``devices``: the device names (default, or ``[]`` as in TF: all GPUs, else all
    logical CPUs). Devices the machine has no such type of (``"/gpu:0"``,
    ``"/gpu:1"`` on a CPU-only machine) become replicas placed on the host
    (:class:`Placement`): N distinct replicas, each its own thread and its own
    copy of every variable, all computing on ``CPU:0``, as TF does there. Their
    collectives work: the default algorithm is then ``ReductionToOneDevice`` on
    the host (TF picks ``CollectiveAllReduce`` for such a list, and an
    ``all_reduce`` inside ``run`` then waits forever on a CPU-only machine; the
    engine does not copy that).
    ``cross_device_ops``: the all-reduce algorithm (default: :func:`select_cross_device_ops`).
    """

    _sum_copies_plain_values = True

    def __init__(self, devices=None, cross_device_ops=None):
        if not devices:    # None, or [] (TF 2.21: an empty list means the default devices too)
            placements = [Placement(d, d.name) for d in _default_devices()]
        else:
            placements = resolve_placements(devices)
        resolved = [p.device for p in placements]
        if cross_device_ops is None:
            cross_device_ops = select_cross_device_ops(resolved)
        elif not isinstance(cross_device_ops, CrossDeviceOps):
            raise TypeError(f"cross_device_ops must be a tf.distribute.CrossDeviceOps, got "
                            f"{type(cross_device_ops).__name__}.")
        cross_device_ops._check_devices(resolved)   # NcclAllReduce on CPUs: a clear ValueError now
        super().__init__(MirroredExtended(self, placements, cross_device_ops))
        self._streams = {}

    # --- variables ---------------------------------------------------------------------------
    def _create_variable(self, args, kwargs):
        """``tf.Variable(...)`` in the scope: one component per device, wrapped in a MirroredVariable.

        Inside a replica the variable is created once, in a ``merge_call`` (every
        replica must create the same variables in the same order); replica 0's
        initial value is used. Components 1..N-1 start as copies of component 0, so
        the copies are identical even for random initializers.
        """
        kw = variable_kwargs(args, kwargs)
        sync = kw.get("synchronization") or VariableSynchronization.AUTO
        if sync is VariableSynchronization.NONE:
            raise ValueError(f"`NONE` variable synchronization mode is not supported with tf.distribute strategy. "
                             f"Please change the `synchronization` for variable: {kw.get('name')}")
        return create_once(self, self._create_mirrored, kw)

    def _create_mirrored(self, kw):
        sync = kw.get("synchronization") or VariableSynchronization.AUTO
        if sync is VariableSynchronization.AUTO:
            sync = VariableSynchronization.ON_WRITE
        kw = dict(kw, synchronization=sync)
        components = []
        with plain_variables(), stop_recording():
            for i, d in enumerate(self._extended._devices):
                kw_i = dict(kw)
                if i > 0:
                    primary = components[0]
                    kw_i["initial_value"] = primary.initial_value if primary._graph is not None else \
                        primary._read_untracked()
                    kw_i["name"] = primary.name.rsplit(":", 1)[0] + f"/replica_{i}"
                with device_scope(d):
                    components.append(Variable(**kw_i))
        return make_distributed_variable(self, components, sync)

    def __repr__(self):
        placements = getattr(self._extended, "_placements", None) or \
            [Placement(d, d.name) for d in self._extended._devices]
        return f"<engine.distribute.MirroredStrategy: {self.num_replicas_in_sync} replicas on " \
               f"{', '.join(p.short_name for p in placements)}, " \
               f"{type(self._extended._cross_device_ops).__name__}>"
