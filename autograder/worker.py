"""The sandboxed side of grading: run a student's notebook code and *produce outputs*, nothing more.

This file is copied, with a pristine engine, into a private directory and run there as
``python -S worker.py --serve`` (see ``sandbox.py``): it imports NumPy and the engine
once, then forks one child per submission, which runs ``main`` in the submission's own
temporary directory. (``python -S worker.py plan.json results.jsonl`` runs one plan
directly, without forking: handy when debugging the harness.) It imports only
NumPy and a pristine copy of ``engine``. It never sees expected values, scores,
solutions or the gradebook: it receives generated *inputs* (the plan), runs the
student's functions on them, and writes their *outputs* as JSON lines. The grader
process compares them with values it computed itself (``a1.py``), so nothing the
student's code does in here (monkeypatching ``np.allclose``, say) can change a grade.

Event lines: ``cell_start``/``cell_end`` around each notebook cell, ``task_start`` and
``task`` (with outputs) around each task. If the process dies, the grader knows which
item killed it from the last ``*_start`` line, skips it, and runs the rest again.

The program interpreter and the task harnesses live here too, because the grader runs
the same code with the engine's own ``GradientTape`` to compute the expected values.
"""
import json
import os
import sys
import types

import numpy as np

# --------------------------------------------------------------------------------------------
# Programs: [["src", shape], ["const", shape], ["Mul", i, j], ["Sum", i, axis], ...]
# Tensor k is the output of instruction k. Values for src/const come in order.
# --------------------------------------------------------------------------------------------
BINARY = ("AddV2", "Sub", "Mul")
UNARY = ("Exp", "Relu", "Neg")


def run_program(tf, prog, values, watch):
    """Build the program's tensors; ``watch(t)`` is called for each source. Returns (tensors, sources)."""
    ts, srcs, k = [], [], 0
    for ins in prog:
        op = ins[0]
        if op in ("src", "const"):
            t = tf.constant(np.asarray(values[k], dtype=np.float64).reshape(ins[1]))
            k += 1
            if op == "src":
                watch(t)
                srcs.append(t)
        elif op == "AddV2":
            t = tf.add(ts[ins[1]], ts[ins[2]])
        elif op == "Sub":
            t = tf.subtract(ts[ins[1]], ts[ins[2]])
        elif op == "Mul":
            t = tf.multiply(ts[ins[1]], ts[ins[2]])
        elif op == "MatMul":
            t = tf.matmul(ts[ins[1]], ts[ins[2]])
        elif op == "Exp":
            t = tf.exp(ts[ins[1]])
        elif op == "Relu":
            t = tf.nn.relu(ts[ins[1]])
        elif op == "Neg":
            t = tf.negative(ts[ins[1]])
        elif op == "Sum":
            t = tf.reduce_sum(ts[ins[1]], axis=ins[2])
        else:
            raise ValueError(f"unknown instruction {op}")
        ts.append(t)
    return ts, srcs


def encode(x):
    """A tensor/array/None/str as JSON-able data."""
    if x is None:
        return None
    if isinstance(x, str):
        return x
    if hasattr(x, "numpy"):
        x = x.numpy()
    a = np.asarray(x, dtype=np.float64)
    return {"shape": list(a.shape), "data": [float(v) for v in a.ravel()]}


class HarnessTape:
    """The harness's own recorder (used where a task needs a recording it does not grade)."""

    watch_accessed_variables = True

    def __init__(self, make_entry):
        self.records, self.watched, self.make_entry = [], set(), make_entry

    def record_operation(self, op_def, inputs, attrs, outputs):
        if op_def.grad is not None and any(t._id in self.watched for t in inputs):
            self.records.append((op_def, self.make_entry(op_def.name, list(inputs), list(outputs), dict(attrs))))
            self.watched.update(o._id for o in outputs)

    def variable_accessed(self, v):
        self.watched.add(v._id)


def record_with(tf, ctx, prog, values, make_entry):
    tape = HarnessTape(make_entry)
    ctx.tapes.append(tape)
    try:
        ts, srcs = run_program(tf, prog, values, lambda t: tape.watched.add(t._id))
    finally:
        ctx.tapes.remove(tape)
    return tape.records, ts, srcs


# --------------------------------------------------------------------------------------------
# Task 6 scenarios: the same code runs with the student's tape and with tf.GradientTape.
# --------------------------------------------------------------------------------------------
def _try(f):
    try:
        return f()
    except Exception as exc:  # the class name is the observable behaviour
        return "error:" + type(exc).__name__


