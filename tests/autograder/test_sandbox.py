"""The sandbox's warm worker (one zygote per batch, a fresh child per submission) and its walls.

Each test runs a submission whose extra cell attacks the sandbox and reports what happened by
raising: the grader's notes carry ``code cell N raised RuntimeError: <report>``.
"""
import os
import time

import pytest

from autograder import grading, sandbox

TASKS = ("record", "backward_order", "backprop", "unbroadcast", "grads", "tape")
needs_namespaces = pytest.mark.skipif(not sandbox.unshare_works(), reason="no private namespaces on this machine")

FIND_ZYGOTE = """
import os
def find_zygote():
    for p in os.listdir('/proc'):
        try:
            if p.isdigit() and b'--serve' in open(f'/proc/{p}/cmdline', 'rb').read():
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
def test_a_child_cannot_read_the_workers_memory(make_submission, tmp_path, pool):
    cell = FIND_ZYGOTE + ("z = find_zygote()\ntry:\n    open(f'/proc/{z}/mem', 'rb').read(1)\n    outcome = 'READ'\n"
                          "except OSError as e:\n    outcome = f'DENIED {z is not None} ' + type(e).__name__\n"
                          "raise RuntimeError(outcome)\n")
    r = grade(make_submission(str(tmp_path / "m.ipynb"), extra_cells=[cell]), pool)
    assert report_of(r).startswith("DENIED True"), r["_notes"]


def test_a_submission_cannot_kill_the_worker_and_a_dead_worker_is_replaced(make_submission, tmp_path, pool):
    cell = FIND_ZYGOTE + ("import signal\ntry:\n    os.kill(find_zygote(), signal.SIGKILL)\n    outcome = 'KILLED'\n"
                          "except OSError as e:\n    outcome = 'DENIED ' + type(e).__name__\n"
                          "raise RuntimeError(f'{outcome} {os.getpid() == 1}')\n")
    starts = pool.starts
    r1 = grade(make_submission(str(tmp_path / "k.ipynb"), extra_cells=[cell]), pool)
    assert total(r1) == 20  # its own child went on either way
    if report_of(r1).endswith("True"):  # in its own PID namespace, the worker's pid names nothing
        assert report_of(r1) == "DENIED ProcessLookupError True", r1["_notes"]
        assert pool.starts == starts
    os.kill(pool.proc.pid, 9)  # however it dies, the next submission gets a new worker
    pool.proc.wait()
    r2 = grade(make_submission(str(tmp_path / "next.ipynb")), pool)
    assert total(r2) == 20 and pool.starts > starts


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
    if sandbox.unshare_works() and pool_processes(pool) != [pool.proc.pid]:
        # only where the kernel refused the child a PID namespace may the escaped loop outlive it
        pid_ns = grade(make_submission(str(tmp_path / "p.ipynb"), extra_cells=[
            "import os\nraise RuntimeError(str(os.getpid() == 1))\n"]), pool)
        assert report_of(pid_ns) == "False"


@needs_namespaces
@pytest.mark.skipif(os.geteuid() != 0, reason="the drop to nobody happens when grading runs as root")
def test_grading_as_root_runs_student_code_as_nobody(make_submission, tmp_path, pool):
    cell = ("import os\nuid_line = [l for l in open('/proc/self/status') if l.startswith('Uid:')][0]\n"
            "cap_line = [l for l in open('/proc/self/status') if l.startswith('CapEff:')][0]\n"
            "raise RuntimeError('STATUS ' + uid_line.split()[1] + ' ' + cap_line.split()[1])\n")
    r = grade(make_submission(str(tmp_path / "u.ipynb"), extra_cells=[cell]), pool)
    _, uid, caps = report_of(r).split()
    # /proc shows the uid as the child's own user namespace sees it: unmapped (65534), never 0
    assert uid != "0"
    # and the zygote itself, seen from here, is nobody
    assert os.stat(f"/proc/{pool.proc.pid}").st_uid == sandbox.NOBODY


def test_closed_folders_on_the_way_to_python_are_found_and_bridged():
    import pathlib
    import shutil
    import tempfile
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="expose-"))  # pytest's own tmp folders are closed (0700)
    closed = tmp_path / "home"
    (closed / "me" / "python").mkdir(parents=True)
    os.chmod(tmp_path, 0o755)
    os.chmod(closed, 0o700)
    target = closed / "me" / "python"
    assert sandbox._blocked_for_others(str(target)) == str(closed)
    assert sandbox._blocked_for_others(str(tmp_path)) is None
    staging = tmp_path / "staging"
    cmds = sandbox._expose([str(target), str(tmp_path)], str(staging))
    # the needed folder is set aside, the closed one covered by an open tmpfs, the needed one put back
    assert cmds == [f"mount --bind '{target}' '{staging}/0'",
                    f"mount -t tmpfs -o size=1m,mode=755 none '{closed}'",
                    f"mkdir -p '{target}' && mount --move '{staging}/0' '{target}'"]
    shutil.rmtree(tmp_path)
