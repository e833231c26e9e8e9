"""The collective service: how the tasks of a group send each other buffers, over their servers.

Between devices of one process, an all-reduce "sends" an array by handing it
over (``cross_device_ops.send``). Between processes, a send is a gRPC call:
task A calls ``Collective/Send`` on task B's server (``server_lib.Server``) with
the bytes; B's server puts them in its **mailbox**; B's collective, running in
B's own thread, takes them out when it gets there. So:

* a send never waits for the receiver's collective to be ready: the server's
  handler only deposits the message and acknowledges it. A fast task may run a
  step ahead; its messages wait in the receiver's mailbox;
* every message is addressed by a **key**: the group (which tasks), the
  *instance* (the n-th collective of that group: every task runs the same
  collectives in the same order, so the n-th means the same on all of them),
  a *tag* within the instance (``"reduce-scatter/1/0"``: phase, step, piece)
  and the sender's rank. A receiver asks its mailbox for exactly the key it
  expects next.

:class:`CollectiveGroup` is one task's view of a group: the members' addresses
in rank order, its own rank, and ``send`` / ``recv`` to and from a member.
The algorithms built on it (the ring all-reduce, a broadcast) are in
``collective_ring.py``.

Failures, as TF reports them:

* a task whose collective fails (its buffer does not match, a peer died...)
  **aborts** it: it tells every other member, whose receives of that instance
  then raise the same error class, ``Collective ops is aborted by: <task>: ...``,
  instead of waiting for a message that will never come;
* a member that never answers: sends use ``wait_for_ready`` (a peer still
  starting is waited for) up to ``connect_timeout``; after that, or when the
  peer is gone, ``tf.errors.UnavailableError``;
* while a receive waits, the task it waits for is pinged every
  ``health_interval`` seconds; when nothing listens at its address any more (or
  three pings in a row time out), the receive raises ``UnavailableError``
  instead of waiting forever (TF's MultiWorkerMirroredStrategy
  checks its peers' health the same way);
* ``timeout`` (``CommunicationOptions(timeout_seconds=...)``): a receive that
  waits longer raises ``tf.errors.DeadlineExceededError``. None (TF's default)
  waits as long as the peer is alive.
"""
import hashlib
import threading
import time

from ..framework import errors
from . import rpc
from .cluster_resolver import TFConfigClusterResolver
from .multi_worker_util import collective_tasks, resolve_multi_worker_task, task_name
from .server_lib import Server, find_server

__all__ = ["CollectiveService", "CollectiveGroup", "service_for", "group_from_cluster_resolver", "task_server"]

SEND = rpc.method_name("Collective", "Send")
ABORT = rpc.method_name("Collective", "Abort")
PING = rpc.method_name("Control", "Ping")


class CollectiveService:
    """The mailbox of one server: messages that arrived, by key, until their collective takes them."""

    def __init__(self, server):
        self._messages = {}          # key -> (header, payload memoryview, arrival time)
        self._aborted = {}           # (group, instance) -> the engine error a member failed with
        self._arrived = threading.Condition()
        server.add_method("Collective", "Send", self._on_send)
        server.add_method("Collective", "Abort", self._on_abort)

    def _on_send(self, request):
        header, payload = rpc.unpack(request)
        header["wire_bytes"] = len(request)
        key = (header["group"], header["instance"], header["tag"], header["src"])
        with self._arrived:
            self._messages[key] = (header, payload, time.time())
            self._arrived.notify_all()
        return b""

    def _on_abort(self, request):
        header, _ = rpc.unpack(request)
        cls = getattr(errors, header["error"], errors.UnknownError)
        self.abort(header["group"], header["instance"],
                   cls(None, None, f"Collective ops is aborted by: {header['task']}: {header['message']}"))
        return b""

    def abort(self, group, instance, error):
        """Mark a collective as failed: its receives raise ``error`` instead of waiting (and its messages go)."""
        with self._arrived:
            self._aborted.setdefault((group, instance), error)
            for key in [k for k in self._messages if k[0] == group and k[1] == instance]:
                del self._messages[key]
            self._arrived.notify_all()

    def take(self, key, wait_s):
        """The message with ``key``, waiting at most ``wait_s`` seconds; None if it has not arrived.

        Raises the error of a member that aborted the collective (:meth:`abort`).
        """
        deadline = time.monotonic() + wait_s
        with self._arrived:
            while key not in self._messages:
                aborted = self._aborted.get(key[:2])
                if aborted is not None:
                    raise type(aborted)(None, None, aborted.message)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._arrived.wait(left)
            return self._messages.pop(key)

    def discard(self, group, instance):
        """Drop what is left of one collective (after it failed): late messages must not pile up."""
        with self._arrived:
            for key in [k for k in self._messages if k[0] == group and k[1] == instance]:
                del self._messages[key]

    def pending(self):
        """How many messages wait in the mailbox (0 between collectives, when every task agrees)."""
        with self._arrived:
            return len(self._messages)


