"""``grade``: submissions through nbgrader's autograde into its SQLite gradebook, the one source of scores.

nbgrader still does what it is good at (the gradebook, restoring locked cells with
OverwriteCells, checking metadata, feedback, the formgrader), but its ``Execute`` step is
replaced by :class:`SandboxGrade`: the notebook is graded by ``grading.py`` (the student's
code runs in the sandbox, scores are computed here). :func:`configure` is the one place that
says so; both ``python -m autograder grade`` (:func:`grade`) and the formgrader's Autograde
button (``nbgrader_config.py``) use it, so neither path can run student code outside the sandbox.

**Scores.** nbgrader's own SaveAutoGrades reads a score from each test cell's output, and gives
a test cell that is missing (deleted, or its metadata stripped, so OverwriteCells skips it:
nbgrader 0.9's ``add_missing_cells`` is off by default and indexes only grade and solution
cells when it re-inserts one) no score at all: 0. :class:`SaveSandboxScores` therefore writes
the sandbox's score of every task into its grade cell through the Gradebook API, whatever the
student did to the test cells. The CSV (``<root>/<A>_grades.csv``) and ``grade --json`` are
exports read back from the gradebook (:func:`gradebook_results`), for every student in it;
a score a grader changed in the formgrader (a manual score) wins there, as in nbgrader.

**Incremental.** Next to the gradebook, ``<root>/graded/<A>/<student>.json`` records what was
graded: the SHA-256 of the notebook file, the per-task messages and the grader's notes (the
gradebook has no place for them). :func:`grade` grades only submissions whose notebook is new
or differs from the recorded one, unless ``regrade``; the formgrader writes the same record.
A submission removed from the folder stays in the gradebook and in the CSV.

What is reused across a batch: one nbgrader autograde run and one feedback run over every
submission to grade (nbgrader's per-run setup and its HTML templates are paid once), and one
warm sandbox worker (``sandbox.WorkerPool``) that forks a fresh child per submission.
"""
import contextlib
import csv
import hashlib
import json
import os
import re
import shutil
import sys
import warnings

import nbformat
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearOutput, DeduplicateIds, GetGrades,
                                    LimitOutput, NbGraderPreprocessor, OverwriteCells, OverwriteKernelspec,
                                    SaveAutoGrades)
from traitlets import Dict

from . import assignments, grading, notebooks
from . import sandbox
from .sandbox import REPO

HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.S)
COURSE_ID = "tf-internals"
CODE_STUB = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
MISSING = "no notebook"  # the record's hash of a student folder without a notebook
_BATCH = {"pool": None, "done": 0, "total": 0, "progress": False}  # the batch being graded now


def grading_dir():
    """The course's grading folder: ``$COURSE_GRADING_DIR``, else ``grading/`` in the repository."""
    return os.path.abspath(os.environ.get("COURSE_GRADING_DIR") or os.path.join(REPO, "grading"))


def db_url(root):
    return "sqlite:///" + os.path.join(root, "gradebook.db")


def configure(c, root, options=None):
    """Make nbgrader grade in the sandbox: the autograde and feedback chains, on the config ``c``.

    ``root`` is the grading folder (gradebook, submissions), where the grading records go.
    Autograde runs two chains on each notebook: ``sanitize_preprocessors`` (clear outputs,
    restore locked cells, check metadata: nothing runs; pinned here to nbgrader's default, so
    that no other config file can add to it) and then ``autograde_preprocessors``, whose
    default starts with ``Execute`` (a Jupyter kernel running the student's code with the
    instructor's rights). That chain is replaced here."""
    c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells,
                                          CheckCellMetadata]
    c.Autograde.autograde_preprocessors = [SandboxGrade, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
                                           SaveSandboxScores, AssignLatePenalties, CheckCellMetadata]
    c.Autograde.create_student = True
    c.SandboxGrade.options = dict(options or {}, root=os.path.abspath(root))
    c.GenerateFeedback.preprocessors = [ScrubHidden, GetGrades, CSSHTMLHeaderPreprocessor]
    c.ClearSolutions.code_stub = CODE_STUB
    return c


def alembic_on_path():
    """nbgrader creates a new gradebook by running ``alembic`` from PATH: put this Python's bin there."""
    bindir = os.path.dirname(sys.executable)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


@contextlib.contextmanager
def quiet_gradebook():
    """nbgrader's gradebook code trips SQLAlchemy's "not in session" warnings on every new submission: noise."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"nbgrader\.api")
        warnings.filterwarnings("ignore", module=r"sqlalchemy")
        yield


def file_hash(path):
    """SHA-256 of a file's bytes (None if there is no file): what "changed since it was graded" compares."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


# -- the grading records next to the gradebook ------------------------------------------------------------

