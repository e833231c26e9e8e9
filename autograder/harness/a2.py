"""A2's harness (sandbox side): build graph programs, run the student's executor pieces on them.

Runs inside the sandbox with the submission (see ``worker.py``), on an engine copy without the
reference executor (``assignments/a2.py``'s ``ABSENT``); imports only NumPy and the engine. The grader
process builds the very same graphs with :func:`build` (same program, same op names) and computes the
expected values with the engine's own ``Session.run`` and ``prune``.

A *program* is JSON: ``{"c": columns, "ins": [instruction, ...]}``. Each instruction appends graph
tensors to ``ts`` (indexed by position) or operations to ``ops``:

``["ph"]``                      a float32 placeholder of shape ``[None, c]`` (fed with 2 rows)
``["const", rows, values]``     a constant of shape ``(rows, c)``
``["var", values]``             a ``tf.Variable`` of shape ``(2, c)`` (a weight: read, never assigned)
``["counter", values]``         a ``tf.Variable`` of shape ``(2, c)`` that is only assigned to
``["bin", op, i, j]``           ``Add``/``Sub``/``Mul`` of ``ts[i]`` and ``ts[j]`` (broadcasting)
``["un", op, i]``               ``Neg``/``Relu``/``Tanh``/``Sigmoid``/``Square`` of ``ts[i]``
``["matmul", i, kind, values]`` ``ts[i] @ W``, ``W`` a ``(c, c)`` constant or variable (``kind``)
``["sum", i]``                  ``reduce_sum(ts[i], axis=1, keepdims=True)``
``["split", i]``                ``tf.split(ts[i], 2, axis=0)``: two tensors (one op with two outputs)
``["ctrl", i, "op"|"t", k]``    ``identity(ts[i])`` with a control dependency on ``ops[k]`` / ``ts[k].op``
``["assign", v, i]``            ``ts[v].assign_add(broadcast_to(ts[i], [2, c]), read_value=False)``: an op
``["group", [k, ...]]``         ``tf.group(ops[k], ...)``: an op with no outputs
``["read", v]``                 ``tf.identity(ts[v])``: the current value of a variable
``["grad", i, [j, ...]]``       ``tf.gradients(reduce_sum(ts[i]), [ts[j], ...])``: one tensor per ``j``
``["train", i, lr]``            ``loss = reduce_mean(square(ts[i]))`` (a tensor) and
                                ``GradientDescentOptimizer(lr).minimize(loss)`` (an op)

A *request* (``sess.run``): ``{"fetch": [i, ...], "targets": [k | "init", ...], "feed": [[i, shape, values],
...], "repeat": n, "session": s}``: ``repeat`` runs of the same request, in session number ``s``.
"""
import collections
import contextlib

import numpy as np

from .common import encode

UNCOUNTED = ("Const", "NoOp")       # kernels an executor may run or skip: not counted


class Built:
    """A program built into a fresh graph: ``graph``, ``ts`` (tensors, variables), ``ops``, ``init``."""

    def __init__(self, graph, ts, ops, init):
        self.graph, self.ts, self.ops, self.init = graph, ts, ops, init

    def tensor(self, i):
        """``ts[i]`` as a graph tensor (a variable: the tensor ``sess.run(variable)`` fetches)."""
        return self.graph.as_graph_element(self.ts[i])

    def target(self, k):
        return self.init if k == "init" else self.ops[k]


