"""Sample submissions, made from the solution: for tests, benchmarks, and instructors trying the grader.

``write_submission("A2", "s01/A2.ipynb")`` writes what a student who solved every task would
hand in: the *released* notebook (test cells and setup as released) with each answer cell
filled from ``solutions/A2/A2.py``. ``blank=True`` leaves the answers as released (stubs);
``replace={grade_id: source or callable(source)}`` swaps chosen cells (a bug, say).
"""
import os

import nbformat

from . import grading


def _gid(cell):
    return (cell.metadata.get("nbgrader") or {}).get("grade_id")


solution_cells = grading.source_cells   # grade_id -> source of the solution notebook's cells


def write_submission(name, path, replace=None, blank=False, extra_cells=()):
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
