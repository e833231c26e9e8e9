"""The sandbox's walls, attacked from inside a submission: as root, and as an ordinary user.

``isolation_driver.py`` grades an honest A1 solution with attacking cells (walk the whole disk for
solutions and gradebooks, plant a ``.pth`` file on the Python path, fill ``/tmp`` and ``/dev/shm``,
leave files for the next submission, look at the host's processes, reach a host TCP port, a Unix
socket and an abstract socket, look at the repository and the grading folder). Every attack must
come back empty-handed and the honest code around it must still get full marks. The same driver
runs as the user running the tests and, when that is root, as a throwaway ordinary user created
for the test (elsewhere the tests already run as an ordinary user, and that half is skipped).
"""
import contextlib
import json
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

import pytest

from autograder import sandbox
from autograder.sandbox import REPO

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "isolation_driver.py")
HOST_SECRET = "secret-of-the-host.txt"


@contextlib.contextmanager
def host_bait(owner=None):
    """What a submission must not reach: another checkout's solutions, a gradebook, a host file,
    a listening TCP port, a Unix socket in a host folder and an abstract socket."""
    bait = tempfile.mkdtemp(prefix="bait-")
    os.chmod(bait, 0o755)
    other = os.path.join(bait, "other-checkout", "solutions", "A1")
    os.makedirs(other)
    shutil.copy(os.path.join(REPO, "solutions", "A1", "A1.py"), other)
    os.makedirs(os.path.join(bait, "grading"))
    for name in ("grading/gradebook.db", HOST_SECRET):
        with open(os.path.join(bait, name), "w") as f:
            f.write("x")
    for dirpath, dirnames, filenames in os.walk(bait):  # readable by the ordinary user outside the sandbox
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o755)
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), 0o644)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    unix = socket.socket(socket.AF_UNIX)
    unix_path = os.path.join(bait, "host.sock")
    unix.bind(unix_path)
    os.chmod(unix_path, 0o777)
    unix.listen(8)
    abstract = socket.socket(socket.AF_UNIX)
    abstract_name = "\0grader-test-" + secrets.token_hex(4)
    abstract.bind(abstract_name)
    abstract.listen(8)
    accepted = []

    def accept(s):
        try:
            while True:
                accepted.append(s.accept()[0])
        except OSError:
            pass
    for s in (tcp, unix, abstract):
        threading.Thread(target=accept, args=(s,), daemon=True).start()
    try:
        yield {"port": tcp.getsockname()[1], "unix": unix_path, "abstract": abstract_name,
               "places": [os.path.join(REPO, p) for p in ("solutions", "autograder", "engine", ".git", "README.md")]
               + [bait, os.path.join(bait, "grading")]}, accepted
    finally:
        for s in (tcp, unix, abstract):
            s.close()
        for name in ("grading/gradebook.db", HOST_SECRET):   # the bait is as it was
            with open(os.path.join(bait, name)) as f:
                assert f.read() == "x"
        shutil.rmtree(bait, ignore_errors=True)


def _grader_leftovers():
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith(("grade-pool-", "grade-boxes-",
                                                                          "grade-root-", "grade-probe-"))}


def run_driver(bait, work, command_prefix=(), env_extra=None):
    config = dict(bait, work=work)
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    os.chmod(path, 0o644)
    env = {"PATH": "/usr/bin:/bin", "HOME": work, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(env_extra or {})
    out = subprocess.run(list(command_prefix) + [sys.executable, DRIVER, path], capture_output=True, text=True,
                         env=env, cwd=work, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def check_walls(result, accepted):
    v = result["verdicts"]
    assert result["isolation"] == "namespaces"
    assert result["totals"] == [20, 20, 0], result   # the honest code loses nothing; the cheat gains nothing
    assert v["walk"].startswith("NONE"), v["walk"]   # no solutions, gradebook or host file anywhere on its disk
    assert int(v["walk"].split()[1]) > 1000          # (it did walk something: the Python installation)
    assert v["write"] == "NONE", v["write"]          # nothing on its Python path, in the engine or in /io
    tmp, shm = v["tmp"].split(" shm=")
    assert tmp.startswith("CAPPED") and int(tmp.split()[1]) <= sandbox.TMP_MB, v["tmp"]
    assert shm.startswith("CAPPED") and int(shm.split()[1]) <= sandbox.SHM_MB, v["tmp"]
    assert v["leave"] == "LEFT" and v["left"] == "CLEAN"   # the next submission finds nothing of this one
    assert v["procs"].startswith("OWN") and int(v["procs"].split()[1]) <= 3, v["procs"]
    assert v["unmount"] in ("LOCKED 0", "LOCKED -1"), v["unmount"]   # the mounts it was given stay in place
    assert v["net"] == "tcp:REFUSED unix:REFUSED abstract:REFUSED", v["net"]
    assert accepted == []
    assert v["look"] == "ABSENT", v["look"]
    assert not result.get("other_notes"), result


def test_a_submission_reaches_nothing_of_the_machine(tmp_path):
    before = _grader_leftovers()
    work = tempfile.mkdtemp(prefix="iso-")
    try:
        with host_bait() as (bait, accepted):
            check_walls(run_driver(bait, work), accepted)
        assert not [n for n in os.listdir(tempfile.gettempdir()) if "left-by-a-submission" in n]
        assert _grader_leftovers() <= before   # no temporary folder of the grader survives the batch
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- as an ordinary user ---------------------------------------------------------------------------
@contextlib.contextmanager
def throwaway_user():
    name = "grt" + secrets.token_hex(3)
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name],
                   check=True, capture_output=True)
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
        subprocess.run(["userdel", name], capture_output=True)


