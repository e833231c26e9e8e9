"""Variables that live on parameter servers: the store on a ``ps`` task, the handle everyone else holds.

With ``ParameterServerStrategy`` the model's variables are not copied into
every worker (as ``MirroredStrategy`` does): each lives in exactly one place,
a *parameter server* (a ``ps`` task of the cluster). Everybody else holds a
**handle**: the coordinator, which created the variable, and every worker
that runs a function reading or updating it.

* The ps task's server keeps a :class:`VariableStore`: each variable's array,
  and a *version*, the number of updates it has taken.
* A handle is a :class:`RemoteVariable`, a ``tf.Variable`` whose ``_value``
  is fetched from the store (``Variables/Read``) and whose updates are sent
  to it (``Variables/Update``): ``ReadVariableOp`` and the assign kernels
  (``ops/resource_ops.py``) do not know the difference. ``assign_add`` and
  ``assign_sub`` are applied *in the store*, under its lock: two workers
  adding at once never lose one of the two updates. (A read here followed by
  a write there could: that is the race of TF 2.21's Keras 3 variables under
  this strategy, which the engine does not have.)

The updates are **asynchronous**: a worker reads the variables, computes
for a while, and sends its update; meanwhile the other workers may have
updated the same variables. Its gradient was computed on *stale* values.
Every access is recorded in the store (:class:`VariableAccess`: when, who,
which closure, which version), so a lesson can measure exactly how stale:
the number of other updates between a closure's read and its update.

Device names are TF's: the handle of a variable on ps task 1 says
``/job:ps/replica:0/task:1/device:CPU:0``.
"""
import itertools
import threading
import time
from collections import deque
from typing import NamedTuple

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework import errors
from ..framework.device import default_device
from ..framework.tensor import _next_id
from ..framework.tensor_shape import TensorShape, as_shape
from ..variables import Variable, VariableAggregation, VariableSynchronization
from . import rpc, server_lib

__all__ = ["VariableStore", "RemoteVariable", "VariableAccess", "running_closure", "access_log", "staleness"]

CREATE = rpc.method_name("Variables", "Create")
READ = rpc.method_name("Variables", "Read")
UPDATE = rpc.method_name("Variables", "Update")
LOG = rpc.method_name("Variables", "Log")

CONNECT_TIMEOUT_S = 60.0   # how long creating a variable waits for its parameter server to start
# (Reads and updates do not wait: a parameter server that does not answer is lost, UnavailableError.)

_UPDATES = {"AssignVariableOp": "assign", "AssignAddVariableOp": "assign_add",
            "AssignSubVariableOp": "assign_sub"}


# --------------------------------------------------------------------------------------
# Who is asking: the task and the closure, carried with every request for the records
# --------------------------------------------------------------------------------------
_caller = threading.local()


class running_closure:  # noqa: N801  (a context manager, used like a function)
    """Within this block, this thread's variable accesses are recorded as closure ``closure_id`` of ``task``."""

    def __init__(self, task, closure_id):
        self._value = (task, closure_id)

    def __enter__(self):
        self._saved = getattr(_caller, "value", None)
        _caller.value = self._value

    def __exit__(self, *exc):
        _caller.value = self._saved


_this_task = ["/job:chief/replica:0/task:0"]


def set_this_task(name):
    """Name this process's task in the records (a worker's server sets it; the coordinator is the chief)."""
    _this_task[0] = name


def _who():
    task, closure = getattr(_caller, "value", None) or (_this_task[0], None)
    return {"client": task, "closure": closure}


# --------------------------------------------------------------------------------------
# The parameter server's side
# --------------------------------------------------------------------------------------
class VariableAccess(NamedTuple):
    """One read or update of a variable, as its parameter server saw it.

    ``version``: for a read, the version read (updates taken so far); for an
    update, the version it produced (so the update was applied on ``version - 1``).
    ``closure``: the coordinator's number of the closure that made the access (None:
    the coordinator itself, outside any closure).
    """

    time: float
    client: str
    closure: object
    key: str
    kind: str
    nbytes: int
    version: int


