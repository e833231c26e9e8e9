"""How ``strategy.run(fn)`` runs ``fn`` on every replica: one thread per device.

This is TF's ``mirrored_run`` design, small enough to read in one sitting.

**Threads.** Each replica gets a thread (kept for the strategy's lifetime and
reused by every ``run``). The engine keeps its state *per
thread* (``engine.framework.context.ctx``: device scope, gradient tapes, graph,
replica context), so each replica thread sets its own device (``tf.device``),
its own ``ReplicaContext`` and starts with no tapes: a ``GradientTape`` opened
by replica 1 only sees replica 1's ops. On logical CPU devices every replica
computes with NumPy, which releases the GIL inside its kernels, so replicas do
overlap; on GPUs each replica thread issues CuPy kernels on its own stream.

**Synchronization points.** A replica runs freely until it calls a collective
(``all_reduce``, ``all_gather``, ``merge_call``, or creates a variable). There
it *pauses*: it leaves a request and waits. The caller's thread is the
*coordinator*: it waits until every replica has paused (or finished), checks
that they all asked for the same thing, performs the collective once for all
of them (cross-replica context, in its own thread), hands each replica its
result, and resumes them all. Hence:

* results are deterministic: collectives always combine the replicas in replica
  order, whatever order the threads arrive in;
* an exception in one replica cannot deadlock the others: the coordinator sees
  the failed replica finish, wakes every paused replica with an *abort* (they
  unwind with an internal ``BaseException``), and re-raises the replica's error;
* replicas that disagree (one finished, another waits in ``all_reduce``) raise
  ``RuntimeError`` instead of hanging.

**Inside ``tf.function``** (the caller is tracing a graph), the replicas run
*one at a time*, in replica order, each up to its next synchronization point
(``lockstep``): graph building is not thread-safe, and this order makes the
graph deterministic. Each replica traces ``fn`` into the same graph with its own
device scope (and a ``replica_<i>/`` name scope), so the function is traced once
per replica, as TF does. An all-reduce becomes one ``MirroredAllReduce`` node
with N inputs and N outputs (``collective_ops.py``) whose kernel runs the
strategy's cross-device algorithm when the graph runs. (The engine's graph
executor then runs the replicas' ops one after the other, in one thread; TF's
executor would run independent ops in parallel.)

With a single replica (``OneDeviceStrategy``, or one device), ``fn`` runs in
the caller's thread and collectives complete immediately.
"""
import threading
import weakref

from ..framework.context import ctx
from ..framework.device import device as device_scope
from ..framework.graph import _default_graph_stack
from ..ops import array_ops
from . import collective_ops
from .replica_context import ReplicaContext, cross_replica_context
from .values import regroup, select_replica

__all__ = ["call_for_each_replica", "handle_sync"]


class _Aborted(BaseException):
    """Raised inside a paused replica to unwind it when another replica failed (not an ``Exception``)."""


def call_for_each_replica(strategy, fn, args, kwargs):
    devices = strategy.extended._devices
    if len(devices) == 1:
        return _DirectRun(strategy, devices[0]).run(fn, args, kwargs)
    return _ThreadedRun(strategy, devices).run(fn, args, kwargs)


# --------------------------------------------------------------------------------------
# One replica: no threads
# --------------------------------------------------------------------------------------
class _DirectRun:
    """Run the only replica in the caller's thread; collectives complete at once."""

    def __init__(self, strategy, device):
        self._strategy = strategy
        self._device = device

    def run(self, fn, args, kwargs):
        saved = ctx.replica_context, ctx.device, ctx.strategy_stack
        ctx.replica_context = ReplicaContext(self._strategy, 0, self)
        ctx.device = self._device
        ctx.strategy_stack = _stack_with(saved[2], self._strategy)
        try:
            return fn(*select_replica(0, args), **select_replica(0, kwargs))
        finally:
            ctx.replica_context, ctx.device, ctx.strategy_stack = saved

    def sync(self, replica_id, kind, payload):
        saved_device = ctx.device
        ctx.device = None
        try:
            return handle_sync(self._strategy, kind, [payload])[0]
        finally:
            ctx.device = saved_device


def _stack_with(stack, strategy):
    stack = list(stack)
    if not stack or stack[-1] is not strategy:
        stack.append(strategy)
    return stack


# --------------------------------------------------------------------------------------
# N replicas: N threads and a coordinator
# --------------------------------------------------------------------------------------
class _Signal:
    """A one-shot wake-up: ``set()`` lets exactly one ``wait()`` through (a lock used as a semaphore).

    Cheaper than ``threading.Event``, and the hand-offs between the coordinator and
    the replicas alternate strictly, so every ``set`` meets exactly one ``wait``.
    """

    __slots__ = ("_lock",)

    def __init__(self):
        self._lock = threading.Lock()
        self._lock.acquire()

    def set(self):
        self._lock.release()

    def wait(self):
        self._lock.acquire()


