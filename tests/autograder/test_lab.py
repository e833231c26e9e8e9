"""`make lab` (the README's course command) starts JupyterLab with nbgrader working: the formgrader
sees this course (its sources, the gradebook), its Autograde button grades in the sandbox, the
assignment list hands out released assignments, and the self-check is spelled the same in a
notebook cell and in a terminal."""
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from autograder import release
from autograder.sandbox import REPO

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read().decode()


def _post(url, token, body=None, timeout=120):
    req = urllib.request.Request(url, data=json.dumps(body or {}).encode(), method="POST",
                                 headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read().decode()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    grading = tmp_path_factory.mktemp("grading")
    runtime = tmp_path_factory.mktemp("runtime")
    old = os.environ.get("COURSE_GRADING_DIR")
    os.environ["COURSE_GRADING_DIR"] = str(grading)
    port, token = _free_port(), "course-test-token"
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(runtime), COURSE_GRADING_DIR=str(grading))
    args = f"--no-browser --port={port} --ServerApp.token={token} --ServerApp.port_retries=0"
    proc = subprocess.Popen(["make", "-s", "lab", f"ARGS={args}"], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        release.publish("A1")  # what `python -m autograder release` does after generating the release
        deadline = time.monotonic() + 90
        while True:
            try:
                if _get(f"{base}/api/status?token={token}")[0] == 200:
                    break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("JupyterLab did not start: " + proc.stderr.read().decode()[-2000:])
            time.sleep(0.3)
        yield base, token, grading, runtime
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        if old is None:
            os.environ.pop("COURSE_GRADING_DIR", None)
        else:
            os.environ["COURSE_GRADING_DIR"] = old


def test_lab_opens_the_course(lab):
    base, token, *_ = lab
    status, page = _get(f"{base}/lab/tree/course?token={token}")
    assert status == 200 and "JupyterLab" in page
    status, listing = _get(f"{base}/api/contents/course/lessons?token={token}")
    assert "10_tensors_and_eager.ipynb" in listing and "00_start_here.ipynb" in listing
    names = [item["name"] for item in json.loads(listing)["content"]]
    assert not [n for n in names if n.endswith(".py")], names   # each lesson once: its jupytext twin is hidden
    names = [item["name"] for item in json.loads(_get(f"{base}/api/contents/solutions/A1?token={token}")[1])["content"]]
    assert "A1.ipynb" in names and "A1.py" not in names, names
    makefile = open(os.path.join(REPO, "Makefile")).read()
    assert "default_url=/lab/tree/course/lessons/00_start_here.ipynb" in makefile   # make lab opens the start page


def test_formgrader_works_on_this_course(lab):
    base, token, *_ = lab
    status, page = _get(f"{base}/formgrader?token={token}")
    assert status == 200
    assert "not a subdirectory" not in page and "nbgrader will not work" not in page
    status, body = _get(f"{base}/formgrader/api/assignments?token={token}")
    assignments = {a["name"]: a for a in json.loads(body)}
    assert "A1" in assignments, body  # found in solutions/, as nbgrader_config.py says
    # the formgrader links to the source notebooks through the server: they must lie inside its root
    status, _ = _get(f"{base}/api/contents/solutions/A1/A1.ipynb?token={token}")
    assert status == 200


def test_assignment_list_hands_out_the_released_assignment(lab):
    base, token, *_ = lab
    status, body = _get(f"{base}/assignments?course_id=tf-internals&token={token}")
    data = json.loads(body)
    assert data["success"], data
    released = {a["assignment_id"]: a for a in data["value"]}
    assert released["A1"]["status"] == "released" and released["A1"]["course_id"] == "tf-internals"


def test_the_suite_uses_a_private_jupyter_home():
    # (tests/conftest.py) nothing here reads the user's nbgrader cache or Jupyter config
    from jupyter_core.paths import jupyter_config_dir, jupyter_data_dir
    home = os.path.expanduser("~")
    for path in (jupyter_data_dir(), jupyter_config_dir(), os.environ["JUPYTER_RUNTIME_DIR"]):
        assert "tests-jupyter-" in path and not path.startswith(os.path.join(home, ".jupyter")) \
            and not path.startswith(os.path.join(home, ".local")), path
    from nbgrader.exchange.default.exchange import Exchange
    assert "tests-jupyter-" in Exchange().cache


def test_the_formgrader_s_autograde_button_grades_in_the_sandbox(lab):
    """POST .../autograde is what the button sends; `release` registered A1 in the gradebook before any `grade`."""
    from autograder import assignments, batch, samples
    base, token, grading, _ = lab
    marker = grading / "written-by-the-submission"
    samples.write_submission("A1", str(grading / "submitted" / "pat" / "A1" / "A1.ipynb"),
                             extra_cells=[f"open({str(marker)!r}, 'w').write('ran outside the sandbox')\n"])
    status, body = _post(f"{base}/formgrader/api/submission/A1/pat/autograde", token)
    assert status == 200 and json.loads(body)["success"], body[-2000:]
    assert not marker.exists()
    res = batch.gradebook_results("A1", str(grading))
    full = sum(t.points for t in assignments.get("A1").TASKS)
    assert sum(res["pat"][t.name]["score"] for t in assignments.get("A1").TASKS) == full
    assert res["pat"]["_isolation"], res["pat"]


async def _terminal(base, token, name, command, until, timeout=90):
    """Type ``command`` into terminal ``name`` (a websocket, as JupyterLab's terminal does) and return what
    it prints up to ``until``."""
    from tornado.websocket import websocket_connect
    ws = await websocket_connect(f"ws{base[4:]}/terminals/websocket/{name}?token={token}")
    try:
        ws.write_message(json.dumps(["stdin", command + "\r"]))
        out, deadline = "", time.monotonic() + timeout
        while until not in out and time.monotonic() < deadline:
            msg = await asyncio.wait_for(ws.read_message(), timeout=max(deadline - time.monotonic(), 0.1))
            if msg is None:
                break
            kind, *data = json.loads(msg)
            if kind == "stdout":
                out += data[0]
        return out
    finally:
        ws.close()


def test_the_self_check_has_one_spelling_in_a_terminal(lab):
    """JupyterLab's terminal, opened in the notebook's folder: `python` is the course's, as in a notebook cell
    (jupyter_server would start a login shell, whose /etc/profile drops .venv/bin from PATH)."""
    base, token, *_ = lab
    _, body = _post(f"{base}/api/terminals", token, {"cwd": "course/assignments/A1"})
    name = json.loads(body)["name"]
    try:
        out = asyncio.run(_terminal(base, token, name, "command -v python; python -m autograder check A1.ipynb; "
                                                       "echo done-$((40+2))", "done-42"))
    finally:
        urllib.request.urlopen(urllib.request.Request(f"{base}/api/terminals/{name}", method="DELETE",
                                                      headers={"Authorization": f"token {token}"}), timeout=10)
    assert os.path.join(REPO, ".venv", "bin", "python") in out, out[-2000:]
    assert "self-check of A1" in out and "No module named" not in out and "error:" not in out, out[-2000:]


def test_the_self_check_has_one_spelling_in_a_notebook_cell(lab):
    """``!python -m autograder check A1.ipynb`` in the released notebook's kernel (which runs in its folder)."""
    from jupyter_client import BlockingKernelClient
    base, token, _, runtime = lab
    _, body = _post(f"{base}/api/sessions", token, {"path": "course/assignments/A1/A1.ipynb", "type": "notebook",
                                                    "name": "A1.ipynb", "kernel": {"name": "python3"}})
    session = json.loads(body)
    try:
        client = BlockingKernelClient(connection_file=str(runtime / f"kernel-{session['kernel']['id']}.json"))
        client.load_connection_file()
        client.start_channels()
        try:
            client.wait_for_ready(timeout=60)
            out = []
            reply = client.execute_interactive("!python -m autograder check A1.ipynb", timeout=120,
                                               output_hook=lambda m: out.append(m["content"].get("text", "")))
        finally:
            client.stop_channels()
    finally:
        urllib.request.urlopen(urllib.request.Request(f"{base}/api/sessions/{session['id']}", method="DELETE",
                                                      headers={"Authorization": f"token {token}"}), timeout=10)
    text = "".join(out)
    assert reply["content"]["status"] == "ok" and "self-check of A1" in text, text[-2000:]
