"""`make lab` (the README's course command) starts JupyterLab with nbgrader working: the formgrader
sees this course (its sources, the gradebook) and the assignment list hands out released assignments."""
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
        yield base, token
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
    base, token = lab
    status, page = _get(f"{base}/lab/tree/course?token={token}")
    assert status == 200 and "JupyterLab" in page
    status, listing = _get(f"{base}/api/contents/course/lessons?token={token}")
    assert "10_tensors_and_eager.ipynb" in listing and "00_start_here.ipynb" in listing
    makefile = open(os.path.join(REPO, "Makefile")).read()
    assert "default_url=/lab/tree/course/lessons/00_start_here.ipynb" in makefile   # make lab opens the start page


def test_formgrader_works_on_this_course(lab):
    base, token = lab
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
    base, token = lab
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