def _record_path(root, assignment, student):
    return os.path.join(root, "graded", assignment, f"{student}.json")


def read_record(root, assignment, student):
    try:
        with open(_record_path(root, assignment, student), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_record(root, assignment, student, record):
    """Write atomically (a rename), so a crash never leaves a half record that looks graded."""
    path = _record_path(root, assignment, student)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    sandbox.write_json_atomically(path, record)


def drop_record(root, assignment, student):
    with contextlib.suppress(FileNotFoundError):
        os.remove(_record_path(root, assignment, student))


# -- the nbgrader preprocessors ----------------------------------------------------------------------------

class SandboxGrade(NbGraderPreprocessor):
    """Replaces nbgrader's Execute: grade the submitted file in the sandbox, show each task's score in its test cell.

    The file graded is the submission as handed in (``submitted/<student>/<A>/``), not nbgrader's
    sanitized copy: ``grading.assemble`` takes the locked cells from the release anyway and
    reports what was tampered with. The results travel to :class:`SaveSandboxScores` in
    ``resources["sandbox"]``."""

    options = Dict({}).tag(config=True)

    def _submitted(self, resources):
        from nbgrader.coursedir import CourseDirectory
        info = resources["nbgrader"]
        coursedir = CourseDirectory(config=self.config)
        folder = coursedir.format_path(coursedir.submitted_directory, info["student"], info["assignment"])
        return os.path.join(folder, resources["unique_key"] + ".ipynb")

    def preprocess(self, nb, resources):
        student, assignment = resources["nbgrader"]["student"], resources["nbgrader"]["assignment"]
        root = self.options["root"]
        path = self._submitted(resources)
        digest = file_hash(path)  # of the bytes graded next
        if _BATCH["progress"]:
            _progress(_BATCH["done"], _BATCH["total"], student)
        res = grading.grade_notebook(path, assignments.student_seed(student, assignment), n=self.options.get("n", 4),
                                     item_timeout=self.options.get("item_timeout", 10.0),
                                     total_timeout=self.options.get("total_timeout", 60.0),
                                     assignment=assignment, pool=_BATCH["pool"])
        _BATCH["done"] += 1
        resources["sandbox"] = {"results": res, "sha256": digest, "root": root}
        _show_scores(nb, res)
        return nb, resources


def _show_scores(nb, res):
    """Each present test cell gets its task's score and messages as output (the feedback shows them)."""
    by_cell = {r["test_cell"]: r for k, r in res.items() if not k.startswith("_")}
    for cell in nb.cells:
        r = by_cell.get((cell.metadata.get("nbgrader") or {}).get("grade_id"))
        if r is not None:
            text = "\n".join([f"score: {r['score']} / {r['points']}"] + r["messages"]) + "\n"
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text),
                            nbformat.v4.new_output("execute_result", data={"text/plain": repr(float(r["score"]))},
                                                   execution_count=1)]
    if res["_notes"] and nb.cells:
        nb.cells[0].source += "\n\n**Grader notes:** " + "; ".join(res["_notes"])


class SaveSandboxScores(NbGraderPreprocessor):
    """After nbgrader's SaveAutoGrades: every task's grade cell gets the sandbox's score, present or not.

    A grade a grader set by hand (``manual_score``) stays, and is marked for review, as
    SaveAutoGrades does. Then the grading record is written (hash, messages, notes)."""

    def preprocess(self, nb, resources):
        graded = resources["sandbox"]
        info = resources["nbgrader"]
        res = graded["results"]
        with quiet_gradebook():
            from nbgrader.api import Gradebook
            with Gradebook(info["db_url"]) as gb:
                save_scores(gb, info["assignment"], info["notebook"], info["student"],
                            {t.test_cell: res[t.name]["score"] for t in assignments.get(info["assignment"]).TASKS})
        write_record(graded["root"], info["assignment"], info["student"], _record(res, graded["sha256"]))
        return nb, resources


def save_scores(gb, assignment, notebook, student, scores):
    """Set ``auto_score`` of each grade cell in ``scores`` ({grade_id: score}) for this student's notebook."""
    for grade_id, score in scores.items():
        grade = gb.find_grade(grade_id, notebook, assignment, student)
        grade.auto_score = float(score)
        grade.needs_manual_grade = grade.manual_score is not None
    gb.db.commit()


def _record(res, sha256):
    return {"sha256": sha256, "messages": {k: r["messages"] for k, r in res.items() if not k.startswith("_")},
            "notes": res.get("_notes", []), "isolation": res.get("_isolation")}


class ScrubHidden(NbGraderPreprocessor):
    """Feedback: the hidden-test blocks of the test cells are replaced by a placeholder."""

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            if "BEGIN HIDDEN TESTS" in cell.source:
                cell.source = HIDDEN.sub("# (hidden tests)\n", cell.source)
        return nb, resources