def build(tf, prog):
    v1 = tf.compat.v1
    c = int(prog["c"])
    g = tf.Graph()
    ts, ops = [], []
    unary = {"Neg": tf.negative, "Relu": tf.nn.relu, "Tanh": tf.tanh, "Sigmoid": tf.sigmoid, "Square": tf.square}
    binary = {"Add": tf.add, "Sub": tf.subtract, "Mul": tf.multiply}
    with g.as_default():
        for k, ins in enumerate(prog["ins"]):
            kind = ins[0]
            if kind == "ph":
                ts.append(v1.placeholder(tf.float32, [None, c], name=f"p{k}"))
            elif kind == "const":
                ts.append(tf.constant(np.asarray(ins[2], np.float32).reshape(ins[1], c)))
            elif kind in ("var", "counter"):
                ts.append(tf.Variable(np.asarray(ins[1], np.float32).reshape(2, c), name=f"{kind}{k}"))
            elif kind == "bin":
                ts.append(binary[ins[1]](ts[ins[2]], ts[ins[3]]))
            elif kind == "un":
                ts.append(unary[ins[1]](ts[ins[2]]))
            elif kind == "matmul":
                values = np.asarray(ins[3], np.float32).reshape(c, c)
                w = tf.Variable(values, name=f"w{k}") if ins[2] == "var" else tf.constant(values)
                ts.append(tf.matmul(ts[ins[1]], w))
            elif kind == "sum":
                ts.append(tf.reduce_sum(ts[ins[1]], axis=1, keepdims=True))
            elif kind == "split":
                ts.extend(tf.split(ts[ins[1]], 2, axis=0))
            elif kind == "ctrl":
                dep = ops[ins[3]] if ins[2] == "op" else ts[ins[3]].op
                with tf.control_dependencies([dep]):
                    ts.append(tf.identity(ts[ins[1]]))
            elif kind == "assign":
                value = tf.broadcast_to(ts[ins[2]], [2, c])
                ops.append(ts[ins[1]].assign_add(value, read_value=False))
            elif kind == "group":
                ops.append(tf.group(*[ops[j] for j in ins[1]]))
            elif kind == "read":
                ts.append(tf.identity(ts[ins[1]]))
            elif kind == "grad":
                ts.extend(tf.gradients(tf.reduce_sum(ts[ins[1]]), [ts[j] for j in ins[2]]))
            elif kind == "train":
                loss = tf.reduce_mean(tf.square(ts[ins[1]]))
                ts.append(loss)
                ops.append(v1.train.GradientDescentOptimizer(float(ins[2])).minimize(loss))
            else:
                raise ValueError(f"unknown instruction {kind!r}")
        init = v1.global_variables_initializer() if v1.global_variables() else None
    return Built(g, ts, ops, init)


def request_parts(built, req):
    """(fetch tensors, target ops, feed tensors, feed arrays) of request ``req``."""
    fetches = [built.tensor(i) for i in req.get("fetch", [])]
    targets = [built.target(k) for k in req.get("targets", [])]
    feeds = [built.tensor(i) for i, _, _ in req.get("feed", [])]
    arrays = [np.asarray(v, np.float32).reshape(shape) for _, shape, v in req.get("feed", [])]
    return fetches, targets, feeds, arrays


# --------------------------------------------------------------------------------------------
# Counting kernel calls (registry.override): which ops ran, and how often
# --------------------------------------------------------------------------------------------
@contextlib.contextmanager
def counting(graph, counts):
    """Count every kernel call of the graph's op types (but ``UNCOUNTED``) into ``counts`` (a Counter)."""
    from engine.framework.registry import get_op, override
    types = sorted({op.type for op in graph.get_operations()} - set(UNCOUNTED))
    with contextlib.ExitStack() as stack:
        for name in types:
            stack.enter_context(override(name, kernel=_counted(name, get_op(name).make_kernel, counts)))
        yield counts


def _counted(name, make, counts):
    def factory(xp):
        kernel = make(xp)

        def counted(*args, **kwargs):
            counts[name] += 1
            return kernel(*args, **kwargs)
        return counted
    return factory


def _error(exc):
    """``"error:Class: message"`` (the grader compares the class)."""
    return "error:" + f"{type(exc).__name__}: {exc}"[:200]


# --------------------------------------------------------------------------------------------
# The harnesses
# --------------------------------------------------------------------------------------------
def h_needed(tf, ctx, ns, case, state):
    """Task 1: the names of ``needed_ops(fetches, targets, feeds)`` per request (sorted, duplicates kept)."""
    built = build(tf, case["prog"])
    out = []
    for req in case["requests"]:
        fetches, targets, feeds, _ = request_parts(built, req)
        try:
            got = ns["needed_ops"](list(fetches), list(targets), list(feeds))
            out.append(sorted(str(op.name) for op in got))
        except Exception as exc:  # noqa: BLE001 - the class is the observable behaviour
            out.append(_error(exc))
    return out


