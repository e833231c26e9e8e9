"""``tf.config``: devices and runtime options."""
from .tracing import function as _function
from .framework.device import (LogicalDevice, LogicalDeviceConfiguration, PhysicalDevice,  # noqa: F401
                               get_logical_device_configuration, list_logical_devices, list_physical_devices,
                               set_logical_device_configuration)

from . import config_optimizer as optimizer  # noqa: F401,E402  (tf.config.optimizer)

__all__ = ["optimizer", "LogicalDevice", "LogicalDeviceConfiguration", "PhysicalDevice", "list_physical_devices",
           "list_logical_devices", "set_logical_device_configuration", "get_logical_device_configuration",
           "experimental", "set_soft_device_placement", "get_soft_device_placement", "get_visible_devices",
           "set_visible_devices", "run_functions_eagerly", "functions_run_eagerly"]

_soft_placement = [True]


def set_soft_device_placement(enabled):
    _soft_placement[0] = bool(enabled)


def get_soft_device_placement():
    return _soft_placement[0]


def run_functions_eagerly(run_eagerly):
    """Debugging switch: every ``tf.function`` call runs its Python function eagerly (no tracing, no
    graph), so ``print`` and ``pdb`` work inside. Turn it off again for speed."""
    _function.set_run_eagerly(bool(run_eagerly))


def functions_run_eagerly():
    """Whether :func:`run_functions_eagerly` is on."""
    return _function.RUN_EAGERLY


def get_visible_devices(device_type=None):
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None):
    """Accepted for compatibility; every physical device stays visible."""


class experimental:  # noqa: N801  (a namespace, as tf.config.experimental)
    list_physical_devices = staticmethod(list_physical_devices)
    list_logical_devices = staticmethod(list_logical_devices)
    set_virtual_device_configuration = staticmethod(set_logical_device_configuration)
    get_virtual_device_configuration = staticmethod(get_logical_device_configuration)
    VirtualDeviceConfiguration = LogicalDeviceConfiguration

    @staticmethod
    def set_memory_growth(device, enable):
        """Accepted for compatibility: CuPy grows its memory pool on demand anyway."""

    @staticmethod
    def get_memory_growth(device):
        return True
