"""``tf.distribute.OneDeviceStrategy``: the Strategy API on a single device.

Code written for ``MirroredStrategy`` runs unchanged with one replica: ``run``
calls the function once (in the caller's thread) on the device, ``reduce`` and
``all_reduce`` have nothing to combine. Variables created in its scope are
ordinary ``tf.Variable`` s on the device.

Deliberate difference: the engine places *every* op created inside
``scope()`` on the device (a ``tf.device`` scope), not only the variables.
"""
from .cross_device_ops import ReductionToOneDevice
from .distribute_lib import Strategy, StrategyExtended
from .mirrored_strategy import resolve_devices

__all__ = ["OneDeviceStrategy"]


class OneDeviceStrategy(Strategy):
    """A strategy with one replica on ``device`` (e.g. ``"/gpu:0"``)."""

    def __init__(self, device):
        (resolved,) = resolve_devices([device])
        super().__init__(StrategyExtended(self, [resolved], ReductionToOneDevice()))

    def _scope_device(self):
        return self._extended._devices[0]

    def __repr__(self):
        return f"<engine.distribute.OneDeviceStrategy on {self._extended._devices[0].short_name.lstrip('/')}>"
