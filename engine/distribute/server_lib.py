"""``tf.distribute.Server``: the gRPC server of one task of a cluster.

Each process of a distributed job is one *task* (``cluster_spec.py``) and
runs one server, listening at its task's address. The other tasks reach it
there: a multi-worker strategy's collectives send their chunks to it
(``collective_service.py``), a parameter-server task does nothing but serve::

    cluster = tf.train.ClusterSpec({"worker": ["localhost:2222", "localhost:2223"]})
    server = tf.distribute.Server(cluster, job_name="worker", task_index=0)
    server.target                       # 'grpc://localhost:2222'
    server.join()                       # a ps task: serve until killed

As in TF:

* the server starts when it is made (``start=False`` to start it later;
  ``start()`` twice is harmless), and it is bound to its port already before
  ``start()``: ``target`` is known, and an address with port 0 gets a free port;
* ``target`` is ``"grpc://localhost:<port>"``, whatever the host of the address;
* ``job_name`` / ``task_index`` may be left out when the cluster (or the job)
  has only one; otherwise ``ValueError("Must specify an explicit `job_name`.")``
  (or ``task_index``); a job or task the cluster does not define is
  ``tf.errors.InternalError``; a port another process holds is
  ``tf.errors.UnknownError("Could not start gRPC server")``; a protocol other than
  ``"grpc"`` is ``tf.errors.NotFoundError``;
* ``join()`` blocks until the server is stopped, which TF's never is;
* ``create_local_server()``: a one-task cluster ``{"localhost": ["localhost:0"]}``.

Engine additions: ``stop()`` (TF stops a server only when the object is
deleted), so a test or a script can free its port at once; and
``add_method(service, method, fn)``, how the engine's services
(``collective_service.py``) install themselves on a server. Every server
answers ``Ping`` (its task's name), which launchers and health checks use.
"""
import atexit
import threading
import weakref

from ..framework import errors
from . import rpc
from .cluster_spec import ClusterSpec

__all__ = ["Server", "ServerDef", "find_server", "add_service_installer"]

_PROTOCOLS = ("grpc",)


class ServerDef:
    """The engine's stand-in for ``tf.train.ServerDef``: a cluster (``ClusterDef``), the task, the protocol."""

    def __init__(self, cluster=None, job_name="", task_index=0, protocol=""):
        self.cluster = cluster
        self.job_name = job_name
        self.task_index = task_index
        self.protocol = protocol

    def __str__(self):
        cluster = "".join(f"  {line}\n" for line in str(self.cluster or "").splitlines())
        return (f"cluster {{\n{cluster}}}\njob_name: \"{self.job_name}\"\n"
                + (f"task_index: {self.task_index}\n" if self.task_index else "")
                + f"protocol: \"{self.protocol}\"\n")

    def __repr__(self):
        return f"ServerDef(job_name={self.job_name!r}, task_index={self.task_index!r}, protocol={self.protocol!r})"


def _make_server_def(server_or_cluster_def, job_name, task_index, protocol):
    """TF's ``_make_server_def``: fill in ``job_name``/``task_index`` when the cluster allows only one choice."""
    if isinstance(server_or_cluster_def, ServerDef):
        given = server_or_cluster_def
        return ServerDef(given.cluster, given.job_name if job_name is None else job_name,
                         given.task_index if task_index is None else task_index,
                         given.protocol if protocol is None else protocol)
    try:
        cluster_spec = ClusterSpec(server_or_cluster_def)
    except TypeError:
        raise TypeError("Could not convert `server_or_cluster_def` to a `tf.train.ServerDef` or "
                        "`tf.train.ClusterSpec`.") from None
    if job_name is None:
        if len(cluster_spec.jobs) == 1:
            job_name = cluster_spec.jobs[0]
        else:
            raise ValueError("Must specify an explicit `job_name`.")
    if task_index is None:
        task_indices = cluster_spec.task_indices(job_name)
        if len(task_indices) == 1:
            task_index = task_indices[0]
        else:
            raise ValueError("Must specify an explicit `task_index`.")
    return ServerDef(cluster_spec.as_cluster_def(), job_name, task_index, protocol or "grpc")


def _own_address(server_def):
    """The address of the server's own task in its cluster (TF's errors when the cluster lacks it)."""
    jobs = {job.name: job.tasks for job in server_def.cluster.job}
    if server_def.job_name not in jobs:
        raise errors.InternalError(None, None, f'Job "{server_def.job_name}" was not defined in cluster')
    tasks = jobs[server_def.job_name]
    if server_def.task_index not in tasks:
        raise errors.InternalError(None, None, f'Task {server_def.task_index} was not defined in job '
                                               f'"{server_def.job_name}"')
    address = tasks[server_def.task_index]
    return address.decode() if isinstance(address, bytes) else address


_service_installers = []   # fn(server) for each service every server offers (ps_values, the PS worker...)


def add_service_installer(install):
    """Have every server made from now on call ``install(server)`` (which adds its methods).

    As in TF, every server can do every job: hold variables (a ``ps`` task), run a
    coordinator's functions (a worker), take part in collectives.
    """
    if install not in _service_installers:
        _service_installers.append(install)


