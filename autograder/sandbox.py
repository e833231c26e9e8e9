"""Run a submission's code in a private, limited, disposable process; one warm worker per batch.

**Reuse.** Starting Python and importing NumPy and the engine costs about a quarter of a
second, and copying a pristine engine another third; a batch pays both once. A
:class:`WorkerPool` starts one *zygote* (``worker.py --serve``) that has imported
everything, and asks it to ``fork`` a fresh child for every submission (and for every
retry after a crash). A child starts in microseconds from the zygote's clean state, so
every submission sees exactly the same process, and one submission cannot leave anything
behind for the next: its child, and everything the child started, is gone before the
next one is forked.

Isolation, by construction (``jail.py`` builds it; each layer closes a hole that plain
nbgrader leaves open):

* **A machine with nothing on it.** The zygote takes private mount and network namespaces
  (an ordinary user first takes a user namespace, root of nothing but its own namespaces)
  and moves into a new root filesystem that holds, read-only, only ``/usr``, the Python
  installation and its site-packages, and the pool's copy of ``engine/``, ``worker.py`` and
  the harnesses (at ``/sandbox``). The repository, home folders, the grading workspace
  (gradebook, other students' submissions), another checkout's solutions, the host's
  ``/tmp`` with its Unix sockets: none of it is in that root, so no list of what to hide
  can be incomplete. The network namespace has no network, and no abstract socket of the
  host. The engine copy lacks the mechanism the assignment asks for (``absence.py``): the
  reference executor, say, is cut out of it, so a submission cannot call it.
* **A fresh, private box per submission.** Each child takes a mount namespace and a PID
  namespace of its own. Its first process runs the student's code: it sees only its own
  processes in its own ``/proc`` (not the zygote, not the grader), and when it ends the
  kernel kills everything it started. Its ``/tmp`` (its working folder and HOME) and
  ``/dev/shm`` are private tmpfs mounts, capped (``TMP_MB``, ``SHM_MB``) and taken out of
  its memory limit, and gone with it. Its box (the plan in, the results out) is shown
  read-only at ``/io``; it writes its results through one file it opened before.
* **No privilege.** Before the student's code runs, the child gives up every privilege:
  as root it becomes ``nobody``; then it enters a user namespace of its own, where the
  mounts it was given are locked in place and the kernel counts its processes apart. The
  zygote is not dumpable: a child can neither trace it nor read its memory.
* **Nothing of the course on its path or in its environment.** ``python -S`` (no site
  hooks) with ``PYTHONPATH`` = the pristine copy + the interpreter's site-packages (with
  any course package installed there masked); a minimal environment. The grader's expected
  values, scores and gradebook are never in the sandbox's memory: it only sends inputs and
  reads outputs (``worker.py``).
* **Limits.** ``resource.setrlimit`` in the child (address space, CPU seconds, number of
  processes, file size), a per-item wall-clock timeout and a total one; the child's whole
  process group gets SIGKILL, so a SIGINT-proof loop cannot hang the batch.
* **Crash recovery.** If the child dies (``os._exit``, a segfault, a timeout), the last
  ``*_start`` event names the culprit (a cell or a task); it is skipped and a new child
  runs what is left, so only unfinished work is lost. If the zygote itself dies, the pool
  starts a new one.

Where the kernel refuses these namespaces (user namespaces disabled, or restricted by
AppArmor), a pool refuses to start (:class:`IsolationUnavailable`, a message saying what to
enable) rather than grade unsafely. Only a student's self-check of their own code
(``require_isolation=False``) then runs with ``basic`` isolation: the limits and the engine
copy, in a process that can see the machine, and the report says so.

Deliberate limits: the kernel and the CPU are shared; the box itself is on the host's disk
(its results file is capped by the file-size limit).
"""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
HARNESSES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness")
NOBODY = 65534
JAIL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jail.py")
TMP_MB, SHM_MB = 64, 32  # each child's private /tmp and /dev/shm (taken out of its memory limit)
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/etc/ld.so.cache")
COURSE_PACKAGES = ("engine", "autograder", "solutions", "tests", "course")  # masked if installed into site-packages
_PROBED = None  # None: not probed yet; else (works, why)


class IsolationUnavailable(RuntimeError):
    """The kernel refuses the namespaces the sandbox is built from: grading would not be safe."""


def _site_packages():
    import numpy
    return os.path.dirname(os.path.dirname(numpy.__file__))


