"""The sandboxed side of grading: run a student's notebook code and *produce outputs*, nothing more.

This file is copied, with a pristine engine, into a private directory and run there as
``python -S worker.py --serve`` (see ``sandbox.py``): it imports NumPy and the engine
once, then forks one child per submission, which runs ``main`` in the submission's own
temporary directory. (``python -S worker.py plan.json results.jsonl`` runs one plan
directly, without forking: handy when debugging the harness.) It imports only
NumPy and a pristine copy of ``engine``. It never sees expected values, scores,
solutions or the gradebook: it receives generated *inputs* (the plan), runs the
student's functions on them, and writes their *outputs* as JSON lines. The grader
process compares them with values it computed itself (``assignments/<name>.py``), so
nothing the student's code does in here (monkeypatching ``np.allclose``, say) can change
a grade.

Event lines: ``cell_start``/``cell_end`` around each notebook cell, ``task_start`` and
``task`` (with outputs) around each task. If the process dies, the grader knows which
item killed it from the last ``*_start`` line, skips it, and runs the rest again.

What runs per task is the assignment's *harness*, ``harness/<name>.py`` (copied beside
this file; the plan names it): this file is the same for every assignment.
"""
import json
import os
import sys

# --------------------------------------------------------------------------------------------
_FRESH_USER_NAMESPACE = False  # set in a child that entered a user namespace of its own


def _limit_resources(plan, scratch_mb=0):
    import resource
    mb = plan.get("memory_mb", 2048) - scratch_mb
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
            limit = plan.get("processes", 8)   # threads count: tf.distribute runs a thread per replica
        else:
            uid = os.getuid()
            # (the kernel counts threads, not processes: a thread-heavy harness needs room for its threads)
            limit = sum(_threads(p) for p in os.listdir("/proc") if p.isdigit() and _owner(p) == uid) \
                + plan.get("processes", 8) // 2
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
    except (ValueError, OSError):
        pass


def _threads(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 1


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
    """The zygote. First moves into its private root (``jail.py``) where the grader asked for
    namespaces, and says ``ready <isolation>`` (or ``refused <why>``); then reads box paths from
    stdin and, for each, forks a child and reports ``pid <pid>`` then ``exit <pid> <wait status>``."""
    import ctypes
    import signal
    config = json.loads(os.environ.pop("GRADER_SANDBOX", "{}"))
    out = sys.stdout
    isolation = "basic"
    if config.get("namespaces"):
        import jail
        try:
            jail.enter_private_root(config["root"], config["read_only"], config["sandbox"], config["boxes"],
                                    config.get("masks", ()))
            isolation = "namespaces"
            # the engine copy is at /sandbox now; the Python installation is where it was
            sys.path[:] = ["/sandbox" if p in ("", config["sandbox"]) else p for p in sys.path]
        except OSError as error:
            if config.get("require"):
                out.write(f"refused {error}\n")
                out.flush()
                os._exit(3)
    else:
        _drop_privileges()
    import engine  # noqa: F401 - imported once here, inherited by every child
    import engine.eager.tape  # noqa: F401
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # children may not trace this process or read its memory
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # it dies with the grader
    out.write(f"ready {isolation}\n")
    out.flush()
    for line in sys.stdin:
        box = line.strip()
        if not box:
            continue
        pid = os.fork()
        if pid == 0:
            _child(box, libc, config if isolation == "namespaces" else None)  # never returns
        out.write(f"pid {pid}\n")
        out.flush()
        _, status = os.waitpid(pid, 0)
        out.write(f"exit {pid} {status}\n")
        out.flush()


def _child(box, libc, jailed):
    """In the forked child: a new session, no inherited pipes, then its own namespaces (``jail.enter_box``:
    own PID 1, /proc, /tmp, /dev/shm, the box read-only at /io, no privilege left); run the plan; never
    return. Without namespaces (``jailed`` is None): the box is the working folder, and where the
    kernel allows, the child still gets a user and PID namespace of its own."""
    global _FRESH_USER_NAMESPACE
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1):  # the zygote's protocol pipes are not the student's
            os.dup2(null, fd)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if jailed is not None:
            import jail
            results, _FRESH_USER_NAMESPACE = jail.enter_box(os.path.basename(box), jailed["tmp_mb"], jailed["shm_mb"])
            os.environ["HOME"] = "/tmp"
            main("/io/plan.json", results, io="/io", scratch_mb=jailed["tmp_mb"] + jailed["shm_mb"])
        os.chdir(box)
        os.environ["HOME"] = box
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


