"""Test helpers shared by every assignment's tests: build a submission from the solution, grade it.

``submission(name, path, replace=..., blank=...)`` writes a notebook as a student would hand it
in: the *released* notebook, with each answer cell filled from ``solutions/<name>/<name>.py``
(or left blank), and the cells in ``replace`` (``{grade_id: source or callable(source)}``)
swapped. ``grade(name, path, seed, pool=...)`` grades it as ``python -m autograder grade`` does.
"""
from autograder import assignments, grading, samples, sandbox

FAST = dict(n=2, item_timeout=8.0, total_timeout=90.0)


solution_cells = samples.solution_cells
submission = samples.write_submission


def pool(name):
    """A warm sandbox worker for assignment ``name`` (use as a context manager)."""
    spec = assignments.get(name)
    return sandbox.WorkerPool(absent=spec.ABSENT, assignment=spec.NAME)


def grade(name, path, seed=1, pool=None, **options):
    return grading.grade_notebook(path, seed, assignment=name, pool=pool, **dict(FAST, **options))


def scores(results, name):
    return {t.name: results[t.name]["score"] for t in assignments.get(name).TASKS}
