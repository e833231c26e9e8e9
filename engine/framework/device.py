"""Devices: physical devices, logical devices, and ``tf.device`` placement.

TensorFlow distinguishes *physical* devices (the CPU, each GPU) from *logical*
devices the runtime actually places kernels on. By default each physical device
is one logical device, but ``tf.config.set_logical_device_configuration`` can
split one physical device into several, which is how ``MirroredStrategy`` can be
demonstrated on a laptop with two logical CPUs. The split must happen before the
runtime initializes (before the first tensor is created); afterwards it raises
``RuntimeError``, exactly as TensorFlow does.

Every logical CPU computes with NumPy; every logical GPU with CuPy on the
physical GPU it belongs to.

Placement rule in eager mode (a deliberate simplification of TF's placer): an
op runs on the device of the innermost ``tf.device`` scope if there is one,
otherwise on the device of its first input, otherwise on the default device
(``GPU:0`` if present, else ``CPU:0``). Inputs on other devices are copied.
Requesting a device that does not exist falls back to the default device
("soft placement", on by default in TF's eager mode).
"""
import collections
import re

from . import backend
from .context import ctx

__all__ = [
    "Device", "PhysicalDevice", "LogicalDevice", "LogicalDeviceConfiguration", "device",
    "list_physical_devices", "list_logical_devices", "set_logical_device_configuration",
    "get_logical_device_configuration", "default_device", "lookup_device", "canonical_name", "set_local_task",
]

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])

_PREFIX = "/job:localhost/replica:0/task:0/device:"


def set_local_task(job="localhost", task=0):
    """Name this process's devices after its cluster task: ``/job:<job>/replica:0/task:<task>/device:CPU:0``.

    What TF does when a ``MultiWorkerMirroredStrategy`` joins a cluster (recorded with
    TF 2.21, 2 workers): from then on every tensor and variable of worker k, in the
    strategy's scope or not, and ``with tf.device("/CPU:0")`` too, is on
    ``/job:worker/replica:0/task:k/device:CPU:0``. The devices themselves do not
    change (a spec is matched by type and index); only their names do.
    ``set_local_task()`` restores ``/job:localhost/replica:0/task:0``.
    """
    global _PREFIX
    _PREFIX = f"/job:{job}/replica:0/task:{int(task)}/device:"
    for d in manager._logical or ():
        d.name = f"{_PREFIX}{d.device_type}:{d.index}"


class LogicalDeviceConfiguration:
    """How one logical device carved out of a physical device is configured."""

    def __init__(self, memory_limit=None, experimental_priority=None, experimental_device_ordinal=None):
        self.memory_limit = memory_limit
        self.experimental_priority = experimental_priority
        self.experimental_device_ordinal = experimental_device_ordinal

    def __repr__(self):
        return f"LogicalDeviceConfiguration(memory_limit={self.memory_limit})"


class Device:
    """A logical device kernels can be placed on.

    ``backend`` names the array module (``"numpy"`` or ``"cupy"``);
    ``physical_index`` is the GPU ordinal CuPy uses for a GPU device.
    """

    __slots__ = ("device_type", "index", "name", "backend", "physical_index", "__weakref__")

    def __init__(self, device_type, index, physical_index=0):
        self.device_type = device_type
        self.index = index
        self.name = f"{_PREFIX}{device_type}:{index}"
        self.backend = backend.NUMPY if device_type == "CPU" else backend.CUPY
        self.physical_index = physical_index

    @property
    def short_name(self):
        return f"/{self.device_type}:{self.index}"

    @property
    def xp(self):
        return backend.array_module(self.backend)

    def put(self, array):
        """Copy ``array`` (from any backend) onto this device."""
        if self.backend == backend.NUMPY:
            return backend.to_numpy(array)
        cp = backend.cupy_module()
        with cp.cuda.Device(self.physical_index):
            return cp.asarray(array)

    def activate(self):
        """A context manager that makes CuPy allocate on this GPU (no-op on the CPU)."""
        if self.backend == backend.NUMPY:
            return _NULL_CONTEXT
        return backend.cupy_module().cuda.Device(self.physical_index)

    def __repr__(self):
        return f"<Device {self.name}>"


class _NullContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_NULL_CONTEXT = _NullContext()


