"""Each lesson runs top to bottom in a fresh kernel, in under 60 s: the solved version (solutions/lessons/)
with every exercise right, and the student's version (course/lessons/) without an error, each self-check
saying what is not done yet."""
import glob
import os
import time

import nbformat
import pytest

from autograder.sandbox import REPO

nbclient = pytest.importorskip("nbclient")
SOLVED = sorted(glob.glob(os.path.join(REPO, "solutions", "lessons", "*.ipynb")))
RELEASED = sorted(glob.glob(os.path.join(REPO, "course", "lessons", "*.ipynb")))


def _run(path):
    nb = nbformat.read(path, as_version=4)
    t = time.perf_counter()
    nbclient.NotebookClient(nb, timeout=60, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}}, allow_errors=True).execute()
    elapsed = time.perf_counter() - t
    outs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    errors = [f"{o.get('ename')}: {o.get('evalue')}" for o in outs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outs)
    return nb, elapsed, errors, text


@pytest.mark.parametrize("path", SOLVED, ids=[os.path.basename(p) for p in SOLVED])
def test_solved_lesson_runs_with_every_exercise_right(path):
    nb, elapsed, errors, text = _run(path)
    assert errors == [] and elapsed < 60, (errors, elapsed)
    if any((c.metadata.get("nbgrader") or {}).get("solution") for c in nb.cells):
        assert "exercises OK" in text
    assert "not done yet" not in text and "not right yet" not in text


@pytest.mark.parametrize("path", RELEASED, ids=[os.path.basename(p) for p in RELEASED])
def test_released_lesson_runs_through_and_asks_for_the_exercises(path):
    nb, elapsed, errors, text = _run(path)
    assert errors == [] and elapsed < 60, (errors, elapsed)
    has_exercises = any((c.metadata.get("nbgrader") or {}).get("solution") for c in nb.cells)
    if has_exercises:
        assert "not done yet" in text and "exercises OK" not in text
