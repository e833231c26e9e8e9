"""``grade``: every submission through nbgrader's autograde into its SQLite gradebook.

nbgrader still does what it is good at (the gradebook, restoring test cells with
OverwriteCells, checking metadata, feedback, the formgrader), but its ``Execute`` step
is replaced by :class:`SandboxGrade`: the notebook is graded by ``grading.py`` (the
student's code runs in the sandbox, scores are computed here) and each test cell gets
the task's score as its output, which nbgrader's SaveAutoGrades reads as partial credit.
Feedback HTML is generated from notebooks whose hidden-test blocks are scrubbed.

What is reused across a batch: one nbgrader autograde run and one feedback run over
every student (nbgrader's per-run setup and its HTML templates are paid once), and one
warm sandbox worker (``sandbox.WorkerPool``) that forks a fresh child per submission.
"""
import csv
import json
import os
import re
import shutil
import sys
import warnings

import nbformat
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, LimitOutput, NbGraderPreprocessor,
                                    SaveAutoGrades, GetGrades)
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from traitlets import Dict

from . import assignments, grading, notebooks
from .sandbox import REPO

HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.S)
RESULTS = {}  # student -> results of grading.grade_notebook (this process)
_BATCH = {"pool": None, "done": 0, "total": 0, "progress": False}  # the batch being graded now


class SandboxGrade(NbGraderPreprocessor):
    """Replaces nbgrader's Execute: grade in the sandbox, write each task's score into its test cell."""

    options = Dict({}).tag(config=True)

    def preprocess(self, nb, resources):
        student = resources["nbgrader"]["student"]
        assignment = resources["nbgrader"]["assignment"]
        root = self.options["root"]
        path = os.path.join(root, "submitted", student, assignment, resources["unique_key"] + ".ipynb")
        if _BATCH["progress"]:
            _progress(_BATCH["done"], _BATCH["total"], student)
        res = grading.grade_notebook(path, assignments.student_seed(student, assignment), n=self.options.get("n", 4),
                                     item_timeout=self.options.get("item_timeout", 10.0),
                                     total_timeout=self.options.get("total_timeout", 60.0), hide=[root],
                                     assignment=assignment, pool=_BATCH["pool"])
        RESULTS[student] = res
        _BATCH["done"] += 1
        by_cell = {r["test_cell"]: r for k, r in res.items() if not k.startswith("_")}
        for cell in nb.cells:
            gid = (cell.metadata.get("nbgrader") or {}).get("grade_id")
            if gid in by_cell:
                r = by_cell[gid]
                text = "\n".join([f"score: {r['score']} / {r['points']}"] + r["messages"]) + "\n"
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text),
                                nbformat.v4.new_output("execute_result", data={"text/plain": repr(float(r["score"]))},
                                                       execution_count=1)]
        if res["_notes"] and nb.cells:
            nb.cells[0].source += "\n\n**Grader notes:** " + "; ".join(res["_notes"])
        return nb, resources


class ScrubHidden(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        for cell in nb.cells:
            if "BEGIN HIDDEN TESTS" in cell.source:
                cell.source = HIDDEN.sub("# (hidden tests)\n", cell.source)
        return nb, resources


def _config(root, options):
    from traitlets.config import Config
    cfg = Config()
    cfg.CourseDirectory.root = root
    cfg.CourseDirectory.course_id = "tf-internals"
    cfg.CourseDirectory.db_url = "sqlite:///" + os.path.join(root, "gradebook.db")
    cfg.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    cfg.Autograde.create_student = True
    cfg.Autograde.autograde_preprocessors = [SandboxGrade, ClearMetadataPreprocessor, LimitOutput,
                                             SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]
    cfg.SandboxGrade.options = dict(options, root=root)
    cfg.GenerateFeedback.preprocessors = [ScrubHidden, GetGrades, CSSHTMLHeaderPreprocessor]
    cfg.BaseConverter.force = True
    return cfg


def _progress(i, n, student, out=sys.stderr):
    width = 30
    done = int(width * i / max(n, 1))
    out.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{n} {student[:20]:20s}")
    out.flush()


def grade(assignment, submissions, root=None, options=None, progress=True):
    """Grade ``submissions/<student>/*.ipynb`` (or ``<student>/<assignment>/*.ipynb``). Returns per-student results."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    root = os.path.abspath(root or os.path.join(REPO, "grading"))
    bindir = os.path.dirname(sys.executable)  # nbgrader runs `alembic` from PATH
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    options = options or {}
    spec = assignments.get(assignment)
    assignment = spec.NAME
    src = os.path.join(root, "source", assignment)
    os.makedirs(src, exist_ok=True)
    nbformat.write(notebooks.to_notebook(os.path.join(REPO, "solutions", assignment, f"{assignment}.py")),
                   os.path.join(src, f"{assignment}.ipynb"))
    cfg = _config(root, options)
    api = NbGraderAPI(CourseDirectory(config=cfg), config=cfg)
    r = api.generate_assignment(assignment, force=True)
    if not r["success"]:
        raise RuntimeError(r["log"])
    students = sorted(d for d in os.listdir(submissions) if os.path.isdir(os.path.join(submissions, d)))
    for student in students:
        d = os.path.join(submissions, student)
        d = os.path.join(d, assignment) if os.path.isdir(os.path.join(d, assignment)) else d
        dest = os.path.join(root, "submitted", student, assignment)
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        for name in os.listdir(d):
            if name.endswith(".ipynb"):
                shutil.copy(os.path.join(d, name), os.path.join(dest, f"{assignment}.ipynb"))
        RESULTS.pop(student, None)
    if os.geteuid() == 0:
        os.chmod(root, 0o700)  # the sandbox's uid (nobody) cannot enter the workspace, namespaces or not
    from . import sandbox
    _BATCH.update(done=0, total=len(students), progress=progress)
    with sandbox.WorkerPool(hide=[root], absent=spec.ABSENT, assignment=assignment) as pool, \
            warnings.catch_warnings():
        # nbgrader's gradebook code trips SQLAlchemy's "not in session" warnings on every new submission: noise
        warnings.filterwarnings("ignore", module=r"nbgrader\.api")
        _BATCH["pool"] = pool
        try:
            res = api.autograde(assignment, "*", force=True, create=True)
        finally:
            _BATCH.update(pool=None, progress=False)
    feedback = api.generate_feedback(assignment, "*", force=True)
    out = {}
    for student in students:
        graded = RESULTS.get(student)
        if graded is None:  # nbgrader could not even open the notebook (not JSON, say)
            graded = {t.name: {"score": 0.0, "points": t.points, "test_cell": t.test_cell,
                               "messages": ["could not be graded"]} for t in spec.TASKS}
            graded["_notes"] = [_failure_for(student, res) or "nbgrader autograde failed"]
        out[student] = graded
    if progress:
        _progress(len(students), len(students), "done")
        sys.stderr.write("\n")
    if not feedback["success"]:
        sys.stderr.write("feedback: " + (feedback.get("error") or "")[-500:] + "\n")
    export_csv(out, os.path.join(root, f"{assignment}_grades.csv"), assignment)
    return out


def _failure_for(student, res):
    """nbgrader's error lines about this student, if any."""
    text = (res.get("log") or "") + (res.get("error") or "")
    lines = [ln.strip() for ln in text.splitlines() if student in ln]
    return "; ".join(lines[-2:])[:300]


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
