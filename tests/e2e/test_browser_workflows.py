"""Both workflows end to end in a real browser (Chromium, driven by Playwright) on `make lab`.

The student: each lesson runs (Run All, in the browser) without an error and shows its pictures (every
solved lesson, and a student's copy); then the Assignment List hands out A1: fetch it, open it, validate
it, submit it.
The instructor: the Formgrader collects that submission, autogrades it (through the course's
sandboxed grader) and shows the score that the honest, complete solution earns.

The machinery (the server, the browser, screenshots of failures, cleaning up) is in conftest.py.
The tests run in this file's order: the instructor's test grades what the student's test submitted.
"""
import ast
import contextlib
import getpass
import glob
import hashlib
import os
import re
import time
import urllib.parse

import nbformat
import pytest

PlaywrightTimeout = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed: "
                                        "pip install -e '.[test]'").TimeoutError

from autograder import assignments, release, samples
from autograder.sandbox import REPO

SOLVED = sorted(glob.glob(os.path.join(REPO, "solutions", "lessons", "*.ipynb")))
RELEASED = sorted(glob.glob(os.path.join(REPO, "course", "lessons", "*.ipynb")))
# Every solved lesson runs in the browser; of the student copies, the one before A1 (its exercises unsolved),
# unless COURSE_E2E_ALL_LESSONS=1 asks for all of them (about 50 s more on 2 cores). Each student copy runs
# without a browser in tests/course/test_lessons_run.py anyway: here it would add only the rendering.
ALL_LESSONS = os.environ.get("COURSE_E2E_ALL_LESSONS") == "1"
STUDENT_SAMPLE = os.path.join(REPO, "course", "lessons", "20_gradient_tape.ipynb")
LESSONS = SOLVED + RELEASED
ASSIGNMENT = "A1"
RUN_TIMEOUT_MS = 120_000

# An error output: JupyterLab renders it like stderr (the same data-mime-type), as the traceback IPython
# formatted: "ZeroDivisionError   Traceback (most recent call last)" ... or, for a SyntaxError, a last line
# "SyntaxError: invalid syntax". Text a program writes to stderr (a warning, a log line) is not an error.
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s*[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)"
                       r"(:|\s*$)", re.MULTILINE)
STDERR = "application/vnd.jupyter.stderr"
SVG = "image/svg+xml"

_STATE = {}   # what the student's test handed in, for the instructor's test


# --- reading a notebook from the page --------------------------------------------------------------------

# Per code cell of the open notebook: its prompt ("[3]:", "[*]:", "[ ]:") and its outputs, each with its
# mime type, its text and how many pictures it shows. JupyterLab shows an image/svg+xml output as an <img>
# of the SVG (a data: URL; an inline <svg> is counted too); a picture counts once the browser decoded it.
READ_CELLS = """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-CodeCell')].map(cell => ({
    prompt: (cell.querySelector('.jp-InputPrompt') || {}).textContent.trim(),
    outputs: [...cell.querySelectorAll('.jp-OutputArea-output')].map(o => ({
        mime: o.getAttribute('data-mime-type'),
        text: o.innerText,
        pictures: [...o.querySelectorAll('img')].filter(
                      i => i.src.startsWith('data:image/svg+xml') && i.complete && i.naturalWidth > 0).length
                  + o.querySelectorAll('svg').length,
    })),
}))"""

# Run All has finished: the first code cell ran (so the run started) and no cell is queued or running ("[*]").
# Run All stops at an error, leaving the cells after it "[ ]": that is also "finished".
RUN_FINISHED = """() => {
    const p = [...document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-CodeCell .jp-InputPrompt')]
        .map(e => e.textContent.trim());
    return p.length > 0 && /^\\[\\d+\\]:$/.test(p[0]) && !p.includes('[*]:');
}"""


def _sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _draws(source):
    """Does this cell end with a drawing call (``viz.draw_graph(g)``, ``draw_ring(record, 0)``)? Its picture
    is then the cell's output."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    last = body[-1] if body else None
    if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)):
        return False
    func = last.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name.startswith("draw_")


def _menu(page, *path):
    """Click through JupyterLab's menu bar: _menu(page, "Run", "Run All Cells")."""
    page.get_by_role("menuitem", name=path[0], exact=True).click()
    for name in path[1:]:
        page.get_by_role("menuitem", name=name, exact=True).click()


