"""``tf.distribute.coordinator.ClusterCoordinator``: one process hands out work, asynchronously.

With ``ParameterServerStrategy`` only one process runs the training program:
the *coordinator* (the ``chief`` task). The workers only serve
(``ps_worker.py``), the parameter servers only hold variables
(``ps_values.py``). The coordinator's loop is::

    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    per_worker_data = coordinator.create_per_worker_dataset(dataset_fn)
    per_worker_iterator = iter(per_worker_data)

    @tf.function
    def step(iterator):
        x, y = next(iterator)
        ...                                  # compute gradients, update the variables
        return loss

    for _ in range(steps):
        loss = coordinator.schedule(step, args=(per_worker_iterator,))   # returns at once: a RemoteValue
    coordinator.join()                       # wait until every scheduled step has run
    print(loss.fetch())

What happens inside:

1. ``schedule`` traces ``step`` **here** (variables created while tracing go to
   the parameter servers), wraps the call in a *closure*, puts it in a queue
   and returns a :class:`RemoteValue`, a promise of the result.
2. One thread per worker takes the next closure from the queue and runs it on
   its worker: the first time, it sends the traced graph (``PSWorker/Register``,
   ``tracing/graph_export.py``), then the inputs (``PSWorker/Run``). A worker
   runs one closure at a time, so N workers run N closures at once, each on
   whatever the variables hold when it reads them: **asynchronous** training.
3. An iterator argument is the worker's own iterator of a *per-worker* dataset:
   ``dataset_fn`` is called once for each worker. (Deliberate difference: TF
   builds each worker's input pipeline on that worker; the engine keeps it
   with the coordinator, and the worker pulls each element over gRPC,
   ``PSData/GetNext``. What each worker sees is the same.)
4. When a closure finishes its RemoteValue is filled in; ``join`` waits until
   the queue is empty and nothing runs.

Failures, as TF handles them:

* **A worker dies** (its calls fail with ``UnavailableError``): the closure it
  was running goes back to the front of the queue, the other workers carry on,
  and the dead worker's thread waits for it to come back (a cluster manager
  restarts it), registers the functions again and resumes. ``join`` returns
  with every result. (A closure that died halfway may have applied part of
  its updates before it is run again: at-least-once, as in TF.)
* **A function raises** (a ``tf.errors`` error inside the closure, including
  ``UnavailableError`` when a *parameter server* is lost: TF does not recover
  those): the queued closures are cancelled (their RemoteValues raise
  ``CancelledError``) and the error is raised by the next ``join``, ``done``
  or ``schedule`` call.
"""
import inspect
import itertools
import json
import logging
import threading
from collections import deque

import numpy as np

from ..framework import errors
from ..framework.tensor import Tensor, convert_to_tensor
from ..tracing.function import ConcreteFunction, Function, function as tf_function
from ..tracing.graph_export import export_function_graph
from ..util import nest
from ..variables import Variable
from . import rpc
from .ps_values import RemoteVariable
from .ps_worker import REGISTER, RUN
from .replica_context import InputContext
from .server_lib import ping

__all__ = ["ClusterCoordinator", "RemoteValue", "PerWorkerValues", "PerWorkerIterator"]

_log = logging.getLogger("engine.distribute")
_WORKER_FAILURES = (errors.UnavailableError, errors.CancelledError, errors.AbortedError)


# --------------------------------------------------------------------------------------
# What schedule returns
# --------------------------------------------------------------------------------------
class RemoteValue:
    """``tf.distribute.experimental.coordinator.RemoteValue``: the result of a scheduled function, later."""

    def __init__(self):
        self._ready = threading.Event()
        self._value = self._error = None

    def _set(self, value):
        self._value = value
        self._ready.set()

    def _fail(self, error):
        self._error = error
        self._ready.set()

    def get(self):
        """Wait for the function to finish; its result (tensors, in the function's output structure)."""
        self._ready.wait()
        if self._error is not None:
            raise self._error
        return self._value

    def fetch(self):
        """Wait for the function to finish; its result as NumPy values (``tensor.numpy()`` of each)."""
        return nest.map_structure(lambda t: t.numpy() if isinstance(t, Tensor) else t, self.get())


class PerWorkerValues:
    """One value per worker (``tf.distribute.experimental.coordinator.PerWorkerValues``): a closure run on
    worker k gets the k-th."""

    def __init__(self, values):
        self._values = tuple(values)

    def __repr__(self):
        return f"PerWorkerValues({self._values!r})"