# -- one batch ----------------------------------------------------------------------------------------------

class Grades(dict):
    """``{student: results}`` for every student in the gradebook (as ``grading.grade_notebook`` returns them),
    with ``graded`` and ``unchanged``: the students of this run's folder that were graded, and skipped."""

    def __init__(self, results, graded=(), unchanged=()):
        super().__init__(results)
        self.graded, self.unchanged = list(graded), list(unchanged)


def _config(root, options):
    """The CLI's nbgrader configuration: a course rooted at ``root`` (``source/``, ``submitted/``, ...)."""
    from traitlets.config import Config
    cfg = Config()
    cfg.CourseDirectory.root = root
    cfg.CourseDirectory.course_id = COURSE_ID
    cfg.CourseDirectory.db_url = db_url(root)
    cfg.BaseConverter.force = True
    return configure(cfg, root, options)


def _progress(i, n, student, out=sys.stderr):
    width = 30
    done = int(width * i / max(n, 1))
    out.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{n} {student[:20]:20s}")
    out.flush()


def _course_api(assignment, root, options):
    """An NbGraderAPI on ``root``, with the assignment generated there (its source, the gradebook's cells)."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    alembic_on_path()
    src = os.path.join(root, "source", assignment)
    os.makedirs(src, exist_ok=True)
    nbformat.write(notebooks.to_notebook(os.path.join(REPO, "solutions", assignment, f"{assignment}.py")),
                   os.path.join(src, f"{assignment}.ipynb"))
    cfg = _config(root, options)
    api = NbGraderAPI(CourseDirectory(config=cfg), config=cfg)
    with quiet_gradebook():
        r = api.generate_assignment(assignment, force=True)
    if not r["success"]:
        raise RuntimeError(r["log"])
    return api


def _handed_in(folder, assignment):
    """The notebook a student's folder holds: ``<A>.ipynb`` if there, else the first ``.ipynb`` (None: none)."""
    if os.path.isdir(os.path.join(folder, assignment)):
        folder = os.path.join(folder, assignment)
    names = sorted(n for n in os.listdir(folder) if n.endswith(".ipynb"))
    if not names:
        return None
    return os.path.join(folder, f"{assignment}.ipynb" if f"{assignment}.ipynb" in names else names[0])


def _in_gradebook(root, assignment):
    """The students with a submission of ``assignment`` in the gradebook at ``root``."""
    from nbgrader.api import Gradebook, MissingEntry
    with quiet_gradebook(), Gradebook(db_url(root)) as gb:
        try:
            return {s.student.id for s in gb.assignment_submissions(assignment)}
        except MissingEntry:
            return set()


def stage(assignment, submissions, root, regrade=False):
    """Copy the new and changed submissions into ``<root>/submitted``; returns (to grade, unchanged).

    Unchanged: the gradebook has the student and the record's hash is the notebook's."""
    known = set() if regrade else _in_gradebook(root, assignment)
    todo, unchanged = [], []
    for student in sorted(d for d in os.listdir(submissions) if os.path.isdir(os.path.join(submissions, d))):
        src = _handed_in(os.path.join(submissions, student), assignment)
        digest = file_hash(src) if src else MISSING
        record = read_record(root, assignment, student) if student in known else None
        if record is not None and record.get("sha256") == digest:
            unchanged.append(student)
            continue
        dest = os.path.join(root, "submitted", student, assignment)
        target = os.path.join(dest, f"{assignment}.ipynb")
        if not (src and os.path.exists(target) and os.path.samefile(src, target)):
            shutil.rmtree(dest, ignore_errors=True)
            os.makedirs(dest)
            if src:
                shutil.copy(src, target)
        drop_record(root, assignment, student)
        todo.append(student)
    return todo, unchanged


def _autograde(api, spec, root, students, progress):
    """One nbgrader autograde run and one feedback run over ``students`` only (the others are excluded)."""
    others = [s for s in os.listdir(os.path.join(root, "submitted")) if s not in set(students)]
    api.coursedir.student_id_exclude = ",".join(others)
    _BATCH.update(done=0, total=len(students), progress=progress)
    try:
        with sandbox.WorkerPool(absent=spec.ABSENT, assignment=spec.NAME) as pool, quiet_gradebook():
            _BATCH["pool"] = pool
            try:
                res = api.autograde(spec.NAME, "*", force=True, create=True)
            finally:
                _BATCH.update(pool=None, progress=False)
            feedback = api.generate_feedback(spec.NAME, "*", force=True)
    finally:
        api.coursedir.student_id_exclude = ""
    if not feedback["success"]:
        sys.stderr.write("feedback: " + (feedback.get("error") or "")[-500:] + "\n")
    for student in students:
        if read_record(root, spec.NAME, student) is None:  # nbgrader could not even open the notebook, say
            _record_failure(root, spec, student, _failure_for(student, res) or "nbgrader autograde failed")