def _lab_url(lab, tree=None):
    """JupyterLab in a workspace of its own (an unused name: nothing of an earlier test's tabs is restored;
    ``?reset`` would do the same by reloading the page once it has loaded, under the test's clicks)."""
    _STATE["workspaces"] = _STATE.get("workspaces", 0) + 1
    path = f"lab/workspaces/e2e-{_STATE['workspaces']}"
    return lab.url(path + ("/tree/" + urllib.parse.quote(tree) if tree else ""))


def _open_lab(page, lab):
    page.goto(_lab_url(lab))
    page.locator("#jp-main-dock-panel").wait_for()
    page.locator("#jp-top-panel").get_by_role("menuitem", name="Nbgrader", exact=True).wait_for()


def _kernel_ready(page):
    """Wait until the notebook's kernel has started (the status bar says "Python 3 (ipykernel) | Idle").
    A Run All before that finds no kernel yet, and JupyterLab answers it with its "Select Kernel" dialog."""
    page.locator("#jp-main-statusbar").get_by_text(re.compile(r"\| Idle$")).wait_for(timeout=RUN_TIMEOUT_MS)


def _run_all(page, cells_expected):
    """Open notebook: wait until all its cells are shown and its kernel is up, Run All (the Run menu), wait
    until it has finished."""
    page.wait_for_function(
        "n => document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell').length === n", arg=cells_expected)
    _kernel_ready(page)
    _menu(page, "Run", "Run All Cells")
    page.wait_for_function(RUN_FINISHED, timeout=RUN_TIMEOUT_MS, polling=250)
    page.locator(".jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()


def _read_cells(page, code_cells):
    """The page's code cells, once every SVG picture in them is decoded (it is asynchronous)."""
    deadline = time.monotonic() + 10
    while True:
        cells = page.evaluate(READ_CELLS)
        shown = sum(o["pictures"] for c in cells for o in c["outputs"] if o["mime"] == SVG)
        wanted = sum(1 for c in cells for o in c["outputs"] if o["mime"] == SVG)
        if shown >= wanted or time.monotonic() > deadline:
            assert len(cells) == len(code_cells), (len(cells), len(code_cells))
            return cells
        time.sleep(0.2)


# --- workflow 1, the student: the lessons --------------------------------------------------------------------

def _lesson_params():
    assert STUDENT_SAMPLE in RELEASED, f"{STUDENT_SAMPLE} is gone: choose another student copy to run"
    skip = pytest.mark.skip(reason="the other student copies run in the browser with COURSE_E2E_ALL_LESSONS=1 "
                                   "(tests/course runs them all without a browser)")
    for path in LESSONS:
        name = os.path.relpath(path, REPO).split(os.sep)[0] + "/" + os.path.basename(path)[:-len(".ipynb")]
        wanted = path in SOLVED or path == STUDENT_SAMPLE or ALL_LESSONS
        yield pytest.param(path, id=name, marks=() if wanted else skip)


@pytest.mark.parametrize("path", list(_lesson_params()))
def test_lesson_runs_all_in_the_browser(lab, page, path):
    """Open the lesson in JupyterLab, Run All (Run menu), wait for the kernel to be idle, then read the DOM.

    "No error output" means the same for both versions: no output is a traceback (an error is rendered as
    stderr text holding IPython's traceback: the exception's name, "Traceback (most recent call last)";
    plain stderr text, such as a warning, is allowed), and every code cell ran (Run All stops at the first
    error). The solved lesson (solutions/lessons/) has every exercise right, so its self-check says
    "exercises OK"; the student's copy (course/lessons/) has each exercise's function body as
    `raise NotImplementedError()`, which only runs when the self-check calls it, and the self-check catches
    it and says "not done yet": the copy runs through without an error too. Every cell that ends with a
    drawing call (``viz.draw_graph(...)``, ``draw_ring(...)``) shows an SVG picture the browser decoded
    (Graphviz's SVG, shown by JupyterLab as an image), and so does every other SVG output. Running the
    lesson in the browser does not save it (autosave is off for the test, and the file is unchanged).
    Which lessons: every solved one, and the student's copy of lesson 20 (all of them with
    COURSE_E2E_ALL_LESSONS=1)."""
    rel = os.path.relpath(path, REPO)
    before = _sha(path)
    nb = nbformat.read(path, as_version=4)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    page.goto(_lab_url(lab, rel))
    _run_all(page, len(nb.cells))
    cells = _read_cells(page, code_cells)
    lab.shutdown_kernels()

    not_run = [k for k, c in enumerate(cells) if not re.fullmatch(r"\[\d+\]:", c["prompt"])]
    errors = [o["text"][-600:] for c in cells for o in c["outputs"]
              if o["mime"] == STDERR and TRACEBACK.search(o["text"])]
    assert errors == [], f"{rel}: error output in the browser:\n" + "\n---\n".join(errors)
    assert not_run == [], f"{rel}: code cells that did not run: {not_run}"
    missing = [k for k, (src, c) in enumerate(zip(code_cells, cells))
               if _draws(src.source) and not any(o["mime"] == SVG and o["pictures"] for o in c["outputs"])]
    assert missing == [], f"{rel}: code cells (by index) that draw but show no SVG picture: {missing}"
    broken = sum(1 for c in cells for o in c["outputs"] if o["mime"] == SVG and not o["pictures"])
    assert broken == 0, f"{rel}: {broken} SVG outputs not shown as a picture"
    if any("viz." in c.source for c in code_cells):
        assert any(o["mime"] == SVG for c in cells for o in c["outputs"]), f"{rel} draws but shows no picture"
    text = "\n".join(o["text"] for c in cells for o in c["outputs"])
    if any((c.metadata.get("nbgrader") or {}).get("solution") for c in nb.cells):
        solved = path in SOLVED
        assert ("exercises OK" in text) == solved and ("not done yet" in text) == (not solved), text[-2000:]
        assert not solved or "not right yet" not in text, text[-2000:]
    assert _sha(path) == before, f"{rel} was written while it ran in the browser"


# --- workflow 1, the student: the Assignment List ------------------------------------------------------------

def _assignment_list(page):
    _menu(page, "Nbgrader", "Assignment List")
    page.locator("#assignments").wait_for()
    return page.locator("#assignments")


def _list_ready(panel, section):
    """Wait for one of the Assignment List's lists to finish loading; return its items (rows)."""
    panel.locator(f"#{section}_list_loading").wait_for(state="hidden")
    return panel.locator(f"#{section}_list > .list_item")


def _fill_in(path):
    """The student's answers: every solution cell of the fetched notebook gets the solved source's cell
    (solutions/A1/A1.py), as typed by a student who solved every task. (Written to the file, not typed in
    the browser: typing the code key by key would take minutes and test CodeMirror, not the course.)"""
    solution = samples.solution_cells(ASSIGNMENT)
    nb = nbformat.read(path, as_version=4)
    filled = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader") or {}
        if meta.get("solution"):
            cell.source = filled[meta["grade_id"]] = solution[meta["grade_id"]]
    assert filled, f"{path} has no answer cells"
    nbformat.write(nb, path)
    return filled


def _expand(item):
    """Open a fetched assignment's notebook list (a collapsed panel, shown with class "in"). A click while the
    list redraws itself is lost: click again, but never on an open one (that would close it)."""
    shown = item.locator(".assignment-notebooks.in")
    for _ in range(3):
        if shown.count():
            return
        item.locator("a.assignment-notebooks-link").click()
        with contextlib.suppress(PlaywrightTimeout):   # not open yet: click once more
            shown.wait_for(timeout=3000)
    assert shown.count(), "the assignment's notebook list did not open"


def _inbound(lab):
    inbound = os.path.join(lab.grading, "exchange", "tf-internals", "inbound")
    return sorted(glob.glob(os.path.join(inbound, f"*+{ASSIGNMENT}+*")))


def test_student_fetches_validates_and_submits_a1(lab, page):
    """After `python -m autograder release A1` (``release.publish``), the Assignment List (Nbgrader menu)
    offers A1. Fetch: the list shows it downloaded, and its notebook is in the student's folder as
    released. The student fills in the answers (on disk, see _fill_in) and opens it from the list: the
    notebook shows the answers. Validate: nbgrader's dialog says it passes all the tests. Submit: the
    list shows the submission with its time, the exchange's inbound holds it, answers included, and
    nbgrader's cache of it is in this module's Jupyter data folder."""
    student = getpass.getuser()
    outbound = release.publish(ASSIGNMENT)
    assert os.path.isfile(os.path.join(outbound, f"{ASSIGNMENT}.ipynb"))
    _open_lab(page, lab)
    panel = _assignment_list(page)

    released = _list_ready(panel, "released_assignments").filter(has_text=ASSIGNMENT)
    released.wait_for()
    assert "tf-internals" in released.inner_text()
    released.get_by_role("button", name="Fetch").click()

    fetched = _list_ready(panel, "fetched_assignments").filter(has_text=ASSIGNMENT)
    fetched.wait_for()
    local = os.path.join(lab.student_dir, ASSIGNMENT, f"{ASSIGNMENT}.ipynb")
    assert os.path.isfile(local), os.listdir(lab.student_dir)
    assert _sha(local) == _sha(os.path.join(outbound, f"{ASSIGNMENT}.ipynb")), "the fetched copy is not the release"
    assert panel.locator("#released_assignments_list > .list_item").filter(has_text=ASSIGNMENT).count() == 0

    filled = _fill_in(local)
    _expand(fetched)
    notebook_row = fetched.locator(".nested_list_item").filter(has_text=ASSIGNMENT)
    notebook_row.get_by_role("link", name=ASSIGNMENT, exact=True).click()
    opened = page.locator(".jp-NotebookPanel")
    opened.locator(".jp-Cell").first.wait_for()
    page.wait_for_url(re.compile("/tree/" + re.escape(os.path.relpath(local, REPO)) + "$"))  # the current document
    editors = opened.locator(".jp-CodeCell .jp-InputArea-editor")
    first_answer = next(line for line in next(iter(filled.values())).splitlines() if line.strip())
    page.wait_for_function("t => [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .cm-content')]"
                           ".some(e => e.innerText.includes(t))", arg=first_answer.strip())
    assert not any("YOUR CODE HERE" in t for t in editors.all_inner_texts()), "an answer cell is still a stub"

    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab").filter(has_text="Assignments").click()
    notebook_row.get_by_role("button", name="Validate").click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=RUN_TIMEOUT_MS)
    assert "Validation Results" in dialog.inner_text()
    assert "Success! Your notebook passes all the tests." in dialog.inner_text(), dialog.inner_text()
    dialog.get_by_role("button", name="Ok").click()
    dialog.wait_for(state="detached")

    assert _inbound(lab) == []
    fetched.get_by_role("button", name="Submit").click()
    submitted = _list_ready(panel, "submitted_assignments").filter(has_text=ASSIGNMENT)
    submitted.wait_for()
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", submitted.inner_text()), submitted.inner_text()
    (handed_in,) = _inbound(lab)
    assert os.path.basename(handed_in).startswith(f"{student}+{ASSIGNMENT}+")
    nb = nbformat.read(os.path.join(handed_in, f"{ASSIGNMENT}.ipynb"), as_version=4)
    got = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
           if (c.metadata.get("nbgrader") or {}).get("solution")}
    assert got == filled, "the exchange holds a different notebook than the one submitted"
    # nbgrader keeps the student's own record of it in its cache: the module's Jupyter data folder, not the user's
    cached = glob.glob(os.path.join(lab.data_dir, "nbgrader_cache", "tf-internals", f"{student}+{ASSIGNMENT}+*"))
    assert len(cached) == 1, os.listdir(lab.data_dir)
    lab.shutdown_kernels()
    _STATE["submitted"] = student


