"""Test helpers shared by every assignment's tests: build a submission from the solution, grade it.

``submission(name, path, replace=..., blank=...)`` writes a notebook as a student would hand it
in: the *released* notebook, with each answer cell filled from ``solutions/<name>/<name>.py``
(or left blank), and the cells in ``replace`` (``{grade_id: source or callable(source)}``)
swapped. ``grade(name, path, seed, pool=...)`` grades it as ``python -m autograder grade`` does.
"""
import os

import nbformat

from autograder import assignments, grading, notebooks, sandbox
from autograder.sandbox import REPO

FAST = dict(n=2, item_timeout=8.0, total_timeout=90.0)


def _gid(cell):
    return (cell.metadata.get("nbgrader") or {}).get("grade_id")


def solution_cells(name):
    nb = notebooks.to_notebook(os.path.join(REPO, "solutions", name, f"{name}.py"))
    return {_gid(c): c.source for c in nb.cells if _gid(c)}


def submission(name, path, replace=None, blank=False, extra_cells=()):
    sol = solution_cells(name)
    nb = grading.release_notebook(name)
    for c in nb.cells:
        m = c.metadata.get("nbgrader") or {}
        if m.get("solution") and not blank:
            c.source = sol[m["grade_id"]]
        r = (replace or {}).get(_gid(c))
        if r is not None:
            c.source = r(c.source) if callable(r) else r
    for k, s in enumerate(extra_cells):
        nb.cells.insert(2 + k, nbformat.v4.new_code_cell(s))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    nbformat.write(nb, path)
    return path


def pool(name):
    """A warm sandbox worker for assignment ``name`` (use as a context manager)."""
    spec = assignments.get(name)
    return sandbox.WorkerPool(absent=spec.ABSENT, assignment=spec.NAME)


def grade(name, path, seed=1, pool=None, **options):
    return grading.grade_notebook(path, seed, assignment=name, pool=pool, **dict(FAST, **options))


def scores(results, name):
    return {t.name: results[t.name]["score"] for t in assignments.get(name).TASKS}