class _ReplicaThread(threading.Thread):
    """One replica's thread. It runs only while ``should_run`` is set; it sets ``has_paused`` when it stops.

    The threads live as long as their strategy (a pool: starting N threads per
    ``run`` would cost more than a small step). Each ``run`` hands every thread a
    *job* (``fn`` and its arguments); between jobs a thread waits, with a clean context.
    """

    def __init__(self, replica_id, device):
        super().__init__(name=f"replica_{replica_id}", daemon=True)
        self.replica_id = replica_id
        self.device = device
        self.should_run = _Signal()
        self.has_paused = _Signal()
        self.job = None        # (coordinator, fn, args, kwargs); None tells the thread to exit
        self._gpu = None       # (cupy device context, this replica's stream) on GPUs
        self.reset()

    def reset(self):
        self.done = False
        self.abort = False
        self.result = None
        self.error = None
        self.request = None    # (kind, payload) while paused at a synchronization point
        self.response = None

    def run(self):
        while True:
            self.should_run.wait()
            if self.job is None:
                return
            coordinator, fn, args, kwargs = self.job
            try:
                if not self.abort:
                    self._enter_context(coordinator)
                    self.result = fn(*args, **kwargs)
            except _Aborted:
                pass
            except BaseException as error:  # noqa: B902  (re-raised by the coordinator)
                self.error = error
            finally:
                self._exit_context()
                self.job = None
                self.done = True
                self.has_paused.set()

    def _enter_context(self, coordinator):
        """Give this thread the caller's graph and scopes, plus its own device and replica context."""
        state = coordinator.caller_state
        _default_graph_stack()[:] = state["graph_stack"]
        ctx.graph = state["graph"]
        scope = state["name_scope"]
        if ctx.graph is not None and self.replica_id > 0:
            scope = f"{scope}replica_{self.replica_id}/"
        ctx.name_scope = scope
        ctx.strategy_stack = _stack_with(state["strategy_stack"], coordinator.strategy)
        ctx.device = self.device
        ctx.replica_context = ReplicaContext(coordinator.strategy, self.replica_id, coordinator)
        if self.device.backend != "numpy":  # CuPy: this GPU, and a stream of this replica's own
            self._gpu = (self.device.activate(), coordinator.strategy._stream(self.replica_id))
            for manager in self._gpu:
                manager.__enter__()

    def _exit_context(self):
        """Back to a clean thread: no graph, no tapes, no scopes."""
        for manager in reversed(self._gpu or ()):
            manager.__exit__(None, None, None)
        self._gpu = None
        _default_graph_stack()[:] = []
        ctx.graph, ctx.name_scope, ctx.device, ctx.replica_context = None, "", None, None
        ctx.strategy_stack, ctx.tapes, ctx.variable_watchers = [], [], []

    def sync(self, kind, payload):
        """Called on this thread by the replica context: pause until the coordinator answers."""
        if self._gpu is not None:  # the coordinator will read our arrays: finish our stream's work first
            self._gpu[1].synchronize()
        self.request = (kind, payload)
        self.has_paused.set()
        self.should_run.wait()
        if self.abort:
            raise _Aborted()
        response, self.response, self.request = self.response, None, None
        return response


class _ThreadPool:
    """A strategy's replica threads. ``acquire`` fails if a ``run`` is already using them."""

    def __init__(self, devices):
        self.threads = [_ReplicaThread(i, d) for i, d in enumerate(devices)]
        self.lock = threading.Lock()
        for t in self.threads:
            t.start()

    def acquire(self):
        return self.lock.acquire(blocking=False)

    def release(self):
        self.lock.release()

    def shutdown(self):
        for t in self.threads:
            t.job = None
            t.should_run.set()


def _pool_for(strategy):
    pool = getattr(strategy, "_replica_pool", None)
    if pool is None:
        pool = strategy._replica_pool = _ThreadPool(strategy.extended._devices)
        weakref.finalize(strategy, pool.shutdown)
    return pool