# --- workflow 2, the instructor: the Formgrader --------------------------------------------------------------

def _sandboxed_formgrader_is_in():
    """Is the change this test needs in? The course config replaces nbgrader's Execute (student code in a
    kernel with the instructor's rights) in Autograde, and `release` registered A1 in the gradebook."""
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import Execute
    api = release.course_api()
    chain = api.config.Autograde.get("autograde_preprocessors") if "Autograde" in api.config else None
    if not chain or any(isinstance(p, type) and issubclass(p, Execute) for p in chain):
        return False
    try:
        with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb:
            gb.find_assignment(ASSIGNMENT)
    except Exception:  # noqa: BLE001 - MissingEntry, or no gradebook at all: not registered either way
        return False
    return True


def _modal(frame):
    """The formgrader's result dialog (a Bootstrap modal): its title and its whole text."""
    modal = frame.locator("#success-modal, #error-modal").first
    modal.wait_for(timeout=RUN_TIMEOUT_MS)
    return modal.get_attribute("id"), modal.inner_text()


def _close_modal(frame):
    frame.locator(".modal button.close").first.click()
    frame.locator("#success-modal, #error-modal").wait_for(state="detached")


def test_instructor_collects_and_autogrades_a1_in_the_formgrader(lab, page, request):
    """The Formgrader (Nbgrader menu): Manage Assignments lists A1 as released; Collect copies the
    student's submission into the grading folder (submitted/<student>/A1/); the A1 row then counts one
    submission, whose link opens Manage Submissions, the student's row "needs autograding". Autograde
    (through the course's sandboxed grader: its log has no nbgrader kernel run) grades it: the row says
    "graded" and "20 / 20" (the honest, complete solution earns every point of A1), and so does the
    gradebook on disk."""
    if "submitted" not in _STATE:
        pytest.skip("needs the student's submission (test_student_fetches_validates_and_submits_a1)")
    student = _STATE["submitted"]
    expected = sum(t.points for t in assignments.get(ASSIGNMENT).TASKS)
    if not _sandboxed_formgrader_is_in():
        request.applymarker(pytest.mark.xfail(strict=False, reason=(
            "needs issue 14 item 4 (in progress): the Formgrader's Autograde running the course's sandboxed "
            "grader (nbgrader_config.py) and `release` registering A1 in the gradebook")))
    _open_lab(page, lab)
    _menu(page, "Nbgrader", "Formgrader")
    frame = page.frame_locator(".jp-MainAreaWidget iframe")
    row = frame.locator("tbody tr").filter(has=frame.locator("td.name", has_text=re.compile(f"^{ASSIGNMENT}$")))
    row.wait_for()
    assert "released" in row.locator("td.status").inner_text()

    row.locator("td.collect a").click()
    kind, text = _modal(frame)
    assert kind == "success-modal" and f"Successfully collected submissions of '{ASSIGNMENT}'" in text, text
    _close_modal(frame)
    collected = os.path.join(lab.grading, "submitted", student, ASSIGNMENT, f"{ASSIGNMENT}.ipynb")
    assert os.path.isfile(collected)

    row.locator("td.num-submissions").get_by_role("link", name="1", exact=True).click()
    submission = frame.locator("tbody tr").filter(has=frame.locator("td.student-id", has_text=student))
    submission.wait_for()
    assert "needs autograding" in submission.locator("td.status").inner_text()

    submission.locator("td.autograde a").click()
    kind, text = _modal(frame)
    assert kind == "success-modal" and f"Successfully autograded '{ASSIGNMENT}' for student '{student}'" in text, \
        text[-3000:]
    assert "Executing notebook with kernel" not in text, "Autograde ran the notebook in nbgrader's own kernel"
    _close_modal(frame)
    submission.locator("td.score", has_text="/").wait_for()
    assert "graded" in submission.locator("td.status").inner_text()
    assert submission.locator("td.score").inner_text().strip() == f"{expected} / {expected}"

    from nbgrader.api import Gradebook
    api = release.course_api()
    with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb:
        sub = gb.find_submission(ASSIGNMENT, student)
        assert (sub.score, sub.max_score) == (expected, expected)
