"""The transport between processes: gRPC calls that carry bytes, and the engine's message format.

Every task of a cluster runs one gRPC server (``server_lib.Server``) on its
``host:port``; the other tasks call its methods. TF's servers speak gRPC with
protocol buffers (``WorkerService``, ``CollectiveService``...). The engine
speaks gRPC too (the ``grpcio`` package), with one simplification: a request
and a response are plain bytes, in one format of our own::

    4 bytes: n, the length of the header (big-endian)
    n bytes: the header, a JSON object (what the message is: keys, dtype, shape...)
    the rest: the payload, raw bytes (an array's memory, ``array.tobytes()``)

so a float32 chunk of 1000 values is 4000 payload bytes plus a short header,
and the bytes a collective puts "on the wire" are exactly ``len(message)``
(gRPC adds its HTTP/2 frame headers, a few bytes per message, not counted).

Methods are named ``/engine.distribute.<Service>/<Method>`` and served by
:class:`RpcServer`, which looks each method up in its own table at call time,
so services can be added to a server that already runs. A handler is
``fn(request: bytes) -> bytes``; an engine error it raises (``tf.errors.*``)
reaches the caller as the same class (its gRPC status code says which).

Clients: :func:`call` and :func:`call_async` send a request to an address
through one cached channel per address (``call_async`` from a pool of
sender threads, so a task can send and receive at the same time). ``wait_for_ready=True`` waits for a
server that is not up yet (a peer still starting) instead of failing at once;
a deadline (``timeout``) bounds the wait. gRPC failures become engine errors:
``UNAVAILABLE`` (no server there, or it died) is ``tf.errors.UnavailableError``,
``DEADLINE_EXCEEDED`` is ``tf.errors.DeadlineExceededError``, and so on.

``grpcio`` is imported when the first server or channel is made, so
``import engine`` does not pay for it.
"""
import json
import os
import struct
import threading

import numpy as np

from ..framework import errors

__all__ = ["RpcServer", "call", "call_async", "pack", "unpack", "method_name", "bind_address", "close_channels"]

_HEADER = struct.Struct("!I")
_MAX_MESSAGE = 1 << 30   # 1 GiB: large buffers go in chunks anyway; gRPC's default limit is 4 MiB
_OPTIONS = [("grpc.max_send_message_length", _MAX_MESSAGE), ("grpc.max_receive_message_length", _MAX_MESSAGE)]
# TF's servers refuse a port another process holds (TF disables SO_REUSEPORT): so do we
_SERVER_OPTIONS = _OPTIONS + [("grpc.so_reuseport", 0)]
_LOOPBACK = ("localhost", "127.0.0.1", "::1", "[::1]", "ip6-localhost")


def _grpc():
    # gRPC's core logs each connection closed by a stopped server (INFO "Got goaway"): errors only, unless asked
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    try:
        import grpc
    except ImportError as error:   # pragma: no cover  (grpcio is a dependency of the project)
        raise ImportError("tf.distribute's servers need the grpcio package: pip install grpcio") from error
    return grpc


def method_name(service, method):
    """``/engine.distribute.Collective/Send``: the full gRPC method name."""
    return f"/engine.distribute.{service}/{method}"


# --------------------------------------------------------------------------------------
# The message format
# --------------------------------------------------------------------------------------
def pack(header, payload=b""):
    """``header`` (a JSON-able dict) and ``payload`` (bytes, or an array: its memory) -> one message."""
    head = json.dumps(header, separators=(",", ":")).encode()
    if not isinstance(payload, (bytes, bytearray, memoryview)):
        payload = payload.tobytes()
    return b"".join((_HEADER.pack(len(head)), head, payload))


def unpack(message):
    """One message -> ``(header dict, payload memoryview)`` (the payload is not copied)."""
    view = memoryview(message)
    (n,) = _HEADER.unpack_from(view)
    header = json.loads(bytes(view[_HEADER.size:_HEADER.size + n]))
    return header, view[_HEADER.size + n:]


