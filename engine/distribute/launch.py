"""A local launcher for a cluster of processes, in the spirit of ``torchrun``::

    python -m engine.distribute.launch --workers 2 train.py --epochs 3
    python -m engine.distribute.launch --workers 2 --ps 1 train.py       # + a chief: ParameterServerStrategy

It starts one process per task, all running the same script with the same
arguments, each with its own ``TF_CONFIG``, exactly what a cluster manager
(Kubernetes, Slurm...) gives the tasks of a real job::

    {"cluster": {"worker": ["127.0.0.1:41231", "127.0.0.1:41232"]},
     "task": {"type": "worker", "index": 1}}

so the script finds its cluster and its role with
``tf.distribute.cluster_resolver.TFConfigClusterResolver()`` (a strategy does
it for you). Ports are chosen when the launcher starts: free ports of
``--host`` (127.0.0.1 by default: nothing listens outside the machine).

While they run, every line a task prints is printed with its task's name in
front, ``[worker 0] ...`` (stdout to stdout, stderr to stderr).

It ends:

* when the *main* tasks have all exited with status 0: the chief if there is
  one, else the workers. The other tasks (parameter servers, and the workers of a
  chief-led job, which serve until killed) are stopped. Exit status 0.
* when any task exits with a non-zero status: every other task is stopped at
  once (SIGTERM, then SIGKILL after ``--grace`` seconds) and the launcher exits
  with that task's status (128 + the signal number for a task killed by a signal,
  as a shell reports it). Without this, the other workers would wait for the
  dead one in their next all-reduce.
* after ``--timeout`` seconds (if given): everything is stopped, status 124.

Each task runs in its own process group, so stopping a task also stops the
processes it started; on Linux a task is also killed when the launcher dies,
however it dies. The chief, when there is one (``--chief 1``, the default
with ``--ps``), is ``TF_CONFIG`` task ``{"type": "chief", "index": 0}``.

As ``torchrun`` does, the launcher sets ``OMP_NUM_THREADS`` for the tasks when
it is not set (the cores divided among the tasks, at least 1): every task's
NumPy would otherwise start one BLAS thread per core, and the tasks' threads
would fight over the same cores.

From Python: ``launch(script, args, workers=2)`` returns the exit status;
``cluster_spec_dict(...)`` and ``tf_config(...)`` build the configuration.
"""
import argparse
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

__all__ = ["launch", "cluster_spec_dict", "tf_config", "free_ports", "main"]

_ENGINE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_ports(n, host="127.0.0.1"):
    """``n`` distinct ports free on ``host`` now (bound together, then released for the tasks to take).

    Another process could take one in between; a task that then cannot start its
    server fails with TF's ``UnknownError("Could not start gRPC server")``.
    """
    sockets = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _libc():
    try:
        return ctypes.CDLL(None) if sys.platform == "linux" else None
    except OSError:
        return None


_LIBC = _libc()