class _Slot:
    __slots__ = ("value", "version", "lock", "name")

    def __init__(self, value, name):
        self.value, self.version, self.lock, self.name = value, 0, threading.Lock(), name


class VariableStore:
    """The variables one ps task's server holds, by key, with every access recorded (``log``)."""

    MAX_LOG = 200_000      # accesses kept (the oldest are dropped first)

    def __init__(self, server):
        self._slots = {}
        self._lock = threading.Lock()
        self.log = deque(maxlen=self.MAX_LOG)
        server.add_method("Variables", "Create", self._on_create)
        server.add_method("Variables", "Read", self._on_read)
        server.add_method("Variables", "Update", self._on_update)
        server.add_method("Variables", "Log", self._on_log)

    def _slot(self, key):
        slot = self._slots.get(key)
        if slot is None:
            raise errors.NotFoundError(None, None, f"Resource {key} does not exist on this parameter server: it "
                                                   f"was never created here, or the server restarted since.")
        return slot

    def _record(self, header, key, kind, nbytes, version):
        self.log.append(VariableAccess(time.time(), header.get("client"), header.get("closure"), key, kind,
                                       nbytes, version))

    def _on_create(self, request):
        header, (value,) = rpc.unpack_arrays(request)
        with self._lock:   # a coordinator that starts again creates its variables again: the new value wins
            self._slots[header["key"]] = _Slot(np.array(value), header.get("name"))
        self._record(header, header["key"], "create", value.nbytes, 0)
        return b""

    def _on_read(self, request):
        header, _ = rpc.unpack(request)
        slot = self._slot(header["key"])
        with slot.lock:
            value, version = slot.value, slot.version
        self._record(header, header["key"], "read", value.nbytes, version)
        return rpc.pack_arrays({"version": version}, [value])

    def _on_update(self, request):
        header, (value,) = rpc.unpack_arrays(request)
        slot = self._slot(header["key"])
        kind = header["kind"]
        with slot.lock:
            current = slot.value
            if value.shape != current.shape and kind != "assign":
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot update variable with shape {list(current.shape)} using a Tensor with "
                                f"shape {list(value.shape)}, shapes must be equal.")
            if kind == "assign":
                slot.value = np.array(value, dtype=current.dtype)
            elif kind == "assign_add":
                slot.value = current + value
            elif kind == "assign_sub":
                slot.value = current - value
            else:
                raise errors.InvalidArgumentError(None, None, f"Unknown variable update {kind!r}.")
            slot.version += 1
            version = slot.version
        self._record(header, header["key"], kind, value.nbytes, version)
        return rpc.pack({"version": version})

    def _on_log(self, request):
        return rpc.pack({"log": [list(a) for a in list(self.log)]})


def _install_store(server):
    server.service("VariableStore", VariableStore)


server_lib.add_service_installer(_install_store)   # every server can hold variables, as every TF server can


def access_log(address, timeout=10.0):
    """The accesses recorded by the parameter server at ``address``, oldest first (:class:`VariableAccess`)."""
    header, _ = rpc.unpack(rpc.call(address, LOG, b"", timeout=timeout))
    return [VariableAccess(*a) for a in header["log"]]


def staleness(log):
    """For each update made inside a closure: ``(closure, key, staleness)``.

    Staleness: how many updates by *others* the variable took between the
    closure's first read of it and its own update (``update version - 1 -
    read version``). 0 means the gradient was computed on the value it
    updated; with N workers updating the same variable, about N-1 on average.
    """
    first_read, out = {}, []
    for access in log:
        if access.closure is None:
            continue
        who = (access.client, access.closure, access.key)
        if access.kind == "read":
            first_read.setdefault(who, access.version)
        elif access.kind in ("assign", "assign_add", "assign_sub") and who in first_read:
            out.append((access.closure, access.key, access.version - 1 - first_read[who]))
    return out


# --------------------------------------------------------------------------------------
# The handle
# --------------------------------------------------------------------------------------
_keys = itertools.count()