class FakeOp:
    """A look-alike graph operation: ``name``, ``type``, ``inputs``, ``outputs``, ``control_inputs``, nothing else."""

    def __init__(self, name, type_, n_outputs):
        self.name, self.type = name, type_
        self.inputs, self.control_inputs = [], []
        self.outputs = [FakeTensor(self, i) for i in range(n_outputs)]

    def __repr__(self):
        return f"<op {self.name!r} type={self.type}>"


class FakeTensor:
    """A look-alike graph tensor: ``op``, ``value_index``, ``name``."""

    def __init__(self, op, index):
        self.op, self.value_index = op, index
        self.name = f"{op.name}:{index}"

    def __repr__(self):
        return f"<tensor {self.name!r}>"


def fake_ops(case):
    """The look-alike ops of a task-2 case: (all nodes, the ones handed to the student, in order)."""
    nodes = [FakeOp(n["name"], n["type"], n["outputs"]) for n in case["nodes"]]
    for op, n in zip(nodes, case["nodes"]):
        op.inputs = [nodes[j].outputs[k] for j, k in n["inputs"]]
        op.control_inputs = [nodes[j] for j in n["control"]]
    return nodes, [nodes[i] for i in case["given"]]


def h_order(tf, ctx, ns, case, state):
    """Task 2: the names of ``topological_order(ops)`` on look-alike ops handed over in random order."""
    _, given = fake_ops(case)
    got = ns["topological_order"](list(given))
    return [str(getattr(op, "name", repr(op))) for op in got]


def _runtime():
    from engine.client.session import _Runtime
    return _Runtime()


def h_execute(tf, ctx, ns, case, state):
    """Task 3: ``execute(order, values, runtime)`` with the reference pruning and order (injected)."""
    built = build(tf, case["prog"])
    runtimes = collections.defaultdict(_runtime)
    out = []
    for req in case["requests"]:
        fetches, targets, feeds, arrays = request_parts(built, req)
        counts = collections.Counter()
        runs = []
        try:
            order = ns["topological_order"](ns["needed_ops"](fetches, targets, feeds))
            with counting(built.graph, counts):
                for _ in range(req.get("repeat", 1)):
                    values = ns["execute"](list(order), dict(zip(feeds, arrays)), runtimes[req.get("session", 0)])
                    runs.append([encode(values[t]) for t in fetches])
            out.append({"runs": runs, "counts": dict(counts)})
        except Exception as exc:  # noqa: BLE001
            out.append(_error(exc))
    return out


def run_requests(tf, case, executor, count=True):
    """Run a case's requests through ``tf.compat.v1.Session`` s on ``executor`` (None: the reference)."""
    from engine import seams
    v1 = tf.compat.v1
    built = build(tf, case["prog"])
    sessions = {}
    out = []
    with seams.using(executor=executor):
        for req in case["requests"]:
            fetches, targets, feeds, arrays = request_parts(built, req)
            s = req.get("session", 0)
            if s not in sessions:
                sessions[s] = v1.Session(graph=built.graph)
            counts = collections.Counter()
            runs = []
            try:
                with counting(built.graph, counts) if count else contextlib.nullcontext():
                    for _ in range(req.get("repeat", 1)):
                        got = sessions[s].run(fetches + targets, dict(zip(feeds, arrays)))
                        if any(r is not None for r in got[len(fetches):]):
                            raise TypeError("sess.run gave a value for a target operation (it must be None)")
                        runs.append([encode(v) for v in got[:len(fetches)]])
                out.append({"runs": runs, "counts": dict(counts)})
            except Exception as exc:  # noqa: BLE001
                out.append(_error(exc))
    for sess in sessions.values():
        sess.close()
    return out


def h_executor(tf, ctx, ns, case, state):
    """Task 4: real ``Session.run`` calls on the student's ``Executor`` (through the ``executor`` seam)."""
    return run_requests(tf, case, ns["Executor"])


HARNESS = {"needed": h_needed, "order": h_order, "execute": h_execute, "executor": h_executor}
