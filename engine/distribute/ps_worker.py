"""The worker's side of ``ClusterCoordinator``: run the functions a coordinator sends.

A worker of a parameter-server job runs no training script of its own. It
starts its server and waits (``tf.distribute.Server(...).join()``); the
coordinator does the rest, through two methods every server offers:

* ``PSWorker/Register``: a traced function, as data (``tracing/graph_export.py``):
  its GraphDef, the names of its inputs and outputs, and for each variable it
  captured, where that variable lives (a parameter server's address and the
  variable's key there). The worker imports the graph, links each variable to
  a :class:`~engine.distribute.ps_values.RemoteVariable` handle, and compiles
  the graph into a plan, once.
* ``PSWorker/Run``: run one *closure*: a registered function and the values of
  its inputs (arrays; for an iterator argument, where to pull elements from).
  The plan runs here; every variable read and update travels to its
  parameter server. The reply carries the outputs, or the error the function
  raised (as data: a failure of the function is not a failure of the worker).

A worker runs one closure at a time. If it dies, the coordinator notices (its
call fails with ``UnavailableError``) and gives the closure to another worker.
A worker that starts again has forgotten every function: ``Run`` of a function
it does not know answers ``unregistered``, and the coordinator registers it again.
"""
import json
import threading

from ..framework import errors
from ..framework.executor import compile_plan
from ..framework.graph_io import GraphDef
from ..tracing.graph_export import import_function_graph
from . import rpc, server_lib
from .multi_worker_util import task_name
from .ps_values import RemoteVariable, running_closure, set_this_task

__all__ = ["WorkerService", "REGISTER", "RUN", "error_reply"]

REGISTER = rpc.method_name("PSWorker", "Register")
RUN = rpc.method_name("PSWorker", "Run")
GET_NEXT = rpc.method_name("PSData", "GetNext")


class _Function:
    """A registered function: its graph and the plan that runs it."""

    def __init__(self, spec):
        variables = {key: RemoteVariable.from_spec(v) for key, v in spec["variables"].items()}
        graph_def = GraphDef.from_json(json.dumps(spec["graph_def"]))
        self.graph = import_function_graph(graph_def, variables, spec["inputs"], spec["outputs"], spec["name"])
        self.plan = compile_plan(self.graph.outputs, self.graph.stateful_ops, self.graph.inputs)


class RemoteIterator:
    """A worker's handle to an iterator that lives with the coordinator: ``IteratorGetNext`` calls it.

    (``data/graph_ops.py``: the kernel pulls ``next(handle.iterator)``, the element's components.)
    """

    def __init__(self, address, iterator_id):
        self.address, self.iterator_id = address, iterator_id
        self.iterator = self

    def __iter__(self):
        return self

    def __next__(self):
        header, components = rpc.unpack_arrays(rpc.call(self.address, GET_NEXT,
                                                        rpc.pack({"iterator": self.iterator_id})))
        if header.get("end"):
            raise StopIteration
        return [c[()] if c.ndim == 0 else c for c in components]


def error_reply(error):
    """The reply for a function that raised ``error``: its class and message, as data."""
    name = type(error).__name__ if isinstance(error, errors.OpError) else "UnknownError"
    message = error.message if isinstance(error, errors.OpError) else f"{type(error).__name__}: {error}"
    return rpc.pack({"error": name, "message": message})


class WorkerService:
    """The functions one worker's server has been given, and the closures it runs (one at a time)."""

    def __init__(self, server):
        self._task = task_name(server.task_type, server.task_id)
        self._functions = {}
        self._running = threading.Lock()
        server.add_method("PSWorker", "Register", self._on_register)
        server.add_method("PSWorker", "Run", self._on_run)

    def _on_register(self, request):
        header, _ = rpc.unpack(request)
        try:
            function = _Function(header["function"])
        except Exception as error:  # noqa: BLE001  (reported to the coordinator, which raises it)
            return error_reply(error)
        self._functions[header["key"]] = function
        return rpc.pack({"ok": True})

    def _on_run(self, request):
        header, arrays = rpc.unpack_arrays(request)
        function = self._functions.get(header["key"])
        if function is None:
            return rpc.pack({"unregistered": True})
        feeds, taken = [], iter(arrays)
        for kind in header["inputs"]:
            if kind == "array":
                value = next(taken)
                feeds.append(value[()] if value.ndim == 0 else value)
            elif "variable" in kind:
                feeds.append(RemoteVariable.from_spec(kind["variable"]))
            else:
                feeds.append(RemoteIterator(kind["iterator"]["address"], kind["iterator"]["id"]))
        with self._running, running_closure(self._task, header.get("closure")):
            try:
                outputs = function.plan(feeds)
            except Exception as error:  # noqa: BLE001  (the function failed, not the worker)
                return error_reply(error)
        return rpc.pack_arrays({"ok": True}, outputs)


def _install(server):
    set_this_task(task_name(server.task_type, server.task_id))
    server.service("PSWorker", WorkerService)


server_lib.add_service_installer(_install)