def scenario(tf, Tape, name, case):
    c = lambda v: tf.constant(np.asarray(v, dtype=np.float64))  # noqa: E731
    if name == "seed_cubic":
        v = tf.Variable(np.float64(case["x"]))
        with Tape() as t:
            y = v * v * v
        return [t.gradient(y, v)]
    if name == "watch_constant":
        x = c(case["x"])
        with Tape() as t:
            t.watch(x)
            y = tf.exp(x) * x
        return [t.gradient(y, x)]
    if name == "unwatched_constant":
        x = c(case["x"])
        with Tape() as t:
            y = x * x
        return [t.gradient(y, x)]
    if name == "persistent_twice":
        x = c(case["x"])
        with Tape(persistent=True) as t:
            t.watch(x)
            y = x * x
            z = tf.exp(y)
        return [t.gradient(y, x), t.gradient(z, x)]
    if name == "nonpersistent_twice":
        x = c(case["x"])
        with Tape() as t:
            t.watch(x)
            y = x * x
        first = t.gradient(y, x)
        return [first, _try(lambda: t.gradient(y, x))]
    if name == "list_sources":
        a, b = c(case["x"]), c(case["y"])
        with Tape() as t:
            t.watch(a)
            t.watch(b)
            y = tf.reduce_sum(a * b + a, axis=0)
        return list(t.gradient(y, [a, b]))
    if name == "unconnected":
        a, b = c(case["x"]), c(case["y"])
        with Tape() as t:
            t.watch(a)
            t.watch(b)
            y = a * a
        return list(t.gradient(y, [a, b]))
    if name == "no_auto_watch":
        v = tf.Variable(np.float64(case["x"]))
        w = tf.Variable(np.float64(case["y"]))
        with Tape(watch_accessed_variables=False) as t:
            t.watch(w)
            y = v * w
        return list(t.gradient(y, [v, w]))
    if name == "program":
        with Tape() as t:
            ts, srcs = run_program(tf, case["prog"], case["values"], t.watch)
        return list(t.gradient(ts[-1], srcs))
    raise ValueError(name)


# --------------------------------------------------------------------------------------------
# The harnesses: one per task, each returns a list of outputs (one per case).
# --------------------------------------------------------------------------------------------
def _prog_ids(ts, extra=()):
    return {t._id: i for i, t in enumerate(ts)}


def h_record(tf, ctx, ns, case, state):
    tape = ns["RecordingTape"]()
    with tape:
        ts, _ = run_program(tf, case["prog"], case["values"], lambda t: tape.watched.add(t._id))
    ids = _prog_ids(ts)
    return [[e.op_type, [ids.get(i, -1) for i in e.input_ids], [ids.get(i, -1) for i in e.output_ids]]
            for e in tape.entries]


def h_backward_order(tf, ctx, ns, case, state):
    entries = [types.SimpleNamespace(op_type=op, input_ids=list(i), output_ids=list(o), inputs=[], outputs=[],
                                     attrs={}) for op, i, o in case["entries"]]
    index = {id(e): k for k, e in enumerate(entries)}
    order = ns["backward_order"](list(entries), case["target"])
    return [index.get(id(e), -1) for e in order]


def h_backprop(tf, ctx, ns, case, state):
    from engine.eager.tape import RecordedOp
    records, ts, srcs = record_with(tf, ctx, case["prog"], case["values"], ns["Entry"])
    defs = {id(e): d for d, e in records}

    def vjp(e, dy):
        op = RecordedOp(defs[id(e)], e.op_type, e.inputs, e.outputs, e.attrs, e.input_ids, e.output_ids)
        state["harness"] = True
        try:
            return op.input_grads([dy])
        finally:
            state["harness"] = False

    order = [e for _, e in reversed(records)]
    target = ts[-1]
    grads = ns["backprop"](order, target._id, tf.ones_like(target), vjp)
    return [encode(grads.get(s._id)) for s in srcs]


def h_unbroadcast(tf, ctx, ns, case, state):
    g = tf.constant(np.asarray(case["grad"], dtype=np.float64).reshape(case["gshape"]))
    return encode(ns["unbroadcast"](g, tuple(case["shape"])))


def h_grads(tf, ctx, ns, case, state):
    records, ts, srcs = record_with(tf, ctx, case["prog"], case["values"], ns["Entry"])
    e = records[-1][1]
    dy = tf.constant(np.asarray(case["dy"], dtype=np.float64).reshape(case["dyshape"]))
    grads = ns["GRADS"][case["op"]](e, dy)
    return [encode(g) for g in list(grads)[:2]]


def h_tape(tf, ctx, ns, case, state):
    return [encode(r) for r in scenario(tf, ns["GradientTape"], case["name"], case)]


HARNESS = {"record": h_record, "backward_order": h_backward_order, "backprop": h_backprop,
           "unbroadcast": h_unbroadcast, "grads": h_grads, "tape": h_tape}


# --------------------------------------------------------------------------------------------
_FRESH_USER_NAMESPACE = False  # set in a child that entered a user namespace of its own


def _limit_resources(plan):
    import resource
    mb = plan.get("memory_mb", 2048)
    for what, value in ((resource.RLIMIT_AS, mb << 20), (resource.RLIMIT_CPU, plan.get("cpu_s", 60)),
                        (resource.RLIMIT_FSIZE, 64 << 20), (resource.RLIMIT_CORE, 0)):
        try:
            resource.setrlimit(what, (value, value))
        except (ValueError, OSError):
            pass
    # Processes. The kernel counts them per user *per user namespace*: in a fresh one only
    # this child's own count, else every process of this uid (plus a few for the student).
    try:
        if _FRESH_USER_NAMESPACE:
            limit = 8
        else:
            uid = os.getuid()
            limit = sum(1 for p in os.listdir("/proc") if p.isdigit() and _owner(p) == uid) + 4
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
    except (ValueError, OSError):
        pass


