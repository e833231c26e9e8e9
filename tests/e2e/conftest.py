"""The browser tests' machinery: one JupyterLab (started as the README says, `make lab`), one Chromium.

JupyterLab runs with its own Jupyter state for this module, so nothing it does reaches the user's
(or the rest of the suite's): a Jupyter config/data/runtime folder, a grading folder
(``COURSE_GRADING_DIR``: gradebook, exchange, submissions) and a token of its own, on a free port. The
student's side of nbgrader's exchange (where the Assignment List fetches to) is a fresh folder under
``build/`` in the repository: it must lie inside the server's root for JupyterLab to open the fetched
notebook, and it must not be the repository root, where a real student's fetched ``A1/`` may be.
JupyterLab's autosave is off, so running a lesson in the browser never writes the notebook back, and the
checkpoints it makes of each notebook it opens go to the module's folder, not beside the notebook.

The browser is Debian's ``chromium`` (``apt-get install chromium``; ``.ci/run`` installs it when run as
root), driven by Playwright's Python package, which ships only the driver: no browser is ever
downloaded. Where either is missing, the tests are skipped with a message saying so.

When a test fails, every page it had open is saved as a PNG (and its HTML) into one temporary folder,
whose path the failure report prints. At the end no process survives: the server's kernels are shut
down through its API, then the server's process group is ended, then any descendant left over is
killed by its pid (and named in an error).
"""
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from autograder.sandbox import REPO

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TOKEN = "course-e2e-token"

# JupyterLab's user settings for the test: no autosave (a lesson run in the browser must not be saved into
# the repository), every cell in the DOM (the default windowing leaves cells outside the viewport out of it,
# and the tests read outputs from the DOM), no news or update check (the network is closed).
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}

_SHOTS = {"dir": None}
_OPEN_PAGES = []