# --------------------------------------------------------------------------------------
# Errors: gRPC status codes <-> engine error classes
# --------------------------------------------------------------------------------------
def _code_to_error():
    grpc = _grpc()
    c = grpc.StatusCode
    return {c.CANCELLED: errors.CancelledError, c.INVALID_ARGUMENT: errors.InvalidArgumentError,
            c.DEADLINE_EXCEEDED: errors.DeadlineExceededError, c.NOT_FOUND: errors.NotFoundError,
            c.ALREADY_EXISTS: errors.AlreadyExistsError, c.PERMISSION_DENIED: errors.PermissionDeniedError,
            c.RESOURCE_EXHAUSTED: errors.ResourceExhaustedError,
            c.FAILED_PRECONDITION: errors.FailedPreconditionError, c.ABORTED: errors.AbortedError,
            c.OUT_OF_RANGE: errors.OutOfRangeError, c.UNIMPLEMENTED: errors.UnimplementedError,
            c.INTERNAL: errors.InternalError, c.UNAVAILABLE: errors.UnavailableError,
            c.DATA_LOSS: errors.DataLossError, c.UNAUTHENTICATED: errors.UnauthenticatedError}


def _as_engine_error(rpc_error, address, method):
    """A ``grpc.RpcError`` -> the engine error of its status code, saying which call failed."""
    cls = _code_to_error().get(rpc_error.code(), errors.UnknownError)
    return cls(None, None, f"{rpc_error.details()} (calling {method} on {address})")


def _status_of(error):
    grpc = _grpc()
    for code, cls in _code_to_error().items():
        if type(error) is cls:
            return code
    return grpc.StatusCode.UNKNOWN


# --------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------
def bind_address(address):
    """Where a task whose address is ``address`` listens: loopback names on 127.0.0.1, others on every interface.

    TF listens on every interface (``0.0.0.0:port``). The engine does too, except
    for a cluster on ``localhost``/``127.0.0.1``, which then cannot be reached from
    other machines (a course machine shared by many users).
    """
    host, _, port = str(address).rpartition(":")
    if not port.isdigit():
        raise errors.InvalidArgumentError(None, None, f"Could not parse the address {address!r} as host:port")
    if host in _LOOPBACK:
        return f"{'[::1]' if host in ('::1', '[::1]') else '127.0.0.1'}:{port}"
    return f"[::]:{port}"


class RpcServer:
    """A gRPC server whose methods are looked up, at each call, in ``self.methods`` (``name -> fn(bytes) -> bytes``)."""

    def __init__(self, address, max_workers=16):
        from concurrent import futures
        grpc = _grpc()
        self.methods = {}
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers,
                                                              thread_name_prefix="engine-rpc"),
                                   handlers=(self._handler(grpc),), options=_SERVER_OPTIONS)
        try:
            self.port = self._server.add_insecure_port(bind_address(address))
        except RuntimeError:
            self.port = 0
        if not self.port:
            self._server.stop(None)
            raise errors.UnknownError(None, None, "Could not start gRPC server")
        self.started = False
        self.stopped = False

    def _handler(self, grpc):
        server = self

        class Handler(grpc.GenericRpcHandler):
            def service(self, call_details):
                fn = server.methods.get(call_details.method)
                if fn is None:
                    return None     # gRPC answers UNIMPLEMENTED
                return grpc.unary_unary_rpc_method_handler(_serve(fn))
        return Handler()

    def register(self, method, fn):
        """Serve ``method`` (a full name, :func:`method_name`) with ``fn(request bytes) -> response bytes``."""
        self.methods[method] = fn

    def start(self):
        if self.stopped:
            raise errors.FailedPreconditionError(None, None, "This server was stopped; it cannot start again.")
        if not self.started:
            self._server.start()
            self.started = True

    def stop(self, grace=None):
        """Stop serving (calls in flight are cancelled after ``grace`` seconds); the port is free again."""
        if not self.stopped:
            self.stopped = True
            self._server.stop(grace).wait()

    def wait(self, timeout=None):
        """Block until the server stops (or ``timeout`` seconds pass); True if it stopped."""
        if not self.started:
            return self.stopped
        return not self._server.wait_for_termination(timeout)   # (gRPC returns True when it timed out)