class RemoteVariable(Variable):
    """A ``tf.Variable`` whose value lives on a parameter server (``/job:ps/replica:0/task:i``).

    Made by ``ParameterServerStrategy`` for ``tf.Variable(...)`` in its scope (the
    coordinator's handle), and from a :meth:`spec` on a worker (the worker's handle to
    the same variable). Everything a ``tf.Variable`` does works: reading fetches the
    value from the server; ``assign``, ``assign_add`` and ``assign_sub`` send the update
    there.
    """

    def __init__(self, *args, **kwargs):
        if "_key" in self.__dict__:
            return   # made by the strategy: ``tf.Variable(...)`` calls __init__ again
        raise TypeError("A RemoteVariable is made by tf.Variable(...) inside a ParameterServerStrategy's scope.")

    @classmethod
    def create(cls, address, task, template, key=None):
        """Create ``template`` 's value (a local variable: initial value, dtype, name...) on the server at
        ``address`` (task name ``task``) and return the handle."""
        value = np.asarray(template._read_untracked().numpy())
        key = key or f"{template.name.split(':')[0]}#{next(_keys)}@{id(_keys):x}"
        rpc.call(address, CREATE, rpc.pack_arrays(dict(_who(), key=key, name=template.name), [value]),
                 timeout=CONNECT_TIMEOUT_S)      # (a parameter server may still be starting: wait for it)
        return cls._attach(address, task, key, template.dtype, template.shape, template.name, template.trainable,
                           template.synchronization, template.aggregation, template.constraint)

    @classmethod
    def from_spec(cls, spec):
        """The handle described by :meth:`spec` (how a worker gets its handles to the coordinator's variables)."""
        return cls._attach(spec["address"], spec["task"], spec["key"], _dtypes.as_dtype(spec["dtype"]),
                           TensorShape(spec["shape"]), spec["name"], spec["trainable"])

    @classmethod
    def _attach(cls, address, task, key, dtype, shape, name, trainable, synchronization=None, aggregation=None,
                constraint=None):
        self = object.__new__(cls)
        self._address, self._task, self._key = address, task, key
        self._dtype, self._shape, self._name = dtype, as_shape(shape), name
        self._trainable = bool(trainable)
        self._synchronization = synchronization or VariableSynchronization.AUTO
        self._aggregation = aggregation or VariableAggregation.NONE
        self.constraint = constraint
        self._id = _next_id()
        self._graph = None
        self._device = default_device()     # where the values read are computed on, here
        self.version = None                  # the version of the value read last
        return self

    def spec(self):
        """What a worker needs to reach this variable (JSON-able)."""
        return {"address": self._address, "task": self._task, "key": self._key, "dtype": self._dtype.name,
                "shape": None if self._shape.rank is None else list(self._shape.as_list()), "name": self._name,
                "trainable": self._trainable}

    @property
    def key(self):
        return self._key

    @property
    def device(self):
        return f"{self._task}/device:CPU:0"

    @property
    def _value(self):
        header, (value,) = rpc.unpack_arrays(rpc.call(self._address, READ, rpc.pack(dict(_who(), key=self._key)),
                                                      wait_for_ready=False))
        self.version = header["version"]
        return value

    @_value.setter
    def _value(self, array):   # the assign kernel's write, for a handle without remote_update (never, here)
        self.remote_update("AssignVariableOp", array)

    def remote_update(self, op_type, value):
        """Apply ``op_type`` (``AssignAddVariableOp``...) with ``value`` on the parameter server, atomically."""
        kind = _UPDATES.get(op_type)
        if kind is None:
            raise errors.UnimplementedError(None, None, f"{op_type} on a parameter server's variable.")
        value = np.asarray(value, dtype=self._dtype.as_numpy_dtype)
        header, _ = rpc.unpack(rpc.call(self._address, UPDATE,
                                        rpc.pack_arrays(dict(_who(), key=self._key, kind=kind), [value]),
                                        wait_for_ready=False))
        self.version = header["version"]

    def _takes_as_is(self, value):
        return False     # (the check reads the value: here, a round trip to the server for nothing)

    @staticmethod
    def _sole_owner(view, extra_refs=0):
        return False     # a value fetched from the server is a copy: never update it in place