class _DeviceManager:
    """Owns the physical device list, the logical split, and the 'initialized' flag."""

    def __init__(self):
        self._physical = None
        self._config = {}          # PhysicalDevice -> [LogicalDeviceConfiguration]
        self._logical = None       # list[Device], built on first use
        self._by_key = {}
        self._default = None

    def physical(self):
        if self._physical is None:
            devices = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
            devices += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(backend.gpu_count())]
            self._physical = devices
        return self._physical

    @property
    def initialized(self):
        return self._logical is not None

    def set_config(self, physical_device, configs):
        if physical_device not in self.physical():
            raise ValueError(f"Unrecognized device: {physical_device!r}")
        if self.initialized:
            raise RuntimeError("Virtual devices cannot be modified after being initialized")
        if configs is None:
            self._config.pop(physical_device, None)
        else:
            self._config[physical_device] = list(configs)

    def get_config(self, physical_device):
        return self._config.get(physical_device)

    def logical(self):
        """Initialize the runtime (once) and return every logical Device."""
        if self._logical is None:
            counters = {"CPU": 0, "GPU": 0}
            devices = []
            for phys in self.physical():
                kind = phys.device_type
                ordinal = int(phys.name.rsplit(":", 1)[1])
                for _ in self._config.get(phys) or [LogicalDeviceConfiguration()]:
                    devices.append(Device(kind, counters[kind], physical_index=ordinal))
                    counters[kind] += 1
            self._logical = devices
            self._by_key = {(d.device_type, d.index): d for d in devices}
            gpus = [d for d in devices if d.device_type == "GPU"]
            self._default = gpus[0] if gpus else self._by_key[("CPU", 0)]
        return self._logical

    def default(self):
        if self._default is None:
            self.logical()
        return self._default

    def lookup(self, device_type, index):
        self.logical()
        return self._by_key.get((device_type, index))

    def _reset_for_tests(self):
        """Forget the logical split. Only tests use this; TF itself cannot."""
        self.__init__()


manager = _DeviceManager()

_SPEC = re.compile(
    r"^(?:/job:[^/]+)?(?:/replica:\d+)?(?:/task:\d+)?/?(?:device:)?(?P<type>[A-Za-z_]+)?(?::(?P<index>\d+|\*))?$")


def parse_device_spec(spec):
    """Split a TF device string into ``(device_type, index)``; either may be None.

    Accepts the forms TF accepts: ``'/GPU:0'``, ``'gpu:1'``, ``'/device:CPU:0'``,
    ``'CPU'``, and full names like ``'/job:localhost/replica:0/task:0/device:CPU:0'``.
    """
    if isinstance(spec, Device):
        return spec.device_type, spec.index
    m = _SPEC.match(spec.strip())
    if m is None:
        raise ValueError(f"Malformed device specification '{spec}'")
    kind = m.group("type")
    kind = kind.upper() if kind else None
    if kind == "XLA_CPU":
        kind = "CPU"
    if kind not in (None, "CPU", "GPU"):
        raise ValueError(f"Unknown device type '{kind}' in '{spec}': the engine has CPU and GPU devices")
    index = m.group("index")
    return kind, (int(index) if index not in (None, "*") else None)


def lookup_device(spec):
    """The logical Device a spec names, with TF's soft placement when it does not exist."""
    if isinstance(spec, Device):
        return spec
    kind, index = parse_device_spec(spec)
    if kind is None:
        return manager.default()
    dev = manager.lookup(kind, index or 0)
    return dev if dev is not None else manager.default()


def canonical_name(spec):
    return lookup_device(spec).name


def default_device():
    return manager.default()


class device:  # noqa: N801  (TF spells it tf.device)
    """``with tf.device('/GPU:0'):`` places the ops created inside on that device.

    ``None`` clears the scope. Scopes nest; the innermost wins.
    """

    def __init__(self, device_name):
        self._spec = device_name
        self._saved = None

    def __enter__(self):
        self._saved = ctx.device
        ctx.device = None if self._spec in (None, "") else lookup_device(self._spec)
        return self

    def __exit__(self, *exc):
        ctx.device = self._saved
        return False


def list_physical_devices(device_type=None):
    """``tf.config.list_physical_devices``: does not initialize the runtime."""
    kind = device_type.upper() if device_type else None
    return [d for d in manager.physical() if kind is None or d.device_type == kind]


def list_logical_devices(device_type=None):
    """``tf.config.list_logical_devices``: initializes the runtime."""
    kind = device_type.upper() if device_type else None
    return [LogicalDevice(f"/device:{d.device_type}:{d.index}", d.device_type)
            for d in manager.logical() if kind is None or d.device_type == kind]


def set_logical_device_configuration(device, logical_devices):
    """Split one physical device into ``len(logical_devices)`` logical devices.

    Raises ``RuntimeError`` once the runtime is initialized, as TF does.
    """
    manager.set_config(device, logical_devices)


def get_logical_device_configuration(device):
    return manager.get_config(device)
