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
"""
from ..eager.tape import stop_recording
from ..framework.context import ctx
from ..framework.device import Device, manager, parse_device_spec
from ..framework.device import device as device_scope
from ..variables import Variable, VariableSynchronization
from .cross_device_ops import CrossDeviceOps, select_cross_device_ops
from .distribute_lib import (Strategy, StrategyExtended, plain_variables, variable_kwargs)
from .values import make_distributed_variable, select_replica

__all__ = ["MirroredStrategy"]


def resolve_devices(devices):
    """``devices`` (strings, LogicalDevices or None) -> engine ``Device`` objects.

    None: every logical GPU, else every logical CPU device. A device that does not
    exist raises ``ValueError`` (TF would silently soft-place it).
    """
    logical = manager.logical()
    if devices is None:
        gpus = [d for d in logical if d.device_type == "GPU"]
        return gpus or [d for d in logical if d.device_type == "CPU"]
    out = []
    for spec in devices:
        if isinstance(spec, Device):
            out.append(spec)
            continue
        name = getattr(spec, "name", spec)
        kind, index = parse_device_spec(name)
        found = manager.lookup(kind or "CPU", index or 0)
        if found is None:
            existing = ", ".join(d.short_name.lstrip("/") for d in logical)
            raise ValueError(f"MirroredStrategy: device {name!r} does not exist. The logical devices are: "
                             f"{existing}.")
        out.append(found)
    if not out:
        raise ValueError("MirroredStrategy needs at least one device; `devices` is empty.")
    if len(set(id(d) for d in out)) != len(out):
        raise ValueError(f"No duplicates allowed in `devices` argument: {tuple(d.name for d in out)}")
    return out


class MirroredExtended(StrategyExtended):
    pass


class MirroredStrategy(Strategy):
    """Synchronous training on several devices of one machine; one replica per device.

    ``devices``: the device names (default: all GPUs, else all logical CPUs).
    ``cross_device_ops``: the all-reduce algorithm (default: :func:`select_cross_device_ops`).
    """

    def __init__(self, devices=None, cross_device_ops=None):
        resolved = resolve_devices(devices)
        if cross_device_ops is None:
            cross_device_ops = select_cross_device_ops(resolved)
        elif not isinstance(cross_device_ops, CrossDeviceOps):
            raise TypeError(f"cross_device_ops must be a tf.distribute.CrossDeviceOps, got "
                            f"{type(cross_device_ops).__name__}.")
        cross_device_ops._check_devices(resolved)   # NcclAllReduce on CPUs: a clear ValueError now
        super().__init__(MirroredExtended(self, resolved, cross_device_ops))
        self._streams = {}

    def _stream(self, replica_id):
        """The CuPy stream replica ``replica_id`` computes on (created on first use)."""
        stream = self._streams.get(replica_id)
        if stream is None:
            d = self._extended._devices[replica_id]
            with d.activate():
                stream = self._streams[replica_id] = d.xp.cuda.Stream(non_blocking=True)
        return stream

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
        replica = ctx.replica_context
        if replica is not None and replica.strategy is self:
            return replica.merge_call(lambda strategy, kw: strategy._create_mirrored(select_replica(0, kw)),
                                      args=(kw,))
        return self._create_mirrored(kw)

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
        return f"<engine.distribute.MirroredStrategy: {self.num_replicas_in_sync} replicas on " \
               f"{', '.join(d.short_name.lstrip('/') for d in self._extended._devices)}, " \
               f"{type(self._extended._cross_device_ops).__name__}>"
