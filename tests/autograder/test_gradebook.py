"""The gradebook is the one source of scores (issue 14, items 3 and 4).

* An honest solution whose test cells were deleted, emptied or stripped of their nbgrader metadata
  gets full marks in the gradebook, the CSV and ``grade --json`` alike (nbgrader alone gives a
  missing test cell 0).
* ``grade`` is incremental: only new or changed submissions are graded, the CSV always covers
  every student in the gradebook, and a submission removed from the folder stays there.
* ``release`` registers the assignment in the course gradebook, and the formgrader's Autograde
  (``NbGraderAPI.autograde`` configured by ``nbgrader_config.py``) grades in the sandbox.
"""
import csv
import json
import os
import subprocess
import sys
import time

import nbformat
import pytest

from autograder import assignments, batch, samples
from autograder.sandbox import REPO

SPEC = assignments.get("A1")
FULL = sum(t.points for t in SPEC.TASKS)
FAST = {"n": 2}


def _is_test(cell):
    return bool((cell.metadata.get("nbgrader") or {}).get("grade"))


def _delete_tests(nb):
    nb.cells = [c for c in nb.cells if not _is_test(c)]


def _empty_tests(nb):
    for c in nb.cells:
        if _is_test(c):
            c.source = ""


def _strip_test_metadata(nb):
    for c in nb.cells:
        if _is_test(c):
            del c.metadata["nbgrader"]


def _submission(path, edit=None, **kw):
    samples.write_submission("A1", str(path), **kw)
    if edit:
        nb = nbformat.read(str(path), as_version=4)
        edit(nb)
        nbformat.write(nb, str(path))
    return str(path)


def _gradebook_totals(root):
    from nbgrader.api import Gradebook
    with Gradebook(batch.db_url(str(root))) as gb:
        return {s.student.id: s.score for s in gb.assignment_submissions("A1")}


def _csv_totals(root):
    with open(os.path.join(str(root), "A1_grades.csv")) as f:
        return {r["student"]: float(r["total"]) for r in csv.DictReader(f)}