def service_for(server):
    """The collective service of ``server`` (installed on first use)."""
    return server.service("Collective", CollectiveService)


class CollectiveGroup:
    """One task's view of the tasks that run collectives together.

    ``server``: this task's ``Server``; ``members``: ``[(task_type, task_id, address)]``
    in rank order; ``rank``: this task's position in ``members``.
    """

    def __init__(self, server, members, rank, timeout=None, connect_timeout=120.0, health_interval=2.0):
        self.server = server
        self.members = [(t, int(i), a) for t, i, a in members]
        self.rank = int(rank)
        self.size = len(self.members)
        if not 0 <= self.rank < self.size:
            raise ValueError(f"rank {rank} is not a position in a group of {self.size} tasks")
        self.names = [task_name(t, i).replace("/replica:0", "") for t, i, _ in self.members]
        self.key = hashlib.sha1(repr([(t, i) for t, i, _ in self.members]).encode()).hexdigest()[:12]
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.health_interval = health_interval
        self.service = service_for(server)
        self._instance = 0
        self._missed = {}            # rank -> pings in a row that timed out
        self._lock = threading.Lock()
        self._connected = self.size == 1

    @property
    def name(self):
        return self.names[self.rank]

    def next_instance(self):
        """A new instance key: the n-th collective of this group (the same n on every member)."""
        with self._lock:
            self._instance += 1
            return self._instance

    def address(self, rank):
        return self.members[rank][2]

    # --- point to point -----------------------------------------------------------------------------
    def send(self, dst, instance, tag, payload, header=None):
        """Send ``payload`` (bytes or an array) to member ``dst``; a pending call (``.result()`` waits for the ack).

        Returns ``(pending, wire_bytes)``: the message's length is what travels.
        """
        head = {"group": self.key, "instance": instance, "tag": tag, "src": self.rank, "sent_at": time.time()}
        head.update(header or {})
        message = rpc.pack(head, payload)
        pending = rpc.call_async(self.address(dst), SEND, message, timeout=self.connect_timeout,
                                 wait_for_ready=True)
        return pending, len(message)

    def recv(self, src, instance, tag):
        """The ``(header, payload, arrival time)`` of the message member ``src`` sends with ``tag``.

        Waits as long as ``src`` answers pings (``UnavailableError`` when it stops),
        at most ``timeout`` seconds when the group has one (``DeadlineExceededError``).
        """
        key = (self.key, instance, tag, src)
        start = time.monotonic()
        while True:
            wait = self.health_interval
            if self.timeout is not None:
                wait = min(wait, self.timeout - (time.monotonic() - start))
            found = self.service.take(key, max(wait, 0.0))
            if found is not None:
                return found
            if self.timeout is not None and time.monotonic() - start >= self.timeout:
                self.service.discard(self.key, instance)
                raise errors.DeadlineExceededError(
                    None, None, f"Collective ops timed out after {self.timeout} s: {self.name} waited for {tag!r} "
                                f"of collective instance {instance} from {self.names[src]}.")
            self._check_alive(src, instance)

    def _check_alive(self, rank, instance):
        """Raise ``UnavailableError`` if member ``rank`` is gone: nothing listens there, or 3 pings in a row time out.

        (A ping that times out may only mean a busy peer: TF's health check also
        retries before it declares a peer dead.)
        """
        try:
            rpc.call(self.address(rank), PING, b"", timeout=max(self.health_interval, 1.0), wait_for_ready=False)
            self._missed[rank] = 0
            return
        except errors.DeadlineExceededError as error:
            self._missed[rank] = self._missed.get(rank, 0) + 1
            if self._missed[rank] < 3:
                return
            reason = f"{self._missed[rank]} pings in a row timed out: {error.message}"
        except errors.UnavailableError as error:
            reason = error.message
        self.service.discard(self.key, instance)
        raise errors.UnavailableError(
            None, None, f"Collective ops is aborted by: {self.names[rank]} at {self.address(rank)} is "
                        f"unavailable ({reason}). The peer may have exited or crashed.")

    def abort(self, instance, error):
        """This task failed in collective ``instance``: tell every other member, so none waits for us forever.

        Their receives of that instance raise the same error class, "Collective ops
        is aborted by: <this task>: <message>" (best effort: a member that cannot be
        reached is skipped).
        """
        self.service.abort(self.key, instance, error)
        message = rpc.pack({"group": self.key, "instance": instance, "task": self.name,
                            "error": type(error).__name__ if isinstance(error, errors.OpError) else "UnknownError",
                            "message": getattr(error, "message", None) or str(error)})
        pending = [rpc.call_async(self.address(r), ABORT, message, timeout=2.0, wait_for_ready=False)
                   for r in range(self.size) if r != self.rank]
        for p in pending:
            try:
                p.result()
            except errors.OpError:
                pass

    def connect(self):
        """Wait until every member's server answers (``UnavailableError`` after ``connect_timeout``)."""
        if self._connected:
            return
        deadline = time.monotonic() + self.connect_timeout
        for rank in range(self.size):
            if rank == self.rank:
                continue
            while True:
                try:
                    rpc.call(self.address(rank), PING, b"", timeout=max(1.0, min(5.0, deadline - time.monotonic())),
                             wait_for_ready=True)
                    break
                except (errors.UnavailableError, errors.DeadlineExceededError) as error:
                    if time.monotonic() >= deadline:
                        raise errors.UnavailableError(
                            None, None, f"{self.name} could not reach {self.names[rank]} at {self.address(rank)} "
                                        f"within {self.connect_timeout} s ({error.message}).") from None
        self._connected = True

    def __repr__(self):
        return f"<CollectiveGroup {self.key}: {self.name}, rank {self.rank} of {self.size}>"


def task_server(cluster_spec, task_type, task_id):
    """This process's server for its task: the running one if the process has it, else a new one (started)."""
    server = find_server(cluster_spec, task_type, task_id)
    return server if server is not None else Server(cluster_spec, job_name=task_type, task_index=task_id)


def group_from_cluster_resolver(cluster_resolver=None, **options):
    """The collective group of the training tasks (chief, then workers) as this task sees it.

    ``cluster_resolver``: default ``TFConfigClusterResolver()`` (``TF_CONFIG``);
    it is checked as ``MultiWorkerMirroredStrategy`` checks it (TF's errors). This
    task's server is started if the process has none. ``options``: ``timeout``,
    ``connect_timeout``, ``health_interval`` of :class:`CollectiveGroup`.
    """
    resolver = cluster_resolver if cluster_resolver is not None else TFConfigClusterResolver()
    cluster_spec, task_type, task_id, rank, _, _ = resolve_multi_worker_task(resolver)
    server = task_server(cluster_spec, task_type, task_id)
    members = [(t, i, cluster_spec.task_address(t, i)) for t, i in collective_tasks(cluster_spec)]
    return CollectiveGroup(server, members, rank, **options)