def main(plan_path, results, io=".", scratch_mb=0):
    """Run the plan at ``plan_path``; events go to ``results`` (a path, or an open file descriptor).
    ``io``: where the grader's later files (``inject.json``) appear. ``scratch_mb``: the private
    /tmp and /dev/shm, which count against the plan's memory limit."""
    with open(plan_path) as f:
        plan = json.load(f)
    try:
        os.remove(plan_path)  # the plan (generated inputs) is not left lying around for student code
    except OSError:
        pass  # read-only at /io: the grader removes it once the child reports
    out = open(results, "a", buffering=1) if isinstance(results, str) else os.fdopen(results, "a", buffering=1)

    def emit(**event):
        out.write(json.dumps(event) + "\n")
        out.flush()

    _limit_resources(plan, scratch_mb)
    # The student's prints and warnings go to files: stderr never costs points.
    for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(f, fd)
        os.close(f)
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)

    import importlib
    import engine as tf
    from engine.framework.context import ctx

    # The assignment's harness (``harness/<name>.py``, copied beside this file): what to run per task.
    harness = importlib.import_module("harness." + plan["harness"])
    state = {}   # the harness's own, kept across the plan (A5 keeps its strategy there)
    if hasattr(harness, "setup"):
        harness.setup(tf, state)

    ns = {"__name__": "__main__"}
    ns["get_ipython"] = _Shell(ns).get_ipython
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
        if task.get("staged"):  # reference pieces of the earlier tasks, asked for now that those are graded
            emit(event="inject_request", task=name)
            for src in _receive_injection(name, io):
                exec(compile(src, "<reference>", "exec"), ns)
        if name in skip_tasks:
            continue
        emit(event="task_start", task=name)
        outputs = []
        for case in task["cases"]:
            try:
                outputs.append(harness.HARNESS[name](tf, ctx, ns, case, state))
            except BaseException as exc:  # noqa: BLE001 - one failing case costs only that case
                outputs.append("error:" + f"{type(exc).__name__}: {exc}"[:300])
        emit(event="task", task=name, outputs=outputs, error=None)
    emit(event="done")
    out.close()
    os._exit(0)


class _Shell:
    """What a notebook's magics reach (the grader turned ``%%time`` into ``get_ipython().run_cell_magic``):
    a cell magic runs its cell once, as plain Python; line magics and shell commands do nothing."""

    def __init__(self, ns):
        self.ns = ns

    def get_ipython(self):
        return self

    def run_cell_magic(self, name, line, cell):
        if name == "writefile":
            with open(line.split()[-1], "w") as f:
                f.write(cell)
            return None
        exec(compile(cell, f"<%%{name} cell>", "exec"), self.ns)
        return None

    def run_line_magic(self, name, line):
        return None

    def system(self, command):
        return None

    getoutput = system


def _receive_injection(task, io, timeout=20.0):
    """The reference sources the grader writes into ``inject.json`` once it has the earlier tasks' outputs."""
    import time
    path = os.path.join(io, "inject.json")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            time.sleep(0.002)
            continue
        if isinstance(data, dict) and data.get("task") == task:
            return [s for s in data.get("sources", []) if isinstance(s, str)]
        time.sleep(0.002)  # still the previous task's file
    return []


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