def chromium_path():
    return shutil.which("chromium") or ("/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A running JupyterLab: its URL, token, the folders it was given, and its REST API."""

    def __init__(self, base, grading, student_dir, data_dir):
        self.base, self.token = base, TOKEN
        self.grading, self.student_dir, self.data_dir = grading, student_dir, data_dir

    def url(self, path):
        sep = "&" if "?" in path else "?"
        return f"{self.base}/{path.lstrip('/')}{sep}token={self.token}"

    def api(self, path, method="GET"):
        req = urllib.request.Request(self.url(path), method=method)
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read().decode()
        return json.loads(body) if body else None

    def shutdown_kernels(self):
        """End every session and kernel the server runs (a closed browser tab leaves its kernel running)."""
        for session in self.api("api/sessions"):
            self.api(f"api/sessions/{session['id']}", method="DELETE")
        for kernel in self.api("api/kernels"):
            self.api(f"api/kernels/{kernel['id']}", method="DELETE")


def _children():
    """pid -> parent pid, for every process."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    out[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    return out


def descendants(pid):
    parents = _children()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier and p not in found}
        found |= frontier
    return found


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def kill_leftovers(pids, what):
    """Kill, by pid, whichever of ``pids`` still runs; return their command lines (empty if none did)."""
    left = [p for p in pids if _alive(p)]
    names = [f"{p} {_cmdline(p)[:120]}" for p in left]
    for p in left:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return [f"{what}: {n}" for n in names]


def _write_settings(config_dir):
    for plugin, values in LAB_SETTINGS.items():
        path = os.path.join(config_dir, "lab", "user-settings", plugin + ".jupyterlab-settings")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(values, f)


def _wait_until_up(proc, lab, log_path):
    deadline = time.monotonic() + 120
    while True:
        try:
            lab.api("api/status")
            return
        except (urllib.error.URLError, ConnectionError, OSError, ValueError):
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            with open(log_path, errors="replace") as f:
                pytest.fail("JupyterLab did not start: " + f.read()[-3000:])
        time.sleep(0.3)


def browser_or_skip():
    """Playwright's sync API and the Chromium to drive; skip the test (with what to install) if either is missing."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright is not installed: pip install -e '.[test]'")
    exe = chromium_path()
    if exe is None:
        pytest.skip("no Chromium found (the browser tests use Debian's: apt-get install chromium; "
                    ".ci/run installs it when run as root)")
    return sync_api, exe


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """`make lab ARGS=...` with this module's own Jupyter state; yields a :class:`Lab`. (Only where a browser
    can drive it.)"""
    browser_or_skip()
    if shutil.which("make") is None:
        pytest.skip("needs make")
    state = tmp_path_factory.mktemp("e2e-lab")
    grading, config, data, runtime = (state / n for n in ("grading", "config", "data", "runtime"))
    for d in (grading, config, data, runtime):
        d.mkdir()
    made_build = not os.path.isdir(os.path.join(REPO, "build"))
    os.makedirs(os.path.join(REPO, "build"), exist_ok=True)
    student_dir = tempfile.mkdtemp(prefix="e2e-student-", dir=os.path.join(REPO, "build"))
    # nbgrader reads the Assignment List's config from the server root (the course's nbgrader_config.py) and
    # then from Jupyter's config path with the student's folder as the working directory: this one says where
    # the student's copies go and where the exchange is (the course config puts it in COURSE_GRADING_DIR too)
    (config / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821\n"
        f"c.Exchange.assignment_dir = {student_dir!r}\n"
        f"c.Exchange.root = {str(grading / 'exchange')!r}\n")
    _write_settings(str(config))
    # JupyterLab makes a checkpoint of every notebook it opens, by default in an .ipynb_checkpoints folder
    # beside it (in the repository): put them in this module's folder instead
    (config / "jupyter_server_config.py").write_text(
        "c = get_config()  # noqa: F821\n"
        f"c.FileCheckpoints.checkpoint_dir = {str(state / 'checkpoints')!r}\n")
    untouched = _repo_checkpoints()
    old = os.environ.get("COURSE_GRADING_DIR")
    os.environ["COURSE_GRADING_DIR"] = str(grading)   # for this process's autograder calls (release, gradebook)
    port = _free_port()
    env = dict(os.environ, COURSE_GRADING_DIR=str(grading), JUPYTER_CONFIG_DIR=str(config),
               JUPYTER_DATA_DIR=str(data), JUPYTER_RUNTIME_DIR=str(runtime))
    args = f"--no-browser --port={port} --ServerApp.token={TOKEN} --ServerApp.port_retries=0"
    log_path = state / "lab.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(["make", "-s", "lab", f"ARGS={args}"], cwd=REPO, env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    lab = Lab(f"http://127.0.0.1:{port}", grading, student_dir, data)
    leftovers = []
    try:
        _wait_until_up(proc, lab, log_path)
        yield lab
    finally:
        family = descendants(proc.pid)
        try:
            lab.shutdown_kernels()
        except (urllib.error.URLError, ConnectionError, OSError, ValueError):
            pass
        family |= descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        deadline = time.monotonic() + 10   # the server ends its kernels as it exits: give them a moment
        while any(_alive(p) for p in family) and time.monotonic() < deadline:
            time.sleep(0.2)
        leftovers = kill_leftovers(family, "JupyterLab")
        shutil.rmtree(student_dir, ignore_errors=True)
        if made_build:
            try:
                os.rmdir(os.path.join(REPO, "build"))
            except OSError:
                pass
        if old is None:
            os.environ.pop("COURSE_GRADING_DIR", None)
        else:
            os.environ["COURSE_GRADING_DIR"] = old
    assert not leftovers, f"processes outlived the module (killed now): {leftovers}"
    assert _repo_checkpoints() == untouched, "JupyterLab wrote checkpoints into the repository"


def _repo_checkpoints():
    """The checkpoint files in the repository's course folders (JupyterLab's .ipynb_checkpoints)."""
    return sorted(p for top in ("course", "solutions") for p in
                  glob.glob(os.path.join(REPO, top, "**", ".ipynb_checkpoints", "*"), recursive=True))


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A headless Chromium (Debian's) with a fresh profile, driven by Playwright; yields its context."""
    sync_api, exe = browser_or_skip()
    profile = tmp_path_factory.mktemp("e2e-chromium")
    before = descendants(os.getpid())
    manager = sync_api.sync_playwright().start()
    parents = _children()
    drivers = {p for p in descendants(os.getpid()) - before if parents.get(p) == os.getpid()}  # Playwright's driver
    family = set(drivers)
    try:
        context = manager.chromium.launch_persistent_context(
            str(profile), executable_path=exe, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 900})
        context.set_default_timeout(30_000)
        yield context
        for driver in drivers:
            family |= descendants(driver)
        context.close()
    finally:
        for driver in drivers:
            family |= descendants(driver)
        manager.stop()
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in family) and time.monotonic() < deadline:
            time.sleep(0.2)
        leftovers = kill_leftovers(family, "Chromium")
        shutil.rmtree(profile, ignore_errors=True)
    assert not leftovers, f"processes outlived the module (killed now): {leftovers}"


@pytest.fixture
def page(browser):
    """A new tab, closed afterwards (without running the page's unload handlers: nothing is saved)."""
    tab = browser.new_page()
    _OPEN_PAGES.append(tab)
    yield tab
    _OPEN_PAGES.remove(tab)
    tab.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed and _OPEN_PAGES:
        if _SHOTS["dir"] is None:
            _SHOTS["dir"] = tempfile.mkdtemp(prefix="e2e-screenshots-")
        saved = []
        for k, tab in enumerate(_OPEN_PAGES):
            stem = os.path.join(_SHOTS["dir"], f"{item.name}-{k}".replace("/", "_"))
            try:
                tab.screenshot(path=stem + ".png", full_page=True)
                with open(stem + ".html", "w", encoding="utf-8") as f:
                    f.write(tab.content())
                saved.append(stem + ".png")
            except Exception as e:  # noqa: BLE001 - a failed screenshot must not hide the failure
                saved.append(f"(no screenshot: {e})")
        report.sections.append(("e2e screenshots", "\n".join(saved)))
        print(f"\n[e2e] screenshots of the failed test: {_SHOTS['dir']}")