def test_tampered_test_cells_cost_an_honest_solution_nothing_anywhere(tmp_path):
    subs, root = tmp_path / "subs", tmp_path / "ws"
    _submission(subs / "deleted" / "A1.ipynb", _delete_tests)
    _submission(subs / "emptied" / "A1.ipynb", _empty_tests)
    _submission(subs / "stripped" / "A1.ipynb", _strip_test_metadata)
    _submission(subs / "blank" / "A1.ipynb", _delete_tests, blank=True)
    out = subprocess.run([sys.executable, "-m", "autograder", "grade", "--assignment", "A1", str(subs),
                          "--root", str(root), "--json"], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    expected = {"deleted": FULL, "emptied": FULL, "stripped": FULL, "blank": 0.0}
    assert _gradebook_totals(root) == expected
    assert _csv_totals(root) == expected
    data = json.loads(out.stdout[:out.stdout.rindex("}") + 1])
    assert {s: d["total"] for s, d in data.items()} == expected
    assert data["deleted"]["grads"]["score"] == 8
    assert any("missing" in n for n in data["deleted"]["notes"])  # the tampering is still reported
    assert "graded 4, unchanged 0" in out.stderr and "Warning" not in out.stderr, out.stderr[-2000:]


def test_grading_is_incremental_and_the_csv_covers_every_student(tmp_path):
    subs, root = tmp_path / "subs", tmp_path / "ws"
    _submission(subs / "ann" / "A1.ipynb")
    _submission(subs / "bob" / "A1.ipynb", blank=True)
    _submission(subs / "cid" / "A1.ipynb")
    first = batch.grade("A1", str(subs), root=str(root), options=FAST, progress=False)
    assert (first.graded, first.unchanged) == (["ann", "bob", "cid"], [])

    t = time.perf_counter()
    again = batch.grade("A1", str(subs), root=str(root), options=FAST, progress=False)
    unchanged_s = time.perf_counter() - t
    assert (again.graded, again.unchanged) == ([], ["ann", "bob", "cid"])
    assert unchanged_s < 5, unchanged_s  # nothing is autograded: no nbgrader run, no sandbox
    assert _csv_totals(root) == {"ann": FULL, "bob": 0.0, "cid": FULL}

    # bob hands in a solution, a late student arrives, cid's folder is removed from this batch
    _submission(subs / "bob" / "A1.ipynb")
    _submission(subs / "dee" / "A1.ipynb", blank=True)
    os.remove(subs / "cid" / "A1.ipynb")
    os.rmdir(subs / "cid")
    late = batch.grade("A1", str(subs), root=str(root), options=FAST, progress=False)
    assert (late.graded, late.unchanged) == (["bob", "dee"], ["ann"])
    expected = {"ann": FULL, "bob": FULL, "cid": FULL, "dee": 0.0}
    assert _csv_totals(root) == expected == _gradebook_totals(root)  # cid stays in the gradebook
    assert {s: d["total"] for s, d in json.loads(batch.as_json(late, "A1")).items()} == expected

    out = subprocess.run([sys.executable, "-m", "autograder", "grade", "--assignment", "A1", str(subs),
                          "--root", str(root)], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0 and "graded 0, unchanged 3 (4 students in the gradebook)" in out.stderr, out.stderr
    out = subprocess.run([sys.executable, "-m", "autograder", "grade", "--assignment", "A1", str(subs),
                          "--root", str(root), "--regrade"], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0 and "graded 3, unchanged 0" in out.stderr, out.stderr
    assert _csv_totals(root) == expected


def test_a_grader_s_manual_score_is_what_the_exports_say(tmp_path):
    subs, root = tmp_path / "subs", tmp_path / "ws"
    _submission(subs / "ann" / "A1.ipynb")
    batch.grade("A1", str(subs), root=str(root), options=FAST, progress=False)
    from nbgrader.api import Gradebook
    with Gradebook(batch.db_url(str(root))) as gb:
        gb.find_grade("test_grads", "A1", "A1", "ann").manual_score = 5.0
        gb.db.commit()
    res = batch.grade("A1", str(subs), root=str(root), options=FAST, progress=False)
    assert res.graded == [] and res["ann"]["grads"]["score"] == 5.0
    assert _csv_totals(root) == {"ann": FULL - 3}


def test_unreadable_and_missing_notebooks_get_zero_once(tmp_path):
    subs, root = tmp_path / "subs", tmp_path / "ws"
    (subs / "corrupt").mkdir(parents=True)
    (subs / "corrupt" / "A1.ipynb").write_text("{ not json")
    (subs / "nothing").mkdir()
    _submission(subs / "ann" / "A1.ipynb")
    res = batch.grade("A1", str(subs), root=str(root), options=FAST, progress=False)
    assert _csv_totals(root) == {"ann": FULL, "corrupt": 0.0, "nothing": 0.0} == _gradebook_totals(root)
    assert res["corrupt"]["_notes"] and res["nothing"]["_notes"]
    again = batch.grade("A1", str(subs), root=str(root), options=FAST, progress=False)
    assert again.graded == []  # the same file fails the same way: not tried again


# -- the course gradebook: release registers, the formgrader's Autograde is sandboxed ------------------------

@pytest.fixture
def course(tmp_path, monkeypatch):
    """The repository's nbgrader_config.py, with its grading folder in a temporary directory."""
    grading = tmp_path / "grading"
    monkeypatch.setenv("COURSE_GRADING_DIR", str(grading))
    return grading


def test_release_registers_the_assignment_in_the_course_gradebook(course):
    from nbgrader.api import Gradebook

    from autograder import release
    assert release.register("A1") == batch.db_url(str(course))
    release.register("A1")  # idempotent
    with Gradebook(batch.db_url(str(course))) as gb:
        nb = gb.find_notebook("A1", "A1")
        assert {c.name: c.max_score for c in nb.grade_cells} == {t.test_cell: t.points for t in SPEC.TASKS}
        assert {t.cell for t in SPEC.TASKS} <= {c.name for c in nb.solution_cells}
        # a submission, and a release whose cells differ from the registered ones: nbgrader refuses, in one line
        gb.add_student("ann")
        gb.add_submission("A1", "ann")
        gb.update_or_create_source_cell("an-older-cell", "A1", "A1", cell_type="code", locked=True, source="")
    with pytest.raises(ValueError, match="refuses this release of A1: Cannot add or remove cells") as error:
        release.register("A1")
    assert "\n" not in str(error.value)


def test_the_formgrader_s_autograde_grades_in_the_sandbox(course):
    """``release.course_api()`` is the NbGraderAPI the formgrader builds from nbgrader_config.py."""
    from autograder import release
    release.register("A1")
    marker = course / "written-by-the-submission"
    # what `collect` leaves in the submitted folder
    _submission(course / "submitted" / "honest" / "A1" / "A1.ipynb", _delete_tests)
    _submission(course / "submitted" / "escaper" / "A1" / "A1.ipynb",
                extra_cells=[f"open({str(marker)!r}, 'w').write('ran outside the sandbox')\n"])
    api = release.course_api()
    from nbgrader.converters import Autograde
    app = Autograde(coursedir=api.coursedir, config=api.config)  # both chains as nbgrader resolves them
    names = lambda chain: [getattr(p, "__name__", p) for p in chain]  # noqa: E731
    assert names(app.autograde_preprocessors)[0] == "SandboxGrade"
    assert "Execute" not in names(app.autograde_preprocessors) + names(app.sanitize_preprocessors)
    for student in ("honest", "escaper"):
        with batch.quiet_gradebook():
            r = api.autograde("A1", student)
        assert r["success"], r.get("log", "")[-2000:]
    assert not marker.exists()
    assert _gradebook_totals(course) == {"honest": FULL, "escaper": FULL}
    res = batch.gradebook_results("A1", str(course))
    assert res["escaper"]["_isolation"] and any("raised" in n for n in res["escaper"]["_notes"])
    # the command line sees the formgrader's grading: the same submissions are unchanged
    again = batch.grade("A1", str(course / "submitted"), root=str(course), options=FAST, progress=False)
    assert (again.graded, sorted(again.unchanged)) == ([], ["escaper", "honest"])