class _ThreadedRun:
    """The coordinator: hand the replica threads their job, serve their synchronization points, collect results."""

    def __init__(self, strategy, devices):
        self.strategy = strategy
        self.devices = devices
        self.threads = []
        self.caller_state = {"graph": ctx.graph, "graph_stack": list(_default_graph_stack()),
                             "name_scope": ctx.name_scope, "strategy_stack": list(ctx.strategy_stack)}
        self.lockstep = ctx.graph is not None   # tracing: one replica at a time (see the module docstring)

    def sync(self, replica_id, kind, payload):
        return self.threads[replica_id].sync(kind, payload)

    def run(self, fn, args, kwargs):
        pool = _pool_for(self.strategy)
        owned = pool.acquire()
        if not owned:  # the pool is busy (strategy.run called from a merge_call): use fresh threads
            pool = _ThreadPool(self.devices)
        self.threads = pool.threads
        for i, t in enumerate(self.threads):
            t.reset()
            t.job = (self, fn, select_replica(i, args), select_replica(i, kwargs))
        try:
            while True:
                self._resume_all()
                failed = [t for t in self.threads if t.error is not None]
                if failed:
                    raise failed[0].error
                if all(t.done for t in self.threads):
                    break
                self._check_agreement()
                kind = self.threads[0].request[0]
                responses = handle_sync(self.strategy, kind, [t.request[1] for t in self.threads])
                for t, response in zip(self.threads, responses):
                    t.response = response
            return regroup([t.result for t in self.threads])
        finally:
            self._stop_all()
            for t in self.threads:   # drop the references to this run's values
                t.reset()
            if owned:
                pool.release()
            else:
                pool.shutdown()

    def _resume_all(self):
        """Let every unfinished replica run to its next synchronization point (or to its end)."""
        active = [t for t in self.threads if not t.done]
        if self.lockstep:
            for t in active:
                t.should_run.set()
                t.has_paused.wait()
                if t.error is not None:
                    break  # do not trace the other replicas any further
            return
        for t in active:
            t.should_run.set()
        for t in active:
            t.has_paused.wait()

    def _check_agreement(self):
        if any(t.done for t in self.threads):
            raise RuntimeError("Some replicas made a different number of replica_context().merge_call() calls. "
                               "(Every replica must reach the same all_reduce/merge_call calls in the same order: "
                               + ", ".join(f"replica {t.replica_id} " + ("finished" if t.done else
                                           f"waits in {t.request[0]}") for t in self.threads) + ".)")
        kinds = [t.request[0] for t in self.threads]
        if len(set(kinds)) > 1:
            raise RuntimeError("The replicas reached different synchronization points: "
                               + ", ".join(f"replica {i} called {k}" for i, k in enumerate(kinds))
                               + ". Every replica must call the same collectives in the same order.")

    def _stop_all(self):
        """Wake every paused (or not yet started) replica with an abort; wait until each has stopped."""
        waiting = [t for t in self.threads if not t.done]
        for t in waiting:
            t.abort = True
            t.should_run.set()
        for t in waiting:
            t.has_paused.wait()


# --------------------------------------------------------------------------------------
# The collectives, run once for all replicas (cross-replica context)
# --------------------------------------------------------------------------------------
def handle_sync(strategy, kind, payloads):
    """Perform one synchronization point; return one response per replica, in replica order."""
    with cross_replica_context(strategy):
        if kind == "all_reduce":
            return _all_reduce(strategy, payloads)
        if kind == "all_gather":
            return _all_gather(strategy, payloads)
        if kind == "merge_call":
            merge_fn = payloads[0][0]
            args = regroup([p[1] for p in payloads])
            kwargs = regroup([p[2] for p in payloads])
            result = merge_fn(strategy, *args, **kwargs)
            return [select_replica(i, result) for i in range(len(payloads))]
    raise ValueError(f"Unknown synchronization point {kind!r}")


def _check_same_values(what, per_replica):
    first = per_replica[0]
    for r, tensors in enumerate(per_replica[1:], start=1):
        if len(tensors) != len(first):
            raise ValueError(f"{what}: replica {r} passed {len(tensors)} values but replica 0 passed {len(first)}. "
                             f"Every replica must pass the same structure of values.")
        for k, (a, b) in enumerate(zip(first, tensors)):
            if a.dtype != b.dtype:
                raise ValueError(f"{what}: value #{k} has dtype {b.dtype.name} on replica {r} but "
                                 f"{a.dtype.name} on replica 0. Every replica must pass the same dtypes.")
            if what == "all_reduce" and not a.shape.is_compatible_with(b.shape):
                raise ValueError(f"all_reduce: value #{k} has shape {b.shape} on replica {r} but {a.shape} on "
                                 f"replica 0. Every replica must all-reduce tensors of the same shape.")


def _all_reduce(strategy, payloads):
    ops = {p[0] for p in payloads}
    if len(ops) > 1:
        raise ValueError(f"all_reduce: the replicas asked for different reductions: {sorted(o.value for o in ops)}")
    reduce_op = payloads[0][0]
    per_replica = [p[1] for p in payloads]
    _check_same_values("all_reduce", per_replica)
    if not per_replica[0]:
        return [[] for _ in payloads]
    devices = strategy.extended._devices
    if len(payloads) == 1 and devices[0] is None:  # the default strategy: nothing to combine
        return [list(per_replica[0])]
    return collective_ops.all_reduce_tensors(strategy.extended._cross_device_ops, reduce_op, devices, per_replica)


def _all_gather(strategy, payloads):
    axes = {p[0] for p in payloads}
    if len(axes) > 1:
        raise ValueError(f"all_gather: the replicas asked for different axes: {sorted(axes)}")
    axis = payloads[0][0]
    per_replica = [p[1] for p in payloads]
    _check_same_values("all_gather", per_replica)
    devices = strategy.extended._devices
    gathered = []
    for k in range(len(per_replica[0])):
        with device_scope(devices[0]):
            gathered.append(array_ops.concat([tensors[k] for tensors in per_replica], axis=axis))
    out = []
    for i, d in enumerate(devices):
        with device_scope(d):
            out.append([array_ops.identity(g) if i > 0 else g for g in gathered])
    return out
