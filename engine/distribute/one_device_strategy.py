"""``tf.distribute.OneDeviceStrategy``: the Strategy API on a single device.

Code written for ``MirroredStrategy`` runs unchanged with one replica: ``run``
calls the function once (in the caller's thread) on the device, ``reduce`` and
``all_reduce`` have nothing to combine. Variables created in its scope are
ordinary ``tf.Variable`` s on the device.

A GPU named on a machine without GPUs (``OneDeviceStrategy("/gpu:0")``) is a
placement on the host, as TF soft-places it: ``extended.worker_devices`` says
``.../device:GPU:0``, the variables and ops are on ``CPU:0``.

Deliberate difference: the engine places *every* op created inside
``scope()`` on the device (a ``tf.device`` scope), not only the variables.
"""
from .cross_device_ops import ReductionToOneDevice
from .distribute_lib import Strategy
from .mirrored_strategy import MirroredExtended, resolve_placements

__all__ = ["OneDeviceStrategy"]


class OneDeviceStrategy(Strategy):
    """A strategy with one replica on ``device`` (e.g. ``"/gpu:0"``)."""

    def __init__(self, device):
        (placement,) = resolve_placements([device], owner="OneDeviceStrategy")
        super().__init__(MirroredExtended(self, [placement], ReductionToOneDevice()))

    def _scope_device(self):
        return self._extended._devices[0]

    def __repr__(self):
        return f"<engine.distribute.OneDeviceStrategy on {self._extended._placements[0].short_name}>"
