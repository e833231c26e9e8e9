"""Run ``worker.py`` on a submission's code in a private, limited, disposable process.

Isolation, in layers (each one closes a hole that plain nbgrader leaves open):

* **A private copy.** A fresh temporary directory holds the worker, the plan (generated
  inputs, deleted by the worker once read) and a pristine copy of ``engine/``; it is the
  process's working directory and HOME, and is deleted afterwards. ``../../../source``
  leads nowhere.
* **Nothing of the course on its path or in its environment.** ``python -S`` (no site
  hooks, so no editable install pointing at the repository) with ``PYTHONPATH`` =
  the private copy + the interpreter's site-packages; a minimal environment.
* **Not reachable.** Where unprivileged user namespaces work (``unshare -Urmn``), the
  process gets its own mount and network namespaces in which the repository's
  ``solutions/``, ``autograder/``, ``tests/``, ``course/``, ``.git`` and the grading
  workspace (gradebook, other students) are covered by empty tmpfs mounts, and there is
  no network. Without them (some CI containers) the other layers still hold and the
  report says ``isolation: basic``.
* **Limits.** ``resource.setrlimit`` in the process (address space, CPU seconds, number
  of processes, file size), a per-item wall-clock timeout and a total one; the whole
  process group gets SIGKILL, so a SIGINT-proof loop cannot hang the batch.
* **Crash recovery.** If the process dies (``os._exit``, a segfault, a timeout), the last
  ``*_start`` event names the culprit (a cell or a task); it is skipped and the worker
  runs again on what is left, so only unfinished work is lost.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
_UNSHARE = None


def _site_packages():
    import numpy
    return os.path.dirname(os.path.dirname(numpy.__file__))


def hidden_paths(extra=()):
    paths = [os.path.join(REPO, p) for p in ("solutions", "autograder", "tests", "course", ".git")]
    return [p for p in list(paths) + list(extra) if os.path.isdir(p)]


def unshare_works():
    """Can we make private mount + network namespaces without privileges? (cached)"""
    global _UNSHARE
    if _UNSHARE is None:
        exe = shutil.which("unshare")
        ok = False
        if exe and sys.platform.startswith("linux"):
            try:
                ok = subprocess.run([exe, "-Urmn", "sh", "-c", "mount -t tmpfs none /mnt 2>/dev/null || "
                                     "mount -t tmpfs none /tmp && true"], capture_output=True,
                                    timeout=10).returncode == 0
            except (OSError, subprocess.SubprocessError):
                ok = False
        _UNSHARE = exe if ok else False
    return _UNSHARE


def _command(box, plan_path, results_path, hide):
    py = [sys.executable, "-S", os.path.join(box, "worker.py"), plan_path, results_path]
    exe = unshare_works()
    if not exe:
        return py, "basic"
    mounts = " && ".join(f"mount -t tmpfs -o size=1m,mode=000 none '{p}'" for p in hide) or "true"
    return [exe, "-Urmn", "sh", "-c", mounts + ' && exec "$@"', "sh"] + py, "namespaces"


def run(plan, *, item_timeout=10.0, total_timeout=60.0, hide=(), max_restarts=6):
    """Run the plan; returns ``(events, notes, isolation)``. ``events`` has the task results.

    Restarts after a crash, skipping the item that crashed.
    """
    plan = dict(plan)
    skip_cells, skip_tasks = set(), set()
    tasks_done, notes, cells_failed = {}, [], {}
    isolation = "basic"
    start_all = time.monotonic()
    for attempt in range(max_restarts + 1):
        box = tempfile.mkdtemp(prefix="grade-")
        try:
            shutil.copy(WORKER, os.path.join(box, "worker.py"))
            shutil.copytree(os.path.join(REPO, "engine"), os.path.join(box, "engine"))
            plan_path, results_path = os.path.join(box, "plan.json"), os.path.join(box, "results.jsonl")
            plan["skip_cells"], plan["skip_tasks"] = sorted(skip_cells), sorted(skip_tasks | set(tasks_done))
            with open(plan_path, "w") as f:
                json.dump(plan, f)
            env = {"PYTHONPATH": box + os.pathsep + _site_packages(), "HOME": box, "PATH": "/usr/bin:/bin",
                   "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                   "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8", "MPLBACKEND": "Agg"}
            cmd, isolation = _command(box, plan_path, results_path, hidden_paths(hide))
            proc = subprocess.Popen(cmd, cwd=box, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
            events, timed_out = _watch(proc, results_path, item_timeout,
                                       total_timeout - (time.monotonic() - start_all))
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
                tasks_done[ev.get("task")] = ev
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
                                      "error": f"your code {why} while this task was graded", "trips": 0}
        if time.monotonic() - start_all > total_timeout:
            notes.append("total time limit reached")
            break
    return tasks_done, cells_failed, notes, isolation


def _watch(proc, results_path, item_timeout, total_timeout):
    """Wait for the worker; kill its process group on timeout. Returns (events, timed_out)."""
    t0 = last = time.monotonic()
    size = 0
    timed_out = False
    while proc.poll() is None:
        time.sleep(0.02)
        now = time.monotonic()
        try:
            s = os.path.getsize(results_path)
        except OSError:
            s = 0
        if s != size:
            size, last = s, now
        if now - last > item_timeout or now - t0 > max(total_timeout, 1.0):
            timed_out = True
            break
    if proc.poll() is None or timed_out:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
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
    return events, timed_out
