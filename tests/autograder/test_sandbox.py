"""The sandbox's warm worker (one zygote per batch, a fresh child per submission) and its walls.

Each test runs a submission whose extra cell attacks the sandbox and reports what happened by
raising: the grader's notes carry ``code cell N raised RuntimeError: <report>``.
"""
import os
import time

import pytest

from autograder import grading, sandbox

TASKS = ("record", "backward_order", "backprop", "unbroadcast", "grads", "tape")
needs_namespaces = pytest.mark.skipif(not sandbox.namespaces_available()[0],
                                      reason="no private namespaces on this machine")

FIND_ZYGOTE = """
import os
def find_zygote():
    for p in os.listdir('/proc'):
        try:
            if p.isdigit() and int(p) != os.getpid() and b'--serve' in open(f'/proc/{p}/cmdline', 'rb').read():
                return int(p)
        except OSError:
            pass
"""


def total(r):
    return sum(r[n]["score"] for n in TASKS)


def report_of(r):
    """What the attacking cell reported (the message of the RuntimeError it raised)."""
    for note in r["_notes"]:
        if "raised RuntimeError: " in note:
            return note.split("raised RuntimeError: ", 1)[1]
    return None


def pool_processes(pool):
    """Processes still running from this pool's worker (forks keep the zygote's command line)."""
    found = []
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and pool.base.encode() in open(f"/proc/{p}/cmdline", "rb").read():
                found.append(int(p))
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def pool():
    with sandbox.WorkerPool() as p:
        yield p


def grade(path, pool, **kw):
    kw.setdefault("n", 2)
    kw.setdefault("item_timeout", 5)
    kw.setdefault("total_timeout", 30)
    return grading.grade_notebook(path, 7, pool=pool, **kw)


def test_a_warm_worker_grades_each_submission_quickly_and_identically(make_submission, tmp_path, pool):
    path = make_submission(str(tmp_path / "ok.ipynb"))
    grade(path, pool)  # the zygote may start here
    t = time.perf_counter()
    runs = [grade(path, pool) for _ in range(3)]
    per_submission = (time.perf_counter() - t) / 3
    assert [total(r) for r in runs] == [20, 20, 20]
    assert runs[0] == runs[1] == runs[2]  # deterministic: every child starts from the same state
    assert per_submission < 1.0, per_submission  # no interpreter start or engine import per submission


@needs_namespaces
def test_the_engine_copy_is_read_only(make_submission, tmp_path, pool):
    cell = ("import engine, os\ntry:\n    open(os.path.join(os.path.dirname(engine.__file__), 'nn.py'), 'a')"
            ".write('x = 1')\n    outcome = 'WROTE'\nexcept OSError as e:\n    outcome = 'DENIED ' + type(e).__name__\n"
            "raise RuntimeError(outcome)\n")
    r = grade(make_submission(str(tmp_path / "w.ipynb"), extra_cells=[cell]), pool)
    assert report_of(r).startswith("DENIED"), r["_notes"]
    assert total(r) == 20


@needs_namespaces
def test_the_worker_is_out_of_sight_and_out_of_reach(make_submission, tmp_path, pool):
    """In its own PID namespace the child sees no other process: not the zygote (whose memory holds
    the clean engine every later submission starts from), not the grader; ``kill(-1)`` reaches only
    its own namespace."""
    cell = FIND_ZYGOTE + ("import signal\nz = find_zygote()\nseen = sorted(p for p in os.listdir('/proc') if p.isdigit())\n"
                          "try:\n    os.kill(-1, signal.SIGKILL)  # every process this one may signal\nexcept ProcessLookupError:\n    pass\n"
                          "raise RuntimeError(f'{z} {seen == [str(os.getpid())]} {os.getpid()}')\n")
    starts = pool.starts
    r = grade(make_submission(str(tmp_path / "m.ipynb"), extra_cells=[cell]), pool)
    assert report_of(r) == "None True 1", r["_notes"]
    assert total(r) == 20 and pool.starts == starts and pool._alive()


def test_a_dead_worker_is_replaced(make_submission, tmp_path, pool):
    starts = pool.starts
    os.kill(pool.proc.pid, 9)  # however it dies, the next submission gets a new worker
    pool.proc.wait()
    r = grade(make_submission(str(tmp_path / "next.ipynb")), pool)
    assert total(r) == 20 and pool.starts > starts


@needs_namespaces
def test_fork_bomb_is_capped_and_nothing_outlives_the_submission(make_submission, tmp_path, pool):
    cell = ("import os, time\nn = 0\nfor _ in range(200):\n    try:\n        pid = os.fork()\n"
            "    except OSError:\n        break\n    if pid == 0:\n        os.setsid()\n        time.sleep(600)\n"
            "        os._exit(0)\n    n += 1\nraise RuntimeError(f'FORKED {n} {os.getpid() == 1}')\n")
    r = grade(make_submission(str(tmp_path / "f.ipynb"), extra_cells=[cell]), pool)
    _, forked, own_pid_namespace = report_of(r).split()
    assert int(forked) < 10, forked  # RLIMIT_NPROC holds (for root too: the worker is not root)
    assert total(r) == 20
    if own_pid_namespace == "True":
        time.sleep(0.2)
        assert pool_processes(pool) == [pool.proc.pid]  # the sleeping children died with the submission


def test_an_escaped_endless_loop_is_killed(make_submission, tmp_path, pool):
    cell = ("import os, signal\nif os.fork() == 0:\n    os.setsid()\n    signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
            "    while True:\n        pass\nwhile True:\n    pass\n")
    t = time.perf_counter()
    r = grade(make_submission(str(tmp_path / "l.ipynb"), extra_cells=[cell]), pool, item_timeout=2)
    assert time.perf_counter() - t < 20
    assert total(r) == 20 and any("timed out" in n for n in r["_notes"])
    time.sleep(0.2)
    if sandbox.namespaces_available()[0] and pool_processes(pool) != [pool.proc.pid]:
        # only where the kernel refused the child a PID namespace may the escaped loop outlive it
        pid_ns = grade(make_submission(str(tmp_path / "p.ipynb"), extra_cells=[
            "import os\nraise RuntimeError(str(os.getpid() == 1))\n"]), pool)
        assert report_of(pid_ns) == "False"


@needs_namespaces
@pytest.mark.skipif(os.geteuid() != 0, reason="the drop to nobody happens when grading runs as root")
def test_grading_as_root_runs_student_code_as_nobody(make_submission, tmp_path, pool):
    cell = ("uid_line = [l for l in open('/proc/self/status') if l.startswith('Uid:')][0]\n"
            "raise RuntimeError('STATUS ' + uid_line.split()[1] + ' ' + open('/proc/self/uid_map').read())\n")
    r = grade(make_submission(str(tmp_path / "u.ipynb"), extra_cells=[cell]), pool)
    _, uid, inside, outside, count = report_of(r).split()
    # its own user namespace calls it 1000; outside, that is nobody, never root
    assert (uid, inside, outside, count) == ("1000", "1000", str(sandbox.NOBODY), "1")