def _owner(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return -1


# --------------------------------------------------------------------------------------------
# Serving a batch: import once, fork a fresh child per submission
# --------------------------------------------------------------------------------------------
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38


def serve():
    """The zygote. Reads box paths from stdin; for each, forks a child and reports
    ``pid <pid>`` then ``exit <pid> <wait status>`` on stdout."""
    import ctypes
    import signal
    import engine  # noqa: F401 - imported once here, inherited by every child
    import engine.eager.tape  # noqa: F401
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # children may not trace this process or read its memory
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # it dies with the grader
    out = sys.stdout
    for line in sys.stdin:
        box = line.strip()
        if not box:
            continue
        pid = os.fork()
        if pid == 0:
            _child(box, libc)  # never returns
        out.write(f"pid {pid}\n")
        out.flush()
        _, status = os.waitpid(pid, 0)
        out.write(f"exit {pid} {status}\n")
        out.flush()


def _child(box, libc):
    """In the forked child: a new session, no inherited pipes, the box as home, then (where the
    kernel allows) a user namespace and a PID namespace of its own; run the plan; never return."""
    global _FRESH_USER_NAMESPACE
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1):  # the zygote's protocol pipes are not the student's
            os.dup2(null, fd)
        os.chdir(box)
        os.environ["HOME"] = box
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWPID) == 0:
            _FRESH_USER_NAMESPACE = True
            pid = os.fork()  # becomes PID 1 of the new namespace: when it ends, all it started dies
            if pid:
                _, status = os.waitpid(pid, 0)
                os._exit(os.waitstatus_to_exitcode(status) & 0x7F)
            # and it dies with this child, even if the student's code leaves the process group
            libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)
        main("plan.json", "results.jsonl")
    finally:
        os._exit(70)


def main(plan_path, results_path):
    with open(plan_path) as f:
        plan = json.load(f)
    os.remove(plan_path)  # the plan (generated inputs) is not left lying around for student code
    out = open(results_path, "a", buffering=1)

    def emit(**event):
        out.write(json.dumps(event) + "\n")
        out.flush()

    _limit_resources(plan)
    # The student's prints and warnings go to files: stderr never costs points.
    for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(f, fd)
        os.close(f)
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)

    import engine as tf
    from engine.framework.context import ctx
    from engine.framework import registry
    import engine.eager.tape as tape_mod

    # Tripwires: count uses of the engine's own autodiff by student code (the harness flags its own).
    state = {"harness": False, "trips": 0}
    real_imperative = tape_mod.imperative_grad

    def imperative_grad(*a, **k):
        if not state["harness"]:
            state["trips"] += 1
        return real_imperative(*a, **k)
    tape_mod.imperative_grad = imperative_grad
    for name in ("AddV2", "Sub", "Mul", "MatMul", "Exp", "Sum", "Relu", "Neg"):
        op_def = registry.get_op(name)
        real = op_def.grad

        def wrapped(*a, _real=real, **k):
            if not state["harness"]:
                state["trips"] += 1
            return _real(*a, **k)
        op_def.grad = wrapped

    ns = {"__name__": "__main__"}
    skip_cells = set(plan.get("skip_cells", []))
    for i, src in enumerate(plan["cells"]):
        if i in skip_cells:
            continue
        emit(event="cell_start", i=i)
        error = None
        try:
            exec(compile(src, f"<cell {i}>", "exec"), ns)
        except BaseException as exc:  # noqa: BLE001 - a cell may raise anything, even SystemExit
            error = f"{type(exc).__name__}: {exc}"[:300]
        emit(event="cell_end", i=i, error=error)

    skip_tasks = set(plan.get("skip_tasks", []))
    for task in plan["tasks"]:
        name = task["name"]
        for src in task.get("inject", []):  # reference pieces for the *other* tasks, after theirs ran
            exec(compile(src, "<reference>", "exec"), ns)
        if name in skip_tasks:
            continue
        emit(event="task_start", task=name)
        state["trips"] = 0
        outputs = []
        for case in task["cases"]:
            try:
                outputs.append(HARNESS[name](tf, ctx, ns, case, state))
            except BaseException as exc:  # noqa: BLE001 - one failing case costs only that case
                outputs.append("error:" + f"{type(exc).__name__}: {exc}"[:300])
        error = None
        emit(event="task", task=name, outputs=outputs, error=error, trips=state["trips"])
    emit(event="done")
    out.close()
    os._exit(0)


def _drop_privileges():
    """Started as root: become GRADER_WORKER_UID (``nobody``) for good, with no capabilities."""
    uid = os.environ.pop("GRADER_WORKER_UID", None)
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setgid(int(uid))
        os.setuid(int(uid))


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        _drop_privileges()
        serve()
    else:
        main(sys.argv[1], sys.argv[2])