def _serve(fn):
    def handle(request, context):
        try:
            return fn(request)
        except errors.OpError as error:
            context.abort(_status_of(error), error.message)
    return handle


# --------------------------------------------------------------------------------------
# The clients
# --------------------------------------------------------------------------------------
_channels = {}
_channels_lock = threading.Lock()


def _channel(address):
    with _channels_lock:
        channel = _channels.get(address)
        if channel is None:
            channel = _channels[address] = _grpc().insecure_channel(address, options=_OPTIONS)
        return channel


def close_channels():
    """Close every cached channel (their sockets); the next call opens a new one."""
    with _channels_lock:
        channels = list(_channels.values())
        _channels.clear()
    for channel in channels:
        channel.close()


class _Pending:
    """A call in flight: ``result()`` waits for the response bytes, or raises the engine error."""

    def __init__(self, future, address, method):
        self._future, self._address, self._method = future, address, method

    def result(self):
        try:
            return self._future.result()
        except _grpc().RpcError as error:
            raise _as_engine_error(error, self._address, self._method) from None

    def done(self):
        return self._future.done()

    def cancel(self):
        """Drop the call if it has not started; a call already in flight ends at its deadline."""
        return self._future.cancel()


_senders = []
_senders_lock = threading.Lock()


def _sender_pool():
    """The threads that make the asynchronous calls (each a blocking gRPC call).

    gRPC's own ``future()`` starts a thread per call on an idle channel; a pool of
    threads kept for the process's lifetime costs a hand-off instead.
    """
    with _senders_lock:
        if not _senders:
            from concurrent import futures
            _senders.append(futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="engine-rpc-send"))
        return _senders[0]


def call_async(address, method, request, timeout=None, wait_for_ready=True):
    """Send ``request`` (bytes) to ``method`` of the server at ``address``; a pending call (``.result()``)."""
    stub = _channel(address).unary_unary(method)
    future = _sender_pool().submit(stub, request, timeout=timeout, wait_for_ready=wait_for_ready)
    return _Pending(future, address, method)


def call(address, method, request, timeout=None, wait_for_ready=True):
    """Send ``request`` and wait for the response bytes (engine errors for gRPC failures)."""
    try:
        return _channel(address).unary_unary(method)(request, timeout=timeout, wait_for_ready=wait_for_ready)
    except _grpc().RpcError as error:
        raise _as_engine_error(error, address, method) from None


# --------------------------------------------------------------------------------------
# Several arrays in one message
# --------------------------------------------------------------------------------------
def pack_arrays(header, arrays):
    """A message carrying ``arrays`` (NumPy arrays, or scalars) one after the other in the payload.

    ``header["arrays"]`` says how to cut them apart again: each one's dtype (NumPy's
    ``dtype.str``, so byte order travels too), shape and byte count.
    """
    arrays = [np.asarray(a) for a in arrays]
    arrays = [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in arrays]
    for a in arrays:
        if a.dtype.hasobject:
            raise errors.UnimplementedError(None, None, "Tensors of dtype string cannot be sent to another task "
                                                        "by this engine; send numbers.")
    header = dict(header, arrays=[[a.dtype.str, list(a.shape), a.nbytes] for a in arrays])
    return pack(header, b"".join(a.tobytes() for a in arrays))


def unpack_arrays(message):
    """``(header, [arrays])`` from a :func:`pack_arrays` message (each array a read-only view of it)."""
    header, payload = unpack(message)
    arrays, offset = [], 0
    for dtype, shape, nbytes in header.get("arrays", ()):
        arrays.append(np.frombuffer(payload[offset:offset + nbytes], dtype=np.dtype(dtype)).reshape(shape))
        offset += nbytes
    return header, arrays


def forget_channel(address):
    """Close the cached channel to ``address``: the next call connects afresh (to a restarted server,
    without waiting out gRPC's reconnection back-off)."""
    with _channels_lock:
        channel = _channels.pop(address, None)
    if channel is not None:
        channel.close()