_live = weakref.WeakSet()      # the servers of this process that are not stopped
EXIT_GRACE_S = 2.0   # a server stopped at exit or collected lets calls in flight finish for this long at most
_live_lock = threading.Lock()


class Server:
    """An in-process server for one task of a cluster: a gRPC server at the task's address."""

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None,
                 start=True):
        self._server_def = _make_server_def(server_or_cluster_def, job_name, task_index, protocol)
        if self._server_def.protocol not in _PROTOCOLS:
            raise errors.NotFoundError(None, None, f"No server factory registered for the given ServerDef: "
                                                   f"{self._server_def}\nThe available server factories are: "
                                                   f"[ GRPC_SERVER ]")
        self._address = _own_address(self._server_def)
        self._rpc = rpc.RpcServer(self._address)
        self._cluster_spec = ClusterSpec(self._server_def.cluster)
        self._services = {}
        self.add_method("Control", "Ping", _weak(self._ping))
        for install in _service_installers:
            install(self)
        with _live_lock:
            _live.add(self)
        if start:
            self.start()

    # --- TF's API ---------------------------------------------------------------------------
    def start(self):
        """Start serving (a no-op if it already serves)."""
        self._rpc.start()

    def join(self):
        """Block until this server is stopped (TF: forever, a parameter server's main loop)."""
        while not self._rpc.wait(timeout=1.0):
            pass

    @property
    def server_def(self):
        return self._server_def

    @property
    def target(self):
        """``"grpc://localhost:<port>"``: where this process's own clients reach it."""
        return f"grpc://localhost:{self._rpc.port}"

    @staticmethod
    def create_local_server(config=None, start=True):
        """A server for a cluster of one task, ``{"localhost": ["localhost:0"]}`` (a free port)."""
        return Server({"localhost": ["localhost:0"]}, protocol="grpc", config=config, start=start)

    # --- engine additions ---------------------------------------------------------------------
    @property
    def port(self):
        """The port the server is bound to (the chosen one when the address said port 0)."""
        return self._rpc.port

    @property
    def cluster_spec(self):
        return self._cluster_spec

    @property
    def task_type(self):
        return self._server_def.job_name

    @property
    def task_id(self):
        return self._server_def.task_index

    @property
    def address(self):
        """This task's address as the cluster gives it (``host:port``; the port may be 0)."""
        return self._address

    def stop(self, grace=None):
        """Stop serving and free the port (an engine addition: TF's server stops when it is deleted)."""
        self._rpc.stop(grace)
        with _live_lock:
            _live.discard(self)

    @property
    def stopped(self):
        return self._rpc.stopped

    def add_method(self, service, method, fn):
        """Serve ``/engine.distribute.<service>/<method>`` with ``fn(request bytes) -> response bytes``.

        gRPC's threads keep ``fn`` alive: it should not refer to this server (or the
        server is never collected, and keeps its port until ``stop()``).
        """
        self._rpc.register(rpc.method_name(service, method), fn)

    def service(self, name, factory):
        """The service ``name`` attached to this server, made by ``factory(self)`` on first use."""
        with _live_lock:
            found = self._services.get(name)
            if found is None:
                found = self._services[name] = factory(self)
            return found

    def _ping(self, request):
        return rpc.pack({"task": f"/job:{self.task_type}/replica:0/task:{self.task_id}"})

    def __repr__(self):
        state = "stopped" if self.stopped else ("serving" if self._rpc.started else "not started")
        return f"<tf.distribute.Server /job:{self.task_type}/task:{self.task_id} at {self.target} ({state})>"

    def __del__(self):
        try:   # (calls in flight finish first: see _stop_all)
            self._rpc.stop(EXIT_GRACE_S)
        except Exception:  # noqa: BLE001  (interpreter shutdown: grpc may be half torn down)
            pass


def _weak(method):
    """``method`` of a server, without keeping the server alive (gRPC's threads hold the handlers).

    So a ``Server`` nobody refers to any more is collected, and its ``__del__``
    frees the port, as TF's does.
    """
    ref = weakref.WeakMethod(method)

    def call(request):
        bound = ref()
        if bound is None:
            raise errors.UnavailableError(None, None, "The server is shutting down")
        return bound(request)
    return call


def find_server(cluster_spec, task_type, task_id):
    """This process's running server for task ``(task_type, task_id)`` of ``cluster_spec``, or None."""
    with _live_lock:
        servers = list(_live)
    for server in servers:
        if not server.stopped and server.task_type == task_type and server.task_id == task_id and \
                server.cluster_spec == cluster_spec:
            return server
    return None


def ping(address, timeout=5.0, wait_for_ready=False):
    """The task name the server at ``address`` answers with (``UnavailableError`` if nothing serves there)."""
    header, _ = rpc.unpack(rpc.call(address, rpc.method_name("Control", "Ping"), b"", timeout=timeout,
                                    wait_for_ready=wait_for_ready))
    return header["task"]


@atexit.register
def _stop_all():
    """At exit, stop every server of this process, letting calls in flight finish (at most
    ``EXIT_GRACE_S``): a peer may still be waiting for the reply to a message this process already
    took (the last send of a barrier, say); cancelling it would fail that peer for nothing."""
    with _live_lock:
        servers = list(_live)
    for server in servers:
        server.stop(EXIT_GRACE_S)
    rpc.close_channels()