def read_only_paths():
    """What the sandbox's root shows of this machine, read-only: the system's programs and libraries,
    the Python installation and its site-packages. Nothing else: no home folder, no repository."""
    return list(SYSTEM) + sorted({sys.base_prefix, _site_packages()})


def refusal(why):
    return ("refusing to grade: the sandbox is built from Linux namespaces, which this machine does not let "
            f"this user create ({why}). Enable unprivileged user namespaces (Ubuntu 23.10 and later: "
            "`sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`; elsewhere: "
            "`sudo sysctl user.max_user_namespaces=15000`), or grade as root")


def namespaces_available():
    """Can this process build the sandbox's private root? Returns ``(works, why_not)`` (probed once,
    by a throwaway process doing what the zygote does)."""
    global _PROBED
    if _PROBED is None:
        if not sys.platform.startswith("linux"):
            _PROBED = (False, "not Linux")
        else:
            work = tempfile.mkdtemp(prefix="grade-probe-")
            try:
                for d in ("root", "sandbox", "boxes"):
                    os.makedirs(os.path.join(work, d))
                code = ("import sys; sys.path.insert(0, sys.argv[1]); import jail\n"
                        "try:\n    jail.enter_private_root(sys.argv[2], sys.argv[5:], sys.argv[3], sys.argv[4])\n"
                        "except OSError as e:\n    print(e); sys.exit(1)\nprint('ok')\n")
                out = subprocess.run([sys.executable, "-S", "-c", code, os.path.dirname(JAIL)]
                                     + [os.path.join(work, d) for d in ("root", "sandbox", "boxes")]
                                     + read_only_paths(), capture_output=True, text=True, timeout=20)
                _PROBED = (out.returncode == 0, (out.stdout + out.stderr).strip()[-300:])
            except (OSError, subprocess.SubprocessError) as error:
                _PROBED = (False, str(error))
            finally:
                shutil.rmtree(work, ignore_errors=True)
    return _PROBED


def _blocked_for_others(path):
    """The highest ancestor of ``path`` that a stranger (``nobody``) cannot enter, or None."""
    parts = os.path.abspath(path).split(os.sep)
    for k in range(2, len(parts) + 1):
        d = os.sep.join(parts[:k])
        try:
            if not os.stat(d).st_mode & 0o001:
                return d
        except OSError:
            return None
    return None