def as_user_prefix(user, staging):
    """Run a command as ``user``, with the folders on the way to this Python installation (pyenv under a
    closed ``/root``, say) opened for it in a private mount namespace: an empty tmpfs over each closed
    folder, into which only the installation and the repository are mounted back."""
    needed = [sys.base_prefix, sys.prefix, REPO]
    script, k = [], 0
    for ancestor in sorted({a for a in (sandbox._blocked_for_others(p) for p in needed) if a}):
        moves = []
        for p in sorted({os.path.abspath(p) for p in needed if p.startswith(ancestor + os.sep)}):
            stage = os.path.join(staging, str(k))
            os.makedirs(stage)
            k += 1
            script.append(f"mount --bind '{p}' '{stage}'")
            moves.append(f"mkdir -p '{p}' && mount --move '{stage}' '{p}'")
        script.append(f"mount -t tmpfs -o mode=755 none '{ancestor}'")
        script.extend(moves)
    drop = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--"]
    if not script:
        return drop
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", " && ".join(script) + ' && exec "$@"',
            "sh"] + drop


needs_root = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("useradd") or not shutil.which("setpriv"),
                                reason="the ordinary-user half creates a throwaway user: it needs root (as an "
                                       "ordinary user, the test above already is that half)")


@needs_root
def test_as_an_ordinary_user_a_submission_reaches_nothing_either():
    with throwaway_user() as user:
        work = tempfile.mkdtemp(prefix="iso-user-")
        staging = tempfile.mkdtemp(prefix="iso-stage-")
        os.chown(work, user.pw_uid, user.pw_gid)
        try:
            with host_bait() as (bait, accepted):
                result = run_driver(bait, work, as_user_prefix(user, staging))
                check_walls(result, accepted)
            left = subprocess.run(["pgrep", "-u", user.pw_name], capture_output=True, text=True).stdout.split()
            assert left == [], left   # no process of the grader or the submission survives the batch
        finally:
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(staging, ignore_errors=True)


# --- where the kernel gives no namespaces ------------------------------------------------------------
NO_NAMESPACES = ["unshare", "-Ur", "sh", "-c", 'echo 0 > /proc/sys/user/max_mnt_namespaces && exec "$@"', "sh"]


def _kernel_can_forbid_namespaces():
    try:
        return subprocess.run(NO_NAMESPACES + ["true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.skipif(not _kernel_can_forbid_namespaces(), reason="cannot make a user namespace that forbids more")
def test_without_namespaces_grading_refuses_and_says_what_to_enable(tmp_path):
    """Inside a user namespace whose limit on mount namespaces is 0, the sandbox cannot be built:
    grading refuses, in one line, naming the setting to change; it never grades unsafely."""
    code = ("import sys; sys.path.insert(0, %r)\nfrom autograder import sandbox\ntry:\n"
            "    sandbox.WorkerPool()\nexcept sandbox.IsolationUnavailable as e:\n    print('REFUSED', e)\n"
            "else:\n    print('GRADED')\n" % REPO)
    out = subprocess.run(NO_NAMESPACES + [sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.startswith("REFUSED refusing to grade"), out.stdout + out.stderr[-2000:]
    assert "user.max_user_namespaces" in out.stdout and "apparmor_restrict_unprivileged_userns" in out.stdout
    # a student's self-check of their own code still runs, and says how it ran
    code = code.replace("sandbox.WorkerPool()", "p = sandbox.WorkerPool(require_isolation=False); "
                                                "print('BASIC', p.isolation); p.close()")
    out = subprocess.run(NO_NAMESPACES + [sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.startswith("BASIC basic"), out.stdout + out.stderr[-2000:]


@needs_root
def test_an_ordinary_user_grades_a_class_into_their_own_gradebook():
    """The usual case: an instructor's laptop account runs ``python -m autograder grade``. Honest work
    gets full marks, the blank release 0, in the gradebook that user owns; nothing survives."""
    from autograder import samples
    with throwaway_user() as user:
        work = tempfile.mkdtemp(prefix="iso-grade-")
        staging = tempfile.mkdtemp(prefix="iso-stage-")
        try:
            samples.write_submission("A1", os.path.join(work, "subs", "honest", "A1.ipynb"))
            samples.write_submission("A1", os.path.join(work, "subs", "untouched", "A1.ipynb"), blank=True)
            for dirpath, dirnames, filenames in os.walk(work):
                for name in dirnames + filenames + [""]:
                    os.chown(os.path.join(dirpath, name), user.pw_uid, user.pw_gid)
            env = {"PATH": "/usr/bin:/bin", "HOME": work, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
                   "JUPYTER_DATA_DIR": os.path.join(work, "jd"), "JUPYTER_CONFIG_DIR": os.path.join(work, "jc")}
            out = subprocess.run(as_user_prefix(user, staging) + [
                sys.executable, "-m", "autograder", "grade", "--assignment", "A1", os.path.join(work, "subs"),
                "--root", os.path.join(work, "grading"), "--json"], capture_output=True, text=True, env=env,
                cwd=REPO, timeout=300)
            assert out.returncode == 0, out.stderr[-3000:]
            data = json.loads(out.stdout[:out.stdout.rindex("}") + 1])
            assert data["honest"]["total"] == 20 and data["untouched"]["total"] == 0, data
            db = os.path.join(work, "grading", "gradebook.db")
            assert os.stat(db).st_uid == user.pw_uid
            from nbgrader.api import Gradebook
            with Gradebook("sqlite:///" + db) as gb:
                assert gb.find_submission("A1", "honest").score == 20
            left = subprocess.run(["pgrep", "-u", user.pw_name], capture_output=True, text=True).stdout.split()
            assert left == [], left
        finally:
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(staging, ignore_errors=True)