class PerWorkerIterator(PerWorkerValues):
    """``iter(per_worker_dataset)``: each worker's iterator over its own copy of the dataset."""

    @property
    def element_spec(self):
        return self._values[0].element_spec

    def __iter__(self):
        return self

    def __next__(self):
        raise NotImplementedError("Iterating over a per-worker iterator on the coordinator is not supported: "
                                  "pass it to a function you schedule, which calls next() on a worker.")


class PerWorkerDataset:
    """``coordinator.create_per_worker_dataset(dataset_fn)``: ``dataset_fn`` made once per worker."""

    def __init__(self, coordinator, dataset_fn):
        self._coordinator = coordinator
        n = coordinator._num_workers
        try:
            takes_context = bool(_parameters(dataset_fn))
        except (TypeError, ValueError):
            takes_context = False
        self._datasets = tuple(_as_dataset(dataset_fn(InputContext(n, k, 1)) if takes_context else dataset_fn())
                               for k in range(n))

    @property
    def element_spec(self):
        return self._datasets[0].element_spec

    def __iter__(self):
        return PerWorkerIterator([self._coordinator._data.add(iter(d)) for d in self._datasets])


def _parameters(fn):
    return [p for p in inspect.signature(fn).parameters.values()
            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _as_dataset(made):
    """A ``tf.data.Dataset`` from what ``dataset_fn`` made (a distributed dataset of one replica: its dataset)."""
    inner = getattr(made, "_dataset", None)
    return inner if inner is not None and not hasattr(made, "_make_iterator") else made


# --------------------------------------------------------------------------------------
# The coordinator's iterators, which the workers pull from
# --------------------------------------------------------------------------------------
class _DataService:
    """The iterators of per-worker datasets, by id, served to the workers (``PSData/GetNext``)."""

    def __init__(self, server):
        self._iterators = {}
        self._ids = itertools.count()
        server.add_method("PSData", "GetNext", self._on_get_next)

    def add(self, iterator):
        iterator._ps_data_id = next(self._ids)
        iterator._ps_lock = threading.Lock()
        self._iterators[iterator._ps_data_id] = iterator
        return iterator

    def _on_get_next(self, request):
        header, _ = rpc.unpack(request)
        iterator = self._iterators.get(header["iterator"])
        if iterator is None:
            raise errors.NotFoundError(None, None, f"No iterator {header['iterator']} on the coordinator.")
        with iterator._ps_lock:
            try:
                components = next(iterator._resource_handle().iterator)
            except StopIteration:
                return rpc.pack({"end": True})
        return rpc.pack_arrays({}, [np.asarray(c.numpy() if isinstance(c, Tensor) else c) for c in components])


# --------------------------------------------------------------------------------------
# Closures and their queue
# --------------------------------------------------------------------------------------
def _for_worker(structure, k):
    return nest.map_structure(lambda v: v._values[k] if isinstance(v, PerWorkerValues) else v, structure)


class _Closure:
    """One scheduled call: the traced function, its arguments, the RemoteValue to fill in."""

    def __init__(self, closure_id, concrete, args, kwargs):
        self.id = closure_id
        self.concrete = concrete
        self.args, self.kwargs = args, kwargs
        self.remote_value = RemoteValue()

    def inputs_for(self, worker, data_address):
        """``(input kinds, arrays)`` of ``PSWorker/Run`` for worker ``worker``."""
        flat = self.concrete.flat_inputs(*_for_worker(self.args, worker), **_for_worker(self.kwargs, worker))
        kinds, arrays = [], []
        for value in flat:
            if isinstance(value, RemoteVariable):
                kinds.append({"variable": value.spec()})
            elif isinstance(value, Variable):
                raise ValueError(f"{self.concrete.name} was passed the variable '{value.name}', which was not "
                                 f"created in the ParameterServerStrategy's scope: a worker cannot reach it.")
            elif hasattr(value, "_ps_data_id"):
                kinds.append({"iterator": {"address": data_address, "id": value._ps_data_id}})
            elif hasattr(value, "_resource_handle"):
                raise ValueError(f"{self.concrete.name} was passed an iterator of a dataset the coordinator did "
                                 f"not make per worker: use coordinator.create_per_worker_dataset(dataset_fn).")
            else:
                kinds.append("array")
                arrays.append(np.asarray(value.numpy() if isinstance(value, Tensor) else value))
        return kinds, arrays

    def outputs(self, arrays):
        """The function's structured result from the output arrays a worker sent back."""
        it = iter(convert_to_tensor(np.array(a)) for a in arrays)
        structure = self.concrete.structured_outputs
        leaves = [None if leaf is None else (next(it) if isinstance(leaf, Tensor) else leaf)
                  for leaf in nest.flatten(structure)]
        return nest.pack_sequence_as(structure, leaves) if structure is not None else None


class _ClosureQueue:
    """Closures waiting for a worker; how many run; the first error, until someone is told of it."""

    def __init__(self):
        self._queue = deque()
        self._inflight = 0
        self._error = None
        self._changed = threading.Condition()
        self.stopping = False

    def put(self, closure):
        with self._changed:
            self._raise_error()
            self._queue.append(closure)
            self._changed.notify_all()

    def get(self):
        """The next closure (counted as running), or None when the coordinator stops."""
        with self._changed:
            while not self._queue and not self.stopping:
                self._changed.wait()
            if self.stopping:
                return None
            self._inflight += 1
            return self._queue.popleft()

    def put_back(self, closure):
        """A closure whose worker died: first in line again."""
        with self._changed:
            self._inflight -= 1
            self._queue.appendleft(closure)
            self._changed.notify_all()

    def finished(self, closure, value):
        closure.remote_value._set(value)
        with self._changed:
            self._inflight -= 1
            self._changed.notify_all()

    def failed(self, closure, error):
        """The closure raised ``error``: keep it for join/done/schedule, cancel what waits."""
        closure.remote_value._fail(error)
        with self._changed:
            self._inflight -= 1
            if self._error is None:
                self._error = error
            while self._queue:
                self._queue.popleft().remote_value._fail(errors.CancelledError(
                    None, None, "The corresponding function is cancelled. Please reschedule the function."))
            self._changed.notify_all()

    def _raise_error(self):
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def wait(self):
        with self._changed:
            while self._queue or self._inflight:
                self._changed.wait()
            self._raise_error()

    def done(self):
        with self._changed:
            self._raise_error()
            return not self._queue and not self._inflight

    def stop(self):
        with self._changed:
            self.stopping = True
            self._changed.notify_all()


# --------------------------------------------------------------------------------------
# The workers, as the coordinator sees them
# --------------------------------------------------------------------------------------
class _WorkerFailure(Exception):
    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


class _Worker:
    """A thread that runs closures on one worker, one at a time, for as long as the coordinator lives."""

    def __init__(self, coordinator, index, address):
        self.index, self.address, self.name = index, address, f"/job:worker/replica:0/task:{index}"
        self._coordinator = coordinator
        self._registered = set()
        self.failures = 0               # how many times it died under a closure
        self.available = False          # answering (False until it first answers, and while it is down)
        self._thread = threading.Thread(target=self._loop, name=f"ps-worker-{index}", daemon=True)
        self._thread.start()

    def _loop(self):
        queue = self._coordinator._queue
        self._wait_until_back()        # a worker may still be starting
        while True:
            closure = queue.get()
            if closure is None:
                return
            try:
                value = self._run(closure)
            except _WorkerFailure as failure:
                self.failures += 1
                _log.warning("Worker %s has been preempted or is unavailable: %s. Its closure is rescheduled.",
                             self.name, failure.error.message)
                queue.put_back(closure)
                self._wait_until_back()
            except Exception as error:  # noqa: BLE001  (the function's own error: raised by join)
                queue.failed(closure, error)
            else:
                queue.finished(closure, value)

    def _call(self, method, request):
        try:
            return rpc.call(self.address, method, request, timeout=self._coordinator.rpc_timeout,
                            wait_for_ready=False)
        except _WORKER_FAILURES as error:
            raise _WorkerFailure(error) from None

    def _run(self, closure):
        key = self._coordinator._register(closure.concrete)
        kinds, arrays = closure.inputs_for(self.index, self._coordinator._data_address)
        request = rpc.pack_arrays({"key": key, "closure": closure.id, "inputs": kinds}, arrays)
        for _ in range(2):
            if key not in self._registered:
                _raise_reply(self._call(REGISTER, rpc.pack({"key": key,
                                                            "function": self._coordinator._specs[key]})))
                self._registered.add(key)
            header, outputs = rpc.unpack_arrays(self._call(RUN, request))
            if header.get("unregistered"):     # the worker restarted since we registered
                self._registered.discard(key)
                continue
            _raise_reply_header(header)
            return closure.outputs(outputs)
        raise errors.InternalError(None, None, f"Worker {self.name} lost the function {key} twice.")

    def _wait_until_back(self):
        """Wait for a dead worker's server to answer again (a new process on its address), then resume."""
        self.available = False
        self._registered.clear()
        rpc.forget_channel(self.address)
        while not self._coordinator._queue.stopping:
            try:
                ping(self.address, timeout=1.0)
                self.available = True
                return
            except errors.OpError:
                self._coordinator._stopped.wait(0.2)
                rpc.forget_channel(self.address)


def _raise_reply(reply):
    header, _ = rpc.unpack(reply)
    _raise_reply_header(header)


def _raise_reply_header(header):
    if "error" in header:
        cls = getattr(errors, header["error"], errors.UnknownError)
        raise cls(None, None, header["message"])


# --------------------------------------------------------------------------------------
# The coordinator
# --------------------------------------------------------------------------------------
class ClusterCoordinator:
    """Schedules functions on the workers of a ``ParameterServerStrategy``'s cluster (one per strategy)."""

    def __new__(cls, strategy):
        found = getattr(strategy, "_cluster_coordinator", None)
        if found is not None:
            return found
        return super().__new__(cls)

    def __init__(self, strategy):
        if getattr(self, "_strategy", None) is strategy:
            return
        if not getattr(strategy, "_is_parameter_server_strategy", False):
            raise ValueError("Only `tf.distribute.experimental.ParameterServerStrategy` is supported to work with "
                             "`tf.distribute.experimental.coordinator.ClusterCoordinator` currently.")
        self._strategy = strategy
        strategy._cluster_coordinator = self
        strategy.extended._used_with_coordinator = True
        self.rpc_timeout = None
        self._queue = _ClosureQueue()
        self._stopped = threading.Event()
        self._ids = itertools.count()
        self._specs, self._keys, self._lock = {}, {}, threading.Lock()   # key -> exported graph; concrete -> key
        self._wrapped = {}
        server = strategy._coordinator_server
        self._data = server.service("PSData", _DataService)
        self._data_address = strategy._coordinator_address
        cluster = strategy.cluster_resolver.cluster_spec()
        self._num_workers = cluster.num_tasks("worker")
        self._workers = [_Worker(self, k, cluster.task_address("worker", k)) for k in range(self._num_workers)]

    @property
    def strategy(self):
        return self._strategy

    # --- TF's API -----------------------------------------------------------------------------
    def schedule(self, fn, args=None, kwargs=None):
        """Queue ``fn(*args, **kwargs)`` to run on a worker; return a :class:`RemoteValue` at once.

        ``fn`` is traced now (a plain Python function is wrapped in ``tf.function`` first).
        Raises the error of an earlier closure that failed, if nobody has seen it yet.
        """
        args, kwargs = tuple(args or ()), dict(kwargs or {})
        function = self._as_function(fn)
        with self._strategy.scope():
            concrete = function.get_concrete_function(*_for_worker(args, 0), **_for_worker(kwargs, 0))
        closure = _Closure(next(self._ids), concrete, args, kwargs)
        self._queue.put(closure)
        return closure.remote_value

    def join(self):
        """Block until every scheduled function has run; raise the first error one of them raised."""
        self._queue.wait()

    def done(self):
        """True if nothing is queued or running (raises the first error of a function, as ``join``)."""
        return self._queue.done()

    def fetch(self, val):
        """The values of a structure of RemoteValues (waiting for each); other leaves unchanged."""
        return nest.map_structure(lambda v: v.fetch() if isinstance(v, RemoteValue) else v, val)

    def create_per_worker_dataset(self, dataset_fn):
        """A dataset made once per worker by ``dataset_fn()`` (or ``dataset_fn(input_context)``)."""
        return PerWorkerDataset(self, dataset_fn)

    # --- inside -----------------------------------------------------------------------------
    def _as_function(self, fn):
        if isinstance(fn, (Function, ConcreteFunction)):
            return fn
        if not callable(fn):
            raise TypeError(f"schedule needs a tf.function or a callable, not {type(fn).__name__}.")
        found = self._wrapped.get(fn)
        if found is None:
            found = self._wrapped[fn] = tf_function(fn)
        return found

    def _register(self, concrete):
        """The key of ``concrete`` 's exported graph (exported once, for every worker)."""
        with self._lock:
            key = self._keys.get(concrete)
            if key is not None:
                return key
            captured = {}

            def variable_key(variable):
                if not isinstance(variable, RemoteVariable):
                    raise ValueError(f"{concrete.name} uses the variable '{variable.name}', which was not created "
                                     f"in the ParameterServerStrategy's scope: a worker cannot reach it.")
                captured[variable.key] = variable.spec()
                return variable.key
            graph = concrete.graph
            graph_def = export_function_graph(graph, variable_key)
            key = f"{concrete.name}#{len(self._keys)}"
            self._specs[key] = {"name": concrete.name, "graph_def": _json(graph_def),
                                "inputs": [t.name for t in graph.inputs], "outputs": [t.name for t in graph.outputs],
                                "variables": captured}
            self._keys[concrete] = key
            return key

    def _shutdown(self):
        self._queue.stop()
        self._stopped.set()

    def __del__(self):
        try:
            self._shutdown()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


def _json(graph_def):
    return json.loads(graph_def.to_json(pretty=False))