def _record_failure(root, spec, student, note):
    """A submission nbgrader could not grade: 0 for every task in the gradebook, the reason in its record.

    The record keeps the notebook's hash (or ``MISSING``): the same file fails the same way, so an
    unchanged one is not tried again (``regrade`` does)."""
    from nbgrader.api import Gradebook
    with quiet_gradebook(), Gradebook(db_url(root), COURSE_ID) as gb:
        gb.update_or_create_student(student)
        gb.update_or_create_submission(spec.NAME, student)
        save_scores(gb, spec.NAME, spec.NAME, student, {t.test_cell: 0.0 for t in spec.TASKS})
    res = {t.name: {"messages": ["could not be graded"]} for t in spec.TASKS}
    staged = os.path.join(root, "submitted", student, spec.NAME, f"{spec.NAME}.ipynb")
    write_record(root, spec.NAME, student, _record(dict(res, _notes=[note]), file_hash(staged) or MISSING))


def grade(assignment, submissions, root=None, options=None, progress=True, regrade=False):
    """Grade the new and changed ``submissions/<student>/*.ipynb`` (or ``<student>/<assignment>/*.ipynb``)
    into the gradebook at ``root`` (default: :func:`grading_dir`); all of them if ``regrade``.

    Writes the CSV of every student in the gradebook; returns :class:`Grades`."""
    root = os.path.abspath(root or grading_dir())
    spec = assignments.get(assignment)
    alembic_on_path()
    os.makedirs(root, exist_ok=True)
    todo, unchanged = stage(spec.NAME, submissions, root, regrade=regrade)
    if todo:
        _autograde(_course_api(spec.NAME, root, options or {}), spec, root, todo, progress)
        if progress:
            _progress(len(todo), len(todo), "done")
            sys.stderr.write("\n")
    results = gradebook_results(spec.NAME, root)
    export_csv(results, os.path.join(root, f"{spec.NAME}_grades.csv"), spec.NAME)
    return Grades(results, graded=todo, unchanged=unchanged)


def _failure_for(student, res):
    """nbgrader's error lines about this student, if any."""
    text = (res.get("log") or "") + (res.get("error") or "")
    lines = [ln.strip() for ln in text.splitlines() if student in ln]
    return "; ".join(lines[-2:])[:300]


# -- exports from the gradebook ---------------------------------------------------------------------------

def gradebook_results(assignment, root=None):
    """``{student: results}`` for every submission of ``assignment`` in the gradebook at ``root``.

    Scores and points come from the gradebook (a grade's ``score``: the manual score if a
    grader gave one, else the autograder's); messages and notes from the grading records."""
    from nbgrader.api import Gradebook, MissingEntry
    root = os.path.abspath(root or grading_dir())
    spec = assignments.get(assignment)
    out = {}
    with quiet_gradebook(), Gradebook(db_url(root)) as gb:
        try:
            submissions = gb.assignment_submissions(spec.NAME)
        except MissingEntry:
            return out
        for sub in submissions:
            grades = {g.name: g for nb in sub.notebooks for g in nb.grades}
            out[sub.student.id] = _student_results(spec, grades, read_record(root, spec.NAME, sub.student.id) or {})
    return dict(sorted(out.items()))


def _student_results(spec, grades, record):
    res = {}
    for t in spec.TASKS:
        g = grades.get(t.test_cell)
        res[t.name] = {"score": float(g.score or 0.0) if g is not None else 0.0,
                       "points": float(g.max_score) if g is not None else float(t.points),
                       "test_cell": t.test_cell, "messages": record.get("messages", {}).get(t.name, [])}
    res["_notes"] = record.get("notes", [])
    res["_isolation"] = record.get("isolation")
    return res


def export_csv(results, path, assignment="A1"):
    names = [t.name for t in assignments.get(assignment).TASKS]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student"] + names + ["total", "max"])
        for student, r in sorted(results.items()):
            w.writerow([student] + [r[n]["score"] for n in names] + [round(sum(r[n]["score"] for n in names), 2),
                                                                     sum(r[n]["points"] for n in names)])


def as_json(results, assignment="A1"):
    names = [t.name for t in assignments.get(assignment).TASKS]
    return json.dumps({s: {n: {"score": r[n]["score"], "points": r[n]["points"], "messages": r[n]["messages"]}
                           for n in names} | {"total": round(sum(r[n]["score"] for n in names), 2),
                                              "notes": r.get("_notes", [])}
                       for s, r in sorted(results.items())}, indent=1)