# How a task asks Linux for SIGKILL when the launcher dies (even by SIGKILL itself): a tiny Python
# prologue sets PR_SET_PDEATHSIG, checks that the launcher is still its parent (it may have died in
# between), and execs the task's own Python (same pid; the setting survives exec). Without it a launcher
# killed hard would leave its tasks running, each waiting for the others in its next collective.
# (Not a ``preexec_fn``: that forces a plain fork, whose atfork handlers crash the child of a process
# that runs gRPC, such as a notebook or a test process holding a tf.distribute.Server.)
_DIE_WITH_THE_LAUNCHER = (
    "import ctypes, os, signal, sys\n"
    "ctypes.CDLL(None).prctl(1, signal.SIGKILL)\n"
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit(128 + signal.SIGKILL)\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n")


def _task_command(python, script, args):
    """The command that runs ``script args`` as a task: under the die-with-the-launcher prologue on Linux."""
    if _LIBC is None:
        return [python, script, *args]
    return [python, "-c", _DIE_WITH_THE_LAUNCHER, str(os.getpid()), python, script, *args]


def cluster_spec_dict(workers, ps=0, chief=0, host="127.0.0.1", ports=None):
    """``{"chief": [...], "worker": [...], "ps": [...]}`` with ``host:port`` addresses (free ports if not given)."""
    total = chief + workers + ps
    ports = list(ports) if ports is not None else free_ports(total, host)
    if len(ports) != total:
        raise ValueError(f"{total} tasks need {total} ports, got {len(ports)}")
    hostport = f"[{host}]" if ":" in host else host
    addresses = iter(f"{hostport}:{p}" for p in ports)
    cluster = {}
    for job, count in (("chief", chief), ("worker", workers), ("ps", ps)):
        if count:
            cluster[job] = [next(addresses) for _ in range(count)]
    return cluster


def tf_config(cluster, task_type, task_index):
    """The ``TF_CONFIG`` JSON text of one task."""
    return json.dumps({"cluster": cluster, "task": {"type": task_type, "index": task_index}})


def _exit_status(returncode):
    """A ``Popen.returncode`` as a shell reports it: a signal N is 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


class _Task:
    def __init__(self, task_type, index, process):
        self.task_type, self.index, self.process = task_type, index, process
        self.name = f"{task_type} {index}"
        self.readers = []

    def stop(self, sig):
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass


def _stream(pipe, out, prefix, lock):
    """Copy ``pipe`` to ``out`` line by line, each line prefixed (a thread per pipe)."""
    for raw in iter(pipe.readline, b""):
        line = raw.decode(errors="replace")
        if not line.endswith("\n"):
            line += "\n"
        with lock:
            out.write(prefix + line)
            out.flush()
    pipe.close()


def launch(script, args=(), workers=2, ps=0, chief=None, host="127.0.0.1", timeout=None, grace=5.0,
           stdout=None, stderr=None, env=None, python=None):
    """Run ``script`` once per task of a local cluster; the exit status (see the module docstring).

    ``chief``: 1 to add a chief task (default: 1 when ``ps`` > 0, else 0).
    ``stdout``/``stderr``: text streams for the prefixed output (default: this
    process's). ``env``: extra environment variables for every task.
    """
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    chief = (1 if ps else 0) if chief is None else int(chief)
    if workers < 0 or ps < 0 or chief not in (0, 1) or workers + chief == 0:
        raise ValueError(f"a cluster needs at least one worker or a chief, at most one chief "
                         f"(workers={workers}, ps={ps}, chief={chief})")
    cluster = cluster_spec_dict(workers, ps, chief, host)
    lock = threading.Lock()
    with lock:
        stderr.write("[launch] " + ", ".join(f"{job} {i} at {a}" for job, addrs in cluster.items()
                                              for i, a in enumerate(addrs)) + "\n")
        stderr.flush()
    base_env = {**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"}
    total = sum(len(addresses) for addresses in cluster.values())
    base_env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // total)))
    base_env["PYTHONPATH"] = os.pathsep.join(filter(None, [_ENGINE_ROOT, base_env.get("PYTHONPATH")]))
    tasks = []
    previous = {}
    interrupted = {}

    def on_signal(signum, frame):   # Ctrl-C or a kill of the launcher: stop every task first
        interrupted["signum"] = signum
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, on_signal)
    try:
        for job, addresses in cluster.items():
            for index in range(len(addresses)):
                task_env = dict(base_env, TF_CONFIG=tf_config(cluster, job, index))
                process = subprocess.Popen(_task_command(python or sys.executable, script, args), env=task_env,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                           start_new_session=True)
                task = _Task(job, index, process)
                for pipe, out in ((process.stdout, stdout), (process.stderr, stderr)):
                    reader = threading.Thread(target=_stream, args=(pipe, out, f"[{task.name}] ", lock),
                                              daemon=True)
                    reader.start()
                    task.readers.append(reader)
                tasks.append(task)
        return _supervise(tasks, "chief" if chief else "worker", timeout, grace, interrupted, stderr, lock)
    finally:
        for task in tasks:
            task.stop(signal.SIGKILL)
            task.process.wait()
            for reader in task.readers:
                reader.join(timeout=5)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _supervise(tasks, main_job, timeout, grace, interrupted, stderr, lock):
    start = time.monotonic()
    main = [t for t in tasks if t.task_type == main_job]

    def say(text):
        with lock:
            stderr.write(f"[launch] {text}\n")
            stderr.flush()
    while True:
        failed = next((t for t in tasks if t.process.poll() not in (None, 0)), None)
        if failed is not None:
            status = _exit_status(failed.process.returncode)
            say(f"{failed.name} exited with status {status}: stopping the other tasks")
            _stop(tasks, grace)
            return status
        if all(t.process.poll() == 0 for t in main):
            _stop(tasks, grace)
            return 0
        if interrupted:
            say("interrupted: stopping every task")
            _stop(tasks, grace)
            return 128 + int(interrupted["signum"])
        if timeout is not None and time.monotonic() - start > timeout:
            say(f"timed out after {timeout} s: stopping every task")
            _stop(tasks, grace)
            return 124
        time.sleep(0.02)


def _stop(tasks, grace):
    """SIGTERM every running task, SIGKILL those still running after ``grace`` seconds."""
    running = [t for t in tasks if t.process.poll() is None]
    for t in running:
        t.stop(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for t in running:
        try:
            t.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            t.stop(signal.SIGKILL)
            t.process.wait()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m engine.distribute.launch",
                                     description="Run a script once per task of a local cluster, each task with "
                                                 "its TF_CONFIG; stop them all when one fails.")
    parser.add_argument("--workers", type=int, default=2, help="number of worker tasks (default 2)")
    parser.add_argument("--ps", type=int, default=0, help="number of parameter-server tasks (default 0)")
    parser.add_argument("--chief", type=int, choices=(0, 1), default=None,
                        help="add a chief task (default: 1 with --ps, else 0)")
    parser.add_argument("--host", default="127.0.0.1", help="the host of every task's address (default 127.0.0.1)")
    parser.add_argument("--timeout", type=float, default=None, help="stop everything after this many seconds")
    parser.add_argument("--grace", type=float, default=5.0,
                        help="seconds between SIGTERM and SIGKILL when stopping tasks (default 5)")
    parser.add_argument("script", help="the Python script every task runs")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    ns = parser.parse_args(argv)
    return launch(ns.script, ns.args, workers=ns.workers, ps=ns.ps, chief=ns.chief, host=ns.host,
                  timeout=ns.timeout, grace=ns.grace)


if __name__ == "__main__":
    sys.exit(main())
