"""Run a submission's code in a private, limited, disposable process; one warm worker per batch.

**Reuse.** Starting Python and importing NumPy and the engine costs about a quarter of a
second, and copying a pristine engine another third; a batch pays both once. A
:class:`WorkerPool` starts one *zygote* (``worker.py --serve``) that has imported
everything, and asks it to ``fork`` a fresh child for every submission (and for every
retry after a crash). A child starts in microseconds from the zygote's clean state, so
every submission sees exactly the same process, and one submission cannot leave anything
behind for the next: its child, and everything the child started, is gone before the
next one is forked.

Isolation, in layers (each one closes a hole that plain nbgrader leaves open):

* **A private copy.** Each child runs in a fresh temporary directory (its working
  directory and HOME) holding only its plan (generated inputs, deleted once read); the
  zygote's copy of ``engine/``, ``worker.py`` and the harnesses is mounted read-only. The
  engine copy lacks the mechanism the assignment asks for (``absence.py``): the
  reference executor, say, is cut out of it, so a submission cannot call it.
  ``../../../source`` leads nowhere.
* **Nothing of the course on its path or in its environment.** ``python -S`` (no site
  hooks, so no editable install pointing at the repository) with ``PYTHONPATH`` = the
  pristine copy + the interpreter's site-packages; a minimal environment.
* **Not reachable.** Where user namespaces work (``unshare -Urmn``), the zygote gets its
  own mount and network namespaces in which the repository's ``solutions/``,
  ``autograder/``, ``tests/``, ``course/``, ``.git`` and the grading workspace
  (gradebook, other students) are covered by empty tmpfs mounts, and there is no
  network. Each child then enters a user namespace of its own, nested in the zygote's
  (it keeps no capability over the zygote, which is also not dumpable: it cannot be
  traced or have its memory read), and a PID namespace of its own, whose first process
  runs the student's code: when it ends, every process it started is killed by the
  kernel. Without user namespaces (some CI containers) the other layers still hold and
  the report says ``isolation: basic``.
* **Not root.** When grading runs as root, the zygote drops to ``nobody`` (uid 65534)
  before importing anything: root is exempt from ``RLIMIT_NPROC`` and may read anything.
  Where the Python installation lies under a folder ``nobody`` cannot enter (``/root``
  with pyenv), that folder is covered, in the private mount namespace only, by an empty
  tmpfs into which just the installation is mounted back.
* **Limits.** ``resource.setrlimit`` in the child (address space, CPU seconds, number of
  processes, file size), a per-item wall-clock timeout and a total one; the child's whole
  process group gets SIGKILL, so a SIGINT-proof loop cannot hang the batch.
* **Crash recovery.** If the child dies (``os._exit``, a segfault, a timeout), the last
  ``*_start`` event names the culprit (a cell or a task); it is skipped and a new child
  runs what is left, so only unfinished work is lost. If the zygote itself dies (a child
  may signal it), the pool starts a new one.

Deliberate limits: ``/tmp`` is shared with the machine (a submission can leave a file
there that a *later submission's own code* could read, which gives it nothing it could
not have copied anyway); the kernel and the CPU are shared.
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
_UNSHARE = None  # None: not probed yet; False: unavailable; else the unshare executable


def _site_packages():
    import numpy
    return os.path.dirname(os.path.dirname(numpy.__file__))


def hidden_paths(extra=()):
    paths = [os.path.join(REPO, p) for p in ("solutions", "autograder", "tests", "course", ".git")]
    return [p for p in list(paths) + list(extra) if os.path.isdir(p)]


def _as_user(uid):
    return {} if uid is None else {"user": uid, "group": uid, "extra_groups": []}


def _probe(cmd):
    probe = tempfile.mkdtemp(prefix="grade-probe-")
    os.chmod(probe, 0o755)
    try:
        return subprocess.run(cmd + ["sh", "-c", f"mount -t tmpfs none '{probe}' && mount --bind '{probe}' '{probe}' "
                                                 f"&& mount -o remount,bind,ro '{probe}'"],
                              capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        os.rmdir(probe)


def unshare_works():
    """How can we make private mount + network namespaces? (cached)

    Returns the ``unshare`` command prefix, or False. As root: ``unshare -mn`` (the worker then
    drops to ``nobody`` inside); otherwise an unprivileged user namespace, ``unshare -Urmn``.
    """
    global _UNSHARE
    if _UNSHARE is None:
        exe = shutil.which("unshare")
        _UNSHARE = False
        if exe and sys.platform.startswith("linux"):
            cmd = [exe, "-mn"] if os.geteuid() == 0 else [exe, "-Urmn"]
            if _probe(cmd):
                _UNSHARE = cmd
    return _UNSHARE


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


def _expose(paths, staging):
    """Shell commands (run as root in the private mount namespace) that let ``nobody`` reach
    ``paths`` (the Python installation, say, under a ``0700`` ``/root``): each closed ancestor
    is covered by an empty tmpfs into which only the needed folders are mounted back."""
    by_ancestor = {}
    for p in paths:
        a = _blocked_for_others(p)
        if a and p != a:
            by_ancestor.setdefault(a, []).append(os.path.abspath(p))
    cmds, k = [], 0
    for ancestor, needed in sorted(by_ancestor.items()):
        moves = []
        for p in sorted(set(needed)):
            stage = os.path.join(staging, str(k))
            os.makedirs(stage, exist_ok=True)
            k += 1
            cmds.append(f"mount --bind '{p}' '{stage}'")
            moves.append(f"mkdir -p '{p}' && mount --move '{stage}' '{p}'")
        cmds.append(f"mount -t tmpfs -o size=1m,mode=755 none '{ancestor}'")
        cmds.extend(moves)
    return cmds


class WorkerPool:
    """One zygote for a batch; ``run_box(box, ...)`` forks a child that grades the plan in ``box``."""

    def __init__(self, hide=(), absent=None, assignment=None):
        """``absent``: what to cut out of the engine copy (an assignment's ``ABSENT``, see ``absence.py``)."""
        self.base = tempfile.mkdtemp(prefix="grade-pool-")
        os.chmod(self.base, 0o755)
        shutil.copy(WORKER, os.path.join(self.base, "worker.py"))
        skip = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(os.path.join(REPO, "engine"), os.path.join(self.base, "engine"), ignore=skip)
        shutil.copytree(HARNESSES, os.path.join(self.base, "harness"), ignore=skip)
        if absent:
            from . import absence
            absence.apply(os.path.join(self.base, "engine"), absent, assignment or "this assignment")
        self.hide = hidden_paths(hide)
        self.isolation = "namespaces" if unshare_works() else "basic"
        # root is exempt from RLIMIT_NPROC and can read everything: the worker drops to nobody
        # (inside the private mount namespace, where it can reach the Python installation; without
        # namespaces, only where nobody can reach it anyway)
        reachable = not any(_blocked_for_others(p) for p in self._needed_paths())
        self.user = NOBODY if os.geteuid() == 0 and (self.isolation == "namespaces" or reachable) else None
        self.proc, self._buf, self.starts = None, b"", 0

    # -- the zygote -------------------------------------------------------------------------
    def _needed_paths(self):
        return [sys.base_prefix, sys.prefix, _site_packages(), self.base]

    def _command(self):
        py = [sys.executable, "-S", os.path.join(self.base, "worker.py"), "--serve"]
        if self.isolation != "namespaces":
            return py
        mounts = [f"mount -t tmpfs -o size=1m,mode=000 none '{p}'" for p in self.hide]
        if self.user is not None:
            staging = os.path.join(self.base, ".staging")
            os.makedirs(staging, exist_ok=True)
            mounts += _expose(self._needed_paths(), staging)
        mounts += [f"mount --bind '{self.base}' '{self.base}'", f"mount -o remount,bind,ro '{self.base}'"]
        return unshare_works() + ["sh", "-c", " && ".join(mounts) + ' && exec "$@"', "sh"] + py

    def _start(self):
        env = {"PYTHONPATH": self.base + os.pathsep + _site_packages(), "HOME": self.base, "PATH": "/usr/bin:/bin",
               "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8", "MPLBACKEND": "Agg"}
        if self.user is not None:
            env["GRADER_WORKER_UID"] = str(self.user)  # the zygote drops to it first thing
        self.proc = subprocess.Popen(self._command(), cwd=self.base, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        self._buf = b""
        self.starts += 1

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
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            self.proc = None

    # -- one run --------------------------------------------------------------------------------
    def new_box(self):
        box = tempfile.mkdtemp(prefix="grade-box-")
        if self.user is not None:
            os.chown(box, self.user, self.user)
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
        shutil.rmtree(self.base, ignore_errors=True)

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


def _write_atomically(path, data):
    tmp = path + ".part"
    with open(tmp, "w") as f:
        json.dump(data, f)
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


def run(plan, *, item_timeout=10.0, total_timeout=60.0, hide=(), max_restarts=6, pool=None):
    """Run the plan; returns ``(tasks_done, cells_failed, notes, isolation)``.

    Restarts after a crash, skipping the item that crashed. Without ``pool``, a pool is
    made for this one run (what ``check`` does); ``batch.grade`` shares one.
    """
    if pool is None:
        with WorkerPool(hide) as own:
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
            with open(os.path.join(box, "plan.json"), "w") as f:
                json.dump(plan, f)
            finished_now = set(tasks_done) | skip_tasks

            def answer(ev, box=box, finished_now=finished_now):
                kind, name = ev.get("event"), ev.get("task")
                if kind == "task" and name in injections:
                    finished_now.add(name)
                elif kind == "inject_request" and injections.get(name):
                    if all(t in finished_now for t in order[:order.index(name)]):
                        _write_atomically(os.path.join(box, "inject.json"), {"task": name, "sources": injections[name]})
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