class WorkerPool:
    """One zygote for a batch; ``run_box(box, ...)`` forks a child that grades the plan in ``box``."""

    def __init__(self, absent=None, assignment=None, require_isolation=True):
        """``absent``: what to cut out of the engine copy (an assignment's ``ABSENT``, see ``absence.py``).
        ``require_isolation``: refuse (:class:`IsolationUnavailable`) where the kernel gives no
        namespaces; without it (a student's self-check of their own code) the pool falls back to
        ``basic`` isolation: limits and a pristine engine copy, in a process that can see the machine."""
        self.base = tempfile.mkdtemp(prefix="grade-pool-")
        self.boxes = tempfile.mkdtemp(prefix="grade-boxes-")
        self.root = tempfile.mkdtemp(prefix="grade-root-")  # only a mount point (inside the zygote's namespace)
        for d in (self.base, self.boxes, self.root):
            os.chmod(d, 0o755)
        shutil.copy(WORKER, os.path.join(self.base, "worker.py"))
        shutil.copy(JAIL, os.path.join(self.base, "jail.py"))
        skip = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(os.path.join(REPO, "engine"), os.path.join(self.base, "engine"), ignore=skip)
        shutil.copytree(HARNESSES, os.path.join(self.base, "harness"), ignore=skip)
        if absent:
            from . import absence
            absence.apply(os.path.join(self.base, "engine"), absent, assignment or "this assignment")
        self.require = require_isolation
        self.proc, self._buf, self.starts, self.isolation = None, b"", 0, None
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    # -- the zygote -------------------------------------------------------------------------
    def _config(self):
        """What the zygote is told (``GRADER_SANDBOX``): where its root is built, and from what."""
        site = _site_packages()
        return {"namespaces": sys.platform.startswith("linux"), "require": self.require, "root": self.root,
                "read_only": read_only_paths(), "sandbox": self.base, "boxes": self.boxes,
                "masks": [os.path.join(site, p) for p in COURSE_PACKAGES if os.path.isdir(os.path.join(site, p))],
                "tmp_mb": TMP_MB, "shm_mb": SHM_MB}

    def _start(self):
        env = {"PYTHONPATH": self.base + os.pathsep + _site_packages(), "HOME": "/tmp", "PATH": "/usr/bin:/bin",
               "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
               "GRADER_SANDBOX": json.dumps(self._config())}
        if os.geteuid() == 0 and not any(_blocked_for_others(p) for p in (sys.base_prefix, _site_packages(),
                                                                          self.base)):
            env["GRADER_WORKER_UID"] = str(NOBODY)  # used only without namespaces (basic isolation)
        self._log = tempfile.TemporaryFile()  # the zygote's own stderr (a pipe nobody reads could fill up)
        self.proc = subprocess.Popen([sys.executable, "-S", os.path.join(self.base, "worker.py"), "--serve"],
                                     cwd=self.base, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._log, start_new_session=True)
        self._buf = b""
        self.starts += 1
        line = self._readline(60.0) or ""
        if line.startswith("refused "):
            self.close_zygote()
            raise IsolationUnavailable(refusal(line[len("refused "):]))
        if not line.startswith("ready "):
            if self.proc.poll() is None:
                _killpg(self.proc.pid)
                self.proc.wait()
            self._log.seek(0)
            err = self._log.read()[-4000:].decode(errors="replace")
            self.close_zygote()
            raise RuntimeError("the grading worker could not be started" + (f": {err.strip()[-500:]}" if err else ""))
        self.isolation = line.split()[1]

    def _alive(self):
        return self.proc is not None and self.proc.poll() is None

    def _readline(self, timeout):
        """The zygote's next protocol line, or None (timeout, or the zygote is gone)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc is None:
                return None
            ready, _, _ = select.select([self.proc.stdout], [], [], min(left, 0.05))
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    return None
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode("ascii", "replace")

    def _fork(self, box):
        """Ask the zygote for a child on ``box``; returns its pid (restarting a dead zygote once)."""
        for _ in range(2):
            if not self._alive():
                self.close_zygote()
                self._start()
            try:
                self.proc.stdin.write(box.encode() + b"\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                self.close_zygote()
                continue
            line = self._readline(60.0)
            if line and line.startswith("pid "):
                return int(line.split()[1])
            self.close_zygote()
        raise RuntimeError("the grading worker could not be started")

    def close_zygote(self):
        if self.proc is not None:
            _killpg(self.proc.pid)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            for f in (self.proc.stdin, self.proc.stdout, self._log):
                try:
                    f.close()
                except OSError:
                    pass
            self.proc = None

    # -- one run --------------------------------------------------------------------------------
    def new_box(self):
        """A fresh folder in the folder of boxes (the only host folder the sandbox's root shows).
        Readable by the child's unprivileged user; only the grader writes into it (the child writes
        its results through the one file descriptor it opened before giving up its privileges)."""
        box = tempfile.mkdtemp(prefix="box-", dir=self.boxes)
        os.chmod(box, 0o755)
        return box

    def run_box(self, box, item_timeout, total_timeout, on_event=None):
        """Fork a child on ``box`` (``plan.json`` already there); wait; returns (events, timed_out).

        ``on_event(event)`` is called for each event as it arrives (the staged injections answer
        the worker's requests that way)."""
        results_path = os.path.join(box, "results.jsonl")
        pid = self._fork(box)
        t0 = last = time.monotonic()
        size, timed_out, exited = 0, False, False
        reader = _EventReader(results_path) if on_event else None
        while True:
            line = self._readline(0.02)
            if line is not None and line.startswith(f"exit {pid} "):
                exited = True
                break
            if line is None and not self._alive() and not _exists(pid):
                break  # the zygote died (and so did the child)
            now = time.monotonic()
            try:
                s = os.path.getsize(results_path)
            except OSError:
                s = 0
            if s != size:
                if size == 0:  # the child has read its plan: its inputs are not left lying about
                    _remove(os.path.join(box, "plan.json"))
                size, last = s, now
                if reader is not None:
                    for ev in reader.new_events():
                        on_event(ev)
            if now - last > item_timeout or now - t0 > max(total_timeout, 1.0):
                timed_out = True
                break
        if not exited:
            _killpg(pid)
            if self._alive():
                line = self._readline(5.0)
                if not (line or "").startswith(f"exit {pid} "):
                    self.close_zygote()
        return _read_events(results_path), timed_out

    def close(self):
        self.close_zygote()
        for d in (self.base, self.boxes, self.root):
            shutil.rmtree(d, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _exists(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def _killpg(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _EventReader:
    """Reads the events a running child appends to ``results.jsonl``, complete lines only, as they come."""

    def __init__(self, path):
        self.path, self.offset, self.partial = path, 0, b""

    def new_events(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read(1 << 20)
        except OSError:
            return []
        self.offset += len(data)
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        events = []
        for line in lines:
            try:
                ev = json.loads(line.decode("utf-8", "replace"))
            except ValueError:
                continue
            if isinstance(ev, dict):
                events.append(ev)
        return events


def write_json_atomically(path, data):
    """Write ``data`` as JSON through a rename, readable by all (the sandbox's unprivileged user reads the
    plan and the injections): a reader never sees half a file."""
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def _read_events(results_path):
    events = []
    try:
        with open(results_path, "rb") as f:
            data = f.read(64 << 20)
        for line in data.decode("utf-8", "replace").splitlines():
            try:
                ev = json.loads(line)
            except ValueError:
                continue  # a half-written or forged line is ignored
            if isinstance(ev, dict):
                events.append(ev)
    except OSError:
        pass
    return events


def run(plan, *, item_timeout=10.0, total_timeout=60.0, max_restarts=6, pool=None):
    """Run the plan; returns ``(tasks_done, cells_failed, notes, isolation)``.

    Restarts after a crash, skipping the item that crashed. Without ``pool``, a pool is
    made for this one run (what ``check`` does); ``batch.grade`` shares one.
    """
    if pool is None:
        with WorkerPool() as own:
            return run(plan, item_timeout=item_timeout, total_timeout=total_timeout, max_restarts=max_restarts,
                       pool=own)
    # The reference cells injected before a task are not in the plan the child reads: the child asks for
    # them when it reaches that task, and gets them only once every earlier task's outputs are in. So
    # the student's code never holds the reference of a task that is still to be graded (it runs in
    # the same process as the harness: anything the child has, the student's code can reach).
    plan = dict(plan, tasks=[dict(t) for t in plan["tasks"]])
    order = [t["name"] for t in plan["tasks"]]
    injections = {}
    for t in plan["tasks"]:
        injections[t["name"]] = t.pop("inject", [])
        t["staged"] = bool(injections[t["name"]])
    skip_cells, skip_tasks = set(), set()
    tasks_done, notes, cells_failed = {}, [], {}
    start_all = time.monotonic()
    for attempt in range(max_restarts + 1):
        box = pool.new_box()
        try:
            plan["skip_cells"], plan["skip_tasks"] = sorted(skip_cells), sorted(skip_tasks | set(tasks_done))
            write_json_atomically(os.path.join(box, "plan.json"), plan)
            finished_now = set(tasks_done) | skip_tasks

            def answer(ev, box=box, finished_now=finished_now):
                kind, name = ev.get("event"), ev.get("task")
                if kind == "task" and name in injections:
                    finished_now.add(name)
                elif kind == "inject_request" and injections.get(name):
                    if all(t in finished_now for t in order[:order.index(name)]):
                        write_json_atomically(os.path.join(box, "inject.json"),
                                              {"task": name, "sources": injections[name]})
            events, timed_out = pool.run_box(box, item_timeout, total_timeout - (time.monotonic() - start_all),
                                             on_event=answer)
        finally:
            shutil.rmtree(box, ignore_errors=True)
        current, finished = None, False
        for ev in events:
            kind = ev.get("event")
            if kind == "cell_start":
                current = ("cell", ev.get("i"))
            elif kind == "cell_end":
                current = None
                if ev.get("error"):
                    cells_failed[ev.get("i")] = ev["error"]
            elif kind == "task_start":
                current = ("task", ev.get("task"))
            elif kind == "task":
                current = None
                tasks_done.setdefault(ev.get("task"), ev)   # the first report of a task counts, never a later one
            elif kind == "done":
                finished = True
        if finished:
            break
        why = "timed out" if timed_out else "killed the process"
        if current is None:
            notes.append(f"the worker {why} before starting (attempt {attempt + 1})")
            if time.monotonic() - start_all > total_timeout:
                break
            continue
        if current[0] == "cell":
            skip_cells.add(current[1])
            notes.append(f"code cell {current[1]} {why}; it was skipped")
        else:
            skip_tasks.add(current[1])
            tasks_done[current[1]] = {"event": "task", "task": current[1], "outputs": None,
                                      "error": f"your code {why} while this task was graded"}
        if time.monotonic() - start_all > total_timeout:
            notes.append("total time limit reached")
            break
    return tasks_done, cells_failed, notes, pool.isolation
