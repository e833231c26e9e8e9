"""``python -m engine.distribute.launch``: TF_CONFIG per task, prefixed output, and every task stopped at the end.

The tasks (``launch_task.py``) do not import the engine, so each run costs a few
Python start-ups. Every run checks that no task outlives the launcher.
"""
import io
import json
import os
import pathlib
import re
import subprocess
import sys
import time

import pytest

import engine as tf
from engine.distribute import launch

HERE = pathlib.Path(__file__).resolve().parent
TASK = str(HERE / "launch_task.py")


def _run(mode, tmp_path, **kw):
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    status = launch.launch(TASK, [mode, str(tmp_path)], stdout=out, stderr=err, grace=2.0, **kw)
    elapsed = time.monotonic() - start
    pids = [int(p) for p in re.findall(r"\] pid (\d+)", out.getvalue())]
    for pid in pids:                      # the launcher waited for every task: none is left
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    return status, out.getvalue(), err.getvalue(), elapsed, pids


def test_every_task_gets_its_tf_config_and_a_prefix(tmp_path):
    status, out, err, _, pids = _run("ok", tmp_path, workers=3)
    assert status == 0 and len(pids) == 3
    for i in range(3):
        assert re.search(rf"^\[worker {i}\] pid \d+ task worker {i} of \['worker'\]$", out, re.M), out
        assert f"[worker {i}] to stderr from worker {i}\n" in err
    assert re.match(r"\[launch\] worker 0 at 127\.0\.0\.1:\d+, worker 1 at 127\.0\.0\.1:\d+, worker 2 at "
                    r"127\.0\.0\.1:\d+\n", err), err


def test_with_ps_the_chief_leads_and_the_servers_are_stopped_when_it_ends(tmp_path):
    status, out, err, elapsed, pids = _run("ok", tmp_path, workers=2, ps=1)
    assert status == 0 and len(pids) == 4, out + err
    for name in ("chief 0", "worker 0", "worker 1", "ps 0"):
        assert f"[{name}] pid" in out
    assert "of ['chief', 'ps', 'worker']" in out
    assert elapsed < 20


def test_a_failed_task_stops_the_others_with_its_status(tmp_path):
    status, out, err, elapsed, pids = _run("fail", tmp_path, workers=3)
    assert status == 3 and len(pids) == 3, out + err
    assert "[launch] worker 1 exited with status 3: stopping the other tasks" in err
    assert elapsed < 20


def test_a_task_killed_by_a_signal_is_128_plus_the_signal(tmp_path):
    status, _, err, _, _ = _run("killed", tmp_path, workers=2)
    assert status == 128 + 9, err


def test_timeout_stops_everything(tmp_path):
    status, _, err, elapsed, pids = _run("hang", tmp_path, workers=2, timeout=1.0)
    assert status == 124 and len(pids) == 2 and "timed out after 1.0 s" in err
    assert elapsed < 15


def test_the_command_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "engine.distribute.launch", "--workers", "2", "--grace", "1", TASK,
                           "fail", str(tmp_path)], capture_output=True, text=True, timeout=60,
                          cwd=pathlib.Path(launch.__file__).resolve().parents[2])
    assert done.returncode == 3, done.stderr
    assert re.search(r"^\[worker 0\] pid \d+ task worker 0", done.stdout, re.M)
    done = subprocess.run([sys.executable, "-m", "engine.distribute.launch", "--help"], capture_output=True,
                          text=True, timeout=60, cwd=pathlib.Path(launch.__file__).resolve().parents[2])
    assert "--workers" in done.stdout and "--ps" in done.stdout


def test_cluster_and_tf_config_helpers():
    cluster = launch.cluster_spec_dict(2, ps=1, chief=1, ports=[1, 2, 3, 4])
    assert cluster == {"chief": ["127.0.0.1:1"], "worker": ["127.0.0.1:2", "127.0.0.1:3"], "ps": ["127.0.0.1:4"]}
    assert json.loads(launch.tf_config(cluster, "worker", 1)) == {"cluster": cluster,
                                                                    "task": {"type": "worker", "index": 1}}
    assert len(set(launch.free_ports(5))) == 5


def _gone(pid):
    """The process has exited (a zombie waiting for its new parent to reap it counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_tasks_die_with_a_launcher_killed_hard(tmp_path):
    process = subprocess.Popen([sys.executable, "-m", "engine.distribute.launch", "--workers", "2", TASK, "hang",
                                str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               cwd=pathlib.Path(launch.__file__).resolve().parents[2])
    pids = []
    try:
        while len(pids) < 2:
            line = process.stdout.readline()
            assert line, "the launcher ended before its tasks started"
            pids += [int(p) for p in re.findall(r"\] pid (\d+)", line)]
    finally:
        process.kill()          # SIGKILL: the launcher cannot clean up
        process.wait()
    deadline = time.monotonic() + 10
    while not all(_gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(pid) for pid in pids)


def test_launching_from_a_process_that_runs_grpc(tmp_path):
    """The tasks start by exec without a plain fork: gRPC's fork handlers crashed a task's child now and then
    (status 134, "epoll_wait error: Bad file descriptor") when the launcher ran in a process holding
    servers (a test process, a notebook). 2 of 15 launches failed that way before the change."""
    import engine as tf
    servers = [tf.distribute.Server.create_local_server() for _ in range(3)]
    try:
        for s in servers:
            tf.distribute.server_lib.ping(f"127.0.0.1:{s.port}")
        for i in range(12):
            folder = tmp_path / f"r{i}"
            folder.mkdir()
            status, out, err, _, pids = _run("ok", folder, workers=2, ps=1)
            assert status == 0 and len(pids) == 4, out + err
    finally:
        for s in servers:
            s.stop(0)
